#include "config_json.hpp"

#include "json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace ca {
namespace {

using json::Value;
using Kind = json::Value::Kind;

// Each reader returns "" or the message for the first problem of key `key`.
std::string type_error(const std::string& key, const char* expected, const Value& v) {
  return "\"" + key + "\" must be " + expected + " (got " + json::describe(v.kind) + ")";
}

bool is_integer_literal(const std::string& t) {
  return t.find_first_of(".eE") == std::string::npos;
}

std::string read_int(const Value& v, const std::string& key, int min, int max, int& out) {
  const std::string range = "an integer between " + std::to_string(min) + " and " + std::to_string(max);
  if (v.kind != Kind::Number || !is_integer_literal(v.text)) {
    return v.kind == Kind::Number ? "\"" + key + "\" must be " + range + " (got " + v.text + ")"
                                  : type_error(key, range.c_str(), v);
  }
  errno = 0;
  const long long n = std::strtoll(v.text.c_str(), nullptr, 10);
  if (errno == ERANGE || n < min || n > max) {
    return "\"" + key + "\" must be " + range + " (got " + v.text + ")";
  }
  out = static_cast<int>(n);
  return "";
}

// Python ints as torch.manual_seed takes them: [-2^63, 2^64 - 1], negatives as two's complement.
std::string read_seed(const Value& v, const std::string& key, std::uint64_t& out) {
  const char* expected = "an integer between -2^63 and 2^64-1";
  if (v.kind != Kind::Number || !is_integer_literal(v.text)) {
    return v.kind == Kind::Number ? "\"" + key + "\" must be " + expected + " (got " + v.text + ")"
                                  : type_error(key, expected, v);
  }
  errno = 0;
  if (v.text[0] == '-') {
    const long long n = std::strtoll(v.text.c_str(), nullptr, 10);
    out = static_cast<std::uint64_t>(n);
  } else {
    out = std::strtoull(v.text.c_str(), nullptr, 10);
  }
  if (errno == ERANGE) return "\"" + key + "\" must be " + expected + " (got " + v.text + ")";
  return "";
}

std::string read_double(const Value& v, const std::string& key, double& out) {
  if (v.kind != Kind::Number) return type_error(key, "a number", v);
  out = std::strtod(v.text.c_str(), nullptr);
  return "";
}

std::string read_bool(const Value& v, const std::string& key, bool& out) {
  if (v.kind != Kind::Bool) return type_error(key, "true or false", v);
  out = v.boolean;
  return "";
}

std::string read_randn(const Value& v, Config& c) {
  RandnInputs r;
  bool has_size = false;
  for (const auto& [key, item] : v.members) {
    if (key == "randn") {
      if (item.kind != Kind::Array || item.items.size() != 2) {
        return "\"inputs\": \"randn\" must be [tokens, d_in]";
      }
      if (std::string e = read_int(item.items[0], "randn[0]", 1, kMaxTokens, r.rows); !e.empty()) return "\"inputs\": " + e;
      if (std::string e = read_int(item.items[1], "randn[1]", 1, kMaxDim, r.cols); !e.empty()) return "\"inputs\": " + e;
      has_size = true;
    } else if (key == "seed") {
      if (std::string e = read_seed(item, "seed", r.seed); !e.empty()) return "\"inputs\": " + e;
    } else {
      return "\"inputs\": unknown key \"" + key + "\" (expected \"randn\" and \"seed\")";
    }
  }
  if (!has_size) return "\"inputs\": an object needs \"randn\": [tokens, d_in]";
  c.randn = r;
  return "";
}

std::string read_inputs(const Value& v, Config& c) {
  if (v.kind == Kind::Object) return read_randn(v, c);
  if (v.kind != Kind::Array) return type_error("inputs", "an array of rows or {\"randn\": [T, D]}", v);
  if (v.items.empty()) return "\"inputs\" is empty";
  if (v.items.size() > static_cast<std::size_t>(kMaxTokens)) {
    return "\"inputs\" has " + std::to_string(v.items.size()) + " tokens; at most " +
           std::to_string(kMaxTokens) + " are supported";
  }
  const std::size_t d_in = v.items[0].items.size();
  std::vector<float> data;
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    const Value& row = v.items[i];
    const std::string where = "\"inputs\"[" + std::to_string(i) + "]";
    if (row.kind != Kind::Array) return where + " must be an array of numbers (got " + json::describe(row.kind) + ")";
    if (row.items.empty()) return where + " is empty";
    if (row.items.size() > static_cast<std::size_t>(kMaxDim)) {
      return where + " has " + std::to_string(row.items.size()) + " values; at most " +
             std::to_string(kMaxDim) + " are supported";
    }
    if (row.items.size() != d_in) {
      return "\"inputs\" is ragged: row " + std::to_string(i) + " has length " +
             std::to_string(row.items.size()) + ", row 0 has length " + std::to_string(d_in);
    }
    for (std::size_t j = 0; j < d_in; ++j) {
      const Value& x = row.items[j];
      const std::string cell = where + "[" + std::to_string(j) + "]";
      if (x.kind != Kind::Number) {
        return cell + " must be a finite number (got " +
               (x.kind == Kind::String ? json::quote(x.text) : json::describe(x.kind)) + ")";
      }
      const float f = static_cast<float>(std::strtod(x.text.c_str(), nullptr));
      if (!std::isfinite(f)) return cell + " is not a finite float32 number (got " + x.text + ")";
      data.push_back(f);
    }
  }
  c.inputs = Tensor({static_cast<int>(v.items.size()), static_cast<int>(d_in)}, std::move(data));
  c.randn.reset();
  return "";
}

