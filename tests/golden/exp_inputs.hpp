// The inputs that the by-hand proofs of exp_simd128.cpp's steps walk (exp_ties.cpp,
// exp_binades.cpp): every float x in [-104, 100] (outside it SLEEF's expf_u10 gives 0, inf or
// NaN whatever its steps give), each with q = rint(x / ln 2) as SLEEF rounds it.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

/** Calls f(x, q) for every such x, the positive ones first; returns how many. */
template <class F>
std::uint64_t each_exp_input(F f) {
  std::uint64_t n = 0;
  for (const float limit : {100.0f, -104.0f}) {
    std::uint32_t u = std::signbit(limit) ? 0x80000000u : 0, last;
    std::memcpy(&last, &limit, 4);
    for (;; ++u) {
      float x;
      std::memcpy(&x, &u, 4);
      ++n;
      const float t = x * 1.442695040888963407359924681001892137426645954152985934135449406931f;
      f(x, static_cast<float>(static_cast<std::int32_t>(std::nearbyint(t))));
      if (u == last) break;
    }
  }
  return n;
}
