// causal-attention: the book's chapter 3 walkthrough (§3.3 to §3.6) on the command line.
// Errors: one line on stderr, exit code 2, nothing on stdout.
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "config_json.hpp"
#include "json.hpp"
#include "notebook.hpp"
#include "output.hpp"
#include "parallel.hpp"
#include "presets.hpp"
#include "settings.hpp"
#include "stages.hpp"
#include "text.hpp"
#include "texts.hpp"
#include "walkthrough.hpp"

namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Far beyond the largest valid configuration (1024 x 1024 inputs as text is ~12 MB).
constexpr std::size_t kMaxConfigBytes = std::size_t{64} << 20;

// The file's bytes, or a UsageError with the system's reason ("is a directory").
std::string read_config_file(const std::string& path) {
  const auto fail = [&path](int error) {
    std::string reason = std::strerror(error);
    if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(reason[0]));
    // An empty path shown as the shell writes it: "cannot read config file : no such file" read
    // as a message with a word missing.
    return UsageError("cannot read config file " + (path.empty() ? "''" : path) + ": " + reason);
  };
  std::unique_ptr<FILE, int (*)(FILE*)> owned(nullptr, std::fclose);
  FILE* in = stdin;
  if (path != "-") {
    owned.reset(std::fopen(path.c_str(), "rb"));
    if (!owned) throw fail(errno);
    in = owned.get();
  }
  std::string text;
  struct stat st;  // a file's size known: one buffer, no copies as it grows
  if (fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    text.reserve(std::min<std::size_t>(st.st_size, kMaxConfigBytes) + 1);
  char buf[65536];
  for (;;) {
    errno = 0;
    const std::size_t n = std::fread(buf, 1, sizeof buf, in);
    text.append(buf, n);
    if (text.size() > kMaxConfigBytes)
      throw UsageError("config file " + path + " is larger than 64 MiB");
    if (n < sizeof buf) break;
  }
  if (std::ferror(in)) throw fail(errno ? errno : EIO);  // EISDIR: fopen opens directories
  return text;
}

// A flag's text as a JSON number literal, so the core validates flags and files alike.
std::string number_literal(const std::string& flag, const std::string& text) {
  // The reader skips a byte order mark at the start of a document, not inside the overrides.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) {
    throw UsageError(flag + " expects a number (got " + ca::quoted(text.substr(3)) +
                     " after a byte order mark, U+FEFF)");
  }
  const ca::json::ParseResult r = ca::json::parse(text);
  if (!r.error.empty() || r.value.kind != ca::json::Value::Kind::Number) {
    throw UsageError(flag + " expects a number (got " + ca::quoted(text) + ")");
  }
  return text;
}

std::vector<const ca::Stage*> select(const ca::Walkthrough& w,
                                     const std::vector<std::string>& ids) {
  std::vector<const ca::Stage*> out;
  if (ids.empty()) {
    for (const ca::Stage& s : w.stages) out.push_back(&s);
    return out;
  }
  const std::vector<std::string>& known = ca::all_stage_ids();
  for (const std::string& id : ids) {
    if (std::find(known.begin(), known.end(), id) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw UsageError("unknown stage " + ca::quoted(id) + " (stages: " + list + ")");
    }
    const auto it = std::find_if(w.stages.begin(), w.stages.end(),
                                 [&](const ca::Stage& s) { return s.id() == id; });
    if (it == w.stages.end()) {
      const std::string why = ca::is_bias_stage(id) ? "qkv_bias" : "d_out divisible by num_heads";
      throw UsageError("stage " + ca::quoted(id) + " exists only with " + why);
    }
    if (std::find(out.begin(), out.end(), &*it) == out.end()) out.push_back(&*it);
  }
  return out;
}

// --list-settings as text: a line per key, then its help indented.
void print_settings(std::ostream& out) {
  const ca::json::Value table = ca::with_texts(ca::settings_json());
  for (const ca::json::Value& s : table.members[0].second.items) {
    const auto field = [&s](const char* key) -> const ca::json::Value& {
      for (const auto& [k, v] : s.members)
        if (k == key) return v;
      throw std::logic_error(key);
    };
    std::string line = field("key").text + "  " + field("type").text;
    if (field("min").kind != ca::json::Value::Kind::Null)
      line += " " + ca::json::write(field("min")) + ".." + ca::json::write(field("max"));
    for (const ca::json::Value& c : field("choices").items)
      line += (&c == &field("choices").items[0] ? " " : "|") + c.members[0].second.text;
    std::string value = ca::json::write(field("default"));
    if (value.size() > 40) value = value.substr(0, 37) + "...";
    line += "  default " + value + (field("derived").boolean ? " (from the inputs)" : "");
    out << line << "\n    " << field("help").text << "\n";
  }
}

// The exit code once stdout is written: a full disk or a closed pipe is an error, not success.
int flushed() {
  std::cout.flush();
  if (!std::cout) throw std::runtime_error("cannot write the output");
  return 0;
}

