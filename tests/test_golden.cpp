// Every golden configuration made by PyTorch (tests/golden/generate.py) through the core:
// every value equal to PyTorch's to the bit, softmax and sums included (SLEEF's exp, ATen's
// reduction orders), and each case keeps its count of bit-identical values
// (tests/golden/bit_identical.json, today every value of the case).
#include <catch2/catch.hpp>
#include <filesystem>

#include "stages.hpp"
#include "support.hpp"

TEST_CASE("golden configurations equal PyTorch", "[golden]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& entry :
       fs::directory_iterator(std::string(CA_SOURCE_DIR) + "/tests/golden/cases")) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 53);
  const nlohmann::json floor = test::load_json("tests/golden/bit_identical.json");
  std::size_t values = 0, identical = 0;
  for (const fs::path& file : files) {
    const nlohmann::json golden = nlohmann::json::parse(std::ifstream(file));
    const std::string name = golden["name"];
    const ca::Walkthrough w = test::run(golden["config"].dump());
    REQUIRE(w.stages.size() == golden["stages"].size());
    std::size_t case_identical = 0;
    for (std::size_t k = 0; k < w.stages.size(); ++k) {
      const ca::Stage& s = w.stages[k];
      const nlohmann::json& g = golden["stages"][k];
      INFO(name << " / " << s.id());
      REQUIRE(s.id() == g["id"].get<std::string>());
      REQUIRE(s.tensor.shape == g["shape"].get<std::vector<int>>());
      for (std::size_t i = 0; i < s.tensor.numel(); ++i) {
        const float got = s.tensor.data[i], want = test::golden_value(g["data"][i]);
        INFO("index " << i << ": got " << got << ", PyTorch " << want);
        ++values;
        case_identical += test::same_bits(got, want);
        CHECK(test::same_bits(got, want));
      }
    }
    // A new case: add "name": count to bit_identical.json, the count this message gives.
    INFO(name << ": " << case_identical << " bit-identical values");
    REQUIRE(floor.contains(name));
    CHECK(case_identical >= floor[name].get<std::size_t>());
    identical += case_identical;
  }
  WARN(files.size() << " golden configurations, " << values << " values, " << identical
                    << " bit-identical");
}
