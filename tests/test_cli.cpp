// The causal-attention binary: formats, stage selection and the error contract
// (one line on stderr, exit code 2, nothing on stdout).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "bonus.hpp"
#include "output.hpp"
#include "support.hpp"

namespace {

struct Result {
  int code;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the CLI with `args` (shell words) and `input` on stdin.
Result cli(const std::string& args, const std::string& input = "") {
  // Unique names: ctest runs test cases in parallel processes.
  static int calls = 0;
  const std::string base =
      "/tmp/ca_cli_" + std::to_string(getpid()) + "_" + std::to_string(calls++);
  const std::string in = base + ".in", out = base + ".out", err = base + ".err";
  std::ofstream(in) << input;
  const std::string cmd = std::string(CA_CLI) + " " + args + " <" + in + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  Result r{WEXITSTATUS(status), slurp(out), slurp(err)};
  for (const std::string& f : {in, out, err}) std::remove(f.c_str());
  return r;
}

}  // namespace

TEST_CASE("no arguments print the book's tables like the notebook", "[cli]") {
  const Result r = cli("");
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("# masked: Scores masked with -inf, torch.Size([6, 6])\n"
                   ">>> masked = attn_scores.masked_fill(mask.bool(), -torch.inf)\n"
                   "tensor([[0.2899,   -inf,   -inf,   -inf,   -inf,   -inf],\n") !=
        std::string::npos);
  CHECK(r.out.find("tensor([[[-0.4519,  0.2216],\n         [-0.5874,  0.0058],") !=
        std::string::npos);
  CHECK(r.out.find("tensor([[2., 2., 0., 2., 2., 0.],") != std::string::npos);
  // Every stage of the walkthrough, in order.
  std::size_t pos = 0;
  for (const std::string& id : ca::all_stage_ids()) {
    if (ca::is_bias_stage(id)) continue;
    // nn.MultiheadAttention needs d_in = d_out: not the book's 3 and 2.
    if (!ca::part_error(ca::find_stage(id)->part, ca::Config{}).empty()) continue;
    const std::size_t at = r.out.find("# " + id + ":", pos);
    INFO(id);
    REQUIRE(at != std::string::npos);
    pos = at;
  }
}

TEST_CASE("json output: resolved config and every stage, floats round-trip exactly", "[cli]") {
  const Result r = cli("--format json --qkv-bias --dropout 0.1 --seed-weights -1");
  REQUIRE(r.code == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc["config"]["seed_weights"] == 18446744073709551615ull);
  CHECK(doc["config"]["dropout"] == 0.1);
  CHECK(doc["config"]["qkv_bias"] == true);
  CHECK(doc["config"]["context_length"] == 6);
  CHECK(doc["config"]["tokens"][0] == "Your");
  const ca::Walkthrough w = test::run(R"({"qkv_bias": true, "dropout": 0.1, "seed_weights": -1})");
  REQUIRE(doc["stages"].size() == w.stages.size());
  for (std::size_t k = 0; k < w.stages.size(); ++k) {
    const nlohmann::json& s = doc["stages"][k];
    CHECK(s["id"] == w.stages[k].id());
    CHECK(s["title"] == w.stages[k].title());
    CHECK(s["code"] == w.stages[k].code);
    CHECK(s["shape"].get<std::vector<int>>() == w.stages[k].tensor.shape);
    CHECK_THAT(
        test::floats("the CLI's " + s["id"].get<std::string>(), test::golden_values(s["data"])),
        test::BitEqual(w.stages[k].tensor.data, "the core's"));
  }
  CHECK(r.out.find("\"-inf\"") != std::string::npos);
}

TEST_CASE("stage selection keeps the order asked for", "[cli]") {
  const Result r = cli("--format json --stage masked --stage inputs --stage masked");
  REQUIRE(r.code == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["stages"].size() == 2);
  CHECK(doc["stages"][0]["id"] == "masked");
  CHECK(doc["stages"][1]["id"] == "inputs");
}

