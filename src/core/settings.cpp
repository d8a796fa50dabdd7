#include "settings.hpp"

#include <algorithm>

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
                 {"label", make_string(s.label)},
                 {"help", make_string(s.help)}};
    list.items.push_back(std::move(v));
  }
  json::Value doc;
  doc.kind = Kind::Object;
  doc.members = {{"settings", std::move(list)}};
  return doc;
}

}  // namespace ca
