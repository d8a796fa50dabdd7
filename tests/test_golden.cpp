// Every golden configuration made by PyTorch (tests/golden/generate.py) through the core:
// weights and masks bit for bit, dropout zero patterns identical, the rest within
// 1e-6 * max(1, |value|). Prints the largest difference seen.
#include <catch2/catch.hpp>
#include <filesystem>

#include "support.hpp"

namespace {

// Stages that must equal PyTorch to the bit.
bool exact_stage(const std::string& id) {
  return ca::is_bias_stage(id) || id.find("W_") != std::string::npos || id == "mask" ||
         id == "mask_simple" || id == "batch" || id == "dropout_example";
}

}  // namespace

TEST_CASE("golden configurations equal PyTorch", "[golden]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& entry :
       fs::directory_iterator(std::string(CA_SOURCE_DIR) + "/tests/golden/cases")) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 30);
  double worst = 0;  // relative: |got - want| / max(1, |want|)
  std::string worst_at;
  std::size_t values = 0, identical = 0;
  for (const fs::path& file : files) {
    const nlohmann::json golden = nlohmann::json::parse(std::ifstream(file));
    const std::string name = golden["name"];
    const ca::Walkthrough w = test::run(golden["config"].dump());
    REQUIRE(w.stages.size() == golden["stages"].size());
    for (std::size_t k = 0; k < w.stages.size(); ++k) {
      const ca::Stage& s = w.stages[k];
      const nlohmann::json& g = golden["stages"][k];
      INFO(name << " / " << s.id);
      REQUIRE(s.id == g["id"].get<std::string>());
      REQUIRE(s.tensor.shape == g["shape"].get<std::vector<int>>());
      for (std::size_t i = 0; i < s.tensor.numel(); ++i) {
        const float got = s.tensor.data[i], want = test::golden_value(g["data"][i]);
        INFO("index " << i << ": got " << got << ", PyTorch " << want);
        ++values;
        identical += test::same_bits(got, want);
        if (exact_stage(s.id) || !std::isfinite(want) || want == 0.0f || !std::isfinite(got)) {
          // Exact stages, and every zero (dropout's pattern, masked cells) and non-finite value.
          CHECK(test::same_bits(got, want));
          continue;
        }
        const double diff =
            std::abs(double(got) - double(want)) / std::max(1.0, std::abs(double(want)));
        if (diff > worst) {
          worst = diff;
          worst_at = name + " / " + s.id + "[" + std::to_string(i) + "]";
        }
        CHECK(diff <= 1e-6);
      }
    }
  }
  WARN(files.size() << " golden configurations, " << values << " values, " << identical
                    << " bit-identical; largest difference " << worst << " x max(1, |value|) at "
                    << worst_at);
}
