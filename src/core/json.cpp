#include "json.hpp"

#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "text.hpp"

namespace ca::json {
namespace {

class Parser {
 public:
  Parser(std::string_view s, const Limits& limits) : s_(s), limits_(limits) {}

  ParseResult run() {
    ParseResult r;
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a BOM, as Windows editors write it
    skip_ws();
    if (!value(r.value, 0)) {
      r.error = error_;
      return r;
    }
    skip_ws();
    if (pos_ != s_.size()) r.error = at("unexpected text after the JSON value");
    return r;
  }

 private:
  std::string_view s_;
  const Limits limits_;
  std::size_t values_ = 0;  // read so far, for limits_.values
  std::size_t pos_ = 0;
  std::string error_;

  std::string at(const std::string& what) const {
    return "invalid JSON at offset " + decimal(pos_) + ": " + what;
  }
  bool fail(const std::string& what) {
    if (error_.empty()) error_ = at(what);
    return false;
  }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' || s_[pos_] == '\n')) {
      ++pos_;
    }
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return fail("unknown literal");
    pos_ += word.size();
    return true;
  }

  bool value(Value& v, int depth) {
    if (depth > limits_.depth) return fail("nested too deeply");
    if (++values_ > limits_.values)
      return fail("more than " + decimal(limits_.values) + " values in all");
    skip_ws();
    if (pos_ >= s_.size()) return fail("unexpected end of input");
    const char c = s_[pos_];
    if (c == '{') return object(v, depth);
    if (c == '[') return array(v, depth);
    if (c == '"') {
      v.kind = Value::Kind::String;
      return string(v.text);
    }
    if (c == 't' || c == 'f') {
      v.kind = Value::Kind::Bool;
      v.boolean = c == 't';
      return literal(v.boolean ? "true" : "false");
    }
    if (c == 'n') {
      v.kind = Value::Kind::Null;
      return literal("null");
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = Value::Kind::Number;
      if (!number(v.text)) return false;
      v.number = std::strtod(v.text.c_str(), nullptr);
      return true;
    }
    return fail("unexpected character '" + one_line(std::string(1, c)) + "'");
  }

  bool object(Value& v, int depth) {
    v.kind = Value::Kind::Object;
    ++pos_;
    if (eat('}')) return true;
    std::unordered_set<std::string> seen;  // linear in the number of keys
    do {
      skip_ws();
      std::string key;
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a string key");
      if (!string(key)) return false;
      if (!seen.insert(key).second) return fail("duplicate key " + quoted(key));
      if (v.members.size() == limits_.items)
        return fail("an object with more than " + decimal(limits_.items) + " keys");
      if (!eat(':')) return fail("expected ':'");
      v.members.emplace_back(std::move(key), Value{});
      if (!value(v.members.back().second, depth + 1)) return false;
    } while (eat(','));
    return eat('}') || fail("expected ',' or '}'");
  }

  bool array(Value& v, int depth) {
    v.kind = Value::Kind::Array;
    ++pos_;
    if (eat(']')) return true;
    do {
      if (v.items.size() == limits_.items)
        return fail("an array with more than " + decimal(limits_.items) + " elements");
      v.items.emplace_back();
      if (!value(v.items.back(), depth + 1)) return false;
    } while (eat(','));
    return eat(']') || fail("expected ',' or ']'");
  }

  bool digits() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }

  bool number(std::string& out) {
    const std::size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '0') {
      ++pos_;
    } else if (!digits()) {
      return fail("invalid number");
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (!digits()) return fail("invalid number");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digits()) return fail("invalid number");
    }
    out.assign(s_.substr(start, pos_ - start));
    return true;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool hex4(unsigned& cp) {
    if (pos_ + 4 > s_.size()) return fail("invalid \\u escape");
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[pos_++];
      cp <<= 4;
      if (h >= '0' && h <= '9')
        cp |= h - '0';
      else if (h >= 'a' && h <= 'f')
        cp |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        cp |= h - 'A' + 10;
      else
        return fail("invalid \\u escape");
    }
    return true;
  }

  bool string(std::string& out) {
    ++pos_;  // the opening quote
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) break;
      const char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00) {  // a surrogate pair
            unsigned lo = 0;
            if (s_.substr(pos_, 2) != "\\u") return fail("unpaired surrogate");
            pos_ += 2;
            if (!hex4(lo) || lo < 0xDC00 || lo > 0xDFFF) return fail("unpaired surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return fail("unpaired surrogate");
          }
          append_utf8(out, cp);
          break;
        }
        default:
          return fail("invalid escape");
      }
    }
    return fail("unterminated string");
  }
};

template <typename T>
std::string number_of(T v) {
  if (std::isnan(v)) return "\"nan\"";
  if (std::isinf(v)) return v < 0 ? "\"-inf\"" : "\"inf\"";
  return shortest(v);
}

}  // namespace

ParseResult parse(std::string_view text, const Limits& limits) {
  return Parser(text, limits).run();
}

const char* describe(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::Null:
      return "null";
    case Value::Kind::Bool:
      return "a boolean";
    case Value::Kind::Number:
      return "a number";
    case Value::Kind::String:
      return "a string";
    case Value::Kind::Array:
      return "an array";
    case Value::Kind::Object:
      return "an object";
  }
  return "?";
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out += "0123456789abcdef"[(c >> 4) & 0xF];
          out += "0123456789abcdef"[c & 0xF];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string number(float v) { return number_of(v); }
std::string number(double v) { return number_of(v); }

Value make_number(double v, std::string literal) {
  Value out;
  out.kind = Value::Kind::Number;
  out.number = v;
  out.text = std::move(literal);
  return out;
}

Value make_string(std::string s) {
  Value out;
  out.kind = Value::Kind::String;
  out.text = std::move(s);
  return out;
}

Value make_bool(bool b) {
  Value out;
  out.kind = Value::Kind::Bool;
  out.boolean = b;
  return out;
}

std::string literal(const Value& v) { return v.text.empty() ? shortest(v.number) : v.text; }

std::string write(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Null:
      return "null";
    case Value::Kind::Bool:
      return v.boolean ? "true" : "false";
    case Value::Kind::Number:
      return v.text.empty() ? number(v.number) : v.text;  // non-finite values quoted
    case Value::Kind::String:
      return quote(v.text);
    case Value::Kind::Array: {
      std::string s = "[";
      for (std::size_t i = 0; i < v.items.size(); ++i) s += (i ? "," : "") + write(v.items[i]);
      return s + "]";
    }
    case Value::Kind::Object: {
      std::string s = "{";
      for (std::size_t i = 0; i < v.members.size(); ++i) {
        s += (i ? "," : "") + quote(v.members[i].first) + ":" + write(v.members[i].second);
      }
      return s + "}";
    }
  }
  return "null";
}

}  // namespace ca::json
