// The configuration as JSON: the keys of docs/cli.md, shared by the CLI and the JS API
// so that both accept the same text and reject it with the same message.
#pragma once

#include <string>
#include <string_view>

#include "config.hpp"
#include "json.hpp"

namespace ca {

struct ParsedConfig {
  Config config;
  std::string error;  // "" when the text is a valid configuration
};

// Parses and validates. Unknown keys, wrong types and every validate() problem are errors.
// Keys of `overrides` (another JSON object, e.g. from command-line flags) replace those of `json`.
ParsedConfig parse_config(std::string_view json, std::string_view overrides = "{}");

// The same from a JSON document already parsed (or built from a JS object).
ParsedConfig read_config(const json::Value& doc, const json::Value* overrides = nullptr);

// The resolved configuration as a JSON document and as one line of JSON, every key present.
json::Value config_to_value(const Config& resolved);
std::string config_to_json(const Config& resolved);

// The keys, in the order of config_to_json.
const std::vector<std::string>& config_keys();

}  // namespace ca
