// exp over a row, 4 at a time in WebAssembly SIMD128, with the bits of sleef::expf_u10 (SLEEF's
// expf8_u10 lane): the same steps, each fused multiply-add in double on two f64x2 halves (the
// product is exact; see sleef::expf_u10). A group of 4 where one sum lands halfway between two
// floats or among subnormals is computed again by sleef::expf_u10, lane by lane.
#include <wasm_simd128.h>

#include "kernels_isa.hpp"
#include "sleef.hpp"

namespace ca::kernels {

namespace {

// a * b + c rounded once, for 4 floats; `rare` collects the lanes where that is not certain
// (the tests of fma.hpp's FastFma).
inline v128_t fma4(v128_t a, v128_t b, v128_t c, v128_t& rare) {
  const auto half = [](v128_t x) { return wasm_i32x4_shuffle(x, x, 2, 3, 0, 1); };
  const v128_t lo = wasm_f64x2_add(
      wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(a), wasm_f64x2_promote_low_f32x4(b)),
      wasm_f64x2_promote_low_f32x4(c));
  const v128_t hi = wasm_f64x2_add(
      wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(half(a)), wasm_f64x2_promote_low_f32x4(half(b))),
      wasm_f64x2_promote_low_f32x4(half(c)));
  const v128_t low_bits = wasm_i64x2_splat(0x1fffffff), halfway = wasm_i64x2_splat(0x10000000);
  const v128_t exponent = wasm_i64x2_splat(0x7ff0000000000000),
               tiny = wasm_i64x2_splat(897LL << 52);
  const auto check = [&](v128_t s) {
    rare = wasm_v128_or(rare, wasm_i64x2_eq(wasm_v128_and(s, low_bits), halfway));
    rare = wasm_v128_or(rare, wasm_i64x2_lt(wasm_v128_and(s, exponent), tiny));
  };
  check(lo);
  check(hi);
  const v128_t l = wasm_f32x4_demote_f64x2_zero(lo), h = wasm_f32x4_demote_f64x2_zero(hi);
  return wasm_i32x4_shuffle(l, h, 0, 1, 4, 5);
}

inline v128_t exp4(v128_t d, v128_t& rare) {
  const v128_t t = wasm_f32x4_mul(
      d, wasm_f32x4_splat(1.442695040888963407359924681001892137426645954152985934135449406931f));
  // Rounded to even; saturated where cvtps gives INT32_MIN: there x < -104, x > 100 or NaN,
  // and the result is 0, inf or NaN whatever q is.
  const v128_t q = wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(t));
  const v128_t qf = wasm_f32x4_convert_i32x4(q);
  v128_t s = fma4(qf, wasm_f32x4_splat(-0.693145751953125f), d, rare);
  s = fma4(qf, wasm_f32x4_splat(-1.428606765330187045e-06f), s, rare);
  v128_t u = wasm_f32x4_splat(0.000198527617612853646278381f);
  u = fma4(u, s, wasm_f32x4_splat(0.00139304355252534151077271f), rare);
  u = fma4(u, s, wasm_f32x4_splat(0.00833336077630519866943359f), rare);
  u = fma4(u, s, wasm_f32x4_splat(0.0416664853692054748535156f), rare);
  u = fma4(u, s, wasm_f32x4_splat(0.166666671633720397949219f), rare);
  u = fma4(u, s, wasm_f32x4_splat(0.5f), rare);
  u = wasm_f32x4_add(wasm_f32x4_splat(1.0f), fma4(wasm_f32x4_mul(s, s), u, s, rare));
  const v128_t bias = wasm_i32x4_splat(0x7f), h = wasm_i32x4_shr(q, 1);
  const auto pow2i = [&](v128_t e) { return wasm_i32x4_shl(wasm_i32x4_add(e, bias), 23); };
  u = wasm_f32x4_mul(wasm_f32x4_mul(u, pow2i(h)), pow2i(wasm_i32x4_sub(q, h)));
  u = wasm_v128_andnot(u, wasm_f32x4_lt(d, wasm_f32x4_splat(-104.0f)));  // +0
  const v128_t overflow = wasm_f32x4_lt(wasm_f32x4_splat(100.0f), d);
  return wasm_v128_bitselect(wasm_f32x4_splat(__builtin_huge_valf()), u, overflow);
}

}  // namespace

// w[j] = exp(w[j] - max), j < n.
void exp_shifted_simd128(float* w, int n, float max) {
  const v128_t m = wasm_f32x4_splat(max);
  int j = 0;
  for (; j + 4 <= n; j += 4) {
    v128_t rare = wasm_i32x4_splat(0);
    const v128_t x = wasm_f32x4_sub(wasm_v128_load(w + j), m);
    const v128_t y = exp4(x, rare);
    if (!wasm_v128_any_true(rare)) {
      wasm_v128_store(w + j, y);
    } else {
      for (int k = 0; k < 4; ++k) w[j + k] = sleef::expf_u10(w[j + k] - max);
    }
  }
  for (; j < n; ++j) w[j] = sleef::expf_u10(w[j] - max);
}

}  // namespace ca::kernels
