// The work split over threads (parallel.hpp) changes no bit: every stage on 2, 3 and 8
// threads equals the one-thread run, for the book, a multi-head configuration that trains with
// dropout (its draws stay in order), and exercise 3.3's shape at a smaller T; and the modules
// on shapes whose rows and heads do not split evenly.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <ctime>
#include <limits>

#include "nn.hpp"
#include "parallel.hpp"
#include "support.hpp"

namespace {

// Sets the thread count for a scope, then restores the default.
struct Threads {
  explicit Threads(int n) { ca::set_num_threads(n); }
  ~Threads() { ca::set_num_threads(0); }
};

ca::Walkthrough run_on(int threads, const ca::Config& c, const std::vector<std::string>& stages) {
  const Threads t(threads);
  return ca::run_walkthrough(c, stages);
}

}  // namespace

TEST_CASE("every stage has the same bits on 1, 2, 3 and 8 threads", "[threads]") {
  const auto [json, stages] = GENERATE(table<std::string, std::vector<std::string>>({
      {"{}", {}},
      {R"({"inputs": {"randn": [37, 12]}, "d_out": 12, "num_heads": 3, "qkv_bias": true,
           "dropout": 0.3, "class_dropout": 0.2})",
       {}},
      {R"({"inputs": {"randn": [41, 8]}, "d_out": 8, "num_heads": 4, "train": false})", {}},
      // Exercise 3.3 (the gpt2 preset) at T = 96: 12 heads of 64 over 768 features.
      {R"({"inputs": {"randn": [96, 768]}, "d_out": 768, "num_heads": 12,
           "context_length": 1024, "train": false})",
       {"mha.attn_weights", "mha.context_vec", "mha.context_vecs"}},
      {R"({"inputs": {"randn": [96, 768]}, "d_out": 768, "num_heads": 12,
           "context_length": 1024, "class_dropout": 0.1})",
       {"mha.context_vecs"}},
  }));
  INFO(json);
  const ca::Config c = ca::parse_config(json).config;
  const ca::Walkthrough one = run_on(1, c, stages);
  REQUIRE(!one.stages.empty());
  for (const int threads : {2, 3, 8}) {
    const ca::Walkthrough many = run_on(threads, c, stages);
    REQUIRE(many.stages.size() == one.stages.size());
    for (std::size_t i = 0; i < one.stages.size(); ++i) {
      INFO(threads << " threads, stage " << one.stages[i].id());
      CHECK_THAT(test::floats(std::string(many.stages[i].id()), many.stages[i].tensor),
                 test::BitEqual(one.stages[i].tensor, "one thread's"));
    }
  }
}

TEST_CASE("the modules split over threads with the bits of one", "[threads]") {
  // Uneven splits: 5 batch elements, 3 or 7 heads, rows not a multiple of a 4-row tile; at
  // d = 400 the linears' columns in blocks of 112 (the last 64) on 2 threads, of 80 on 3 (the
  // sixth block empty), none on 8 (too narrow: one linear after the other, rows split).
  const auto [B, T, d, H, p] = GENERATE(table<int, int, int, int, double>({
      {5, 33, 21, 3, 0.0},
      {3, 70, 28, 7, 0.0},
      {5, 33, 21, 3, 0.25},
      {1, 130, 64, 1, 0.0},
      {1, 40, 400, 4, 0.0},  // the linears' columns split in one loop (linears_forward)
  }));
  INFO("B " << B << ", T " << T << ", d " << d << ", H " << H << ", p " << p);
  // clang (C++17) cannot capture structured bindings: copies.
  const auto outputs = [&, B = B, T = T, d = d, H = H, p = p](int threads) {
    const Threads t(threads);
    ca::Generator gen(11);
    ca::MultiHeadAttention mha(d, d, T, p, H, true, gen);
    ca::MultiHeadAttentionWrapper mhaw(d, d, T, p, H, false, gen);
    ca::CausalAttention causal(d, d, T, p, false, gen);
    const ca::Tensor x = ca::randn({B, T, d}, gen);
    return std::vector<ca::Tensor>{mha.forward(x, gen), mhaw.forward(x, gen),
                                   causal.forward(x, gen)};
  };
  const std::vector<ca::Tensor> one = outputs(1);
  for (const int threads : {2, 3, 8}) {
    const std::vector<ca::Tensor> many = outputs(threads);
    const char* names[] = {"MultiHeadAttention", "MultiHeadAttentionWrapper", "CausalAttention"};
    for (int m = 0; m < 3; ++m) {
      INFO(threads << " threads");
      CHECK_THAT(test::floats(names[m], many[m]), test::BitEqual(one[m], "one thread's"));
    }
  }
}

