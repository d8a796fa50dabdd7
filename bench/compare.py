"""The driver of bench/compare.sh, and its PyTorch worker.

Driver: runs every (module, shape) on every side, each in its own process, and prints one
Markdown table: median time, min-max, GFLOP/s, and the ratios of the core to PyTorch.
Worker (`compare.py torch MODULE B T d H RUNS SECONDS`): the book's modules in PyTorch
(`compare.py torch cli 0 0 0 0 RUNS SECONDS`: what the CLI row computes, in-process), on
CA_BENCH_THREADS threads (1 by default), as the core's side.
Every side hashes its output's bits; the core's and PyTorch's (reference BLAS) outputs are also
written to files and compared float by float (identical, or the largest difference).

GFLOP counts every multiply and add of the matmuls the book's code does, the masked upper
triangle included (8 B T d^2 + 4 B T^2 d for MultiHeadAttention, 6 B T d^2 + 4 B T^2 d for
CausalAttention): the same count for every side, so GFLOP/s compare like times do.
"""
import argparse
import datetime
import io
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import compare_bonus

SHAPES = [(2, 6, 3, 1), (2, 64, 64, 1), (2, 256, 64, 1), (2, 1024, 64, 1),
          (1, 1024, 768, 12), (8, 1024, 768, 12)]
MODULES = [("causal", "CausalAttention"), ("mha", "MultiHeadAttention")]
SIDES = ["native", "wasm", "torch", "openblas"]
SIDE_NAMES = {"native": "core (native)", "native-avx2": "core (native, AVX2)", "wasm": "core (WASM, Node)",
              "torch": "PyTorch (ref. BLAS)", "openblas": "PyTorch (OpenBLAS)"}
# The thread table's rows: every bench row from (2, 256, 64, 1) up.
THREAD_SHAPES = [s for s in SHAPES if s[1] >= 256]
# The CLI row: `--stage context_vecs --format torch` on randn (1024, 64), d_out 64, eval.
CLI_CONFIG = {"inputs": {"randn": [1024, 64], "seed": 123}, "d_out": 64, "seed_class": 123,
              "train": False}
HERE = os.path.dirname(os.path.abspath(__file__))


def flops(module, B, T, d):
    proj = 8 if module == "mha" else 6
    return proj * B * T * d * d + 4 * B * T * T * d


