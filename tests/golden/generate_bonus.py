#!/usr/bin/env python3
"""Golden files for the bonus notebook's implementations (docs/bonus.md), made by PyTorch.

Run by hand from the repository root, like generate.py (whose classes and helpers it reuses):

    /usr/bin/python3 tests/golden/generate_bonus.py

It writes tests/golden/bonus/<name>.json, one per configuration of CASES below, in
generate.py's format: {"name", "torch", "config", "stages": [{"id", "shape", "data"}]}, the
stages of the bonus parts that this configuration runs (qkv.*, einsum.*, flash.*, torchmha.*),
in the stage table's order; "error" holds why none run (d_out not divisible by num_heads).

The classes below are the notebook's (ch03/02_bonus_efficient-multihead-attention/
mha-implementations.ipynb) with generate.py's `scale` and `rng` flags, and two changes that
the page states: MultiHeadAttentionCombinedQKV views its output to d_out (the notebook's
embed_dim, d_in, fails when d_in != d_out), and MHAPyTorchScaledDotProduct calls
flash_attention, the blocked pass of scaled_dot_product_attention (PyTorch 2.0+) written in
PyTorch 1.13 ops. nn.MultiheadAttention is PyTorch's own (d_in = d_out, no qkv_bias only).
"""
import os

os.environ["ATEN_CPU_CAPABILITY"] = "avx2"  # must precede `import torch`, as in generate.py

import math
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as G  # noqa: E402

OUT_DIR = os.path.join(G.HERE, "bonus")


class MultiHeadAttentionCombinedQKV(nn.Module):
    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False, scale=True,
                 rng="default"):
        super().__init__()
        assert d_out % num_heads == 0, "d_out is indivisible by num_heads"
        self.num_heads = num_heads
        self.context_length = context_length
        self.head_dim = d_out // num_heads
        self.d_out = d_out
        self.scale = scale
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.proj = nn.Linear(d_out, d_out)
        self.dropout = G.Dropout(dropout, rng)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        batch_size, num_tokens, embed_dim = x.shape
        qkv = self.qkv(x)
        qkv = qkv.view(batch_size, num_tokens, 3, self.num_heads, self.head_dim)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        queries, keys, values = qkv.unbind(0)
        attn_scores = queries @ keys.transpose(-2, -1)
        attn_scores = attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5 if self.scale else attn_scores, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = attn_weights @ values
        context_vec = context_vec.transpose(1, 2)
        context_vec = context_vec.contiguous().view(batch_size, num_tokens, self.d_out)  # notebook: embed_dim
        return self.proj(context_vec)


