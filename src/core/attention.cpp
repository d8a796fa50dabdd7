#include "attention.hpp"

#include "kernels.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace ca {

namespace {

using kernels::Tri;

// out (m, n) = a (m, k) @ b (k, n) with BLAS's order (see kernels.hpp).
void matmul(MatrixMap out, const MatrixIn& a, const MatrixIn& b) {
  kernels::gemm(int(out.rows()), int(out.cols()), int(a.cols()), a.data(), int(a.outerStride()),
                b.data(), int(b.outerStride()), out.data(), int(out.outerStride()));
}

// out (m, n) = a (m, k) @ b (n, k)^T.
void matmul_transposed(MatrixMap out, const MatrixIn& a, const MatrixIn& b) {
  kernels::gemm_nt(int(out.rows()), int(out.cols()), int(a.cols()), a.data(),
                   int(a.outerStride()), b.data(), int(b.outerStride()), out.data(),
                   int(out.outerStride()));
}

}  // namespace

void linear_forward(MatrixMap y, const MatrixIn& x, const MatrixIn& weight, const float* bias) {
  matmul_transposed(y, x, weight);
  if (bias != nullptr) {  // added after the dot product, as addmm's sgemm does
    const Eigen::Map<const Eigen::RowVectorXf> b(bias, weight.rows());
    y.rowwise() += b;
  }
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
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    float sum = 0.0f;
    for (Eigen::Index j = 0; j < a.cols(); ++j) sum += a(i, j);
    sums(i, 0) = sum;
  }
}

void divide_rows(MatrixMap out, const MatrixIn& a, const MatrixIn& sums) {
  for (Eigen::Index i = 0; i < a.rows(); ++i) out.row(i) = a.row(i) / sums(i, 0);
}

void softmax_forward(MatrixMap weights, const MatrixIn& scores, float divisor) {
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    // A separate division, as `attn_scores / keys.shape[-1]**0.5` is its own tensor op.
    weights.row(i) = scores.row(i) / divisor;
    const float max = weights.row(i).maxCoeff();
    kernels::exp_shifted(&weights(i, 0), int(weights.cols()), max);  // std::exp's bits
    float sum = 0.0f;
    for (Eigen::Index j = 0; j < weights.cols(); ++j) sum += weights(i, j);  // in order
    weights.row(i) *= 1.0f / sum;
  }
}

void context_forward(MatrixMap context, const MatrixIn& weights, const MatrixIn& values) {
  matmul(context, weights, values);
}

int causal_softmax_forward(float* weights, int ldw, float* scores, int lds, int T, float divisor,
                           unsigned char* full_rows) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  int full = 0;
  for (int i = 0; i < T; ++i) {
    float* w = weights + static_cast<long>(i) * ldw;
    float* s = scores + static_cast<long>(i) * lds;
    float max = neg_inf;
    bool nan = false;
    for (int j = 0; j <= i; ++j) w[j] = s[j] / divisor;
    for (int j = 0; j <= i; ++j) {
      nan |= w[j] != w[j];
      max = w[j] > max ? w[j] : max;  // which of +0 and -0 wins does not matter: x - 0 = x
    }
    full_rows[i] = nan || !std::isfinite(max);
    if (full_rows[i]) {
      // NaN, +inf or a row of -inf: the masked cells become NaN, not 0. The whole row, as
      // softmax_forward computes it on the masked scores.
      for (int j = i + 1; j < T; ++j) s[j] = neg_inf;
      softmax_forward(MatrixMap(w, 1, T), ConstMatrixMap(s, 1, T), divisor);
      ++full;
      continue;
    }
    // exp(-inf - max) = +0 for every masked cell; adding +0 to a positive sum changes nothing.
    kernels::exp_shifted(w, i + 1, max);  // std::exp's bits
    float sum = 0.0f;
    for (int j = 0; j <= i; ++j) sum += w[j];  // in order, apart so the calls pipeline
    const float inverse = 1.0f / sum;
    for (int j = 0; j <= i; ++j) w[j] *= inverse;
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
