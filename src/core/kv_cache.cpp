#include "kv_cache.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "attention.hpp"
#include "kernels.hpp"
#include "text.hpp"

namespace ca {

Tensor kv_mask_rows(int T) {
  Tensor rows({T, T});  // row t: mask[t, j] = (j > t) for j <= t, all 0; then the padding, 0
  for (int t = 0; t < T; ++t)
    for (int j = 0; j <= t; ++j) rows.at(t, j) = j > t ? 1.0f : 0.0f;
  return rows;
}

KvTrace generate_with_cache(const MultiHeadAttention& mha, const Tensor& x, KvKeep keep) {
  if (x.dim() != 3)
    throw std::invalid_argument("MultiHeadAttention: input must be (b, num_tokens, d_in)");
  const int B = x.shape[0], T = x.shape[1], d_in = x.shape[2], H = mha.num_heads, hd = mha.head_dim,
            D = H * hd;
  if (T > mha.context_length) {
    throw std::invalid_argument("MultiHeadAttention: " + decimal(T) +
                                " tokens exceed context_length " + decimal(mha.context_length));
  }
  const float divisor = score_divisor(hd, mha.scale),
              neg_inf = -std::numeric_limits<float>::infinity();
  KvTrace out;
  // The cache as the bonus code holds it, (B, tokens, H, hd) before transpose(1, 2): step t
  // writes row t, as torch.cat([cache_k, keys_new], dim=1) appends it.
  Tensor cache_k({B, T, D}), cache_v({B, T, D}), queries;
  if (keep.queries) queries = Tensor({B, T, D});
  if (keep.scores) out.attn_scores = Tensor({B, H, T, T}, neg_inf);
  if (keep.weights) out.attn_weights = Tensor({B, H, T, T});
  out.context_vec = Tensor({B, T, D});
  out.context_vecs = Tensor({B, T, D});
  Tensor x_t({B, 1, d_in}), context_t({B, 1, D});
  std::vector<float> scores(static_cast<std::size_t>(T)), weights(scores.size());
  const auto at = [](auto& t, int b, int row, int rows, int cols) {  // row `row` of matrix b
    return t.data.data() + (static_cast<std::size_t>(b) * rows + row) * cols;
  };
  for (int t = 0; t < T; ++t) {
    const int n = t + 1;         // tokens in the cache after this step
    for (int b = 0; b < B; ++b)  // x[:, t:t + 1], the step's one new token
      std::copy_n(at(x, b, t, T, d_in), d_in, at(x_t, b, 0, 1, d_in));
    const Tensor q = mha.W_query(x_t), k = mha.W_key(x_t), v = mha.W_value(x_t);  // (B, 1, D)
    for (int b = 0; b < B; ++b) {
      std::copy_n(k.data.data() + b * D, D, at(cache_k, b, t, T, D));
      std::copy_n(v.data.data() + b * D, D, at(cache_v, b, t, T, D));
      if (keep.queries) std::copy_n(q.data.data() + b * D, D, at(queries, b, t, T, D));
    }
    for (int b = 0; b < B; ++b) {
      for (int h = 0; h < H; ++h) {
        const float* q_bh = q.data.data() + b * D + h * hd;    // (1, hd)
        const float* k_bh = at(cache_k, b, 0, T, D) + h * hd;  // (n, hd), leading dimension D
        const float* v_bh = at(cache_v, b, 0, T, D) + h * hd;
        // queries @ keys.transpose(2, 3): one row of n scores.
        kernels::gemm_nt(1, n, hd, q_bh, D, k_bh, D, scores.data(), n);
        // masked_fill_ with mask.bool()[t : t + 1, : n]: column j is masked when j > t, and no
        // column of this row is: nothing to hide, every score stays.
        for (int j = 0; j < n; ++j)
          if (j > t) scores[j] = neg_inf;
        // softmax over the row of n: ATen's sum of n values (see kv_cache.hpp).
        softmax_forward(MatrixMap(weights.data(), 1, n), ConstMatrixMap(scores.data(), 1, n),
                        divisor);
        // attn_weights @ values: (1, n) @ (n, hd), heads side by side in context_t.
        kernels::gemm(1, hd, n, weights.data(), n, v_bh, D, context_t.data.data() + b * D + h * hd,
                      D);
        const std::size_t row = ((static_cast<std::size_t>(b) * H + h) * T + t) * T;
        if (keep.scores) std::copy_n(scores.data(), n, out.attn_scores.data.begin() + row);
        if (keep.weights) std::copy_n(weights.data(), n, out.attn_weights.data.begin() + row);
      }
    }
    const Tensor y = mha.out_proj(context_t);  // (B, 1, D)
    for (int b = 0; b < B; ++b) {
      std::copy_n(context_t.data.data() + b * D, D, at(out.context_vec, b, t, T, D));
      std::copy_n(y.data.data() + b * D, D, at(out.context_vecs, b, t, T, D));
    }
  }
  if (keep.queries) out.queries = split_heads(queries, H);
  if (keep.cache) {
    out.cache_k = split_heads(cache_k, H);
    out.cache_v = split_heads(cache_v, H);
  }
  if (!keep.context_vec) out.context_vec = Tensor();
  return out;
}

}  // namespace ca
