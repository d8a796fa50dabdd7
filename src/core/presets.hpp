// Named configurations: the book's, and exercise 3.3's GPT-2-sized attention. The CLI's
// --preset, the JS API's presets and the widget's `preset` attribute all read this table.
#pragma once

#include <string>
#include <vector>

#include "json.hpp"

namespace ca {

struct Preset {
  const char* name;
  const char* description;
  // The configuration's keys, built as a document: the WebAssembly module links no JSON
  // text parser (and so no strtod).
  json::Value (*config)();
  // The stages it shows when none are asked for, comma-separated; "" for every stage.
  const char* stages;
};

const std::vector<Preset>& presets();
// nullptr when there is no preset of that name.
const Preset* find_preset(const std::string& name);
// The preset's stage ids, in order (empty: every stage).
std::vector<std::string> preset_stages(const Preset& preset);
// The preset's configuration with the keys of `doc` (an object) laid over it.
json::Value with_preset(const Preset& preset, const json::Value& doc);

}  // namespace ca
