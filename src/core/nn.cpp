#include "nn.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention.hpp"
#include "kernels.hpp"
#include "parallel.hpp"
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

namespace {

// y (..., n) = x (..., k) @ w_t^T for w_t (n, k), every leading dim of x folded into rows; plus
// bias (n) when given. nn.Linear passes its weight, matmul the transpose of its w.
// x: the values of a tensor of that shape (a shard's batch elements are read in place).
// Into y, whose buffer is reused (every value is written).
Tensor& fold_rows(const float* x, std::vector<int> shape, const MatrixIn& w_t, const float* bias,
                  const char* who, const char* what, Tensor& y) {
  const int k = int(w_t.cols()), n = int(w_t.rows());
  if (shape.empty() || shape.back() != k) {
    throw std::invalid_argument(std::string(who) + ": input has " +
                                decimal(shape.empty() ? 1 : shape.back()) + " " + what +
                                ", expected " + decimal(k));
  }
  const int rows = static_cast<int>(Tensor::numel_of(shape) / k);
  shape.back() = n;
  y.shape = std::move(shape);
  y.data.resize(Tensor::numel_of(y.shape));
#ifndef __EMSCRIPTEN__
  // Natively on the projections' split (linears_forward: 2 blocks of columns per worker, so a
  // caller whose worker is late takes the blocks left), e.g. MultiHeadAttention's out_proj.
  if (w_t.outerStride() == k) {
    const LinearOut out = {y.data.data(), w_t.data(), bias, n};
    linears_forward(x, rows, k, &out, 1);
    return y;
  }
#endif
  linear_forward(MatrixMap(y.data.data(), rows, n), ConstMatrixMap(x, rows, k), w_t, bias);
  return y;
}

Tensor fold_rows(const float* x, std::vector<int> shape, const MatrixIn& w_t, const float* bias,
                 const char* who, const char* what) {
  Tensor y;
  return std::move(fold_rows(x, std::move(shape), w_t, bias, who, what, y));
}

Tensor fold_rows(const Tensor& x, const MatrixIn& w_t, const float* bias, const char* who,
                 const char* what) {
  return fold_rows(x.data.data(), x.shape, w_t, bias, who, what);
}

// Columns [c0, c1) of linear l's output alone: each is the same in-order sum as in l(x).
Tensor columns(const Linear& l, const float* x, std::vector<int> shape, int c0, int c1) {
  return fold_rows(x, std::move(shape), l.weight.matrix().middleRows(c0, c1 - c0),
                   l.bias ? l.bias->data.data() + c0 : nullptr, "Linear", "features");
}

Tensor columns(const Linear& l, const Tensor& x, int c0, int c1) {
  return columns(l, x.data.data(), x.shape, c0, c1);
}

#ifndef __EMSCRIPTEN__
// The queries', keys' and values' linears of x into a module's buffers (AttentionScratch: the
// same pages on every call), in one loop over the threads (linears_forward), with l(x)'s bits.
void project(const Linear& query, const Linear& key, const Linear& value, const Tensor& x,
             AttentionScratch& scratch) {
  LinearOut outs[3];
  Tensor* kept[] = {&scratch.queries, &scratch.keys, &scratch.values};
  const Linear* linears[] = {&query, &key, &value};
  const int k = x.shape.empty() ? 1 : x.shape.back();
  for (int i = 0; i < 3; ++i) {
    const Linear& l = *linears[i];
    const int n = l.weight.shape[0];
    if (x.shape.empty() || k != l.weight.shape[1]) {
      throw std::invalid_argument("Linear: input has " + decimal(k) + " features, expected " +
                                  decimal(l.weight.shape[1]));
    }
    kept[i]->shape = x.shape;
    kept[i]->shape.back() = n;
    kept[i]->data.resize(Tensor::numel_of(kept[i]->shape));
    outs[i] = {kept[i]->data.data(), l.weight.data.data(), l.bias ? l.bias->data.data() : nullptr,
               n};
  }
  linears_forward(x.data.data(), int(x.numel() / k), k, outs, 3);
}
#endif

}  // namespace

