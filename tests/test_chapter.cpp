// Chapter 3 beyond §3.5 (§3.3 attention without weights, §3.4 SelfAttention_v1, §3.6 the two
// multi-head modules): the notebook's printed values, the CLI, running only the parts asked
// for, the properties that tie the modules together, and the GPT-2-sized preset against
// PyTorch. Every golden configuration's stages, these included, are checked bit for bit by
// tests/test_golden.cpp.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <random>

#include "attention.hpp"
#include "nn.hpp"
#include "parallel.hpp"
#include "presets.hpp"
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

std::vector<double> twice(std::vector<double> v) {
  const std::vector<double> first = v;
  v.insert(v.end(), first.begin(), first.end());
  return v;
}

// The CLI's stdout, stderr and exit code.
struct Cli {
  int code;
  std::string out, err;
};
Cli cli(const std::string& args) {
  static int calls = 0;
  const std::string base =
      "/tmp/ca_chapter_" + std::to_string(::getpid()) + "_" + std::to_string(calls++);
  const int status = std::system(
      (std::string(CA_CLI) + " " + args + " >" + base + ".out 2>" + base + ".err").c_str());
  const auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  Cli r{WEXITSTATUS(status), slurp(base + ".out"), slurp(base + ".err")};
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

}  // namespace

TEST_CASE("the notebook's sections 3.3, 3.4 and 3.6 at 4 decimals", "[chapter][book]") {
  const ca::Walkthrough w = test::run("{}");
  const auto is = [&](const char* id, const std::vector<double>& v) {
    INFO(id);
    check_4dp(test::stage(w, id), v);
  };
  const std::vector<double> scores_q = {0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865};
  is("simple.attn_scores_q", scores_q);
  is("simple.attn_weights_q_tmp", {0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656});
  const std::vector<double> weights_q = {0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581};
  is("simple.attn_weights_q_naive", weights_q);
  is("simple.attn_weights_q", weights_q);
  is("simple.context_vec_q", {0.4419, 0.6515, 0.5683});
  is("simple.attn_scores",
     {0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310, 0.9544, 1.4950, 1.4754,
      0.8434, 0.7070, 1.0865, 0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605,
      0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565, 0.4576, 0.7070, 0.7154,
      0.3474, 0.6654, 0.2935, 0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450});
  is("simple.attn_weights",
     {0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452, 0.1385, 0.2379, 0.2333,
      0.1240, 0.1082, 0.1581, 0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565,
      0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720, 0.1526, 0.1958, 0.1975,
      0.1367, 0.1879, 0.1295, 0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896});
  is("simple.all_context_vecs",
     {0.4421, 0.5931, 0.5790, 0.4419, 0.6515, 0.5683, 0.4431, 0.6496, 0.5671, 0.4304, 0.6298,
      0.5510, 0.4671, 0.5910, 0.5266, 0.4177, 0.6503, 0.5645});
  is("v1.query_q", {0.4306, 1.4551});
  CHECK(test::stage(w, "v1.keys").shape == std::vector<int>{6, 2});
  CHECK(test::stage(w, "v1.values").shape == std::vector<int>{6, 2});
  CHECK(test::stage(w, "v1.attn_score_qq").shape.empty());
  is("v1.attn_score_qq", {1.8524});
  is("v1.attn_scores_q", {1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440});
  is("v1.attn_weights_q", {0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820});
  is("v1.context_vec_q", {0.3061, 0.8210});
  is("v1.context_vecs", {0.2996, 0.8053, 0.3061, 0.8210, 0.3058, 0.8203, 0.2948, 0.7939, 0.2927,
                         0.7891, 0.2990, 0.8040});
  is("v1_from_v2.context_vecs", {-0.0739, 0.0713, -0.0748, 0.0703, -0.0749, 0.0702, -0.0760, 0.0685,
                                 -0.0763, 0.0679, -0.0754, 0.0693});
  is("mhaw.context_vecs",
     twice({-0.4519, 0.2216,  0.4772, 0.1063, -0.5874, 0.0058,  0.5891, 0.3257,
            -0.6300, -0.0632, 0.6202, 0.3860, -0.5675, -0.0843, 0.5478, 0.3589,
            -0.5526, -0.0981, 0.5321, 0.3428, -0.5299, -0.1081, 0.5077, 0.3493}));
  is("mha.context_vecs", twice({0.3190, 0.4858, 0.2943, 0.3897, 0.2856, 0.3593, 0.2693, 0.3873,
                                0.2639, 0.3928, 0.2575, 0.4028}));
  CHECK(test::stage(w, "mha.attn_weights").shape == std::vector<int>{2, 2, 6, 6});
  CHECK(test::stage(w, "mha.queries").shape == std::vector<int>{2, 2, 6, 1});
}

