// Configuration JSON: defaults, every key, round trips and the error messages.
#include <catch2/catch.hpp>

#include "json.hpp"
#include "support.hpp"
#include "text.hpp"

namespace {

std::string error_of(const std::string& json, const std::string& overrides = "{}") {
  return ca::parse_config(json, overrides).error;
}

}  // namespace

TEST_CASE("an empty configuration is the book's", "[config]") {
  const ca::ParsedConfig p = ca::parse_config("{}");
  REQUIRE(p.error.empty());
  const ca::Config c = ca::resolve(p.config);
  CHECK(c.inputs.shape == std::vector<int>{6, 3});
  CHECK(c.tokens == std::vector<std::string>{"Your", "journey", "starts", "with", "one", "step"});
  CHECK(c.d_out == 2);
  CHECK(c.seed_weights == 789);
  CHECK(c.seed_dropout == 123);
  CHECK(c.seed_class == 123);
  CHECK(c.dropout == 0.5);
  CHECK(c.class_dropout == 0.0);
  CHECK(c.context_length == 6);
  CHECK(c.rng == ca::DropoutRng::Default);
  CHECK(c.train);
  CHECK(c.scale);
  CHECK_FALSE(c.qkv_bias);
}

TEST_CASE("every key is read", "[config]") {
  const ca::ParsedConfig p = ca::parse_config(R"({
    "inputs": [[1, 2], [3, 4], [5, 6]], "tokens": ["a", "b\u00e9", "c\"d"], "d_out": 4,
    "qkv_bias": true, "scale": false, "seed_weights": -1, "seed_dropout": 18446744073709551615,
    "dropout": 0.25, "seed_class": 4294967296, "class_dropout": 0.1, "context_length": 9,
    "rng": "mkl", "train": false})");
  REQUIRE(p.error.empty());
  const ca::Config& c = p.config;
  CHECK(c.inputs.data == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(c.tokens == std::vector<std::string>{"a", "b\xc3\xa9", "c\"d"});
  CHECK(c.d_out == 4);
  CHECK(c.qkv_bias);
  CHECK_FALSE(c.scale);
  CHECK(c.seed_weights == 18446744073709551615ull);
  CHECK(c.seed_dropout == 18446744073709551615ull);
  CHECK(c.dropout == 0.25);
  CHECK(c.seed_class == 4294967296ull);
  CHECK(c.class_dropout == 0.1);
  CHECK(c.context_length == 9);
  CHECK(c.rng == ca::DropoutRng::Mkl);
  CHECK_FALSE(c.train);
  // The resolved JSON reads back to itself.
  const std::string once = ca::config_to_json(ca::resolve(c));
  const ca::ParsedConfig again = ca::parse_config(once);
  REQUIRE(again.error.empty());
  CHECK(ca::config_to_json(ca::resolve(again.config)) == once);
}

TEST_CASE("randn inputs", "[config]") {
  const ca::ParsedConfig p = ca::parse_config(R"({"inputs": {"randn": [5, 7], "seed": 42}})");
  REQUIRE(p.error.empty());
  REQUIRE(p.config.randn);
  CHECK(p.config.num_tokens() == 5);
  CHECK(p.config.d_in() == 7);
  CHECK(p.config.randn->seed == 42);
  CHECK(ca::parse_config(R"({"inputs": {"randn": [2, 2]}})").config.randn->seed == 123);
  const ca::Walkthrough w = test::run(R"({"inputs": {"randn": [5, 7], "seed": 42}})");
  CHECK(test::stage(w, "inputs").shape == std::vector<int>{5, 7});
  CHECK(w.config.tokens.size() == 5);
}

TEST_CASE("overrides replace keys of the configuration", "[config]") {
  const ca::ParsedConfig p = ca::parse_config(R"({"d_out": 3, "dropout": 0.1})", R"({"d_out": 5})");
  REQUIRE(p.error.empty());
  CHECK(p.config.d_out == 5);
  CHECK(p.config.dropout == 0.1);
  // A bad key in the file is still reported when the override does not replace it.
  CHECK(error_of(R"({"d_out": 0})", R"({"dropout": 0.2})") ==
        "\"d_out\" must be an integer between 1 and 1024 (got 0)");
  CHECK(error_of(R"({"d_out": 0})", R"({"d_out": 2})").empty());
}

