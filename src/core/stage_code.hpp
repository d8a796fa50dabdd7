// The PyTorch line of each stage with this configuration's values: the stage table's templates
// ("torch.manual_seed({seed_weights})") filled in. The text side of the walkthrough, apart from
// its arithmetic; built at -Oz in WebAssembly like the walkthrough (-O2 would save 16 us of a
// book run for 1.4 KB gzip).
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