TEST_CASE("the CLI prints the new stages like the notebook", "[chapter][cli]") {
  const Cli mha = cli("--stage mha.context_vecs");
  CHECK(mha.code == 0);
  CHECK(
      mha.out.find(
          "tensor([[[0.3190, 0.4858],\n         [0.2943, 0.3897],\n         [0.2856, 0.3593],\n"
          "         [0.2693, 0.3873],\n         [0.2639, 0.3928],\n         [0.2575, 0.4028]],\n\n"
          "        [[0.3190, 0.4858],") != std::string::npos);
  CHECK(cli("--stage v1.attn_score_qq")
            .out.find(
                "torch.Size([])\n>>> keys_2 = keys[1]\n... attn_score_22 = query_2.dot(keys_2)\n"
                "tensor(1.8524)\n") != std::string::npos);
  CHECK(cli("--query-token 0 --stage simple.attn_scores_q").out.find("query = inputs[0]") !=
        std::string::npos);
  CHECK(cli("--seed-v1 1 --stage v1.W_query").out.find("torch.manual_seed(1)") !=
        std::string::npos);
  CHECK(cli("--num-heads 1 --stage mha.queries").out.find("torch.Size([2, 1, 6, 2])") !=
        std::string::npos);
  const Cli listed = cli("--list-stages");
  CHECK(listed.out.find("inputs\nsimple.attn_scores_q\n") == 0);
  CHECK(listed.out.find("context_vecs\nmhaw.W_query\n") != std::string::npos);
  // Without the MHA stages asked for, an indivisible d_out leaves them out, as bias stages are.
  const Cli odd = cli("--d-out 3");
  CHECK(odd.code == 0);
  CHECK(odd.out.find("# mhaw.context_vecs") != std::string::npos);
  CHECK(odd.out.find("# mha.") == std::string::npos);
}

TEST_CASE("the CLI refuses a bad chapter option with one message", "[chapter][cli]") {
  const auto [args, message] = GENERATE(table<const char*, const char*>({
      {"--d-out 3 --stage mha.context_vecs",
       "MultiHeadAttention needs \"d_out\" divisible by \"num_heads\" (got d_out 3, num_heads 2)"},
      {"--num-heads 0", "\"num_heads\" must be an integer between 1 and 128 (got 0)"},
      {"--query-token 6", "\"query_token\" must be an integer between 0 and 5 (got 6)"},
      {"--seed-v1 x", "--seed-v1 expects a number (got \"x\")"},
      {"--preset gpt3", "unknown preset \"gpt3\" (presets: book, gpt2)"},
  }));
  INFO(args);
  const Cli r = cli(args);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == std::string("causal-attention: ") + message + "\n");
}

TEST_CASE("only the parts asked for run, in walkthrough order", "[chapter]") {
  const ca::ParsedConfig p = ca::parse_config("{}");
  const ca::Walkthrough w =
      ca::run_walkthrough(p.config, {"mha.context_vecs", "simple.attn_scores"});
  REQUIRE(w.stages.size() == 2);
  CHECK(w.stages[0].id() == "simple.attn_scores");
  CHECK(w.stages[1].id() == "mha.context_vecs");
  const ca::Walkthrough all = ca::run_walkthrough(p.config);
  CHECK(w.stages[1].tensor.data == test::stage(all, "mha.context_vecs").data);
  CHECK_THROWS_WITH(ca::run_walkthrough(p.config, {"mha.nope"}), "unknown stage \"mha.nope\"");
}

