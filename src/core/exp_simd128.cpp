// exp over a row, 4 at a time in WebAssembly SIMD128, with the bits of sleef::expf_u10 (SLEEF's
// expf8_u10 lane). WebAssembly has no fused multiply-add, so each of SLEEF's is computed in double
// on two f64x2 halves: the product of two floats is exact in double and the sum is rounded once.
// Settled over every float d in [-104, 100] (outside it the result is 0, inf or NaN whatever the
// steps give; tests/golden/exp_ties.cpp and exp_binades.cpp):
// - the first two sums are exact in double: rounding them to float gives the fused result;
// - the sums of steps 3-6 each stay in one binade [2^e, 2^(e+1)], where floats are 2^(e-23)
//   apart: adding c + C instead of c, C = 1.5 x 2^(e+29), rounds the double sum once onto that
//   spacing, the fused float, which taking C away leaves exact (no conversion, no tie);
// - the 7th and 8th are rounded to double, then to float: a rounded double sum lands halfway
//   between two floats only in the 8th (6 inputs), which is checked; a group of 4 with a halfway
//   sum is redone by sleef::expf_u10, lane by lane.
// tests/golden/check_exp.cpp compares all 2^32 inputs; tests/wasm/kernels.cpp each step's result
// on a sample (exp_steps_simd128).
#include <wasm_simd128.h>

#include <cstddef>
#include <cstdint>

#include "kernels_isa.hpp"
#include "sleef.hpp"

namespace ca::kernels {

namespace {

// 4 floats held as doubles: lanes 0, 1 in lo, 2, 3 in hi.
struct Wide {
  v128_t lo, hi;
};

inline Wide widen(v128_t f) {
  return {wasm_f64x2_promote_low_f32x4(f),
          wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(f, f, 2, 3, 0, 1))};
}

inline Wide splat(float f) {
  const v128_t d = wasm_f64x2_splat(static_cast<double>(f));
  return {d, d};
}

inline v128_t narrow(Wide w) {
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(w.lo), wasm_f32x4_demote_f64x2_zero(w.hi),
                            0, 1, 4, 5);
}

// Rounded to float, held as double. The empty asm keeps the two conversions apart: clang 14
// folds them into a 2-lane fptrunc + fpext, which it lowers to 9 scalar instructions (extract,
// demote, promote, replace per lane) instead of these 2; the exp ran 2x slower.
inline v128_t to_float(v128_t d) {
  v128_t f = wasm_f32x4_demote_f64x2_zero(d);
  __asm__("" : "+r"(f));
  return wasm_f64x2_promote_low_f32x4(f);
}

// a * b + c in double: the product is exact, the sum rounded once.
inline Wide sum(Wide a, Wide b, Wide c) {
  return {wasm_f64x2_add(wasm_f64x2_mul(a.lo, b.lo), c.lo),
          wasm_f64x2_add(wasm_f64x2_mul(a.hi, b.hi), c.hi)};
}

inline Wide to_float(Wide w) { return {to_float(w.lo), to_float(w.hi)}; }

// The fused a * b + c for a step whose sums all lie in [2^E, 2^(E+1)]: c + C is exact, the
// double sum is rounded onto the floats' spacing there, and taking C away is exact.
template <int E>
inline Wide fma_in_binade(Wide a, Wide b, float c) {
  constexpr double C = 1.5 * double(1 << (E + 29));
  const Wide k = {wasm_f64x2_splat(double(c) + C), wasm_f64x2_splat(double(c) + C)};
  const Wide s = sum(a, b, k);
  const v128_t m = wasm_f64x2_splat(C);
  return {wasm_f64x2_sub(s.lo, m), wasm_f64x2_sub(s.hi, m)};
}

