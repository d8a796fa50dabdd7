#include "stage_code.hpp"

#include <algorithm>
#include <stdexcept>

#include "bonus.hpp"
#include "text.hpp"

namespace ca {
namespace {

// A Python float literal: 0.5, 0.0, 1e-05 (shortest for the type: float32 inputs, double p).
template <typename Float>
std::string py_float(Float v) {
  const std::string s = shortest(v);
  return s.find_first_of(".e") == std::string::npos ? s + ".0" : s;
}

std::string inputs_code(const Config& c) {
  if (c.randn) {
    return "torch.manual_seed(" + decimal(c.randn->seed) + "); inputs = torch.randn(" +
           decimal(c.randn->rows) + ", " + decimal(c.randn->cols) + ")";
  }
  std::string s = "inputs = torch.tensor([";
  s.reserve(32 + c.inputs.numel() * 12);
  for (int i = 0; i < c.inputs.rows(); ++i) {
    s += i ? ", [" : "[";
    // Float literals, as the page's torch export: torch.tensor([[1, 2]]) would be int64.
    for (int j = 0; j < c.inputs.cols(); ++j) {
      if (j) s += ", ";
      s += py_float(c.inputs.at(i, j));
    }
    s += "]";
  }
  return s + "])";
}

}  // namespace

StageCode::StageCode(const Config& c)
    : vars_{{"inputs", inputs_code(c)},
            {"seed_weights", decimal(c.seed_weights)},
            {"seed_dropout", decimal(c.seed_dropout)},
            {"seed_class", decimal(c.seed_class)},
            {"d_in", decimal(c.d_in())},
            {"d_out", decimal(c.d_out)},
            {"q", decimal(c.query_token)},
            {"n", decimal(c.query_token + 1)},  // the book's names count from 1: query_2
            {"seed_v1", decimal(c.seed_v1)},
            {"num_heads", decimal(c.num_heads)},
            {"head_dim", decimal(c.d_out / c.num_heads)},
            {"T", decimal(c.num_tokens())},
            {"context_length", decimal(c.context_length)},
            {"qkv_bias", c.qkv_bias ? "True" : "False"},
            {"ca_bias", c.qkv_bias ? ", qkv_bias=True" : ""},
            {"scaled", c.scale ? " / keys.shape[-1]**0.5" : ""},
            {"unscaled", c.scale ? "" : "  # softmax without / keys.shape[-1]**0.5"},
            {"dropout", py_float(c.dropout)},
            {"class_dropout", py_float(c.class_dropout)},
            {"eval", c.train ? "" : ".eval()"},
            // the bonus notebook's (stages.cpp, bonus.hpp)
            {"block", decimal(flash_block(c.num_tokens()))},
            {"flash_scale", c.scale ? "" : ", scale=False"},
            {"einsum_scaled", c.scale ? " / (mha_einsum.head_dim ** 0.5)" : ""},
            {"einsum_div", c.scale ? " / (self.head_dim ** 0.5)" : ""},
            {"einsum_bq", c.qkv_bias ? " + mha_einsum.bias_q" : ""},
            {"einsum_bk", c.qkv_bias ? " + mha_einsum.bias_k" : ""},
            {"einsum_copy_bias", c.qkv_bias ? "\n    mha_einsum.bias_q.copy_(mha.W_query.bias)\n"
                                              "    mha_einsum.bias_k.copy_(mha.W_key.bias)\n"
                                              "    mha_einsum.bias_v.copy_(mha.W_value.bias)"
                                            : ""}} {}

// Built in one pass, without temporaries.
std::string StageCode::expand(const char* tmpl) const {
  const std::string_view t = tmpl;
  std::string s;
  s.reserve(t.size() + 16);
  std::size_t done = 0;
  for (std::size_t open = t.find('{'); open != t.npos; open = t.find('{', done)) {
    const std::size_t close = t.find('}', open);
    if (close == t.npos) throw std::logic_error("unclosed {} in: " + std::string(t));
    const std::string_view name = t.substr(open + 1, close - open - 1);
    const auto it =
        std::find_if(vars_.begin(), vars_.end(), [&](const auto& v) { return v.first == name; });
    if (it == vars_.end())
      throw std::logic_error("no value for {" + std::string(name) + "} in: " + std::string(t));
    s.append(t.substr(done, open - done)).append(it->second);
    done = close + 1;
  }
  return s.append(t.substr(done));
}

}  // namespace ca