TEST_CASE("asking for the inputs runs no part of the program", "[chapter]") {
  // T = 512 randn inputs (128 KB): a (T, T) is 1 MB.
  const ca::Config c = ca::parse_config(R"({"inputs": {"randn": [512, 64]}})").config;
  const auto bytes_for = [&](const std::vector<std::string>& stages) {
    const unsigned long long before = test::allocated_bytes();
    const ca::Walkthrough w = ca::run_walkthrough(c, stages);
    CHECK(w.stages.size() == stages.size());
    return test::allocated_bytes() - before;
  };
  CHECK(bytes_for({"inputs"}) < 1000000);
  const unsigned long long mha = bytes_for({"mha.context_vecs"});
  CHECK(bytes_for({"inputs", "mha.context_vecs"}) < mha + 1000000);
  // The counter sees CausalAttention's (T, T), the scores turned into weights in place, and
  // nothing else of §3.5 (tests/test_plan.cpp bounds every stage): one (T, T) on any thread
  // count, the threads sharing it (the batch's two pairs split by rows, not a pair each).
  for (const int threads : {1, 2, 3}) {
    INFO(threads << " threads");
    ca::set_num_threads(threads);
    const unsigned long long causal = bytes_for({"inputs", "context_vecs"});
    CHECK(causal > 1000000);
    CHECK(causal < 2000000);
  }
  ca::set_num_threads(0);
}

namespace {

ca::Tensor random_batch(int B, int T, int d_in, std::uint64_t seed) {
  ca::Generator gen(seed);
  return ca::randn({B, T, d_in}, gen);
}

}  // namespace

TEST_CASE("the wrapper is H CausalAttentions drawn one after another, concatenated",
          "[chapter][properties]") {
  std::mt19937 pick(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int T = 1 + pick() % 9, d_in = 1 + pick() % 6, d_out = 1 + pick() % 5, H = 1 + pick() % 4;
    const double p = trial % 2 ? 0.3 : 0.0;
    const bool bias = trial % 3 == 0;
    const ca::Tensor x = random_batch(2, T, d_in, trial);
    ca::Generator g1(100 + trial), g2(100 + trial);
    const ca::MultiHeadAttentionWrapper mhaw(d_in, d_out, T, p, H, bias, g1);
    std::vector<ca::CausalAttention> heads;
    for (int h = 0; h < H; ++h) heads.emplace_back(d_in, d_out, T, p, bias, g2);
    const ca::Tensor y = mhaw.forward(x, g1);
    INFO("trial " << trial);
    REQUIRE(y.shape == (std::vector<int>{2, T, H * d_out}));
    for (int h = 0; h < H; ++h) {
      const ca::Tensor yh = heads[h].forward(x, g2);  // dropout draws in head order
      for (int r = 0; r < 2 * T; ++r)
        for (int c = 0; c < d_out; ++c)
          CHECK_THAT(y.data[(r * H + h) * d_out + c], test::BitEqual(yh.data[r * d_out + c]));
    }
  }
  // The walkthrough's first head is §3.5's CausalAttention (same seed, no dropout).
  const ca::Walkthrough w = test::run(R"({"num_heads": 3})");
  const ca::Tensor& cat = test::stage(w, "mhaw.context_vecs");
  const ca::Tensor& ca_out = test::stage(w, "context_vecs");
  for (int r = 0; r < 12; ++r)
    for (int c = 0; c < 2; ++c)
      CHECK_THAT(cat.data[r * 6 + c], test::BitEqual(ca_out.data[r * 2 + c]));
}

