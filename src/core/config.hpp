// The walkthrough's configuration. Every default is the book's and lives here only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generator.hpp"
#include "tensor.hpp"

namespace ca {

// Sizes beyond these are refused as absurd for a teaching demo (memory grows as T^2).
constexpr int kMaxTokens = 1024;
constexpr int kMaxDim = 1024;
constexpr std::size_t kMaxTokenLength = 100;
constexpr int kMaxHeads = 128;
// MultiHeadAttentionWrapper's output is (2, T, num_heads * d_out): kept to what a page can hold.
constexpr int kMaxWrapperWidth = 16384;

// `{"randn": [T, D], "seed": S}`: torch.manual_seed(S); torch.randn(T, D).
struct RandnInputs {
  int rows = 0;
  int cols = 0;
  std::uint64_t seed = 123;
};

struct Config {
  Tensor inputs = book_inputs();     // (T, d_in), ignored when `randn` is set
  std::optional<RandnInputs> randn;  // inputs drawn by torch.randn instead
  std::vector<std::string> tokens;   // T row labels; empty: default_tokens(T)
  int d_out = 2;
  int query_token = -1;         // §3.3/§3.4's query x^(q+1); -1: 1 ("journey"), or 0 if T = 1
  std::uint64_t seed_v1 = 123;  // seeds SelfAttention_v1's torch.rand weights (§3.4)
  int num_heads = 2;            // heads of §3.6's two multi-head modules
  bool qkv_bias = false;
  bool scale = true;                 // divide scores by sqrt(d_k) before softmax
  std::uint64_t seed_weights = 789;  // seeds SelfAttention_v2's three nn.Linear
  std::uint64_t seed_dropout = 123;  // torch.manual_seed before each dropout stage
  double dropout = 0.5;              // p of the dropout demo
  std::uint64_t seed_class = 123;    // seeds CausalAttention
  double class_dropout = 0.0;        // CausalAttention's own dropout
  int context_length = 0;            // CausalAttention's mask size; 0: the number of tokens
  DropoutRng rng = DropoutRng::Default;
  bool train = true;

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

const char* to_string(DropoutRng rng);

}  // namespace ca