// causal_heads' three ways (causal_split): one thread; the pairs over the workers, each with a
// (T, T) of its own; or a pair at a time, its rows and then its context's columns over the
// workers. Shapes that take each way, with rows of +inf, NaN and -inf scores and values with
// an inf (masked zeros count there), against one thread's bits.
TEST_CASE("causal attention split by pairs or within a pair has the bits of one thread",
          "[threads]") {
  const auto [B, T, d, H, way] = GENERATE(table<int, int, int, int, int>({
      {1, 264, 64, 1, 2},   // a pair of 264 x 264 x 64: its rows and columns split
      {1, 300, 96, 1, 2},   // rows not a multiple of a tile, 96 columns in blocks of 48
      {3, 264, 64, 1, 2},   // 3 pairs on 2 workers would leave a quarter idle: within
      {2, 300, 96, 1, 1},   // 2 pairs on 2 workers: a pair each
      {2, 192, 128, 8, 1},  // 16 pairs of head size 16: the pairs split
      {2, 40, 16, 2, 0},    // too little work: one thread
  }));
  INFO("B " << B << ", T " << T << ", d " << d << ", H " << H);
  {
    const Threads t(2);
    const ca::CausalSplit s = ca::causal_split(std::size_t(B) * H, T, d / H);
    CHECK((way == 0   ? s.pairs == 1 && s.within == 1
           : way == 1 ? s.pairs == 2 && s.within == 1
                      : s.pairs == 1 && s.within == 2));
  }
  const auto outputs = [&, B = B, T = T, d = d, H = H](int threads) {
    const Threads t(threads);
    ca::Generator gen(5);
    ca::MultiHeadAttention mha(d, d, T, 0.0, H, false, gen);
    ca::CausalAttention causal(d, d, T, 0.0, false, gen);
    mha.training = causal.training = false;
    ca::Tensor x = ca::randn({B, T, d}, gen);
    const float inf = std::numeric_limits<float>::infinity();
    x.data[std::size_t(T / 3) * d] = inf;                // a token's scores +inf or -inf: full rows
    x.data[std::size_t(T / 2) * d + 1] = std::nanf("");  // a token of NaN
    ca::Tensor y = x;
    y.data[std::size_t(B * T - 1) * d + 2] = inf;  // a value of inf only in the last row
    std::vector<ca::Tensor> out;
    for (const ca::Tensor* in : {&x, &y}) {
      out.push_back(mha.forward(*in, gen));
      out.push_back(causal.forward(*in, gen));
      const ca::MultiHeadAttention::Trace tr = mha.trace(*in, gen, {false, true, false, true});
      out.push_back(tr.attn_scores);
      out.push_back(tr.context_vec);
    }
    return out;
  };
  const std::vector<ca::Tensor> one = outputs(1);
  for (const int threads : {2, 3}) {
    const std::vector<ca::Tensor> many = outputs(threads);
    for (std::size_t m = 0; m < one.size(); ++m) {
      INFO(threads << " threads, output " << m);
      CHECK_THAT(test::floats("output", many[m]), test::BitEqual(one[m], "one thread's"));
    }
  }
}

TEST_CASE("parallel_for runs every item once, on at most the workers asked for", "[threads]") {
  const Threads t(4);
  CHECK(ca::parallel_workers(100) == 4);
  CHECK(ca::parallel_workers(3) == 3);
  std::vector<std::atomic<int>> seen(1000);
  std::atomic<int> most{0}, nested{0};  // Catch's assertions are for this thread only
  ca::parallel_for(seen.size(), 3, [&](std::size_t i, int worker) {
    ++seen[i];
    for (int m = most; worker > m && !most.compare_exchange_weak(m, worker);) {
    }
    nested = std::max(nested.load(), ca::parallel_workers(8));
  });
  CHECK(nested == 1);  // nested loops run inline, on the worker that asked
  for (const std::atomic<int>& s : seen) CHECK(s == 1);
  CHECK(most < 3);
  CHECK_THROWS_WITH(ca::parallel_for(50,
                                     [](std::size_t i, int) {
                                       if (i == 17) throw std::runtime_error("item 17");
                                     }),
                    "item 17");
}