Tensor Linear::operator()(const Tensor& x) const { return columns(*this, x, 0, weight.rows()); }

namespace {

void check_dropout(double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument("dropout probability has to be between 0 and 1, but got " +
                                shortest(p));
  }
}

bool all_finite(const float* x, std::size_t n) {
#ifdef __EMSCRIPTEN__
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
#else
  // Branch-free, so the compiler vectorises it: an exponent of all ones (inf, NaN) plus one in its
  // lowest bit carries into the sign bit, and nothing else does. A branch per float was 0.5% of a
  // (1, 1024, 768) CausalAttention forward's cycles (the values' check before the context).
  std::uint32_t carry = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    carry |= (bits & 0x7f800000u) + 0x00800000u;
  }
  return (carry & 0x80000000u) == 0;
#endif
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
  const float one_minus_p = static_cast<float>(1.0 - p);
  for (std::size_t i = 0; i < y.numel(); ++i) y.data[i] *= noise.data[i] / one_minus_p;
  return y;
}

Tensor matmul(const Tensor& x, const Tensor& w) {
  // linear_forward multiplies by weight^T: hand it w^T (n, k), the product is x @ w.
  const RowMatrix w_t = w.matrix().transpose();
  return fold_rows(x, w_t, nullptr, "matmul", "columns");
}

namespace {

Tensor rand_parameter(int d_in, int d_out, Generator& gen) {
  Tensor w({d_in, d_out});
  uniform_(w, 0.0, 1.0, gen);  // torch.rand
  return w;
}

// SelfAttention_v1's and v2's forward after the projections: queries, keys, values (T, d_out)
// -> context (T, d_out), by attention.hpp's passes 2, 4 and 5 (no mask).
Tensor self_attention(const Tensor& queries, const Tensor& keys, const Tensor& values, bool scale) {
  const int T = queries.rows(), d_out = keys.cols();
  Tensor scores({T, T}), weights({T, T}), context({T, d_out});
  scores_forward(scores.matrix(), queries.matrix(), keys.matrix());
  softmax_forward(weights.matrix(), scores.matrix(), score_divisor(d_out, scale));
  context_forward(context.matrix(), weights.matrix(), values.matrix());
  return context;
}

}  // namespace

SelfAttentionV1::SelfAttentionV1(int d_in, int d_out, Generator& gen)
    : W_query(rand_parameter(d_in, d_out, gen)),
      W_key(rand_parameter(d_in, d_out, gen)),
      W_value(rand_parameter(d_in, d_out, gen)) {}

SelfAttentionV1::SelfAttentionV1(Tensor w_query, Tensor w_key, Tensor w_value)
    : W_query(std::move(w_query)), W_key(std::move(w_key)), W_value(std::move(w_value)) {}

Tensor SelfAttentionV1::forward(const Tensor& x, bool scale) const {
  const Tensor keys = matmul(x, W_key), queries = matmul(x, W_query),
               values = matmul(x, W_value);  // (T, d_out)
  return self_attention(queries, keys, values, scale);
}

SelfAttentionV2::SelfAttentionV2(int d_in, int d_out, bool qkv_bias, Generator& gen)
    : W_query(d_in, d_out, qkv_bias, gen),
      W_key(d_in, d_out, qkv_bias, gen),
      W_value(d_in, d_out, qkv_bias, gen) {}

Tensor SelfAttentionV2::forward(const Tensor& x, bool scale) const {
  const Tensor queries = W_query(x), keys = W_key(x), values = W_value(x);  // (T, d_out)
  return self_attention(queries, keys, values, scale);
}

CausalAttention::CausalAttention(int d_in, int d_out, int context_length_, double dropout,
                                 bool qkv_bias, Generator& gen)
    : W_query(d_in, d_out, qkv_bias, gen),
      W_key(d_in, d_out, qkv_bias, gen),
      W_value(d_in, d_out, qkv_bias, gen),
      dropout_p(dropout),
      context_length(context_length_) {}

