// The CLI's torch format against print(t) of PyTorch itself (tests/golden/torch_format.json).
#include <catch2/catch.hpp>

#include "generator.hpp"
#include "support.hpp"
#include "torch_format.hpp"

// One run per case; a case's values are written out, or rebuilt by the core's randn from the
// seed PyTorch drew them with.
TEST_CASE("torch_str prints exactly like PyTorch", "[format]") {
  const nlohmann::json c = GENERATE(from_range(test::load_json("tests/golden/torch_format.json")));
  INFO(c["name"].get<std::string>());
  const std::vector<int> shape = c["shape"].get<std::vector<int>>();
  ca::Tensor t(shape);
  if (c.contains("randn")) {
    ca::Generator gen(c["randn"].get<std::uint64_t>());
    t = ca::randn(shape, gen);
  } else {
    t.data = test::golden_values(c["data"]);
  }
  REQUIRE(t.numel() == ca::Tensor::numel_of(shape));
  CHECK(ca::torch_str(t) == c["str"].get<std::string>());
}

TEST_CASE("the book's masked scores print as in the notebook", "[format][book]") {
  const ca::Walkthrough w = test::run("{}");
  // The book's print(attn_weights) of the efficient way (grad_fn left out).
  CHECK(ca::torch_str(test::stage(w, "attn_weights_causal")) ==
        "tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n"
        "        [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],\n"
        "        [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],\n"
        "        [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],\n"
        "        [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],\n"
        "        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]])");
  CHECK(ca::torch_str(test::stage(w, "row_sums")) ==
        "tensor([[0.1921],\n        [0.3700],\n        [0.5357],\n        [0.6775],\n"
        "        [0.8415],\n        [1.0000]])");
}
