// The one table of stage facts (src/core/stages.hpp) against what the walkthrough produces and
// what the CLI exports: every id in order, sections that exist, axes that match the shapes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "bonus.hpp"
#include "stages.hpp"
#include "support.hpp"
#include "texts.hpp"

namespace {

std::vector<std::string> ids_of(const ca::Walkthrough& w) {
  std::vector<std::string> ids;
  for (const ca::Stage& s : w.stages) ids.emplace_back(s.id());
  return ids;
}

// The size an axis stands for in a configuration, or -1 for an axis this test does not know.
int axis_size(const std::string& axis, const ca::Walkthrough& w) {
  const ca::Config& c = w.config;
  if (axis == "tok" || axis == "step") return c.num_tokens();  // one step per token
  if (axis == "in") return c.d_in();
  if (axis == "out") return c.d_out;
  if (axis == "hd") return c.d_out / c.num_heads;    // MultiHeadAttention's head_dim
  if (axis == "hout") return c.d_out * c.num_heads;  // the wrapper's heads side by side
  if (axis == "head") return c.num_heads;
  if (axis == "qkv") return 3 * c.d_out;                         // CombinedQKV's one Linear
  if (axis == "block") return ca::flash_blocks(c.num_tokens());  // the blocked pass's key blocks
  if (axis == "sum" || axis == "bias" || axis.empty()) return 1;
  return -1;
}

}  // namespace

TEST_CASE("the stage table lists every stage of the walkthrough, in order", "[stages]") {
  const bool bias = GENERATE(false, true);
  const ca::Walkthrough w = test::run(bias ? R"({"qkv_bias": true})" : "{}");
  std::vector<std::string> expected;
  for (const ca::StageInfo& s : ca::stage_table())  // nn.MultiheadAttention needs d_in == d_out
    if ((bias || !s.bias) && ca::part_error(s.part, w.config).empty()) expected.push_back(s.id);
  CHECK(ids_of(w) == expected);
  CHECK(ca::all_stage_ids().size() == ca::stage_table().size());
}

TEST_CASE("every stage names a section, and sections come in order", "[stages]") {
  std::size_t last = 0;
  std::set<std::string> used;
  for (const ca::StageInfo& s : ca::stage_table()) {
    INFO(s.id);
    std::size_t k = 0;
    while (k < ca::section_table().size() && ca::section_table()[k].id != std::string(s.section))
      ++k;
    REQUIRE(k < ca::section_table().size());
    CHECK(k >= last);  // the page shows sections in table order
    last = k;
    used.insert(s.section);
    CHECK(std::string(s.title).size() > 0);
    CHECK(ca::stage_note(s.id).size() > 0);
  }
  CHECK(used.size() == ca::section_table().size());  // no empty section
}

TEST_CASE("src/texts.json has a note per stage, in the stage table's order", "[stages]") {
  // The JS library reads the notes by index (src/wasm/pack.js): the order is the table's.
  std::vector<std::string> ids;
  for (const ca::StageInfo& s : ca::stage_table()) ids.push_back(s.id);
  CHECK(ca::text_keys("notes") == ids);
}

