// Every tensor the book prints in §3.5, value by value at 4 decimals: the book's numbers
// (default dropout path) and the tables its readers on Intel Linux get (MKL path).
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>

#include "support.hpp"

namespace {

void check_4dp(const ca::Tensor& t, const std::vector<double>& printed) {
  REQUIRE(t.numel() == printed.size());
  for (std::size_t i = 0; i < printed.size(); ++i) {
    char got[32], want[32];
    std::snprintf(got, sizeof got, "%.4f", static_cast<double>(t.data[i]));
    std::snprintf(want, sizeof want, "%.4f", printed[i]);
    INFO("index " << i);
    CHECK(std::string(got) == std::string(want));
  }
}

const double inf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("the book's section 3.5, default dropout path", "[book]") {
  const ca::Walkthrough w = test::run("{}");
  const auto is = [&](const char* id, const std::vector<double>& v) {
    INFO(id);
    check_4dp(test::stage(w, id), v);
  };
  is("context_vec", {-0.0739, 0.0713, -0.0748, 0.0703, -0.0749, 0.0702, -0.0760, 0.0685, -0.0763,
                     0.0679, -0.0754, 0.0693});
  is("attn_weights", {0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510, 0.2041, 0.1659, 0.1662,
                      0.1496, 0.1665, 0.1477, 0.2036, 0.1659, 0.1662, 0.1498, 0.1664, 0.1480,
                      0.1869, 0.1667, 0.1668, 0.1571, 0.1661, 0.1564, 0.1830, 0.1669, 0.1670,
                      0.1588, 0.1658, 0.1585, 0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529});
  is("mask_simple", {1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0,
                     1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1});
  is("masked_simple",
     {0.1921, 0,      0,      0,      0,      0, 0.2041, 0.1659, 0,      0,      0,      0,
      0.2036, 0.1659, 0.1662, 0,      0,      0, 0.1869, 0.1667, 0.1668, 0.1571, 0,      0,
      0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0, 0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529});
  is("row_sums", {0.1921, 0.3700, 0.5357, 0.6775, 0.8415, 1.0000});
  const std::vector<double> causal = {
      1.0000, 0,      0,      0,      0,      0, 0.5517, 0.4483, 0,      0,      0,      0,
      0.3800, 0.3097, 0.3103, 0,      0,      0, 0.2758, 0.2460, 0.2462, 0.2319, 0,      0,
      0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0, 0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529};
  is("masked_simple_norm", causal);
  is("attn_weights_causal", causal);
  is("mask", {0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1,
              0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  is("masked", {0.2899, -inf,   -inf,   -inf,   -inf,   -inf,   0.4656, 0.1723, -inf,
                -inf,   -inf,   -inf,   0.4594, 0.1703, 0.1731, -inf,   -inf,   -inf,
                0.2642, 0.1024, 0.1036, 0.0186, -inf,   -inf,   0.2183, 0.0874, 0.0882,
                0.0177, 0.0786, -inf,   0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078});
  // The book's dropout tables.
  is("dropout_example", {2, 2, 0, 2, 2, 0, 0, 0, 0, 2, 0, 2, 2, 2, 2, 2, 0, 2,
                         0, 2, 2, 0, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 2, 2, 2, 0});
  is("attn_weights_dropped",
     {2.0000, 0,      0,      0,      0, 0, 0, 0,      0,      0,      0,      0,
      0.7599, 0.6194, 0.6206, 0,      0, 0, 0, 0.4921, 0.4925, 0,      0,      0,
      0,      0.3966, 0,      0.3775, 0, 0, 0, 0.3327, 0.3331, 0.3084, 0.3331, 0});
  // The inputs as torch.tensor stores them (bits printed by PyTorch), twice in the batch.
  const std::uint32_t inputs[18] = {0x3edc28f6, 0x3e19999a, 0x3f63d70a, 0x3f0ccccd, 0x3f5eb852,
                                    0x3f28f5c3, 0x3f11eb85, 0x3f59999a, 0x3f23d70a, 0x3e6147ae,
                                    0x3f147ae1, 0x3ea8f5c3, 0x3f451eb8, 0x3e800000, 0x3dcccccd,
                                    0x3d4ccccd, 0x3f4ccccd, 0x3f0ccccd};
  const ca::Tensor& x = test::stage(w, "inputs");
  const ca::Tensor& batch = test::stage(w, "batch");
  REQUIRE(x.numel() == 18);
  REQUIRE(batch.numel() == 36);
  for (int i = 0; i < 36; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &batch.data[i], 4);
    CHECK(bits == inputs[i % 18]);
    if (i < 18) CHECK(std::memcmp(&x.data[i], &inputs[i], 4) == 0);
  }
  const std::vector<double> ctx = {-0.4519, 0.2216,  -0.5874, 0.0058,  -0.6300, -0.0632,
                                   -0.5675, -0.0843, -0.5526, -0.0981, -0.5299, -0.1081};
  std::vector<double> ctx2 = ctx;
  ctx2.insert(ctx2.end(), ctx.begin(), ctx.end());
  is("context_vecs", ctx2);
}

TEST_CASE("the Linux dropout tables of the book's readers, MKL path", "[book]") {
  const ca::Walkthrough w = test::run(R"({"rng": "mkl"})");
  check_4dp(test::stage(w, "dropout_example"),
            {2, 2, 2, 2, 2, 2, 0, 2, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0,
             2, 2, 0, 0, 0, 2, 2, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, 0});
  check_4dp(test::stage(w, "attn_weights_dropped"),
            {2.0000, 0,      0, 0, 0, 0, 0,      0.8966, 0, 0, 0, 0, 0, 0,      0.6206, 0, 0, 0,
             0.5517, 0.4921, 0, 0, 0, 0, 0.4350, 0,      0, 0, 0, 0, 0, 0.3327, 0,      0, 0, 0});
  // The generator path changes nothing but dropout.
  check_4dp(test::stage(w, "context_vecs"), [] {
    std::vector<double> v = {-0.4519, 0.2216,  -0.5874, 0.0058,  -0.6300, -0.0632,
                             -0.5675, -0.0843, -0.5526, -0.0981, -0.5299, -0.1081};
    const std::vector<double> first = v;
    v.insert(v.end(), first.begin(), first.end());
    return v;
  }());
}
