#include "sleef.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "fma.hpp"

namespace ca::sleef {
namespace {

struct ExactFma {
  float operator()(float a, float b, float c) const { return ca::fma_exact(a, b, c); }
};

// Sleef_expf8_u10's steps for one lane, `fma` its fused multiply-add.
template <class Fma>
float sleef_exp(float x, Fma& fma) {
  // q = round(x / ln 2) as _mm256_cvtps_epi32 rounds (to even; NaN and overflow: INT32_MIN).
  // Below 2^22, adding and taking away 1.5 x 2^23 rounds to even (std::nearbyint is a slow
  // library call on x86 without SSE4.1).
  const float t = x * kRLn2;
  const float magic = 0x1.8p23f, at = std::fabs(t);
  const std::int32_t q = at < 0x1p22f   ? static_cast<std::int32_t>((t + magic) - magic)
                         : at < 0x1p31f ? static_cast<std::int32_t>(std::nearbyint(t))
                                        : std::numeric_limits<std::int32_t>::min();
  const float qf = static_cast<float>(q);
  float s = fma(qf, -kL2U, x);  // x - q ln 2, ln 2 in two parts
  s = fma(qf, -kL2L, s);
  float u = kExpPoly[0];
  u = fma(u, s, kExpPoly[1]);
  u = fma(u, s, kExpPoly[2]);
  u = fma(u, s, kExpPoly[3]);
  u = fma(u, s, kExpPoly[4]);
  u = fma(u, s, kExpPoly[5]);
  u = 1.0f + fma(s * s, u, s);
  // u * 2^q as vldexp2 does it, u * 2^h * 2^(q - h) with h = q >> 1: each power a normal float.
  const auto pow2i = [](std::int32_t e) {
    return detail::from_bits((static_cast<std::uint32_t>(e) + 0x7f) << 23);
  };
  const std::int32_t half = q >> 1;
  u = u * pow2i(half) * pow2i(q - half);
  if (x < kExpUnderflow) u = 0.0f;
  if (kExpOverflow < x) u = std::numeric_limits<float>::infinity();
  return u;
}

}  // namespace

float expf_u10(float x) {
  detail::FastFma fast;
  const float y = sleef_exp(x, fast);
  if (!fast.rare) return y;
  ExactFma exact;
  return sleef_exp(x, exact);
}

}  // namespace ca::sleef
