// The settings table (src/core/settings.hpp): the book's defaults, the ranges the reader
// enforces, the keys config_to_json writes, and the CLI's --list-settings.
#include <catch2/catch.hpp>
#include <cstdio>
#include <memory>

#include "settings.hpp"
#include "support.hpp"
#include "text.hpp"
#include "texts.hpp"

namespace {

std::string cli_output(const std::string& args) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((std::string(CA_CLI) + " " + args).c_str(), "r"),
                                             pclose);
  REQUIRE(pipe);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe.get())) > 0;) out.append(buf, n);
  return out;
}

// A configuration with the key set, and inputs that let query_token reach its maximum (it names
// a token) and context_length its minimum (at least T).
std::string with_value(const ca::SettingInfo& s, const std::string& literal) {
  const std::string key = s.key;
  const std::string inputs = key == "query_token"      ? R"("inputs": {"randn": [1024, 1]}, )"
                             : key == "context_length" ? R"("inputs": [[1]], )"
                                                       : "";
  return "{" + inputs + ca::json::quote(s.key) + ": " + literal + "}";
}

}  // namespace

TEST_CASE("the table holds the book's defaults, resolved for the book", "[settings]") {
  const nlohmann::json table = nlohmann::json::parse(ca::json::write(ca::settings_json()));
  nlohmann::json defaults;
  for (const nlohmann::json& s : table["settings"])
    defaults[s["key"].get<std::string>()] = s["default"];
  CHECK(defaults["inputs"] ==
        nlohmann::json::parse("[[0.43,0.15,0.89],[0.55,0.87,0.66],[0.57,0.85,0.64],"
                              "[0.22,0.58,0.33],[0.77,0.25,0.1],[0.05,0.8,0.55]]"));
  CHECK(defaults["tokens"] == nlohmann::json({"Your", "journey", "starts", "with", "one", "step"}));
  CHECK(defaults["d_out"] == 2);
  CHECK(defaults["query_token"] == 1);
  CHECK(defaults["seed_v1"] == 123);
  CHECK(defaults["num_heads"] == 2);
  CHECK(defaults["qkv_bias"] == false);
  CHECK(defaults["scale"] == true);
  CHECK(defaults["seed_weights"] == 789);
  CHECK(defaults["seed_dropout"] == 123);
  CHECK(defaults["dropout"] == 0.5);
  CHECK(defaults["seed_class"] == 123);
  CHECK(defaults["class_dropout"] == 0);
  CHECK(defaults["context_length"] == 6);
  CHECK(defaults["rng"] == "default");
  CHECK(defaults["train"] == true);
  // Config{} holds the table's values (query_token and context_length until resolved).
  const ca::Config c;
  CHECK(c.d_out == 2);
  CHECK(c.query_token == -1);
  CHECK(c.context_length == 0);
  CHECK(c.seed_weights == 789);
}

TEST_CASE("the table's keys are the configuration's, in config_to_json's order", "[settings]") {
  std::vector<std::string> written, listed;
  for (const auto& m : ca::config_to_value(ca::resolve(ca::Config{})).members)
    written.push_back(m.first);
  for (const ca::SettingInfo& s : ca::kSettings) listed.push_back(s.key);
  CHECK(listed == written);
  CHECK(listed == std::vector<std::string>{"inputs", "tokens", "d_out", "query_token", "seed_v1",
                                           "num_heads", "qkv_bias", "scale", "seed_weights",
                                           "seed_dropout", "dropout", "seed_class", "class_dropout",
                                           "context_length", "rng", "train"});
  for (const ca::SettingInfo& s : ca::kSettings) {
    INFO(s.key);
    CHECK(std::string(s.group).size() > 0);
    CHECK(std::string(s.label).size() > 0);
    CHECK(ca::setting_help(s.key).size() > 10);
  }
  // The JS library reads the help by index (src/wasm/pack.js): the order is the table's.
  CHECK(ca::text_keys("help") == listed);
}

