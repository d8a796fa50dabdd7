// The register-tiled gemm, written once over a vector type V and included by one .cpp per
// instruction set (kernels_sse2.cpp, kernels_avx2.cpp, kernels_simd128.cpp), each compiled
// with its own flags. V provides: T, W (floats per vector), MR (rows per tile), NV (the widest
// tile, in vectors; up to 4), kInPlace (whether small products skip the packing), kPairs
// (whether tile() takes l two steps at a time), kPrefetchC (whether row_blocks() prefetches the
// next tile's C), zero(), load(p), store(p, x), set1(f), add(x, y), mul(x, y). k > 0
// (kernels.cpp handles k = 0). Everything here has internal linkage and includes no library
// header, so no AVX2 instruction can leak into another object through a shared inline function.
//
// Each output keeps the reference order: acc = +0, then acc = acc + A(i, l) * B(l, j) for
// l = 0, 1, ... (mul, then add). Vectors run across W outputs of a row (j), registers hold
// MR rows x NV vectors, so each B load and A broadcast feeds several outputs.
#pragma once

#include "kernels.hpp"

namespace ca::kernels {
// A per-thread buffer of at least n floats, kept for the next call (kernels.cpp).
float* pack_buffer(long n);
}  // namespace ca::kernels

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
  bool bt;  // b holds B^T (n, k): B(l, j) = b[j * ldb + l]
};

inline int min_(int x, int y) { return x < y ? x : y; }

// Rows i0 .. i0 + MR - 1 x columns j0 .. j0 + NV * W - 1 of C, summed over l in [lb, le)
// (LowerK: row i over l <= i only). b points at B(0, j0), or at a packed panel's B(lb, j0).
// `more` resumes from the partial sums in C (a k-block after the first: a stored float
// reloaded is the same float, so the bits are those of one pass). Only the first `cols`
// columns are stored (a packed panel's padding computes zeros nobody reads).
template <class V, int MR, int NV, bool PA = false>
inline void tile(const Args& g, int i0, int j0, const float* b, int ldb, int lb, int le, bool more,
                 int cols, const float* ap = nullptr) {
  using T = typename V::T;
  constexpr int W = V::W;
  float* c = g.c + static_cast<long>(i0) * g.ldc + j0;
  T acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) {
      float* cr = c + static_cast<long>(r) * g.ldc + v * W;
      if (!more) {
        acc[r][v] = V::zero();
      } else if (cols >= (v + 1) * W) {
        acc[r][v] = V::load(cr);
      } else {  // a partial last vector: through a buffer, never past column j0 + cols
        float part[W] = {};
        for (int x = 0; x < min_(cols - v * W, W); ++x) part[x] = cr[x];
        acc[r][v] = V::load(part);
      }
    }
  // LowerK: row i sums over l <= i. Every row of the tile takes l < kmain; in kmain <= l <
  // kend only the rows with i >= l do.
  const bool lower_k = g.tri == Tri::LowerK;
  const int kend = lower_k ? min_(le, i0 + MR) : le;
  const int kmain = lower_k ? min_(le, i0 + 1) : le;
  // Walking pointers, one per row of A in place and one for B: WASM's compiler (no loop strength
  // reduction under Emscripten) would otherwise recompute every address from l at every step.
  const float* ar[MR];
  if constexpr (!PA)
    for (int r = 0; r < MR; ++r) ar[r] = g.a + static_cast<long>(i0 + r) * g.lda + lb;
  const float* bl = b;
  int l = lb;
  // One step of l: B's row at bq, times A's float of row r, a(r) (called for every row in
  // order: the in-place one moves that row's pointer). In the tail (kmain <= l) the rows
  // i0 + r < l take no product.
  const auto step = [&](const float* bq, auto a, bool tail) __attribute__((always_inline)) {
    T bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = V::load(bq + v * W);
    for (int r = 0; r < MR; ++r) {
      const float ar_l = a(r);
      if (tail && i0 + r < l) continue;  // constant bounds keep acc in registers
      const T x = V::set1(ar_l);
      for (int v = 0; v < NV; ++v) acc[r][v] = V::add(acc[r][v], V::mul(x, bv[v]));
    }
  };
  if constexpr (PA) {
    // A packed (pack_a): A(i0 + r, l) at ap[(l - lb) * MR + r], one stream instead of MR rows.
    const auto packed = [&](int r) { return ap[r]; };
    for (; l < kmain; ++l, bl += ldb, ap += MR) step(bl, packed, false);
    for (; l < kend; ++l, bl += ldb, ap += MR) step(bl, packed, true);
  } else {
    const auto in_place = [&](int r) { return *ar[r]++; };
    if constexpr (V::kPairs) {
      // WASM: two steps of l per iteration, each its own block (in one block the compilers
      // hoist both steps' loads and V8 spills accumulators). The second step's A floats are
      // immediate offsets and its B row ldb on (a constant from panel_tile), so each pointer
      // moves once per two steps, and both exits compare B's pointer: no counter. V8: 26.5
      // instructions per l instead of 30, for the same 22 loads, multiplies and adds.
      if (kmain > lb) {
        const float* const bend = b + static_cast<long>(kmain - lb) * ldb;
        const float* const blast = bend - ldb;
        const auto first = [&](int r) { return ar[r][0]; };  // the pair's A floats
        const auto second = [&](int r) { return ar[r][1]; };
        for (;;) {
          step(bl, first, false);
          if (bl == blast) {
            for (int r = 0; r < MR; ++r) ar[r] += 1;
            break;
          }
          step(bl + ldb, second, false);
          for (int r = 0; r < MR; ++r) ar[r] += 2;
          bl += 2 * ldb;
          if (bl == bend) break;
        }
        bl = bend;
        l = kmain;
      }
    } else {
      for (; l < kmain; ++l, bl += ldb) step(bl, in_place, false);
    }
    for (; l < kend; ++l, bl += ldb) step(bl, in_place, true);
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) {
      float* cr = c + static_cast<long>(r) * g.ldc + v * W;
      if (cols >= (v + 1) * W) {
        V::store(cr, acc[r][v]);
      } else if (cols > v * W) {
        float part[W];
        V::store(part, acc[r][v]);
        for (int x = 0; x < min_(cols - v * W, W); ++x) cr[x] = part[x];
      }
    }
}

