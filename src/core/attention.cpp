#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "parallel.hpp"
#include "reduce.hpp"

namespace ca {

namespace {

using kernels::Tri;

// Products this small run on one thread: waking a worker costs about as much.
constexpr double kParallelWork = 1 << 18;
#ifndef __EMSCRIPTEN__  // (WASM has one thread)
// A product split by columns gives each worker at least 2 blocks of this many (product(),
// linears_forward()); narrower ones split their rows.
constexpr int kColumns = 64;
#endif

// out (m, n) = a (m, k) @ b (k, n) (bt false) or a @ b (n, k)^T (bt true), in BLAS's order
// (kernels.hpp), split over threads: every output is still one in-order sum, so the bits do not
// depend on the split. Wide outputs split their columns, in blocks of 64: each worker packs only
// its columns of b (split by rows, every worker packed all of it: 0.26 ms per 768 x 768 weight)
// and reads all of a in place, as many times as a row split does. Narrow ones split their rows
// in blocks of whole tiles.
void product(MatrixMap out, const MatrixIn& a, const MatrixIn& b, bool bt) {
  const int m = int(out.rows()), n = int(out.cols()), k = int(a.cols());
  const auto part = [&](int r0, int r1, int c0, int c1) {
    const float* ar = a.data() + long(r0) * a.outerStride();
    const float* bc = b.data() + long(c0) * (bt ? b.outerStride() : 1);
    float* cr = out.data() + long(r0) * out.outerStride() + c0;
    (bt ? kernels::gemm_nt : kernels::gemm)(r1 - r0, c1 - c0, k, ar, int(a.outerStride()), bc,
                                            int(b.outerStride()), cr, int(out.outerStride()),
                                            Tri::Full);
  };
  const int mr = kernels::tile_rows(), tiles = (m + mr - 1) / mr;
  const int workers = double(m) * n * k < kParallelWork ? 1 : parallel_workers(tiles);
  if (workers <= 1) return part(0, m, 0, n);
#ifndef __EMSCRIPTEN__
  if (n >= 2 * kColumns * workers) {  // an item per worker, of whole blocks of columns
    const int blocks = (n + kColumns - 1) / kColumns;
    return parallel_for(workers, workers, [&](std::size_t i, int) {
      part(0, m, int(i * blocks / workers) * kColumns,
           std::min(n, int((i + 1) * blocks / workers) * kColumns));
    });
  }
#endif
  // An item per worker, of whole tiles, as even as they split.
  parallel_for(workers, workers, [&](std::size_t i, int) {
    part(int(i * tiles / workers) * mr, std::min(m, int((i + 1) * tiles / workers) * mr), 0, n);
  });
}

void matmul(MatrixMap out, const MatrixIn& a, const MatrixIn& b) { product(out, a, b, false); }

void matmul_transposed(MatrixMap out, const MatrixIn& a, const MatrixIn& b) {
  product(out, a, b, true);
}

}  // namespace

void linear_forward(MatrixMap y, const MatrixIn& x, const MatrixIn& weight, const float* bias) {
  matmul_transposed(y, x, weight);
  if (bias != nullptr) {  // added after the dot product, as addmm's sgemm does
    const Eigen::Map<const Eigen::RowVectorXf> b(bias, weight.rows());
    y.rowwise() += b;
  }
}

void linears_forward(const float* x, int m, int k, const LinearOut* outs, int count) {
#ifndef __EMSCRIPTEN__
  // product()'s column split, each linear's columns in 2 blocks per worker of whole 16s (4 of
  // 192 at n = 768 on 2: as many passes over x as 2 of 384, each 256 + 128 wide), the blocks of
  // every linear in one loop: one wake-up, and a caller whose worker is late (a busy machine)
  // takes the blocks left instead of waiting at the end of each linear.
  const int mr = kernels::tile_rows(), workers = parallel_workers((m + mr - 1) / mr);
  bool columns = workers > 1;
  for (int i = 0; i < count; ++i)
    columns = columns && double(m) * outs[i].n * k >= kParallelWork &&
              outs[i].n >= 2 * kColumns * workers;
  if (columns) {
    const int parts = 2 * workers;
    return parallel_for(std::size_t(count) * parts, workers, [&](std::size_t item, int) {
      const LinearOut& o = outs[item / parts];
      const int width = ((o.n + parts - 1) / parts + 15) / 16 * 16, p = int(item % parts);
      const int c0 = std::min(o.n, p * width), c1 = std::min(o.n, c0 + width);
      if (c0 == c1) return;
      kernels::gemm_nt(m, c1 - c0, k, x, k, o.w + std::size_t(c0) * k, k, o.y + c0, o.n, Tri::Full);
      if (o.bias == nullptr) return;
      for (int r = 0; r < m; ++r)  // y.rowwise() += bias, these columns' (one add each)
        for (int c = c0; c < c1; ++c) o.y[std::size_t(r) * o.n + c] += o.bias[c];
    });
  }
#endif
  for (const LinearOut* o = outs; o < outs + count; ++o)
    linear_forward(MatrixMap(o->y, m, o->n), ConstMatrixMap(x, m, k), ConstMatrixMap(o->w, o->n, k),
                   o->bias);
}

void scores_forward(MatrixMap scores, const MatrixIn& queries, const MatrixIn& keys) {
  matmul_transposed(scores, queries, keys);
}

void masked_fill(MatrixMap scores, const MatrixIn& mask) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (Eigen::Index i = 0; i < scores.rows(); ++i)
    for (Eigen::Index j = 0; j < scores.cols(); ++j)
      if (mask(i, j) != 0.0f) scores(i, j) = neg_inf;
}