TEST_CASE("MultiHeadAttention with one head and an identity out_proj is CausalAttention",
          "[chapter][properties]") {
  std::mt19937 pick(11);
  for (int trial = 0; trial < 40; ++trial) {
    const int T = 1 + pick() % 9, d_in = 1 + pick() % 6, d_out = 1 + pick() % 6;
    const double p = trial % 2 ? 0.5 : 0.0;
    const bool bias = trial % 3 == 0;
    const ca::Tensor x = random_batch(2, T, d_in, 50 + trial);
    ca::Generator g(trial);
    const ca::CausalAttention ca(d_in, d_out, T + 2, p, bias, g);
    ca::MultiHeadAttention mha(d_in, d_out, T + 2, p, 1, bias, g);
    mha.W_query = ca.W_query;
    mha.W_key = ca.W_key;
    mha.W_value = ca.W_value;
    mha.out_proj.weight.matrix().setIdentity();
    mha.out_proj.bias->data.assign(d_out, 0.0f);
    ca::Generator d1(999 + trial), d2(999 + trial);  // the same dropout draws: (B,1,T,T) = (B,T,T)
    INFO("trial " << trial);
    CHECK_THAT(test::floats("MultiHeadAttention", mha.forward(x, d1)),
               test::BitEqual(ca.forward(x, d2), "CausalAttention's"));
  }
}

// forward keeps its projections (and MultiHeadAttention's context before out_proj) in the
// module's scratch: on a second call of the same size only the returned tensor is new memory,
// and a smaller or larger batch in between changes no bit (against a copy, whose scratch is empty).
TEST_CASE("forward reuses its buffers from call to call, with a fresh module's bits", "[chapter]") {
  const int d_in = 10, d = 12;
  ca::Generator g(4);
  const ca::CausalAttention causal(d_in, d, 16, 0.0, true, g);
  ca::MultiHeadAttention mha(d_in, d, 16, 0.0, 3, true, g);
  mha.training = false;
  const std::vector<std::array<int, 2>> sizes = {{2, 7}, {1, 4}, {3, 9}, {3, 9}, {2, 7}};
  for (std::size_t n = 0; n < sizes.size(); ++n) {
    const auto [B, T] = sizes[n];
    const ca::Tensor x = random_batch(B, T, d_in, int(n));
    const ca::CausalAttention fresh_causal = causal;  // copies start with an empty scratch
    const ca::MultiHeadAttention fresh_mha = mha;
    ca::Generator g1(1), g2(1);
    const unsigned long long before = test::allocated_bytes();
    const ca::Tensor a = causal.forward(x, g1), m = mha.forward(x, g1);
    const unsigned long long bytes = test::allocated_bytes() - before;
    INFO("call " << n << ": B " << B << ", T " << T);
    CHECK_THAT(test::floats("CausalAttention", a),
               test::BitEqual(fresh_causal.forward(x, g2), "a fresh module's"));
    CHECK_THAT(test::floats("MultiHeadAttention", m),
               test::BitEqual(fresh_mha.forward(x, g2), "a fresh module's"));
    // The same size again: the two outputs (and their shapes), nothing the size of q, k or v.
    const std::size_t out = 2 * std::size_t(B) * T * d * sizeof(float);
    if (n == 3) CHECK(bytes < out + std::size_t(B) * T * d * sizeof(float) / 2);
  }
}

TEST_CASE("every head is causal: later tokens never change earlier outputs",
          "[chapter][properties]") {
  std::mt19937 pick(3);
  for (int trial = 0; trial < 30; ++trial) {
    const int T = 2 + pick() % 8, d_in = 1 + pick() % 5, H = 1 + pick() % 4,
              d_out = H * (1 + pick() % 3);
    const int j = 1 + pick() % (T - 1);  // tokens j.. change
    ca::Tensor x = random_batch(2, T, d_in, trial), x2 = x;
    for (int b = 0; b < 2; ++b)
      for (int t = j; t < T; ++t)
        for (int k = 0; k < d_in; ++k) x2.data[(b * T + t) * d_in + k] += 1.0f + float(pick() % 5);
    ca::Generator g(trial);
    const ca::MultiHeadAttention mha(d_in, d_out, T, 0.0, H, trial % 2 == 0, g);
    const auto t1 = mha.trace(x, g), t2 = mha.trace(x2, g);
    INFO("trial " << trial << ", T " << T << ", H " << H << ", j " << j);
    for (int bh = 0; bh < 2 * H; ++bh) {
      for (int r = 0; r < j; ++r) {  // rows of the tokens before j, in every head
        for (int c = 0; c < T; ++c) {
          const std::size_t i = (static_cast<std::size_t>(bh) * T + r) * T + c;
          CHECK_THAT(t1.attn_weights.data[i], test::BitEqual(t2.attn_weights.data[i]));
          if (c > r) CHECK(t1.attn_weights.data[i] == 0.0f);
        }
      }
    }
    for (int b = 0; b < 2; ++b)
      for (int r = 0; r < j; ++r)
        for (int c = 0; c < d_out; ++c) {
          const std::size_t i = (static_cast<std::size_t>(b) * T + r) * d_out + c;
          CHECK_THAT(t1.context_vecs.data[i], test::BitEqual(t2.context_vecs.data[i]));
        }
    bool later_changed = false;
    for (std::size_t i = 0; i < t1.context_vecs.numel(); ++i)
      later_changed |= t1.context_vecs.data[i] != t2.context_vecs.data[i];
    CHECK(later_changed);
  }
}

