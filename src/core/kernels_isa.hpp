// The kernels' entry points per instruction set, private to the core: each is defined in its
// own object (kernels_<isa>.cpp, exp_<isa>.cpp) compiled with that set's flags, and called by
// kernels.cpp's dispatch only when the CPU has the set. Declared here once, so that a
// definition that drifts from its call fails to compile instead of to link.
#pragma once

#include "kernels.hpp"

#if defined(__x86_64__) || defined(__i386__)
#define CA_KERNELS_X86 1
#endif

namespace ca::kernels {

// gemm / gemm_nt (bt: b is B^T) on the set's vectors, bit for bit the reference's.
#if defined(CA_KERNELS_X86)
// Their register tiles' rows (MR; tile_rows() reads them).
constexpr int kTileRowsSse2 = 4, kTileRowsAvx2 = 6, kTileRowsAvx512 = 8;
void gemm_sse2(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
               int ldc, Tri tri, bool bt);
void gemm_avx2(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
               int ldc, Tri tri, bool bt);
void gemm_avx512(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                 int ldc, Tri tri, bool bt);
// w[i] = exp(w[i] - max), SLEEF's AVX2 expf (needs AVX2 and FMA).
void exp_shifted_avx2_fma(float* w, int n, float max);
#endif
#if defined(__wasm_simd128__)
void gemm_simd128(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                  int ldc, Tri tri, bool bt);
void exp_shifted_simd128(float* w, int n, float max);
// Its steps, for tests/wasm/kernels.cpp: out[k * n + i] is the k-th of kExpSteps values for x[i]
// (n a multiple of 4): as float, SLEEF's s (step 2), u after each of steps 3-7, the 8th step's
// sum s * s * u + s, a mask of the lanes whose 8th sum the kernel finds halfway (it redoes them),
// and the group's result before that. The kernel calls nothing of it: the module leaves it out.
constexpr int kExpSteps = 9;
void exp_steps_simd128(const float* x, int n, float* out);
// The same exp by relaxed SIMD's fused multiply-add (exp_relaxed.cpp): ready where the engine
// has it, fuses it and the kernel passed its self-check (loaded on the first call).
bool exp_relaxed_ready();
void exp_shifted_relaxed(float* w, int n, float max);
#endif

}  // namespace ca::kernels
