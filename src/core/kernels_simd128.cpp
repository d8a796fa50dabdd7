// gemm on WebAssembly SIMD128 (the module is built with -msimd128): 4 floats per vector.
#include <wasm_simd128.h>

#include "kernels_isa.hpp"
#include "kernels_tile.hpp"

namespace {
struct Simd128 {
  using T = v128_t;
  static constexpr int NV = 2;  // 4 x 2 tiles: half the code of 4 x 3 in the module
  static constexpr bool kInPlace = false;
  static constexpr bool kPrefetchC = false;
  static constexpr int W = 4;
  static constexpr int MR = 4;
  static constexpr bool kPairs = true;  // kernels_tile.hpp's tile(): l two steps at a time
  // Measured slower in V8 (Node 20, (1, 1024, 768, 12), rotated in one invocation), with fewer
  // instructions per two steps than this tile's ~52: 2 x 4 (49; NS 16) proj 1.16x, 1.24x at
  // KC 384; l four steps an iteration (~50.5) proj 1.13x; packed A (48) ~1.1x. 3 x 3 spills.
  // A's rows KC floats apart (copied; one pointer, every row's float an immediate offset, ~50):
  // 1.15x, and 1.10-1.18x uncopied. V8 (x64) gives v128.load32_splat no displacement: each
  // offset becomes a base register (membase + offset), 8 of them, and the loop then recomputes
  // them and reloads its stack limit. This tile's 4 row pointers share 2 bases (+0, +4).
  // The blocked path's sizes (kernels_tile.hpp): a whole 768-deep strip of B (24 KB) with A's
  // 48 rows, no partial sums reloaded from C between k-blocks at d = 768. Against 256 / 96 / 64
  // in one process (Node, relaxed SIMD): proj 0.92x, out 0.92x, forward 0.93x at
  // (1, 1024, 768, 12); context 0.95x at (2, 1024, 64, 1). KC 512 or MC 96 lost part of it.
  // NS 32 (B's blocks 256 columns wide, 768 KB): A (3 MB at d = 768, from L3) is streamed once
  // per block, 3 times per 768-wide product instead of 6: proj ~0.9x of NS 16's; 8, 48, 96 lose.
  struct Blocks {
    static constexpr int KC = 768, MC = 48, NS = 32;
  };
  static T zero() { return wasm_f32x4_splat(0.0f); }
  static T load(const float* p) { return wasm_v128_load(p); }
  static void store(float* p, T x) { wasm_v128_store(p, x); }
  static T set1(float f) { return wasm_f32x4_splat(f); }
  static T add(T x, T y) { return wasm_f32x4_add(x, y); }
  static T mul(T x, T y) { return wasm_f32x4_mul(x, y); }
};
}  // namespace

namespace ca::kernels {
void gemm_simd128(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                  int ldc, Tri tri, bool bt) {
  gemm_tiled<Simd128>({m, n, k, a, lda, b, ldb, c, ldc, tri, bt});
}
}  // namespace ca::kernels