def output_bits(y):
    """bench_modules.hpp's hash: sum of bits(y[i]) * (2 i + 1) mod 2^64, its low 52 bits."""
    import numpy as np
    u = np.ascontiguousarray(y, dtype=np.float32).reshape(-1).view(np.uint32).astype(np.uint64)
    odd = np.arange(u.size, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    with np.errstate(over="ignore"):
        h = int(np.sum(u * odd, dtype=np.uint64))
    return float(h & ((1 << 52) - 1))


def difference(mine, theirs):
    """The core's output file against PyTorch's: 'identical', or how many and how far."""
    import numpy as np
    a, b = np.fromfile(mine, dtype=np.float32), np.fromfile(theirs, dtype=np.float32)
    if a.size != b.size:
        return f"{a.size} vs {b.size} values"
    same = int(np.sum(a.view(np.uint32) == b.view(np.uint32)))
    if same == a.size:
        return "identical"
    worst = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
    return f"{same} of {a.size} identical, largest difference {worst:.3g}"


# ---------------------------------------------------------------------------------------
# Worker: the book's code (ch03), forward under no_grad in eval mode, one thread.

def torch_worker(module, B, T, d, H, runs, seconds):
    import torch
    import torch.nn as nn
    torch.set_num_threads(int(os.environ.get("CA_BENCH_THREADS", "1")))

    class CausalAttention(nn.Module):
        def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
            super().__init__()
            self.d_out = d_out
            self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

        def forward(self, x):
            b, num_tokens, d_in = x.shape
            keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
            attn_scores = queries @ keys.transpose(1, 2)
            attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
            attn_weights = self.dropout(attn_weights)
            return attn_weights @ values

    class MultiHeadAttention(nn.Module):
        def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
            super().__init__()
            assert d_out % num_heads == 0
            self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
            self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
            self.out_proj = nn.Linear(d_out, d_out)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

        def forward(self, x):
            b, num_tokens, d_in = x.shape
            keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
            keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
            values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
            queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
            attn_scores = queries @ keys.transpose(2, 3)
            attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
            attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
            attn_weights = self.dropout(attn_weights)
            context_vec = (attn_weights @ values).transpose(1, 2)
            context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
            return self.out_proj(context_vec)

    def cli():
        """What `causal-attention --stage context_vecs` computes for CLI_CONFIG: randn, init, forward."""
        (t, d_in), seed = CLI_CONFIG["inputs"]["randn"], CLI_CONFIG["inputs"]["seed"]
        torch.manual_seed(seed)
        inputs = torch.randn(t, d_in)
        batch = torch.stack((inputs, inputs), dim=0)
        torch.manual_seed(CLI_CONFIG["seed_class"])
        ca = CausalAttention(d_in, CLI_CONFIG["d_out"], t, 0.0)
        ca.eval()
        return ca(batch)

    if module == "cli":
        m, x = (lambda _: cli()), None
    elif module in compare_bonus.BONUS:  # the bonus notebook's (compare_bonus.py)
        torch.manual_seed(123)
        m = compare_bonus.build(module, T, d, H)
        x = torch.randn(B, T, d)
    else:
        torch.manual_seed(123)  # as bench/bench_modules.hpp: the module, then the input
        if module == "causal":
            m = CausalAttention(d, d, T, 0.0)
        else:
            m = MultiHeadAttention(d, d, T, 0.0, H)
        m.eval()
        x = torch.randn(B, T, d)
    with torch.no_grad():
        y0 = m(x)  # warm-up
        check = float(y0.double().sum())
        bits = output_bits(y0.numpy())
        if os.environ.get("CA_BENCH_OUTPUT"):
            y0.numpy().tofile(os.environ["CA_BENCH_OUTPUT"])
        samples, total, batch = [], 0.0, 1
        while len(samples) < runs or total < seconds:
            t0 = time.perf_counter()
            for _ in range(batch):
                y = m(x)
            s = time.perf_counter() - t0
            if s < 2e-3 and not samples and batch < 1 << 20:
                batch *= 2
                continue
            samples.append(s / batch)
            total += s
            if len(samples) >= 200:
                break
    with open("/proc/self/maps") as f:
        blas = sorted({line.split()[-1] for line in f if "blas" in line.split()[-1]})
    print(json.dumps({"ok": True, "check": check, "bits": bits, "seconds": samples, "blas": blas,
                      "threads": torch.get_num_threads()}))


# ---------------------------------------------------------------------------------------
# Driver.

def threads_env(n):
    """The thread count every side reads: the core's, PyTorch's and OpenBLAS's."""
    n = str(n)
    return {"OMP_NUM_THREADS": n, "OPENBLAS_NUM_THREADS": n, "MKL_NUM_THREADS": n,
            "CA_BENCH_THREADS": n}


def run_side(args, side, module, shape, runs, seconds, output=None, threads=1, build=None):
    """One process of `side` ("native-avx2": the native core on its AVX2 kernels); `build`:
    another build's native core (--base)."""
    B, T, d, H = shape
    params = [module, str(B), str(T), str(d), str(H), str(runs), str(seconds)]
    env = dict(os.environ, **threads_env(threads))
    env.pop("CA_BENCH_OUTPUT", None)
    if output:
        env["CA_BENCH_OUTPUT"] = output
    if side in ("native", "native-avx2"):
        cmd = [os.path.join(build or args.build, "native/bench/ca_compare")] + params
        if side == "native-avx2":
            cmd.append("avx2")
    elif side == "wasm":
        # With relaxed SIMD, as Chromium runs the page's module (Node 20 has it behind a flag).
        cmd = ["node", "--experimental-wasm-relaxed-simd", os.path.join(HERE, "compare_wasm.js"),
               os.path.join(args.build, "wasm")] + params
    else:
        cmd = ["/usr/bin/python3", os.path.abspath(__file__), "torch"] + params
        if side == "openblas":
            env["LD_LIBRARY_PATH"] = args.openblas + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"compare: {side} {module} {shape} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


# The sides a ratio of the core to PyTorch-OpenBLAS reads: they take --pair-rounds turns.
PAIRED = ("native", "native-avx2", "openblas")


def run_interleaved(args, jobs):
    """jobs: {key: (side, module, shape, kwargs)}. Each runs in its rounds' processes
    (--pair-rounds for the core and PyTorch-OpenBLAS, --rounds for the others), the jobs taking
    turns (a, b, a, b, ...; the paired ones alone after the others' last), each process >= runs
    / rounds samples and seconds / rounds: a burst of load, or the machine's other speed, falls
    on every side alike instead of on one. Returns {key: result} with the samples of every round
    pooled (check and bits from the last; all rounds' bits must agree)."""
    rounds = {key: max(1, args.pair_rounds if side in PAIRED else args.rounds)
              for key, (side, _, _, _) in jobs.items()}
    out = {}
    for i in range(max(rounds.values(), default=0)):
        for key, (side, module, shape, kw) in jobs.items():
            if i >= rounds[key]:
                continue
            r = run_side(args, side, module, shape, max(1, -(-args.runs // rounds[key])),
                         args.seconds / rounds[key], **kw)
            if key in out and r.get("ok"):
                if r.get("bits") != out[key].get("bits"):
                    print(f"compare: {side} {module} {shape}: bits differ between rounds", file=sys.stderr)
                r["seconds"] = out[key]["seconds"] + r["seconds"]
            out[key] = r
    return out


def ratio(a, b):
    """Two sides' samples: the ratio of their medians, and of their minima in brackets (on a
    machine with two speeds the minima are each side's fast state)."""
    return f"{statistics.median(a) / statistics.median(b):.2f}x ({min(a) / min(b):.2f}x)"


def walkthrough(args, sides):
    """The book's walkthrough (T = 6, every stage): the core natively, in WASM, and api.run."""
    if "native" not in sides or "wasm" not in sides:
        return
    shape, runs = (0, 0, 0, 0), max(args.runs, 20)
    native = statistics.median(run_side(args, "native", "walkthrough", shape, runs, args.seconds)["seconds"])
    core = statistics.median(run_side(args, "wasm", "walkthrough", shape, runs, args.seconds)["seconds"])
    api = statistics.median(run_side(args, "wasm", "api", shape, runs, args.seconds)["seconds"])
    print("\n| the book's walkthrough (T = 6, every stage) | median ms | / native |")
    print("|---|---|---|")
    print(f"| core (native) | {ms(native)} | 1.00x |")
    print(f"| core (WASM, Node) | {ms(core)} | {core / native:.2f}x |")
    print(f"| run({{}}, {{}}) (WASM, Node, Embind included: what api.run({{}}) calls) | {ms(api)} | {api / native:.2f}x |")


def cli_side(args, threads, runs, seconds, build=None):
    """The CLI end to end, a process per run: wall time, and the CSV's hash on this count."""
    import hashlib
    cfg = os.path.join(tempfile.mkdtemp(prefix="ca-cli-"), "config.json")
    with open(cfg, "w") as f:
        json.dump(CLI_CONFIG, f)
    cmd = [os.path.join(build or args.build, "native/causal-attention"), "--config", cfg, "--threads",
           str(threads), "--stage", "context_vecs"]
    samples, total = [], 0.0
    while len(samples) < runs or total < seconds:
        t0 = time.perf_counter()
        subprocess.run(cmd + ["--format", "torch"], check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - t0)
        total += samples[-1]
        if len(samples) >= 200:
            break
    csv = subprocess.run(cmd + ["--format", "csv"], check=True, capture_output=True).stdout
    shutil.rmtree(os.path.dirname(cfg), ignore_errors=True)
    return samples, hashlib.sha256(csv).hexdigest()[:12]


def thread_tables(args, sides):
    """The core on 1 and all threads against PyTorch on OpenBLAS with the same thread count."""
    if "native" not in sides or "openblas" not in sides:
        return
    n, base = args.threads, args.base
    print(f"\nOne thread and {n} threads (all the cores), the core against PyTorch on OpenBLAS "
          f"with the same count; median ms (min-max). Bits: the core's output hash on {n} threads "
          "against one thread's" + (f" (and the base build's, {base})" if base else "") +
          f". Each side in {args.pair_rounds} processes, taking turns; ratios: of the medians (of the "
          f"minima). Load average {load()} at the start.\n")
    head = ["module", "B, T, d, H", "core, 1 thread", f"core, {n} threads", "PyTorch (OpenBLAS), 1 thread",
            f"PyTorch (OpenBLAS), {n} threads", "core / PyTorch, 1 thread", f"core / PyTorch, {n} threads",
            f"core, 1 / {n} threads", "bits"]
    if base:
        head[4:4] = ["base core, 1 thread", f"base core, {n} threads"]
        head[-1:-1] = [f"base, 1 / {n} threads", "core / base, 1 thread", f"core / base, {n} threads"]
    cell = lambda s: f"{ms(statistics.median(s))} ({ms(min(s))}-{ms(max(s))})"
    rows = [(module, name, shape) for module, name in MODULES for shape in THREAD_SHAPES
            if not args.rows or args.rows in f"{name} {shape}" or args.rows in module]
    if rows:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
    for module, name, shape in rows:
        label = f"{name} {shape}"
        jobs = {(side, t): (side, module, shape, {"threads": t})
                for t in (1, n) for side in ("native", "openblas")}
        if base:
            jobs.update({("base", t): ("native", module, shape, {"threads": t, "build": base})
                         for t in (1, n)})
        r = run_interleaved(args, jobs)
        sec = {k: v["seconds"] for k, v in r.items()}
        same = len({r[(s, t)]["bits"] for s in ("native", "base") if (s, 1) in r for t in (1, n)}) == 1
        if not same:
            print(f"compare: {label}: the core's bits differ between 1 and {n} threads", file=sys.stderr)
        B, T, d, H = shape
        cells = ([cell(r[(s, t)]["seconds"]) for s in ("native", "openblas") for t in (1, n)] +
                 [ratio(sec[("native", t)], sec[("openblas", t)]) for t in (1, n)] +
                 [ratio(sec[("native", 1)], sec[("native", n)]), "equal" if same else "DIFFER"])
        if base:
            cells[2:2] = [cell(r[("base", t)]["seconds"]) for t in (1, n)]
            cells[-1:-1] = [ratio(sec[("base", 1)], sec[("base", n)])] + [
                ratio(sec[("native", t)], sec[("base", t)]) for t in (1, n)]
        print(f"| {name} | {B}, {T}, {d}, {H} | " + " | ".join(cells) + " |", flush=True)
    if args.rows and "cli" not in args.rows:
        return
    runs, rounds = max(args.runs, 10), max(1, args.pair_rounds)
    core, torch, based = {t: ([], "") for t in (1, n)}, {t: [] for t in (1, n)}, {t: ([], "") for t in (1, n)}
    start = load()
    for _ in range(rounds):  # the sides take turns, as run_interleaved's
        for t in (1, n):
            c = cli_side(args, t, -(-runs // rounds), args.seconds / rounds)
            core[t] = (core[t][0] + c[0], c[1])
            if base:
                c = cli_side(args, t, -(-runs // rounds), args.seconds / rounds, build=base)
                based[t] = (based[t][0] + c[0], c[1])
            torch[t] += run_side(args, "openblas", "cli", (0, 0, 0, 0), -(-runs // rounds),
                                 args.seconds / rounds, threads=t)["seconds"]
    same = core[1][1] == core[n][1] and (not base or based[1][1] == based[n][1] == core[1][1])
    print(f"\n| `causal-attention --stage context_vecs --format torch`, randn (1024, 64), d_out 64, --eval "
          "(a process per run) vs PyTorch on OpenBLAS in-process (randn, init, forward) | median ms (min-max) "
          "| core / PyTorch: medians (minima) |")
    print("|---|---|---|")
    for t in (1, n):
        print(f"| CLI, --threads {t} | {cell(core[t][0])} | {ratio(core[t][0], torch[t])} |")
        if base:
            print(f"| base CLI, --threads {t} | {cell(based[t][0])} | "
                  f"{ratio(based[t][0], torch[t])}; CLI / base {ratio(core[t][0], based[t][0])} |")
        print(f"| PyTorch (OpenBLAS), {t} thread{'s' if t > 1 else ''} | {cell(torch[t])} | |")
    print(f"\nThe CLI's CSV of context_vecs on 1 and {n} threads: sha256 {core[1][1]} and {core[n][1]}"
          + (f" (base: {based[1][1]} and {based[n][1]})" if base else "") + ", "
          + ("equal." if same else "DIFFERENT.") + f" Load average {start} at the start of the CLI rows, "
          f"{load()} at the end.")
    if not same:
        print(f"compare: the CLI's output differs between 1 and {n} threads", file=sys.stderr)


def chromium_table(args, sides):
    """Exercise 3.3 in the page in Chromium: 1 Worker against a pool of every core's."""
    if "wasm" not in sides or (args.rows and "chromium" not in args.rows and "gpt2" not in args.rows):
        return
    web = os.path.join(args.build, "web")
    if not os.path.exists(os.path.join(web, "index.html")) or not os.path.exists("/usr/bin/chromium"):
        print("\n(The page in Chromium: not measured, no build/web or no /usr/bin/chromium.)")
        return
    workers = sorted({1, max(2, args.threads)})
    r = subprocess.run(["node", os.path.join(HERE, "chromium.js"), "--runs", str(max(args.runs, 3)),
                        "--workers", ",".join(map(str, workers)), web], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr, file=sys.stderr)
        sys.exit("compare: chromium.js failed (or the pool's bits differ)")
    print(r.stdout.rstrip("\n"))


def native_isa(args):
    """The kernels the native core picks on this CPU ("avx512", "avx2", ...)."""
    r = run_side(args, "native", "causal", (1, 6, 3, 1), 1, 0.0)
    return r.get("isa")


def ms(s):
    v = s * 1e3
    return f"{v:.3f}" if v < 1 else f"{v:.2f}" if v < 100 else f"{v:.0f}"


def machine():
    """The CPU, its cores and the load average: what a reader needs to weigh the times."""
    cpu = platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores"


def load():
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


class Tee(io.TextIOBase):
    """Prints as before and keeps a copy of what was printed, for --output."""

    def __init__(self, out):
        self.out, self.text = out, []

    def write(self, s):
        self.text.append(s)
        return self.out.write(s)

    def flush(self):
        self.out.flush()


def user_args(argv):
    """The options the reader gave compare.sh (without the --build and --openblas it adds)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("--build", "--openblas"):
            skip = True
        elif not a.startswith(("--build=", "--openblas=")):
            out.append(shlex.quote(a))
    return out


def write_tables(path, text, argv, started, load_before, build):
    """The generated tables docs/performance.md links to: the printout, dated and placed."""
    command = " ".join(["bench/compare.sh"] + argv)
    busiest = max(float(x) for x in (load_before + ", " + load()).split(", ")) if load_before != "unknown" else 0
    busy = (f"The machine was shared and busy (load average up to {busiest:.1f} on {os.cpu_count()} "
            "cores): times are slower and spreads wider than on a quiet one; the ratios of sides "
            "measured in the same run are the figures to read. " if busiest > (os.cpu_count() or 1) else "")
    head = [
        "<!-- Generated by bench/compare.sh: do not edit by hand; rerun it instead. -->",
        "# Performance tables",
        "",
        f"Written by `{command}` on {started:%Y-%m-%d %H:%M} UTC, on {machine()}; load average "
        f"(1, 5, 15 min) {load_before} at the start and {load()} at the end. "
        f"{busy}Read [performance.md](performance.md) for what the columns measure.",
        "",
    ]
    with open(path, "w") as f:
        body = "".join(text).replace(os.path.abspath(build) + "/", "build/")
        f.write("\n".join(head) + "\n" + body.rstrip("\n") + "\n")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "torch":
        a = sys.argv[2:]
        return torch_worker(a[0], *map(int, a[1:5]), int(a[5]), float(a[6]))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", required=True)
    p.add_argument("--openblas", required=True)
    p.add_argument("--rows", default="", help="only modules/shapes whose label contains this")
    p.add_argument("--runs", type=int, default=3, help="at least this many timed runs")
    p.add_argument("--seconds", type=float, default=1.0, help="and at least this long")
    p.add_argument("--rounds", type=int, default=3,
                   help="processes per side and row, the sides taking turns; runs and seconds "
                        "are shared among them")
    p.add_argument("--pair-rounds", type=int, default=7,
                   help="processes per row for the core's sides and PyTorch on OpenBLAS (the "
                        "ratios the issue's target reads), taking turns with the others and then "
                        "with each other")
    p.add_argument("--sides", default=",".join(SIDES))
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="the thread table's many-thread count (default: every core)")
    p.add_argument("--base", default=None,
                   help="another build directory whose native core and CLI the thread table and "
                        "the CLI rows also time, in the same invocation (before / after a change)")
    p.add_argument("--output", default=None,
                   help="also write the tables, dated, to this file (default: a run of every "
                        "row and side rewrites docs/performance-tables.md; '-' writes none)")
    args = p.parse_args()
    sides = args.sides.split(",")
    full = not args.rows and sides == SIDES
    output = args.output or (os.path.normpath(os.path.join(HERE, "..", "docs", "performance-tables.md")) if full else "-")
    started, load_before = datetime.datetime.now(datetime.timezone.utc), load()
    tee = sys.stdout = Tee(sys.stdout)
    try:
        tables(args, sides)
    finally:
        sys.stdout = tee.out
    if output != "-":
        write_tables(output, tee.text, user_args(sys.argv[1:]), started, load_before, args.build)
        print(f"compare: wrote {output}", file=sys.stderr)


def tables(args, sides):
    print(f"One thread each (the thread table below: 1 and {args.threads}); median of >= {args.runs} runs and >= "
          f"{args.seconds} s; ms (min-max), GFLOP/s. The core and PyTorch (OpenBLAS) in {args.pair_rounds} "
          f"processes each, taking turns, the others in {args.rounds}; ratios: of the medians (of the minima).\n")
    head = ["module", "B, T, d, H"] + [SIDE_NAMES[s] for s in sides]
    ratios = [("native", "torch"), ("native", "openblas"), ("wasm", "native")]
    ratios = [r for r in ratios if r[0] in sides and r[1] in sides]
    # WASM's vectors are 4 floats, AVX2's 8: issue 21's target is WASM <= 2x the native core on
    # AVX2, so where the native core runs wider kernels (AVX-512) that ratio is measured too.
    run = list(sides)
    if "wasm" in sides and "native" in sides and native_isa(args) not in ("avx2", None):
        run.append("native-avx2")
        ratios.append(("wasm", "native-avx2"))
    head += [f"{SIDE_NAMES[a].split(' (')[0] if a != 'wasm' else 'WASM'} / {SIDE_NAMES[b]}" for a, b in ratios]
    bits = "native" in sides and "torch" in sides
    if bits:
        head.append("core's output vs PyTorch (ref. BLAS)")
    tmp = tempfile.mkdtemp(prefix="ca-compare-")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    loaded = {}
    for module, name in MODULES:
        for shape in SHAPES:
            label = f"{name} {shape}"
            if args.rows and args.rows not in label and args.rows not in module:
                continue
            B, T, d, H = shape
            gflop = flops(module, B, T, d) / 1e9
            cells, samples, checks, hashes = [], {}, {}, {}
            outputs = {side: os.path.join(tmp, side + ".f32") for side in ("native", "torch")}
            jobs = {side: (side, module, shape, {"output": outputs.get(side)}) for side in run}
            results = run_interleaved(args, jobs)
            for side in run:
                r = results[side]
                if side == "native-avx2":
                    if r["ok"] and r["isa"] == "avx2":
                        samples[side] = r["seconds"]
                        hashes[side] = r.get("bits")
                    continue
                if not r["ok"]:
                    cells.append("not in the core yet")
                    continue
                s = r["seconds"]
                med = statistics.median(s)
                samples[side], checks[side], hashes[side] = s, r["check"], r.get("bits")
                rate = gflop / med
                cells.append(f"{ms(med)} ({ms(min(s))}-{ms(max(s))}) {rate:.1f}" if rate >= 1 else
                             f"{ms(med)} ({ms(min(s))}-{ms(max(s))}) {rate:.2f}")
                if "blas" in r:
                    loaded.setdefault(side, set()).update(r["blas"])
            ratio_cells = [ratio(samples[a], samples[b]) if a in samples and b in samples else "" for a, b in ratios]
            if bits:
                ratio_cells.append(difference(outputs["native"], outputs["torch"]))
            if "native-avx2" in hashes and hashes["native-avx2"] != hashes.get("native"):
                print(f"compare: {label}: the AVX2 kernels' bits differ from the default's", file=sys.stderr)
            if "wasm" in hashes and "native" in hashes and hashes["wasm"] != hashes["native"]:
                if bits:
                    ratio_cells[-1] += "; WASM differs from native"
                print(f"compare: WASM {label}: output bits differ from native", file=sys.stderr)
            print(f"| {name} | {B}, {T}, {d}, {H} | " + " | ".join(cells + ratio_cells) + " |", flush=True)
            ref = checks.get("torch")
            for side, c in checks.items():  # every side computes the same module on the same x
                if ref is not None and abs(c - ref) > 1e-3 * max(1.0, abs(ref)):
                    print(f"compare: {side} {label}: sum of outputs {c} vs PyTorch's {ref}", file=sys.stderr)
    if not args.rows or "walkthrough" in args.rows:
        walkthrough(args, sides)
    thread_tables(args, sides)
    if not args.rows or "bonus" in args.rows:
        compare_bonus.table(args, sides, run_side, difference, ms, tmp)
    chromium_table(args, sides)
    for side, blas in loaded.items():
        print(f"\n{SIDE_NAMES[side]} loaded: {', '.join(sorted(blas)) or 'no BLAS library'}")
    shutil.rmtree(tmp, ignore_errors=True)
    print("\nTimes in ms; ratios are of median times, of the minima in brackets (< 1: the core is faster). The last column"
          " compares every output float's bits; WASM's are checked equal to native's by hash.")


if __name__ == "__main__":
    main()
