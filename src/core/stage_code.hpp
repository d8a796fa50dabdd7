// The PyTorch line of each stage with this configuration's values: the stage table's templates
// ("torch.manual_seed({seed_weights})") filled in. Its own file so that the WebAssembly build can
// compile this string work at -O2 (at -Oz every std::string accessor is a call) while the rest
// of the walkthrough stays small.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config.hpp"

namespace ca {

class StageCode {
 public:
  explicit StageCode(const Config& config);
  // The template with each {name} replaced by its value; throws std::logic_error for an unknown
  // or unclosed name (a bug in the stage table, which tests/test_stages.cpp would catch).
  std::string expand(const char* tmpl) const;

 private:
  std::vector<std::pair<std::string_view, std::string>> vars_;
};

}  // namespace ca