#ifndef __EMSCRIPTEN__
CausalSplit causal_split(double pairs, double T, double hd) {
  const int threads = parallel_workers(std::numeric_limits<std::size_t>::max());
  const double pair = T * T * hd;  // multiply-adds of a pair's two products, halved
  if (threads <= 1 || pairs * pair < kCausalSplitWork) return {1, 1};
  // Whole pairs per worker when they keep every worker busy to the end (at most a quarter of
  // the workers' turns idle), or are many: one loop, no barrier inside a pair. Each worker's
  // (T, T) is the module's scratch, fresh on its first call only (a page fault per 1024 floats).
  // A pair split within, 3 loops of short items per pair, mostly ran on the caller alone on a
  // busy machine: MultiHeadAttention (1, 1024, 768, 12) on 2 threads, load 8, CPU min 164 ms
  // vs 139 by pairs; 'ideal' (parallel.hpp) 115 vs 71.
  const double turns = std::ceil(pairs / threads) * threads;
  if (pairs >= 8.0 * threads || (pairs >= threads && turns <= 1.25 * pairs))
    return {parallel_workers(static_cast<std::size_t>(pairs)), 1};
  return {1, pair < kCausalSplitWork ? 1 : threads};
}
#endif

CausalBlocks causal_blocks(int T, int hd, int within) {
  const int mr = kernels::tile_rows();
  const int rows = std::max(mr, (T + 4 * within - 1) / (4 * within) + mr - 1) / mr * mr;
  const auto sixteens = [](int n, int parts) {
    return std::max(16, (n + parts - 1) / parts + 15) / 16 * 16;
  };
  return {sixteens(T, 2 * within), rows, (T + rows - 1) / rows, sixteens(hd, within)};
}

