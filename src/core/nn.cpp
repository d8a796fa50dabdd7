#include "nn.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "attention.hpp"
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

Tensor dropout(const Tensor& x, double p, bool train, Generator& gen, DropoutRng rng) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument("dropout probability has to be between 0 and 1, but got " +
                                shortest(p));
  }
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
  const Tensor queries = W_query(x), keys = W_key(x), values = W_value(x);  // (B, T, d_out)
  Tensor scores({B, T, T}), weights({B, T, T}), context({B, T, d_out});
  const float divisor = score_divisor(d_out, scale);
  for (int b = 0; b < B; ++b) {
    scores_forward(scores.matrix(b), queries.matrix(b), keys.matrix(b));
    masked_fill(scores.matrix(b), mask.matrix());  // the buffer sliced to [:T, :T]
    softmax_forward(weights.matrix(b), scores.matrix(b), divisor);
  }
  // One dropout over the whole (B, T, T) tensor: the draws run across the batch in order.
  const Tensor dropped = dropout(weights, dropout_p, training, gen, rng);
  for (int b = 0; b < B; ++b)
    context_forward(context.matrix(b), dropped.matrix(b), values.matrix(b));
  return context;
}

}  // namespace ca
