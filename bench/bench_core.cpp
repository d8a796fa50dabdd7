// Figures, not pass/fail: the walkthrough and its attention passes at growing sizes.
// Run: build/native/bench/ca_bench (build-scripts/test.sh prints a short run).
#include <benchmark/benchmark.h>

#include "attention.hpp"
#include "config_json.hpp"
#include "generator.hpp"
#include "kernels.hpp"
#include "kv_cache.hpp"
#include "nn.hpp"
#include "walkthrough.hpp"

namespace {

ca::Config randn_config(int T, int d) {
  ca::Config c;
  c.randn = ca::RandnInputs{T, d, 1};
  c.d_out = d;
  return c;
}

// The whole walkthrough, every stage, as the page recomputes it after an edit.
void BM_Walkthrough(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0));
  const ca::Config c = T == 6 ? ca::Config{} : randn_config(T, 16);
  for (auto _ : state) benchmark::DoNotOptimize(ca::run_walkthrough(c));
  state.SetLabel(T == 6 ? "the book" : "d_in = d_out = 16");
}
BENCHMARK(BM_Walkthrough)->Arg(6)->Arg(32)->Arg(128)->Arg(512)->Unit(benchmark::kMicrosecond);

// Parsing and validating the configuration JSON (the CLI's path).
void BM_ParseConfig(benchmark::State& state) {
  const std::string json =
      R"({"inputs": [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
    [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]], "dropout": 0.1, "rng": "mkl"})";
  for (auto _ : state) benchmark::DoNotOptimize(ca::parse_config(json));
}
BENCHMARK(BM_ParseConfig);

// Passes 2-5 on one sequence: the fast passes and the naive double-precision reference.
void BM_AttentionPasses(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), d = 64;
  ca::Generator gen(1);
  const ca::Tensor q = ca::randn({T, d}, gen), k = ca::randn({T, d}, gen),
                   v = ca::randn({T, d}, gen);
  ca::Tensor scores({T, T}), weights({T, T}), context({T, d});
  const ca::Tensor mask = ca::causal_mask(T);
  for (auto _ : state) {
    ca::scores_forward(scores.matrix(), q.matrix(), k.matrix());
    ca::masked_fill(scores.matrix(), mask.matrix());
    ca::softmax_forward(weights.matrix(), scores.matrix(), ca::score_divisor(d, true));
    ca::context_forward(context.matrix(), weights.matrix(), v.matrix());
    benchmark::DoNotOptimize(context.data.data());
  }
  state.SetItemsProcessed(state.iterations() * T);
}
BENCHMARK(BM_AttentionPasses)->Arg(32)->Arg(256)->Unit(benchmark::kMicrosecond);

void BM_AttentionNaive(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), d = 64;
  ca::Generator gen(1);
  const ca::Tensor q = ca::randn({T, d}, gen), k = ca::randn({T, d}, gen),
                   v = ca::randn({T, d}, gen);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        ca::attention_forward_naive(q.matrix(), k.matrix(), v.matrix(), true, true));
  }
  state.SetItemsProcessed(state.iterations() * T);
}
BENCHMARK(BM_AttentionNaive)->Arg(32)->Arg(256)->Unit(benchmark::kMicrosecond);

// Pass 4 alone on (T, T) scores, as the page's stages and the causal class run it: the whole
// masked softmax and causal_softmax_forward (the triangle only); arg 1: vectorised exp or not.
void BM_Softmax(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0));
  const bool fast = state.range(1) != 0, saved = ca::kernels::fast_exp();
  ca::kernels::set_fast_exp(fast);
  ca::Generator gen(1);
  ca::Tensor scores = ca::randn({T, T}, gen), weights({T, T});
  ca::masked_fill(scores.matrix(), ca::causal_mask(T).matrix());
  std::vector<unsigned char> full(T);
  for (auto _ : state) {
    ca::softmax_forward(weights.matrix(), scores.matrix(), 8.0f);
    ca::causal_softmax_forward(weights.data.data(), T, scores.data.data(), T, T, 8.0f, full.data());
    benchmark::DoNotOptimize(weights.data.data());
  }
  state.SetLabel(ca::kernels::fast_exp() ? "vectorised exp" : "scalar exp");
  ca::kernels::set_fast_exp(saved);
}
BENCHMARK(BM_Softmax)
    ->Args({256, 1})
    ->Args({256, 0})
    ->Args({1024, 1})
    ->Args({1024, 0})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

// Generating T tokens one at a time with MultiHeadAttention (d_in = d_out = 64, 4 heads, the
// batch of 2): with the KV cache (kv_cache.hpp), against recomputing the prefix at every step
// (the module run on tokens 0..t, its last row kept), as generation without a cache does.
// Counters: the multiply-adds each way (docs/bonus.md), exact.
void BM_Generate(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), d = 64, H = 4;
  const bool cached = state.range(1) != 0;
  ca::Generator gen;
  gen.manual_seed(1);
  const ca::Tensor x = ca::randn({2, T, d}, gen);
  gen.manual_seed(123);
  ca::MultiHeadAttention mha(d, d, T, 0.0, H, false, gen);
  mha.training = false;
  ca::KvKeep none;
  none.queries = none.cache = none.scores = none.weights = none.context_vec = false;
  for (auto _ : state) {
    if (cached) {
      benchmark::DoNotOptimize(ca::generate_with_cache(mha, x, none).context_vecs);
      continue;
    }
    for (int t = 0; t < T; ++t) {
      ca::Tensor prefix({2, t + 1, d});
      for (int b = 0; b < 2; ++b)
        std::copy_n(x.data.begin() + static_cast<std::ptrdiff_t>(b) * T * d, (t + 1) * d,
                    prefix.data.begin() + static_cast<std::ptrdiff_t>(b) * (t + 1) * d);
      benchmark::DoNotOptimize(mha.forward(prefix, gen));
    }
  }
  double macs = 0;
  for (int n = 1; n <= T; ++n) macs += 2.0 * (3 * d * d + 2 * n * d + d * d) * (cached ? 1 : n);
  state.counters["multiply_adds"] = macs;
  state.SetLabel(cached ? "KV cache" : "recomputing the prefix");
}
BENCHMARK(BM_Generate)
    ->Args({32, 1})
    ->Args({32, 0})
    ->Args({256, 1})
    ->Args({256, 0})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
