// The native side of bench/compare.sh: times one (module, shape) and prints JSON.
//   compare_native causal|mha|walkthrough B T d H MIN_RUNS MIN_SECONDS [isa]
// Prints {"ok": true, "seconds": [...], "check": sum of the output, "bits": its hash (see
// bench_modules.hpp), "isa": "avx2"}, or {"ok": false} for an unknown module. With
// CA_BENCH_OUTPUT=FILE set, also writes the output there as raw float32 (compare.py reads it
// to find the largest difference from PyTorch's). One thread, or CA_BENCH_THREADS=N.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bench_modules.hpp"
#include "kernels.hpp"
#include "parallel.hpp"

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: %s causal|mha|walkthrough B T d H MIN_RUNS MIN_SECONDS [isa]\n",
                 argv[0]);
    return 2;
  }
  const std::string module = argv[1];
  const int B = std::atoi(argv[2]), T = std::atoi(argv[3]), d = std::atoi(argv[4]),
            H = std::atoi(argv[5]), min_runs = std::atoi(argv[6]);
  const double min_seconds = std::atof(argv[7]);
  if (argc > 8) {  // e.g. "sse2": time another kernel path
    const std::string want = argv[8];
    for (auto isa : {ca::kernels::Isa::Reference, ca::kernels::Isa::SSE2, ca::kernels::Isa::AVX2,
                     ca::kernels::Isa::AVX512})
      if (want == ca::kernels::isa_name(isa)) ca::kernels::force_isa(isa);
  }
  const char* threads = std::getenv("CA_BENCH_THREADS");
  ca::set_num_threads(threads ? std::atoi(threads) : 1);
  std::unique_ptr<ca_bench::Workload> w;
  if (module != "walkthrough") {
    w = std::make_unique<ca_bench::Workload>(module, B, T, d, H);
    if (!w->ok()) {
      std::printf("{\"ok\": false}\n");
      return 0;
    }
  }
  // Only the forward is timed, as compare.py times m(x): the output's sum (~0.7 ms at
  // (1, 1024, 768)) is the check, taken once at the end.
  double check = 0;
  const auto once = [&] {
    if (w)
      w->forward();
    else
      check = double(ca_bench::walkthrough());
  };
  once();  // warm-up: buffers allocated, caches filled
  std::vector<double> seconds;
  double total = 0;
  using clock = std::chrono::steady_clock;
  // Short runs are batched so that each sample is at least ~2 ms.
  int batch = 1;
  while (int(seconds.size()) < min_runs || total < min_seconds) {
    const auto t0 = clock::now();
    for (int r = 0; r < batch; ++r) once();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s < 2e-3 && seconds.empty() && batch < (1 << 20)) {
      batch *= 2;
      continue;
    }
    seconds.push_back(s / batch);
    total += s;
    if (seconds.size() >= 200) break;
  }
  if (w) check = w->sum();
  if (const char* path = std::getenv("CA_BENCH_OUTPUT"); path && w) {
    const std::vector<float>& y = w->output().data;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(y.data()), std::streamsize(y.size() * sizeof(float)));
  }
  std::printf(
      "{\"ok\": true, \"isa\": \"%s\", \"threads\": %d, \"check\": %.17g, \"bits\": %.17g, "
      "\"seconds\": [",
      ca::kernels::isa_name(ca::kernels::active_isa()), ca::num_threads(), check,
      w ? w->bits() : 0.0);
  for (std::size_t i = 0; i < seconds.size(); ++i) std::printf("%s%.9g", i ? ", " : "", seconds[i]);
  std::printf("]}\n");
  return 0;
}