TEST_CASE("the reader accepts each range's ends and refuses one step beyond", "[settings]") {
  for (const ca::SettingInfo& s : ca::kSettings) {
    INFO(s.key);
    if (s.type == ca::SettingType::Integer) {
      CHECK(ca::parse_config(with_value(s, ca::decimal(s.min))).error == "");
      CHECK(ca::parse_config(with_value(s, ca::decimal(s.max))).error == "");
      const std::string range = "\"" + std::string(s.key) + "\" must be an integer between " +
                                ca::decimal(s.min) + " and " + ca::decimal(s.max) + " (got ";
      CHECK(ca::parse_config(with_value(s, ca::decimal(s.min - 1))).error ==
            range + ca::decimal(s.min - 1) + ")");
      CHECK(ca::parse_config(with_value(s, ca::decimal(s.max + 1))).error ==
            range + ca::decimal(s.max + 1) + ")");
    } else if (s.type == ca::SettingType::Seed) {
      CHECK(ca::parse_config(with_value(s, "-9223372036854775808")).error == "");
      CHECK(ca::parse_config(with_value(s, "18446744073709551615")).error == "");
      CHECK(ca::parse_config(with_value(s, "18446744073709551616")).error ==
            "\"" + std::string(s.key) +
                "\" must be an integer between -2^63 and 2^64-1 (got 18446744073709551616)");
      CHECK(s.min == ca::kSeedMin);
      CHECK(s.max == ca::kSeedMax);
    } else if (s.type == ca::SettingType::Probability) {
      CHECK(ca::parse_config(with_value(s, "0")).error == "");
      CHECK(ca::parse_config(with_value(s, "1")).error == "");
      CHECK(ca::parse_config(with_value(s, "1.0000001")).error ==
            "\"" + std::string(s.key) + "\" must be between 0 and 1 (got 1.0000001)");
    }
  }
  // The ranges themselves, as the documentation states them.
  CHECK(ca::setting("d_out").max == 1024);
  CHECK(ca::setting("num_heads").max == 128);
  CHECK(ca::setting("query_token").max == 1023);
  CHECK(ca::setting("context_length").min == 1);
}

TEST_CASE("a choice's options are its values, in the order of the enum", "[settings]") {
  const ca::SettingInfo& rng = ca::setting("rng");
  CHECK(ca::choice(rng, 0).value == "default");
  CHECK(ca::choice(rng, 1).value == "mkl");
  CHECK(ca::choice(rng, 1).label.rfind("mkl: x86", 0) == 0);
  CHECK(ca::choice(rng, 2).value.empty());
  CHECK(ca::choice(ca::setting("d_out"), 0).value.empty());
  CHECK(ca::parse_config(R"({"rng": "mkl"})").config.rng == ca::DropoutRng::Mkl);
  CHECK(ca::to_string(ca::DropoutRng::Mkl) == "mkl");
  CHECK(ca::parse_config(R"({"rng": "pcg"})").error == R"("rng" must be "default" or "mkl")");
}

TEST_CASE("the CLI lists the settings as JSON and as text, and has a flag per number",
          "[settings][cli]") {
  const nlohmann::json doc = nlohmann::json::parse(cli_output("--list-settings --format json"));
  CHECK(doc == nlohmann::json::parse(ca::json::write(ca::with_texts(ca::settings_json()))));
  REQUIRE(doc["settings"].size() == std::size(ca::kSettings));
  const nlohmann::json& seed = doc["settings"][4];
  CHECK(seed["key"] == "seed_v1");
  CHECK(seed["type"] == "seed");
  CHECK(seed["min"] == -9223372036854775807LL - 1);
  CHECK(seed["max"] == 18446744073709551615ULL);
  CHECK(doc["settings"][0]["min"].is_null());
  CHECK(doc["settings"][14]["choices"][1]["value"] == "mkl");
  CHECK(doc["settings"][13]["derived"] == true);

  const std::string text = cli_output("--list-settings");
  CHECK(text.find("d_out  integer 1..1024  default 2\n") != std::string::npos);
  CHECK(text.find("rng  choice default|mkl  default \"default\"\n") != std::string::npos);
  CHECK(text.find("context_length  integer 1..1024  default 6 (from the inputs)\n") !=
        std::string::npos);
  const std::string help = cli_output("--help");
  for (const char* flag :
       {"--d-out", "--query-token", "--seed-v1", "--num-heads", "--seed-weights", "--seed-dropout",
        "--dropout", "--seed-class", "--class-dropout", "--context-length"}) {
    INFO(flag);
    CHECK(help.find(std::string(flag) + " ") != std::string::npos);
  }
}
