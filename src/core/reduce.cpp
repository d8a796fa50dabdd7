#include "reduce.hpp"

#include <algorithm>
#include <cstdint>

namespace ca::reduce {

namespace {

// ATen's multi_row_sum: `rows` rows of `width` (<= 32) accumulators, added up in its 4-level
// cascade, each level a block of 2^p rows of the one below, p = max(4, ceil(log2 rows) / 4).
void multi_row_sum(const float* x, std::int64_t rows, int width, float* out) {
  constexpr int kLevels = 4;
  int ceil_log2 = 1;  // utils::CeilLog2: 1 up to 2
  while ((std::int64_t{1} << ceil_log2) < rows) ++ceil_log2;
  const int power = std::max(4, ceil_log2 / kLevels);
  const std::int64_t step = std::int64_t{1} << power, mask = step - 1;
  float acc[kLevels][32] = {};
  std::int64_t i = 0;
  while (i + step <= rows) {
    for (std::int64_t j = 0; j < step; ++j, ++i)
      for (int k = 0; k < width; ++k) acc[0][k] += x[i * width + k];
    for (int j = 1; j < kLevels; ++j) {
      for (int k = 0; k < width; ++k) {
        acc[j][k] += acc[j - 1][k];
        acc[j - 1][k] = 0.0f;
      }
      if ((i & (mask << (j * power))) != 0) break;
    }
  }
  for (; i < rows; ++i)
    for (int k = 0; k < width; ++k) acc[0][k] += x[i * width + k];
  for (int j = 1; j < kLevels; ++j)
    for (int k = 0; k < width; ++k) acc[0][k] += acc[j][k];
  std::copy_n(acc[0], width, out);
}

}  // namespace

float cascade_sum(const float* x, int n) {
  if (n >= 8) {  // vectorized_inner_sum: rows of 4 vectors of 8
    const int vectors = n / 8, rows = vectors / 4;
    float lanes[32];
    multi_row_sum(x, rows, 32, lanes);
    for (int i = rows * 4; i < vectors; ++i)
      for (int l = 0; l < 8; ++l) lanes[l] += x[i * 8 + l];
    for (int k = 1; k < 4; ++k)
      for (int l = 0; l < 8; ++l) lanes[l] += lanes[k * 8 + l];
    float total = 0.0f;
    for (int k = vectors * 8; k < n; ++k) total += x[k];
    for (int l = 0; l < 8; ++l) total += lanes[l];
    return total;
  }
  float acc[4];  // row_sum: rows of 4 scalars
  multi_row_sum(x, n / 4, 4, acc);
  for (int i = n / 4 * 4; i < n; ++i) acc[0] += x[i];
  return ((acc[0] + acc[1]) + acc[2]) + acc[3];
}

float vec_sum(const float* x, int n, int width) {
  if (width < 8) {  // vec_reduce_all's slow path: lane 0 adds the others one by one
    float sum = x[0];
    for (int j = 1; j < n; ++j) sum += x[j];
    return sum;
  }
  float l[8] = {};
  std::copy_n(x, std::min(n, 8), l);
  int j = 8;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) l[k] += x[j + k];
  for (int k = 0; j + k < n; ++k) l[k] += x[j + k];  // the tail lanes, as Vec::set keeps them
  return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

}  // namespace ca::reduce