TEST_CASE("axes, kinds and flags agree with the tensors", "[stages]") {
  const char* config = GENERATE(R"({"qkv_bias": true})",
                                R"({"inputs": {"randn": [7, 5], "seed": 3}, "d_out": 4,
                                    "qkv_bias": true})");
  const ca::Walkthrough w = test::run(config);
  for (const ca::Stage& st : w.stages) {
    INFO(st.id());
    const ca::StageInfo& info = *ca::find_stage(st.id());
    const std::vector<int>& shape = st.tensor.shape;
    const int rank = static_cast<int>(shape.size());
    if (rank == 0) {  // a 0-D scalar: no axes
      CHECK(info.rows + std::string(info.cols) == "");
      continue;
    }
    CHECK(shape.back() == axis_size(info.cols, w));
    if (rank >= 2) CHECK(shape[rank - 2] == axis_size(info.rows, w));
    if (rank == 1) CHECK((info.rows == std::string("bias") || info.rows == std::string()));
    // qkv bias stages are one row, or one row per head; out_proj's bias is always there.
    if (info.bias) CHECK((info.rows == std::string("bias") || info.rows == std::string("head")));
    // Causal: the cells after the diagonal are a query's future (a step's not-yet-cached keys).
    if (info.causal)
      CHECK((info.rows + std::string(info.cols) == "toktok" ||
             info.rows + std::string(info.cols) == "steptok"));
    if (*info.dropout) {
      const ca::StageInfo* pattern = ca::find_stage(info.dropout);
      REQUIRE(pattern != nullptr);
      CHECK(pattern <= &info);  // shown before (or is) the stage it marks
    }
    if (info.kind == ca::StageKind::Probabilities) {
      const float scale = 1.0f / (1.0f - static_cast<float>(w.config.dropout));
      for (float v : st.tensor.data) CHECK((v >= 0.0f && v <= scale));
    }
    if (info.kind == ca::StageKind::Mask) {
      for (float v : st.tensor.data) CHECK((v == 0.0f || v == 1.0f || v == 2.0f));
    }
  }
}

TEST_CASE("the CLI prints the table with --list-stages --format json", "[stages][cli]") {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(
      popen((std::string(CA_CLI) + " --list-stages --format json").c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe.get())) > 0;) out.append(buf, n);
  const nlohmann::json doc = nlohmann::json::parse(out);
  REQUIRE(doc["stages"].size() == ca::stage_table().size());
  for (std::size_t i = 0; i < ca::stage_table().size(); ++i) {
    const ca::StageInfo& s = ca::stage_table()[i];
    const nlohmann::json& j = doc["stages"][i];
    CHECK(j["id"] == s.id);
    CHECK(j["section"] == s.section);
    CHECK(j["part"] == ca::to_string(s.part));
    const std::vector<ca::Operand> ops = ca::operands(s);
    REQUIRE(j["operands"].size() == ops.size());
    for (std::size_t k = 0; k < ops.size(); ++k) {
      CHECK(j["operands"][k]["id"] == std::string(ops[k].id));
      CHECK(j["operands"][k]["axis"] == ops[k].axis);
      CHECK(j["operands"][k]["index"] == (ops[k].index ? std::string(1, ops[k].index) : ""));
    }
    CHECK(j["code"] == s.code);
    CHECK(j["rows"] == s.rows);
    CHECK(j["cols"] == s.cols);
    CHECK(j["kind"] == ca::to_string(s.kind));
    CHECK(j["causal"] == s.causal);
    CHECK(j["dropout"] == s.dropout);
    CHECK(j["note"] == ca::stage_note(s.id));
  }
  REQUIRE(doc["sections"].size() == ca::section_table().size());
  CHECK(doc["sections"][4]["id"] == "s1");
  CHECK(doc["sections"][4]["number"] == "3.5.1");
  CHECK(doc["limits"]["max_tokens"] == ca::kMaxTokens);
  CHECK(doc["limits"]["max_shown"] == 32);
  CHECK(doc["defaults"]["randn_seed"] == 123);
  const nlohmann::json& dropped = doc["stages"][41];
  CHECK(dropped["id"] == "attn_weights_dropped");
  CHECK(dropped["part"] == "sa");
  CHECK(dropped["operands"] == nlohmann::json::parse(
                                   R"([{"id": "attn_weights_causal", "axis": "row", "index": "i"},
                                       {"id": "dropout_example", "axis": "row", "index": "i"}])"));
}

