// The WASM module's entry for bench/compare.sh (bench/compare_wasm.js), kept apart from
// bindings.cpp in its own binding block, and small: four functions of numbers.
#include <emscripten/bind.h>

#include "bench_modules.hpp"

namespace {

std::unique_ptr<ca_bench::Workload> workload;

// module 0: CausalAttention, 1: MultiHeadAttention, on a (B, T, d) input with H heads;
// 2: the book's walkthrough. False when this build has no such module.
bool bench_setup(int module, int B, int T, int d, int H) {
  workload.reset();
  if (module == 2) return true;
  workload = std::make_unique<ca_bench::Workload>(module == 0 ? "causal" : "mha", B, T, d, H);
  if (!workload->ok()) workload.reset();
  return workload != nullptr;
}

// Runs it n times, the forward alone as compare_native.cpp times it (the walkthrough: returns
// its number of stages).
double bench_run(int n) {
  double stages = 0;
  for (int i = 0; i < n; ++i) {
    if (workload)
      workload->forward();
    else
      stages = double(ca_bench::walkthrough());
  }
  return stages;
}

// The last output's sum (bench_modules.hpp): the check every side prints, taken once at the end.
double bench_sum() { return workload ? workload->sum() : 0; }

// The last output's hash (bench_modules.hpp): equal to the native core's when the bits are.
double bench_bits() { return workload ? workload->bits() : 0; }

}  // namespace

EMSCRIPTEN_BINDINGS(causal_attention_bench) {
  emscripten::function("benchSetup", &bench_setup);
  emscripten::function("benchRun", &bench_run);
  emscripten::function("benchSum", &bench_sum);
  emscripten::function("benchBits", &bench_bits);
}