TEST_CASE("csv and markdown output", "[cli]") {
  const Result csv = cli("--format csv --stage row_sums --stage context_vecs");
  REQUIRE(csv.code == 0);
  CHECK(csv.out.rfind("stage,batch,head,row,col,value\nrow_sums,,,0,0,0.19212602\n", 0) == 0);
  CHECK(csv.out.find("context_vecs,1,,5,1,") != std::string::npos);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 1 + 6 + 24);
  const Result md = cli("--format markdown --stage masked");
  REQUIRE(md.code == 0);
  CHECK(md.out.find("|   | Your | journey | starts | with | one | step |") != std::string::npos);
  CHECK(md.out.find("| **Your** | 0.2899 | −∞ | −∞ | −∞ | −∞ | −∞ |") != std::string::npos);
}

TEST_CASE("4-D stages: every (batch, head) slice, in CSV and Markdown", "[cli]") {
  // The book's batch stacks the same six tokens twice, so batch 1's heads repeat batch 0's.
  const char* last_row = "| **step** | 0.1625 | 0.1667 | 0.1666 | 0.1691 | 0.1650 | 0.1702 |";
  const Result md = cli("--format markdown --stage mha.attn_weights");
  REQUIRE(md.code == 0);
  const std::size_t h00 = md.out.find("batch[0], head[0]"), h01 = md.out.find("batch[0], head[1]"),
                    h10 = md.out.find("batch[1], head[0]"), h11 = md.out.find("batch[1], head[1]");
  REQUIRE(h00 < h01);
  REQUIRE(h01 < h10);
  REQUIRE(h10 < h11);
  REQUIRE(h11 != std::string::npos);
  CHECK(md.out.find(last_row, h01) < h10);
  CHECK(md.out.find(last_row, h11) != std::string::npos);
  CHECK(md.out.find(last_row, h00) == md.out.find(last_row, h01));  // head 0 differs
  const Result csv = cli("--format csv --stage mha.attn_weights");
  REQUIRE(csv.code == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 1 + 2 * 2 * 6 * 6);
  CHECK_THAT(csv.out, Catch::EndsWith("\nmha.attn_weights,1,1,5,5,0.1702151\n"));
  CHECK_THAT(csv.out, Catch::Contains("\nmha.attn_weights,0,1,5,5,0.1702151\n"));
}

TEST_CASE("config from stdin, flags override it, mkl path", "[cli]") {
  const Result r = cli("--config - --rng mkl --stage dropout_example --eval",
                       R"({"train": true, "dropout": 0.5})");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("tensor([[1., 1., 1., 1., 1., 1.],") != std::string::npos);  // --eval wins
  const Result mkl = cli("--rng mkl --stage dropout_example");
  CHECK(mkl.out.find("tensor([[2., 2., 2., 2., 2., 2.],\n        [0., 2., 0., 0., 0., 0.],") !=
        std::string::npos);
}

TEST_CASE("bad flags: one line on stderr naming the problem, exit 2, nothing on stdout", "[cli]") {
  const auto [args, message] = GENERATE(table<std::string, std::string>({
      {"--d-out 0", "\"d_out\" must be an integer between 1 and 1024 (got 0)"},
      {"--dropout 1.5", "\"dropout\" must be between 0 and 1 (got 1.5)"},
      {"--dropout abc", "--dropout expects a number (got \"abc\")"},
      {"--class-dropout -1", "\"class_dropout\" must be between 0 and 1 (got -1)"},
      {"--seed-class 1.5", "\"seed_class\" must be an integer"},
      {"--rng intel", "\"rng\" must be \"default\" or \"mkl\""},
      {"--stage nope", "unknown stage \"nope\""},
      {"--stage b_query", "stage \"b_query\" exists only with qkv_bias"},
      {"--format yaml", "--format"},
      {"--bogus", "--bogus"},
      {"--config /nonexistent.json", "cannot read config file /nonexistent.json: no such file"},
      {"--context-length 4", "6 tokens exceed CausalAttention's context_length 4"},
  }));
  INFO(args);
  const Result r = cli(args);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("causal-attention: ", 0) == 0);
  CHECK_THAT(r.err, Catch::Contains(message));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("bad configurations: exit 2 and the reason, nothing on stdout", "[cli]") {
  const auto [json, message] = GENERATE(table<std::string, std::string>({
      {R"({"inputs": [[1, 2], [3]]})", "ragged"},
      {R"({"inputs": []})", "\"inputs\" is empty"},
      {R"({"inputs": [["a"]]})", "must be a finite number"},
      {R"({"inputs": [[1e400]]})", "is not a finite float32 number"},
      {R"({"inputs": {"randn": [100000, 3]}})", "between 1 and 1024"},
      {R"({"wat": 1})", "unknown configuration key \"wat\""},
      {"not json", "invalid JSON at offset 0"},
  }));
  INFO(json);
  const Result r = cli("--config -", json);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains(message));
}