TEST_CASE("each stage's part computes it: asked for alone, it comes back with the full run's bits",
          "[stages]") {
  // The book with biases; and d_in == d_out without them, where nn.MultiheadAttention runs.
  const char* json =
      GENERATE(R"({"qkv_bias": true})", R"({"inputs": {"randn": [7, 4], "seed": 3}, "d_out": 4})");
  const ca::Config c = ca::parse_config(json).config;
  const ca::Walkthrough all = ca::run_walkthrough(c);
  for (const ca::StageInfo& s : ca::stage_table()) {
    INFO(s.id);
    if (s.bias && !c.qkv_bias) continue;
    if (const std::string error = ca::part_error(s.part, c); !error.empty()) {
      CHECK_THROWS_WITH(ca::run_walkthrough(c, {s.id}), Catch::Contains(error));
      continue;
    }
    const ca::Walkthrough one = ca::run_walkthrough(c, {s.id});
    REQUIRE(one.stages.size() == 1);  // a wrong part runs another part: the stage is missing
    const ca::Tensor &a = one.stages[0].tensor, &b = test::stage(all, s.id);
    CHECK_THAT(test::floats(std::string(s.id) + " alone", a), test::BitEqual(b, "the full run's"));
  }
}

TEST_CASE("parts run in table order, one part per section", "[stages]") {
  std::map<std::string, ca::Part> of_section;
  ca::Part last = ca::Part::Inputs;
  for (const ca::StageInfo& s : ca::stage_table()) {
    INFO(s.id);
    CHECK(s.part >= last);  // walkthrough.cpp runs the parts in this order
    last = s.part;
    if (s.part == ca::Part::Inputs) continue;  // "inputs" opens §3.3.1 but runs on its own
    const auto [it, added] = of_section.emplace(s.section, s.part);
    CHECK(it->second == s.part);
  }
  const auto part = [](const char* id) {
    return std::string(ca::to_string(ca::find_stage(id)->part));
  };
  CHECK(part("inputs") == "inputs");
  CHECK(part("simple.context_vec_q") == "simple");
  CHECK(part("v1_from_v2.context_vecs") == "v1");
  CHECK(part("batch") == "sa");
  CHECK(part("mhaw.context_vecs") == "wrapper");
  CHECK(part("mha.out_proj.bias") == "mha");
}

TEST_CASE(
    "every operand is an earlier stage, and a row or column of it matches the axis it indexes",
    "[stages]") {
  std::size_t sliced = 0, whole = 0;
  for (const ca::StageInfo& s : ca::stage_table()) {
    for (const ca::Operand& o : ca::operands(s)) {
      INFO(s.id << " reads " << o.id);
      const ca::StageInfo* read = ca::find_stage(o.id);
      REQUIRE(read != nullptr);
      CHECK(read < &s);
      if (*o.axis == '\0') {
        CHECK(o.index == 0);
        ++whole;
        continue;
      }
      ++sliced;
      REQUIRE((o.index == 'i' || o.index == 'j'));
      // Element [i, j] of s: i runs over its rows, j over its columns. Row i of the operand
      // has the operand's columns, so the operand's rows are what i or j counts.
      const std::string counted = o.index == 'i' ? s.rows : s.cols;
      CHECK((o.axis == std::string("row") ? read->rows : read->cols) == counted);
      CHECK(s.rows + std::string(s.cols) != "");  // a 2-D stage
    }
  }
  CHECK(sliced == 30);
  CHECK(whole == 125);  // 18 of them the KV cache section's, 52 the bonus notebook's
  const std::vector<ca::Operand> scores = ca::operands(*ca::find_stage("attn_scores"));
  REQUIRE(scores.size() == 2);
  CHECK(scores[0].id == "queries");
  CHECK(scores[0].axis == std::string("row"));
  CHECK(scores[0].index == 'i');
  CHECK(scores[1].id == "keys");
  CHECK(scores[1].index == 'j');
  const std::vector<ca::Operand> context = ca::operands(*ca::find_stage("context_vec"));
  CHECK(context[1].id == "values");
  CHECK(context[1].axis == std::string("col"));
  CHECK(context[1].index == 'j');
  CHECK(ca::operands(*ca::find_stage("W_query")).empty());
}