namespace {

// The T rows of hd floats, ld apart, at x.
bool all_finite(const float* x, int T, int hd, int ld) {
  for (int t = 0; t < T; ++t)
    if (!all_finite(x + static_cast<std::size_t>(t) * ld, std::size_t(hd))) return false;
  return true;
}

// Rows [r0, r1) of the (T, T) m: the masked cells (above the diagonal) set to v, but for the
// `full` rows (those causal_softmax_forward ran whole: a NaN row's) when given.
void fill_masked(float* m, int T, int r0, int r1, float v, const unsigned char* full = nullptr) {
  for (int i = r0; i < r1; ++i)
    if (!full || !full[i]) std::fill(m + std::size_t(i) * T + i + 1, m + std::size_t(i + 1) * T, v);
}

// The causal attention of CausalAttention (H = 1) and MultiHeadAttention: queries, keys and
// values (B, T, D) hold H heads of hd = D / H side by side; context (B, T, D) gets each
// (batch, head) pair's attn_weights @ values where .transpose(1, 2).contiguous().view(B, T, D)
// puts it. The masked upper triangle is skipped in every pass: its weights are exactly +0 (see
// causal_softmax_forward), and a +0 term changes no sum; rows with a NaN run whole (`full`).
// Every output is the same in-order sum on any split over threads (causal_split), in one of
// three ways:
//   1. `whole`: dropout (p != 0, training), or every pair's weights kept. The (B, H, T, T)
//      weights at once, the pairs over the workers; then dropout over all of them, as
//      nn.Dropout draws (every draw in order, masked cells included, on this thread); then
//      the context, the pairs over the workers again.
//   2. split.within > 1 (few, large pairs): one pair at a time in one (T, T) buffer, its rows
//      in blocks over the workers, then its context's columns.
//   3. Otherwise the pairs over split.pairs workers, each with a (T, T) of its own: scores,
//      turned into weights in place, then the context.
// `trace` may ask for the (B, H, T, T) scores (masked with -inf), the weights of every pair or
// of the first few, and no context.
void causal_heads(Tensor& context, const Tensor& queries, const Tensor& keys, const Tensor& values,
                  int H, float divisor, double p, bool training, Generator& gen, DropoutRng rng,
                  AttentionScratch& scratch, MultiHeadAttention::Trace* trace = nullptr,
                  TraceKeep keep = {}) {
  const int B = queries.shape[0], T = queries.shape[1], D = queries.shape[2], hd = D / H;
  const std::size_t TT = std::size_t(T) * T, BH = std::size_t(B) * H;
  const bool keep_scores = trace && keep.scores;
  // The weights of the first `kept` pairs are kept: every pair's (keep_weights), or a few,
  // written in place of the scratch buffer (a shard's first heads, no dropout).
  const std::size_t kept = !trace || !keep.weights ? 0
                           : keep.weight_pairs < 0 ? BH
                                                   : std::min(BH, std::size_t(keep.weight_pairs));
  const bool keep_weights = kept == BH && kept != 0;
  // combined: the context is computed; softmax: the scores become weights (scores alone: not).
  const bool combined = !trace || keep.context, softmax = combined || kept != 0;
  const bool drop = softmax && training && p != 0.0 && BH * TT != 0, whole = drop || keep_weights;
  const CausalSplit split = causal_split(BH, T, hd);
  // Path 1 splits its pairs over the workers whenever causal_split would split at all.
  const int workers = !whole                                ? split.pairs
                      : split.pairs > 1 || split.within > 1 ? parallel_workers(BH)
                                                            : 1;
  if (keep_scores) trace->attn_scores = Tensor({B, H, T, T});
  if (keep_weights)
    trace->attn_weights = Tensor({B, H, T, T});
  else if (kept != 0)
    trace->attn_weights = Tensor({1, int(kept), T, T});
  // Scores only (no softmax) go to the trace; weights need a buffer of their own unless kept.
  if (!keep_weights && softmax) scratch.weights.resize(whole ? BH * TT : workers * TT);
  scratch.full_rows.resize(whole ? BH * T : workers * T);
  float* const weights = keep_weights ? trace->attn_weights.data.data() : scratch.weights.data();
  // Pair bh's first float in queries, keys, values and context: batch bh / H, head bh % H.
  const auto at = [&](std::size_t bh) { return (bh / H) * T * D + (bh % H) * hd; };
  // Pair bh's rows [r0, r1) of scores: softmax into w. Masked cells as masked_fill and softmax
  // leave them where kept.
  const auto normalize = [&](std::size_t bh, float* w, float* scores, unsigned char* full, int r0,
                             int r1) {
    if (softmax) causal_softmax_forward(w, T, scores, T, T, divisor, full, r0, r1);
    if (keep_scores) fill_masked(scores, T, r0, r1, -std::numeric_limits<float>::infinity());
    if (bh < kept) fill_masked(w, T, r0, r1, 0.0f, full);
  };
  // Pair bh's rows [r0, r1): scores (into w when not kept), then normalize.
  const auto attend = [&](std::size_t bh, float* w, unsigned char* full, int r0, int r1) {
    float* scores = keep_scores ? trace->attn_scores.data.data() + bh * TT : w;
    const float *q = queries.data.data() + at(bh) + std::size_t(r0) * D,
                *k = keys.data.data() + at(bh);
    float* row = scores + std::size_t(r0) * T;  // columns j < r0 whole, then the triangle
    if (r0 > 0) kernels::gemm_nt(r1 - r0, r0, hd, q, D, k, D, row, T);
    kernels::gemm_nt(r1 - r0, r1 - r0, hd, q, D, k + std::size_t(r0) * D, D, row + r0, T,
                     kernels::Tri::LowerOut);
    normalize(bh, w, scores, full, r0, r1);
  };
  // Pair bh's context, columns [c0, c1). Where values has an inf or NaN the masked zeros
  // count (0 * inf is NaN): they are written and every row runs whole. `finite`: whether the
  // values are all finite, where the caller has found it (and then written the zeros), else -1.
  const auto combine = [&](std::size_t bh, float* w, const unsigned char* full, int c0, int c1,
                           int finite) {
    const float* v = values.data.data() + at(bh);
    float* ctx = context.data.data() + at(bh) + c0;
    if (finite == 0 || (finite < 0 && !all_finite(v, T, hd, D))) {
      if (finite < 0) fill_masked(w, T, 0, T, 0.0f, full);
      kernels::gemm(T, c1 - c0, T, w, T, v + c0, D, ctx, D);
      return;
    }
    kernels::gemm(T, c1 - c0, T, w, T, v + c0, D, ctx, D, kernels::Tri::LowerK);
    for (int i = 0; i < T; ++i)
      if (full[i])
        kernels::gemm(1, c1 - c0, T, w + std::size_t(i) * T, T, v + c0, D, ctx + std::size_t(i) * D,
                      D);
  };
  const auto kept_or = [&](std::size_t bh, float* buffer) {
    return bh < kept ? trace->attn_weights.data.data() + bh * TT : buffer;
  };
  if (!whole && split.within > 1) {  // 2. a pair at a time, on every worker, in one buffer
    const CausalBlocks b = causal_blocks(T, hd, split.within);
    const int rows = b.rows, blocks = b.blocks, cols = b.cols, score_cols = b.score_cols;
    // Whether each block's rows of the values are finite: found by the block's worker, not on
    // one thread before the columns' split, nor again by each column's item (combine).
    std::vector<unsigned char> finite_rows(blocks);
    for (std::size_t bh = 0; bh < BH; ++bh) {
      float* w = softmax ? kept_or(bh, weights) : nullptr;
      float* scores = keep_scores ? trace->attn_scores.data.data() + bh * TT : w;
      // The scores by columns: block [c0, c1) is rows c0.. (a triangle, then whole rows), each
      // of the keys' columns packed once as for the whole pair (a row block [r0, r1) packed
      // columns [0, r1): +15-30% CPU time at (1, 1024, 768) on 2 threads).
      parallel_for((T + score_cols - 1) / score_cols, split.within, [&](std::size_t i, int) {
        const int c0 = int(i) * score_cols, c1 = std::min(T, c0 + score_cols);
        const std::size_t c = at(bh) + std::size_t(c0) * D;
        kernels::gemm_nt(T - c0, c1 - c0, hd, queries.data.data() + c, D, keys.data.data() + c, D,
                         scores + std::size_t(c0) * T + c0, T, kernels::Tri::LowerOut);
      });
      parallel_for(blocks, split.within, [&](std::size_t i, int) {
        const int r0 = (blocks - 1 - int(i)) * rows, r1 = std::min(T, r0 + rows);
        normalize(bh, w, scores, scratch.full_rows.data(), r0, r1);
        const float* v = values.data.data() + at(bh) + std::size_t(r0) * D;
        if (combined) finite_rows[i] = all_finite(v, r1 - r0, hd, D);
      });
      if (!combined) continue;
      const int finite =
          std::all_of(finite_rows.begin(), finite_rows.end(), [](unsigned char f) { return f; });
      if (!finite) fill_masked(w, T, 0, T, 0.0f, scratch.full_rows.data());  // before the split
      parallel_for((hd + cols - 1) / cols, split.within, [&](std::size_t i, int) {
        combine(bh, w, scratch.full_rows.data(), int(i) * cols, std::min(hd, int(i + 1) * cols),
                finite);
      });
    }
    return;
  }
  // 1. and 3.: a pair at a time per worker, into every pair's weights (whole) or the worker's
  // (T, T).
  parallel_for(BH, workers, [&](std::size_t bh, int worker) {
    const std::size_t slot = whole ? bh : std::size_t(worker);
    float* w = !softmax ? nullptr : kept_or(bh, weights + slot * TT);  // scores only: none
    unsigned char* full = scratch.full_rows.data() + slot * T;
    attend(bh, w, full, 0, T);
    if (combined && !whole) combine(bh, w, full, 0, hd, -1);
  });
  if (!whole) return;
  if (drop) {
    check_dropout(p);
    const float one_minus_p = static_cast<float>(1.0 - p);  // noise.div_(1 - p) in float32
    if (p != 1.0) {
      scratch.noise.shape = {int(BH), T, T};
      scratch.noise.data.resize(BH * TT);
      bernoulli_(scratch.noise, 1.0 - p, gen, rng);  // every draw, in order, on this thread
    }
    // The masked cells are +0 and stay +0 (+0 times a finite number); only a full row runs whole.
    parallel_for(BH, workers, [&](std::size_t bh, int) {
      for (std::size_t row = bh * T; row < (bh + 1) * T; ++row) {
        const std::size_t n = scratch.full_rows[row] ? T : row % T + 1;
        float* w = weights + row * T;
        if (p == 1.0) {
          for (std::size_t j = 0; j < n; ++j) w[j] *= 0.0f;
        } else {
          const float* noise = scratch.noise.data.data() + row * T;
          for (std::size_t j = 0; j < n; ++j) w[j] *= noise[j] / one_minus_p;
        }
      }
    });
  }
  if (!combined) return;
  parallel_for(BH, workers, [&](std::size_t bh, int) {
    combine(bh, weights + bh * TT, scratch.full_rows.data() + bh * T, 0, hd, -1);
  });
}

}  // namespace

