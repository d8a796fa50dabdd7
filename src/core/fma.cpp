#include "fma.hpp"

#include <cmath>

namespace ca {

// FastFma's one step, std::fma where the test is not certain. Out of line: inlined at its 20
// call sites it cost 1.4 KB of wasm.
[[gnu::noinline]] float fma(float a, float b, float c) {
  detail::FastFma fast;
  const float sum = fast(a, b, c);
  return fast.rare ? std::fma(a, b, c) : sum;
}

}  // namespace ca
