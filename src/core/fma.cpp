#include "fma.hpp"

#include <cmath>

namespace ca {

// FastFma's one step, fma_exact where the test is not certain. Out of line: inlined at its 20
// call sites it cost 1.4 KB of wasm.
[[gnu::noinline]] float fma(float a, float b, float c) {
  detail::FastFma fast;
  const float sum = fast(a, b, c);
  return fast.rare ? fma_exact(a, b, c) : sum;
}

// Not std::fma: in WebAssembly it is musl's fmaf, which needs a rounding mode WebAssembly lacks
// and so rounds a double sum that lands halfway between two floats away from zero, whichever
// side the exact sum was on. Here the product is exact in double, the sum's rounding error t is
// exact (Knuth's two-sum), and the sum rounded to odd (its last bit set by a step toward the
// exact value where it is even and t is not 0) rounds to float as the exact value does
// (Boldo and Melquiond, 2008: double has more than 24 + 2 bits).
float fma_exact(float a, float b, float c) {
  const double p = double(a) * double(b), z = double(c), s = p + z;
  const double zs = s - p, t = (p - (s - zs)) + (z - zs);
  std::uint64_t u;
  std::memcpy(&u, &s, sizeof u);
  if (!(t != 0) || (u & 1)) return static_cast<float>(s);  // t: 0 if exact, NaN if not finite
  u = (t > 0) == (s > 0) ? u + 1 : u - 1;
  double odd;
  std::memcpy(&odd, &u, sizeof odd);
  return static_cast<float>(odd);
}

}  // namespace ca
