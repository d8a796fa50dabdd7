// The WebAssembly SIMD128 kernels against the naive reference, bit for bit, run in Node by
// tests/js/kernels.test.js (native builds test their own paths in tests/test_kernels.cpp; the
// WASM module has no Catch2). Prints one JSON line: how many cases and values were compared,
// how many differed, and the first few that did (what, where, wanted and got bits).
//   gemm, gemm_nt: every (m, n, k) of the edge sizes below, each Tri mode, padded leading
//     dimensions; then shapes across the blocked path's edges (k blocks of 768, rows in 48,
//     column blocks of 256: kernels_simd128.cpp's Blocks) and at attention sizes.
//   exp_shifted: 2^20 floats spread over [-110, 90] by their bits, the special values and the
//     inputs whose fused steps round to a tie (the lanes the kernel must redo one by one),
//     shifted by several maxima, every tail length; and each of its steps' results for 2.7 M
//     inputs against SLEEF's fused steps (exp_binades.cpp's proof, sampled).
//   ca::fma, ca::fma_exact: sums that land halfway between two floats in double.
//   The relaxed-SIMD exp (exp_relaxed.cpp), where the engine runs it (Node with
//   --experimental-wasm-relaxed-simd: kernels.test.js runs this file with and without): the
//   same 2.7 M inputs against sleef::expf_u10, every tail length; exp_shifted, above, is then
//   the relaxed path too. Its module's constants against sleef.hpp's, by bits, everywhere.
#include "kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fma.hpp"
#include "kernels_isa.hpp"
#include "sleef.hpp"

