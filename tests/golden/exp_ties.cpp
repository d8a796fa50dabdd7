// Which of SLEEF's fused steps can exp_simd128.cpp compute in double without a check, by hand
// (a minute natively, not a ctest): for every float d in [-104, 100] (outside it SLEEF's result
// is 0, inf or NaN whatever the steps give), each step's sum a * b + c in double, counted where
// the double sum was rounded (TwoSum's error is not 0), where it lies halfway between two floats
// (low 29 bits a 1 and 28 zeros) and where it is below float's normal range. Only a sum both
// rounded and halfway (or rounded and subnormal) can make float(double) differ from the fused
// result; the inputs where that happens are printed (tests/wasm/kernels.cpp lists them).
//   g++ -O2 -ffp-contract=off tests/golden/exp_ties.cpp -o /tmp/exp_ties && /tmp/exp_ties
// Result (2,241,331,202 inputs): steps 1, 2 never rounded; rounded halfway sums only at step 6
// (1 input) and step 8 (6 inputs); no rounded sum subnormal.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "exp_inputs.hpp"

namespace {

std::uint64_t rounded[9], halfway[9], rounded_halfway[9], rounded_subnormal[9];
float current;

float step(int i, float a, float b, float c) {
  const double p = double(a) * double(b), s = p + double(c);           // the product is exact
  const double bb = s - p, error = (p - (s - bb)) + (double(c) - bb);  // TwoSum
  std::uint64_t u;
  std::memcpy(&u, &s, 8);
  const bool inexact = error != 0, half = (u & 0x1fffffff) == 0x10000000;
  const bool subnormal = s != 0 && std::fabs(s) < 0x1p-126;
  rounded[i] += inexact;
  halfway[i] += half;
  rounded_subnormal[i] += inexact && subnormal;
  if (inexact && half) {
    ++rounded_halfway[i];
    std::uint32_t x;
    std::memcpy(&x, &current, 4);
    std::printf("step %d: rounded halfway sum at x = %a (0x%08x)\n", i, current, x);
  }
  return static_cast<float>(s);
}

}  // namespace

int main() {
  const std::uint64_t n = each_exp_input([](float x, float q) {
    current = x;
    float s = step(1, q, -0.693145751953125f, x);
    s = step(2, q, -1.428606765330187045e-06f, s);
    float v = 0.000198527617612853646278381f;
    v = step(3, v, s, 0.00139304355252534151077271f);
    v = step(4, v, s, 0.00833336077630519866943359f);
    v = step(5, v, s, 0.0416664853692054748535156f);
    v = step(6, v, s, 0.166666671633720397949219f);
    v = step(7, v, s, 0.5f);
    step(8, s * s, v, s);
  });
  std::printf("%llu inputs\n", static_cast<unsigned long long>(n));
  for (int i = 1; i <= 8; ++i)
    std::printf(
        "step %d: rounded %llu, halfway %llu, rounded and halfway %llu, rounded and "
        "subnormal %llu\n",
        i, static_cast<unsigned long long>(rounded[i]), static_cast<unsigned long long>(halfway[i]),
        static_cast<unsigned long long>(rounded_halfway[i]),
        static_cast<unsigned long long>(rounded_subnormal[i]));
}
