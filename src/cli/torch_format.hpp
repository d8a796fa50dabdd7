// PyTorch's print format for float32 tensors, as torch/_tensor_str.py writes it with the
// default print options (precision 4, linewidth 80, threshold 1000, edgeitems 3).
#pragma once

#include <functional>
#include <string>

#include "tensor.hpp"

namespace ca {

// "tensor([[ 0.2899,    -inf], ...])" exactly as print(t) shows a tensor without grad_fn.
std::string torch_str(const Tensor& t);

// How the tables (Markdown) write t's numbers: 4 decimals ("%.4f"; "−∞", "∞", "nan"), or, where
// 4 decimals would show every value print(t) shows as 0.0000 while some is not (the blocked
// pass's difference from the plain softmax, ~3e-8), print(t)'s own format without its padding
// ("-2.9802e-08"). The page's rule, web/lib/format.js tableFormat.
std::function<std::string(float)> table_format(const Tensor& t);

}  // namespace ca
