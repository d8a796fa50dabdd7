// A float32 tensor: a shape and row-major data, as PyTorch stores a contiguous tensor.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <functional>
#include <numeric>
#include <vector>

namespace ca {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
// A read-only kernel operand: binds to either map without a copy.
using MatrixIn = Eigen::Ref<const RowMatrix>;

struct Tensor {
  std::vector<int> shape;
  std::vector<float> data;

  Tensor() = default;
  explicit Tensor(std::vector<int> shape_, float fill = 0.0f)
      : shape(std::move(shape_)), data(numel_of(shape), fill) {}
  Tensor(std::vector<int> shape_, std::vector<float> data_)
      : shape(std::move(shape_)), data(std::move(data_)) {}

  static std::size_t numel_of(const std::vector<int>& s) {
    return std::accumulate(s.begin(), s.end(), std::size_t{1},
                           [](std::size_t a, int b) { return a * static_cast<std::size_t>(b); });
  }
  std::size_t numel() const { return data.size(); }
  int dim() const { return static_cast<int>(shape.size()); }
  int rows() const { return shape.size() >= 2 ? shape[shape.size() - 2] : 1; }
  int cols() const { return shape.empty() ? 1 : shape.back(); }

  // A 2-D view of matrix `b` of a (B, R, C) tensor, or of the whole (R, C) tensor.
  MatrixMap matrix(int b = 0) {
    return MatrixMap(data.data() + static_cast<std::size_t>(b) * rows() * cols(), rows(), cols());
  }
  ConstMatrixMap matrix(int b = 0) const {
    return ConstMatrixMap(data.data() + static_cast<std::size_t>(b) * rows() * cols(), rows(),
                          cols());
  }
  float& at(int r, int c) { return data[static_cast<std::size_t>(r) * cols() + c]; }
  float at(int r, int c) const { return data[static_cast<std::size_t>(r) * cols() + c]; }
};

}  // namespace ca
