#!/usr/bin/env python3
"""Expected strings of PyTorch's tensor printing, for the CLI's torch format.

Run by hand from the repository root with Debian's python3-torch:
    /usr/bin/python3 tests/golden/generate_format.py
Writes tests/golden/torch_format.json: [{"name", "shape", "data", "str"}], where "str"
is print(t) of the float32 tensor t (no grad_fn) and "data" its values (non-finite as
the strings "-inf", "inf", "nan").
"""
import json
import math

import torch

torch.manual_seed(0)


def value(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    return x


CASES = {
    "fractions_2d": torch.tensor([[0.2899, -0.0138], [0.4656, 0.1723]]),
    "masked_neg_inf": torch.tensor([[0.2899, -math.inf], [0.4656, 0.1723]]),
    "int_mode_mask": torch.triu(torch.ones(6, 6), diagonal=1),
    "int_mode_dropout": torch.tensor([[2.0, 0.0], [0.0, 2.0]]),
    "all_zeros": torch.zeros(2, 3),
    "negative_zero": torch.tensor([[-0.0, 1.5]]),
    "vector_1d": torch.tensor([0.4058, -0.4704]),
    "batch_3d": torch.randn(2, 3, 2),
    "sci_small": torch.tensor([[1e-5, 0.5], [0.25, 1.0]]),
    "sci_large": torch.tensor([[1e9, 1.5]]),
    "int_sci": torch.tensor([[1.0, 20000.0]]),
    "nan_inf": torch.tensor([[math.nan, math.inf, -math.inf, 0.5]]),
    "wide_row": torch.randn(1, 30),
    "wide_vector": torch.randn(25),
    "summarized_2d": torch.randn(40, 40),
    "summarized_3d": torch.randn(2, 32, 32),
    "summarized_column": torch.randn(1200, 1),
    "large_ints": torch.tensor([[123456.0, -7.0]]),
    # chapter 3: the 0-D score, 4-D heads, masked 4-D, a summarised 4-D tensor
    "scalar_0d": torch.tensor(1.8524),
    "scalar_0d_negative_sci": torch.tensor(-1.5e-6),
    "scalar_0d_int": torch.tensor(3.0),
    "heads_4d": torch.randn(2, 2, 3, 1),
    "heads_4d_masked": torch.randn(2, 2, 3, 3).masked_fill(torch.triu(torch.ones(3, 3), diagonal=1).bool(), -math.inf),
    "summarized_4d": torch.randn(2, 12, 16, 16),
}

out = [
    {"name": name, "shape": list(t.shape), "data": [value(x) for x in t.reshape(-1).tolist()],
     "str": str(t)}
    for name, t in CASES.items()
]
with open("tests/golden/torch_format.json", "w") as f:
    json.dump(out, f, indent=0)
    f.write("\n")
print(len(out), "cases")
