#include "nn.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "attention.hpp"
#include "kernels.hpp"
#include "text.hpp"

namespace ca {

Linear::Linear(int in_features, int out_features, bool with_bias, Generator& gen)
    : weight({out_features, in_features}) {
  // kaiming_uniform_(a=sqrt(5)) in Python doubles: gain = sqrt(2 / (1 + a**2)),
  // bound = sqrt(3) * gain / sqrt(fan_in).
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + std::pow(a, 2.0)));
  const double bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(in_features)));
  uniform_(weight, -bound, bound, gen);
  if (with_bias) {
    const double bias_bound = 1.0 / std::sqrt(static_cast<double>(in_features));
    bias = Tensor({out_features});
    uniform_(*bias, -bias_bound, bias_bound, gen);
  }
}

Tensor Linear::operator()(const Tensor& x) const {
  const int in = weight.shape[1], out = weight.shape[0];
  if (x.cols() != in) {
    throw std::invalid_argument("Linear: input has " + decimal(x.cols()) + " features, expected " +
                                decimal(in));
  }
  std::vector<int> shape = x.shape;
  shape.back() = out;
  Tensor y(shape);
  const int rows = static_cast<int>(x.numel() / in);  // every leading dim folded into rows
  linear_forward(MatrixMap(y.data.data(), rows, out), ConstMatrixMap(x.data.data(), rows, in),
                 weight.matrix(), bias ? bias->data.data() : nullptr);
  return y;
}

namespace {

void check_dropout(double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument("dropout probability has to be between 0 and 1, but got " +
                                shortest(p));
  }
}

bool all_finite(const float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

}  // namespace

Tensor dropout(const Tensor& x, double p, bool train, Generator& gen, DropoutRng rng) {
  check_dropout(p);
  if (!train || p == 0.0 || x.numel() == 0) return x;
  Tensor y = x;
  if (p == 1.0) {
    for (float& v : y.data) v *= 0.0f;
    return y;
  }
  Tensor noise(x.shape);
  bernoulli_(noise, 1.0 - p, gen, rng);
  // noise.div_(1 - p): the scalar becomes float32 before the division.
  const float keep = static_cast<float>(1.0 - p);
  for (std::size_t i = 0; i < y.numel(); ++i) y.data[i] *= noise.data[i] / keep;
  return y;
}

SelfAttentionV2::SelfAttentionV2(int d_in, int d_out, bool qkv_bias, Generator& gen)
    : W_query(d_in, d_out, qkv_bias, gen),
      W_key(d_in, d_out, qkv_bias, gen),
      W_value(d_in, d_out, qkv_bias, gen) {}

Tensor SelfAttentionV2::forward(const Tensor& x, bool scale) const {
  const Tensor queries = W_query(x), keys = W_key(x), values = W_value(x);  // (T, d_out)
  const int T = x.rows(), d_out = keys.cols();
  Tensor scores({T, T}), weights({T, T}), context({T, d_out});
  scores_forward(scores.matrix(), queries.matrix(), keys.matrix());
  softmax_forward(weights.matrix(), scores.matrix(), score_divisor(d_out, scale));
  context_forward(context.matrix(), weights.matrix(), values.matrix());
  return context;
}

CausalAttention::CausalAttention(int d_in, int d_out, int context_length_, double dropout,
                                 bool qkv_bias, Generator& gen)
    : W_query(d_in, d_out, qkv_bias, gen),
      W_key(d_in, d_out, qkv_bias, gen),
      W_value(d_in, d_out, qkv_bias, gen),
      dropout_p(dropout),
      context_length(context_length_),
      mask(causal_mask(context_length_)) {}

Tensor CausalAttention::forward(const Tensor& x, Generator& gen) const {
  if (x.dim() != 3)
    throw std::invalid_argument("CausalAttention: input must be (b, num_tokens, d_in)");
  const int B = x.shape[0], T = x.shape[1], d_out = W_query.weight.shape[0];
  if (T > context_length) {
    throw std::invalid_argument("CausalAttention: " + decimal(T) +
                                " tokens exceed context_length " + decimal(context_length));
  }
  check_dropout(dropout_p);
  const Tensor queries = W_query(x), keys = W_key(x), values = W_value(x);  // (B, T, d_out)
  Tensor context({B, T, d_out});
  const float divisor = score_divisor(d_out, scale);
  const std::size_t TT = static_cast<std::size_t>(T) * T;
  // The masked upper triangle is skipped in every pass: its weights are exactly +0 (see
  // causal_softmax_forward), and a +0 term changes no sum. Rows where it is NaN run whole.
  scratch.scores.resize(TT);         // (T, T), one sequence at a time
  scratch.weights.resize(B * TT);    // (B, T, T): dropout runs over the whole batch
  scratch.full_rows.resize(static_cast<std::size_t>(B) * T);
  const auto seq = [&](const Tensor& t, int b) { return t.data.data() + std::size_t(b) * T * d_out; };
  float* const weights = scratch.weights.data();
  unsigned char* const full_rows = scratch.full_rows.data();
  for (int b = 0; b < B; ++b) {
    kernels::gemm_nt(T, T, d_out, seq(queries, b), d_out, seq(keys, b), d_out,
                     scratch.scores.data(), T, kernels::Tri::LowerOut);
    causal_softmax_forward(weights + b * TT, T, scratch.scores.data(), T, T, divisor,
                           full_rows + std::size_t(b) * T);
  }
  // Dropout over the whole (B, T, T) tensor as nn.Dropout does: every draw is made, in order,
  // masked cells included; eval mode touches nothing.
  if (training && dropout_p != 0.0 && B * TT != 0) {
    const float keep = static_cast<float>(1.0 - dropout_p);  // noise.div_(1 - p) in float32
    if (dropout_p != 1.0) {
      scratch.noise.shape = {B, T, T};
      scratch.noise.data.resize(B * TT);
      bernoulli_(scratch.noise, 1.0 - dropout_p, gen, rng);
    }
    for (std::size_t row = 0; row < std::size_t(B) * T; ++row) {
      const std::size_t n = full_rows[row] ? T : row % T + 1;
      float* w = weights + row * T;
      if (dropout_p == 1.0) {
        for (std::size_t j = 0; j < n; ++j) w[j] *= 0.0f;
      } else {
        const float* noise = scratch.noise.data.data() + row * T;
        for (std::size_t j = 0; j < n; ++j) w[j] *= noise[j] / keep;
      }
    }
  }
  for (int b = 0; b < B; ++b) {
    float* w = weights + b * TT;
    const unsigned char* full = full_rows + std::size_t(b) * T;
    float* ctx = context.data.data() + std::size_t(b) * T * d_out;
    if (!all_finite(seq(values, b), std::size_t(T) * d_out)) {
      // 0 * inf is NaN: the masked zeros count here, written out, and every row runs whole.
      for (int i = 0; i < T; ++i)
        if (!full[i]) std::fill(w + std::size_t(i) * T + i + 1, w + std::size_t(i + 1) * T, 0.0f);
      kernels::gemm(T, d_out, T, w, T, seq(values, b), d_out, ctx, d_out);
      continue;
    }
    kernels::gemm(T, d_out, T, w, T, seq(values, b), d_out, ctx, d_out, kernels::Tri::LowerK);
    for (int i = 0; i < T; ++i) {
      if (full[i])
        kernels::gemm(1, d_out, T, w + std::size_t(i) * T, T, seq(values, b), d_out,
                      ctx + std::size_t(i) * d_out, d_out);
    }
  }
  return context;
}

}  // namespace ca
