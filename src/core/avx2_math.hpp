// Scalar ports of the vectorised math PyTorch's AVX2 build runs, evaluated lane by lane:
// log and sincos of torch.randn (ATen/native/cpu/avx_mathfun.h, cephes polynomials), with the
// fused multiply-adds GCC forms when it compiles them with -mfma, and SLEEF's exp
// (Vectorized<float>::exp, softmax and torch.exp). They differ from libm by up to hundreds of
// ulps (exp: 1), so reproducing PyTorch needs them, not std::log/std::sin/std::exp.
#pragma once

namespace ca::avx2 {

// std::fma(a, b, c) for floats without its library call (WebAssembly has no fused multiply-add:
// its fmaf is a slow routine). The product of two floats is exact in double, so the double sum
// rounded to float is the fused result unless that sum lies exactly halfway between two floats
// or below float's normal range; there std::fma decides. Bits equal std::fma's: tested on
// 10^7 triples, halfway cases built on purpose (tests/test_generator.cpp).
float fma(float a, float b, float c);

// log256_ps for one lane.
float log(float x);

// sincos256_ps for one lane.
void sincos(float x, float& s, float& c);

// Sleef_expf8_u10 for one lane: SLEEF 3.5's xexpf as its AVX2 build (FMA) computes it, the
// libsleef PyTorch 1.13 links. Equal to libsleef's on all 2^32 inputs (NaNs as NaN).
float exp(float x);

}  // namespace ca::avx2
