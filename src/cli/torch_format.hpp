// PyTorch's print format for float32 tensors, as torch/_tensor_str.py writes it with the
// default print options (precision 4, linewidth 80, threshold 1000, edgeitems 3).
#pragma once

#include <string>

#include "tensor.hpp"

namespace ca {

// "tensor([[ 0.2899,    -inf], ...])" exactly as print(t) shows a tensor without grad_fn.
std::string torch_str(const Tensor& t);

}  // namespace ca
