// exp over a row, 8 at a time, as PyTorch's AVX2 build computes it: Sleef_expf8_u10, SLEEF
// 3.5's xexpf with its AVX2 helpers (the same steps as sleef::expf_u10, whose fused multiply-adds
// are the _mm256_fmadd_ps here). Built with -mavx2 -mfma; called only when the CPU has both and
// the self-check in kernels.cpp agreed with sleef::expf_u10.
#include <immintrin.h>

#include "kernels_isa.hpp"
#include "sleef.hpp"

namespace ca::kernels {

namespace {

inline __m256 sleef_expf8(__m256 d) {
  const __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(d, _mm256_set1_ps(sleef::kRLn2)));
  const __m256 qf = _mm256_cvtepi32_ps(q);
  __m256 s = _mm256_fmadd_ps(qf, _mm256_set1_ps(-sleef::kL2U), d);
  s = _mm256_fmadd_ps(qf, _mm256_set1_ps(-sleef::kL2L), s);
  __m256 u = _mm256_set1_ps(sleef::kExpPoly[0]);
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(sleef::kExpPoly[1]));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(sleef::kExpPoly[2]));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(sleef::kExpPoly[3]));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(sleef::kExpPoly[4]));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(sleef::kExpPoly[5]));
  u = _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_fmadd_ps(_mm256_mul_ps(s, s), u, s));
  // vldexp2: u * 2^h * 2^(q - h), h = q >> 1, each power built in the exponent bits.
  const __m256i bias = _mm256_set1_epi32(0x7f), h = _mm256_srai_epi32(q, 1);
  const auto pow2i = [&](__m256i e) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e, bias), 23));
  };
  u = _mm256_mul_ps(_mm256_mul_ps(u, pow2i(h)), pow2i(_mm256_sub_epi32(q, h)));
  const __m256 underflow = _mm256_cmp_ps(d, _mm256_set1_ps(sleef::kExpUnderflow), _CMP_LT_OQ);
  u = _mm256_andnot_ps(underflow, u);  // +0
  const __m256 overflow = _mm256_cmp_ps(_mm256_set1_ps(sleef::kExpOverflow), d, _CMP_LT_OQ);
  return _mm256_blendv_ps(u, _mm256_set1_ps(__builtin_huge_valf()), overflow);
}

}  // namespace

// w[j] = exp(w[j] - max), j < n; the tail as a partial vector, as vec::map does.
void exp_shifted_avx2_fma(float* w, int n, float max) {
  const __m256 m = _mm256_set1_ps(max);
  int j = 0;
  for (; j + 8 <= n; j += 8)
    _mm256_storeu_ps(w + j, sleef_expf8(_mm256_sub_ps(_mm256_loadu_ps(w + j), m)));
  if (j < n) {
    alignas(32) float tail[8] = {};
    for (int k = 0; j + k < n; ++k) tail[k] = w[j + k];
    _mm256_store_ps(tail, sleef_expf8(_mm256_sub_ps(_mm256_load_ps(tail), m)));
    for (int k = 0; j + k < n; ++k) w[j + k] = tail[k];
  }
}

}  // namespace ca::kernels