TEST_CASE("exercise 3.1: SelfAttention_v1 with v2's weights transposed is context_vec, bit for bit",
          "[chapter][properties]") {
  std::mt19937 pick(5);
  for (int trial = 0; trial < 60; ++trial) {
    const int T = 1 + pick() % 12, d_in = 1 + pick() % 8, d_out = 1 + pick() % 8;
    const std::string config = "{\"inputs\": {\"randn\": [" + std::to_string(T) + ", " +
                               std::to_string(d_in) + "], \"seed\": " + std::to_string(trial) +
                               "}, \"d_out\": " + std::to_string(d_out) + ", \"num_heads\": 1" +
                               (trial % 4 == 0 ? ", \"scale\": false" : "") + "}";
    INFO(config);
    const ca::Walkthrough w = test::run(config);
    CHECK_THAT(test::floats("v1_from_v2.context_vecs", test::stage(w, "v1_from_v2.context_vecs")),
               test::BitEqual(test::stage(w, "context_vec"), "context_vec's"));
  }
}

TEST_CASE("MultiHeadAttention refuses num_heads that do not divide d_out, before any draw",
          "[chapter][properties]") {
  ca::Generator g(123);
  CHECK_THROWS_WITH(
      ca::MultiHeadAttention(3, 3, 6, 0.0, 2, false, g),
      "MultiHeadAttention: d_out must be divisible by num_heads (d_out 3, num_heads 2)");
  ca::Generator fresh(123);
  CHECK(g.random() == fresh.random());
}

TEST_CASE("exercise 3.3: the gpt2 preset is PyTorch's GPT-2-sized MultiHeadAttention",
          "[chapter][golden][gpt2]") {
  // About 1 s of CPU natively: 2 x 12 heads over 1024 tokens of 768 features.
  const nlohmann::json golden = test::load_json("tests/golden/gpt2.json");
  const ca::Preset* preset = ca::find_preset("gpt2");
  REQUIRE(preset != nullptr);
  const std::string config = ca::json::write(preset->config());
  CHECK(nlohmann::json::parse(config) == golden["config"]);
  const ca::ParsedConfig p = ca::parse_config(config);
  REQUIRE(p.error.empty());
  const ca::Walkthrough w = ca::run_walkthrough(p.config, ca::preset_stages(*preset));
  REQUIRE(w.stages.size() == 6);
  const auto pytorch = [&](const char* id) { return test::golden_values(golden["stages"][id]); };
  const auto rows = [](const ca::Tensor& t, std::size_t first, std::size_t n) {
    const std::size_t cols = t.shape.back();
    return std::vector<float>(t.data.begin() + first * cols, t.data.begin() + (first + n) * cols);
  };
  // The first two rows of W_query, the last two of out_proj, its bias.
  CHECK_THAT(test::floats("mha.W_query rows 0-1", rows(test::stage(w, "mha.W_query"), 0, 2)),
             test::BitEqual(pytorch("mha.W_query"), "PyTorch's"));
  CHECK_THAT(test::floats("mha.out_proj.weight rows 766-767",
                          rows(test::stage(w, "mha.out_proj.weight"), 766, 2)),
             test::BitEqual(pytorch("mha.out_proj.weight"), "PyTorch's"));
  CHECK_THAT(test::floats("mha.out_proj.bias", test::stage(w, "mha.out_proj.bias")),
             test::BitEqual(pytorch("mha.out_proj.bias"), "PyTorch's"));
  // The sampled rows of both batch elements, which are alike: softmax (SLEEF's exp) included.
  const ca::Tensor& out = test::stage(w, "mha.context_vecs");
  REQUIRE(out.shape == (std::vector<int>{2, 1024, 768}));
  std::vector<float> first, second;
  for (const int row : golden["rows"].get<std::vector<int>>()) {
    const std::vector<float> a = rows(out, row, 1), b = rows(out, 1024 + row, 1);
    first.insert(first.end(), a.begin(), a.end());
    second.insert(second.end(), b.begin(), b.end());
  }
  CHECK_THAT(test::floats("mha.context_vecs[0] sampled rows", first),
             test::BitEqual(pytorch("mha.context_vecs"), "PyTorch's"));
  CHECK_THAT(test::floats("mha.context_vecs[1] sampled rows", second),
             test::BitEqual(first, "batch element 0's"));
}

