// The reference kernel, gemm_nt's packing for it, and the choice of instruction set: the gemm's
// (kernels_of) and the softmax's exp (vector_exp).
#include "kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "kernels_isa.hpp"
#include "sleef.hpp"

namespace ca::kernels {

void gemm_reference(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
                    int ldc, Tri tri) {
  for (int i = 0; i < m; ++i) {
    const int klim = tri == Tri::LowerK ? std::min(k, i + 1) : k;
    for (int j = 0; j < n; ++j) {
      if (tri == Tri::LowerOut && j > i) break;
      float acc = 0.0f;
      for (int l = 0; l < klim; ++l) acc += a[long(i) * lda + l] * b[long(l) * ldb + j];
      c[long(i) * ldc + j] = acc;
    }
  }
}

namespace {

// The fastest set isa_supported() finds.
Isa best_isa() {
  for (const Isa isa : {Isa::AVX512, Isa::AVX2, Isa::SSE2, Isa::SIMD128})
    if (isa_supported(isa)) return isa;
  return Isa::Reference;
}

Isa g_isa = best_isa();

// A set's gemm (bt: b is B^T) and its register tile's rows: the one table that dispatch() and
// tile_rows() read. The reference: no gemm here (dispatch's loops), one row.
using Gemm = void (*)(int m, int n, int k, const float* a, int lda, const float* b, int ldb,
                      float* c, int ldc, Tri tri, bool bt);
struct IsaKernels {
  Gemm gemm;
  int tile_rows;
};
IsaKernels kernels_of(Isa isa) {
  switch (isa) {
#if defined(CA_KERNELS_X86)
    case Isa::AVX512:
      return {gemm_avx512, kTileRowsAvx512};
    case Isa::AVX2:
      return {gemm_avx2, kTileRowsAvx2};
    case Isa::SSE2:
      return {gemm_sse2, kTileRowsSse2};
#endif
#if defined(__wasm_simd128__)
    case Isa::SIMD128:
      return {gemm_simd128, 1};  // one thread: no split of rows to align
#endif
    default:
      return {nullptr, 1};
  }
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::SSE2:
      return "sse2";
    case Isa::AVX2:
      return "avx2";
    case Isa::AVX512:
      return "avx512";
    case Isa::SIMD128:
      return "simd128";
    default:
      return "reference";
  }
}

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::Reference:
      return true;
#if defined(CA_KERNELS_X86)
    case Isa::SSE2:
      return true;
    case Isa::AVX2:
      return __builtin_cpu_supports("avx2");
    case Isa::AVX512:
      return __builtin_cpu_supports("avx512f");
#endif
#if defined(__wasm_simd128__)
    case Isa::SIMD128:
      return true;
#endif
    default:
      return false;
  }
}

Isa active_isa() { return g_isa; }

int tile_rows() { return kernels_of(g_isa).tile_rows; }

bool force_isa(Isa isa) {
  if (!isa_supported(isa)) return false;
  g_isa = isa;
  return true;
}

namespace {

// b is B (k, n), or with bt B^T (n, k): the fast paths pack either; the reference reads B.
void dispatch(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
              int ldc, Tri tri, bool bt) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // every sum is its starting +0
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) c[long(i) * ldc + j] = 0.0f;
    return;
  }
  if (const Gemm gemm = kernels_of(g_isa).gemm)
    return gemm(m, n, k, a, lda, b, ldb, c, ldc, tri, bt);
  if (!bt) return gemm_reference(m, n, k, a, lda, b, ldb, c, ldc, tri);
  // B^T (k, n), row-major; the buffer is kept for the next call on this thread.
  thread_local std::vector<float> packed;
  packed.resize(static_cast<std::size_t>(k) * n);
  for (int j = 0; j < n; ++j)
    for (int l = 0; l < k; ++l) packed[std::size_t(l) * n + j] = b[long(j) * ldb + l];
  gemm_reference(m, n, k, a, lda, packed.data(), n, c, ldc, tri);
}

}  // namespace

