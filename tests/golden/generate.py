#!/usr/bin/env python3
"""Golden files for the C++ reimplementation, made by PyTorch itself.

Run by hand from the repository root (no network, deterministic):

    /usr/bin/python3 tests/golden/generate.py

Needs Debian's python3-torch (PyTorch 1.13, built without MKL; `apt-get install -y
python3-torch`); /usr/bin/python3, not a pyenv/venv python without torch.
It writes:

tests/golden/cases/<name>.json -- one per configuration of CASES below:
    {"name": str, "torch": torch.__version__,
     "config": {the configuration keys as a user passes them to the CLI, non-default only},
     "stages": [{"id": str, "shape": [int, ...], "data": [number, ...]}, ...]}
  Stages in the order of docs/cli.md (*b_* only when qkv_bias; mha.* only when
  num_heads divides d_out, else "mha_error" holds PyTorch's AssertionError message).
  rng "mkl": this PyTorch has no MKL, so nn.Dropout's Bernoulli draw is replaced by the MKL
  path's (one random() seeds an MCG31m1 stream, /work/shared/reference/pytorch-cpu-rng.md),
  checked against the Linux tables of seed 000; everything else is PyTorch's own.
  "data" is flat, row-major. Every number is the exact float32 value written as
  Python's repr(float(x)) (parses back to the same float32); non-finite values are
  the strings "-inf", "inf", "nan".

tests/golden/rng.json -- primitive generator outputs, for unit tests of a
PyTorch-compatible generator:
    {"torch": str, "cpu_capability": str,
     "entries": [{"seed": int, "call": str, "args": {...}, "values": [number, ...]}, ...]}
  Each entry starts from torch.manual_seed(seed) and then makes the call below; values
  are float32, written like the cases:
    "uniform_"    args {"n", "from", "to"}: torch.empty(n).uniform_(from, to)
                  ("from"/"to" are the exact Python doubles passed, e.g. nn.Linear's
                  kaiming bound math.sqrt(3) * (math.sqrt(2 / (1 + math.sqrt(5)**2)) / math.sqrt(in))).
    "randn"       args {"n"}: torch.randn(n)  (numel < 16 and >= 16 take different paths)
    "bernoulli_"  args {"n", "p"}: torch.empty(n).bernoulli_(p)  (default, non-MKL path)
    "randn_twice" args {"n"}: torch.randn(n) and then torch.randn(n) again, no reseed;
                  values = the first call's n values, then the second call's n values
    "linear"      args {"in", "out", "bias"}: torch.nn.Linear(in, out, bias=bias);
                  values = weight (out x in, row-major), then bias (out) when bias

Results of the vectorised kernels depend on the CPU capability PyTorch dispatches to
(e.g. uniform_ is compiled with FMA contraction in the AVX2 build, randn >= 16 uses
avx_mathfun's log/sincos only in the AVX2 build); the goldens pin AVX2, the default
of PyTorch 1.13 on x86-64 machines with AVX2, before torch is imported.
"""
import os

CPU_CAPABILITY = "avx2"
os.environ["ATEN_CPU_CAPABILITY"] = CPU_CAPABILITY  # must precede `import torch`

import json
import math
import sys

import torch
import torch.nn as nn

# ---------------------------------------------------------------------------------------
# Configuration defaults (docs/cli.md): the one place they live in this script.
# ---------------------------------------------------------------------------------------
BOOK_INPUTS = [
    [0.43, 0.15, 0.89],  # Your     (x^1)
    [0.55, 0.87, 0.66],  # journey  (x^2)
    [0.57, 0.85, 0.64],  # starts   (x^3)
    [0.22, 0.58, 0.33],  # with     (x^4)
    [0.77, 0.25, 0.10],  # one      (x^5)
    [0.05, 0.80, 0.55],  # step     (x^6)
]
BOOK_TOKENS = ["Your", "journey", "starts", "with", "one", "step"]
RANDN_DEFAULT_SEED = 123
DEFAULTS = {
    "inputs": BOOK_INPUTS,
    "tokens": None,  # None: the book's words, then x7, x8, ...
    "d_out": 2,
    "query_token": None,  # None: 1 ("journey"), or 0 when T = 1
    "seed_v1": 123,
    "num_heads": 2,
    "qkv_bias": False,
    "scale": True,
    "seed_weights": 789,
    "seed_dropout": 123,
    "dropout": 0.5,
    "seed_class": 123,
    "class_dropout": 0.0,
    "context_length": None,  # None: T
    "rng": "default",
    "train": True,
}
SEED_MIN, SEED_MAX = -(2**63), 2**64 - 1

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")
RNG_PATH = os.path.join(HERE, "rng.json")


# ---------------------------------------------------------------------------------------
# The book's classes (§3.4 SelfAttention_v1/_v2, §3.5 CausalAttention, §3.6 the two
# multi-head modules), plus a `scale` flag: scale=False means no division at all (not a
# division by 1), and an `rng` flag for dropout's Bernoulli path.
# ---------------------------------------------------------------------------------------
MCG31_MODULUS, MCG31_MULTIPLIER = 2**31 - 1, 1132489760


def mkl_bernoulli(shape, keep):
    """bernoulli_(keep) on the MKL path: one random() seeds an MCG31m1 stream."""
    # random_(0, 2^32 - 1) takes exactly one 32-bit random(); its one lost value (2^32 - 1)
    # and 0 both give x0 = 1 below.
    s = int(torch.empty((), dtype=torch.int64).random_(0, 2**32 - 1))
    x = s % MCG31_MODULUS or 1
    n = math.prod(shape)
    out = []
    for _ in range(n):
        out.append(1.0 if x / MCG31_MODULUS < keep else 0.0)
        x = x * MCG31_MULTIPLIER % MCG31_MODULUS
    return torch.tensor(out, dtype=torch.float32).reshape(shape)


class Dropout(nn.Dropout):
    """nn.Dropout, or on the MKL path the same arithmetic over MKL's Bernoulli mask."""

    def __init__(self, p, rng="default"):
        super().__init__(p)
        self.rng = rng

    def forward(self, x):
        if self.rng == "default" or not self.training or self.p in (0.0, 1.0) or x.numel() == 0:
            return super().forward(x)
        noise = mkl_bernoulli(x.shape, 1 - self.p)
        noise.div_(1 - self.p)  # at::native dropout: input * bernoulli(1 - p).div_(1 - p)
        return x * noise


