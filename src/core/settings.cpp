#include "settings.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "config_json.hpp"
#include "text.hpp"

namespace ca {

namespace {

const json::Value& member(const json::Value& object, std::string_view key) {
  for (const auto& [k, v] : object.members) {
    if (k == key) return v;
  }
  static const json::Value null;
  return null;
}

// The settings in the order of the page's form (and of the widget's controls): by section of
// the chapter, each group's settings together; JSON's "order" is the index here (a key the
// table adds without a place here comes after all of these).
constexpr std::string_view kFormOrder[] = {
    "inputs",     "tokens",        "query_token",    "seed_v1",      "d_out", "seed_weights",
    "qkv_bias",   "scale",         "dropout",        "seed_dropout", "rng",   "train",
    "seed_class", "class_dropout", "context_length", "num_heads"};

double form_order(std::string_view key) {
  const auto* at = std::find(std::begin(kFormOrder), std::end(kFormOrder), key);
  return static_cast<double>(at - std::begin(kFormOrder));
}

}  // namespace

Choice choice(const SettingInfo& setting, std::size_t index) {
  std::string_view rest = setting.choices;
  for (; index > 0 && !rest.empty(); --index)
    rest.remove_prefix(std::min(rest.find('\n'), rest.size() - 1) + 1);
  const std::string_view line = rest.substr(0, rest.find('\n'));
  return {line.substr(0, line.find(':')), line};
}

const char* to_string(SettingType type) {
  switch (type) {
    case SettingType::Inputs:
      return "inputs";
    case SettingType::Strings:
      return "strings";
    case SettingType::Integer:
      return "integer";
    case SettingType::Seed:
      return "seed";
    case SettingType::Probability:
      return "probability";
    case SettingType::Boolean:
      return "boolean";
    case SettingType::Choice:
      return "choice";
  }
  return "inputs";
}

json::Value settings_json() {
  using json::make_number;
  using json::make_string;
  using Kind = json::Value::Kind;
  const json::Value book = config_to_value(resolve(Config{}));  // the defaults, resolved
  json::Value list;
  list.kind = Kind::Array;
  for (const SettingInfo& s : kSettings) {
    const bool ranged = s.type == SettingType::Integer || s.type == SettingType::Seed ||
                        s.type == SettingType::Probability;
    json::Value choices_js, min, max;  // null unless ranged
    choices_js.kind = Kind::Array;
    if (ranged) {  // the literal keeps seeds' ends exact
      min = make_number(static_cast<double>(s.min), decimal(s.min));
      max = make_number(static_cast<double>(s.max), decimal(s.max));
    }
    for (Choice c; !(c = choice(s, choices_js.items.size())).value.empty();) {
      json::Value o;
      o.kind = Kind::Object;
      o.members = {{"value", make_string(std::string(c.value))},
                   {"label", make_string(std::string(c.label))}};
      choices_js.items.push_back(std::move(o));
    }
    json::Value v;
    v.kind = Kind::Object;
    v.members = {{"key", make_string(s.key)},
                 {"type", make_string(to_string(s.type))},
                 {"min", std::move(min)},
                 {"max", std::move(max)},
                 {"default", member(book, s.key)},
                 {"derived", json::make_bool(s.derived)},
                 {"compact", json::make_bool(s.compact)},
                 {"choices", std::move(choices_js)},
                 {"group", make_string(s.group)},
                 {"order", make_number(form_order(s.key))},
                 {"label", make_string(s.label)}};
    list.items.push_back(std::move(v));
  }
  json::Value doc;
  doc.kind = Kind::Object;
  doc.members = {{"settings", std::move(list)}};
  return doc;
}

}  // namespace ca
