#include "text.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ca {
namespace {

// A non-negative integer of up to 40 * 32 bits: enough for 2^1077 and 10^325. Only the limbs
// below size_ are ever read: nothing else is initialised (zeroing 160 bytes per number was a
// third of a float's conversion).
class Big {
 public:
  explicit Big(std::uint64_t v = 0) {
    limb_[0] = static_cast<std::uint32_t>(v);
    limb_[1] = static_cast<std::uint32_t>(v >> 32);
    size_ = limb_[1] ? 2 : limb_[0] ? 1 : 0;
  }
  Big& mul(std::uint32_t m) {
    std::uint64_t carry = 0;
    for (int i = 0; i < size_; ++i) {
      carry += static_cast<std::uint64_t>(limb_[i]) * m;
      limb_[i] = static_cast<std::uint32_t>(carry);
      carry >>= 32;
    }
    if (carry) limb_[size_++] = static_cast<std::uint32_t>(carry);
    return *this;
  }
  Big& shl(int bits) {  // *= 2^bits
    for (; bits >= 31; bits -= 31) mul(0x80000000u);
    return bits ? mul(1u << bits) : *this;
  }
  Big& pow10(int n) {  // *= 10^n
    for (; n >= 9; n -= 9) mul(1000000000u);
    for (; n > 0; --n) mul(10);
    return *this;
  }
  Big& sub(const Big& b) {  // precondition: *this >= b
    std::int64_t borrow = 0;
    for (int i = 0; i < size_; ++i) {
      std::int64_t d = static_cast<std::int64_t>(limb_[i]) - b.at(i) - borrow;
      borrow = d < 0;
      limb_[i] = static_cast<std::uint32_t>(d + (borrow << 32));
    }
    while (size_ > 0 && limb_[size_ - 1] == 0) --size_;
    return *this;
  }
  friend int compare(const Big& a, const Big& b) {
    if (a.size_ != b.size_) return a.size_ < b.size_ ? -1 : 1;
    for (int i = a.size_ - 1; i >= 0; --i) {
      if (a.limb_[i] != b.limb_[i]) return a.limb_[i] < b.limb_[i] ? -1 : 1;
    }
    return 0;
  }
  // compare(a + b, c) without a temporary.
  friend int compare_sum(const Big& a, const Big& b, const Big& c) {
    const int n = a.size_ > b.size_ ? a.size_ : b.size_;
    if (n + 1 < c.size_) return -1;
    if (n > c.size_) return 1;
    std::uint32_t sum[41];
    std::uint64_t carry = 0;
    for (int i = 0; i < n; ++i) {
      carry += static_cast<std::uint64_t>(a.at(i)) + b.at(i);
      sum[i] = static_cast<std::uint32_t>(carry);
      carry >>= 32;
    }
    sum[n] = static_cast<std::uint32_t>(carry);
    for (int i = n; i >= 0; --i) {
      const std::uint32_t ci = c.at(i);
      if (sum[i] != ci) return sum[i] < ci ? -1 : 1;
    }
    return 0;
  }

