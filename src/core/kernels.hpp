// Matmul kernels with BLAS's summation order: every output C(i, j) is the float32 sum of its
// k products A(i, l) * B(l, j), l = 0, 1, ..., k-1 in order, starting from +0, each product
// rounded before it is added (no fused multiply-add). That order is what PyTorch's reference
// BLAS gives, so every path here (scalar, SSE2, AVX2, AVX-512, WASM SIMD128) returns the same bits.
// Matrices are row-major with a leading dimension (floats from one row to the next), so a
// head of a (B, T, H, hd) tensor is a matrix of T rows, hd columns and ld = H * hd.
#pragma once

namespace ca::kernels {

// MultiHeadAttention's per-head matmuls need no transposed copies: head h of batch b is a
// strided matrix of the (B, T, D = H * hd) projections, so with off = b * T * D + h * hd,
//   gemm_nt(T, T, hd, q + off, D, k + off, D, scores, T, Tri::LowerOut);  // q_bh @ k_bh^T
//   gemm(T, hd, T, weights, T, v + off, D, context + off, D, Tri::LowerK);  // weights @ v_bh
// writes the context where .transpose(1, 2).contiguous().view(B, T, D) puts it.

// Which part of the output a causal pass needs.
enum class Tri {
  Full,      // every C(i, j)
  LowerOut,  // only C(i, j) for j <= i (others may be written with anything): masked scores
  LowerK,    // C(i, j) summed over l <= i only (A(i, l), l > i, is never read): weights @ values
};

// C (m, n) = A (m, k) @ B (k, n).
void gemm(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
          Tri tri = Tri::Full);

// C (m, n) = A (m, k) @ B (n, k)^T: the fast paths pack B's rows straight into their blocks,
// with no transposed copy. nn.Linear (B = weight) and the scores (B = keys).
void gemm_nt(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
             int ldc, Tri tri = Tri::Full);

// The naive reference (llm.c style): one output at a time, plain loops. The fast paths are
// tested against it bit for bit.
void gemm_reference(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                    int ldc, Tri tri = Tri::Full);

// w[j] = exp(w[j] - max) for j < n, the softmax's exponentials, with the bits of PyTorch's
// (SLEEF's expf, sleef.hpp). On CPUs with AVX2 and FMA 8 at a time (exp_avx2.cpp), in
// WASM SIMD128 4 at a time (exp_simd128.cpp; by relaxed SIMD's fused multiply-add where the
// engine has it: exp_relaxed.cpp), used only after a self-check against the scalar
// port; otherwise sleef::expf_u10 one by one.
void exp_shifted(float* w, int n, float max);
// Whether exp_shifted is vectorised; set_fast_exp(false) forces the scalar loop (tests,
// benchmarks). Returns whether the vectorised path is now on.
bool fast_exp();
bool set_fast_exp(bool on);
// Whether exp_shifted runs on WebAssembly's relaxed SIMD (exp_relaxed.cpp); false natively.
bool relaxed_exp();

// Rows per register tile of the active set's gemm: a thread split of the rows in blocks of whole
// tiles leaves none to the slower one-row tiles. 1 where there are no tiles or no threads (WASM).
int tile_rows();

// The instruction sets gemm can run on. The best one the CPU has is chosen at start-up.
enum class Isa { Reference, SSE2, AVX2, SIMD128, AVX512 };
const char* isa_name(Isa isa);
bool isa_supported(Isa isa);
Isa active_isa();
// For tests and benchmarks: run gemm on `isa` from now on. Returns false (and changes
// nothing) when this build or CPU lacks it.
bool force_isa(Isa isa);

}  // namespace ca::kernels