Tensor causal_mask(int n) {
  Tensor mask({n, n});
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) mask.at(i, j) = 1.0f;
  return mask;
}

Tensor lower_triangle(int n) {
  Tensor tril({n, n});
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) tril.at(i, j) = 1.0f;
  return tril;
}

void multiply(MatrixMap out, const MatrixIn& a, const MatrixIn& b) { out = a.cwiseProduct(b); }

void row_sums(MatrixMap sums, const MatrixIn& a) {
  for (Eigen::Index i = 0; i < a.rows(); ++i)  // row-major: each row is contiguous
    sums(i, 0) = reduce::cascade_sum(a.data() + i * a.outerStride(), int(a.cols()));
}

void divide_rows(MatrixMap out, const MatrixIn& a, const MatrixIn& sums) {
  for (Eigen::Index i = 0; i < a.rows(); ++i) out.row(i) = a.row(i) / sums(i, 0);
}

namespace {

// The largest of x[0, n), n >= 1, or NaN when one is NaN (vec::maximum propagates NaN).
__attribute__((noinline)) float row_max_in_order(const float* x, int n) {
  float max = x[0];
  for (int j = 1; j < n; ++j) max = x[j] != x[j] || max != max ? x[j] + max : std::max(max, x[j]);
  return max;
}

// 8 lanes as two vectors of 4 (SSE2 natively, SIMD128 in WASM).
typedef float F4 __attribute__((vector_size(16)));
typedef int I4 __attribute__((vector_size(16)));
inline F4 load4(const float* p) {
  F4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// row_max_in_order's value in 8 lanes. The max is exact whatever the order; only a zero's sign
// may differ, and exp(x - max) reads it nowhere (x - (+0) and x - (-0) differ only at x = -0,
// and exp(-0) = exp(+0) = 1). A NaN anywhere runs the in-order loop: its bits are that loop's.
__attribute__((noinline)) float row_max(const float* x, int n) {
  if (n < 8) return row_max_in_order(x, n);
  F4 m0 = load4(x), m1 = load4(x + 4);
  I4 nan = (m0 != m0) | (m1 != m1);
  int j = 8;
  for (; j + 8 <= n; j += 8) {
    const F4 v0 = load4(x + j), v1 = load4(x + j + 4);
    m0 = m0 < v0 ? v0 : m0;
    m1 = m1 < v1 ? v1 : m1;
    nan |= (v0 != v0) | (v1 != v1);
  }
  bool bad = false;
  float max = m0[0];
  for (int k = 0; k < 4; ++k) bad |= nan[k] != 0;
  for (int k = 1; k < 4; ++k) max = max < m0[k] ? m0[k] : max;
  for (int k = 0; k < 4; ++k) max = max < m1[k] ? m1[k] : max;
  for (; j < n; ++j) {
    bad |= x[j] != x[j];
    max = max < x[j] ? x[j] : max;
  }
  return bad ? row_max_in_order(x, n) : max;
}

// exp(x - max) in place and times 1 / their sum, over the first n cells of a row of `width`
// whose other cells are +0 (softmax's exponentials of -inf): _vec_softmax_lastdim.
void normalise_exp(float* w, int n, int width, float max) {
  kernels::exp_shifted(w, n, max);
  const float inverse = 1.0f / reduce::vec_sum(w, n, width);
  for (int j = 0; j < n; ++j) w[j] *= inverse;
}

}  // namespace

void softmax_forward(MatrixMap weights, const MatrixIn& scores, float divisor) {
  const int n = int(weights.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    // A separate division, as `attn_scores / keys.shape[-1]**0.5` is its own tensor op.
    weights.row(i) = scores.row(i) / divisor;
    if (n > 0) normalise_exp(&weights(i, 0), n, n, row_max(&weights(i, 0), n));
  }
}

void context_forward(MatrixMap context, const MatrixIn& weights, const MatrixIn& values) {
  matmul(context, weights, values);
}

int causal_softmax_forward(float* weights, int ldw, float* scores, int lds, int T, float divisor,
                           unsigned char* full_rows, int r0, int r1) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const bool in_place = weights == scores;  // and ldw == lds
  int full = 0;
  for (int i = r0; i < (r1 < 0 ? T : r1); ++i) {
    float* w = weights + static_cast<long>(i) * ldw;
    float* s = scores + static_cast<long>(i) * lds;
    // In place by one pointer: two equal pointers would fail the vectoriser's overlap check
    // and run the scalar loop (~0.7 ms of WASM's 10 at (2, 1024, 64, 1)).
    if (in_place)
      for (int j = 0; j <= i; ++j) w[j] /= divisor;
    else
      for (int j = 0; j <= i; ++j) w[j] = s[j] / divisor;
    // The row is full when softmax_forward's max of it would be NaN, +inf or -inf (row_max
    // keeps a NaN): the masked cells, -inf, change none of these.
    const float max = row_max(w, i + 1);
    full_rows[i] = !std::isfinite(max);
    if (full_rows[i]) {
      // NaN, +inf or a row of -inf: the masked cells become NaN, not 0. The whole row, as
      // softmax_forward computes it on the masked scores: cells j <= i are its divided
      // scores already, and -inf / divisor is -inf.
      for (int j = i + 1; j < T; ++j) s[j] = w[j] = neg_inf;
      ++full;
    }
    // Else the visible cells: exp(-inf - max) = +0 for every masked cell, and summed in its
    // lane it changes nothing.
    const int n = full_rows[i] ? T : i + 1;
    normalise_exp(w, n, T, full_rows[i] ? row_max(w, T) : max);
  }
  return full;
}

