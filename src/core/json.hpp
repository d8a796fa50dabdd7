// A small JSON reader and the number formatting of the walkthrough's JSON. The core is
// compiled to WebAssembly, so it carries this instead of a JSON library.
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
  std::string text;  // a number's literal, or a string's decoded UTF-8
  std::vector<Value> items;                            // Array
  std::vector<std::pair<std::string, Value>> members;  // Object, in document order
};

struct ParseResult {
  Value value;
  std::string error;  // "" on success, else e.g. "invalid JSON at offset 12: expected ','"
};

ParseResult parse(std::string_view text);

// What a value is, for messages: "a number", "a string", ...
const char* describe(Value::Kind kind);

// A JSON string literal with quotes and escapes.
std::string quote(std::string_view s);

// The shortest decimal that reads back as the same float32 / double; non-finite values as
// the strings "-inf", "inf", "nan" (quoted).
std::string number(float v);
std::string number(double v);

}  // namespace ca::json
