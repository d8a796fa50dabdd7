#include "texts.hpp"

#include <stdexcept>

namespace ca {

extern const char kTextsJson[];  // src/texts.json, embedded by CMakeLists.txt

namespace {

const json::Value& group(std::string_view name) {
  static const json::Value doc = [] {
    json::ParseResult r = json::parse(kTextsJson);
    if (!r.error.empty()) throw std::logic_error("src/texts.json: " + r.error);
    return std::move(r.value);
  }();
  for (const auto& [k, v] : doc.members)
    if (k == name) return v;
  throw std::logic_error("src/texts.json has no \"" + std::string(name) + "\"");
}

const std::string& text(std::string_view name, std::string_view key) {
  for (const auto& [k, v] : group(name).members)
    if (k == key) return v.text;
  throw std::logic_error("src/texts.json's \"" + std::string(name) + "\" has no \"" +
                         std::string(key) + "\"");
}

}  // namespace

const std::string& stage_note(std::string_view id) { return text("notes", id); }
const std::string& setting_help(std::string_view key) { return text("help", key); }

std::vector<std::string> text_keys(std::string_view name) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : group(name).members) keys.push_back(k);
  return keys;
}

json::Value with_texts(json::Value table) {
  for (auto& [name, list] : table.members) {
    if (name != "stages" && name != "settings") continue;
    const bool stages = name == "stages";
    for (json::Value& row : list.items) {
      const std::string& key = row.members.at(0).second.text;  // "id" or "key"
      row.members.emplace_back(stages ? "note" : "help",
                               json::make_string(stages ? stage_note(key) : setting_help(key)));
    }
  }
  return table;
}

}  // namespace ca
