// Scalar ports of the vectorised log and sincos that PyTorch's AVX2 build uses in
// torch.randn (ATen/native/cpu/avx_mathfun.h, cephes polynomials), with the fused
// multiply-adds GCC forms when it compiles them with -mfma. They differ from libm by up to
// hundreds of ulps, so reproducing PyTorch's randn needs them, not std::log/std::sin.
#pragma once

namespace ca::avx2 {

// log256_ps for one lane.
float log(float x);

// sincos256_ps for one lane.
void sincos(float x, float& s, float& c);

}  // namespace ca::avx2
