// The configuration as JSON: the keys of docs/walkthrough.md, shared by the CLI and the JS API
// so that both accept the same text and reject it with the same message.
#pragma once

#include "config.hpp"

#include <string>
#include <string_view>

namespace ca {

struct ParsedConfig {
  Config config;
  std::string error;  // "" when the text is a valid configuration
};

// Parses and validates. Unknown keys, wrong types and every validate() problem are errors.
// Keys of `overrides` (another JSON object, e.g. from command-line flags) replace those of `json`.
ParsedConfig parse_config(std::string_view json, std::string_view overrides = "{}");

// The resolved configuration as one line of JSON, every key present.
std::string config_to_json(const Config& resolved);

// The keys, in the order of config_to_json.
const std::vector<std::string>& config_keys();

}  // namespace ca