TEST_CASE("non-finite numbers are refused, not looped on", "[cli][hostile]") {
  const auto [args, stdin_text, message] = GENERATE(table<std::string, std::string, std::string>({
      {"--config -", R"({"dropout":1e400})", R"("dropout" must be between 0 and 1 (got inf))"},
      {"--dropout 1e400", "", R"("dropout" must be between 0 and 1 (got inf))"},
      {"--class-dropout -1e400", "", R"("class_dropout" must be between 0 and 1 (got -inf))"},
      {"--config -", R"({"class_dropout":-1e999, "dropout": 0})",
       R"("class_dropout" must be between 0 and 1 (got -inf))"},
  }));
  INFO(args << " " << stdin_text);
  const Result r = cli(args, stdin_text);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "causal-attention: " + message + "\n");
}

TEST_CASE("control characters in keys and stage ids are escaped: one line", "[cli][hostile]") {
  // printf makes the bytes: a newline and an ESC inside one argument.
  const Result stage = cli(R"x(--stage "$(printf 'a\nb\033[31m')")x");
  CHECK(stage.code == 2);
  CHECK(stage.err.rfind(R"(causal-attention: unknown stage "a\nb\u001b[31m" (stages: inputs,)",
                        0) == 0);
  const Result key = cli("--config -", "{\"x\\n\\u001b\\u0085\": 1}");
  CHECK(key.code == 2);
  CHECK(key.err.rfind(R"(causal-attention: unknown configuration key "x\n\u001b\u0085" (known)",
                      0) == 0);
  const Result format = cli(R"x(--format "$(printf 'x\ny')")x");
  CHECK(format.code == 2);
  CHECK(format.err.find(R"(x\ny)") != std::string::npos);
  for (const Result* r : {&stage, &key, &format}) {
    CHECK(std::count(r->err.begin(), r->err.end(), '\n') == 1);
    CHECK(r->err.find('\033') == std::string::npos);
  }
}

TEST_CASE("a UTF-8 byte order mark before the configuration is accepted", "[cli][hostile]") {
  const Result r = cli("--config - --stage W_query --format csv", "\xEF\xBB\xBF{\"d_out\": 1}");
  CHECK(r.err.empty());
  REQUIRE(r.code == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1 + 3);  // d_out = 1: 1 x 3 weights
}

TEST_CASE("a token that is not UTF-8 is named", "[cli][hostile]") {
  const Result r = cli("--config - --format json",
                       "{\"tokens\": [\"a\", \"\xff\xfe\", \"c\", \"d\", \"e\", \"f\"]}");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "causal-attention: \"tokens\"[1] is not valid UTF-8 (got \"\\xff\\xfe\")\n");
}

TEST_CASE("config files that cannot be read say why", "[cli][hostile]") {
  CHECK(cli("--config /tmp").err ==
        "causal-attention: cannot read config file /tmp: is a directory\n");
  CHECK(cli("--config /nonexistent.json").err ==
        "causal-attention: cannot read config file /nonexistent.json: no such file or directory\n");
  CHECK(cli("--config /etc/passwd/x").err ==
        "causal-attention: cannot read config file /etc/passwd/x: not a directory\n");
  if (geteuid() != 0) {  // root reads any file
    const std::string path = "/tmp/ca_cli_unreadable_" + std::to_string(getpid()) + ".json";
    std::ofstream(path) << "{}";
    chmod(path.c_str(), 0);
    CHECK(cli("--config " + path).err ==
          "causal-attention: cannot read config file " + path + ": permission denied\n");
    std::remove(path.c_str());
  }
}