// The unblocked path's tile: B in place, every l, all NV * W columns.
template <class V, int MR, int NV>
inline void tile(const Args& g, int i0, int j0) {
  tile<V, MR, NV>(g, i0, j0, g.b + j0, g.ldb, 0, g.k, false, NV * V::W);
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

// Columns [j, je) of rows i0 .. i0 + MR - 1 in tiles of NV vectors, then of fewer; returns
// where the whole vectors end.
template <class V, int MR, int NV>
inline int vector_tiles(const Args& g, int i0, int j, int je) {
  constexpr int W = V::W;
  for (; j + NV * W <= je; j += NV * W) tile<V, MR, NV>(g, i0, j);
  if constexpr (NV > 1) return vector_tiles<V, MR, NV - 1>(g, i0, j, je);
  return j;
}

// Columns [jb, je) of rows i0 .. i0 + MR - 1.
template <class V, int MR>
inline void row_block(const Args& g, int i0, int jb, int je) {
  constexpr int W = V::W;
  const int j = vector_tiles<V, MR, V::NV>(g, i0, jb, je);
  if (j >= je) return;
  // LowerOut: a last vector may run past je into the unused upper triangle.
  if (g.tri == Tri::LowerOut && j + W <= g.n)
    tile<V, MR, 1>(g, i0, j);
  else
    scalar_tile<MR>(g, i0, j, je);
}

// Rows in blocks of MR (then 1), over the columns [jb, je).
template <class V>
inline void rows(const Args& g, int jb, int je) {
  constexpr int MR = V::MR;
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

// A tile over a packed strip of pw = NV * W (or fewer, padded) columns, `cols` of them real.
template <class V, int MR, int NV, bool PA = false>
inline void panel_tile(const Args& g, int i, int j0, const float* p, int pw, int lb, int le,
                       int cols, const float* ap = nullptr) {
  if constexpr (NV > 1)
    if (pw < NV * V::W) return panel_tile<V, MR, NV - 1, PA>(g, i, j0, p, pw, lb, le, cols, ap);
  // pw == NV * W here: kPairs' tile takes it as a constant (B's second row an immediate offset).
  tile<V, MR, NV, PA>(g, i, j0, p, V::kPairs ? NV * V::W : pw, lb, le, lb > 0, cols, ap);
}

// The blocked path's sizes: B's blocks of KC rows x NC = NS * NR columns, A's of MC rows. A V
// with its own `Blocks` (AVX2's, measured on Zen 3) uses them; the others these.
struct DefaultBlocks {
  static constexpr int KC = 256, MC = 96, NS = 64;
};
template <class V>
auto blocks_of(int) -> typename V::Blocks;
template <class V>
DefaultBlocks blocks_of(long);
template <class V>
using Blocks = decltype(blocks_of<V>(0));

// A V with transpose(src, ld, dst, ldd), dst[l * ldd + x] = src[x * ld + l] for x, l < W (AVX2's:
// 8 x 8 in registers), packs B's whole strips a vector at a time (pack_block); the others float
// by float (WASM: its module's bytes unchanged).
template <class V>
constexpr auto fast_pack(int) -> decltype(V::transpose(nullptr, 0L, nullptr, 0), true) {
  return true;
}
template <class V>
constexpr bool fast_pack(long) {
  return false;
}

// A V with kPackA true (AVX2's) packs A's rows too (pack_a), the others read them in place.
template <class V>
constexpr auto packs_a(int) -> decltype(V::kPackA) {
  return V::kPackA;
}
template <class V>
constexpr bool packs_a(long) {
  return false;
}

// A's rows [ic, ie) x columns [pc, pc + kc) in panels of MR whole rows, each l-major (panel at
// (i - ic) * KC: A(i + r, pc + l) at l * MR + r), so that a tile's broadcasts read one stream
// instead of MR rows lda apart (AVX2 on Zen 3, 8 panels of 6 x 768 over one 768 x 16 strip:
// 6.27 cycles per step packed, 6.73 in place; ideal 6). LowerK: a panel only up to its last
// row's l. Rows past the last whole panel stay in place (their tiles read them there).
template <class V>
__attribute__((noinline)) void pack_a(const Args& g, float* pa, int ic, int ie, int pc, int kc) {
  constexpr int MR = V::MR, KC = Blocks<V>::KC;
  const bool lower_k = g.tri == Tri::LowerK;
  for (int i = ic; i + MR <= ie; i += MR) {
    float* p = pa + static_cast<long>(i - ic) * KC;
    const int lend = lower_k ? min_(kc, i + MR - pc) : kc;
    const float* src = g.a + static_cast<long>(i) * g.lda + pc;
    int l = 0;
    if constexpr (MR == 6)  // 8 columns at a time (V::transpose6 writes 2 floats past them)
      for (; l + 8 <= lend; l += 8) V::transpose6(src + l, g.lda, p + l * MR);
    for (; l < lend; ++l)
      for (int r = 0; r < MR; ++r) p[l * MR + r] = src[static_cast<long>(r) * g.lda + l];
  }
}

// B's block of kc rows (from pc) x nc columns (from jc), packed in strips of NR = NV * W
// columns (kc x NR contiguous, the last strip padded with zeros to whole vectors).
template <class V>
__attribute__((noinline)) void pack_block(const Args& g, float* packed, int jc, int nc, int pc,
                                          int kc) {
  constexpr int W = V::W, NR = V::NV * W, KC = Blocks<V>::KC;
  int s = 0;  // strips packed
  if constexpr (fast_pack<V>(0)) {
    // The whole strips: B^T's (n, k) by W x W transposes in registers; B's 8 rows at a time
    // across every strip, a vector at a time. Float by float, strip by strip, the packing was
    // 3.5% of the three products' cycles at (1, 1024, 768) (the context's 5%: 64 bytes from each
    // of kc rows, lines ldb apart, one float at a time); now 2.1%. Same floats, same places.
    const int strips = nc / NR;
    if (g.bt) {
      for (; s < strips; ++s) {
        float* p = packed + static_cast<long>(s) * NR * KC;
        const float* src = g.b + static_cast<long>(jc + s * NR) * g.ldb + pc;
        int l = 0;
        for (; l + W <= kc; l += W)
          for (int v = 0; v < V::NV; ++v)
            V::transpose(src + static_cast<long>(v) * W * g.ldb + l, g.ldb, p + l * NR + v * W, NR);
        for (; l < kc; ++l)
          for (int x = 0; x < NR; ++x) p[l * NR + x] = src[static_cast<long>(x) * g.ldb + l];
      }
    } else {
      for (int l0 = 0; l0 < kc; l0 += 8)
        for (int t = 0; t < strips; ++t) {
          float* p = packed + static_cast<long>(t) * NR * KC;
          for (int l = l0; l < min_(kc, l0 + 8); ++l) {
            const float* src = g.b + static_cast<long>(pc + l) * g.ldb + jc + t * NR;
            for (int v = 0; v < V::NV; ++v) V::store(p + l * NR + v * W, V::load(src + v * W));
          }
        }
      s = strips;
    }
  }
  for (; s * NR < nc; ++s) {
    const int w = min_(NR, nc - s * NR), pw = (w + W - 1) / W * W;
    float* p = packed + static_cast<long>(s) * NR * KC;
    if (g.bt) {
      // Row by row of the strip: its pw columns are read ldb apart, written contiguously (a
      // column at a time wrote kc lines 64 B apart per column, more than L1 holds: 2.4x slower).
      const float* src = g.b + static_cast<long>(jc + s * NR) * g.ldb + pc;
      for (int l = 0; l < kc; ++l)
        for (int x = 0; x < pw; ++x)
          p[l * pw + x] = x < w ? src[static_cast<long>(x) * g.ldb + l] : 0.0f;
    } else {
      for (int l = 0; l < kc; ++l) {
        const float* src = g.b + static_cast<long>(pc + l) * g.ldb + jc + s * NR;
        for (int x = 0; x < w; ++x) p[l * pw + x] = src[x];
        for (int x = w; x < pw; ++x) p[l * pw + x] = 0.0f;
      }
    }
  }
}

// Rows [ic, ie) of C over the packed block: columns [jc, jc + nc), l in [pc, pc + kc). A call
// of its own (noinline), so that a long gemm is many calls: V8 runs a wasm function's call to
// its end in the code it started in, and only the first calls are its baseline (Liftoff) code.
// `pa`: A's packed panels (pack_a), or nothing. A pack rather than a pointer that may be null,
// so a V that never packs A (SIMD128) compiles to the code it had before: same wasm bytes.
template <class V, class... PA>
__attribute__((noinline)) void row_blocks(const Args& g, const float* packed, int ic, int ie,
                                          int jc, int nc, int pc, int kc, PA... pa) {
  constexpr int W = V::W, MR = V::MR, NR = V::NV * W, KC = Blocks<V>::KC;
  const bool lower_out = g.tri == Tri::LowerOut;
  for (int s = 0; s * NR < nc; ++s) {
    const int j0 = jc + s * NR;
    if (lower_out && j0 >= ie) break;
    const int w = min_(NR, nc - s * NR), pw = (w + W - 1) / W * W;
    const float* p = packed + static_cast<long>(s) * NR * KC;
    int i = ic;
    for (; i + MR <= ie; i += MR) {
      if (lower_out && j0 > i + MR - 1) continue;
      if constexpr (V::kPrefetchC) {
        // The next tile's C rows (the next strip's first tile after the last) into L1 while
        // this one runs: its stores, and a later k-block's loads of partial sums, otherwise
        // wait on L2 or L3 at the tile's ends (a prefetch past C never faults). AVX2 on Zen 3:
        // 2-3% less time in each gemm at d = 768.
        const bool last = i + 2 * MR > ie;
        const int in = last ? ic : i + MR, jn = last ? j0 + NR : j0;
        for (int r = 0; r < MR && jn < jc + nc; ++r) {
          const float* cn = g.c + static_cast<long>(in + r) * g.ldc + jn;
          __builtin_prefetch(cn, 1);
          __builtin_prefetch(cn + NR - 1, 1);
        }
      }
      if constexpr (sizeof...(PA) == 1)  // A's panels (pack_a) from pa
        panel_tile<V, MR, V::NV, true>(g, i, j0, p, pw, pc, pc + kc, w,
                                       (pa + ... + (static_cast<long>(i - ic) * KC)));
      else
        panel_tile<V, MR, V::NV>(g, i, j0, p, pw, pc, pc + kc, w);
    }
    for (; i < ie; ++i) {
      if (lower_out && j0 > i) continue;
      panel_tile<V, 1, V::NV>(g, i, j0, p, pw, pc, pc + kc, w);
    }
  }
}

// The blocked path (Goto's loop order) for B too big for L2: B is packed block by block,
// KC rows x NC columns (pack_block); a strip stays in L1 (or L2) while the tiles of MC rows of A
// (in L2) run over it. Every output still sums over l in order: block after block, each resuming
// from the partial sum stored in C.
// A packed whole (packs_a) up to this many floats (32 MB: x at (8, 1024, 768) is 25 MB).
constexpr long kWholeA = 8L << 20;

template <class V>
void gemm_blocked(const Args& g) {
  constexpr int MR = V::MR, NC = Blocks<V>::NS * V::NV * V::W;
  constexpr int KC = Blocks<V>::KC, MC = Blocks<V>::MC;
  static_assert(MC % MR == 0, "row blocks of whole tiles");
  const bool lower_out = g.tri == Tri::LowerOut, lower_k = g.tri == Tri::LowerK;
  // LowerOut: only columns j <= i, so none past the last row.
  const int n = lower_out ? min_(g.n, g.m) : g.n;
  // B's block, then (packs_a) A whole: every k-block's panels (pack_a), packed in the first block
  // of columns and read by the others, where there are others (one block: a thread's 192 columns
  // of a linear on 2 threads, x read once either way, was 1-9% slower packed) and it takes at
  // most kWholeA floats; else A in place. (A block of MC x KC packed for every block of columns
  // instead: proj at d = 768 packed x 3 times, and was no faster than in place.)
  const int nkb = (g.k + KC - 1) / KC, panels = g.m / MR;
  const long whole_a = static_cast<long>(nkb) * panels * MR * KC;
  const bool pack_whole_a = packs_a<V>(0) && n > NC && whole_a <= kWholeA;
  float* const packed =
      ca::kernels::pack_buffer(static_cast<long>(KC) * NC + (pack_whole_a ? whole_a + 8 : 0));
  float* const pa = packed + static_cast<long>(KC) * NC;
  for (int jc = 0; jc < n; jc += NC) {
    const int nc = min_(NC, n - jc);
    for (int pc = 0; pc < g.k; pc += KC) {
      const int kc = min_(KC, g.k - pc);
      pack_block<V>(g, packed, jc, nc, pc, kc);
      // LowerK: rows i < pc take nothing from this block. (LowerOut: row_blocks returns at once
      // for rows all above the block's columns, i < jc.)
      for (int ic = lower_k ? pc / MR * MR : 0; ic < g.m; ic += MC) {
        const int ie = min_(g.m, ic + MC);
        if constexpr (packs_a<V>(0)) {
          if (pack_whole_a) {
            float* const a = pa + (static_cast<long>(pc / KC) * panels + ic / MR) * MR * KC;
            if (jc == 0) pack_a<V>(g, a, ic, ie, pc, kc);
            row_blocks<V>(g, packed, ic, ie, jc, nc, pc, kc, static_cast<const float*>(a));
            continue;
          }
        }
        row_blocks<V>(g, packed, ic, ie, jc, nc, pc, kc);
      }
    }
  }
}

template <class V>
void gemm_tiled(const Args& g) {
  // Small B (up to 128 KB: the linears at d = 64, short sequences): rows outermost, B read
  // in place. Larger (scores and context above T = 512 at d = 64, GPT-2-size linears): blocked.
  // WASM runs the blocked path alone: one path is less code in the module.
  if (V::kInPlace && static_cast<long>(g.k) * g.n <= 32 * 1024) {
    if (!g.bt) return rows<V>(g, 0, g.n);
    float* const b = ca::kernels::pack_buffer(static_cast<long>(g.k) * g.n);  // B (k, n)
    for (int j = 0; j < g.n; ++j)
      for (int l = 0; l < g.k; ++l)
        b[static_cast<long>(l) * g.n + j] = g.b[static_cast<long>(j) * g.ldb + l];
    Args h = g;
    h.b = b;
    h.ldb = g.n;
    h.bt = false;
    return rows<V>(h, 0, g.n);
  }
  gemm_blocked<V>(g);
}

}  // namespace