void gemm(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
          Tri tri) {
  dispatch(m, n, k, a, lda, b, ldb, c, ldc, tri, false);
}

float* pack_buffer(long n) {
  // Not zeroed: a block of KC x NC is 3 MB with AVX-512, and a small product packs a corner of
  // it; pages never written are never faulted in (a new thread's, a CLI run's first).
  thread_local std::unique_ptr<float[]> buffer;
  thread_local long size = 0;
#ifdef __EMSCRIPTEN__
  if (size < n) {
    buffer.reset(new float[static_cast<std::size_t>(n)]);
    size = n;
  }
  return buffer.get();
#else
  // Aligned to 64 bytes: a strip's row of 16 floats is then one cache line, and no AVX2 load
  // of it is split across two (new[] of a block returns 16 bytes into a page, so half of them
  // were): AVX2 on Zen 3, proj, scores and context 1-3% fewer cycles.
  constexpr long kAlign = 16;  // floats
  if (size < n) {
    buffer.reset(new float[static_cast<std::size_t>(n + kAlign)]);
    size = n;
  }
  const auto at = reinterpret_cast<std::uintptr_t>(buffer.get());
  return buffer.get() + (-(at / sizeof(float)) & (kAlign - 1));
#endif
}

void gemm_nt(int m, int n, int k, const float* a, int lda, const float* b, int ldb, float* c,
             int ldc, Tri tri) {
  dispatch(m, n, k, a, lda, b, ldb, c, ldc, tri, true);
}

namespace {

// The vectorised exp: AVX2 with FMA, or WASM relaxed SIMD where it is fused, else SIMD128;
// null when there is none.
using ExpShifted = void (*)(float* w, int n, float max);
ExpShifted vector_exp() {
#if defined(CA_KERNELS_X86)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return exp_shifted_avx2_fma;
#elif defined(__wasm_simd128__)
  return exp_relaxed_ready() ? exp_shifted_relaxed : exp_shifted_simd128;
#endif
  return nullptr;
}

// It is used where it agrees with the scalar port (sleef::expf_u10) on a sweep of the softmax's
// range and the edge cases. WebAssembly SIMD128's float operations have one result on every
// engine (no contraction): there it was checked once, on all 2^32 inputs; the relaxed-SIMD
// exp checks itself against it when it loads (exp_relaxed.cpp).
bool fast_exp_works() {
  const ExpShifted vector = vector_exp();
  if (vector == nullptr) return false;
#if defined(__wasm_simd128__)
  return true;
#else
  std::vector<float> x;
  for (int i = 0; i < 20000; ++i) x.push_back(-105.0f + 105.5f * float(i) / 20000.0f);
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {-inf, inf, std::nanf(""), -0.0f, 0.0f, 88.7f, -87.99f, -103.5f, 1e-30f, -1e-30f})
    x.push_back(v);
  std::vector<float> y = x;
  vector(y.data(), int(y.size()), 0.0f);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float want = sleef::expf_u10(x[i]);
    if (!(want == y[i] || (want != want && y[i] != y[i]))) return false;
  }
  return true;
#endif
}

bool g_fast_exp = fast_exp_works();

}  // namespace

bool fast_exp() { return g_fast_exp; }

bool relaxed_exp() {
#if defined(__wasm_simd128__)
  return g_fast_exp && exp_relaxed_ready();
#else
  return false;
#endif
}

bool set_fast_exp(bool on) {
  g_fast_exp = on && fast_exp_works();
  return g_fast_exp;
}

void exp_shifted(float* w, int n, float max) {
  static const ExpShifted vector = vector_exp();
  if (g_fast_exp) return vector(w, n, max);
  for (int j = 0; j < n; ++j) w[j] = sleef::expf_u10(w[j] - max);
}

}  // namespace ca::kernels