class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out, scale=True):
        super().__init__()
        self.scale = scale
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T  # omega
        if self.scale:
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        else:
            attn_weights = torch.softmax(attn_scores, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False, scale=True):
        super().__init__()
        self.scale = scale
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        if self.scale:
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        else:
            attn_weights = torch.softmax(attn_scores, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False, scale=True, rng="default"):
        super().__init__()
        self.d_out = d_out
        self.scale = scale
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = Dropout(dropout, rng)  # New
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))  # New

    def forward(self, x):
        b, num_tokens, d_in = x.shape  # New batch dimension b
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.transpose(1, 2)  # Changed transpose
        attn_scores.masked_fill_(  # New, _ ops are in-place
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        if self.scale:
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        else:
            attn_weights = torch.softmax(attn_scores, dim=-1)
        attn_weights = self.dropout(attn_weights)  # New

        context_vec = attn_weights @ values
        return context_vec


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, scale=True, rng="default"):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias, scale, rng)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    """The book's class; forward also keeps its intermediates in self.trace."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, scale=True, rng="default"):
        super().__init__()
        assert (d_out % num_heads == 0), \
            "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.scale = scale

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = Dropout(dropout, rng)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        self.trace = {}

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        if self.scale:
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        else:
            attn_weights = torch.softmax(attn_scores, dim=-1)
        attn_weights = self.dropout(attn_weights)

        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        self.trace = {"mha.queries": queries, "mha.keys": keys, "mha.values": values,
                      "mha.attn_scores": attn_scores, "mha.attn_weights": attn_weights,
                      "mha.context_vec": context_vec}
        context_vec = self.out_proj(context_vec)
        return context_vec


class MultiHeadAttentionKV(MultiHeadAttention):
    """The bonus code's forward (rasbt/LLMs-from-scratch ch04/03_kv-cache,
    gpt_with_kv_cache.py): keys and values appended to a cache, the mask sliced at the current
    position; each call's intermediates appended to self.steps."""

    def __init__(self, *args):
        super().__init__(*args)
        self.cache_k, self.cache_v, self.ptr_current_pos, self.steps = None, None, 0, []

    def forward(self, x, use_cache=True):
        assert use_cache
        b, num_tokens, d_in = x.shape
        keys_new = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        if self.cache_k is None:
            self.cache_k, self.cache_v = keys_new, values_new
        else:
            self.cache_k = torch.cat([self.cache_k, keys_new], dim=1)
            self.cache_v = torch.cat([self.cache_v, values_new], dim=1)
        keys, values = self.cache_k.transpose(1, 2), self.cache_v.transpose(1, 2)
        queries = queries.transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        num_tokens_Q, num_tokens_K = queries.shape[-2], keys.shape[-2]
        mask_bool = self.mask.bool()[self.ptr_current_pos:self.ptr_current_pos + num_tokens_Q, :num_tokens_K]
        self.ptr_current_pos += num_tokens_Q
        assert not mask_bool.any()  # one new token: nothing after it to hide
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        if self.scale:
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        else:
            attn_weights = torch.softmax(attn_scores, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        self.steps.append({"queries": queries, "keys": keys, "values": values, "mask": mask_bool,
                           "attn_scores": attn_scores, "attn_weights": attn_weights,
                           "context_vec": context_vec})
        return self.out_proj(context_vec)


# ---------------------------------------------------------------------------------------
# Configuration handling
# ---------------------------------------------------------------------------------------
def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _seed(name, v):
    if not isinstance(v, int) or isinstance(v, bool) or not SEED_MIN <= v <= SEED_MAX:
        raise ValueError(f"{name}: an integer in [-2^63, 2^64-1], got {v!r}")
    return v


def _p(name, v):
    if not _is_number(v) or not 0.0 <= v <= 1.0:
        raise ValueError(f"{name}: a number in [0, 1], got {v!r}")
    return float(v)


def _bool(name, v):
    if not isinstance(v, bool):
        raise ValueError(f"{name}: true or false, got {v!r}")
    return v


def resolve(config):
    """The user's config (non-default keys only) -> every key with its value."""
    unknown = set(config) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown configuration keys: {sorted(unknown)}")
    c = dict(DEFAULTS)
    c.update(config)

    inp = c["inputs"]
    if isinstance(inp, dict):
        if set(inp) - {"randn", "seed"} or "randn" not in inp:
            raise ValueError(f"inputs: {{\"randn\": [T, D], \"seed\": S}}, got {inp!r}")
        shape = inp["randn"]
        if (not isinstance(shape, list) or len(shape) != 2
                or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in shape)):
            raise ValueError(f"inputs.randn: [T, D] with T, D >= 1, got {shape!r}")
        c["inputs"] = {"randn": list(shape), "seed": _seed("inputs.seed", inp.get("seed", RANDN_DEFAULT_SEED))}
        T, d_in = shape
    else:
        if (not isinstance(inp, list) or not inp or not all(isinstance(r, list) for r in inp)
                or not inp[0] or any(len(r) != len(inp[0]) for r in inp)
                or not all(_is_number(v) for r in inp for v in r)):
            raise ValueError("inputs: a non-empty T x d_in array of numbers")
        T, d_in = len(inp), len(inp[0])
    c["T"], c["d_in"] = T, d_in

    if c["tokens"] is None:
        c["tokens"] = [BOOK_TOKENS[i] if i < len(BOOK_TOKENS) else f"x{i + 1}" for i in range(T)]
    elif not isinstance(c["tokens"], list) or len(c["tokens"]) != T or not all(isinstance(s, str) for s in c["tokens"]):
        raise ValueError(f"tokens: {T} strings")

    if not isinstance(c["d_out"], int) or isinstance(c["d_out"], bool) or c["d_out"] < 1:
        raise ValueError(f"d_out: an integer >= 1, got {c['d_out']!r}")
    if not isinstance(c["num_heads"], int) or isinstance(c["num_heads"], bool) or c["num_heads"] < 1:
        raise ValueError(f"num_heads: an integer >= 1, got {c['num_heads']!r}")
    if c["query_token"] is None:
        c["query_token"] = 1 if T > 1 else 0
    elif not isinstance(c["query_token"], int) or isinstance(c["query_token"], bool) or not 0 <= c["query_token"] < T:
        raise ValueError(f"query_token: an integer in [0, {T}), got {c['query_token']!r}")
    _seed("seed_v1", c["seed_v1"])
    for k in ("qkv_bias", "scale", "train"):
        _bool(k, c[k])
    for k in ("seed_weights", "seed_dropout", "seed_class"):
        _seed(k, c[k])
    c["dropout"] = _p("dropout", c["dropout"])
    c["class_dropout"] = _p("class_dropout", c["class_dropout"])
    if c["context_length"] is None:
        c["context_length"] = T
    elif not isinstance(c["context_length"], int) or isinstance(c["context_length"], bool) or c["context_length"] < T:
        raise ValueError(f"context_length: an integer >= T = {T}, got {c['context_length']!r}")
    if c["rng"] not in ("default", "mkl"):
        raise ValueError(f"rng: \"default\" or \"mkl\", got {c['rng']!r}")
    return c


