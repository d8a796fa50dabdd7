// gemm on AVX2: 8 floats per vector. Built with -mavx2 and without -mfma (a fused
// multiply-add would change bits); called only when the CPU reports AVX2.
#include <immintrin.h>

#include "kernels_isa.hpp"
#include "kernels_tile.hpp"

namespace {
struct Avx2 {
  using T = __m256;
  // 6 x 16 tiles: 12 accumulators, 2 B vectors and a broadcast (reused for the product) fit the
  // 16 ymm registers; 4 x 24's 17 did not (its third B vector was reloaded for every row).
  static constexpr int NV = 2;
  static constexpr bool kInPlace = true;
  static constexpr bool kPairs = false;
  static constexpr int W = 8;
  static constexpr int MR = ca::kernels::kTileRowsAvx2;
  // The blocked path's sizes (kernels_tile.hpp): on Zen 3 (L1d 32 KB, L2 512 KB) a whole
  // 768-deep strip of B (48 KB, read from L2) with A's 48 rows beat 256 x 96 by ~20% (no
  // partial sums reloaded from C between k-blocks at d = 768).
  struct Blocks {
    static constexpr int KC = 768, MC = 48, NS = 16;
  };
  static constexpr bool kPrefetchC = true;
  static T zero() { return _mm256_setzero_ps(); }
  static T load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, T x) { _mm256_storeu_ps(p, x); }
  static T set1(float f) { return _mm256_set1_ps(f); }
  static T add(T x, T y) { return _mm256_add_ps(x, y); }
  static T mul(T x, T y) { return _mm256_mul_ps(x, y); }
  // A's rows packed too (pack_a): a tile's 6 broadcasts then read one stream.
  static constexpr bool kPackA = true;
  // dst[l * 6 + x] = src[x * ld + l], x < 6, l < 8 (pack_a), the rows' 8 columns at a time: an
  // 8 x 8 transpose of the 6 rows and 2 of zeros, its rows stored in order l = 0 .. 7, each 8 wide
  // (the next one's store overwrites the 2 zeros), so it writes dst[48] and dst[49] too.
  __attribute__((always_inline)) static void transpose6(const float* src, long ld, float* dst) {
    T r[8], t[8];
    for (int x = 0; x < 6; ++x) r[x] = _mm256_loadu_ps(src + x * ld);
    r[6] = r[7] = _mm256_setzero_ps();
    shuffle(r, t);
    // Two loops, not one with `l < 4 ? 0x20 : 0x31`: clang wants the immediate a constant.
    for (int l = 0; l < 4; ++l)
      _mm256_storeu_ps(dst + l * 6, _mm256_permute2f128_ps(r[l], r[l + 4], 0x20));
    for (int l = 0; l < 4; ++l)
      _mm256_storeu_ps(dst + (l + 4) * 6, _mm256_permute2f128_ps(r[l], r[l + 4], 0x31));
  }
  // The transposes' shuffles: r[l] (l < 4) holds column l in its low half (rows 0-3) and column
  // l + 4 in its high half, r[l + 4] the same for rows 4-7.
  __attribute__((always_inline)) static void shuffle(T* r, T* t) {
    for (int x = 0; x < 8; x += 2) {
      t[x] = _mm256_unpacklo_ps(r[x], r[x + 1]);
      t[x + 1] = _mm256_unpackhi_ps(r[x], r[x + 1]);
    }
    for (int x = 0; x < 8; x += 4)
      for (int h = 0; h < 2; ++h) {
        r[x + 2 * h] = _mm256_shuffle_ps(t[x + h], t[x + h + 2], _MM_SHUFFLE(1, 0, 1, 0));
        r[x + 2 * h + 1] = _mm256_shuffle_ps(t[x + h], t[x + h + 2], _MM_SHUFFLE(3, 2, 3, 2));
      }
  }
  // dst[l * ldd + x] = src[x * ld + l], x, l < 8: 8 rows in, 8 columns out (pack_block).
  __attribute__((always_inline)) static void transpose(const float* src, long ld, float* dst,
                                                       int ldd) {
    T r[8], t[8];
    for (int x = 0; x < 8; ++x) r[x] = _mm256_loadu_ps(src + x * ld);
    shuffle(r, t);
    for (int l = 0; l < 4; ++l) {
      _mm256_storeu_ps(dst + l * ldd, _mm256_permute2f128_ps(r[l], r[l + 4], 0x20));
      _mm256_storeu_ps(dst + (l + 4) * ldd, _mm256_permute2f128_ps(r[l], r[l + 4], 0x31));
    }
  }
};
}  // namespace

namespace ca::kernels {
void gemm_avx2(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
               int ldc, Tri tri, bool bt) {
  gemm_tiled<Avx2>({m, n, k, a, lda, b, ldb, c, ldc, tri, bt});
}
}  // namespace ca::kernels
