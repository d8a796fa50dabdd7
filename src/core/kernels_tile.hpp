// The register-tiled gemm, written once over a vector type V and included by one .cpp per
// instruction set (kernels_sse2.cpp, kernels_avx2.cpp, kernels_simd128.cpp), each compiled
// with its own flags. V provides: T, W (floats per vector), NV (the widest tile, in vectors),
// zero(), load(p), store(p, x), set1(f), add(x, y), mul(x, y). Everything here has internal linkage and includes no
// library header, so no AVX2 instruction can leak into another object through a shared
// inline function.
//
// Each output keeps the reference order: acc = +0, then acc = acc + A(i, l) * B(l, j) for
// l = 0, 1, ... (mul, then add). Vectors run across W outputs of a row (j), registers hold
// MR rows x NV vectors, so each B load and A broadcast feeds several outputs.
#pragma once

#include "kernels.hpp"

namespace {

using ca::kernels::Tri;

struct Args {
  int m, n, k;
  const float* a;
  int lda;
  const float* b;
  int ldb;
  float* c;
  int ldc;
  Tri tri;
};

inline int min_(int x, int y) { return x < y ? x : y; }

// Rows i0 .. i0 + MR - 1 x columns j0 .. j0 + NV * W - 1.
template <class V, int MR, int NV>
inline void tile(const Args& g, int i0, int j0) {
  using T = typename V::T;
  T acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = V::zero();
  // LowerK: row i sums over l <= i. Every row of the tile takes l < kmain; in kmain <= l <
  // kend only the rows with i >= l do.
  const bool lower_k = g.tri == Tri::LowerK;
  const int kend = lower_k ? min_(g.k, i0 + MR) : g.k;
  const int kmain = lower_k ? min_(g.k, i0 + 1) : g.k;
  const float* a = g.a + static_cast<long>(i0) * g.lda;
  const float* b = g.b + j0;
  int l = 0;
  for (; l < kmain; ++l) {
    const float* bl = b + static_cast<long>(l) * g.ldb;
    T bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = V::load(bl + v * V::W);
    for (int r = 0; r < MR; ++r) {
      const T x = V::set1(a[static_cast<long>(r) * g.lda + l]);
      for (int v = 0; v < NV; ++v) acc[r][v] = V::add(acc[r][v], V::mul(x, bv[v]));
    }
  }
  for (; l < kend; ++l) {
    const float* bl = b + static_cast<long>(l) * g.ldb;
    T bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = V::load(bl + v * V::W);
    for (int r = l - i0; r < MR; ++r) {
      const T x = V::set1(a[static_cast<long>(r) * g.lda + l]);
      for (int v = 0; v < NV; ++v) acc[r][v] = V::add(acc[r][v], V::mul(x, bv[v]));
    }
  }
  float* c = g.c + static_cast<long>(i0) * g.ldc + j0;
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) V::store(c + static_cast<long>(r) * g.ldc + v * V::W, acc[r][v]);
}

// Columns [j0, j1) of rows i0 .. i0 + MR - 1 one output at a time (fewer than W left).
template <int MR>
inline void scalar_tile(const Args& g, int i0, int j0, int j1) {
  for (int r = 0; r < MR; ++r) {
    const int i = i0 + r;
    const int klim = g.tri == Tri::LowerK ? min_(g.k, i + 1) : g.k;
    const float* a = g.a + static_cast<long>(i) * g.lda;
    for (int j = j0; j < j1; ++j) {
      float acc = 0.0f;
      for (int l = 0; l < klim; ++l) acc += a[l] * g.b[static_cast<long>(l) * g.ldb + j];
      g.c[static_cast<long>(i) * g.ldc + j] = acc;
    }
  }
}

// Columns [jb, je) of rows i0 .. i0 + MR - 1.
template <class V, int MR>
inline void row_block(const Args& g, int i0, int jb, int je) {
  constexpr int W = V::W;
  int j = jb;
  if constexpr (V::NV == 3) {
    for (; j + 3 * W <= je; j += 3 * W) tile<V, MR, 3>(g, i0, j);
    if (j + 2 * W <= je) tile<V, MR, 2>(g, i0, j), j += 2 * W;
  } else {
    for (; j + 2 * W <= je; j += 2 * W) tile<V, MR, 2>(g, i0, j);
  }
  if (j + W <= je) tile<V, MR, 1>(g, i0, j), j += W;
  if (j >= je) return;
  // LowerOut: a last vector may run past je into the unused upper triangle.
  if (g.tri == Tri::LowerOut && j + W <= g.n)
    tile<V, MR, 1>(g, i0, j);
  else
    scalar_tile<MR>(g, i0, j, je);
}

// Rows in blocks of 4 (then 1), over the columns [jb, je).
template <class V>
inline void rows(const Args& g, int jb, int je) {
  constexpr int MR = 4;
  int i = 0;
  for (; i + MR <= g.m; i += MR) {
    const int end = g.tri == Tri::LowerOut ? min_(je, i + MR) : je;  // j <= i needed only
    if (end > jb) row_block<V, MR>(g, i, jb, end);
  }
  for (; i < g.m; ++i) {
    const int end = g.tri == Tri::LowerOut ? min_(je, i + 1) : je;
    if (end > jb) row_block<V, 1>(g, i, jb, end);
  }
}

template <class V>
void gemm_tiled(const Args& g) {
  // B small enough for L2 (scores, context, small linears): rows outermost, B stays cached.
  // Larger (GPT-2-size linears): panels of B columns outermost, each panel cached across rows.
  if (static_cast<long>(g.k) * g.n <= 128 * 1024) {
    rows<V>(g, 0, g.n);
    return;
  }
  constexpr int panel = 12 * V::W;
  for (int jb = 0; jb < g.n; jb += panel) rows<V>(g, jb, min_(g.n, jb + panel));
}

}  // namespace
