// Asking for one stage computes it and the stages it reads (the table's operands,
// transitively), nothing else: every stage of the chapter asked for alone has the full run's
// bits and allocates no more than its operands, its module's own intermediates and a little
// text. Before, asking for `queries` ran the whole of §3.5 (a dozen (T, T) tensors).
#include <set>

#include "nn.hpp"
#include "parallel.hpp"
#include "stages.hpp"
#include "support.hpp"

namespace {

// The stage and, transitively, the stages it reads, as the table says.
std::set<std::string> closure(const std::string& id) {
  std::set<std::string> out;
  std::vector<std::string> todo = {id};
  while (!todo.empty()) {
    const std::string s = todo.back();
    todo.pop_back();
    if (!out.insert(s).second) continue;
    for (const ca::Operand& o : ca::operands(*ca::find_stage(s))) todo.emplace_back(o.id);
  }
  return out;
}

// The floats the book's PyTorch code holds beyond the stages themselves: the module that
// computes a stage (its weights; inside a forward its queries, keys and values and (B, H, T, T)
// scores, weights and dropout noise, and the heads' outputs before torch.cat: a module's
// intermediates are not stages), or dropout's input of ones and its noise. 0 for a stage computed
// directly from its operands.
double module_floats(const std::string& id, const ca::Config& c) {
  const double T = c.num_tokens(), D = c.d_in(), d = c.d_out, H = c.num_heads, B = 2;
  const double weights = 3 * D * d + 3 * d;        // three nn.Linear(d_in, d_out)
  const double attention = 3 * T * d + 3 * T * T;  // one (T, d_in) -> (T, d) attention
  const auto in = [&id](std::initializer_list<const char*> ids) {
    for (const char* s : ids)
      if (id == s) return true;
    return false;
  };
  if (id == "v1.context_vecs" || id == "v1_from_v2.context_vecs") return 3 * weights + attention;
  if (id.rfind("v1.", 0) == 0) return weights;
  if (in({"W_query", "W_key", "W_value", "b_query", "b_key", "b_value", "queries", "keys",
          "values"}))
    return weights;
  if (id == "dropout_example" || id == "attn_weights_dropped") return 2 * T * T;  // ones, noise
  if (id == "context_vecs") return weights + B * attention;
  if (id.rfind("ca.", 0) == 0) return weights;
  if (id == "mhaw.context_vecs") return H * (weights + B * attention + B * T * d);  // + cat's
  if (id.rfind("mhaw.", 0) == 0) return H * weights;
  // The cached generation: the module, its cache (B, T, d) of keys, values and queries, the
  // context before out_proj, and each step's one-token projections.
  if (id.rfind("kv.", 0) == 0) return weights + d * d + d + B * 8 * T * d + 4 * T;
  if (id.rfind("mha.", 0) == 0) return weights + d * d + d + B * (3 * T * d + 3 * H * T * T);
  // The bonus notebook's modules: its own and a copy's weights, §3.6.2's and a fresh one for the
  // copied stages, one forward; the blocked pass's running max and sum.
  if (ca::find_stage(id)->part > ca::Part::Mha)
    return 4 * (weights + d * d + d) + B * (4 * T * d + 3 * H * T * T) + 2 * B * H * T * 4;
  return 0;
}

// Every stage of the chapter (§3.3 to §3.6), the runs the cost model was fitted on.
std::vector<std::string> chapter_ids() {
  std::vector<std::string> ids;
  for (const ca::StageInfo& s : ca::stage_table())
    if (s.part <= ca::Part::Mha) ids.emplace_back(s.id);
  return ids;
}

const ca::Tensor* find(const ca::Walkthrough& w, const std::string& id) {
  for (const ca::Stage& s : w.stages)
    if (s.id() == id) return &s.tensor;
  return nullptr;
}

}  // namespace

TEST_CASE("a stage asked for alone is computed from its operands only, with the same bits",
          "[chapter][plan]") {
  // T = 256: a (T, T) is 256 KB, far above the text and the small tensors. Training with
  // dropout, so that the dropout stages draw; with qkv_bias, so that the bias stages exist.
  const std::string json =
      GENERATE(std::string(R"({"inputs": {"randn": [256, 16]}, "d_out": 32, "num_heads": 4,
                      "qkv_bias": true, "dropout": 0.2, "class_dropout": 0.1})"),
               std::string(R"({"inputs": {"randn": [256, 16]}, "d_out": 32, "num_heads": 4,
                      "train": false})"));
  INFO(json);
  const ca::Config c = ca::parse_config(json).config;
  const ca::Walkthrough full = ca::run_walkthrough(c);
  for (const std::string& id : ca::all_stage_ids()) {
    const ca::Tensor* want = find(full, id);
    if (want == nullptr) continue;  // a bias stage without qkv_bias
    INFO("stage " << id);
    double need = 0;  // floats: the stage and what it reads, as the full run made them
    for (const std::string& s : closure(id))
      if (const ca::Tensor* t = find(full, s)) need += static_cast<double>(t->numel());
    const unsigned long long before = test::allocated_bytes();
    const long long held = test::reset_peak();
    const ca::Walkthrough w = ca::run_walkthrough(c, {id});
    const double allocated = static_cast<double>(test::allocated_bytes() - before);
    const long long peak = test::peak_bytes() - held;
    REQUIRE(w.stages.size() == 1);
    CHECK_THAT(test::floats(id, w.stages[0].tensor), test::BitEqual(*want, "the full run's"));
    // Twice the stages (copies on the way: a row, a weight into its stage), the inputs' PyTorch
    // line (up to 20 bytes a number) and 64 KB of other text.
    const double text = 20.0 * c.num_tokens() * c.d_in() + 65536;
    CHECK(allocated <= 4 * (2 * need + module_floats(id, c)) + text);
    // The limit's estimate bounds what the run held, and not loosely.
    const long long estimate = static_cast<long long>(ca::run_bytes(c, {id}));
    CHECK(peak <= estimate);
    CHECK(estimate <= 2 * peak + 65536);
  }
}

