// The book's modules: nn.Linear with PyTorch's initialisation, nn.Dropout, SelfAttention_v2
// and CausalAttention. Constructors draw from the generator in PyTorch's order.
#pragma once

#include <optional>

#include "generator.hpp"
#include "tensor.hpp"

namespace ca {

// nn.Linear(in_features, out_features, bias).
struct Linear {
  Tensor weight;  // (out, in): kaiming_uniform_(a=sqrt(5)) = U(-1/sqrt(in), 1/sqrt(in))
  std::optional<Tensor> bias;  // (out): U(-1/sqrt(in), 1/sqrt(in)), drawn after the weight

  Linear(int in_features, int out_features, bool with_bias, Generator& gen);
  // (..., in) -> (..., out)
  Tensor operator()(const Tensor& x) const;
};

// nn.Dropout(p) applied to x: identity in eval mode or for p = 0 (no draw), zeros for p = 1
// (no draw), otherwise x * bernoulli(1 - p) / (1 - p).
Tensor dropout(const Tensor& x, double p, bool train, Generator& gen, DropoutRng rng);

// SelfAttention_v2(d_in, d_out, qkv_bias) of §3.4.
struct SelfAttentionV2 {
  Linear W_query, W_key, W_value;

  SelfAttentionV2(int d_in, int d_out, bool qkv_bias, Generator& gen);
  // x (T, d_in) -> context (T, d_out); `scale` divides the scores by sqrt(d_k).
  Tensor forward(const Tensor& x, bool scale = true) const;
};

// CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) of §3.5.
struct CausalAttention {
  Linear W_query, W_key, W_value;
  double dropout_p;
  int context_length;
  Tensor mask;  // (context_length, context_length) buffer: triu(ones, diagonal=1)
  bool training = true;
  bool scale = true;
  DropoutRng rng = DropoutRng::Default;

  // Buffers forward reuses from call to call (scores, weights, dropout noise); a copy of the
  // module starts with empty ones.
  struct Scratch {
    std::vector<float> scores, weights;
    std::vector<unsigned char> full_rows;
    Tensor noise;
    Scratch() = default;
    Scratch(const Scratch&) {}
    Scratch& operator=(const Scratch&) { return *this; }
  };
  mutable Scratch scratch;

  CausalAttention(int d_in, int d_out, int context_length, double dropout, bool qkv_bias,
                  Generator& gen);
  // x (B, T, d_in) -> context (B, T, d_out). Throws std::invalid_argument when
  // T > context_length (PyTorch would fail on the mask slice) or d_in does not match.
  Tensor forward(const Tensor& x, Generator& gen) const;
};

}  // namespace ca
