// gemm on SSE2 (every x86-64 CPU): 4 floats per vector.
#include <emmintrin.h>

#include "kernels_isa.hpp"
#include "kernels_tile.hpp"

namespace {
struct Sse2 {
  using T = __m128;
  static constexpr int NV = 3;
  static constexpr bool kInPlace = true;
  static constexpr bool kPairs = false;
  static constexpr bool kPrefetchC = false;
  static constexpr int W = 4;
  static constexpr int MR = ca::kernels::kTileRowsSse2;
  static T zero() { return _mm_setzero_ps(); }
  static T load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, T x) { _mm_storeu_ps(p, x); }
  static T set1(float f) { return _mm_set1_ps(f); }
  static T add(T x, T y) { return _mm_add_ps(x, y); }
  static T mul(T x, T y) { return _mm_mul_ps(x, y); }
};
}  // namespace

namespace ca::kernels {
void gemm_sse2(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
               int ldc, Tri tri, bool bt) {
  gemm_tiled<Sse2>({m, n, k, a, lda, b, ldb, c, ldc, tri, bt});
}
}  // namespace ca::kernels
