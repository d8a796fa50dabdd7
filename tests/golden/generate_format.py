#!/usr/bin/env python3
"""Expected strings of PyTorch's tensor printing, for the CLI's torch format and the page's.

Run by hand from the repository root with Debian's python3-torch:
    /usr/bin/python3 tests/golden/generate_format.py
Writes tests/golden/torch_format.json, one case per line: {"name", "shape", "str"} and either
"data" (its values; non-finite as the strings "-inf", "inf", "nan") or "randn" (a seed: the
values are torch.manual_seed(seed); torch.randn(shape), which the core's randn rebuilds bit for
bit). "str" is print(t) of the float32 tensor t (no grad_fn). The summarised cases are just
past print()'s threshold (more than 1000 values) and come from a seed: print() shows a few
dozen of their values.
"""
import json
import math

import torch


def value(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return x


def randn(seed, *shape):
    torch.manual_seed(seed)
    return torch.randn(*shape)


def masked(t):
    return t.masked_fill(torch.triu(torch.ones(t.shape[-1], t.shape[-1]), diagonal=1).bool(), -math.inf)


# name: the tensor, its values written out.
CASES = {
    "fractions_2d": torch.tensor([[0.2899, -0.0138], [0.4656, 0.1723]]),
    "masked_neg_inf": torch.tensor([[0.2899, -math.inf], [0.4656, 0.1723]]),
    "int_mode_mask": torch.triu(torch.ones(6, 6), diagonal=1),
    "int_mode_dropout": torch.tensor([[2.0, 0.0], [0.0, 2.0]]),
    "all_zeros": torch.zeros(2, 3),
    "negative_zero": torch.tensor([[-0.0, 1.5]]),
    "vector_1d": torch.tensor([0.4058, -0.4704]),
    "batch_3d": randn(1, 2, 3, 2),
    "sci_small": torch.tensor([[1e-5, 0.5], [0.25, 1.0]]),
    "sci_large": torch.tensor([[1e9, 1.5]]),
    "int_sci": torch.tensor([[1.0, 20000.0]]),
    "nan_inf": torch.tensor([[math.nan, math.inf, -math.inf, 0.5]]),
    "wide_row": randn(2, 1, 30),
    "wide_vector": randn(3, 25),
    "large_ints": torch.tensor([[123456.0, -7.0]]),
    # chapter 3: the 0-D score, 4-D heads, masked 4-D
    "scalar_0d": torch.tensor(1.8524),
    "scalar_0d_negative_sci": torch.tensor(-1.5e-6),
    "scalar_0d_int": torch.tensor(3.0),
    "heads_4d": randn(4, 2, 2, 3, 1),
    "heads_4d_masked": masked(randn(5, 2, 2, 3, 3)),
}
# name: (seed, shape) of torch.randn: at the threshold (1000 values: all printed, rows wrapped)
# and just past it, summarised along every dimension longer than 6.
SEEDED = {
    "threshold_1000": (6, [8, 125]),
    "summarized_2d": (7, [32, 32]),
    "summarized_3d": (8, [2, 23, 22]),
    "summarized_column": (9, [1001, 1]),
    "summarized_4d": (10, [2, 8, 8, 8]),
}

lines = [
    json.dumps({"name": name, "shape": list(t.shape), "str": str(t),
                "data": [value(x) for x in t.reshape(-1).tolist()]})
    for name, t in CASES.items()
]
for name, (seed, shape) in SEEDED.items():
    t = randn(seed, *shape)
    # The JS test rebuilds the values as the inputs {"randn": [numel / last, last], "seed"}.
    assert torch.equal(t.reshape(-1), randn(seed, t.numel() // shape[-1], shape[-1]).reshape(-1))
    lines.append(json.dumps({"name": name, "shape": shape, "str": str(t), "randn": seed}))
with open("tests/golden/torch_format.json", "w") as f:
    f.write("[\n" + ",\n".join(lines) + "\n]\n")
print(len(lines), "cases")
