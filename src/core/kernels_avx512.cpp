// gemm on AVX-512F: 16 floats per vector, 32 registers, so 8 x 3 tiles (24 accumulators, 3 B
// vectors, a broadcast and a product). Built with -mavx512f, which lets GCC use FMA: the
// core's -ffp-contract=off keeps every mul and add separate (a fused one would change bits);
// called only when the CPU reports AVX-512F.
#include <immintrin.h>

#include "kernels_isa.hpp"
#include "kernels_tile.hpp"

namespace {
struct Avx512 {
  using T = __m512;
  static constexpr int NV = 3;
  static constexpr bool kInPlace = true;
  static constexpr bool kPairs = false;
  static constexpr bool kPrefetchC = false;
  static constexpr int W = 16;
  static constexpr int MR = ca::kernels::kTileRowsAvx512;
  static T zero() { return _mm512_setzero_ps(); }
  static T load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, T x) { _mm512_storeu_ps(p, x); }
  static T set1(float f) { return _mm512_set1_ps(f); }
  static T add(T x, T y) { return _mm512_add_ps(x, y); }
  static T mul(T x, T y) { return _mm512_mul_ps(x, y); }
};
}  // namespace

namespace ca::kernels {
void gemm_avx512(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                 int ldc, Tri tri, bool bt) {
  gemm_tiled<Avx512>({m, n, k, a, lda, b, ldb, c, ldc, tri, bt});
}
}  // namespace ca::kernels