TEST_CASE("bad configurations are refused with one clear message", "[config]") {
  // One run per row: the configuration, the start of its message.
  const auto [json, message] = GENERATE(table<const char*, const char*>({
      {R"({"foo": 1})", "unknown configuration key \"foo\""},
      {R"({"inputs": []})", "\"inputs\" is empty"},
      {R"({"inputs": [[]]})", "\"inputs\"[0] is empty"},
      {R"({"inputs": [[1, 2], [3]]})",
       "\"inputs\" is ragged: row 1 has length 1, row 0 has length 2"},
      {R"({"inputs": [[1, "x"]]})", "\"inputs\"[0][1] must be a finite number (got \"x\")"},
      {R"({"inputs": [[1, "nan"]]})", "\"inputs\"[0][1] must be a finite number (got \"nan\")"},
      {R"({"inputs": [[1e39]]})", "\"inputs\"[0][0] is not a finite float32 number (got 1e39)"},
      {R"({"inputs": [[null]]})", "\"inputs\"[0][0] must be a finite number (got null)"},
      {R"({"inputs": 3})",
       "\"inputs\" must be an array of rows or {\"randn\": [T, D]} (got a number)"},
      {R"({"inputs": {"randn": [0, 3]}})",
       "\"inputs\": \"randn[0]\" must be an integer between 1 and 1024 (got 0)"},
      {R"({"inputs": {"randn": [2000, 3]}})",
       "\"inputs\": \"randn[0]\" must be an integer between 1 and 1024 (got 2000)"},
      {R"({"inputs": {"seed": 1}})", "\"inputs\": an object needs \"randn\": [tokens, d_in]"},
      {R"({"inputs": {"randn": [2, 2], "x": 1}})",
       "\"inputs\": unknown key \"x\" (expected \"randn\" and \"seed\")"},
      {R"({"tokens": ["a"]})", "\"tokens\" has length 1 but \"inputs\" has 6 rows"},
      {R"({"tokens": [1, 2, 3, 4, 5, 6]})", "\"tokens\" must contain only strings (got a number)"},
      {R"({"d_out": 0})", "\"d_out\" must be an integer between 1 and 1024 (got 0)"},
      {R"({"d_out": 2.5})", "\"d_out\" must be an integer between 1 and 1024 (got 2.5)"},
      {R"({"d_out": "2"})", "\"d_out\" must be an integer between 1 and 1024 (got a string)"},
      {R"({"d_out": 100000})", "\"d_out\" must be an integer between 1 and 1024 (got 100000)"},
      {R"({"dropout": 1.5})", "\"dropout\" must be between 0 and 1 (got 1.5)"},
      {R"({"dropout": -0.1})", "\"dropout\" must be between 0 and 1 (got -0.1)"},
      {R"({"class_dropout": 2})", "\"class_dropout\" must be between 0 and 1 (got 2)"},
      {R"({"seed_weights": 1.5})",
       "\"seed_weights\" must be an integer between -2^63 and 2^64-1 (got 1.5)"},
      {R"({"seed_class": 18446744073709551616})",
       "\"seed_class\" must be an integer between -2^63 and 2^64-1 (got 18446744073709551616)"},
      {R"({"seed_dropout": -9223372036854775809})",
       "\"seed_dropout\" must be an integer between -2^63 and 2^64-1 (got -9223372036854775809)"},
      {R"({"context_length": 3})", "6 tokens exceed CausalAttention's context_length 3"},
      {R"({"context_length": 0})",
       "\"context_length\" must be an integer between 1 and 1024 (got 0)"},
      {R"({"rng": "intel"})", "\"rng\" must be \"default\" or \"mkl\""},
      {R"({"train": 1})", "\"train\" must be true or false (got a number)"},
      {R"([1, 2])", "the configuration must be a JSON object (got an array)"},
      {R"({"d_out": 2,})", "invalid JSON at offset 12: expected a string key"},
      {R"({"d_out": 2, "d_out": 3})", "invalid JSON at offset 20: duplicate key \"d_out\""},
      {"", "invalid JSON at offset 0: unexpected end of input"},
      {R"({"tokens": ["a)", "invalid JSON at offset 14: unterminated string"},
  }));
  INFO(json);
  CHECK_THAT(error_of(json), Catch::StartsWith(message));
}

