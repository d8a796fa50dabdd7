// std::fma(a, b, c) for floats without its library call (WebAssembly has no fused multiply-add:
// its fmaf is a slow routine). The product of two floats is exact in double, so the double sum
// rounded to float is the fused result unless that sum lies exactly halfway between two floats
// or below float's normal range; there fma_exact decides. Bits equal std::fma's: tested on
// 10^7 triples, halfway cases built on purpose (tests/test_generator.cpp, and in WebAssembly
// tests/wasm/kernels.cpp).
#pragma once

#include <cstdint>
#include <cstring>

namespace ca {

float fma(float a, float b, float c);

/** a * b + c rounded once, in double arithmetic alone: std::fma's bits on every platform. */
float fma_exact(float a, float b, float c);

namespace detail {

// One step of the above: the double sum rounded to float, and `rare` set where that rounding
// may differ from the fused one: the sum fell exactly halfway between two floats (the low 29 of
// the double's 52 fraction bits are 1 and 28 zeros) or below 2^-126 (double exponent field
// under 1023 - 126 = 897: the floats' subnormal range). The caller then starts again with
// fma_exact. sleef.cpp runs a whole exp on it and repeats only the rare inputs.
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

inline std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace detail
}  // namespace ca
