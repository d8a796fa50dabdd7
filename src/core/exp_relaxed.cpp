// exp over a row by WebAssembly's relaxed SIMD, with the bits of sleef::expf_u10: SLEEF's AVX2
// steps, each fused multiply-add a f32x4.relaxed_madd (src/wasm/exp-relaxed-module.js writes
// that module; clang 14 cannot). relaxed_madd may be fused or not, as the engine likes, and
// only fused gives SLEEF's bits, so the module is used only where
// - the engine validates it (Chromium; Node 20 with --experimental-wasm-relaxed-simd), and
// - relaxed_madd is fused on 4 triples whose fused and unfused results differ, and
// - the kernel agrees with exp_shifted_simd128 by bits on the inputs whose steps round to a tie
//   and at the edges.
// Otherwise exp_shifted keeps exp_simd128.cpp. tests/wasm/kernels.cpp compares the two paths by
// bits on 2.7 M inputs.
#include <cstring>
#include <iterator>
#include <limits>

#include "kernels_isa.hpp"

namespace {
using Rows = void (*)(float* w, int n, float max);
}

// src/wasm/exp-relaxed.js: instantiates the module (size bytes at `bytes`) over the core's memory
// if the engine can, runs its f(fma) and puts its x(p, n, max) in `slot`'s table entry; returns
// slot, or null.
extern "C" Rows ca_exp_relaxed(const unsigned char* bytes, int size, Rows slot, float* fma);

namespace ca::kernels {

namespace {

const unsigned char kModule[] = {
#include "exp_relaxed.inc"  // written at build time by src/wasm/exp-relaxed-module.js
};

// The table entry the loader fills with the module's x: never called before.
void slot(float* w, int n, float max) { exp_shifted_simd128(w, n, max); }

Rows g_rows = nullptr;  // the module's x, once it passed

// Lane k: a b + c = 2^(k-24) fused; 0 as a product and a sum, and neither as c + a b.
bool fused(const float* fma) {
  for (int k = 0; k < 4; ++k)
    if (fma[12 + k] != 0x1p-24f * float(1 << k)) return false;
  return true;
}

// The kernel against exp_shifted_simd128, by bits, on the inputs whose 8th step sums, in double,
// to a tie (exp_simd128.cpp redoes those), and at the range's edges.
bool agrees() {
  constexpr float inf = std::numeric_limits<float>::infinity();
  static const float kCheck[] = {0x1.fffffep-23f,
                                 0x1.fffffep-22f,
                                 0x1.fffffap-21f,
                                 0x1.fffff6p-20f,  // the ties
                                 0x1.68005ap-19f,
                                 0x1.ffffeap-19f,
                                 0x1.ffffd6p-18f,  //
                                 -inf,
                                 inf,
                                 -0.0f,
                                 0.0f,
                                 88.72f,
                                 88.73f,
                                 -87.9f,
                                 -103.3f,
                                 -104.0f,
                                 100.0f,
                                 1e-40f};
  float x[std::size(kCheck)], want[std::size(kCheck)];
  std::memcpy(x, kCheck, sizeof x), std::memcpy(want, kCheck, sizeof x);
  exp_shifted_simd128(want, int(std::size(x)), 0.0f);
  exp_shifted_relaxed(x, int(std::size(x)), 0.0f);
  return std::memcmp(x, want, sizeof x) == 0;
}

bool load() {
  alignas(16) float fma[16];
  for (int k = 0; k < 4; ++k) {
    const float scale = float(1 << k);
    fma[k] = (1.0f + 0x1p-12f) * scale, fma[4 + k] = 1.0f + 0x1p-12f;
    fma[8 + k] = -(1.0f + 0x1p-11f) * scale, fma[12 + k] = -1.0f;
  }
  const Rows rows = ca_exp_relaxed(kModule, int(sizeof kModule), slot, fma);
  if (rows == nullptr || !fused(fma)) return false;
  g_rows = rows;
  if (agrees()) return true;
  g_rows = nullptr;
  return false;
}

}  // namespace

bool exp_relaxed_ready() {
  static const bool ready = load();
  return ready;
}

// The module takes groups of 4; the last 1-3 floats go through exp_shifted_simd128 (the same
// bits), one group padded with max.
void exp_shifted_relaxed(float* w, int n, float max) {
  const int body = n & ~3;
  if (body > 0) g_rows(w, body, max);
  if (body < n) exp_shifted_simd128(w + body, n - body, max);
}

}  // namespace ca::kernels