Tensor CausalAttention::forward(const Tensor& x, Generator& gen) const {
  if (x.dim() != 3)
    throw std::invalid_argument("CausalAttention: input must be (b, num_tokens, d_in)");
  const int B = x.shape[0], T = x.shape[1], d_out = W_query.weight.shape[0];
  if (T > context_length) {
    throw std::invalid_argument("CausalAttention: " + decimal(T) +
                                " tokens exceed context_length " + decimal(context_length));
  }
  check_dropout(dropout_p);
#ifdef __EMSCRIPTEN__  // fresh projections: see AttentionScratch's
  const Tensor queries = W_query(x), keys = W_key(x), values = W_value(x);  // (B, T, d_out)
#else
  project(W_query, W_key, W_value, x, scratch);
  const Tensor &queries = scratch.queries, &keys = scratch.keys, &values = scratch.values;
#endif
  Tensor context({B, T, d_out});
  causal_heads(context, queries, keys, values, 1, score_divisor(d_out, scale), dropout_p, training,
               gen, rng, scratch);
  return context;
}

MultiHeadAttentionWrapper::MultiHeadAttentionWrapper(int d_in, int d_out, int context_length,
                                                     double dropout, int num_heads, bool qkv_bias,
                                                     Generator& gen) {
  heads.reserve(num_heads);
  for (int h = 0; h < num_heads; ++h)  // nn.ModuleList([...]): head 0 draws first
    heads.emplace_back(d_in, d_out, context_length, dropout, qkv_bias, gen);
}

