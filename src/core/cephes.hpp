// Cephes's single-precision log and sincos as PyTorch's AVX2 build runs them for torch.randn
// (ATen/native/cpu/avx_mathfun.h: log256_ps and sincos256_ps, Cephes polynomials), evaluated
// lane by lane, with the fused multiply-adds GCC forms when it compiles them with -mfma. They
// differ from libm by up to hundreds of ulps, so reproducing torch.randn needs them, not
// std::log/std::sin.
#pragma once

namespace ca::cephes {

// log256_ps for one lane.
float logf(float x);

// sincos256_ps for one lane.
void sincosf(float x, float& s, float& c);

}  // namespace ca::cephes