TEST_CASE("a loop profile adds each pool loop's workers' CPU time", "[threads]") {
  const Threads t(2);
  const auto spin = [](double ms) {  // ms of this thread's CPU time
    timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    while ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6 < ms);
  };
  ca::LoopProfile p;
  ca::profile_loops(&p);
  ca::parallel_for(4, 2, [&](std::size_t, int) { spin(2); });  // 8 ms over one or two workers
  ca::parallel_for(4, 1, [&](std::size_t, int) { spin(1); });  // inline: not a pool loop
  ca::profile_loops(nullptr);
  ca::parallel_for(2, 2, [&](std::size_t, int) { spin(1); });  // after the profile
  CHECK(p.loops == 1);
  CHECK(p.busy_ms >= 8.0);
  CHECK(p.busy_ms < 11.0);
  CHECK(p.critical_ms >= 4.0);  // the slowest worker ran at least half of the items
  CHECK(p.critical_ms <= p.busy_ms);
  CHECK(p.wake_ms >= 0.0);
}

// The page's Worker pool (web/page/runner.js) splits exercise 3.3 into shards of (batch element,
// heads) and blocks of out_proj's rows: each part equals its slice of the whole run, bit for bit.
TEST_CASE("a shard of MultiHeadAttention and out_proj's rows have the whole run's bits",
          "[threads][shards]") {
  const auto [json, shard] = GENERATE(table<std::string, ca::Shard>({
      {R"({"inputs": {"randn": [96, 768]}, "d_out": 768, "num_heads": 12,
           "context_length": 1024, "train": false})",
       {1, 2, 4, 9}},
      {R"({"inputs": {"randn": [96, 768]}, "d_out": 768, "num_heads": 12,
           "context_length": 1024})",
       {0, 1, 0, 12}},
      // Uneven: heads of 7 (tiles of 12 or 24 columns cut mid-head), qkv_bias, 3 of 5 heads.
      {R"({"inputs": {"randn": [37, 20]}, "d_out": 35, "num_heads": 5, "qkv_bias": true,
           "dropout": 0.5})",
       {0, 2, 1, 4}},
      {R"({"inputs": {"randn": [37, 20]}, "d_out": 35, "num_heads": 5, "qkv_bias": true})",
       {1, 2, 0, 1}},
  }));
  INFO(json << " shard [" << shard.b0 << ", " << shard.b1 << ", " << shard.h0 << ", " << shard.h1
            << ")");
  const ca::Config c = ca::parse_config(json).config;
  const std::vector<std::string> ids = {"mha.queries", "mha.attn_scores", "mha.attn_weights",
                                        "mha.context_vec", "mha.context_vecs"};
  const ca::Walkthrough whole = ca::run_walkthrough(c, ids),
                        part = ca::run_walkthrough(c, ids, shard);
  const auto stage = [](const ca::Walkthrough& w, std::string_view id) -> const ca::Tensor& {
    for (const ca::Stage& s : w.stages)
      if (s.id() == id) return s.tensor;
    FAIL("no stage " << id);
    throw;
  };
  const int H = c.num_heads, hd = c.d_out / H, T = c.num_tokens();
  const int nb = shard.b1 - shard.b0, nh = shard.h1 - shard.h0;
  // (B, H, T, X) stages: the shard's heads of its batch elements, each a contiguous block.
  for (const char* id : {"mha.queries", "mha.attn_scores", "mha.attn_weights"}) {
    const ca::Tensor &w = stage(whole, id), &p = stage(part, id);
    const std::size_t block = std::size_t(w.shape[2]) * w.shape[3];
    REQUIRE(p.shape == std::vector<int>{nb, nh, w.shape[2], w.shape[3]});
    std::vector<float> want;
    for (int b = shard.b0; b < shard.b1; ++b)
      want.insert(want.end(), w.data.begin() + (b * H + shard.h0) * block,
                  w.data.begin() + (b * H + shard.h1) * block);
    CHECK_THAT(test::floats(id, p), test::BitEqual(want, "the whole run's"));
  }
  // context_vec: the shard's rows, its heads' columns.
  const ca::Tensor &cv = stage(whole, "mha.context_vec"), &pcv = stage(part, "mha.context_vec");
  REQUIRE(pcv.shape == std::vector<int>{nb, T, nh * hd});
  std::vector<float> want;
  for (int r = shard.b0 * T; r < shard.b1 * T; ++r)
    want.insert(want.end(), cv.data.begin() + r * c.d_out + shard.h0 * hd,
                cv.data.begin() + r * c.d_out + shard.h1 * hd);
  CHECK_THAT(test::floats("mha.context_vec", pcv), test::BitEqual(want, "the whole run's"));
  // context_vecs: only when the shard has every head.
  const bool every = nh == H;
  CHECK(std::any_of(part.stages.begin(), part.stages.end(),
                    [](const ca::Stage& s) { return s.id() == "mha.context_vecs"; }) == every);
  const ca::Tensor& out = stage(whole, "mha.context_vecs");
  if (every) {
    const std::vector<float> rows(out.data.begin() + shard.b0 * T * c.d_out,
                                  out.data.begin() + shard.b1 * T * c.d_out);
    CHECK_THAT(test::floats("mha.context_vecs", stage(part, "mha.context_vecs")),
               test::BitEqual(rows, "the whole run's"));
  }
  // weight_heads: batch element b0's first heads keep their weights alone, the rest unchanged.
  ca::Shard few = shard;
  few.weight_heads = std::min(2, nh);
  const ca::Walkthrough kept = ca::run_walkthrough(c, ids, few);
  const ca::Tensor &aw = stage(whole, "mha.attn_weights"), &kw = stage(kept, "mha.attn_weights");
  const std::size_t TT = std::size_t(T) * T;
  REQUIRE(kw.shape == std::vector<int>{1, few.weight_heads, T, T});
  CHECK_THAT(
      test::floats("mha.attn_weights", kw),
      test::BitEqual(
          std::vector<float>(aw.data.begin() + (shard.b0 * H + shard.h0) * TT,
                             aw.data.begin() + (shard.b0 * H + shard.h0 + few.weight_heads) * TT),
          "the whole run's"));
  CHECK_THAT(test::floats("mha.context_vec", stage(kept, "mha.context_vec")),
             test::BitEqual(pcv.data, "the shard's"));
  // out_proj on rows 3..T+5 of context_vec: those rows of context_vecs.
  const int r0 = 3, r1 = T + 5;
  const ca::Tensor rows({r1 - r0, c.d_out}, std::vector<float>(cv.data.begin() + r0 * c.d_out,
                                                               cv.data.begin() + r1 * c.d_out));
  const ca::Walkthrough params =
      ca::run_walkthrough(c, {"mha.out_proj.weight", "mha.out_proj.bias"});
  const ca::Stage projected =
      ca::mha_out_proj(c, rows, ca::Linear(params.stages[0].tensor, params.stages[1].tensor));
  CHECK(projected.id() == "mha.context_vecs");
  for (const ca::Stage& s : whole.stages)
    if (s.id() == "mha.context_vecs") CHECK(projected.code == s.code);
  CHECK_THAT(test::floats("out_proj rows", projected.tensor),
             test::BitEqual(std::vector<float>(out.data.begin() + r0 * c.d_out,
                                               out.data.begin() + r1 * c.d_out),
                            "the whole run's"));
}