Tensor MultiHeadAttentionWrapper::forward(const Tensor& x, Generator& gen) const {
  // Heads that draw no dropout are independent: one per worker, each computed as alone. Heads
  // that draw run in order (head h's draws follow head h - 1's), each splitting its own work.
  const bool draws = std::any_of(heads.begin(), heads.end(), [](const CausalAttention& h) {
    return h.training && h.dropout_p != 0.0;
  });
  std::vector<Tensor> outs(heads.size());
  const auto head = [&](std::size_t h, int) {
    outs[h] = heads[h].forward(x, gen);
    heads[h].scratch.release();
  };
  if (draws) {
    for (std::size_t h = 0; h < heads.size(); ++h) head(h, 0);
  } else {
    parallel_for(heads.size(), head);
  }
  const int H = static_cast<int>(heads.size()), d = outs.at(0).cols();
  const int rows = static_cast<int>(outs[0].numel() / d);  // B * T
  std::vector<int> shape = outs[0].shape;
  shape.back() = H * d;
  Tensor y(shape);
  for (int r = 0; r < rows; ++r)  // torch.cat(dim=-1): each row is head 0's, then head 1's, ...
    for (int h = 0; h < H; ++h)
      std::copy_n(outs[h].data.begin() + static_cast<std::size_t>(r) * d, d,
                  y.data.begin() + (static_cast<std::size_t>(r) * H + h) * d);
  return y;
}

namespace {

int divisible(int d_out, int num_heads) {
  if (num_heads < 1 || d_out % num_heads != 0) {
    throw std::invalid_argument("MultiHeadAttention: d_out must be divisible by num_heads (d_out " +
                                decimal(d_out) + ", num_heads " + decimal(num_heads) + ")");
  }
  return d_out;
}

}  // namespace

Tensor split_heads(const Tensor& x, int H) {
  const int B = x.shape[0], T = x.shape[1], hd = x.shape[2] / H;
  Tensor y({B, H, T, hd});
  auto out = y.data.begin();
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t, out += hd)
        std::copy_n(x.data.begin() + (static_cast<std::size_t>(b) * T + t) * H * hd + h * hd, hd,
                    out);
  return y;
}