// steps (exp_steps_simd128 only; null in the kernel, where every store folds away): each step's
// float result, in kExpSteps' order.
__attribute__((always_inline)) inline v128_t exp4(v128_t d, v128_t& ties, v128_t* steps = nullptr) {
  const v128_t t = wasm_f32x4_mul(d, wasm_f32x4_splat(sleef::kRLn2));
  // q = round(t) to even, as cvtps: adding 1.5 x 2^23 leaves t's integer part, rounded, in the
  // low bits (|t| < 151 here; elsewhere x < -104, x > 100 or NaN, and the result is 0, inf or NaN
  // whatever q is).
  const v128_t magic = wasm_f32x4_splat(0x1.8p23f), tm = wasm_f32x4_add(t, magic);
  const v128_t q = wasm_i32x4_sub(tm, magic), qf = wasm_f32x4_sub(tm, magic);
  // x - q ln 2, ln 2 in two parts. The first: q * ln2_hi is exact in float (8 bits times 16)
  // and so is the double sum: a float multiply and add give the fused bits.
  const Wide s1 = widen(wasm_f32x4_add(d, wasm_f32x4_mul(qf, wasm_f32x4_splat(-sleef::kL2U))));
  const Wide s = to_float(sum(widen(qf), splat(-sleef::kL2L), s1));  // exact sum
  if (steps) steps[0] = narrow(s);
  Wide u = fma_in_binade<-10>(splat(sleef::kExpPoly[0]), s, sleef::kExpPoly[1]);
  if (steps) steps[1] = narrow(u);
  u = fma_in_binade<-7>(u, s, sleef::kExpPoly[2]);
  if (steps) steps[2] = narrow(u);
  u = fma_in_binade<-5>(u, s, sleef::kExpPoly[3]);
  if (steps) steps[3] = narrow(u);
  u = fma_in_binade<-3>(u, s, sleef::kExpPoly[4]);
  if (steps) steps[4] = narrow(u);
  u = to_float(sum(u, s, splat(sleef::kExpPoly[5])));
  if (steps) steps[5] = narrow(u);
  const Wide ss = {to_float(wasm_f64x2_mul(s.lo, s.lo)), to_float(wasm_f64x2_mul(s.hi, s.hi))};
  // The last step's double sums, checked for halfway (the minimum of their low 32 bits shifted
  // left by 3: INT32_MIN exactly where the low 29 bits are a 1 and 28 zeros), then to float.
  const Wide v = sum(ss, u, s);
  ties = wasm_i32x4_shl(wasm_i32x4_shuffle(v.lo, v.hi, 0, 2, 4, 6), 3);
  v128_t r = wasm_f32x4_add(wasm_f32x4_splat(1.0f), narrow(v));
  if (steps) steps[6] = narrow(v), steps[7] = wasm_i32x4_eq(ties, wasm_i32x4_splat(INT32_MIN));
  const v128_t bias = wasm_i32x4_splat(0x7f), h = wasm_i32x4_shr(q, 1);
  const auto pow2i = [&](v128_t e) { return wasm_i32x4_shl(wasm_i32x4_add(e, bias), 23); };
  r = wasm_f32x4_mul(wasm_f32x4_mul(r, pow2i(h)), pow2i(wasm_i32x4_sub(q, h)));
  r = wasm_v128_andnot(r, wasm_f32x4_lt(d, wasm_f32x4_splat(sleef::kExpUnderflow)));  // +0
  const v128_t overflow = wasm_f32x4_lt(wasm_f32x4_splat(sleef::kExpOverflow), d);
  return wasm_v128_bitselect(wasm_f32x4_splat(__builtin_huge_valf()), r, overflow);
}

}  // namespace

// w[j] = exp(w[j] - max), j < n. The last 1-3 floats go through a group of 4 too (padded with
// max, each lane alone): the scalar port's software fma costs ~50 times a lane's share.
void exp_shifted_simd128(float* w, int n, float max) {
  const v128_t m = wasm_f32x4_splat(max), tie = wasm_i32x4_splat(INT32_MIN);
  float tail[4];
  for (int j = 0; j < n; j += 4) {
    const int left = n - j;
    float* x = w + j;
    if (left < 4) {  // one call site: exp4 is inlined once
      for (int k = 0; k < 4; ++k) tail[k] = k < left ? x[k] : max;
      x = tail;
    }
    v128_t ties;
    const v128_t y = exp4(wasm_f32x4_sub(wasm_v128_load(x), m), ties);
    if (!wasm_v128_any_true(wasm_i32x4_eq(ties, tie))) {
      wasm_v128_store(x, y);
    } else {
      for (int k = 0; k < 4; ++k) x[k] = sleef::expf_u10(x[k] - max);
    }
    if (left < 4)
      for (int k = 0; k < left; ++k) w[j + k] = tail[k];
  }
}

void exp_steps_simd128(const float* x, int n, float* out) {
  for (int j = 0; j + 4 <= n; j += 4) {
    v128_t ties, steps[kExpSteps - 1];
    const v128_t y = exp4(wasm_v128_load(x + j), ties, steps);
    for (int k = 0; k < kExpSteps - 1; ++k) wasm_v128_store(out + std::size_t(k) * n + j, steps[k]);
    wasm_v128_store(out + std::size_t(kExpSteps - 1) * n + j, y);
  }
}

}  // namespace ca::kernels
