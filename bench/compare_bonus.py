"""The bonus notebook's implementations in bench/compare.sh (issue 23 item 3): its PyTorch
modules for compare.py's worker, and the table of every implementation at one shape, the core
against PyTorch on the reference BLAS and on OpenBLAS, on one thread and on all.

The modules are the notebook's (ch03/02_bonus_efficient-multihead-attention), each built after
torch.manual_seed(123) with its own initialisation, then x = torch.randn(B, T, d), eval mode,
as bench/bench_modules.hpp builds the core's. PyTorch 1.13 has no scaled_dot_product_attention:
"flash" is the blocked pass in PyTorch ops (tests/golden/generate_bonus.py's flash_attention),
the algorithm the core runs, not PyTorch 2's kernel.
"""
import os
import statistics
import sys

# The notebook's shape at batch 1 (its batch 8 takes 8 times as long: over a minute a run for
# PyTorch on the reference BLAS here).
SHAPE = (1, 1024, 768, 12)
# (module, the notebook's name); "mha" is the chapter's MultiHeadAttention of compare.py.
MODULES = [("wrapper", "1) Ch03_MHA_Wrapper"), ("mha", "2) Ch03_MHA"),
           ("qkv", "3) MultiHeadAttentionCombinedQKV"), ("einsum", "4) MHAEinsum"),
           ("flash", "5) blocked pass (SDPA's algorithm)"), ("torchmha", "7) nn.MultiheadAttention")]
BONUS = {m for m, _ in MODULES if m != "mha"}


def build(module, T, d, H):
    """The notebook's module `module` (after torch.manual_seed), in eval mode."""
    import torch.nn as nn
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden"))
    import generate as G
    import generate_bonus as GB

    if module == "wrapper":
        class Ch03_MHA_Wrapper(nn.Module):
            def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
                super().__init__()
                self.heads = nn.ModuleList([G.CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                                            for _ in range(num_heads)])
                self.out_proj = nn.Linear(d_out * num_heads, d_out * num_heads)

            def forward(self, x):
                import torch
                return self.out_proj(torch.cat([head(x) for head in self.heads], dim=-1))

        m = Ch03_MHA_Wrapper(d, d // H, T, 0.0, H)
    elif module == "qkv":
        m = GB.MultiHeadAttentionCombinedQKV(d, d, H, T, 0.0)
    elif module == "einsum":
        m = GB.MHAEinsum(d, d, T, 0.0, H)
    elif module == "flash":
        m = GB.MHAPyTorchScaledDotProduct(d, d, H, T, 0.0)
    elif module == "torchmha":
        m = GB.MHAPyTorchClass(d, d, H, T, 0.0)
    return m.eval()


def table(args, sides, run_side, difference, ms, tmp):
    """One row per implementation at SHAPE: median ms on 1 and N threads, the ratios, and the
    core's output against PyTorch's (reference BLAS) and against the core's Ch03_MHA."""
    if "native" not in sides or "torch" not in sides:
        return
    n = args.threads
    B, T, d, H = SHAPE
    print(f"\nThe bonus notebook's implementations at (B, T, d, H) = {SHAPE} (the notebook's 8 x 1024 x 768 "
          f"at batch 1), eval, each with its own initialisation; median ms of >= {args.runs} runs on 1 and "
          f"{n} threads. Bits: the core's output against PyTorch's on the reference BLAS (the same "
          "implementation), and against the core's Ch03_MHA (the same weights only for 3 and 5).\n")
    head = ["implementation", "core, 1", f"core, {n}", "PyTorch (ref. BLAS), 1", "PyTorch (OpenBLAS), 1",
            f"PyTorch (OpenBLAS), {n}", "core / ref. BLAS, 1", "core / OpenBLAS, 1", f"core / OpenBLAS, {n}",
            "core vs PyTorch (ref. BLAS)", "core vs core's Ch03_MHA"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    chapter = os.path.join(tmp, "bonus-mha.f32")
    for module, name in MODULES:
        if args.rows and args.rows not in "bonus" and args.rows not in module:
            continue
        outs = {s: os.path.join(tmp, f"bonus-{module}-{s}.f32") for s in ("native", "torch")}
        r = {}
        for side, t in (("native", 1), ("native", n), ("torch", 1), ("openblas", 1), ("openblas", n)):
            if side in sides:
                r[(side, t)] = run_side(args, side, module, SHAPE, args.runs, args.seconds,
                                        outs.get(side) if t == 1 else None, threads=t)
        med = {k: statistics.median(v["seconds"]) for k, v in r.items()}
        cell = lambda k: ms(med[k]) if k in med else ""
        ratio = lambda a, b: f"{med[a] / med[b]:.2f}x" if a in med and b in med else ""
        if module == "mha":
            os.replace(outs["native"], chapter)
            versus = "itself"
        else:
            versus = difference(outs["native"], chapter) if module in ("qkv", "flash") else "other weights"
        mine = chapter if module == "mha" else outs["native"]
        bits = difference(mine, outs["torch"])
        if r[("native", 1)]["bits"] != r[("native", n)]["bits"]:
            bits += f"; {n} threads DIFFER"
        print(f"| {name} | " + " | ".join([
            cell(("native", 1)), cell(("native", n)), cell(("torch", 1)), cell(("openblas", 1)),
            cell(("openblas", n)), ratio(("native", 1), ("torch", 1)), ratio(("native", 1), ("openblas", 1)),
            ratio(("native", n), ("openblas", n)), bits, versus]) + " |", flush=True)