float score_divisor(int d_k, bool scale) {
  return scale ? static_cast<float>(std::sqrt(static_cast<double>(d_k))) : 1.0f;
}

RowMatrix attention_forward_naive(const MatrixIn& queries, const MatrixIn& keys,
                                  const MatrixIn& values, bool causal, bool scale) {
  const Eigen::Index T = queries.rows(), d = queries.cols(), dv = values.cols();
  const double divisor = scale ? std::sqrt(static_cast<double>(d)) : 1.0;
  RowMatrix out(T, dv);
  std::vector<double> row(static_cast<std::size_t>(T));
  for (Eigen::Index i = 0; i < T; ++i) {
    const Eigen::Index visible = causal ? i + 1 : T;  // keys after token i are masked
    double max = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < visible; ++j) {
      double dot = 0.0;
      for (Eigen::Index c = 0; c < d; ++c) dot += double(queries(i, c)) * double(keys(j, c));
      row[j] = dot / divisor;
      max = std::max(max, row[j]);
    }
    double sum = 0.0;
    for (Eigen::Index j = 0; j < visible; ++j) sum += (row[j] = std::exp(row[j] - max));
    for (Eigen::Index c = 0; c < dv; ++c) {
      double acc = 0.0;
      for (Eigen::Index j = 0; j < visible; ++j) acc += row[j] / sum * double(values(j, c));
      out(i, c) = static_cast<float>(acc);
    }
  }
  return out;
}

}  // namespace ca
