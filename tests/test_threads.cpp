// The work split over threads (parallel.hpp) changes no bit: every stage on 2, 3 and 8
// threads equals the one-thread run, for the book, a multi-head configuration that trains with
// dropout (its draws stay in order), and exercise 3.3's shape at a smaller T; and the modules
// on shapes whose rows and heads do not split evenly.
#include <atomic>

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
  // Uneven splits: 5 batch elements, 3 or 7 heads, rows not a multiple of a 4-row tile.
  const auto [B, T, d, H, p] = GENERATE(table<int, int, int, int, double>({
      {5, 33, 21, 3, 0.0},
      {3, 70, 28, 7, 0.0},
      {5, 33, 21, 3, 0.25},
      {1, 130, 64, 1, 0.0},
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