MultiHeadAttention::MultiHeadAttention(int d_in, int d_out, int context_length_, double dropout,
                                       int num_heads_, bool qkv_bias, Generator& gen)
    : W_query(d_in, divisible(d_out, num_heads_), qkv_bias, gen),  // the book asserts first
      W_key(d_in, d_out, qkv_bias, gen),
      W_value(d_in, d_out, qkv_bias, gen),
      out_proj(d_out, d_out, true, gen),
      num_heads(num_heads_),
      head_dim(d_out / num_heads_),
      dropout_p(dropout),
      context_length(context_length_) {}

MultiHeadAttention::MultiHeadAttention(Linear query, Linear key, Linear value, Linear out,
                                       int context_length_, double dropout, int num_heads_)
    : W_query(std::move(query)),
      W_key(std::move(key)),
      W_value(std::move(value)),
      out_proj(std::move(out)),
      num_heads(num_heads_),
      head_dim(divisible(W_query.weight.shape[0], num_heads_) / num_heads_),
      dropout_p(dropout),
      context_length(context_length_) {}

namespace {

void check_input(const std::vector<int>& shape, int context_length) {
  if (shape.size() != 3)
    throw std::invalid_argument("MultiHeadAttention: input must be (b, num_tokens, d_in)");
  if (shape[1] > context_length) {
    throw std::invalid_argument("MultiHeadAttention: " + decimal(shape[1]) +
                                " tokens exceed context_length " + decimal(context_length));
  }
}

}  // namespace

float MultiHeadAttention::prescaled(Tensor& queries) const {
  const float divisor = score_divisor(head_dim, scale);
  if (!prescale) return divisor;
  for (float& q : queries.data) q /= divisor;  // q_scaled = q / math.sqrt(E), in float32
  return 1.0f;
}

Tensor MultiHeadAttention::forward(const Tensor& x, Generator& gen) const {
  check_input(x.shape, context_length);
#ifdef __EMSCRIPTEN__  // as in CausalAttention::forward
  Tensor queries = W_query(x);
  const Tensor keys = W_key(x), values = W_value(x);  // (B, T, d_out)
  const float divisor = prescaled(queries);
  Tensor context(queries.shape);
#else
  project(W_query, W_key, W_value, x, scratch);
  Tensor& queries = scratch.queries;
  const Tensor &keys = scratch.keys, &values = scratch.values;
  Tensor& context = scratch.context;  // every value is written
  context.shape = queries.shape;
  context.data.resize(queries.numel());
  const float divisor = prescaled(queries);
#endif
  causal_heads(context, queries, keys, values, num_heads, divisor, dropout_p, training, gen, rng,
               scratch);
  return out_proj(context);
}

MultiHeadAttention::Trace MultiHeadAttention::trace(const Tensor& x, Generator& gen,
                                                    TraceKeep keep) const {
  return trace(x, gen, keep, Shard{});
}

MultiHeadAttention::Trace MultiHeadAttention::trace(const Tensor& x, Generator& gen, TraceKeep keep,
                                                    Shard s) const {
  check_input(x.shape, context_length);
  const std::size_t b0 = s.b0 >= 0 && s.b0 < x.shape[0] ? s.b0 : 0;  // else trace_rows throws
  // Batch elements [b0, b1), read in place (a copy was 3 MB more fresh memory per GPT-2 shard).
  return trace_rows(x.data.data() + b0 * x.shape[1] * x.shape[2], x.shape, gen, keep, s);
}

MultiHeadAttention::Trace MultiHeadAttention::trace_copies(const Tensor& rows, int B,
                                                           Generator& gen, TraceKeep keep,
                                                           Shard s) const {
  if (rows.dim() != 2 || s.b1 - s.b0 != 1)
    throw std::invalid_argument("MultiHeadAttention: copies of (T, d_in) rows, one element");
  return trace_rows(rows.data.data(), {B, rows.shape[0], rows.shape[1]}, gen, keep, s);
}