int run(int argc, char** argv) {
  CLI::App app{
      "The causal self-attention walkthrough of 'Build a Large Language Model (From Scratch)' "
      "chapter 3 (§3.3 to §3.6), computed exactly as PyTorch does. With no options it prints the "
      "book's tables."};
  app.set_version_flag("--version", "causal-attention " CA_VERSION);  // package.json's
  std::string config_path, preset_name;
  std::map<std::string, std::string> numbers;  // config key -> flag text
  std::optional<std::string> rng;
  bool qkv_bias = false, no_scale = false, eval = false, list = false, list_settings = false;
  std::vector<std::string> stages;
  std::string format = "torch";
  int threads = ca::num_threads();

  const CLI::Option* config_flag = app.add_option(
      "--config", config_path, "JSON configuration file (- for stdin); see docs/cli.md");
  std::string preset_names;
  for (const ca::Preset& p : ca::presets())
    preset_names += (preset_names.empty() ? "" : ", ") + std::string(p.name);
  app.add_option("--preset", preset_name,
                 "a named configuration (" + preset_names + "); --config and flags override it");
  // A flag per number setting of the table: --d-out for "d_out", with the table's help.
  std::vector<std::pair<std::string, const ca::SettingInfo*>> number_flags;
  for (const ca::SettingInfo& s : ca::kSettings) {
    if (s.type != ca::SettingType::Integer && s.type != ca::SettingType::Seed &&
        s.type != ca::SettingType::Probability)
      continue;
    std::string flag = std::string("--") + s.key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    number_flags.emplace_back(flag, &s);
  }
  for (const auto& [flag, s] : number_flags) {
    app.add_option_function<std::string>(
           flag,
           [&numbers, flag = flag, key = std::string(s->key)](const std::string& v) {
             numbers[key] = number_literal(flag, v);
           },
           ca::setting_help(s->key))
        ->allow_extra_args(false);
  }
  app.add_option_function<std::string>(
      "--rng", [&rng](const std::string& v) { rng = v; },
      "dropout's Bernoulli path: default (the book; PyTorch 2.7+, Apple silicon, ARM, builds "
      "without MKL) or mkl (x86 MKL builds of PyTorch 0.4.1 to 2.6: pip, conda, Colab)");
  app.add_flag("--qkv-bias", qkv_bias, "nn.Linear with bias");
  app.add_flag("--no-scale", no_scale, "softmax of the raw scores, without / sqrt(d_k)");
  app.add_flag("--eval", eval, "evaluation mode: dropout is the identity");
  app.add_option("--stage", stages, "print only this stage (repeatable), e.g. attn_weights_causal");
  app.add_option("--format", format,
                 "torch | json | csv | markdown | ipynb (a Jupyter notebook of every stage)")
      ->check(CLI::IsMember({"torch", "json", "csv", "markdown", "ipynb"}));
  app.add_option("--threads", threads,
                 "threads to compute with (default: every core, " + std::to_string(threads) +
                     " here); the numbers are the same bits on any count")
      ->check(CLI::Range(1, 256));
  app.add_flag("--list-stages", list,
               "print every stage id and exit; with --format json, every fact about each stage");
  app.add_flag("--list-settings", list_settings,
               "print every configuration key, its range, default and help, and exit; with "
               "--format json, as a table");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    app.exit(e);  // --help, --version
    return flushed();
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  if (list_settings) {
    if (format == "json")
      std::cout << ca::json::write(ca::with_texts(ca::settings_json())) << "\n";
    else
      print_settings(std::cout);
    return flushed();
  }
  if (list) {
    if (format == "json") {
      std::cout << ca::json::write(ca::with_texts(ca::stage_table_json())) << "\n";
    } else {
      for (const std::string& id : ca::all_stage_ids()) std::cout << id << "\n";
    }
    return flushed();
  }

  std::string overrides = "{";
  const auto add = [&overrides](const std::string& key, const std::string& literal) {
    overrides += (overrides.size() > 1 ? "," : "") + ca::json::quote(key) + ":" + literal;
  };
  for (const auto& [key, literal] : numbers) add(key, literal);
  if (rng) add("rng", ca::json::quote(*rng));
  if (qkv_bias) add("qkv_bias", "true");
  if (no_scale) add("scale", "false");
  if (eval) add("train", "false");
  overrides += "}";

  const bool stage_flag = !stages.empty();  // a preset's stages are no --stage
  std::string text = config_flag->count() == 0 ? "{}" : read_config_file(config_path);
  if (!preset_name.empty()) {
    const ca::Preset* preset = ca::find_preset(preset_name);
    if (preset == nullptr)
      throw UsageError("unknown preset \"" + preset_name + "\" (presets: " + preset_names + ")");
    const ca::json::ParseResult doc = ca::json::parse(text, ca::kConfigJsonLimits);
    if (!doc.error.empty()) throw UsageError(doc.error);
    if (doc.value.kind == ca::json::Value::Kind::Object)  // else parse_config names the problem
      text = ca::json::write(ca::with_preset(*preset, doc.value));
    if (stages.empty()) stages = ca::preset_stages(*preset);
  }
  const ca::ParsedConfig parsed = ca::parse_config(text, overrides);
  if (!parsed.error.empty()) throw UsageError(parsed.error);
  if (format == "ipynb") {  // the program's text, nothing computed
    if (stage_flag) throw UsageError("--format ipynb writes every stage: drop --stage");
    std::cout << ca::notebook(parsed.config);
    return flushed();
  }
  std::vector<std::string> needed;  // the core computes only the parts these stages need
  const std::vector<std::string>& known = ca::all_stage_ids();
  for (const std::string& id : stages) {
    if (std::find(known.begin(), known.end(), id) != known.end()) needed.push_back(id);
  }
  if (needed.size() < stages.size()) needed.clear();  // select() names the unknown one
  ca::set_num_threads(threads);
  const ca::Walkthrough w = ca::run_walkthrough(parsed.config, needed);
  const ca::Format f = format == "json"       ? ca::Format::Json
                       : format == "csv"      ? ca::Format::Csv
                       : format == "markdown" ? ca::Format::Markdown
                                              : ca::Format::Torch;
  ca::render(std::cout, w, select(w, stages), f);
  return flushed();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    // One line whatever the message quotes: CLI11's texts, paths, a key with an ESC in it.
    std::cerr << "causal-attention: " << ca::one_line(e.what()) << "\n";
    return 2;
  }
}
