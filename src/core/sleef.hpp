// SLEEF's exp as PyTorch's AVX2 build runs it (Vectorized<float>::exp, softmax and torch.exp),
// evaluated lane by lane. It differs from libm's by up to 1 ulp, so reproducing PyTorch needs
// it, not std::exp.
#pragma once

namespace ca::sleef {

// xexpf's constants (SLEEF 3.5's R_LN2f, L2Uf, L2Lf, its polynomial's coefficients and the
// range's edges), in the order its steps use them. sleef.cpp, exp_avx2.cpp and exp_simd128.cpp
// read them; src/wasm/exp-relaxed-module.js writes the same floats into its module, and
// tests/wasm/kernels.cpp compares those by bits (one ulp on a coefficient changes few results).
inline constexpr float kRLn2 =
    1.442695040888963407359924681001892137426645954152985934135449406931f;
// ln 2 in two parts: q * kL2U is exact for the q that matter (8 bits times 16).
inline constexpr float kL2U = 0.693145751953125f, kL2L = 1.428606765330187045e-06f;
// u = c[0], then u = u s + c[k] for k = 1 .. 5.
inline constexpr float kExpPoly[6] = {0.000198527617612853646278381f, 0.00139304355252534151077271f,
                                      0.00833336077630519866943359f,  0.0416664853692054748535156f,
                                      0.166666671633720397949219f,    0.5f};
inline constexpr float kExpUnderflow = -104.0f;  // below: +0
inline constexpr float kExpOverflow = 100.0f;    // above: +inf

// Sleef_expf8_u10 for one lane: SLEEF 3.5's xexpf as its AVX2 build (FMA) computes it, the
// libsleef PyTorch 1.13 links. Equal to libsleef's on all 2^32 inputs (NaNs as NaN).
float expf_u10(float x);

}  // namespace ca::sleef