# ---------------------------------------------------------------------------------------
# The program of docs/cli.md
# ---------------------------------------------------------------------------------------
def run(config):
    """Returns [(stage id, tensor)] in the order of docs/cli.md."""
    c = resolve(config)
    T, d_in, d_out = c["T"], c["d_in"], c["d_out"]
    qkv_bias, scale, train, rng = c["qkv_bias"], c["scale"], c["train"], c["rng"]
    q, H = c["query_token"], c["num_heads"]
    stages = []

    def stage(sid, t):
        stages.append((sid, t.detach().clone()))

    with torch.no_grad():
        if isinstance(c["inputs"], dict):
            torch.manual_seed(c["inputs"]["seed"])
            X = torch.randn(*c["inputs"]["randn"])
        else:
            X = torch.tensor(c["inputs"], dtype=torch.float32)
        assert X.dtype == torch.float32 and tuple(X.shape) == (T, d_in)
        stage("inputs", X)

        # §3.3.1 a simple attention without trainable weights, for the query token
        query = X[q]
        attn_scores_q = torch.empty(X.shape[0])
        for i, x_i in enumerate(X):
            attn_scores_q[i] = torch.dot(x_i, query)
        stage("simple.attn_scores_q", attn_scores_q)
        stage("simple.attn_weights_q_tmp", attn_scores_q / attn_scores_q.sum())
        stage("simple.attn_weights_q_naive", torch.exp(attn_scores_q) / torch.exp(attn_scores_q).sum(dim=0))
        attn_weights_q = torch.softmax(attn_scores_q, dim=0)
        stage("simple.attn_weights_q", attn_weights_q)
        context_vec_q = torch.zeros(query.shape)
        for i, x_i in enumerate(X):
            context_vec_q += attn_weights_q[i] * x_i
        stage("simple.context_vec_q", context_vec_q)
        # §3.3.2 every token
        simple_scores = X @ X.T
        stage("simple.attn_scores", simple_scores)
        simple_weights = torch.softmax(simple_scores, dim=-1)
        stage("simple.attn_weights", simple_weights)
        stage("simple.all_context_vecs", simple_weights @ X)

        # §3.4.1 trainable weights step by step
        torch.manual_seed(c["seed_v1"])
        W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
        W_key = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
        W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
        stage("v1.W_query", W_query)
        stage("v1.W_key", W_key)
        stage("v1.W_value", W_value)
        x_q = X[q]
        query_q = x_q @ W_query
        stage("v1.query_q", query_q)
        v1_keys = X @ W_key
        v1_values = X @ W_value
        stage("v1.keys", v1_keys)
        stage("v1.values", v1_values)
        stage("v1.attn_score_qq", query_q.dot(v1_keys[q]))
        v1_scores_q = query_q @ v1_keys.T
        stage("v1.attn_scores_q", v1_scores_q)
        d_k = v1_keys.shape[1]
        v1_weights_q = torch.softmax(v1_scores_q / d_k**0.5 if scale else v1_scores_q, dim=-1)
        stage("v1.attn_weights_q", v1_weights_q)
        stage("v1.context_vec_q", v1_weights_q @ v1_values)
        # §3.4.2 the class, and exercise 3.1: v1 carrying v2's weights
        torch.manual_seed(c["seed_v1"])
        sa_v1 = SelfAttention_v1(d_in, d_out, scale)
        stage("v1.context_vecs", sa_v1(X))
        torch.manual_seed(c["seed_weights"])
        sa_v2 = SelfAttention_v2(d_in, d_out, qkv_bias, scale)
        sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T)
        sa_v1.W_key = nn.Parameter(sa_v2.W_key.weight.T)
        sa_v1.W_value = nn.Parameter(sa_v2.W_value.weight.T)
        v1_from_v2 = sa_v1(X)
        stage("v1_from_v2.context_vecs", v1_from_v2)

        torch.manual_seed(c["seed_weights"])
        sa_v2 = SelfAttention_v2(d_in, d_out, qkv_bias, scale)
        stage("W_query", sa_v2.W_query.weight)
        stage("W_key", sa_v2.W_key.weight)
        stage("W_value", sa_v2.W_value.weight)
        if qkv_bias:
            stage("b_query", sa_v2.W_query.bias)
            stage("b_key", sa_v2.W_key.bias)
            stage("b_value", sa_v2.W_value.bias)

        queries = sa_v2.W_query(X)
        keys = sa_v2.W_key(X)
        values = sa_v2.W_value(X)
        stage("queries", queries)
        stage("keys", keys)
        stage("values", values)
        attn_scores = queries @ keys.T
        stage("attn_scores", attn_scores)
        if scale:
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        else:
            attn_weights = torch.softmax(attn_scores, dim=-1)
        stage("attn_weights", attn_weights)
        context_vec = attn_weights @ values
        stage("context_vec", context_vec)
        # The book's module gives the very same numbers; so does v1 with v2's weights.
        assert bits_equal(sa_v2(X), context_vec)
        assert qkv_bias or bits_equal(v1_from_v2, context_vec)

        mask_simple = torch.tril(torch.ones(T, T))
        stage("mask_simple", mask_simple)
        masked_simple = attn_weights * mask_simple
        stage("masked_simple", masked_simple)
        row_sums = masked_simple.sum(dim=-1, keepdim=True)
        stage("row_sums", row_sums)
        masked_simple_norm = masked_simple / row_sums
        stage("masked_simple_norm", masked_simple_norm)

        mask = torch.triu(torch.ones(T, T), diagonal=1)
        stage("mask", mask)
        masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
        stage("masked", masked)
        if scale:
            attn_weights_causal = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)
        else:
            attn_weights_causal = torch.softmax(masked, dim=-1)
        stage("attn_weights_causal", attn_weights_causal)

        dropout = Dropout(c["dropout"], rng)
        dropout.train(train)
        torch.manual_seed(c["seed_dropout"])
        dropout_example = dropout(torch.ones(T, T))
        stage("dropout_example", dropout_example)
        torch.manual_seed(c["seed_dropout"])
        attn_weights_dropped = dropout(attn_weights_causal)
        stage("attn_weights_dropped", attn_weights_dropped)

        batch = torch.stack((X, X), dim=0)
        stage("batch", batch)
        torch.manual_seed(c["seed_class"])
        ca = CausalAttention(d_in, d_out, c["context_length"], c["class_dropout"], qkv_bias, scale, rng)
        ca.train(train)
        stage("ca.W_query", ca.W_query.weight)
        stage("ca.W_key", ca.W_key.weight)
        stage("ca.W_value", ca.W_value.weight)
        if qkv_bias:
            stage("ca.b_query", ca.W_query.bias)
            stage("ca.b_key", ca.W_key.bias)
            stage("ca.b_value", ca.W_value.bias)
        context_vecs = ca(batch)
        stage("context_vecs", context_vecs)

        # §3.6.1 heads side by side
        torch.manual_seed(c["seed_class"])
        mhaw = MultiHeadAttentionWrapper(d_in, d_out, c["context_length"], c["class_dropout"], H, qkv_bias, scale, rng)
        mhaw.train(train)
        for part in ("W_", "b_") if qkv_bias else ("W_",):
            for name in ("query", "key", "value"):
                attr = "weight" if part == "W_" else "bias"
                stage("mhaw." + part + name, torch.stack([getattr(getattr(h, "W_" + name), attr) for h in mhaw.heads]))
        stage("mhaw.context_vecs", mhaw(batch))

        # §3.6.2 one module, heads split by view + transpose
        mha_error = None
        torch.manual_seed(c["seed_class"])
        try:
            mha = MultiHeadAttention(d_in, d_out, c["context_length"], c["class_dropout"], H, qkv_bias, scale, rng)
        except AssertionError as e:
            mha_error = str(e)
        if mha_error is None:
            mha.train(train)
            stage("mha.W_query", mha.W_query.weight)
            stage("mha.W_key", mha.W_key.weight)
            stage("mha.W_value", mha.W_value.weight)
            if qkv_bias:
                stage("mha.b_query", mha.W_query.bias)
                stage("mha.b_key", mha.W_key.bias)
                stage("mha.b_value", mha.W_value.bias)
            stage("mha.out_proj.weight", mha.out_proj.weight)
            stage("mha.out_proj.bias", mha.out_proj.bias)
            mha_out = mha(batch)
            for sid in ("mha.queries", "mha.keys", "mha.values", "mha.attn_scores", "mha.attn_weights",
                        "mha.context_vec"):
                stage(sid, mha.trace[sid])
            stage("mha.context_vecs", mha_out)

            # Beyond the chapter (ch04/03_kv-cache): the same module generating one token per
            # step with a KV cache, in eval mode; every step's rows stacked.
            torch.manual_seed(c["seed_class"])
            kv = MultiHeadAttentionKV(d_in, d_out, c["context_length"], 0.0, H, qkv_bias, scale, rng)
            kv.eval()
            steps = [kv(batch[:, t:t + 1], use_cache=True) for t in range(T)]
            tr = kv.steps

            def rows(key, fill):  # step t's row of t + 1 cells, padded to T
                return torch.cat([nn.functional.pad(s[key], (0, T - 1 - t), value=fill)
                                  for t, s in enumerate(tr)], dim=2)
            stage("kv.queries", torch.cat([s["queries"] for s in tr], dim=2))
            stage("kv.cache_k", tr[-1]["keys"])
            stage("kv.cache_v", tr[-1]["values"])
            stage("kv.mask", torch.cat([nn.functional.pad(s["mask"], (0, T - 1 - t))
                                        for t, s in enumerate(tr)]).to(torch.float32))
            stage("kv.attn_scores", rows("attn_scores", -math.inf))
            stage("kv.attn_weights", rows("attn_weights", 0.0))
            stage("kv.context_vec", torch.cat([s["context_vec"] for s in tr], dim=1))
            kv_out = torch.cat(steps, dim=1)
            stage("kv.context_vecs", kv_out)
            # The cache after step t is the first t + 1 rows of the last one; the scores are the
            # full pass's; the weights too, except softmax's sum of 3 to 7 values when T >= 8.
            for t, s in enumerate(tr):
                assert bits_equal(s["keys"], tr[-1]["keys"][:, :, :t + 1])
            assert bits_equal(rows("attn_scores", -math.inf), mha.trace["mha.attn_scores"])
            if T < 8 and (not train or c["class_dropout"] == 0):
                assert bits_equal(kv_out, mha_out)

    for sid, t in stages:
        assert t.dtype == torch.float32, sid
    return stages, mha_error


