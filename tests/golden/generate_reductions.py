#!/usr/bin/env python3
"""PyTorch's exp, softmax and row sums on rows of many lengths, for tests/test_reductions.cpp.

Run by hand from the repository root with Debian's python3-torch (PyTorch 1.13, AVX2):
    /usr/bin/python3 tests/golden/generate_reductions.py
Writes tests/golden/reductions.json:
  {"torch": str, "cpu_capability": "avx2",
   "exp": {"x": [...], "y": [...]}               y = torch.exp(x)
   "rows": [{"shape": [2, n], "x": [...],         x, 2 rows of n values
             "softmax": [...],                    torch.softmax(x, dim=-1)
             "sums": [...]}, ...]                 x.sum(dim=-1)
   "causal": [{"T": T, "divisor": d, "scores": [...],   T x T, -inf above the diagonal
               "weights": [...]}, ...]}           torch.softmax(scores / d, dim=-1)
Numbers as in the golden cases: float32 values written as repr(float), non-finite values
as "-inf", "inf", "nan". The lengths cover both of reduce_all's paths (below 8 values and
from 8 on, with every tail length) and several blocks of SumKernel's cascade.
"""
import os

os.environ["ATEN_CPU_CAPABILITY"] = "avx2"  # must precede `import torch`

import json
import math

import torch

from generate import num  # the golden files' number format, one rule

LENGTHS = list(range(1, 41)) + [63, 64, 65, 100, 127, 128, 129, 257]
CAUSAL = [(6, 1.0), (7, 1.0), (8, math.sqrt(2)), (9, 1.0), (12, math.sqrt(3)), (17, 1.0), (33, 2.0)]




def flat(t):
    return [num(v) for v in t.contiguous().reshape(-1).tolist()]


def exp_case(g):
    inf = math.inf
    specials = [-inf, inf, math.nan, -0.0, 0.0, 1e-30, -1e-30, 1e-45, -1e-45, 3e38, -3e38,
                -104.0, -103.99, -104.01, 100.0, 100.01, 88.72, 88.73, -87.33, -87.34,
                -0.5 * math.log(2), 0.5 * math.log(2), 1.5 * math.log(2), -2.5 * math.log(2)]
    x = torch.cat([torch.tensor(specials, dtype=torch.float32),
                   torch.linspace(-110.0, 95.0, 411),
                   torch.randn(200, generator=g) * 5])
    return {"x": flat(x), "y": flat(torch.exp(x))}


def rows_case(g, n):
    scale = [0.5, 3.0, 20.0][n % 3]  # 20: many exponentials underflow, some to 0
    x = torch.randn(2, n, generator=g) * scale
    return {"shape": [2, n], "x": flat(x), "softmax": flat(torch.softmax(x, dim=-1)),
            "sums": flat(x.sum(dim=-1))}


def causal_case(g, T, divisor):
    scores = torch.randn(T, T, generator=g) * 2
    scores.masked_fill_(torch.triu(torch.ones(T, T), diagonal=1).bool(), -math.inf)
    divisor = float(torch.tensor(divisor, dtype=torch.float32))
    weights = torch.softmax(scores / divisor, dim=-1)
    return {"T": T, "divisor": divisor, "scores": flat(scores), "weights": flat(weights)}


def main():
    assert "CPU capability usage: AVX2" in torch.__config__.show()
    g = torch.Generator().manual_seed(2024)
    dumps = lambda o: json.dumps(o, allow_nan=False, separators=(",", ":"))
    lines = ["{", f'"torch":{dumps(torch.__version__)},', '"cpu_capability":"avx2",',
             f'"exp":{dumps(exp_case(g))},', '"rows":[']
    lines.append(",\n".join(dumps(rows_case(g, n)) for n in LENGTHS) + "],")
    lines.append('"causal":[')
    lines.append(",\n".join(dumps(causal_case(g, T, d)) for T, d in CAUSAL) + "]")
    lines.append("}")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reductions.json")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