TEST_CASE("markdown output: labels cannot break the table or become markup", "[cli][hostile]") {
  const Result r = cli("--config - --format markdown --stage masked --stage inputs",
                       R"({"inputs": [[1], [2], [3]], "tokens": ["a\n| x |",
                           "<img src=x onerror=alert(1)>", "~~s~~"]})");
  REQUIRE(r.code == 0);
  CHECK(r.out.find(R"(|   | a \| x \| | \<img src\=x onerror\=alert\(1\)\> | \~\~s\~\~ |)") !=
        std::string::npos);
  CHECK(r.out.find(R"(| **a \| x \|** | 0.2547 | −∞ | −∞ |)") != std::string::npos);
  // Every table line has as many unescaped pipes as the header rule.
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '|') continue;
    int pipes = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
      pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    INFO(line);
    CHECK((pipes == 5 || pipes == 3));  // masked: 1 + 3 + 1 columns; inputs: 1 + 1 + 1
  }
}

TEST_CASE("the Markdown cell rule: the fixture shared with the page's export", "[cli][markdown]") {
  const nlohmann::json cases = test::load_json("tests/golden/markdown_cells.json");
  REQUIRE(cases.size() >= 20);
  for (const nlohmann::json& c : cases) {
    INFO(c.dump());
    CHECK(ca::markdown_cell(c[0].get<std::string>()) == c[1].get<std::string>());
  }
}

TEST_CASE("output that cannot be written is an error, for every command", "[cli][hostile]") {
  // Issue 19: --list-stages, --help and --version into a full disk exited 0, silently.
  for (const char* args :
       {"--list-stages", "--list-stages --format json", "--help", "--version", "--stage inputs"}) {
    INFO(args);
    const std::string err = "/tmp/ca_cli_full_" + std::to_string(getpid()) + ".err";
    const int status =
        std::system((std::string(CA_CLI) + " " + args + " >/dev/full 2>" + err).c_str());
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(slurp(err) == "causal-attention: cannot write the output\n");
    std::remove(err.c_str());
  }
}

TEST_CASE("flag values are judged as the user wrote them", "[cli][hostile]") {
  const Result empty = cli("--config ''");  // issue 19: printed the book
  CHECK(empty.code == 2);
  CHECK(empty.out.empty());
  CHECK(empty.err == "causal-attention: cannot read config file '': no such file or directory\n");
  // Issue 19: "invalid JSON at offset 9", an offset in a document the user never wrote.
  const Result bom = cli(R"x(--d-out "$(printf '\357\273\2772')")x");
  CHECK(bom.code == 2);
  CHECK(bom.err ==
        "causal-attention: --d-out expects a number (got \"2\" after a byte order mark, U+FEFF)\n");
  const Result negative = cli("--query-token -1");
  CHECK(negative.err ==
        "causal-attention: \"query_token\" must be an integer between 0 and 5 (got -1)\n");
}

TEST_CASE("hostile sizes are refused at once, with their reason", "[cli][hostile]") {
  // Issue 19: 2.3 GB and 26 s for a configuration within every per-value limit.
  const Result heads = cli("--threads 1 --config -",
                           R"({"inputs": {"randn": [1024, 1]}, "d_out": 128, "num_heads": 128})");
  CHECK(heads.code == 2);
  CHECK(heads.err.rfind("causal-attention: this configuration needs about 5468 MiB for every "
                        "stage; at most 1024 MiB are supported",
                        0) == 0);
  // The same with only what fits: the final context vectors, no (B, H, T, T) intermediate.
  const Result fits = cli("--config - --stage mha.context_vecs --format csv",
                          R"({"inputs": {"randn": [1024, 1]}, "d_out": 128, "num_heads": 128})");
  CHECK(fits.code == 0);
  CHECK(std::count(fits.out.begin(), fits.out.end(), '\n') > 2 * 1024);
  // 64 MiB of [[],[],...]: refused while read (it took 28.6 s and 3.2 GB).
  std::string rows = "[";
  while (rows.size() < (64u << 20) - 8) rows += "[],";
  rows += "[]]";
  const Result huge = cli("--config -", rows);
  CHECK(huge.code == 2);
  CHECK(huge.err ==
        "causal-attention: invalid JSON at offset 12289: an array with more than 4096 elements\n");
}