namespace {

using ca::kernels::Tri;

long g_cases = 0, g_values = 0, g_bad = 0;
std::string g_first;

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

void compare(const char* what, const std::string& where, float want, float got) {
  ++g_values;
  if (bits(want) == bits(got) || (want != want && got != got)) return;
  if (g_bad++ < 5) {
    char line[200];
    std::snprintf(line, sizeof line, "%s%s %s: want 0x%08x got 0x%08x", g_first.empty() ? "" : "; ",
                  what, where.c_str(), bits(want), bits(got));
    g_first += line;
  }
}

std::vector<float> normals(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// gemm and gemm_nt (on B^T) against gemm_reference for one shape; C starts as NaN (LowerOut:
// only j <= i is compared, the rest may hold anything).
void check_gemm(int m, int n, int k, Tri tri, int pad, std::mt19937& rng) {
  const int ka = tri == Tri::LowerK ? std::max(k, m) : k;  // LowerK's A is at least m wide
  const int lda = ka + pad, ldb = n + pad, ldc = n + pad, ldbt = k + pad;
  const std::vector<float> a = normals(std::size_t(m) * lda, rng),
                           b = normals(std::size_t(k) * ldb, rng);
  std::vector<float> bt(std::size_t(n) * ldbt, std::nanf(""));
  for (int l = 0; l < k; ++l)
    for (int j = 0; j < n; ++j) bt[std::size_t(j) * ldbt + l] = b[std::size_t(l) * ldb + j];
  std::vector<float> want(std::size_t(m) * ldc, std::nanf("")), got = want, got_nt = want;
  ca::kernels::gemm_reference(m, n, k, a.data(), lda, b.data(), ldb, want.data(), ldc, tri);
  ca::kernels::gemm(m, n, k, a.data(), lda, b.data(), ldb, got.data(), ldc, tri);
  ca::kernels::gemm_nt(m, n, k, a.data(), lda, bt.data(), ldbt, got_nt.data(), ldc, tri);
  const std::string where = "m " + std::to_string(m) + " n " + std::to_string(n) + " k " +
                            std::to_string(k) + " tri " + std::to_string(int(tri));
  ++g_cases;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      if (tri == Tri::LowerOut && j > i) continue;
      const std::size_t at = std::size_t(i) * ldc + j;
      const std::string cell = where + " C(" + std::to_string(i) + ", " + std::to_string(j) + ")";
      compare("gemm", cell, want[at], got[at]);
      compare("gemm_nt", cell, want[at], got_nt[at]);
    }
}

// The inputs x where a fused step of SLEEF's exp (the fifth to the eighth) sums, in double, to
// exactly halfway between two floats, over every float in [-104, 100] (tests/golden/exp_ties.cpp).
// In the first 7 the double sum was itself rounded, so float(double) may not be the fused result
// (the kernel rounds step 6 by a constant, exp_binades.cpp, and checks step 8, redoing such
// lanes); in the others the sum was exact.
const std::uint32_t kTies[] = {
    0x347fffff, 0x34ffffff, 0x357ffffd, 0x35fffffb, 0x3634002d, 0x367ffff5, 0x36ffffeb, 0x34000000,
    0x3a000000, 0x3c000000, 0x3e704800, 0x3e800000, 0x3ea321c1, 0x3eafcf1c, 0x3ebe3430, 0x3ecaa830,
    0x3f187218, 0x3f6d8418, 0x3f717218, 0x3f84acd3, 0x3f884618, 0x3f8b6318, 0x3fcf7b18, 0x3fd17218,
    0x3fdd65df, 0x3fe0ff24, 0x3fe41c24, 0x40141a12, 0x40151592, 0x401cdc18, 0x401e6a98, 0x40417218,
    0x4049389e, 0x404ac71e, 0x406dce9e, 0x40759524, 0x407723a4, 0x408d1592, 0x4090f8d5, 0x4091c015,
    0x40a343d5, 0x40bba434, 0x40d1d277, 0x40e800ba, 0x40fe2efd, 0x410a2ea0, 0x41205ce3, 0x41368b26,
    0x414cb969, 0x4162e7ac, 0x417915ef, 0xb3800000, 0xbdc80000, 0xbe4ce665, 0xbe983c00, 0xbea4b000,
    0xbeb31514, 0xbebfc26f, 0xbee2e430, 0xbeeac030, 0xbf4a7218, 0xbf7d9018, 0xbf81e50c, 0xbf857e51,
    0xbf917218, 0xbf936918, 0xbfd78118, 0xbfda9e18, 0xbfde375d, 0xbfea2b24, 0xbfec2224, 0xc0181d12,
    0xc019ab92, 0xc0447998, 0xc0460818, 0xc070d61e, 0xc072649e, 0xc08e9952, 0xc08f6092, 0xc0a4c795,
    0xc0a58ed5, 0xc1d9dcda, 0xc1f00b1d, 0xc22a86e9, 0xc240b52c};

void check_exp() {
  const float lo = -110.0f, hi = 90.0f, inf = std::numeric_limits<float>::infinity();
  std::vector<float> x;
  for (std::uint32_t u = 0x80000000u; u <= bits(lo); u += 2161)
    x.push_back(0), std::memcpy(&x.back(), &u, 4);
  for (std::uint32_t u = 0; u <= bits(hi); u += 2161) x.push_back(0), std::memcpy(&x.back(), &u, 4);
  for (float v : {-inf, inf, std::nanf(""), -0.0f, 0.0f, 88.72f, 88.73f, -87.9f, -103.3f, -104.0f,
                  1e-40f, -1e-40f, -1e-30f})
    x.push_back(v);
  for (std::uint32_t u : kTies) x.push_back(0), std::memcpy(&x.back(), &u, 4);
  for (float max : {0.0f, 1.5f, -3.25f, 1e-3f}) {
    std::vector<float> want(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) want[i] = ca::sleef::expf_u10(x[i] - max);
    for (int off = 0; off < 8; ++off) {  // every tail length, odd and even groups of 4
      std::vector<float> got(x.begin() + off, x.end());
      ca::kernels::exp_shifted(got.data(), int(got.size()), max);
      ++g_cases;
      for (std::size_t i = 0; i < got.size(); ++i) {
        char where[64];
        std::snprintf(where, sizeof where, "x %a max %g", x[i + off], max);
        compare("exp_shifted", where, want[i + off], got[i]);
      }
    }
  }
}

// ca::fma and ca::fma_exact (which sleef::expf_u10 and cephes.cpp rely on) where the double sum
// lands halfway between two floats though the exact sum is below it: (a, b, c, std::fma's bits
// on x86-64). Emscripten's std::fma rounds each of them away from zero, one float too far.
const std::uint32_t kFmaHalfway[][4] = {
    {0x337ffe00, 0x3f800100, 0x3f800001, 0x3f800001},
    {0xb37ffe00, 0x3f800100, 0xbf800001, 0xbf800001},
    {0x2ffffe00, 0x3f800100, 0x3c000001, 0x3c000001},
    {0xaffffe00, 0x3f800100, 0xbc000001, 0xbc000001},
    {0x35fffe00, 0x3f800100, 0x42000001, 0x42000001},
    {0xb5fffe00, 0x3f800100, 0xc2000001, 0xc2000001},
    {0x337ffff0, 0x3f800008, 0x3f800001, 0x3f800001},
    {0xb37ffff0, 0x3f800008, 0xbf800001, 0xbf800001},
    {0x2ffffff0, 0x3f800008, 0x3c000001, 0x3c000001},
    {0xaffffff0, 0x3f800008, 0xbc000001, 0xbc000001},
    {0x35fffff0, 0x3f800008, 0x42000001, 0x42000001},
    {0xb5fffff0, 0x3f800008, 0xc2000001, 0xc2000001},
    {0x337ffffe, 0x3f800001, 0x3f800001, 0x3f800001},
    {0xb37ffffe, 0x3f800001, 0xbf800001, 0xbf800001},
    {0x2ffffffe, 0x3f800001, 0x3c000001, 0x3c000001},
    {0xaffffffe, 0x3f800001, 0xbc000001, 0xbc000001},
    {0x35fffffe, 0x3f800001, 0x42000001, 0x42000001},
    {0xb5fffffe, 0x3f800001, 0xc2000001, 0xc2000001},
    {0x19fffffe, 0x1a000001, 0x00000201, 0x00000201},  // subnormal: 513 x 2^-149 + a hair
    {0x99fffffe, 0x1a000001, 0x80000201, 0x80000201},  // under half of 2^-149
};

void check_fma() {
  ++g_cases;
  for (const auto& t : kFmaHalfway) {
    float a, b, c;
    std::memcpy(&a, &t[0], 4), std::memcpy(&b, &t[1], 4), std::memcpy(&c, &t[2], 4);
    char where[80];
    std::snprintf(where, sizeof where, "(%a, %a, %a)", a, b, c);
    float want;
    std::memcpy(&want, &t[3], 4);
    compare("ca::fma", where, want, ca::fma(a, b, c));
    compare("ca::fma_exact", where, want, ca::fma_exact(a, b, c));
  }
}

// exp_simd128.cpp's proof, sampled (tests/golden/exp_binades.cpp walks every input, by hand):
// each step's float result for x in [-104, 100], as the kernel computes it, against SLEEF's
// fused steps computed by ca::fma_exact. A step rounded onto a grid off by one binade shows in
// 260,000-520,000 of the 21.8 M step values (each of steps 3-6, broken by hand), while the exp's
// final values can hide it (steps 3 and 4 one binade finer: 0 of 22 M values in check_exp).
// Inputs: every 1021st float by its bits, 2^19 uniform in value, the tie inputs and the two
// whose sums are every step's smallest and largest (the binades' margins, exp_binades.cpp).

struct Fused {
  float steps[ca::kernels::kExpSteps - 2];  // s, u after steps 3-7, the 8th step's sum
};

Fused fused_steps(float x) {
  const float t = x * 1.442695040888963407359924681001892137426645954152985934135449406931f;
  const auto q = static_cast<float>(static_cast<std::int32_t>(std::nearbyint(t)));  // -0: +0
  Fused f;
  float s = ca::fma_exact(q, -0.693145751953125f, x);
  s = ca::fma_exact(q, -1.428606765330187045e-06f, s);
  float u = ca::fma_exact(0.000198527617612853646278381f, s, 0.00139304355252534151077271f);
  f.steps[0] = s, f.steps[1] = u;
  u = ca::fma_exact(u, s, 0.00833336077630519866943359f), f.steps[2] = u;
  u = ca::fma_exact(u, s, 0.0416664853692054748535156f), f.steps[3] = u;
  u = ca::fma_exact(u, s, 0.166666671633720397949219f), f.steps[4] = u;
  u = ca::fma_exact(u, s, 0.5f), f.steps[5] = u;
  f.steps[6] = ca::fma_exact(s * s, u, s);
  return f;
}

long g_exp_ties = 0;  // lanes whose 8th sum the kernel finds halfway (and redoes)

void check_exp_steps(const std::vector<float>& x) {
  constexpr int kSteps = ca::kernels::kExpSteps;
  const char* names[kSteps] = {"step 2", "step 3", "step 4", "step 5", "step 6",
                               "step 7", "step 8", "ties",   "exp"};
  ++g_cases;
  constexpr std::size_t kBlock = 1 << 14;
  std::vector<float> in(kBlock), out(kBlock * kSteps);
  for (std::size_t at = 0; at < x.size(); at += kBlock) {
    const std::size_t n = std::min(kBlock, x.size() - at);
    std::fill(in.begin(), in.end(), 0.0f);
    std::copy(x.begin() + at, x.begin() + at + n, in.begin());
    ca::kernels::exp_steps_simd128(in.data(), int(kBlock), out.data());
    for (std::size_t i = 0; i < n; ++i) {
      const Fused f = fused_steps(in[i]);
      const float* got = out.data() + i;
      const bool tie = bits(got[7 * kBlock]) != 0;
      g_exp_ties += tie;
      char where[48];
      std::snprintf(where, sizeof where, "x %a", in[i]);
      for (int k = 0; k < kSteps - 2; ++k)
        if (!(tie && k == 6)) compare(names[k], where, f.steps[k], got[k * kBlock]);
      if (!tie) compare(names[8], where, ca::sleef::expf_u10(in[i]), got[8 * kBlock]);
    }
  }
}

// The relaxed-SIMD exp against the scalar port, by bits, on the step check's inputs.
void check_exp_relaxed(const std::vector<float>& x) {
  if (!ca::kernels::exp_relaxed_ready()) return;
  std::vector<float> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) want[i] = ca::sleef::expf_u10(x[i]);
  for (int off = 0; off < 8; ++off) {  // every tail length, and an odd group of 4 (two a step)
    std::vector<float> got(x.begin() + off, x.end());
    ca::kernels::exp_shifted_relaxed(got.data(), int(got.size()), 0.0f);
    ++g_cases;
    for (std::size_t i = 0; i < got.size(); ++i) {
      char where[48];
      std::snprintf(where, sizeof where, "x %a", x[i + off]);
      compare("exp_shifted_relaxed", where, want[i + off], got[i]);
    }
  }
}

