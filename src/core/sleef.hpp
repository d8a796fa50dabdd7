// SLEEF's exp as PyTorch's AVX2 build runs it (Vectorized<float>::exp, softmax and torch.exp),
// evaluated lane by lane. It differs from libm's by up to 1 ulp, so reproducing PyTorch needs
// it, not std::exp.
#pragma once

namespace ca::sleef {

// Sleef_expf8_u10 for one lane: SLEEF 3.5's xexpf as its AVX2 build (FMA) computes it, the
// libsleef PyTorch 1.13 links. Equal to libsleef's on all 2^32 inputs (NaNs as NaN).
float expf_u10(float x);

}  // namespace ca::sleef
