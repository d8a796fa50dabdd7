// The display texts: each stage's note and each setting's help, in src/texts.json, the one copy
// that every reader takes them from. The native build compiles the file in (CMakeLists.txt
// embeds it: texts.cpp reads it); src/wasm/pack.js bundles it into causal-attention.js, where
// the page and the JS API (api.stages, api.settings) read it. The WebAssembly module leaves them
// out: the page would otherwise ship them twice (in the wasm and in app.js's snapshot).
// "notes" follows the stage table's order and "help" kSettings' (the JS side reads them by
// index): tests/test_stages.cpp and test_settings.cpp hold the file to the tables.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "json.hpp"

namespace ca {

// A stage's note, a setting's help; an id or key the file lacks throws std::logic_error.
const std::string& stage_note(std::string_view id);
const std::string& setting_help(std::string_view key);

// The file's "notes" or "help" keys, in its order.
std::vector<std::string> text_keys(std::string_view group);

// stage_table_json() with each stage's "note" added as its last key, or settings_json() with
// each setting's "help": what --list-stages and --list-settings --format json print, and what
// the JS API returns.
json::Value with_texts(json::Value table);

}  // namespace ca