class MHAEinsum(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, scale=True, rng="default"):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.scale = scale
        self.W_query = nn.Parameter(torch.randn(d_in, d_out))
        self.W_key = nn.Parameter(torch.randn(d_in, d_out))
        self.W_value = nn.Parameter(torch.randn(d_in, d_out))
        if qkv_bias:
            self.bias_q = nn.Parameter(torch.zeros(d_out))
            self.bias_k = nn.Parameter(torch.zeros(d_out))
            self.bias_v = nn.Parameter(torch.zeros(d_out))
        else:
            self.register_parameter("bias_q", None)
            self.register_parameter("bias_k", None)
            self.register_parameter("bias_v", None)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = G.Dropout(dropout, rng)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.W_query, a=math.sqrt(5))
        nn.init.kaiming_uniform_(self.W_key, a=math.sqrt(5))
        nn.init.kaiming_uniform_(self.W_value, a=math.sqrt(5))
        if self.bias_q is not None:
            fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.W_query)
            bound = 1 / math.sqrt(fan_in)
            nn.init.uniform_(self.bias_q, -bound, bound)
            nn.init.uniform_(self.bias_k, -bound, bound)
            nn.init.uniform_(self.bias_v, -bound, bound)

    def forward(self, x):
        b, n, _ = x.shape
        Q = torch.einsum("bnd,do->bno", x, self.W_query)
        K = torch.einsum("bnd,do->bno", x, self.W_key)
        V = torch.einsum("bnd,do->bno", x, self.W_value)
        if self.bias_q is not None:
            Q += self.bias_q
            K += self.bias_k
            V += self.bias_v
        Q = Q.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        K = K.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        V = V.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        scores = torch.einsum("bhnd,bhmd->bhnm", Q, K)
        if self.scale:
            scores = scores / (self.head_dim ** 0.5)
        mask = self.mask[:n, :n]
        scores = scores.masked_fill(mask.bool(), -torch.inf)
        attn_weights = torch.softmax(scores, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = torch.einsum("bhnm,bhmd->bhnd", attn_weights, V)
        context_vec = context_vec.transpose(1, 2).reshape(b, n, self.d_out)
        return self.out_proj(context_vec)


def flash_attention(queries, keys, values, block, scale=True):
    """scaled_dot_product_attention(is_causal=True) as its blocked kernels compute it: per block
    of queries, the key blocks up to the diagonal, with a running max and a running sum."""
    b, H, T, hd = queries.shape
    n = (T + block - 1) // block
    out = torch.empty_like(queries)
    running_max = torch.empty(b, H, T, n)
    running_sum = torch.empty(b, H, T, n)
    for i0 in range(0, T, block):
        q = queries[:, :, i0:i0 + block]
        m = torch.full(q.shape[:-1], -torch.inf)
        l = torch.zeros(q.shape[:-1])
        acc = torch.zeros(q.shape)
        for j0 in range(0, i0 + 1, block):
            s = q @ keys[:, :, j0:j0 + block].transpose(2, 3)
            if scale:
                s = s / hd**0.5
            if j0 == i0:
                s = s.masked_fill(torch.ones(s.shape[-2:]).triu(1).bool(), -torch.inf)
            m_new = torch.maximum(m, s.amax(-1))
            p = torch.exp(s - m_new[..., None])
            alpha = torch.exp(m - m_new)
            l = l * alpha + p.sum(-1)
            acc = acc * alpha[..., None] + p @ values[:, :, j0:j0 + block]
            m = m_new
            running_max[:, :, i0:i0 + block, j0 // block:] = m[..., None]
            running_sum[:, :, i0:i0 + block, j0 // block:] = l[..., None]
        out[:, :, i0:i0 + block] = acc / l[..., None]
    return out, running_max, running_sum


class MHAPyTorchScaledDotProduct(nn.Module):
    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False, scale=True):
        super().__init__()
        assert d_out % num_heads == 0, "d_out is indivisible by num_heads"
        self.num_heads = num_heads
        self.context_length = context_length
        self.head_dim = d_out // num_heads
        self.d_out = d_out
        self.scale = scale
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.proj = nn.Linear(d_out, d_out)
        self.dropout = dropout

    def forward(self, x):
        batch_size, num_tokens, embed_dim = x.shape
        qkv = self.qkv(x).view(batch_size, num_tokens, 3, self.num_heads, self.head_dim)
        queries, keys, values = qkv.permute(2, 0, 3, 1, 4)
        context_vec, _, _ = flash_attention(queries, keys, values, flash_block(num_tokens), self.scale)
        context_vec = context_vec.transpose(1, 2).contiguous().view(batch_size, num_tokens, self.d_out)
        return self.proj(context_vec)


class MHAPyTorchClass(nn.Module):
    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False, need_weights=True):
        super().__init__()
        self.context_length = context_length
        self.multihead_attn = nn.MultiheadAttention(
            embed_dim=d_out, num_heads=num_heads, dropout=dropout, bias=qkv_bias, add_bias_kv=qkv_bias,
            batch_first=True)
        self.need_weights = need_weights
        self.proj = nn.Linear(d_out, d_out)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1).bool())

    def forward(self, x):
        batch_size, num_tokens, _ = x.shape
        if self.context_length >= num_tokens:
            attn_mask = self.mask[:num_tokens, :num_tokens]
        else:
            attn_mask = self.mask[:self.context_length, :self.context_length]
        attn_output, _ = self.multihead_attn(x, x, x, attn_mask=attn_mask, need_weights=self.need_weights)
        return self.proj(attn_output)