// Exercise 3.3 (the gpt2 preset) at T = 256.
const char* const kGpt2At256 = R"({"inputs": {"randn": [256, 768]}, "d_out": 768,
                                   "num_heads": 12, "context_length": 1024})";

// A Worker's shard (web/page/pool.js: the context, and maybe batch element b0's first heads'
// weights) on one thread, as in WebAssembly: the heads one at a time, each reading its columns
// of the queries, keys and values, the weights written over the scores, the batch's element
// read from the inputs; the same bits as the whole run, and at most this much memory at once
// (fresh memory is a Worker's dearest cost: ~25 µs of CPU a 4 KB page on this VM).
TEST_CASE("a Worker's shard has the whole run's bits in a small peak", "[threads][shards]") {
  const auto [json, shard, ids] = GENERATE(table<std::string, ca::Shard, std::vector<std::string>>({
      {kGpt2At256, {0, 1, 0, 12, 1}, {"mha.attn_weights", "mha.context_vecs"}},
      {kGpt2At256, {1, 2, 0, 12}, {"mha.W_query", "mha.out_proj.bias", "mha.context_vecs"}},
      {kGpt2At256, {1, 2, 6, 12, 2}, {"mha.attn_weights", "mha.context_vec"}},
      // a long context and narrow heads: the (T, T) scores are most of the peak
      {R"({"inputs": {"randn": [1024, 64]}, "d_out": 64, "num_heads": 2,
           "context_length": 1024})",
       {1, 2, 0, 2},
       {"mha.context_vecs"}},
      // heads of 7 (kernel tiles cut mid-head), qkv_bias, both batch elements
      {R"({"inputs": {"randn": [37, 20]}, "d_out": 35, "num_heads": 5, "qkv_bias": true})",
       {0, 2, 1, 4, 2},
       {"mha.attn_weights", "mha.context_vec"}},
  }));
  const int threads = GENERATE(1, 2);
  INFO(json << " shard [" << shard.b0 << ", " << shard.b1 << ", " << shard.h0 << ", " << shard.h1
            << "), " << threads << " threads");
  const ca::Config c = ca::parse_config(json).config;
  const ca::Walkthrough whole = run_on(1, c,
                                       {"mha.W_query", "mha.out_proj.bias", "mha.attn_weights",
                                        "mha.context_vec", "mha.context_vecs"});
  const auto stage = [](const ca::Walkthrough& w, std::string_view id) -> const ca::Tensor& {
    for (const ca::Stage& s : w.stages)
      if (s.id() == id) return s.tensor;
    FAIL("no stage " << id);
    throw;
  };
  const Threads t(threads);
  const long long held = test::reset_peak();
  const ca::Walkthrough part = ca::run_walkthrough(c, ids, shard);
  const long long peak = test::peak_bytes() - held;
  const int H = c.num_heads, hd = c.d_out / H, T = c.num_tokens(), D = c.d_out;
  const int nb = shard.b1 - shard.b0;
  REQUIRE(part.stages.size() == ids.size());
  for (const ca::Stage& s : part.stages) {
    const std::string id(s.id());
    const ca::Tensor& w = stage(whole, id);
    std::vector<float> want;
    if (id == "mha.attn_weights") {  // batch element b0's first weight_heads heads
      const std::size_t TT = std::size_t(T) * T, k = std::size_t(shard.b0) * H + shard.h0;
      want.assign(w.data.begin() + k * TT, w.data.begin() + (k + shard.weight_heads) * TT);
    } else if (id == "mha.context_vec" || id == "mha.context_vecs") {  // rows, heads' columns
      const int c0 = id == "mha.context_vec" ? shard.h0 * hd : 0,
                c1 = id == "mha.context_vec" ? shard.h1 * hd : D;
      for (int r = shard.b0 * T; r < shard.b1 * T; ++r)
        want.insert(want.end(), w.data.begin() + r * D + c0, w.data.begin() + r * D + c1);
    } else {
      want = w.data;
    }
    CHECK_THAT(test::floats(id, s.tensor), test::BitEqual(want, "the whole run's"));
  }
  // One thread: the module's weights, the inputs, the context (and context_vecs), the kept
  // weights, one (T, T) of scores and one head's queries, keys and values, plus 64 KB. The
  // batch (2 T d_in), the shard's queries, keys and values (3 nb T nh hd) and a (T, T) of
  // weights apart from the scores were 7.5 MB more at T = 256.
  if (threads == 1) {
    const long long d_in = c.d_in(), floats = 4LL * D * d_in + T * d_in + 2LL * nb * T * D +
                                              std::max(0, shard.weight_heads) * T * T + T * T +
                                              4LL * nb * T * hd;
    CHECK(peak <= 4 * floats + 65536);
  }
}