TEST_CASE("stage_shape gives every stage's shape before it is computed", "[chapter][plan]") {
  const std::string json = GENERATE(
      std::string("{}"), std::string(R"({"inputs": {"randn": [7, 5]}, "d_out": 6, "num_heads": 3,
                      "qkv_bias": true})"));
  const ca::Config c = ca::parse_config(json).config;
  for (const ca::Stage& s : ca::run_walkthrough(c).stages) {
    INFO(json << ", stage " << s.id());
    CHECK(ca::stage_shape(c, s.id()) == s.tensor.shape);
  }
}

// run_cost's work counts the parts a run computes: a whole run costs the fitted formula, a run
// of some stages only the parts those stages need (the budget and the page's Worker decision
// follow what is asked). The book: T = 6, d_in = 3, d_out = 2, two heads, context_length 6.
TEST_CASE("run_cost's work counts what a run with given stages computes", "[chapter][plan]") {
  const ca::Config book = ca::parse_config("{}").config;
  const auto work = [&book](std::vector<std::string> stages) {
    return ca::run_cost(book, stages).work;
  };
  using Catch::Detail::Approx;
  // 36·(30 + 0.18·2) + 6·3·2 + 0.18·2·36: the fit, for the chapter's stages; a whole run adds
  // the bonus notebook's four forwards (combined QKV, einsum and its copy, the blocked pass;
  // not nn.MultiheadAttention at d_in 3 ≠ d_out 2) and the cached generation's one, each
  // costed as mha.attn_weights below
  CHECK(work(chapter_ids()) == Approx(1141.92).epsilon(1e-12));
  CHECK(work({}) == Approx(1141.92 + 5 * 331.242352941176).epsilon(1e-12));
  // the cached generation's forward, and §3.6.2's part for the module it runs: 6·(0.4/17)·36
  CHECK(work({"kv.context_vecs"}) == Approx(331.242352941176 + 5.08235294117647).epsilon(1e-12));
  CHECK(work({"kv.mask"}) == 0);  // a stage of zeros: nothing generated
  CHECK(work({"inputs"}) == 0);
  CHECK(work({"simple.attn_weights"}) == Approx(81).epsilon(1e-12));  // one (T, T) map
  // SelfAttention_v2's projections, its map and §3.5's masks: 3·(0.4/17)·36 + 81 + 0.015·72 + 27
  CHECK(work({"attn_weights_causal"}) == Approx(111.621176470588).epsilon(1e-12));
  // MultiHeadAttention's projections and its 2·2 maps: 6·(0.4/17)·36 + 324 + 0.015·72·2
  CHECK(work({"mha.attn_weights"}) == Approx(331.242352941176).epsilon(1e-12));
  // the wrapper's masks only (its weights are drawn, no head runs)
  CHECK(work({"mhaw.W_query"}) == Approx(12.96).epsilon(1e-12));
  // exercise 3.3 computes MultiHeadAttention alone: an 18th of the whole walkthrough, whose
  // wrapper runs 12 heads of d_out 768
  const ca::Config gpt2 = ca::parse_config(R"({"inputs": {"randn": [1024, 768]}, "d_out": 768,
      "num_heads": 12, "context_length": 1024})")
                              .config;
  const double whole = ca::run_cost(gpt2).work, mha = ca::run_cost(gpt2, {"mha.attn_weights"}).work;
  CHECK(mha == Approx(166050028.122353).epsilon(1e-12));
  CHECK(whole > 18 * mha);
}

TEST_CASE("a whole run's work is the fitted formula at every size", "[chapter][plan]") {
  const auto [T, D, d, H] = GENERATE(table<int, int, int, int>(
      {{6, 3, 2, 1}, {6, 3, 2, 2}, {32, 16, 16, 4}, {128, 64, 64, 8}, {384, 8, 128, 128}}));
  const ca::Config c = ca::parse_config("{\"inputs\": {\"randn\": [" + std::to_string(T) + ", " +
                                        std::to_string(D) + "]}, \"d_out\": " + std::to_string(d) +
                                        ", \"num_heads\": " + std::to_string(H) + "}")
                           .config;
  INFO("T " << T << ", d_in " << D << ", d_out " << d << ", heads " << H);
  const double TT = double(T) * T, Hs = std::max(H, 2);
  const double fit = TT * (30 + 0.18 * d) + double(T) * D * d +
                     (Hs - 2) * (9 * TT + 0.045 * TT * d + 0.3 * double(T) * D * d) + 0.18 * H * TT;
  CHECK(ca::run_cost(c, chapter_ids()).work == Catch::Detail::Approx(fit).epsilon(1e-12));
}