// src/wasm/exp-relaxed-module.js's module, as exp_relaxed.cpp includes it.
const unsigned char kRelaxedModule[] = {
#include "exp_relaxed.inc"
};

// The relaxed module's constants (its globals: each a v128.const of 4 equal lanes, in the order
// they are declared; the rounding's 1.5 x 2^23 and the exponent bias, i32 0x7f, left out)
// against sleef.hpp's table, by bits, whether or not the engine runs the module: one ulp off a
// coefficient changes none of the 2.7 M results above.
void check_exp_relaxed_constants() {
  using namespace ca::sleef;
  const float want[] = {kRLn2,       -kL2U,       -kL2L,         kExpPoly[0],
                        kExpPoly[1], kExpPoly[2], kExpPoly[3],   kExpPoly[4],
                        kExpPoly[5], 1.0f,        kExpUnderflow, __builtin_huge_valf(),
                        kExpOverflow};
  std::vector<float> got;
  const unsigned char* m = kRelaxedModule;
  // A global: v128 (0x7b), immutable (0), v128.const (0xfd 0x0c), 16 bytes, end (0x0b).
  for (std::size_t i = 0; i + 21 <= sizeof kRelaxedModule; ++i) {
    if (m[i] != 0x7b || m[i + 1] != 0 || m[i + 2] != 0xfd || m[i + 3] != 0x0c || m[i + 20] != 0x0b)
      continue;
    float lane[4];
    std::memcpy(lane, m + i + 4, 16);
    std::uint32_t b;
    std::memcpy(&b, lane, 4);
    if (lane[0] != 0x1.8p23f && b != 0x7f) got.push_back(lane[0]);
    for (int k = 1; k < 4; ++k)
      compare("exp-relaxed-module.js", "constant's lane " + std::to_string(k), lane[0], lane[k]);
    i += 20;
  }
  ++g_cases;
  const std::size_t n = sizeof want / sizeof want[0];
  compare("exp-relaxed-module.js", "constants (count)", float(n), float(got.size()));
  for (std::size_t k = 0; k < n && k < got.size(); ++k)
    compare("exp-relaxed-module.js", "constant " + std::to_string(k), want[k], got[k]);
}

