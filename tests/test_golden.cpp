// Every golden configuration made by PyTorch (tests/golden/generate.py) through the core.
// Stages computed exactly as PyTorch computes them must equal it to the bit; the others (softmax
// and its row sums, where PyTorch uses SLEEF's exp and vectorised reductions, and what follows
// them) stay within a few ULP of it, and each case keeps at least the number of bit-identical
// values it has today (tests/golden/bit_identical.json): a kernel that sums in another order or
// divides where PyTorch multiplies by a reciprocal loses bits there even when it stays close.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "stages.hpp"
#include "support.hpp"

namespace {

// Stages whose every value is bit-identical to PyTorch in every golden case.
bool exact_stage(const std::string& id) {
  static const std::set<std::string> kExact = {"inputs",          "queries",     "keys", "values",
                                               "attn_scores",     "mask_simple", "mask", "masked",
                                               "dropout_example", "batch"};
  return kExact.count(id) > 0 || ca::is_bias_stage(id) || id.find("W_") != std::string::npos;
}

// The context vectors (the only inexact stages of kind "values") sum T products: near zero
// they cancel, so they are held to an absolute bound (2.4e-7 x max(1, |value|) is the largest difference seen); every other stage to ULPs
// (at most 5 seen).
bool close_enough(const std::string& id, float got, float want) {
  if (ca::find_stage(id)->kind == ca::StageKind::Values) {  // context vectors, all of them
    return std::abs(double(got) - double(want)) <= 5e-7 * std::max(1.0, std::abs(double(want)));
  }
  return Catch::Matchers::WithinULP(want, 8).match(got);
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
      INFO(name << " / " << s.id);
      REQUIRE(s.id == g["id"].get<std::string>());
      REQUIRE(s.tensor.shape == g["shape"].get<std::vector<int>>());
      for (std::size_t i = 0; i < s.tensor.numel(); ++i) {
        const float got = s.tensor.data[i], want = test::golden_value(g["data"][i]);
        INFO("index " << i << ": got " << got << ", PyTorch " << want);
        ++values;
        case_identical += test::same_bits(got, want);
        if (exact_stage(s.id) || !std::isfinite(want) || want == 0.0f || !std::isfinite(got)) {
          // Exact stages, and every zero (dropout's pattern, masked cells) and non-finite value.
          CHECK(test::same_bits(got, want));
        } else {
          CHECK(close_enough(s.id, got, want));
        }
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