TEST_CASE("absurd sizes and nesting are refused, not attempted", "[config]") {
  std::string deep(100000, '[');
  CHECK(error_of(deep).find("nested too deeply") != std::string::npos);
  std::string rows = R"({"inputs": [)";
  for (int i = 0; i < 1025; ++i) rows += i ? ",[1]" : "[1]";
  CHECK(error_of(rows + "]}") == "\"inputs\" has 1025 tokens; at most 1024 are supported");
  const std::string long_label(101, 'a');
  CHECK(error_of(R"({"inputs": [[1]], "tokens": [")" + long_label + R"("]})") ==
        "\"tokens\": a label is longer than 100 bytes");
}

TEST_CASE("json numbers print the shortest text that reads back exactly", "[config][json]") {
  CHECK(ca::json::number(0.43f) == "0.43");
  CHECK(ca::json::number(1.0f) == "1");
  CHECK(ca::json::number(-0.0f) == "-0");
  CHECK(ca::json::number(1.0000001f) == "1.0000001");
  CHECK(ca::json::number(-std::numeric_limits<float>::infinity()) == "\"-inf\"");
  CHECK(ca::json::number(std::numeric_limits<float>::quiet_NaN()) == "\"nan\"");
  CHECK(ca::json::number(0.1) == "0.1");
  for (float v : {1e-45f, 3.4028235e38f, 0.1f, 1.0f / 3.0f, 16777217.0f}) {
    CHECK(std::strtof(ca::json::number(v).c_str(), nullptr) == v);
  }
  CHECK(ca::json::quote("a\"b\\c\n\x01") == R"("a\"b\\c\n\u0001")");
}

