// libFuzzer: any bytes as a configuration, through the JSON reader, the configuration, the
// walkthrough and the CLI's renderers. Invariants: nothing crashes, leaks or hangs; an error is
// one line of valid UTF-8; a valid configuration's JSON output is valid UTF-8.
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "config_json.hpp"
#include "output.hpp"
#include "text.hpp"
#include "walkthrough.hpp"

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_config: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The last byte picks the flags' document, as the CLI merges them: none, or one override.
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ca::ParsedConfig p = ca::parse_config(text);
  if (!p.error.empty()) {
    check(ca::valid_utf8(p.error), "an error message is not UTF-8");
    check(ca::one_line(p.error) == p.error, "an error message has a control character");
    return 0;
  }
  const ca::Config& c = p.config;
  // Sizes are capped so that one input never takes seconds under the sanitizers (the
  // configuration code is what is fuzzed; the kernels are tested against PyTorch).
  if (c.num_tokens() > 24 || c.d_in() > 24 || c.d_out > 24) return 0;
  const ca::Walkthrough w = ca::run_walkthrough(c);
  std::vector<const ca::Stage*> stages;
  for (const ca::Stage& s : w.stages) stages.push_back(&s);
  for (const ca::Format f :
       {ca::Format::Json, ca::Format::Markdown, ca::Format::Csv, ca::Format::Torch}) {
    std::ostringstream out;
    ca::render(out, w, stages, f);
    check(ca::valid_utf8(out.str()), "an output is not UTF-8");
  }
  return 0;
}
