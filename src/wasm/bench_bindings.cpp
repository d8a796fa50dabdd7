// The WASM module's entry for bench/compare.sh (bench/compare_wasm.js): one workload at a
// time, timed from JS. Kept apart from bindings.cpp, in its own binding block.
#include <emscripten/bind.h>

#include "../../bench/bench_modules.hpp"

namespace {

std::unique_ptr<ca_bench::Workload> workload;

// module "causal" or "mha"; false when this build has no such module.
bool bench_setup(const std::string& module, int B, int T, int d, int H) {
  workload = std::make_unique<ca_bench::Workload>(module, B, T, d, H);
  if (!workload->ok()) workload.reset();
  return workload != nullptr;
}

double bench_run() { return workload ? workload->run() : 0.0; }

double bench_walkthrough() { return double(ca_bench::walkthrough()); }

}  // namespace

EMSCRIPTEN_BINDINGS(causal_attention_bench) {
  emscripten::function("benchSetup", &bench_setup);
  emscripten::function("benchRun", &bench_run);
  emscripten::function("benchWalkthrough", &bench_walkthrough);
}
