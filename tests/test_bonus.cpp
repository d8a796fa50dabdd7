// The bonus notebook's implementations (bonus.hpp, docs/bonus.md) against PyTorch 1.13: every
// stage of every file of tests/golden/bonus/ (generate_bonus.py) bit for bit, the flash
// pass's intermediates included (it is written in PyTorch ops there); the identities the page
// states (which copies give §3.6.2's bits and which do not), and the blocked pass's largest
// difference from the plain softmax.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "bonus.hpp"
#include "stages.hpp"
#include "support.hpp"

namespace {

std::vector<std::string> bonus_files() {
  std::vector<std::string> files;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(CA_SOURCE_DIR) + "/tests/golden/bonus"))
    files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

ca::Config config_of(const std::string& json) {
  const ca::ParsedConfig p = ca::parse_config(json);
  if (!p.error.empty()) throw std::runtime_error(p.error);
  return p.config;
}

bool bonus(const ca::Stage& s) {
  return s.info->part > ca::Part::Mha && s.info->part < ca::Part::Kv;
}

// The largest |a - b| over two stages of one shape.
float largest_difference(const ca::Tensor& a, const ca::Tensor& b) {
  REQUIRE(a.shape == b.shape);
  float worst = 0.0f;
  for (std::size_t k = 0; k < a.numel(); ++k)
    worst = std::max(worst, std::fabs(a.data[k] - b.data[k]));
  return worst;
}

}  // namespace

TEST_CASE("a bonus golden configuration equals PyTorch bit for bit", "[golden][bonus]") {
  const std::string file = GENERATE(from_range(bonus_files()));
  INFO("tests/golden/bonus/" << file);
  const nlohmann::json golden = test::load_json("tests/golden/bonus/" + file);
  const ca::Config config = config_of(golden["config"].dump());
  const nlohmann::json& stages = golden["stages"];
  // Every stage run: the bonus stages are the file's, in its order (which parts run).
  const ca::Walkthrough all = ca::run_walkthrough(config);
  std::vector<std::string> ids, want;
  for (const ca::Stage& s : all.stages)
    if (bonus(s)) ids.emplace_back(s.id());
  for (const nlohmann::json& s : stages) want.push_back(s["id"].get<std::string>());
  // generate_bonus.py skips nn.MultiheadAttention under the emulated MKL dropout only.
  if (config.rng == ca::DropoutRng::Mkl)
    ids.erase(std::remove_if(ids.begin(), ids.end(),
                             [](const std::string& id) { return id.rfind("torchmha.", 0) == 0; }),
              ids.end());
  CHECK(ids == want);
  if (golden.contains("error")) {
    CHECK(stages.empty());
    CHECK_THROWS_WITH(ca::run_walkthrough(config, {"qkv.context_vecs"}),
                      Catch::Contains("divisible by \"num_heads\""));
    return;
  }
  // Each asked for alone (with what it reads), as the CLI's --stage and the page do.
  const ca::Walkthrough w = ca::run_walkthrough(config, want);
  REQUIRE(w.stages.size() == stages.size());
  for (std::size_t k = 0; k < w.stages.size(); ++k) {
    const ca::Stage& s = w.stages[k];
    REQUIRE(s.id() == stages[k]["id"].get<std::string>());
    CHECK(s.tensor.shape == stages[k]["shape"].get<std::vector<int>>());
    CHECK(s.tensor.shape == ca::stage_shape(config, s.id()));
    CHECK_THAT(test::floats(std::string(s.id()), s.tensor),
               test::BitEqual(test::golden_values(stages[k]["data"]), "PyTorch's"));
  }
}

TEST_CASE("nn.MultiheadAttention needs d_in = d_out and no qkv_bias", "[bonus]") {
  const ca::Walkthrough book = test::run("{}");
  CHECK(std::none_of(book.stages.begin(), book.stages.end(),
                     [](const ca::Stage& s) { return s.info->part == ca::Part::TorchMha; }));
  CHECK_THROWS_WITH(ca::run_walkthrough(config_of("{}"), {"torchmha.context_vecs"}),
                    Catch::Contains("equal to d_in") && Catch::Contains("d_in 3, d_out 2"));
  CHECK_THROWS_WITH(ca::run_walkthrough(
                        config_of(R"({"inputs": {"randn": [4, 4]}, "d_out": 4, "qkv_bias": true})"),
                        {"torchmha.attn_weights"}),
                    Catch::Contains("add_bias_kv"));
}