def bits_equal(a, b):
    return a.shape == b.shape and torch.equal(a.contiguous().view(torch.int32), b.contiguous().view(torch.int32))


# ---------------------------------------------------------------------------------------
# JSON writing
# ---------------------------------------------------------------------------------------
def num(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x  # json writes repr(float), which round-trips


def flat(t):
    t = t.detach().contiguous().to(torch.float32)
    return [num(v) for v in t.reshape(-1).tolist()]


def dumps(obj):
    return json.dumps(obj, allow_nan=False, ensure_ascii=False, separators=(",", ":"))


def write_case(name, config, stages, mha_error=None):
    lines = [
        "{",
        f'"name":{dumps(name)},',
        f'"torch":{dumps(torch.__version__)},',
        f'"config":{dumps(config)},',
    ]
    if mha_error is not None:
        lines.append(f'"mha_error":{dumps(mha_error)},')
    lines += ['"stages":[']
    for i, (sid, t) in enumerate(stages):
        st = {"id": sid, "shape": list(t.shape), "data": flat(t)}
        lines.append(dumps(st) + ("," if i + 1 < len(stages) else ""))
    lines += ["]", "}"]
    text = "\n".join(lines) + "\n"
    json.loads(text)  # well-formed
    with open(os.path.join(CASES_DIR, name + ".json"), "w", encoding="utf-8") as f:
        f.write(text)
    return len(text.encode("utf-8"))


# ---------------------------------------------------------------------------------------
# The configurations
# ---------------------------------------------------------------------------------------
def book_inputs_changed():
    x = [list(r) for r in BOOK_INPUTS]
    x[2][1] = 0.86  # "starts": 0.85 -> 0.86
    return x


CASES = [
    # --- the book
    ("book_default", {}),
    ("book_no_scale", {"scale": False}),
    ("book_qkv_bias", {"qkv_bias": True}),
    ("book_qkv_bias_no_scale", {"qkv_bias": True, "scale": False}),
    ("book_eval", {"train": False}),
    ("book_eval_all_dropouts_0_9", {"train": False, "dropout": 0.9, "class_dropout": 0.9}),
    ("book_context_length_10", {"context_length": 10}),
    ("book_custom_tokens", {"tokens": ["The", "cat", "sat", "on", "the", "mat"]}),
    # --- dropout p (demo) and class_dropout p
    ("dropout_0", {"dropout": 0}),
    ("dropout_0_1", {"dropout": 0.1}),
    ("dropout_0_9", {"dropout": 0.9}),
    ("dropout_1", {"dropout": 1}),
    ("class_dropout_0_1", {"class_dropout": 0.1}),
    ("class_dropout_0_5", {"class_dropout": 0.5}),
    ("class_dropout_0_9_dropout_0_1", {"class_dropout": 0.9, "dropout": 0.1}),
    ("class_dropout_1_dropout_0", {"class_dropout": 1, "dropout": 0}),
    # p where float32(1/float32(1-p)) != float32(1/(1-p)): the scale is the float reciprocal
    ("dropout_0_025_class_dropout_0_021", {"dropout": 0.025, "class_dropout": 0.021}),
    # --- seeds (mod 2^32; negatives as 64-bit two's complement)
    ("seeds_all_0", {"seed_weights": 0, "seed_dropout": 0, "seed_class": 0}),
    ("seeds_all_2p32_wrap_to_0", {"seed_weights": 2**32, "seed_dropout": 2**32, "seed_class": 2**32}),
    ("seed_weights_1_seed_dropout_1", {"seed_weights": 1, "seed_dropout": 1}),
    ("seed_weights_2p32m1_seed_class_1", {"seed_weights": 2**32 - 1, "seed_class": 1, "class_dropout": 0.5}),
    ("seed_2p63m1", {"seed_weights": 2**63 - 1, "seed_dropout": 2**63 - 1, "class_dropout": 0.5}),
    ("seed_2p64m1", {"seed_dropout": 2**64 - 1, "seed_class": 2**64 - 1, "class_dropout": 0.1}),
    ("seeds_all_minus_1", {"seed_weights": -1, "seed_dropout": -1, "seed_class": -1, "class_dropout": 0.5}),
    ("seed_min_int64_and_negative", {"seed_weights": -(2**63), "seed_dropout": -123456789, "seed_class": -2**40 - 5,
                                     "class_dropout": 0.9}),
    ("seeds_large", {"seed_weights": 123456789012345, "seed_dropout": 987654321,
                     "seed_class": 18446744073709551557, "class_dropout": 0.5, "dropout": 0.1}),
    # --- d_out
    ("d_out_1", {"d_out": 1}),
    ("d_out_8_qkv_bias", {"d_out": 8, "qkv_bias": True, "class_dropout": 0.1}),
    # --- randn inputs: numel < 16 (per-element Box-Muller) ...
    ("randn_1x1_d_out_1", {"inputs": {"randn": [1, 1], "seed": 0}, "d_out": 1}),
    ("randn_2x3_d_out_4", {"inputs": {"randn": [2, 3], "seed": 7}, "d_out": 4, "class_dropout": 0.5}),
    ("randn_3x5_qkv_bias_d_out_5", {"inputs": {"randn": [3, 5], "seed": 42}, "d_out": 5, "qkv_bias": True}),
    ("randn_9x1_d_out_3", {"inputs": {"randn": [9, 1], "seed": 2**32 - 1}, "d_out": 3, "dropout": 0.9}),
    # ... exactly 16 ...
    ("randn_4x4_d_out_3", {"inputs": {"randn": [4, 4], "seed": 1}, "d_out": 3}),
    ("randn_2x8_no_scale_d_out_6", {"inputs": {"randn": [2, 8], "seed": 2}, "d_out": 6, "scale": False}),
    # ... more than 16: blocks of 16 plus a re-drawn last block when n % 16 != 0
    ("randn_6x3_seed_123", {"inputs": {"randn": [6, 3]}}),
    ("randn_3x6_qkv_bias_seed_minus_1", {"inputs": {"randn": [3, 6], "seed": -1}, "qkv_bias": True}),
    ("randn_5x7_d_out_7", {"inputs": {"randn": [5, 7], "seed": 2024}, "d_out": 7, "class_dropout": 0.1}),
    ("randn_7x2_T7_d_out_5", {"inputs": {"randn": [7, 2], "seed": 31337}, "d_out": 5, "seed_dropout": 2**32 - 1}),
    ("randn_8x3_T8", {"inputs": {"randn": [8, 3], "seed": 8}, "class_dropout": 0.5, "seed_class": 0}),
    ("randn_12x4_T12_dropout_1_class_0_9", {"inputs": {"randn": [12, 4], "seed": 1000}, "d_out": 3, "dropout": 1,
                                            "class_dropout": 0.9}),
    ("randn_16x3_T16_eval", {"inputs": {"randn": [16, 3], "seed": 5}, "train": False, "d_out": 4}),
    ("randn_17x3_T17_no_scale", {"inputs": {"randn": [17, 3], "seed": 17}, "scale": False, "class_dropout": 0.5,
                                 "dropout": 0.1}),
    ("randn_24x1_T24_d_in_1", {"inputs": {"randn": [24, 1], "seed": 24}, "d_out": 1, "dropout": 0.1,
                               "class_dropout": 0.1}),
    ("randn_32x8_T32_context_40", {"inputs": {"randn": [32, 8], "seed": 99}, "d_out": 8, "context_length": 40,
                                   "class_dropout": 0.1, "qkv_bias": True}),
    # --- explicit inputs
    ("book_inputs_one_value_changed", {"inputs": book_inputs_changed()}),
    ("inputs_negative_4x3", {"inputs": [[-0.5, 0.25, -1.0], [1.5, -0.75, 0.0], [-2.0, -0.1, 0.3], [0.7, 0.7, -0.7]],
                             "d_out": 3, "qkv_bias": True}),
    ("inputs_1x1", {"inputs": [[0.5]]}),
    ("inputs_1x8_T1", {"inputs": [[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]], "d_out": 5, "dropout": 0.9}),
    ("inputs_2x2_integers", {"inputs": [[1, -2], [3, 4]]}),
    # 1 + 2^-24 (written 1.0000000596046448) is a float32 tie: parse to double, then round to
    # float32 (-> 1.0, as torch.tensor does); parsing the text straight to float (strtof) gives 1.0000001
    ("inputs_float32_tie_double_rounding", {"inputs": [[1 + 2**-24, 0.5], [-(1 + 2**-24), 0.25], [0.1, 1 + 3 * 2**-24]],
                                            "d_out": 3}),
    ("inputs_large_underflow_nan", {"inputs": [[30.0, -40.0, 25.0], [-35.0, 45.0, 10.0], [20.0, 20.0, -50.0],
                                               [-10.0, -30.0, 40.0]], "d_out": 4}),
    ("inputs_overflow_inf", {"inputs": [[1e20, -1e20], [3e19, 1e19], [-2e20, 5e19]], "scale": False}),
    ("inputs_tiny_denormal", {"inputs": [[1e-39, -3e-40], [2e-38, 1e-45], [0.0, -0.0]], "d_out": 3}),
    # --- §3.3, §3.4 and §3.6: heads, head_dim, query token, seed_v1, dropout in the heads
    ("heads_1", {"num_heads": 1}),
    ("heads_1_d_out_1_class_dropout_0_5", {"num_heads": 1, "d_out": 1, "class_dropout": 0.5}),
    ("heads_2_d_out_4", {"d_out": 4}),
    ("heads_2_d_out_6_seeds_7", {"d_out": 6, "seed_class": 7, "seed_v1": 7}),
    ("heads_3_d_out_6", {"num_heads": 3, "d_out": 6}),
    ("heads_3_d_out_3_head_dim_1_context_12", {"num_heads": 3, "d_out": 3, "context_length": 12}),
    ("heads_4_d_out_8_qkv_bias", {"num_heads": 4, "d_out": 8, "qkv_bias": True}),
    ("heads_4_d_out_4_head_dim_1_class_dropout_0_1", {"num_heads": 4, "d_out": 4, "class_dropout": 0.1}),
    ("heads_4_d_out_8_no_scale", {"num_heads": 4, "d_out": 8, "scale": False}),
    ("heads_8_d_out_8_head_dim_1", {"num_heads": 8, "d_out": 8}),
    ("heads_8_d_out_16_randn_10x5", {"inputs": {"randn": [10, 5], "seed": 3}, "num_heads": 8, "d_out": 16}),
    ("heads_2_class_dropout_0_5", {"class_dropout": 0.5}),
    ("heads_3_d_out_9_class_dropout_0_9_qkv_bias", {"num_heads": 3, "d_out": 9, "class_dropout": 0.9,
                                                     "qkv_bias": True}),
    ("heads_2_d_out_4_class_dropout_1", {"d_out": 4, "class_dropout": 1}),
    ("heads_2_d_out_4_eval_class_dropout_0_5", {"d_out": 4, "train": False, "class_dropout": 0.5}),
    ("query_token_0", {"query_token": 0}),
    ("query_token_5_last", {"query_token": 5}),
    ("query_token_8_last_randn_9x4_heads_4", {"inputs": {"randn": [9, 4], "seed": 11}, "query_token": 8, "d_out": 4,
                                              "num_heads": 4}),
    ("query_token_3_negative_inputs_d_out_4", {"inputs": [[-0.5, 0.25, -1.0], [1.5, -0.75, 0.0], [-2.0, -0.1, 0.3],
                                                          [0.7, 0.7, -0.7]], "query_token": 3, "d_out": 4}),
    ("query_token_23_randn_24x1_d_in_1", {"inputs": {"randn": [24, 1], "seed": 24}, "query_token": 23}),
    ("query_token_2_large_scores_naive_overflow", {"inputs": [[30.0, -40.0, 25.0], [-35.0, 45.0, 10.0],
                                                              [20.0, 20.0, -50.0], [-10.0, -30.0, 40.0]],
                                                   "d_out": 4, "query_token": 2}),
    ("T1_randn_1x4_d_out_4", {"inputs": {"randn": [1, 4], "seed": 5}, "d_out": 4, "class_dropout": 0.5}),
    ("T1_inputs_1x3_query_token_0_heads_1", {"inputs": [[0.3, -0.2, 0.9]], "query_token": 0, "num_heads": 1}),
    ("seed_v1_0", {"seed_v1": 0}),
    ("seed_v1_2p32m1_query_token_0", {"seed_v1": 2**32 - 1, "query_token": 0}),
    ("seed_v1_minus_1_heads_3_d_out_3", {"seed_v1": -1, "d_out": 3, "num_heads": 3}),
    ("randn_16x8_heads_4_d_out_8_dropouts", {"inputs": {"randn": [16, 8], "seed": 16}, "num_heads": 4, "d_out": 8,
                                             "class_dropout": 0.2, "dropout": 0.3}),
    ("randn_32x16_heads_8_d_out_16_qkv_bias", {"inputs": {"randn": [32, 16], "seed": 32}, "num_heads": 8,
                                               "d_out": 16, "qkv_bias": True, "class_dropout": 0.1}),
    ("randn_40x12_heads_4_d_out_24", {"inputs": {"randn": [40, 12], "seed": 40}, "num_heads": 4, "d_out": 24,
                                      "class_dropout": 0.1, "query_token": 39}),
    # --- generation with a KV cache in eval mode: from T = 8 on, softmax sums the cached rows
    # of 3 to 7 values in order, the full pass's padded rows in lanes (kv_cache.hpp)
    ("kv_randn_12x6_heads_3_d_out_6_eval", {"inputs": {"randn": [12, 6], "seed": 12}, "num_heads": 3,
                                            "d_out": 6, "train": False}),
    # --- d_out not divisible by num_heads: PyTorch's MultiHeadAttention asserts, no mha.* stages
    ("heads_2_d_out_3_mha_error", {"d_out": 3}),
    ("heads_4_d_out_5_mha_error_class_dropout_0_5", {"d_out": 5, "num_heads": 4, "class_dropout": 0.5}),
    ("heads_3_d_out_7_mha_error_qkv_bias", {"d_out": 7, "num_heads": 3, "qkv_bias": True}),
    # --- the MKL dropout path (emulated Bernoulli draw, see the docstring)
    ("mkl_book", {"rng": "mkl"}),
    ("mkl_class_dropout_0_5", {"rng": "mkl", "class_dropout": 0.5}),
    ("mkl_heads_4_d_out_8_dropouts_0_1", {"rng": "mkl", "num_heads": 4, "d_out": 8, "class_dropout": 0.1,
                                          "dropout": 0.1}),
    ("mkl_randn_8x3_heads_3_d_out_6_qkv_bias", {"rng": "mkl", "inputs": {"randn": [8, 3], "seed": 8},
                                                "num_heads": 3, "d_out": 6, "qkv_bias": True, "class_dropout": 0.9}),
]


# ---------------------------------------------------------------------------------------
# rng.json
# ---------------------------------------------------------------------------------------
def kaiming_bound(fan_in):
    # exactly as nn.init.kaiming_uniform_(w, a=math.sqrt(5)) computes it (a double)
    gain = nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    return math.sqrt(3.0) * (gain / math.sqrt(fan_in))


def rng_entries():
    seeds = [0, 1, 123, 789, 2**32 - 1, -1]
    entries = []

    def add(seed, call, args, values):
        entries.append({"seed": seed, "call": call, "args": args, "values": values})

    uniform_args = [(6, -kaiming_bound(3), kaiming_bound(3)), (2, -1 / math.sqrt(3), 1 / math.sqrt(3)),
                    (8, -kaiming_bound(1), kaiming_bound(1)), (16, -kaiming_bound(8), kaiming_bound(8)),
                    (10, 0.0, 1.0), (10, -0.1, 0.7), (10, -3.3, 1.1)]
    randn_ns = list(range(1, 21)) + [31, 32, 33, 100]
    with torch.no_grad():
        for s in seeds:
            for n, a, b in uniform_args:
                torch.manual_seed(s)
                add(s, "uniform_", {"n": n, "from": a, "to": b}, flat(torch.empty(n).uniform_(a, b)))
            for n in randn_ns:
                torch.manual_seed(s)
                add(s, "randn", {"n": n}, flat(torch.randn(n)))
            for p in (0.5, 0.1, 0.9):
                torch.manual_seed(s)
                add(s, "bernoulli_", {"n": 36, "p": p}, flat(torch.empty(36).bernoulli_(p)))
            # Past the core's fill blocks (4096 floats, src/core/generator.cpp) with a tail that
            # normal_ redraws: the values from `first` on (every block's draws come before them).
            for call, n, first in (("randn", 8215, 8150), ("uniform_", 8203, 8180)):
                torch.manual_seed(s)
                t = torch.randn(n) if call == "randn" else torch.empty(n).uniform_(-0.25, 0.75)
                args = {"n": n, "first": first} if call == "randn" else {"n": n, "from": -0.25, "to": 0.75, "first": first}
                add(s, call, args, flat(t[first:]))
            torch.manual_seed(s)
            first = torch.randn(3)
            second = torch.randn(3)
            add(s, "randn_twice", {"n": 3}, flat(first) + flat(second))
            for fi, fo, bias in ((3, 2, True), (1, 1, True), (8, 4, True), (5, 3, False)):
                torch.manual_seed(s)
                lin = nn.Linear(fi, fo, bias=bias)
                vals = flat(lin.weight) + (flat(lin.bias) if bias else [])
                add(s, "linear", {"in": fi, "out": fo, "bias": bias}, vals)
    return entries


def write_rng():
    entries = rng_entries()
    lines = ["{", f'"torch":{dumps(torch.__version__)},', f'"cpu_capability":{dumps(cpu_capability())},',
             '"entries":[']
    lines += [dumps(e) + ("," if i + 1 < len(entries) else "") for i, e in enumerate(entries)]
    lines += ["]", "}"]
    text = "\n".join(lines) + "\n"
    json.loads(text)
    with open(RNG_PATH, "w", encoding="utf-8") as f:
        f.write(text)
    return len(entries), len(text.encode("utf-8"))


# ---------------------------------------------------------------------------------------
# Checks against the seed documents (4-decimal prints of the book's numbers)
# ---------------------------------------------------------------------------------------
def cpu_capability():
    for line in torch.__config__.show().splitlines():
        if "CPU capability usage:" in line:
            return line.split(":", 1)[1].strip()
    return "unknown"


def check_book(stages):
    d = {sid: t for sid, t in stages}

    def near(t, expected, what):
        e = torch.tensor(expected, dtype=torch.float32)
        assert t.shape == e.shape and torch.all((t - e).abs() <= 0.00005 + 1e-7), (what, t, e)

    near(d["context_vec"], [[-0.0739, 0.0713], [-0.0748, 0.0703], [-0.0749, 0.0702],
                            [-0.0760, 0.0685], [-0.0763, 0.0679], [-0.0754, 0.0693]], "context_vec")
    near(d["attn_weights"][0], [0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510], "attn_weights[0]")
    near(d["row_sums"].reshape(-1), [0.1921, 0.3700, 0.5357, 0.6775, 0.8415, 1.0000], "row_sums")
    near(d["masked"][5], [0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078], "masked[5]")
    assert round(d["masked"][0, 0].item(), 4) == 0.2899 and torch.isinf(d["masked"][0, 1:]).all()
    near(d["attn_weights_causal"][4], [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0], "attn_weights_causal[4]")
    # seed 002: the default (non-MKL) Bernoulli path
    near(d["dropout_example"], [[2, 2, 0, 2, 2, 0], [0, 0, 0, 2, 0, 2], [2, 2, 2, 2, 0, 2],
                                [0, 2, 2, 0, 0, 2], [0, 2, 0, 2, 0, 2], [0, 2, 2, 2, 2, 0]], "dropout_example")
    near(d["attn_weights_dropped"], [[2.0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0.7599, 0.6194, 0.6206, 0, 0, 0],
                                     [0, 0.4921, 0.4925, 0, 0, 0], [0, 0.3966, 0, 0.3775, 0, 0],
                                     [0, 0.3327, 0.3331, 0.3084, 0.3331, 0]], "attn_weights_dropped")
    cv = [[-0.4519, 0.2216], [-0.5874, 0.0058], [-0.6300, -0.0632],
          [-0.5675, -0.0843], [-0.5526, -0.0981], [-0.5299, -0.1081]]
    near(d["context_vecs"], [cv, cv], "context_vecs")
    # §3.3, §3.4 and §3.6 as the notebook prints them (ch03.ipynb)
    near(d["simple.attn_scores_q"], [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865], "simple.attn_scores_q")
    near(d["simple.attn_weights_q_tmp"], [0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656], "tmp")
    near(d["simple.attn_weights_q_naive"], [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581], "naive")
    near(d["simple.attn_weights_q"], [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581], "softmax")
    near(d["simple.context_vec_q"], [0.4419, 0.6515, 0.5683], "simple.context_vec_q")
    near(d["simple.all_context_vecs"][4], [0.4671, 0.5910, 0.5266], "simple.all_context_vecs[4]")
    near(d["v1.query_q"], [0.4306, 1.4551], "v1.query_q")
    near(d["v1.attn_score_qq"], 1.8524, "v1.attn_score_qq")
    near(d["v1.attn_scores_q"], [1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440], "v1.attn_scores_q")
    near(d["v1.attn_weights_q"], [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820], "v1.attn_weights_q")
    near(d["v1.context_vec_q"], [0.3061, 0.8210], "v1.context_vec_q")
    near(d["v1.context_vecs"][5], [0.2990, 0.8040], "v1.context_vecs[5]")
    near(d["mhaw.context_vecs"][1, 0], [-0.4519, 0.2216, 0.4772, 0.1063], "mhaw.context_vecs[1, 0]")
    near(d["mha.context_vecs"][0, 0], [0.3190, 0.4858], "mha.context_vecs[0, 0]")
    near(d["mha.context_vecs"][1, 5], [0.2575, 0.4028], "mha.context_vecs[1, 5]")


def check_book_mkl(stages):
    """seed 000's Linux tables: the MKL path emulated here draws them."""
    d = {sid: t for sid, t in stages}
    e = torch.tensor([[2, 2, 2, 2, 2, 2], [0, 2, 0, 0, 0, 0], [0, 0, 2, 0, 2, 0],
                      [2, 2, 0, 0, 0, 2], [2, 0, 0, 0, 0, 2], [0, 2, 0, 0, 0, 0]], dtype=torch.float32)
    assert torch.equal(d["dropout_example"], e), d["dropout_example"]


GPT2_PATH = os.path.join(HERE, "gpt2.json")
GPT2_ROWS = [0, 1, 511, 1023]


def write_gpt2():
    """Exercise 3.3 (the CLI's --preset gpt2): samples of MultiHeadAttention(768, 768, 1024,
    0.0, num_heads=12) on torch.manual_seed(123); torch.randn(1024, 768), stacked twice.
    {"config", "rows", "stages": {id: flat data}}; context_vecs: batch 0's rows GPT2_ROWS."""
    config = {"inputs": {"randn": [1024, 768], "seed": 123}, "d_out": 768, "num_heads": 12, "context_length": 1024}
    with torch.no_grad():
        torch.manual_seed(123)
        X = torch.randn(1024, 768)
        batch = torch.stack((X, X), dim=0)
        torch.manual_seed(123)
        mha = MultiHeadAttention(768, 768, 1024, 0.0, 12)
        out = mha(batch)
        assert bits_equal(out[0], out[1])
    doc = {"torch": torch.__version__, "config": config, "rows": GPT2_ROWS,
           "stages": {"mha.W_query": flat(mha.W_query.weight[:2]), "mha.out_proj.weight": flat(mha.out_proj.weight[-2:]),
                      "mha.out_proj.bias": flat(mha.out_proj.bias),
                      "mha.context_vecs": flat(out[0, GPT2_ROWS])}}
    with open(GPT2_PATH, "w", encoding="utf-8") as f:
        f.write(dumps(doc) + "\n")


def main():
    torch.set_num_threads(1)
    cap = cpu_capability()
    if cap != CPU_CAPABILITY.upper():
        sys.exit(f"PyTorch dispatches to {cap}, not {CPU_CAPABILITY.upper()}: the goldens would differ")
    if torch.backends.mkl.is_available():
        sys.exit("this PyTorch has MKL: its dropout draws are not the default path the goldens record")
    names = [n for n, _ in CASES]
    assert len(names) == len(set(names))
    for name, config in CASES:  # configs hold only non-default keys
        for k, v in config.items():
            assert v != DEFAULTS[k] and not (k == "inputs" and isinstance(v, dict) and v.get("seed") == RANDN_DEFAULT_SEED), (name, k)

    os.makedirs(CASES_DIR, exist_ok=True)
    for fn in os.listdir(CASES_DIR):
        if fn.endswith(".json") and fn[:-5] not in names:
            os.remove(os.path.join(CASES_DIR, fn))

    results = {}
    total = 0
    for name, config in CASES:
        stages, mha_error = run(config)
        again, _ = run(json.loads(json.dumps(config)))  # deterministic, and the same from parsed JSON
        assert all(a[0] == b[0] and bits_equal(a[1], b[1]) for a, b in zip(stages, again)), name
        results[name] = stages
        total += write_case(name, config, stages, mha_error)
        print(f"{name}: {len(stages)} stages" + (f" (MultiHeadAttention: {mha_error})" if mha_error else ""))

    check_book(results["book_default"])
    check_book_mkl(results["mkl_book"])
    # The wrapper's first head is CausalAttention under the same seed.
    d = dict(results["book_default"])
    assert bits_equal(d["mhaw.context_vecs"][..., :2], d["context_vecs"])
    # 2^32 wraps to 0: same numbers.
    for (s1, t1), (s2, t2) in zip(results["seeds_all_0"], results["seeds_all_2p32_wrap_to_0"]):
        assert s1 == s2 and bits_equal(t1, t2), s1
    # seed 004: torch.manual_seed(123); torch.randn(6, 3)
    torch.manual_seed(123)
    assert bits_equal(results["randn_6x3_seed_123"][0][1], torch.randn(6, 3))

    # Where the cached generation's rows differ from the full pass's (the module in eval mode
    # or without dropout): only steps 2 to 6, only with T >= 8.
    for name, config in CASES:
        d = dict(results[name])
        if "kv.context_vecs" not in d or (d["batch"].shape[1] > 0 and resolve(config)["train"]
                                         and resolve(config)["class_dropout"] > 0):
            continue
        T = d["batch"].shape[1]
        # The row's t + 1 cells: after them the full pass has +0 (or NaN in a row of NaN).
        w = [t for t in range(T) if not bits_equal(d["kv.attn_weights"][:, :, t, :t + 1],
                                                   d["mha.attn_weights"][:, :, t, :t + 1])]
        o = [t for t in range(T) if not bits_equal(d["kv.context_vecs"][:, t], d["mha.context_vecs"][:, t])]
        assert set(w) <= set(range(2, 7)) and T >= 8 or not w, (name, w)
        assert set(o) <= set(w), (name, o, w)
        if w:
            print(f"kv {name}: T = {T}, weights differ at steps {w}, context_vecs at {o}")

    write_gpt2()
    n, size = write_rng()
    print(f"{len(CASES)} cases, {total} bytes in {os.path.relpath(CASES_DIR)}; "
          f"rng.json: {n} entries, {size} bytes; torch {torch.__version__}, {cap}")


if __name__ == "__main__":
    main()
