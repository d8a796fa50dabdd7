// The walkthrough's configuration. Every default is the book's and lives in settings.hpp's
// table only; the limits are there too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generator.hpp"
#include "settings.hpp"
#include "tensor.hpp"

namespace ca {

// `{"randn": [T, D], "seed": S}`: torch.manual_seed(S); torch.randn(T, D).
struct RandnInputs {
  int rows = 0;
  int cols = 0;
  std::uint64_t seed = 123;
};

// Every default is the settings table's, copied at compile time (kDefault).
struct Config {
  Tensor inputs = book_inputs();     // (T, d_in), ignored when `randn` is set
  std::optional<RandnInputs> randn;  // inputs drawn by torch.randn instead
  std::vector<std::string> tokens;   // T row labels; empty: default_tokens(T)
  int d_out = kDefault<int, setting_index("d_out")>;
  // §3.3/§3.4's query x^(q+1); -1: 1 ("journey"), or 0 if T = 1
  int query_token = kDefault<int, setting_index("query_token")>;
  // seeds SelfAttention_v1's torch.rand weights (§3.4)
  std::uint64_t seed_v1 = kDefault<std::uint64_t, setting_index("seed_v1")>;
  // heads of §3.6's two multi-head modules
  int num_heads = kDefault<int, setting_index("num_heads")>;
  bool qkv_bias = kDefault<bool, setting_index("qkv_bias")>;
  // divide scores by sqrt(d_k) before softmax
  bool scale = kDefault<bool, setting_index("scale")>;
  // seeds SelfAttention_v2's three nn.Linear
  std::uint64_t seed_weights = kDefault<std::uint64_t, setting_index("seed_weights")>;
  // torch.manual_seed before each dropout stage
  std::uint64_t seed_dropout = kDefault<std::uint64_t, setting_index("seed_dropout")>;
  double dropout = kDefault<double, setting_index("dropout")>;  // p of the dropout demo
  // seeds CausalAttention
  std::uint64_t seed_class = kDefault<std::uint64_t, setting_index("seed_class")>;
  // CausalAttention's own dropout
  double class_dropout = kDefault<double, setting_index("class_dropout")>;
  // CausalAttention's mask size; 0: the number of tokens
  int context_length = kDefault<int, setting_index("context_length")>;
  DropoutRng rng = kDefault<DropoutRng, setting_index("rng")>;
  bool train = kDefault<bool, setting_index("train")>;

  // "Your journey starts with one step", 3-d embeddings.
  static Tensor book_inputs();
  int num_tokens() const { return randn ? randn->rows : inputs.rows(); }
  int d_in() const { return randn ? randn->cols : inputs.cols(); }
};

// The book's words for the first six rows, then x7, x8, ...
std::vector<std::string> default_tokens(int n);

// One clear sentence naming the first problem, or "" when the configuration is valid.
std::string validate(const Config& config);

// "" when MultiHeadAttention can be built (d_out % num_heads == 0), else why not.
std::string mha_error(const Config& config);

// The configuration with defaults made explicit: tokens, query_token, context_length filled in.
// Precondition: validate(config) is "".
Config resolve(Config config);

// The rng setting's value: "default" or "mkl".
std::string to_string(DropoutRng rng);

}  // namespace ca
