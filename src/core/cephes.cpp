#include "cephes.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "fma.hpp"

namespace ca::cephes {

using detail::bits;
using detail::from_bits;

float logf(float x) {
  const bool invalid = x <= 0.0f;
  x = std::fmax(x, from_bits(0x00800000));  // cut off denormals
  const std::int32_t exponent = static_cast<std::int32_t>(bits(x) >> 23) - 0x7f;
  x = from_bits((bits(x) & ~0x7f800000u) | bits(0.5f));  // mantissa in [0.5, 1)
  float e = static_cast<float>(exponent) + 1.0f;
  const bool small = x < 0.707106781186547524f;  // cephes_SQRTHF
  const float tmp = small ? x : 0.0f;
  x = x - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  x = x + tmp;

  const float z = x * x;
  float y = 7.0376836292E-2f;
  y = ca::fma(y, x, -1.1514610310E-1f);
  y = ca::fma(y, x, 1.1676998740E-1f);
  y = ca::fma(y, x, -1.2420140846E-1f);
  y = ca::fma(y, x, +1.4249322787E-1f);
  y = ca::fma(y, x, -1.6668057665E-1f);
  y = ca::fma(y, x, +2.0000714765E-1f);
  y = ca::fma(y, x, -2.4999993993E-1f);
  y = ca::fma(y, x, +3.3333331174E-1f);
  y = y * x;
  y = ca::fma(y, z, e * -2.12194440e-4f);  // y * z + e * q1: GCC fuses the first product
  y = ca::fma(-z, 0.5f, y);                // y - z * 0.5
  x = x + y;
  x = ca::fma(e, 0.693359375f, x);  // + e * q2
  return invalid ? std::numeric_limits<float>::quiet_NaN() : x;
}

void sincosf(float x, float& s, float& c) {
  std::uint32_t sign_sin = bits(x) & 0x80000000u;
  x = std::fabs(x);
  std::int32_t j = static_cast<std::int32_t>(x * 1.27323954473516f);  // 4 / pi, truncated
  j = (j + 1) & ~1;
  const float y_j = static_cast<float>(j);
  const std::uint32_t swap_sign_sin = static_cast<std::uint32_t>(j & 4) << 29;
  const bool poly_cos = (j & 2) == 0;

  // Extended precision modular arithmetic: x = ((x - y * DP1) - y * DP2) - y * DP3.
  x = ca::fma(y_j, -0.78515625f, x);
  x = ca::fma(y_j, -2.4187564849853515625e-4f, x);
  x = ca::fma(y_j, -3.77489497744594108e-8f, x);

  const std::uint32_t sign_cos = static_cast<std::uint32_t>(~(j - 2) & 4) << 29;
  sign_sin ^= swap_sign_sin;

  const float z = x * x;
  float y = 2.443315711809948E-005f;  // cos polynomial, 0 <= x <= pi/4
  y = ca::fma(y, z, -1.388731625493765E-003f);
  y = ca::fma(y, z, 4.166664568298827E-002f);
  y = y * z;
  y = ca::fma(y, z, -(z * 0.5f));  // y * z - z * 0.5: GCC fuses the first product
  y = y + 1.0f;

  float y2 = -1.9515295891E-4f;  // sin polynomial
  y2 = ca::fma(y2, z, 8.3321608736E-3f);
  y2 = ca::fma(y2, z, -1.6666654611E-1f);
  y2 = y2 * z;
  y2 = ca::fma(y2, x, x);

  // The lanes are selected by masking and adding, so the unused polynomial adds a +0.
  const float sin_part = 0.0f + (poly_cos ? y2 : y);
  const float cos_part = (poly_cos ? y : y2) + 0.0f;
  s = from_bits(bits(sin_part) ^ sign_sin);
  c = from_bits(bits(cos_part) ^ sign_cos);
}

}  // namespace ca::cephes