void check_exp_steps() {
  std::vector<float> x;
  const auto add = [&](std::uint32_t u) { x.push_back(0), std::memcpy(&x.back(), &u, 4); };
  for (const float limit : {100.0f, -104.0f})
    for (std::uint32_t u = std::signbit(limit) ? 0x80000000u : 0; u <= bits(limit); u += 1021)
      add(u);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-104.0f, 100.0f);
  for (int i = 0; i < 1 << 19; ++i) x.push_back(uniform(rng));
  for (std::uint32_t u : kTies) add(u);
  x.push_back(-0x1.74e9c8p+6f), x.push_back(0x1.74e9c8p+6f);
  check_exp_steps(x);
  check_exp_relaxed(x);
}

}  // namespace

int main() {
  if (!ca::kernels::force_isa(ca::kernels::Isa::SIMD128) || !ca::kernels::fast_exp()) {
    std::printf("{\"ok\": false, \"error\": \"no SIMD128 kernels in this build\"}\n");
    return 1;
  }
  std::mt19937 rng(1);
  const int sizes[] = {1, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 63, 65};
  for (int m : sizes)
    for (int n : sizes)
      for (int k : sizes)
        for (Tri tri : {Tri::Full, Tri::LowerOut, Tri::LowerK})
          check_gemm(m, n, k, tri, (m + n + k) % 3, rng);
  // The blocked path's edges: k blocks of 768, rows in blocks of 48, 256-column blocks.
  const int big[][3] = {{47, 255, 767},   {48, 256, 768}, {49, 257, 769}, {97, 513, 257},
                        {193, 1030, 300}, {1, 520, 800},  {3, 9, 1540},   {130, 40, 1000},
                        {65, 768, 520},   {300, 64, 300}, {300, 300, 64}};
  for (const auto& s : big)
    for (Tri tri : {Tri::Full, Tri::LowerOut, Tri::LowerK})
      check_gemm(s[0], s[1], s[2], tri, 1, rng);
  check_exp();
  check_fma();
  check_exp_steps();
  check_exp_relaxed_constants();
  std::printf(
      "{\"ok\": true, \"relaxed\": %s, \"cases\": %ld, \"values\": %ld, \"differ\": %ld, "
      "\"exp_ties\": %ld, \"first\": \"%s\"}\n",
      ca::kernels::relaxed_exp() ? "true" : "false", g_cases, g_values, g_bad, g_exp_ties,
      g_first.c_str());
  return 0;
}
