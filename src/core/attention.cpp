#include "attention.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace ca {

namespace {

// out (m, n) = a (m, k) @ b (k, n). Each output is the float32 sum of its k products in
// order from +0, as PyTorch's BLAS sgemm adds them, so results are bit-identical on every
// target; the loop runs across a row of outputs (an axpy per l), which vectorises.
void matmul(MatrixMap out, const MatrixIn& a, const MatrixIn& b) {
  out.setZero();
  for (Eigen::Index i = 0; i < out.rows(); ++i) {
    for (Eigen::Index l = 0; l < a.cols(); ++l) out.row(i).noalias() += a(i, l) * b.row(l);
  }
}

// out (m, n) = a (m, k) @ b(n, k)^T, through a row-major copy of b^T.
void matmul_transposed(MatrixMap out, const MatrixIn& a, const MatrixIn& b) {
  const RowMatrix b_t = b.transpose();
  matmul(out, a, b_t);
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
    float sum = 0.0f;
    for (Eigen::Index j = 0; j < weights.cols(); ++j) {
      sum += (weights(i, j) = std::exp(weights(i, j) - max));  // scalar exp: same on every target
    }
    weights.row(i) *= 1.0f / sum;
  }
}

void context_forward(MatrixMap context, const MatrixIn& weights, const MatrixIn& values) {
  matmul(context, weights, values);
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
