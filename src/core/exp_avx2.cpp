// expf over a row, 8 at a time, with the bits of glibc's expf on CPUs with FMA and AVX2
// (the variant glibc's ifunc picks there, __expf_fma). That expf works in double: with
// N = 32, k = round(x * N / ln 2), r = x * N / ln 2 - k, exp(x) = 2^(k / N) * p(r), 2^(k / N)
// from a table of 2^(i / N), p a cubic; its fused multiply-adds are at the same places here.
// Built with -mavx2 -mfma; called only when the CPU has both and the self-check in
// kernels.cpp agreed with std::exp. Lanes with |x| >= 88 or non-finite take expf itself.
#include <immintrin.h>

#include <math.h>
#include <cstdint>
#include <cstring>

namespace ca::kernels {

namespace {

// tab[i] = bits(2^(i / 32)) - (i << 47), so that bits(2^(k / 32)) = tab[k % 32] + (k << 47).
struct Table {
  alignas(32) std::int64_t tab[32];
  Table() {
    for (int i = 0; i < 32; ++i) {
      const double d = static_cast<double>(exp2l(i / 32.0L));
      std::memcpy(&tab[i], &d, sizeof d);
      tab[i] -= static_cast<std::int64_t>(i) << 47;
    }
  }
};


// exp(x) for 4 floats widened to double.
inline __m128 exp4(__m128 x, const std::int64_t* tab) {
  const __m256d inv_ln2_n = _mm256_set1_pd(0x1.71547652b82fep+5), shift = _mm256_set1_pd(0x1.8p+52),
                c0 = _mm256_set1_pd(0x1.c6af84b912394p-20), c1 = _mm256_set1_pd(0x1.ebfce50fac4f3p-13),
                c2 = _mm256_set1_pd(0x1.62e42ff0c52d6p-6), one = _mm256_set1_pd(1.0);
  const __m256d xd = _mm256_cvtps_pd(x);
  const __m256d kd_shifted = _mm256_fmadd_pd(inv_ln2_n, xd, shift);  // k in the low bits
  const __m256i ki = _mm256_castpd_si256(kd_shifted);
  const __m256d kd = _mm256_sub_pd(kd_shifted, shift);
  const __m256d r = _mm256_fmsub_pd(inv_ln2_n, xd, kd);
  const __m256i t = _mm256_add_epi64(
      _mm256_i64gather_epi64(reinterpret_cast<const long long*>(tab),
                             _mm256_and_si256(ki, _mm256_set1_epi64x(31)), 8),
      _mm256_slli_epi64(ki, 47));
  const __m256d s = _mm256_castsi256_pd(t);
  const __m256d z = _mm256_fmadd_pd(r, c0, c1);
  const __m256d r2 = _mm256_mul_pd(r, r);
  __m256d y = _mm256_fmadd_pd(r, c2, one);
  y = _mm256_fmadd_pd(z, r2, y);
  return _mm256_cvtpd_ps(_mm256_mul_pd(y, s));
}

}  // namespace

// w[j] = expf(w[j] - max), j < n.
void exp_shifted_avx2_fma(float* w, int n, float max) {
  static const Table table;  // here, not global: kernels.cpp's self-check runs at start-up
  const std::int64_t* tab = table.tab;
  const __m256 m = _mm256_set1_ps(max);
  const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), big = _mm256_set1_epi32(0x42afffff);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 x = _mm256_sub_ps(_mm256_loadu_ps(w + j), m);
    const __m256 y = _mm256_set_m128(exp4(_mm256_extractf128_ps(x, 1), tab),
                                     exp4(_mm256_castps256_ps128(x), tab));
    _mm256_storeu_ps(w + j, y);
    // |x| >= 88, inf or NaN (glibc's special cases): exactly as expf.
    const __m256i special = _mm256_cmpgt_epi32(_mm256_and_si256(_mm256_castps_si256(x), abs_mask), big);
    if (!_mm256_testz_si256(special, special)) {
      alignas(32) float xs[8];
      _mm256_store_ps(xs, x);
      const int bits = _mm256_movemask_ps(_mm256_castsi256_ps(special));
      for (int l = 0; l < 8; ++l)
        if (bits >> l & 1) w[j + l] = ::expf(xs[l]);
    }
  }
  for (; j < n; ++j) w[j] = ::expf(w[j] - max);
}

}  // namespace ca::kernels
