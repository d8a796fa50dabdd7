#include "avx2_math.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace ca::avx2 {
namespace {

// std::fma(a, b, c) for floats, fast where fma is a library call (WebAssembly, x86 without
// -mfma): the product is exact in double, so the double sum rounds to the float nearest
// a * b + c unless it fell exactly halfway between two floats (the one case where rounding
// twice can differ: the low 29 of the double's 52 fraction bits are 1 and 28 zeros) or below
// 2^-126 (double exponent field under 1023 - 126 = 897: the floats' subnormal range). Those
// cases set `rare`, and the caller starts again with std::fma.
struct FastFma {
  bool rare = false;
  float operator()(float a, float b, float c) {
    const double s = double(a) * double(b) + double(c);
    std::uint64_t u;
    std::memcpy(&u, &s, sizeof u);
    rare |= (u & 0x1fffffff) == 0x10000000 || (u & 0x7ff0000000000000u) < std::uint64_t{897} << 52;
    return static_cast<float>(s);
  }
};

}  // namespace

// The header's std::fma without the library call: FastFma's one step, std::fma where the
// test is not certain. Out of line: inlined at its 20 call sites it cost 1.4 KB of wasm.
[[gnu::noinline]] float fma(float a, float b, float c) {
  FastFma fast;
  const float sum = fast(a, b, c);
  return fast.rare ? std::fma(a, b, c) : sum;
}

namespace {

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

struct ExactFma {
  float operator()(float a, float b, float c) const { return std::fma(a, b, c); }
};

// Sleef_expf8_u10's steps for one lane, `fma` its fused multiply-add.
template <class Fma>
float sleef_exp(float x, Fma& fma) {
  // q = round(x / ln 2) as _mm256_cvtps_epi32 rounds (to even; NaN and overflow: INT32_MIN).
  // Below 2^22, adding and taking away 1.5 x 2^23 rounds to even (std::nearbyint is a slow
  // library call on x86 without SSE4.1).
  const float t = x * 1.442695040888963407359924681001892137426645954152985934135449406931f;
  const float magic = 0x1.8p23f, at = std::fabs(t);
  const std::int32_t q = at < 0x1p22f   ? static_cast<std::int32_t>((t + magic) - magic)
                         : at < 0x1p31f ? static_cast<std::int32_t>(std::nearbyint(t))
                                        : std::numeric_limits<std::int32_t>::min();
  const float qf = static_cast<float>(q);
  float s = fma(qf, -0.693145751953125f, x);  // x - q ln 2, ln 2 in two parts
  s = fma(qf, -1.428606765330187045e-06f, s);
  float u = 0.000198527617612853646278381f;
  u = fma(u, s, 0.00139304355252534151077271f);
  u = fma(u, s, 0.00833336077630519866943359f);
  u = fma(u, s, 0.0416664853692054748535156f);
  u = fma(u, s, 0.166666671633720397949219f);
  u = fma(u, s, 0.5f);
  u = 1.0f + fma(s * s, u, s);
  // u * 2^q as vldexp2 does it, u * 2^h * 2^(q - h) with h = q >> 1: each power a normal float.
  const auto pow2i = [](std::int32_t e) {
    return from_bits((static_cast<std::uint32_t>(e) + 0x7f) << 23);
  };
  const std::int32_t half = q >> 1;
  u = u * pow2i(half) * pow2i(q - half);
  if (x < -104.0f) u = 0.0f;
  if (100.0f < x) u = std::numeric_limits<float>::infinity();
  return u;
}

}  // namespace

float log(float x) {
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
  y = avx2::fma(y, x, -1.1514610310E-1f);
  y = avx2::fma(y, x, 1.1676998740E-1f);
  y = avx2::fma(y, x, -1.2420140846E-1f);
  y = avx2::fma(y, x, +1.4249322787E-1f);
  y = avx2::fma(y, x, -1.6668057665E-1f);
  y = avx2::fma(y, x, +2.0000714765E-1f);
  y = avx2::fma(y, x, -2.4999993993E-1f);
  y = avx2::fma(y, x, +3.3333331174E-1f);
  y = y * x;
  y = avx2::fma(y, z, e * -2.12194440e-4f);  // y * z + e * q1: GCC fuses the first product
  y = avx2::fma(-z, 0.5f, y);                // y - z * 0.5
  x = x + y;
  x = avx2::fma(e, 0.693359375f, x);  // + e * q2
  return invalid ? std::numeric_limits<float>::quiet_NaN() : x;
}

void sincos(float x, float& s, float& c) {
  std::uint32_t sign_sin = bits(x) & 0x80000000u;
  x = std::fabs(x);
  std::int32_t j = static_cast<std::int32_t>(x * 1.27323954473516f);  // 4 / pi, truncated
  j = (j + 1) & ~1;
  const float y_j = static_cast<float>(j);
  const std::uint32_t swap_sign_sin = static_cast<std::uint32_t>(j & 4) << 29;
  const bool poly_cos = (j & 2) == 0;

  // Extended precision modular arithmetic: x = ((x - y * DP1) - y * DP2) - y * DP3.
  x = avx2::fma(y_j, -0.78515625f, x);
  x = avx2::fma(y_j, -2.4187564849853515625e-4f, x);
  x = avx2::fma(y_j, -3.77489497744594108e-8f, x);

  const std::uint32_t sign_cos = static_cast<std::uint32_t>(~(j - 2) & 4) << 29;
  sign_sin ^= swap_sign_sin;

  const float z = x * x;
  float y = 2.443315711809948E-005f;  // cos polynomial, 0 <= x <= pi/4
  y = avx2::fma(y, z, -1.388731625493765E-003f);
  y = avx2::fma(y, z, 4.166664568298827E-002f);
  y = y * z;
  y = avx2::fma(y, z, -(z * 0.5f));  // y * z - z * 0.5: GCC fuses the first product
  y = y + 1.0f;

  float y2 = -1.9515295891E-4f;  // sin polynomial
  y2 = avx2::fma(y2, z, 8.3321608736E-3f);
  y2 = avx2::fma(y2, z, -1.6666654611E-1f);
  y2 = y2 * z;
  y2 = avx2::fma(y2, x, x);

  // The lanes are selected by masking and adding, so the unused polynomial adds a +0.
  const float sin_part = 0.0f + (poly_cos ? y2 : y);
  const float cos_part = (poly_cos ? y : y2) + 0.0f;
  s = from_bits(bits(sin_part) ^ sign_sin);
  c = from_bits(bits(cos_part) ^ sign_cos);
}

float exp(float x) {
  FastFma fast;
  const float y = sleef_exp(x, fast);
  if (!fast.rare) return y;
  ExactFma exact;
  return sleef_exp(x, exact);
}

}  // namespace ca::avx2
