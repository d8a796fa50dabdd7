// Every golden configuration made by PyTorch (tests/golden/generate.py) through the core, one
// run per file: every stage's values equal PyTorch's bit for bit, softmax and sums included
// (SLEEF's exp, ATen's reduction orders). A failure names the file, the stage, the first
// differing index and both values' bits.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "stages.hpp"
#include "support.hpp"

namespace {

std::vector<std::string> golden_files() {
  std::vector<std::string> files;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(CA_SOURCE_DIR) + "/tests/golden/cases")) {
    files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("a golden configuration equals PyTorch bit for bit", "[golden]") {
  const std::string file = GENERATE(from_range(golden_files()));
  INFO("tests/golden/cases/" << file);
  const nlohmann::json golden = test::load_json("tests/golden/cases/" + file);
  ca::Walkthrough w = test::run(golden["config"].dump());
  // Not the bonus notebook's stages: they have their own golden files (test_bonus.cpp).
  w.stages.erase(std::remove_if(w.stages.begin(), w.stages.end(),
                                [](const ca::Stage& s) {
                                  return s.info->part > ca::Part::Mha &&
                                         s.info->part < ca::Part::Kv;
                                }),
                 w.stages.end());
  const nlohmann::json& stages = golden["stages"];
  REQUIRE(w.stages.size() == stages.size());
  for (std::size_t k = 0; k < w.stages.size(); ++k) {
    const ca::Stage& s = w.stages[k];
    REQUIRE(s.id() == stages[k]["id"].get<std::string>());
    CHECK(s.tensor.shape == stages[k]["shape"].get<std::vector<int>>());
    CHECK_THAT(test::floats(std::string(s.id()), s.tensor),
               test::BitEqual(test::golden_values(stages[k]["data"]), "PyTorch's"));
  }
  // PyTorch's MultiHeadAttention asserted: no mha.* stage, and asking for one is an error.
  if (golden.contains("mha_error")) {
    CHECK(golden["mha_error"] == "d_out must be divisible by num_heads");
    CHECK(std::none_of(w.stages.begin(), w.stages.end(),
                       [](const ca::Stage& s) { return s.id().rfind("mha.", 0) == 0; }));
    const ca::ParsedConfig p = ca::parse_config(golden["config"].dump());
    CHECK_THROWS_WITH(
        ca::run_walkthrough(p.config, {"mha.context_vecs"}),
        Catch::Contains("MultiHeadAttention needs \"d_out\" divisible by \"num_heads\""));
  }
}
