#include "bonus.hpp"

#include <cmath>
#include <limits>

#include "attention.hpp"
#include "kernels.hpp"
#include "reduce.hpp"
#include "sleef.hpp"
#include "text.hpp"

namespace ca {
namespace {

// kaiming_uniform_(a=sqrt(5)) in Python doubles, as nn.Linear's (nn.cpp).
double kaiming_bound(int fan_in) {
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + std::pow(a, 2.0)));
  return std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(fan_in)));
}

// Rows [r0, r0 + n) of a (R, C) tensor, or elements of a vector.
Tensor rows_of(const Tensor& t, int r0, int n) {
  const std::size_t width = t.dim() == 1 ? 1 : static_cast<std::size_t>(t.cols());
  std::vector<int> shape = t.shape;
  shape[0] = n;
  return Tensor(shape,
                std::vector<float>(t.data.begin() + r0 * width, t.data.begin() + (r0 + n) * width));
}

Tensor transposed(const Tensor& w) {  // (R, C) -> (C, R)
  const int R = w.rows(), C = w.cols();
  Tensor t({C, R});
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) t.data[std::size_t(c) * R + r] = w.data[std::size_t(r) * C + c];
  return t;
}

MultiHeadAttention configured(MultiHeadAttention m, const Config& c) {
  m.training = c.train;
  m.scale = c.scale;
  m.rng = c.rng;
  return m;
}

// torch.maximum and amax: NaN wins.
float nan_max(float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }

}  // namespace

CombinedQKV::CombinedQKV(int d_in, int d_out, bool qkv_bias, Generator& gen)
    : qkv(d_in, 3 * d_out, qkv_bias, gen), proj(d_out, d_out, true, gen) {}

MultiHeadAttention CombinedQKV::as_mha(const Config& c) const {
  const int D = proj.weight.rows();
  const auto part = [&](int k) {
    return Linear(rows_of(qkv.weight, k * D, D),
                  qkv.bias ? std::optional<Tensor>(rows_of(*qkv.bias, k * D, D)) : std::nullopt);
  };
  return configured(MultiHeadAttention(part(0), part(1), part(2), proj, c.context_length,
                                       c.class_dropout, c.num_heads),
                    c);
}

MHAEinsum::MHAEinsum(int d_in, int d_out, bool qkv_bias, Generator& gen)
    : W_query(randn({d_in, d_out}, gen)),
      W_key(randn({d_in, d_out}, gen)),
      W_value(randn({d_in, d_out}, gen)),
      out_proj(d_out, d_out, true, gen) {
  // reset_parameters(), after out_proj's own draws.
  const double bound = kaiming_bound(d_out);  // fan_in of a (d_in, d_out) tensor: size(1)
  for (Tensor* w : {&W_query, &W_key, &W_value}) uniform_(*w, -bound, bound, gen);
  if (!qkv_bias) return;
  const double bias_bound = 1.0 / std::sqrt(static_cast<double>(d_out));
  for (std::optional<Tensor>* b : {&bias_q, &bias_k, &bias_v}) {
    *b = Tensor({d_out});
    uniform_(**b, -bias_bound, bias_bound, gen);
  }
}

MultiHeadAttention MHAEinsum::as_mha(const Config& c) const {
  return configured(
      MultiHeadAttention(Linear(transposed(W_query), bias_q), Linear(transposed(W_key), bias_k),
                         Linear(transposed(W_value), bias_v), out_proj, c.context_length,
                         c.class_dropout, c.num_heads),
      c);
}

TorchMHA::TorchMHA(int d_out, Generator& gen)
    : in_proj_weight({3 * d_out, d_out}),
      out_proj(d_out, d_out, false, gen),  // built in __init__, before _reset_parameters
      proj(Tensor(), std::nullopt) {
  // xavier_uniform_: std = gain * sqrt(2 / (fan_in + fan_out)), a = sqrt(3) * std, gain 1.
  const double std_ = 1.0 * std::sqrt(2.0 / static_cast<double>(d_out + 3 * d_out));
  const double a = std::sqrt(3.0) * std_;
  uniform_(in_proj_weight, -a, a, gen);
  proj = Linear(d_out, d_out, true, gen);
}

TorchMHA::TorchMHA(const MultiHeadAttention& mha)
    : in_proj_weight({3 * mha.W_query.weight.rows(), mha.W_query.weight.cols()}),
      out_proj(mha.out_proj.weight, std::nullopt),
      proj(Tensor(mha.out_proj.weight.shape), mha.out_proj.bias) {
  const Tensor* w[] = {&mha.W_query.weight, &mha.W_key.weight, &mha.W_value.weight};
  auto out = in_proj_weight.data.begin();
  for (const Tensor* t : w) out = std::copy(t->data.begin(), t->data.end(), out);
  const int D = proj.weight.rows();
  for (int i = 0; i < D; ++i) proj.weight.data[std::size_t(i) * D + i] = 1.0f;  // torch.eye
}

MultiHeadAttention TorchMHA::as_mha(const Config& c) const {
  const int D = out_proj.weight.rows();
  const auto part = [&](int k) { return Linear(rows_of(in_proj_weight, k * D, D), std::nullopt); };
  MultiHeadAttention m =
      configured(MultiHeadAttention(part(0), part(1), part(2), out_proj, c.context_length,
                                    c.class_dropout, c.num_heads),
                 c);
  m.scale = true;  // PyTorch's own: always q / sqrt(head_dim)
  m.prescale = true;
  return m;
}

