// Generation with a KV cache (kv_cache.hpp) against the chapter's MultiHeadAttention: one token
// per step gives the full causal pass's rows. Queries, caches and scores are equal bit for bit at
// every size; so are the weights and outputs below 8 tokens. From 8 tokens on, the rows of 3 to 7
// values differ where ATen's softmax sums a short row in order and the full pass's padded row in
// 8 lanes: the exponentials are the same bits, only the sum (and so 1 / sum) differs.
#include <algorithm>
#include <cmath>

#include "kernels.hpp"
#include "reduce.hpp"
#include "support.hpp"

namespace {

// Row t of matrix k of a (..., T, T) stage: its first n cells.
std::vector<float> row(const ca::Tensor& t, int k, int r, int n) {
  const int T = t.cols();
  const auto begin = t.data.begin() + (static_cast<std::ptrdiff_t>(k) * T + r) * T;
  return std::vector<float>(begin, begin + n);
}

std::vector<float> rows_of(const ca::Tensor& t, int b, int r) {  // row r of batch element b
  const int T = t.shape[1], d = t.shape[2];
  const auto begin = t.data.begin() + (static_cast<std::ptrdiff_t>(b) * T + r) * d;
  return std::vector<float>(begin, begin + d);
}

}  // namespace

TEST_CASE("the cached generation gives MultiHeadAttention's rows, step by step", "[kv]") {
  // (T, d_in, d_out, heads, inputs seed, scale, qkv_bias): T = 6 is the book's batch, then
  // sizes on both sides of 8 tokens.
  const auto [T, d_in, d_out, H, seed, scale, bias] =
      GENERATE(table<int, int, int, int, int, bool, bool>({{6, 3, 2, 2, 123, true, false},
                                                           {1, 4, 4, 1, 5, true, false},
                                                           {7, 5, 6, 3, 7, true, true},
                                                           {5, 8, 16, 8, 9, false, false},
                                                           {8, 3, 2, 2, 8, true, false},
                                                           {16, 3, 4, 2, 5, true, false},
                                                           {12, 6, 6, 3, 12, true, false},
                                                           {32, 16, 16, 8, 32, true, true},
                                                           {40, 12, 24, 4, 40, false, false},
                                                           {70, 7, 12, 2, 70, true, false}}));
  const std::string json =
      "{\"inputs\": {\"randn\": [" + std::to_string(T) + ", " + std::to_string(d_in) +
      "], \"seed\": " + std::to_string(seed) + "}, \"d_out\": " + std::to_string(d_out) +
      ", \"num_heads\": " + std::to_string(H) + ", \"scale\": " + (scale ? "true" : "false") +
      ", \"qkv_bias\": " + (bias ? "true" : "false") + ", \"train\": false}";
  INFO(json);
  const ca::Walkthrough w = test::run(json);
  // What the cache holds, and every score, are the full pass's bits at every size.
  CHECK_THAT(test::floats("kv.queries", test::stage(w, "kv.queries")),
             test::BitEqual(test::stage(w, "mha.queries"), "mha.queries'"));
  CHECK_THAT(test::floats("kv.cache_k", test::stage(w, "kv.cache_k")),
             test::BitEqual(test::stage(w, "mha.keys"), "mha.keys'"));
  CHECK_THAT(test::floats("kv.cache_v", test::stage(w, "kv.cache_v")),
             test::BitEqual(test::stage(w, "mha.values"), "mha.values'"));
  CHECK_THAT(test::floats("kv.attn_scores", test::stage(w, "kv.attn_scores")),
             test::BitEqual(test::stage(w, "mha.attn_scores"), "mha.attn_scores'"));
  const ca::Tensor& mask = test::stage(w, "kv.mask");
  CHECK(std::all_of(mask.data.begin(), mask.data.end(), [](float m) { return m == 0.0f; }));

  const ca::Tensor &kv_w = test::stage(w, "kv.attn_weights"),
                   &mha_w = test::stage(w, "mha.attn_weights"),
                   &kv_out = test::stage(w, "kv.context_vecs"),
                   &mha_out = test::stage(w, "mha.context_vecs");
  if (T < 8) {  // the book's batch among them: every bit
    CHECK_THAT(test::floats("kv.attn_weights", kv_w), test::BitEqual(mha_w, "mha.attn_weights'"));
    CHECK_THAT(test::floats("kv.context_vecs", kv_out),
               test::BitEqual(mha_out, "mha.context_vecs'"));
  }
  // Step by step: outside steps 2 to 6 (or below 8 tokens) the rows are equal; at those steps
  // both rows are the same exponentials times 1 / sum, the sum in order over the t + 1 cached
  // cells (a row shorter than 8) or in 8 lanes over the full pass's row of T.
  const float divisor = scale ? std::sqrt(static_cast<float>(d_out / H)) : 1.0f;
  const ca::Tensor& scores = test::stage(w, "kv.attn_scores");
  int differ = 0;
  for (int k = 0; k < 2 * H; ++k) {
    for (int t = 0; t < T; ++t) {
      INFO("matrix " << k << ", step " << t);
      const int n = t + 1;
      const std::vector<float> got = row(kv_w, k, t, n), full = row(mha_w, k, t, n);
      if (T < 8 || n < 3 || n > 7) {
        CHECK_THAT(test::floats("kv.attn_weights row", got), test::BitEqual(full, "mha's"));
        continue;
      }
      std::vector<float> e = row(scores, k, t, n);
      for (float& x : e) x /= divisor;
      ca::kernels::exp_shifted(e.data(), n, *std::max_element(e.begin(), e.end()));
      float in_order = e[0];
      for (int j = 1; j < n; ++j) in_order += e[j];
      const float in_lanes = ca::reduce::vec_sum(e.data(), n, T);
      std::vector<float> want_kv(e), want_full(e);
      for (float& x : want_kv) x *= 1.0f / in_order;
      for (float& x : want_full) x *= 1.0f / in_lanes;
      CHECK_THAT(test::floats("kv.attn_weights row", got), test::BitEqual(want_kv, "in order's"));
      CHECK_THAT(test::floats("mha.attn_weights row", full),
                 test::BitEqual(want_full, "in lanes'"));
      differ += got != full;
    }
  }
  for (int b = 0; b < 2; ++b) {
    for (int t = 0; t < T; ++t) {
      if (T >= 8 && t >= 2 && t <= 6) continue;
      INFO("batch " << b << ", step " << t);
      CHECK_THAT(test::floats("kv.context_vecs row", rows_of(kv_out, b, t)),
                 test::BitEqual(rows_of(mha_out, b, t), "mha.context_vecs'"));
    }
  }
  // The difference is real at these sizes (PyTorch's goldens show it too).
  if (T == 16 || T == 32) CHECK(differ > 0);
}

TEST_CASE("the cached generation runs in eval mode: training and dropout change nothing", "[kv]") {
  const ca::Walkthrough eval = test::run(R"({"d_out": 4, "train": false})");
  const ca::Walkthrough train = test::run(R"({"d_out": 4, "class_dropout": 0.5})");
  for (const char* id : {"kv.attn_weights", "kv.context_vecs"}) {
    INFO(id);
    CHECK_THAT(test::floats(id, test::stage(train, id)), test::BitEqual(test::stage(eval, id)));
  }
  // mha's own output draws dropout in training: it is no longer the cached one.
  CHECK(test::stage(train, "mha.context_vecs").data != test::stage(train, "kv.context_vecs").data);
}
