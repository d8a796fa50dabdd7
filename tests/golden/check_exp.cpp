// Every float through the exps, by hand (minutes, not a ctest): natively, sleef::expf_u10 and the
// vectorised exp_shifted against libsleef's own Sleef_expf8_u10 (Debian's libsleef3, which
// python3-torch links); in WebAssembly, the SIMD128 exp_shifted against sleef::expf_u10. NaNs match
// any NaN. Prints the mismatches (at most 10) and their count; exits 1 if there are any.
//
/* With the core as built (build-scripts/build.sh; $CA_BUILD defaults to build):
  g++ -O2 -std=c++17 -Isrc/core tests/golden/check_exp.cpp $CA_BUILD/native/libca_core.a \
      /lib/x86_64-linux-gnu/libsleef.so.3 -o /tmp/check_exp && /tmp/check_exp
  NODE_PATH=/usr/share/nodejs em++ -O2 -msimd128 -std=c++17 -Isrc/core \
      tests/golden/check_exp.cpp $CA_BUILD/wasm/libca_core.a -sSINGLE_FILE=1 \
      -sALLOW_MEMORY_GROWTH=1 -o /tmp/check_exp.js && node /tmp/check_exp.js
*/
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "sleef.hpp"

#if defined(__wasm_simd128__)
namespace ca::kernels {
void exp_shifted_simd128(float* w, int n, float max);
}
#else
#include <immintrin.h>

#include "kernels.hpp"
extern "C" __m256 Sleef_expf8_u10(__m256);

// libsleef's exp over n floats, n a multiple of 8.
__attribute__((target("avx2"))) void sleef_exp(const float* x, float* y, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 8)
    _mm256_storeu_ps(y + i, Sleef_expf8_u10(_mm256_loadu_ps(x + i)));
}
#endif

int main() {
  constexpr std::size_t kBlock = std::size_t{1} << 16;
  std::vector<float> x(kBlock), want(kBlock), fast(kBlock);
  std::uint64_t bad = 0;
  const auto same = [](float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b);
  };
  for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += kBlock) {
    for (std::size_t i = 0; i < kBlock; ++i) {
      const auto u = static_cast<std::uint32_t>(base + i);
      std::memcpy(&x[i], &u, sizeof u);
    }
    fast = x;
#if defined(__wasm_simd128__)
    for (std::size_t i = 0; i < kBlock; ++i) want[i] = ca::sleef::expf_u10(x[i]);
    ca::kernels::exp_shifted_simd128(fast.data(), int(kBlock), 0.0f);
#else
    sleef_exp(x.data(), want.data(), kBlock);
    ca::kernels::exp_shifted(fast.data(), int(kBlock), 0.0f);  // AVX2 where the CPU has it
#endif
    for (std::size_t i = 0; i < kBlock; ++i) {
#if defined(__wasm_simd128__)
      const float scalar = want[i];
#else
      const float scalar = ca::sleef::expf_u10(x[i]);
#endif
      if (same(scalar, want[i]) && same(fast[i], want[i])) continue;
      if (bad++ < 10)
        std::printf("x = %a: want %a, sleef::expf_u10 %a, exp_shifted %a\n", x[i], want[i], scalar,
                    fast[i]);
    }
  }
  std::printf("%llu mismatches over all 2^32 floats\n", static_cast<unsigned long long>(bad));
  return bad == 0 ? 0 : 1;
}
