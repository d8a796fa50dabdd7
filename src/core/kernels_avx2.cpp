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
};
}  // namespace

namespace ca::kernels {
void gemm_avx2(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
               int ldc, Tri tri, bool bt) {
  gemm_tiled<Avx2>({m, n, k, a, lda, b, ldb, c, ldc, tri, bt});
}
}  // namespace ca::kernels
