#include "config_json.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "json.hpp"
#include "text.hpp"

namespace ca {
namespace {

using json::Value;
using Kind = json::Value::Kind;

// Each reader returns "" or the message for the first problem of key `key`.
std::string type_error(const std::string& key, const char* expected, const Value& v) {
  return cat({"\"", key, "\" must be ", expected, " (got ", json::describe(v.kind), ")"});
}

// Integral: judged by the literal when the number was parsed from text (there seeds up to
// 2^64 - 1 are exact), else by its double (numbers from JS).
bool integral(const Value& v) {
  if (v.kind != Kind::Number) return false;
  if (!v.text.empty()) return v.text.find_first_of(".eE") == std::string::npos;
  return std::isfinite(v.number) && std::trunc(v.number) == v.number;
}

std::string range_error(const std::string& key, const std::string& expected, const Value& v) {
  return "\"" + key + "\" must be " + expected + " (got " +
         (v.kind == Kind::Number ? json::literal(v) : json::describe(v.kind)) + ")";
}

std::string read_int(const Value& v, const std::string& key, int min, int max, int& out) {
  const std::string range = "an integer between " + decimal(min) + " and " + decimal(max);
  if (!integral(v)) return range_error(key, range, v);
  errno = 0;
  const double n =
      v.text.empty() ? v.number : static_cast<double>(std::strtoll(v.text.c_str(), nullptr, 10));
  if (errno == ERANGE || n < min || n > max) return range_error(key, range, v);
  out = static_cast<int>(n);
  return "";
}

// Python ints as torch.manual_seed takes them: [-2^63, 2^64 - 1], negatives as two's complement.
std::string read_seed(const Value& v, const std::string& key, std::uint64_t& out) {
  const char* expected = "an integer between -2^63 and 2^64-1";
  if (!integral(v)) return range_error(key, expected, v);
  const bool negative = v.text.empty() ? v.number < 0 : v.text[0] == '-';
  if (v.text.empty()) {  // a double: exact when it is an integer in range
    if (v.number < -0x1p63 || v.number >= 0x1p64) return range_error(key, expected, v);
    out = negative ? static_cast<std::uint64_t>(static_cast<std::int64_t>(v.number))
                   : static_cast<std::uint64_t>(v.number);
    return "";
  }
  errno = 0;
  out = negative ? static_cast<std::uint64_t>(std::strtoll(v.text.c_str(), nullptr, 10))
                 : std::strtoull(v.text.c_str(), nullptr, 10);
  if (errno == ERANGE) return range_error(key, expected, v);
  return "";
}

std::string read_double(const Value& v, const std::string& key, double& out) {
  if (v.kind != Kind::Number) return type_error(key, "a number", v);
  out = v.number;
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
      if (std::string e = read_int(item.items[0], "randn[0]", 1, kMaxTokens, r.rows); !e.empty())
        return "\"inputs\": " + e;
      if (std::string e = read_int(item.items[1], "randn[1]", 1, kMaxDim, r.cols); !e.empty())
        return "\"inputs\": " + e;
      has_size = true;
    } else if (key == "seed") {
      if (std::string e = read_seed(item, "seed", r.seed); !e.empty()) return "\"inputs\": " + e;
    } else {
      return cat({"\"inputs\": unknown key ", quoted(key), " (expected \"randn\" and \"seed\")"});
    }
  }
  if (!has_size) return "\"inputs\": an object needs \"randn\": [tokens, d_in]";
  c.randn = r;
  return "";
}

std::string read_inputs(const Value& v, Config& c) {
  if (v.kind == Kind::Object) return read_randn(v, c);
  if (v.kind != Kind::Array)
    return type_error("inputs", "an array of rows or {\"randn\": [T, D]}", v);
  if (v.items.empty()) return "\"inputs\" is empty";
  if (v.items.size() > static_cast<std::size_t>(kMaxTokens)) {
    return cat({"\"inputs\" has ", decimal(v.items.size()), " tokens; at most ",
                decimal(kMaxTokens), " are supported"});
  }
  const std::size_t d_in = v.items[0].items.size();
  std::vector<float> data;
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    const Value& row = v.items[i];
    const std::string where = "\"inputs\"[" + decimal(i) + "]";
    if (row.kind != Kind::Array)
      return cat({where, " must be an array of numbers (got ", json::describe(row.kind), ")"});
    if (row.items.empty()) return where + " is empty";
    if (row.items.size() > static_cast<std::size_t>(kMaxDim)) {
      return cat({where, " has ", decimal(row.items.size()), " values; at most ", decimal(kMaxDim),
                  " are supported"});
    }
    if (row.items.size() != d_in) {
      return cat({"\"inputs\" is ragged: row ", decimal(i), " has length ",
                  decimal(row.items.size()), ", row 0 has length ", decimal(d_in)});
    }
    for (std::size_t j = 0; j < d_in; ++j) {
      const Value& x = row.items[j];
      const std::string cell = where + "[" + decimal(j) + "]";
      if (x.kind != Kind::Number) {
        return cell + " must be a finite number (got " +
               (x.kind == Kind::String ? quoted(x.text) : json::describe(x.kind)) + ")";
      }
      const float f = static_cast<float>(x.number);  // decimal -> double -> float, as torch.tensor
      if (!std::isfinite(f))
        return cat({cell, " is not a finite float32 number (got ", json::literal(x), ")"});
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
      return cat(
          {"\"tokens\" must contain only strings (got ", std::string(json::describe(t.kind)), ")"});
    }
    c.tokens.push_back(t.text);
  }
  if (c.tokens.empty()) return "\"tokens\" is empty";
  return "";
}