TEST_CASE("the shortest-float printer and messages are total over inf and nan", "[json][hostile]") {
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(ca::shortest(inf) == "inf");
  CHECK(ca::shortest(-inf) == "-inf");
  CHECK(ca::shortest(std::numeric_limits<float>::quiet_NaN()) == "nan");
  CHECK(ca::shortest(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(ca::shortest(std::numeric_limits<double>::signaling_NaN()) == "nan");
  CHECK(error_of(R"({"dropout": 1e400})") == "\"dropout\" must be between 0 and 1 (got inf)");
  CHECK(error_of(R"({"class_dropout": -1e400})") ==
        "\"class_dropout\" must be between 0 and 1 (got -inf)");
  // From JS a NaN arrives as a number without literal.
  ca::json::Value doc;
  doc.kind = ca::json::Value::Kind::Object;
  doc.members = {{"d_out", ca::json::make_number(std::nan(""))}};
  CHECK(ca::read_config(doc).error == "\"d_out\" must be an integer between 1 and 1024 (got nan)");
  doc.members = {{"seed_class", ca::json::make_number(-std::numeric_limits<double>::infinity())}};
  CHECK(ca::read_config(doc).error ==
        "\"seed_class\" must be an integer between -2^63 and 2^64-1 (got -inf)");
  ca::Config c;
  c.dropout = std::nan("");
  CHECK(ca::validate(c) == "\"dropout\" must be between 0 and 1 (got nan)");
}

TEST_CASE("user strings in messages: one line of UTF-8, controls escaped", "[json][hostile]") {
  CHECK(ca::quoted("a\"\\\n\r\t\x1b\x7f\xc2\x85 é旅") == R"("a\"\\\n\r\t\u001b\u007f\u0085 é旅")");
  CHECK(ca::quoted("\xff\xc3(\xed\xa0\x80\xf4\x90\x80\x80\xe0\x80\x80") ==
        R"("\xff\xc3(\xed\xa0\x80\xf4\x90\x80\x80\xe0\x80\x80")");
  CHECK(ca::one_line("a\nb\x1b[0m") == R"(a\nb\u001b[0m)");
  CHECK(ca::valid_utf8("é旅🚀"));
  for (const char* bad :
       {"\xff", "\xc3", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe0\x80\x80"})
    CHECK_FALSE(ca::valid_utf8(bad));
  CHECK(error_of("{\"x\\u001b\\n\": 1}")
            .rfind(R"(unknown configuration key "x\u001b\n" (known)", 0) == 0);
  CHECK(error_of("{\"inputs\": {\"randn\": [1, 1], \"\\u0007\": 1}}") ==
        R"("inputs": unknown key "\u0007" (expected "randn" and "seed"))");
  CHECK(error_of("{\"d_out\": 1, \"d_out\u0085\": 1, \"d_out\u0085\": 2}") ==
        R"(invalid JSON at offset 36: duplicate key "d_out\u0085")");
  CHECK(error_of("{\"inputs\": [[\"\x7f\\u001b\"]]}") ==
        R"("inputs"[0][0] must be a finite number (got "\u007f\u001b"))");
  CHECK(error_of("\x1b") == R"(invalid JSON at offset 0: unexpected character '\u001b')");
}

TEST_CASE("a UTF-8 byte order mark is skipped, tokens must be UTF-8", "[json][hostile]") {
  CHECK(error_of("\xEF\xBB\xBF{\"d_out\": 3}").empty());
  CHECK(error_of("\xEF\xBB\xBF{\"d_out\": 3,}") ==
        "invalid JSON at offset 15: expected a string key");
  CHECK(error_of("\xEF\xBB{}").rfind("invalid JSON at offset 0", 0) == 0);
  CHECK(error_of(R"({"inputs": [[1], [2]], "tokens": ["ok", "\ud83d\ude80"]})").empty());
  CHECK(error_of("{\"inputs\": [[1], [2]], \"tokens\": [\"ok\", \"a\xed\xa0\x80\"]}") ==
        R"("tokens"[1] is not valid UTF-8 (got "a\xed\xa0\x80"))");
}

TEST_CASE("duplicate keys are found in linear time", "[json][hostile]") {
  // 300,000 distinct keys (3.6 MB): a quadratic check takes minutes and trips ctest's timeout.
  std::string text = "{";
  for (int i = 0; i < 300000; ++i) text += "\"k" + std::to_string(i) + "\":0,";
  const ca::json::ParseResult distinct = ca::json::parse(text.substr(0, text.size() - 1) + "}");
  CHECK(distinct.error.empty());
  CHECK(distinct.value.members.size() == 300000);
  const ca::json::ParseResult twice = ca::json::parse(text + "\"k123\":1}");
  CHECK(twice.error ==
        "invalid JSON at offset " + std::to_string(text.size() + 6) + ": duplicate key \"k123\"");
}

TEST_CASE("the inputs line is a float tensor in PyTorch", "[config]") {
  const ca::Walkthrough w = test::run(R"({"inputs": [[1, 2], [3, 4]]})");
  CHECK(w.stages[0].code == "inputs = torch.tensor([[1.0, 2.0], [3.0, 4.0]])");
  const ca::Walkthrough odd = test::run(R"({"inputs": [[-0.0, 0.1, 1e30, 1e-7, 16777217]]})");
  CHECK(odd.stages[0].code == "inputs = torch.tensor([[-0.0, 0.1, 1e+30, 1e-07, 16777216.0]])");
}

TEST_CASE("inputs round like torch.tensor: to double, then to float32", "[config]") {
  // 1 + 2^-24 + 2^-60 rounds to 1 via double (torch), to 1.0000001 directly (strtof).
  const ca::ParsedConfig p =
      ca::parse_config(R"({"inputs": [[1.00000005960464477539062500000000000000000001]]})");
  REQUIRE(p.error.empty());
  CHECK(p.config.inputs.data[0] == 1.0f);
}

TEST_CASE("a huge document is refused while it is read, in a small multiple of its size",
          "[json][hostile]") {
  // Issue 19: 64 MiB of {"x":[0,0,...]} took 41 s and 3.24 GB before its error (a Value per
  // element, ~100 bytes each); [[],[],...] 28.6 s; 8 MB of {"inputs":[[0],...]} 418 MB.
  const auto repeat = [](std::string head, const std::string& item, std::size_t bytes) {
    head.reserve(bytes + 8);
    while (head.size() < bytes) head += item;
    head.back() = ']';
    return head;
  };
  const auto [text, message] = GENERATE_REF(table<std::string, std::string>({
      {repeat(R"({"x":[)", "0,", 64 << 20) + "}",
       "invalid JSON at offset 8198: an array with more than 4096 elements"},
      {repeat("[", "[],", 64 << 20),
       "invalid JSON at offset 12289: an array with more than 4096 elements"},
      {repeat(R"({"inputs":[)", "[0],", 8000000) + "}",
       "invalid JSON at offset 16395: an array with more than 4096 elements"},
  }));
  const unsigned long long before = test::allocated_bytes();
  CHECK(ca::parse_config(text).error == message);
  CHECK(test::allocated_bytes() - before < 2000000);  // 4096 values, not millions
}

TEST_CASE("the reader's limits hold every valid configuration and little more", "[json]") {
  // 1024 rows of 1024 numbers: the largest valid inputs, read whole.
  std::string row = "[";
  for (int j = 0; j < 1024; ++j) row += j ? ",0.5" : "0.5";
  row += "]";
  std::string text = R"({"inputs": [)";
  for (int i = 0; i < 1024; ++i) text += (i ? "," : "") + row;
  text += R"(], "tokens": [)";
  for (int i = 0; i < 1024; ++i) text += (i ? ",\"t" : "\"t") + std::to_string(i) + "\"";
  const ca::ParsedConfig ok = ca::parse_config(text + "]}", R"({"d_out": 4})");
  CHECK(ok.error.empty());
  CHECK(ok.config.inputs.shape == std::vector<int>{1024, 1024});
  // Nesting: a configuration is 3 deep; 9 levels are refused.
  CHECK(ca::parse_config(R"({"inputs": [[[[[[[[1]]]]]]]]})").error ==
        "invalid JSON at offset 19: nested too deeply");
  // Beyond the values of any configuration: 1025 rows of 1024 numbers, refused while read.
  std::string big = "[";
  for (int i = 0; i < 1030; ++i) big += (i ? "," : "") + row;
  CHECK(ca::parse_config(R"({"inputs": )" + big + "]}").error.find("values in all") !=
        std::string::npos);
}

TEST_CASE("query_token names the same bound however it is out of range", "[config][hostile]") {
  // Issue 19: -1 said "between 0 and 1023", 7 said "between 0 and 5".
  CHECK(error_of(R"({"query_token": -1})") ==
        R"("query_token" must be an integer between 0 and 5 (got -1))");
  CHECK(error_of(R"({"query_token": 7})") ==
        R"("query_token" must be an integer between 0 and 5 (got 7))");
  CHECK(error_of(R"({"query_token": 1e999})") ==
        R"("query_token" must be an integer between 0 and 5 (got 1e999))");
  CHECK(error_of(R"({"query_token": 99999999999999999999})") ==
        R"("query_token" must be an integer between 0 and 5 (got 99999999999999999999))");
  CHECK(error_of(R"({"query_token": "1"})") ==
        R"("query_token" must be an integer between 0 and 5 (got a string))");
  // The bound follows the inputs wherever they are, and the overrides.
  CHECK(error_of(R"({"query_token": 2, "inputs": [[1], [2]]})") ==
        R"("query_token" must be an integer between 0 and 1 (got 2))");
  CHECK(error_of(R"({"inputs": [[1], [2]]})", R"({"query_token": -1})") ==
        R"("query_token" must be an integer between 0 and 1 (got -1))");
  CHECK(ca::parse_config(R"({"query_token": 5})").config.query_token == 5);
}