def flash_block(T):
    return -(-T // 4)  # ceil(T / 4)


def run(config):
    c = G.resolve(config)
    T, d_in, d_out, H = c["T"], c["d_in"], c["d_out"], c["num_heads"]
    bias, scale, train, rng, p = c["qkv_bias"], c["scale"], c["train"], c["rng"], c["class_dropout"]
    ctx, seed = c["context_length"], c["seed_class"]
    if d_out % H:
        return [], "d_out must be divisible by num_heads"
    stages = []

    def stage(sid, t):
        stages.append((sid, t.detach().clone()))

    with torch.no_grad():
        if isinstance(c["inputs"], dict):
            torch.manual_seed(c["inputs"]["seed"])
            X = torch.randn(*c["inputs"]["randn"])
        else:
            X = torch.tensor(c["inputs"], dtype=torch.float32)
        batch = torch.stack((X, X), dim=0)
        torch.manual_seed(seed)
        mha = G.MultiHeadAttention(d_in, d_out, ctx, p, H, bias, scale, rng)
        mha.train(train)
        mha_out = mha(batch)

        torch.manual_seed(seed)
        qkv = MultiHeadAttentionCombinedQKV(d_in, d_out, H, ctx, p, bias, scale, rng)
        qkv.train(train)
        stage("qkv.weight", qkv.qkv.weight)
        if bias:
            stage("qkv.bias", qkv.qkv.bias)
        stage("qkv.proj.weight", qkv.proj.weight)
        stage("qkv.proj.bias", qkv.proj.bias)
        stage("qkv.qkv", qkv.qkv(batch))
        context_vecs_qkv = qkv(batch)
        stage("qkv.context_vecs", context_vecs_qkv)
        # Same draws as MultiHeadAttention's: its very numbers, dropout included.
        assert bias or G.bits_equal(context_vecs_qkv, mha_out)

        torch.manual_seed(seed)
        e = MHAEinsum(d_in, d_out, ctx, p, H, bias, scale, rng)
        e.train(train)
        stage("einsum.W_query", e.W_query)
        stage("einsum.W_key", e.W_key)
        stage("einsum.W_value", e.W_value)
        if bias:
            stage("einsum.bias_q", e.bias_q)
            stage("einsum.bias_k", e.bias_k)
            stage("einsum.bias_v", e.bias_v)
        stage("einsum.out_proj.weight", e.out_proj.weight)
        stage("einsum.out_proj.bias", e.out_proj.bias)
        Q = torch.einsum("bnd,do->bno", batch, e.W_query) + (e.bias_q if bias else 0)
        K = torch.einsum("bnd,do->bno", batch, e.W_key) + (e.bias_k if bias else 0)
        Q = Q.view(2, T, H, d_out // H).transpose(1, 2)
        K = K.view(2, T, H, d_out // H).transpose(1, 2)
        scores = torch.einsum("bhnd,bhmd->bhnm", Q, K)
        if scale:
            scores = scores / (e.head_dim ** 0.5)
        stage("einsum.scores", scores.masked_fill(e.mask[:T, :T].bool(), -torch.inf))
        stage("einsum.context_vecs", e(batch))
        torch.manual_seed(seed)
        e = MHAEinsum(d_in, d_out, ctx, p, H, bias, scale, rng)
        e.train(train)
        e.W_query.copy_(mha.W_query.weight.T)
        e.W_key.copy_(mha.W_key.weight.T)
        e.W_value.copy_(mha.W_value.weight.T)
        if bias:
            e.bias_q.copy_(mha.W_query.bias)
            e.bias_k.copy_(mha.W_key.bias)
            e.bias_v.copy_(mha.W_value.bias)
        e.out_proj.weight.copy_(mha.out_proj.weight)
        e.out_proj.bias.copy_(mha.out_proj.bias)
        copied = e(batch)
        stage("einsum.copied.context_vecs", copied)
        assert (train and p > 0) or G.bits_equal(copied, mha_out)

        torch.manual_seed(seed)
        f = MHAPyTorchScaledDotProduct(d_in, d_out, H, ctx, p, bias, scale)
        queries, keys, values = f.qkv(batch).view(2, T, 3, H, d_out // H).permute(2, 0, 3, 1, 4)
        context_vec, running_max, running_sum = flash_attention(queries, keys, values, flash_block(T), scale)
        stage("flash.running_max", running_max)
        stage("flash.running_sum", running_sum)
        context_vec = context_vec.transpose(1, 2).contiguous().view(2, T, d_out)
        stage("flash.context_vec", context_vec)
        context_vecs_flash = f.proj(context_vec)
        assert G.bits_equal(context_vecs_flash, f(batch))
        stage("flash.context_vecs", context_vecs_flash)
        stage("flash.difference", context_vecs_flash - context_vecs_qkv)

        # PyTorch's F.dropout has no MKL emulation here: those configurations skip it.
        if d_in == d_out and not bias and not (rng == "mkl" and train and p > 0):
            torch.manual_seed(seed)
            t = MHAPyTorchClass(d_in, d_out, H, ctx, p, False)
            t.train(train)
            stage("torchmha.in_proj_weight", t.multihead_attn.in_proj_weight)
            stage("torchmha.out_proj.weight", t.multihead_attn.out_proj.weight)
            stage("torchmha.proj.weight", t.proj.weight)
            stage("torchmha.proj.bias", t.proj.bias)
            out = t(batch)
            stage("torchmha.context_vecs", out)
            torch.manual_seed(seed)
            t = MHAPyTorchClass(d_in, d_out, H, ctx, p, False, need_weights=False)
            t.train(train)
            assert G.bits_equal(t(batch), out)  # need_weights=False: the same code in 1.13
            torch.manual_seed(seed)
            t = MHAPyTorchClass(d_in, d_out, H, ctx, p, False)
            t.train(train)
            _, w = t.multihead_attn(batch, batch, batch, attn_mask=t.mask[:T, :T], need_weights=True)
            stage("torchmha.attn_weights", w)
            torch.manual_seed(seed)
            t = MHAPyTorchClass(d_in, d_out, H, ctx, p, False)
            t.train(train)
            t.multihead_attn.in_proj_weight.copy_(torch.cat([mha.W_query.weight, mha.W_key.weight,
                                                             mha.W_value.weight]))
            t.multihead_attn.out_proj.weight.copy_(mha.out_proj.weight)
            t.proj.weight.copy_(torch.eye(d_out))
            t.proj.bias.copy_(mha.out_proj.bias)
            stage("torchmha.copied.context_vecs", t(batch))
    return stages, None


CASES = [
    ("book_default", {}),
    ("book_qkv_bias", {"qkv_bias": True}),
    ("book_no_scale", {"scale": False}),
    ("book_class_dropout_0_5", {"class_dropout": 0.5}),
    ("book_eval_class_dropout_0_5", {"train": False, "class_dropout": 0.5}),
    ("book_heads_1", {"num_heads": 1}),
    ("mkl_book_class_dropout_0_5", {"rng": "mkl", "class_dropout": 0.5}),
    ("heads_2_d_out_3_error", {"d_out": 3}),
    ("T1_inputs_1x3_heads_1", {"inputs": [[0.3, -0.2, 0.9]], "num_heads": 1}),
    ("inputs_large_underflow_nan", {"inputs": [[30.0, -40.0, 25.0], [-35.0, 45.0, 10.0], [20.0, 20.0, -50.0],
                                               [-10.0, -30.0, 40.0]], "d_out": 4}),
    # d_in = d_out: nn.MultiheadAttention too. head_dim 4 (√ exact), 2 and 3 (√ inexact)
    ("randn_8x8_heads_2_head_dim_4", {"inputs": {"randn": [8, 8], "seed": 1}, "d_out": 8}),
    ("randn_7x6_heads_3_head_dim_2", {"inputs": {"randn": [7, 6], "seed": 2}, "d_out": 6, "num_heads": 3}),
    ("randn_12x12_heads_4_head_dim_3_class_dropout_0_1", {"inputs": {"randn": [12, 12], "seed": 3}, "d_out": 12,
                                                         "num_heads": 4, "class_dropout": 0.1}),
    ("randn_16x16_heads_4_eval_context_20", {"inputs": {"randn": [16, 16], "seed": 4}, "d_out": 16,
                                             "num_heads": 4, "train": False, "class_dropout": 0.3,
                                             "context_length": 20}),
    ("randn_33x16_heads_2_no_scale", {"inputs": {"randn": [33, 16], "seed": 5}, "d_out": 16, "scale": False}),
    ("randn_36x16_heads_1_head_dim_16", {"inputs": {"randn": [36, 16], "seed": 6}, "d_out": 16, "num_heads": 1}),
    ("randn_40x24_heads_3_qkv_bias", {"inputs": {"randn": [40, 24], "seed": 7}, "d_out": 24, "num_heads": 3,
                                      "qkv_bias": True}),
]


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    G.CASES_DIR = OUT_DIR
    for name, config in CASES:
        stages, error = run(config)
        text_bytes = G.write_case(name, config, stages)
        if error is not None:  # write_case's "mha_error" key, under this file's name for it
            path = os.path.join(OUT_DIR, name + ".json")
            text = open(path, encoding="utf-8").read().replace('"stages":[', f'"error":{G.dumps(error)},\n"stages":[', 1)
            open(path, "w", encoding="utf-8").write(text)
        print(f"{name}: {len(stages)} stages, {text_bytes} bytes")


if __name__ == "__main__":
    main()