// The page's claims, over sizes beyond the golden files: qkv and einsum carrying §3.6.2's
// weights give its bits; nn.MultiheadAttention does when √head_dim is a power of two.
TEST_CASE("the copies compute MultiHeadAttention's bits", "[bonus]") {
  const int hd = GENERATE(1, 2, 3, 4, 5, 16);
  const int H = GENERATE(1, 3);
  const bool eval = GENERATE(false, true);
  const int d = hd * H, T = 13;
  const std::string json =
      "{\"inputs\": {\"randn\": [" + std::to_string(T) + ", " + std::to_string(d) +
      "], \"seed\": " + std::to_string(hd * 10 + H) + "}, \"d_out\": " + std::to_string(d) +
      ", \"num_heads\": " + std::to_string(H) +
      ", \"class_dropout\": 0.25, \"train\": " + (eval ? "false" : "true") + "}";
  INFO(json);
  const ca::Walkthrough w = ca::run_walkthrough(
      config_of(json), {"mha.context_vecs", "qkv.context_vecs", "einsum.copied.context_vecs",
                        "torchmha.copied.context_vecs"});
  const ca::Tensor& mha = test::stage(w, "mha.context_vecs");
  // Same draws as §3.6.2 (dropout's too): bit for bit.
  CHECK_THAT(test::floats("qkv.context_vecs", test::stage(w, "qkv.context_vecs")),
             test::BitEqual(mha, "mha.context_vecs"));
  if (!eval) return;  // the copies draw dropout after their own init
  CHECK_THAT(
      test::floats("einsum.copied.context_vecs", test::stage(w, "einsum.copied.context_vecs")),
      test::BitEqual(mha, "mha.context_vecs"));
  const ca::Tensor& torch = test::stage(w, "torchmha.copied.context_vecs");
  const float sqrt_hd = std::sqrt(static_cast<float>(hd));
  if (sqrt_hd == std::exp2(std::round(std::log2(sqrt_hd)))) {  // 1, 2, 4: dividing is exact
    CHECK_THAT(test::floats("torchmha.copied.context_vecs", torch),
               test::BitEqual(mha, "mha.context_vecs"));
  } else {  // (q / √hd)·k against (q·k) / √hd: rounding apart, a few ulps
    CHECK(largest_difference(torch, mha) > 0.0f);
    CHECK(largest_difference(torch, mha) < 1e-5f);
  }
}

// docs/bonus.md's figures: the blocked pass against §3.6.2's plain softmax (the same weights,
// qkv.context_vecs = mha.context_vecs), rounding apart only.
TEST_CASE("the blocked pass's largest difference from MultiHeadAttention, as stated", "[bonus]") {
  struct Row {
    const char* config;
    float largest;  // |flash.context_vecs - mha.context_vecs|
    std::size_t identical, values;
  };
  const Row row = GENERATE(Row{"{}", 0x1p-25f, 14, 24},
                           Row{R"({"inputs": {"randn": [256, 64]}, "d_out": 64, "num_heads": 4})",
                               0x1p-23f, 8700, 32768});
  INFO(row.config);
  const ca::Walkthrough w =
      ca::run_walkthrough(config_of(row.config), {"mha.context_vecs", "flash.context_vecs"});
  const ca::Tensor &mha = test::stage(w, "mha.context_vecs"),
                   &flash = test::stage(w, "flash.context_vecs");
  std::size_t identical = 0;
  for (std::size_t k = 0; k < mha.numel(); ++k)
    identical += test::bits_equal(flash.data[k], mha.data[k]);
  CHECK(mha.numel() == row.values);
  CHECK(identical == row.identical);
  CHECK(largest_difference(flash, mha) == row.largest);
}