MultiHeadAttention::Trace MultiHeadAttention::trace_rows(const float* xs,
                                                         const std::vector<int>& shape,
                                                         Generator& gen, TraceKeep keep,
                                                         Shard s) const {
  check_input(shape, context_length);
  const int B = shape[0], T = shape[1], d_in = shape[2];
  if (s.b1 < 0) s.b1 = B;
  if (s.h1 < 0) s.h1 = num_heads;
  if (s.b0 < 0 || s.b0 >= s.b1 || s.b1 > B || s.h0 < 0 || s.h0 >= s.h1 || s.h1 > num_heads ||
      s.weight_heads == 0 || s.weight_heads < -1 || s.weight_heads > s.h1 - s.h0)
    throw std::invalid_argument("MultiHeadAttention: shard out of range");
  const bool every_head = s.h0 == 0 && s.h1 == num_heads,
             unsharded = every_head && s.b1 - s.b0 == B;
  if ((!unsharded || s.weight_heads >= 0) && training && dropout_p != 0.0)
    throw std::invalid_argument("MultiHeadAttention: a shard cannot draw dropout");
  const std::vector<int> rows = {s.b1 - s.b0, T, d_in};
  const int c0 = s.h0 * head_dim, c1 = s.h1 * head_dim;         // the shard's heads' columns
  const int H = s.h1 - s.h0;                                    // (B', T, H * hd)
  if (s.weight_heads >= 0) keep.weight_pairs = s.weight_heads;  // batch element b0's first heads
  // The heads in groups of G: all at once, or on one thread with nothing but the context asked
  // for (and maybe b0's first heads' weights) one at a time, each reading its hd columns of
  // queries, keys and values (the same sums): 0.75 MB at GPT-2's size instead of 9 MB of fresh
  // memory. A group's queries, keys and values are gone before out_proj's (B', T, d_out).
  const int nb = s.b1 - s.b0,
            G = keep.context && !keep.heads && !keep.scores &&
                        (!keep.weights || (keep.weight_pairs >= 0 && keep.weight_pairs <= H)) &&
                        !(training && dropout_p != 0.0) &&
                        parallel_workers(std::size_t(nb) * H) == 1
                    ? 1
                    : H;
  const int kept = G < H && keep.weights ? keep.weight_pairs : 0;  // heads, one group each
  Trace t, one;
  if (keep.context) t.context_vec = Tensor({nb, T, c1 - c0});
  if (kept > 1) t.attn_weights = Tensor({1, kept, T, T});
  for (int g = 0; g < H; g += G) {
    const int a = c0 + g * head_dim, b = a + G * head_dim;
    Tensor queries = columns(W_query, xs, rows, a, b);
    const Tensor keys = columns(W_key, xs, rows, a, b), values = columns(W_value, xs, rows, a, b);
    const float divisor = prescaled(queries);
    Tensor context = G < H && keep.context ? Tensor(queries.shape) : Tensor();
    TraceKeep k = keep;
    if (G < H) {
      k.weights = g < kept;
      k.weight_pairs = 1;  // batch element b0's
    }
    if (keep.context || keep.scores || keep.weights)
      causal_heads(G < H ? context : t.context_vec, queries, keys, values, G, divisor, dropout_p,
                   training, gen, rng, scratch, G < H ? &one : &t, k);
    if (keep.heads) {
      t.queries = split_heads(queries, H);  // (B', H, T, hd)
      t.keys = split_heads(keys, H);
      t.values = split_heads(values, H);
    }
    if (g < kept && kept == 1) t.attn_weights = std::move(one.attn_weights);
    if (g < kept && kept > 1)
      std::copy(one.attn_weights.data.begin(), one.attn_weights.data.end(),
                t.attn_weights.data.begin() + std::size_t(g) * T * T);
    for (std::size_t r = 0; G < H && keep.context && r < std::size_t(nb) * T; ++r)
      std::copy_n(context.data.begin() + r * head_dim, head_dim,
                  t.context_vec.data.begin() + r * (c1 - c0) + std::size_t(g) * head_dim);
  }
  if (keep.context && every_head) {
    scratch.release();
    t.context_vecs = out_proj(t.context_vec);
  }
  return t;
}

}  // namespace ca
