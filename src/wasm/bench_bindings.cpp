// The WASM module's entry for bench/compare.sh (bench/compare_wasm.js), kept apart from
// bindings.cpp in its own binding block, and small: three functions of numbers.
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

// Runs it n times; returns the last check (sum of the output, or the number of stages).
double bench_run(int n) {
  double check = 0;
  for (int i = 0; i < n; ++i) check = workload ? workload->run() : double(ca_bench::walkthrough());
  return check;
}

// The last output's hash (bench_modules.hpp): equal to the native core's when the bits are.
double bench_bits() { return workload ? workload->bits() : 0; }

}  // namespace

EMSCRIPTEN_BINDINGS(causal_attention_bench) {
  emscripten::function("benchSetup", &bench_setup);
  emscripten::function("benchRun", &bench_run);
  emscripten::function("benchBits", &bench_bits);
}
