// exp, softmax and row sums against PyTorch's own (tests/golden/reductions.json, made by
// tests/golden/generate_reductions.py), bit for bit, on rows of every length from 1 to 40 and
// longer ones: below 8 values and from 8 on PyTorch adds in different orders, and each tail
// length is a case of its own. Both exp paths (vectorised where the CPU has it, scalar).
#include <catch2/catch.hpp>

#include "attention.hpp"
#include "kernels.hpp"
#include "reduce.hpp"
#include "sleef.hpp"
#include "support.hpp"

namespace {

const nlohmann::json& fixture() {
  static const nlohmann::json f = test::load_json("tests/golden/reductions.json");
  return f;
}

std::vector<float> floats(const nlohmann::json& a) {
  std::vector<float> v;
  for (const auto& x : a) v.push_back(test::golden_value(x));
  return v;
}

// Runs the test body with the vectorised exp and with the scalar loop, then restores. Where
// the CPU has AVX2 and FMA the vectorised path must be on: a broken one would fail kernels.cpp's
// self-check and leave every test here on the scalar loop.
struct ExpPath {
  bool saved = ca::kernels::fast_exp();
  explicit ExpPath(bool fast) {
    ca::kernels::set_fast_exp(fast);
#if defined(__x86_64__)
    if (fast && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      CHECK(ca::kernels::fast_exp());
#endif
  }
  ~ExpPath() { ca::kernels::set_fast_exp(saved); }
};

}  // namespace

TEST_CASE("sleef::expf_u10 and exp_shifted equal torch.exp bit for bit", "[reductions]") {
  const std::vector<float> x = floats(fixture()["exp"]["x"]), want = floats(fixture()["exp"]["y"]);
  std::vector<float> got(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) got[i] = ca::sleef::expf_u10(x[i]);
  CHECK_THAT(test::floats("sleef::expf_u10", got), test::BitEqual(want, "torch.exp's"));
  const bool fast = GENERATE(true, false);
  ExpPath path(fast);
  INFO("vectorised: " << ca::kernels::fast_exp());
  got = x;
  ca::kernels::exp_shifted(got.data(), int(got.size()), 0.0f);
  CHECK_THAT(test::floats("exp_shifted", got), test::BitEqual(want, "torch.exp's"));
}

TEST_CASE("softmax_forward and row_sums equal torch.softmax and sum(dim=-1)", "[reductions]") {
  const bool fast = GENERATE(true, false);
  ExpPath path(fast);
  std::size_t rows = 0;
  for (const auto& r : fixture()["rows"]) {
    const std::vector<int> shape = r["shape"];
    const int n = shape[1];
    INFO("rows of " << n << ", vectorised exp " << ca::kernels::fast_exp());
    const std::vector<float> x = floats(r["x"]);
    std::vector<float> weights(x.size()), sums(2);
    ca::softmax_forward(ca::MatrixMap(weights.data(), 2, n), ca::ConstMatrixMap(x.data(), 2, n),
                        1.0f);
    CHECK_THAT(test::floats("softmax", weights), test::BitEqual(floats(r["softmax"]), "PyTorch's"));
    ca::row_sums(ca::MatrixMap(sums.data(), 2, 1), ca::ConstMatrixMap(x.data(), 2, n));
    CHECK_THAT(test::floats("row sums", sums), test::BitEqual(floats(r["sums"]), "PyTorch's"));
    for (int i = 0; i < 2; ++i)  // tensor.sum() of one row adds in the same order
      CHECK_THAT(ca::reduce::cascade_sum(x.data() + i * n, n), test::BitEqual(sums[i]));
    ++rows;
  }
  CHECK(rows == 48);
}

// The masked softmax twice: over the whole (T, T) scores, and by causal_softmax_forward, which
// reads only the cells j <= i and adds row i's exponentials in the lanes of a row of T.
TEST_CASE("the causal softmax equals torch.softmax of the masked scores", "[reductions]") {
  const bool fast = GENERATE(true, false);
  ExpPath path(fast);
  for (const auto& c : fixture()["causal"]) {
    const int T = c["T"];
    const float divisor = c["divisor"];
    INFO("T = " << T << ", divisor " << divisor << ", vectorised exp " << ca::kernels::fast_exp());
    std::vector<float> scores = floats(c["scores"]), want = floats(c["weights"]);
    std::vector<float> full(scores.size()), causal(scores.size(), 0.0f);
    ca::softmax_forward(ca::MatrixMap(full.data(), T, T), ca::ConstMatrixMap(scores.data(), T, T),
                        divisor);
    CHECK_THAT(test::floats("softmax", full), test::BitEqual(want, "PyTorch's"));
    for (int i = 0; i < T; ++i)  // what causal_softmax_forward must not read
      for (int j = i + 1; j < T; ++j) scores[std::size_t(i) * T + j] = std::nanf("");
    std::vector<unsigned char> full_rows(T);
    CHECK(ca::causal_softmax_forward(causal.data(), T, scores.data(), T, T, divisor,
                                     full_rows.data()) == 0);
    // Its unwritten cells are the +0 of torch's.
    CHECK_THAT(test::floats("causal_softmax_forward", causal), test::BitEqual(want, "PyTorch's"));
  }
}

// The two orders where they part: 1 followed by eight 2^-24. In order, each 2^-24 is a tie
// against 1 and rounds away; in reduce_all's lanes, lane 0 holds 1 + 2^-24 = 1 and lanes 1-7
// one 2^-24 each, so the pairwise sums keep them: ((1 + e) + 2e) + 4e = 1 + 3 x 2^-23.
TEST_CASE("vec_sum adds in reduce_all's lanes, cascade_sum in SumKernel's", "[reductions]") {
  const float e = 0x1p-24f;
  const std::vector<float> x = {1.0f, e, e, e, e, e, e, e, e};
  CHECK_THAT(ca::reduce::vec_sum(x.data(), 9, 9), test::BitEqual(1.0f + 3 * 0x1p-23f));
  CHECK_THAT(ca::reduce::vec_sum(x.data(), 7, 7), test::BitEqual(1.0f));  // below 8: in order
  // 3 values read of a row of 9, the rest +0: lanes 0 and 2 meet first, (e + e) + 1.
  const std::vector<float> y = {e, 1.0f, e};
  CHECK_THAT(ca::reduce::vec_sum(y.data(), 3, 9), test::BitEqual(1.0f + 0x1p-23f));
  CHECK_THAT(ca::reduce::vec_sum(y.data(), 3, 3), test::BitEqual(1.0f));  // (e + 1) + e
  // SumKernel: 8 lanes over the one whole vector, then +0 + the leftover 2^-24 + the lanes in
  // order: 2^-24 + 1 ties to 1, and the seven 2^-24 after it round away one by one.
  CHECK_THAT(ca::reduce::cascade_sum(x.data(), 9), test::BitEqual(1.0f));
}