// The option's index in the setting's table, as DropoutRng numbers them.
std::string read_rng(const Value& v, Config& c) {
  const SettingInfo& rng = setting("rng");
  std::string expected;
  for (std::size_t i = 0; !choice(rng, i).value.empty(); ++i) {
    if (v.kind == Kind::String && v.text == choice(rng, i).value) {
      c.rng = static_cast<DropoutRng>(i);
      return "";
    }
    expected += cat({i ? " or \"" : "\"", choice(rng, i).value, "\""});
  }
  return "\"rng\" must be " + expected;
}

// An integer setting within the table's range.
std::string read_int(const Value& v, const std::string& key, int& out) {
  const SettingInfo& s = setting(key);
  return read_int(v, key, static_cast<int>(s.min), static_cast<int>(s.max), out);
}

std::string read_key(const std::string& key, const Value& v, Config& c) {
  if (key == "inputs") return read_inputs(v, c);
  if (key == "tokens") return read_tokens(v, c);
  if (key == "d_out") return read_int(v, key, c.d_out);
  if (key == "query_token") return read_int(v, key, c.query_token);
  if (key == "seed_v1") return read_seed(v, key, c.seed_v1);
  if (key == "num_heads") return read_int(v, key, c.num_heads);
  if (key == "qkv_bias") return read_bool(v, key, c.qkv_bias);
  if (key == "scale") return read_bool(v, key, c.scale);
  if (key == "seed_weights") return read_seed(v, key, c.seed_weights);
  if (key == "seed_dropout") return read_seed(v, key, c.seed_dropout);
  if (key == "dropout") return read_double(v, key, c.dropout);
  if (key == "seed_class") return read_seed(v, key, c.seed_class);
  if (key == "class_dropout") return read_double(v, key, c.class_dropout);
  if (key == "context_length") return read_int(v, key, c.context_length);
  if (key == "rng") return read_rng(v, c);
  if (key == "train") return read_bool(v, key, c.train);
  std::string known;
  for (const std::string& k : config_keys()) known += (known.empty() ? "" : ", ") + k;
  return cat({"unknown configuration key ", quoted(key), " (known keys: ", known, ")"});
}

}  // namespace

const std::vector<std::string>& config_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const SettingInfo& s : kSettings) k.push_back(s.key);
    return k;
  }();
  return keys;
}

ParsedConfig read_config(const json::Value& doc, const json::Value* overrides) {
  ParsedConfig out;
  for (const json::Value* d : {&doc, overrides}) {
    if (d != nullptr && d->kind != Kind::Object) {
      out.error = std::string("the configuration must be a JSON object (got ") +
                  json::describe(d->kind) + ")";
      return out;
    }
  }
  const auto overridden = [&](const std::string& key) {
    if (overrides == nullptr) return false;
    for (const auto& m : overrides->members) {
      if (m.first == key) return true;
    }
    return false;
  };
  for (const json::Value* d : {&doc, overrides}) {
    if (d == nullptr) continue;
    for (const auto& [key, v] : d->members) {
      if (d == &doc && overridden(key)) continue;
      out.error = read_key(key, v, out.config);
      if (!out.error.empty()) return out;
    }
  }
  out.error = validate(out.config);
  return out;
}

ParsedConfig parse_config(std::string_view text, std::string_view overrides) {
  json::ParseResult docs[2] = {json::parse(text), json::parse(overrides)};
  for (const json::ParseResult& d : docs) {
    if (!d.error.empty()) {
      ParsedConfig out;
      out.error = d.error;
      return out;
    }
  }
  return read_config(docs[0].value, &docs[1].value);
}

json::Value config_to_value(const Config& c) {
  using json::make_bool;
  using json::make_number;
  using json::make_string;
  const auto seed = [](std::uint64_t s) { return make_number(static_cast<double>(s), decimal(s)); };
  const auto probability = [](double p) { return make_number(p); };
  json::Value inputs;
  if (c.randn) {
    inputs.kind = Kind::Object;
    json::Value size;
    size.kind = Kind::Array;
    size.items = {make_number(c.randn->rows), make_number(c.randn->cols)};
    inputs.members = {{"randn", size}, {"seed", seed(c.randn->seed)}};
  } else {
    inputs.kind = Kind::Array;
    for (int i = 0; i < c.inputs.rows(); ++i) {
      json::Value row;
      row.kind = Kind::Array;
      for (int j = 0; j < c.inputs.cols(); ++j) {
        row.items.push_back(make_number(c.inputs.at(i, j), json::number(c.inputs.at(i, j))));
      }
      inputs.items.push_back(std::move(row));
    }
  }
  json::Value tokens;
  tokens.kind = Kind::Array;
  for (const std::string& t : c.tokens) tokens.items.push_back(make_string(t));
  json::Value v;
  v.kind = Kind::Object;
  v.members = {{"inputs", std::move(inputs)},
               {"tokens", std::move(tokens)},
               {"d_out", make_number(c.d_out)},
               {"query_token", make_number(c.query_token)},
               {"seed_v1", seed(c.seed_v1)},
               {"num_heads", make_number(c.num_heads)},
               {"qkv_bias", make_bool(c.qkv_bias)},
               {"scale", make_bool(c.scale)},
               {"seed_weights", seed(c.seed_weights)},
               {"seed_dropout", seed(c.seed_dropout)},
               {"dropout", probability(c.dropout)},
               {"seed_class", seed(c.seed_class)},
               {"class_dropout", probability(c.class_dropout)},
               {"context_length", make_number(c.context_length)},
               {"rng", make_string(to_string(c.rng))},
               {"train", make_bool(c.train)}};
  return v;
}

std::string config_to_json(const Config& c) { return json::write(config_to_value(c)); }

}  // namespace ca