 private:
  std::uint32_t at(int i) const { return i < size_ ? limb_[i] : 0; }
  std::uint32_t limb_[40];
  int size_ = 0;
};

// Digits of v = f * 2^e (f with `precision` bits, hidden bit included) and the exponent k
// with v = 0.d1d2... * 10^k.
std::string digits(std::uint64_t f, int e, int precision, int min_e, int& k) {
  const bool even = f % 2 == 0;  // round-half-even reading: interval ends are included
  const std::uint64_t hidden = std::uint64_t{1} << (precision - 1);
  Big r, s, m_plus, m_minus;
  if (e >= 0) {
    const int up = f == hidden ? 1 : 0;  // the gap below a power of two is half as wide
    r = Big(f).shl(e + 1 + up);
    s = Big(2).shl(up);
    m_plus = Big(1).shl(e + up);
    m_minus = Big(1).shl(e);
  } else {
    const int up = (e != min_e && f == hidden) ? 1 : 0;
    r = Big(f).shl(1 + up);
    s = Big(1).shl(1 - e + up);
    m_plus = Big(1).shl(up);
    m_minus = Big(1);
  }
  const double v = std::ldexp(static_cast<double>(f), e);
  k = static_cast<int>(std::ceil(std::log10(v) - 1e-10));
  if (k >= 0) {
    s.pow10(k);
  } else {
    r.pow10(-k);
    m_plus.pow10(-k);
    m_minus.pow10(-k);
  }
  const auto high = [&](const Big& rem) {  // rem + m+ reaches the next power
    const int c = compare_sum(rem, m_plus, s);
    return even ? c >= 0 : c > 0;
  };
  if (high(r)) {
    ++k;
  } else {
    r.mul(10);
    m_plus.mul(10);
    m_minus.mul(10);
  }
  std::string out;
  for (;;) {
    int d = 0;
    while (compare(r, s) >= 0) {
      r.sub(s);
      ++d;
    }
    const int c = compare(r, m_minus);
    const bool low = even ? c <= 0 : c < 0;
    const bool hi = high(r);
    if (!low && !hi) {
      out += static_cast<char>('0' + d);
      r.mul(10);
      m_plus.mul(10);
      m_minus.mul(10);
      continue;
    }
    if (low && hi) {  // both ends reachable: the nearer digit, ties to even like printf
      Big twice = r;
      twice.mul(2);
      const int c2 = compare(twice, s);
      if (c2 > 0 || (c2 == 0 && d % 2 == 1)) ++d;
    } else if (hi) {
      ++d;
    }
    out += static_cast<char>('0' + d);
    return out;
  }
}

std::string format(bool negative, const std::string& d, int k) {
  std::string s = negative ? "-" : "";
  const int n = static_cast<int>(d.size()), x = k - 1;  // x: exponent of the first digit
  if (x >= -4 && x < 16) {
    if (k <= 0) return s + "0." + std::string(-k, '0') + d;
    if (k >= n) return s + d + std::string(k - n, '0');
    return s + d.substr(0, k) + "." + d.substr(k);
  }
  s += d.substr(0, 1);
  if (n > 1) s += "." + d.substr(1);
  const int ax = x < 0 ? -x : x;
  return s + (x < 0 ? "e-" : "e+") + (ax < 10 ? "0" : "") + decimal(ax);
}

template <typename Bits, int kPrecision, int kExponentBits>
std::string shortest_of(Bits bits) {
  constexpr int kBias = (1 << (kExponentBits - 1)) - 1;
  constexpr int kMinE = 1 - kBias - (kPrecision - 1);
  const bool negative = (bits >> (sizeof(Bits) * 8 - 1)) != 0;
  const int biased =
      static_cast<int>((bits >> (kPrecision - 1)) & ((Bits{1} << kExponentBits) - 1));
  std::uint64_t f = bits & ((Bits{1} << (kPrecision - 1)) - 1);
  if (biased == 0 && f == 0) return negative ? "-0" : "0";
  // Infinity's and NaN's exponent would overflow the bignums: digits() must never see them.
  if (biased == (1 << kExponentBits) - 1) return f != 0 ? "nan" : negative ? "-inf" : "inf";
  int e = kMinE;
  if (biased != 0) {
    f |= std::uint64_t{1} << (kPrecision - 1);
    e = biased - kBias - (kPrecision - 1);
  }
  int k = 0;
  const std::string d = digits(f, e, kPrecision, kMinE, k);
  return format(negative, d, k);
}

// The length of the UTF-8 sequence at s[i], or 0 when it is not well-formed.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte (RFC 3629's table)
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;  // overlong
    if (b == 0xED) hi = 0x9F;  // surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;  // overlong
    if (b == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

std::string escaped(std::string_view s, bool quote) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {  // not UTF-8: the byte itself
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
      ++i;
      continue;
    }
    // The code point of a control character: C0 and DEL (1 byte), C1 (0xC2 0x80..0x9F).
    int control = -1;
    if (b < 0x20 || b == 0x7F) control = b;
    if (b == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0)
      control = static_cast<unsigned char>(s[i + 1]);
    if (control == '\n') {
      out += "\\n";
    } else if (control == '\r') {
      out += "\\r";
    } else if (control == '\t') {
      out += "\\t";
    } else if (control >= 0) {
      out += "\\u00";
      out += kHex[control >> 4];
      out += kHex[control & 0xF];
    } else if (quote && (b == '"' || b == '\\')) {
      out += '\\';
      out += static_cast<char>(b);
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  return quote ? "\"" + out + "\"" : out;
}

}  // namespace

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string quoted(std::string_view s) { return escaped(s, true); }
std::string one_line(std::string_view s) { return escaped(s, false); }

std::string cat(std::initializer_list<std::string_view> pieces) {
  std::size_t n = 0;
  for (const std::string_view p : pieces) n += p.size();
  std::string s;
  s.reserve(n);
  for (const std::string_view p : pieces) s += p;
  return s;
}

std::string decimal_unsigned(std::uint64_t v) {
  char buf[24];
  char* p = buf + sizeof buf;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  return std::string(p, buf + sizeof buf);
}

std::string decimal_signed(std::int64_t v) {
  // The magnitude of INT64_MIN does not fit in int64: negate in unsigned arithmetic.
  const std::uint64_t magnitude = static_cast<std::uint64_t>(v);
  return v < 0 ? "-" + decimal_unsigned(0 - magnitude) : decimal_unsigned(magnitude);
}

std::string shortest(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return shortest_of<std::uint32_t, 24, 8>(bits);
}

std::string shortest(double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return shortest_of<std::uint64_t, 53, 11>(bits);
}

}  // namespace ca
