// Why exp_simd128.cpp may round SLEEF's fused steps 3-6 by adding a constant, by hand (minutes
// natively, not a ctest): for every float d in [-104, 100] (outside it SLEEF's result is 0, inf or
// NaN whatever the steps give), steps 3-6 as SLEEF computes them (std::fma), the smallest and
// largest sum of each, and the same step as the kernel does it in double: a * b + (c + C) - C with
// C = 1.5 x 2^(e+29) for the binade [2^e, 2^(e+1)] that every sum of the step lies in. Counts the
// inputs where the two differ (must be 0) and where a sum leaves its binade (must be 0).
//   g++ -O2 -ffp-contract=off tests/golden/exp_binades.cpp -o /tmp/exp_binades && /tmp/exp_binades
// Result (2,241,331,202 inputs): 0 and 0 at every step; the sums lie in
// [0x1.5b241ap-10, 0x1.7f370ap-10], [0x1.02075p-7, 0x1.21ab5ep-7], [0x1.3ef998p-5, 0x1.6e6e24p-5]
// and [0x1.39b21ep-3, 0x1.75152ap-3], each step's lowest at x = -0x1.74e9c8p+6 and highest at
// x = 0x1.74e9c8p+6 (in tests/wasm/kernels.cpp's sample). (Step 7's sums straddle 0.5: it keeps
// its conversions.) 2 min 40 s of CPU.
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "exp_inputs.hpp"

namespace {

struct Step {
  int e;  // the binade
  float c;
  float lo = INFINITY, hi = -INFINITY;
  float lo_x = 0, hi_x = 0;  // the inputs x whose sums are lo and hi
  std::uint64_t differ = 0, outside = 0;
};

Step steps[] = {{-10, 0.00139304355252534151077271f},
                {-7, 0.00833336077630519866943359f},
                {-5, 0.0416664853692054748535156f},
                {-3, 0.166666671633720397949219f}};

float step(Step& st, float a, float b, float x) {
  const float fused = std::fma(a, b, st.c);
  const double C = std::ldexp(1.5, st.e + 29);
  const double k = double(st.c) + C;                // exact: c is a multiple of 2^(e-23)
  volatile double sum = double(a) * double(b) + k;  // volatile: no folding of (x + C) - C
  const double kernel = sum - C;
  st.differ += double(fused) != kernel;
  st.outside += !(fused >= std::ldexp(1.0, st.e) && fused <= std::ldexp(1.0, st.e + 1));
  if (fused < st.lo) st.lo = fused, st.lo_x = x;
  if (fused > st.hi) st.hi = fused, st.hi_x = x;
  return fused;
}

}  // namespace

int main() {
  const std::uint64_t n = each_exp_input([](float x, float q) {
    float s = std::fma(q, -0.693145751953125f, x);
    s = std::fma(q, -1.428606765330187045e-06f, s);
    float v = 0.000198527617612853646278381f;
    for (Step& st : steps) v = step(st, v, s, x);
  });
  std::printf("%llu inputs\n", static_cast<unsigned long long>(n));
  int i = 3;
  for (const Step& st : steps)
    std::printf(
        "step %d: sums in [%a, %a] (x = %a, %a), binade [2^%d, 2^%d]: %llu outside, %llu differ\n",
        i++, st.lo, st.hi, st.lo_x, st.hi_x, st.e, st.e + 1,
        static_cast<unsigned long long>(st.outside), static_cast<unsigned long long>(st.differ));
}