std::string read_tokens(const Value& v, Config& c) {
  if (v.kind != Kind::Array) return type_error("tokens", "an array of strings", v);
  c.tokens.clear();
  for (const Value& t : v.items) {
    if (t.kind != Kind::String) {
      return "\"tokens\" must contain only strings (got " + std::string(json::describe(t.kind)) + ")";
    }
    c.tokens.push_back(t.text);
  }
  if (c.tokens.empty()) return "\"tokens\" is empty";
  return "";
}

std::string read_rng(const Value& v, Config& c) {
  if (v.kind == Kind::String && v.text == "default") c.rng = DropoutRng::Default;
  else if (v.kind == Kind::String && v.text == "mkl") c.rng = DropoutRng::Mkl;
  else return "\"rng\" must be \"default\" or \"mkl\"";
  return "";
}

std::string read_key(const std::string& key, const Value& v, Config& c) {
  if (key == "inputs") return read_inputs(v, c);
  if (key == "tokens") return read_tokens(v, c);
  if (key == "d_out") return read_int(v, key, 1, kMaxDim, c.d_out);
  if (key == "qkv_bias") return read_bool(v, key, c.qkv_bias);
  if (key == "scale") return read_bool(v, key, c.scale);
  if (key == "seed_weights") return read_seed(v, key, c.seed_weights);
  if (key == "seed_dropout") return read_seed(v, key, c.seed_dropout);
  if (key == "dropout") return read_double(v, key, c.dropout);
  if (key == "seed_class") return read_seed(v, key, c.seed_class);
  if (key == "class_dropout") return read_double(v, key, c.class_dropout);
  if (key == "context_length") return read_int(v, key, 1, kMaxTokens, c.context_length);
  if (key == "rng") return read_rng(v, c);
  if (key == "train") return read_bool(v, key, c.train);
  std::string known;
  for (const std::string& k : config_keys()) known += (known.empty() ? "" : ", ") + k;
  return "unknown configuration key \"" + key + "\" (known keys: " + known + ")";
}

}  // namespace

const std::vector<std::string>& config_keys() {
  static const std::vector<std::string> keys = {
      "inputs", "tokens", "d_out", "qkv_bias", "scale", "seed_weights", "seed_dropout",
      "dropout", "seed_class", "class_dropout", "context_length", "rng", "train"};
  return keys;
}

ParsedConfig parse_config(std::string_view text, std::string_view overrides) {
  ParsedConfig out;
  json::Value docs[2];
  const std::string_view texts[2] = {text, overrides};
  for (int i = 0; i < 2; ++i) {
    json::ParseResult doc = json::parse(texts[i]);
    if (!doc.error.empty()) {
      out.error = doc.error;
      return out;
    }
    if (doc.value.kind != Kind::Object) {
      out.error = std::string("the configuration must be a JSON object (got ") +
                  json::describe(doc.value.kind) + ")";
      return out;
    }
    docs[i] = std::move(doc.value);
  }
  const auto overridden = [&](const std::string& key) {
    for (const auto& m : docs[1].members) {
      if (m.first == key) return true;
    }
    return false;
  };
  for (int i = 0; i < 2; ++i) {
    for (const auto& [key, v] : docs[i].members) {
      if (i == 0 && overridden(key)) continue;
      out.error = read_key(key, v, out.config);
      if (!out.error.empty()) return out;
    }
  }
  out.error = validate(out.config);
  return out;
}

std::string config_to_json(const Config& c) {
  std::string s = "{\"inputs\":";
  if (c.randn) {
    s += "{\"randn\":[" + std::to_string(c.randn->rows) + "," + std::to_string(c.randn->cols) +
         "],\"seed\":" + std::to_string(c.randn->seed) + "}";
  } else {
    s += "[";
    for (int i = 0; i < c.inputs.rows(); ++i) {
      s += i ? ",[" : "[";
      for (int j = 0; j < c.inputs.cols(); ++j) s += (j ? "," : "") + json::number(c.inputs.at(i, j));
      s += "]";
    }
    s += "]";
  }
  s += ",\"tokens\":[";
  for (std::size_t i = 0; i < c.tokens.size(); ++i) s += (i ? "," : "") + json::quote(c.tokens[i]);
  s += "]";
  const auto boolean = [](bool b) { return b ? "true" : "false"; };
  s += ",\"d_out\":" + std::to_string(c.d_out);
  s += std::string(",\"qkv_bias\":") + boolean(c.qkv_bias);
  s += std::string(",\"scale\":") + boolean(c.scale);
  s += ",\"seed_weights\":" + std::to_string(c.seed_weights);
  s += ",\"seed_dropout\":" + std::to_string(c.seed_dropout);
  s += ",\"dropout\":" + json::number(c.dropout);
  s += ",\"seed_class\":" + std::to_string(c.seed_class);
  s += ",\"class_dropout\":" + json::number(c.class_dropout);
  s += ",\"context_length\":" + std::to_string(c.context_length);
  s += std::string(",\"rng\":\"") + to_string(c.rng) + "\"";
  s += std::string(",\"train\":") + boolean(c.train) + "}";
  return s;
}

}  // namespace ca
