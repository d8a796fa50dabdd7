// libFuzzer: the shortest-float printer against the C library. 4 bytes are a float32's bits,
// 8 a double's (other sizes: both, from the leading bytes). The text must read back (strtof /
// strtod) to the same bits and have no more significant digits than the shortest "%.{n}g" that
// reads back; inf and nan print as "inf", "-inf", "nan".
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "text.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& text) {
  std::fprintf(stderr, "fuzz_shortest: %s: %s\n", what, text.c_str());
  std::abort();
}

// Significant digits of a decimal text: the mantissa's digits without leading or trailing zeros.
int significant(const std::string& s) {
  std::string digits;
  for (const char c : s) {
    if (c == 'e') break;
    if (c >= '0' && c <= '9') digits += c;
  }
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 1;
  return static_cast<int>(digits.find_last_not_of('0') - first + 1);
}

template <typename Float, typename Bits>
void check(Bits bits, Float (*read)(const char*, char**), int max_digits) {
  Float v;
  std::memcpy(&v, &bits, sizeof v);
  const std::string s = ca::shortest(v);
  if (std::isnan(v)) {
    if (s != "nan") fail("nan", s);
    return;
  }
  if (std::isinf(v)) {
    if (s != (v < 0 ? "-inf" : "inf")) fail("inf", s);
    return;
  }
  char* end = nullptr;
  const Float back = read(s.c_str(), &end);
  if (*end != '\0' || std::memcmp(&back, &v, sizeof v) != 0) fail("does not read back", s);
  int reference = max_digits;
  for (int n = 1; n < max_digits; ++n) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", n, static_cast<double>(v));
    const Float r = read(buf, nullptr);
    if (std::memcmp(&r, &v, sizeof v) == 0) {
      reference = n;
      break;
    }
  }
  if (significant(s) > reference) fail("longer than the shortest %.{n}g", s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size >= 4) {
    std::uint32_t f;
    std::memcpy(&f, data, 4);
    check<float>(f, std::strtof, 9);
  }
  if (size >= 8) {
    std::uint64_t d;
    std::memcpy(&d, data, 8);
    check<double>(d, std::strtod, 17);
  }
  return 0;
}