TEST_CASE("a shard out of range, or one drawing dropout, is refused", "[threads][shards]") {
  const ca::Config c = ca::parse_config(R"({"d_out": 4, "num_heads": 2})").config;
  CHECK(ca::shard_error(c, {}) == "");
  CHECK(ca::shard_error(c, {0, 2, 0, 2}) == "");
  CHECK(ca::shard_error(c, {0, 2, 1, 3}) ==
        "the shard must be batch elements [b0, b1) of [0, 2) and heads [h0, h1) of [0, 2)");
  CHECK(ca::shard_error(c, {1, 1, 0, 2}) != "");
  ca::Config drop = c;
  drop.class_dropout = 0.5;
  CHECK(ca::shard_error(drop, {0, 2, 0, 2}) == "");
  CHECK(ca::shard_error(drop, {0, 1, 0, 2}) ==
        "a shard cannot draw dropout: its draws run over every head, in order");
  drop.train = false;
  CHECK(ca::shard_error(drop, {0, 1, 0, 2}) == "");
  CHECK_THROWS_WITH(ca::run_walkthrough(c, {"mha.context_vec"}, {0, 3, 0, 2}),
                    "the shard must be batch elements [b0, b1) of [0, 2) and heads [h0, h1) "
                    "of [0, 2)");
}