TEST_CASE("a run that would need gigabytes is refused before it allocates", "[chapter][hostile]") {
  // Issue 19: every value within its limit, yet the full walkthrough holds 2 x (2, 128, 1024,
  // 1024) floats for mha.attn_scores and mha.attn_weights (1 GiB each); the module aborted.
  // On one thread, as in WebAssembly: each thread adds its own (T, T) buffers to the estimate.
  ca::set_num_threads(1);
  const ca::Config c =
      ca::parse_config(R"({"inputs": {"randn": [1024, 1]}, "d_out": 128, "num_heads": 128})")
          .config;
  CHECK(ca::run_bytes(c) > 2 * ca::kMaxRunBytes);
  const std::string message =
      "this configuration needs about 5468 MiB for every stage; at most 1024 MiB are supported "
      "(T = 1024, 128 heads, d_out 128): ask for fewer stages, tokens or heads";
  CHECK(ca::stages_error(c, {}) == message);
  const unsigned long long before = test::allocated_bytes();
  CHECK_THROWS_WITH(ca::run_walkthrough(c), message);
  CHECK(test::allocated_bytes() - before < 100000);  // refused before computing anything
  CHECK(ca::stages_error(c, {"mha.attn_weights"}).rfind("this configuration needs about", 0) == 0);
  // Without the (B, H, T, T) intermediates the same configuration fits.
  CHECK(ca::stages_error(c, {"mha.context_vecs"}).empty());
  ca::set_num_threads(0);
}

TEST_CASE("run_bytes bounds the peak a run holds, closely", "[chapter]") {
  // The peak of live operator new bytes (tests/allocations.cpp) against the estimate, over the
  // parts and the terms that grow: heads (T^2 each), dropout's noise, a long context_length.
  const auto [json, stages] = GENERATE(table<std::string, std::vector<std::string>>({
      {R"({"inputs": {"randn": [256, 16]}, "d_out": 32, "num_heads": 16})", {}},
      {R"({"inputs": {"randn": [256, 16]}, "d_out": 32, "num_heads": 16})", {"mha.attn_weights"}},
      {R"({"inputs": {"randn": [256, 16]}, "d_out": 32, "num_heads": 16, "class_dropout": 0.1})",
       {"mha.context_vecs"}},
      {R"({"inputs": {"randn": [256, 16]}, "d_out": 16, "num_heads": 16})", {"mhaw.context_vecs"}},
      {R"({"inputs": {"randn": [200, 64]}, "d_out": 64, "context_length": 512})", {"context_vecs"}},
      {R"({"inputs": {"randn": [300, 8]}, "d_out": 8})", {"v1.context_vecs"}},
      {R"({"inputs": {"randn": [300, 8]}, "d_out": 8})", {"simple.attn_weights"}},
  }));
  INFO(json);
  const ca::Config c = ca::parse_config(json).config;
  const long long held = test::reset_peak();
  {
    const ca::Walkthrough w = ca::run_walkthrough(c, stages);
    CHECK(!w.stages.empty());
  }
  const long long peak = test::peak_bytes() - held;
  const long long estimate = static_cast<long long>(ca::run_bytes(c, stages));
  CHECK(peak <= estimate);
  CHECK(estimate <= 2 * peak);
}
