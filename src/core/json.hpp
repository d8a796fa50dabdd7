// A small JSON reader and the number formatting of the walkthrough's JSON: the core reads and
// writes its configuration itself (with exact 64-bit seeds and the shortest float32 text), so it
// needs no JSON library, natively or in WebAssembly.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ca::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;  // a number's value
  std::string text;   // a string's decoded UTF-8; a number's literal when it was parsed from text
  std::vector<Value> items;                            // Array
  std::vector<std::pair<std::string, Value>> members;  // Object, in document order
};

Value make_number(double v, std::string literal = "");
Value make_string(std::string s);
Value make_bool(bool b);

// What a reader accepts, checked while reading so that a hostile document is refused before it
// is built (each Value is ~100 bytes: 64 MiB of "0," would be 3 GB). The defaults are none.
struct Limits {
  int depth = 64;                                     // arrays and objects inside each other
  std::size_t items = static_cast<std::size_t>(-1);   // elements of one array, keys of one object
  std::size_t values = static_cast<std::size_t>(-1);  // values in the whole document
};

struct ParseResult {
  Value value;
  std::string error;  // "" on success, else e.g. "invalid JSON at offset 12: expected ','"
};

// RFC 8259 JSON; a UTF-8 byte order mark at the start is skipped. Strings are not checked for
// UTF-8 here: the configuration reader names the string that is not (config.cpp).
ParseResult parse(std::string_view text, const Limits& limits = {});

// What a value is, for messages: "a number", "a string", ...
const char* describe(Value::Kind kind);

// A JSON string literal with quotes and escapes.
std::string quote(std::string_view s);

// The shortest decimal that reads back as the same float32 / double; non-finite values as
// the strings "-inf", "inf", "nan" (quoted).
std::string number(float v);
std::string number(double v);

// A number's text for messages: its literal, or the shortest text of its value (inf, nan).
std::string literal(const Value& v);

// One line of JSON. Numbers print their literal when they have one.
std::string write(const Value& v);

}  // namespace ca::json
