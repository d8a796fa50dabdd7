// Text without printf and without chains of std::string temporaries, both of which cost the
// WebAssembly module kilobytes: concatenation, integers, and the shortest decimal that reads back
// as the same float32 or double, in Python's repr style ("0.43", "1e-05", "1e+16"), by exact bignum
// arithmetic (Burger & Dybvig's free-format algorithm).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

namespace ca {

// The pieces joined: cat({"\"", key, "\" is empty"}).
std::string cat(std::initializer_list<std::string_view> pieces);

std::string decimal_signed(std::int64_t v);
std::string decimal_unsigned(std::uint64_t v);

// Any integer in decimal, like std::to_string (which libc++ builds on snprintf).
template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int>>>
std::string decimal(Int v) {
  if constexpr (std::is_signed_v<Int>)
    return decimal_signed(v);
  else
    return decimal_unsigned(v);
}

// Total: non-finite values are "inf", "-inf" and "nan" (messages print them; JSON quotes them).
std::string shortest(float v);
std::string shortest(double v);

// Whether s is well-formed UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
bool valid_utf8(std::string_view s);

// A user's string for a message, always one line of valid UTF-8: in double quotes, with JSON's
// escapes for quotes, backslashes and control characters (C0, DEL, C1: \u001b, \u0085),
// and bytes that are not UTF-8 as \xff.
std::string quoted(std::string_view s);

// A whole message made one line the same way, without quotes (a last guard before stderr).
std::string one_line(std::string_view s);

}  // namespace ca