Tensor average_heads(const Tensor& w) {
  const int B = w.shape[0], H = w.shape[1];
  const std::size_t TT = static_cast<std::size_t>(w.shape[2]) * w.shape[3];
  Tensor avg({B, w.shape[2], w.shape[3]});
  const float heads = static_cast<float>(H);
  for (int b = 0; b < B; ++b) {
    float* out = avg.data.data() + b * TT;
    for (std::size_t k = 0; k < TT; ++k) {
      float sum = 0.0f;
      for (int h = 0; h < H; ++h) sum += w.data[(static_cast<std::size_t>(b) * H + h) * TT + k];
      out[k] = sum / heads;
    }
  }
  return avg;
}

int flash_block(int T) { return std::max(1, (T + 3) / 4); }  // ceil(T / 4)
int flash_blocks(int T) { return T == 0 ? 0 : (T + flash_block(T) - 1) / flash_block(T); }

FlashTrace flash_attention(const Tensor& qkv, int H, int block, bool scale) {
  const int B = qkv.shape[0], T = qkv.shape[1], D = qkv.shape[2] / 3, hd = D / H, ld = 3 * D;
  const int nb = T == 0 ? 0 : (T + block - 1) / block;
  const float divisor = score_divisor(hd, scale), inf = std::numeric_limits<float>::infinity();
  FlashTrace out{Tensor({B, H, T, nb}), Tensor({B, H, T, nb}), Tensor({B, T, D})};
  std::vector<float> s(static_cast<std::size_t>(block) * block), pv(std::size_t(block) * hd),
      acc(pv.size()), m(block), l(block), alpha(block);
  for (int b = 0; b < B; ++b) {
    for (int h = 0; h < H; ++h) {
      const float* q = qkv.data.data() + static_cast<std::size_t>(b) * T * ld + h * hd;
      const float *k = q + D, *v = q + 2 * D;
      float* run_max = out.running_max.data.data() + (static_cast<std::size_t>(b) * H + h) * T * nb;
      float* run_sum = out.running_sum.data.data() + (run_max - out.running_max.data.data());
      for (int i0 = 0; i0 < T; i0 += block) {
        const int rows = std::min(block, T - i0);
        std::fill(m.begin(), m.end(), -inf);
        std::fill(l.begin(), l.end(), 0.0f);
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int j0 = 0; j0 <= i0; j0 += block) {  // key blocks up to the diagonal
          const int cols = std::min(block, T - j0);
          // s = q_blk @ k_blk.T / sqrt(hd); the diagonal block masked with -inf
          kernels::gemm_nt(rows, cols, hd, q + std::size_t(i0) * ld, ld, k + std::size_t(j0) * ld,
                           ld, s.data(), cols);
          for (int r = 0; r < rows; ++r) {
            float* sr = s.data() + std::size_t(r) * cols;
            if (scale)
              for (int c = 0; c < cols; ++c) sr[c] /= divisor;
            if (j0 == i0)
              for (int c = r + 1; c < cols; ++c) sr[c] = -inf;
            float m_new = -inf;  // torch.maximum(m, s.amax(-1))
            for (int c = 0; c < cols; ++c) m_new = nan_max(m_new, sr[c]);
            m_new = nan_max(m[r], m_new);
            for (int c = 0; c < cols; ++c) sr[c] = sleef::expf_u10(sr[c] - m_new);  // p
            alpha[r] = sleef::expf_u10(m[r] - m_new);
            l[r] = l[r] * alpha[r] + reduce::cascade_sum(sr, cols);
            m[r] = m_new;
            for (int kb = j0 / block; kb < nb; ++kb) {
              run_max[std::size_t(i0 + r) * nb + kb] = m_new;  // carried past the diagonal
              run_sum[std::size_t(i0 + r) * nb + kb] = l[r];
            }
          }
          kernels::gemm(rows, hd, cols, s.data(), cols, v + std::size_t(j0) * ld, ld, pv.data(),
                        hd);  // p @ v_blk
          for (int r = 0; r < rows; ++r)
            for (int d = 0; d < hd; ++d) {
              float& a = acc[std::size_t(r) * hd + d];
              a = a * alpha[r] + pv[std::size_t(r) * hd + d];
            }
        }
        for (int r = 0; r < rows; ++r)  // acc / l, where the heads sit side by side
          for (int d = 0; d < hd; ++d)
            out.context_vec.data[(static_cast<std::size_t>(b) * T + i0 + r) * D + h * hd + d] =
                acc[std::size_t(r) * hd + d] / l[r];
      }
    }
  }
  return out;
}

std::string part_error(Part part, const Config& c) {
  if (part != Part::Mha && part != Part::Qkv && part != Part::Einsum && part != Part::TorchMha &&
      part != Part::Flash && !needs_mha(part))
    return "";
  if (std::string e = mha_error(c); !e.empty()) return e;
  if (part != Part::TorchMha) return "";
  if (c.d_in() != c.d_out)
    return cat({"nn.MultiheadAttention needs \"d_out\" equal to d_in, its embed_dim (got d_in ",
                decimal(c.d_in()), ", d_out ", decimal(c.d_out), ")"});
  if (c.qkv_bias)
    return "nn.MultiheadAttention runs without \"qkv_bias\" here: the notebook's add_bias_kv "
           "appends a learned key and value to every sequence";
  return "";
}

int bonus_leading(std::string_view id) {
  if (id == "einsum.scores" || id == "flash.running_max" || id == "flash.running_sum") return 2;
  const auto ends = [&](std::string_view tail) {
    return id.size() >= tail.size() && id.substr(id.size() - tail.size()) == tail;
  };
  if (id == "qkv.qkv" || id == "torchmha.attn_weights" || id == "flash.difference" ||
      ends("context_vecs") || ends("context_vec"))
    return 1;
  return 0;
}

}  // namespace ca
