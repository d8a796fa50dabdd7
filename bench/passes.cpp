// Where a forward's time goes, pass by pass, on the native core or in WASM (the same file
// built as build/native/bench/ca_passes and build/wasm/ca-passes.js): MultiHeadAttention's
// passes as nn.cpp runs them, each timed alone over its whole (B, T, D, H) workload.
//   ca_passes B T D H [ROUNDS [ISA [THREADS]]]     node build/wasm/ca-passes.js B T D H [ROUNDS]
// H = 1 is CausalAttention's head (hd = D). Prints one JSON line: per pass the minimum and
// median milliseconds of CPU time (the process's: on a shared machine wall time counts the
// other processes' turns) over ROUNDS (default 7) rounds, one thread. bench/passes.js runs both
// sides interleaved and prints the ratios. ISA "best" keeps the CPU's best.
// With THREADS N > 1 (native), every pass also runs on N threads, split as nn.cpp splits it
// (causal_split, causal_blocks), alternating with its one-thread run in every round; "threads"
// then gives per pass and thread count the minimum and median of wall and of CPU milliseconds
// (CPU sums the threads: CPU above one thread's says the threads slowed each other; wall x N
// above CPU says a thread waited), and on N threads "serial", the CPU time outside the pool's
// loops, and "ideal", serial plus each loop's slowest worker (parallel.hpp's LoopProfile): the
// wall time on idle cores, which a loaded machine's wall time does not show; "wake", the time
// the loops waited for their workers to start.
//   alloc    the (B, T, D) tensors a forward allocates (q, k, v, context, output), zero-filled
//   proj     the three projections (x @ W^T), into kept buffers, in one loop (linears_forward)
//   scores   q_bh @ k_bh^T per (batch, head), the lower triangle (gemm_nt LowerOut)
//   softmax  the masked softmax per (batch, head) (causal_softmax_forward)
//   exp      its exponentials alone (kernels::exp_shifted over each row's triangle)
//   context  weights @ v_bh per (batch, head) (gemm LowerK)
//   out      out_proj (with bias; MultiHeadAttention only), in one loop (linears_forward)
//   forward  the module's forward, whole (allocations included)
// A third number per pass: its first round, untimed otherwise (in WASM the code V8 starts in:
// a call runs to its end in its first tier, so a big gemm in one call stays in Liftoff).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>
#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#else
#include <ctime>
#endif
#include <utility>

#include "attention.hpp"
#include "generator.hpp"
#include "kernels.hpp"
#include "nn.hpp"
#include "parallel.hpp"

namespace {

#if defined(__EMSCRIPTEN__)
EM_JS(double, cpu_ms, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
});
#else
double cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
#endif

double ms(const std::function<void()>& f) {
  const double t0 = cpu_ms();
  f();
  return cpu_ms() - t0;
}

double wall_ms() {
#if defined(__EMSCRIPTEN__)
  return emscripten_get_now();
#else
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
#endif
}

// The minimum and median of t (sorted in place).
std::pair<double, double> min_median(std::vector<double>& t) {
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s B T D H [ROUNDS]\n", argv[0]);
    return 2;
  }
  const int B = std::atoi(argv[1]), T = std::atoi(argv[2]), D = std::atoi(argv[3]),
            H = std::atoi(argv[4]), rounds = argc > 5 ? std::atoi(argv[5]) : 7, hd = D / H;
  const int threads = argc > 7 ? std::max(1, std::atoi(argv[7])) : 1;
  if (argc > 6) {  // e.g. "avx2": time another kernel path
    for (auto isa : {ca::kernels::Isa::Reference, ca::kernels::Isa::SSE2, ca::kernels::Isa::AVX2,
                     ca::kernels::Isa::AVX512})
      if (std::string(argv[6]) == ca::kernels::isa_name(isa)) ca::kernels::force_isa(isa);
  }
  ca::set_num_threads(1);
  ca::Generator gen(123);
  ca::MultiHeadAttention mha(D, D, T, 0.0, H, false, gen);
  mha.training = false;
  ca::CausalAttention causal(D, D, T, 0.0, false, gen);
  causal.training = false;
  const ca::Tensor x = ca::randn({B, T, D}, gen);
  const int rows = B * T;
  std::vector<float> q(std::size_t(rows) * D), k(q.size()), v(q.size()), ctx(q.size()), y(q.size()),
      scores(std::size_t(threads) * T * T), weights(scores.size());
  std::vector<unsigned char> full(std::size_t(threads) * T);
  const float divisor = ca::score_divisor(hd, true);
  const auto at = [&](int bh) { return std::size_t(bh / H) * T * D + std::size_t(bh % H) * hd; };
  const std::size_t TT = std::size_t(T) * T;
  // Each pair's work f(bh, slot, from, to) split as causal_heads splits it on the threads set
  // now: the pairs over workers, each with its (T, T) slot, or a pair's blocks over `within`
  // workers sharing slot 0: the scores' columns, the rows, or the context's columns.
  enum Part { kScoreColumns, kRows, kColumns };
  const auto split = [&](Part part, const std::function<void(int, int, int, int)>& f) {
    const ca::CausalSplit cs = ca::causal_split(B * H, T, hd);
    const int n = part == kColumns ? hd : T;
    if (cs.within <= 1)
      return ca::parallel_for(B * H, cs.pairs, [&](std::size_t bh, int w) { f(int(bh), w, 0, n); });
    const ca::CausalBlocks b = ca::causal_blocks(T, hd, cs.within);
    const int size = part == kScoreColumns ? b.score_cols : part == kRows ? b.rows : b.cols;
    const int blocks = (n + size - 1) / size;
    for (int bh = 0; bh < B * H; ++bh)
      ca::parallel_for(blocks, cs.within, [&](std::size_t i, int) {
        const int from = (part == kRows ? blocks - 1 - int(i) : int(i)) * size;  // longest first
        f(bh, 0, from, std::min(n, from + size));
      });
  };

  struct Pass {
    const char* name;
    std::function<void()> run;
    std::vector<double> times;
    double first = 0;
  };
  std::vector<Pass> passes = {
      {"alloc",
       [&] {
         for (int i = 0; i < 5; ++i) {
           ca::Tensor t({B, T, D});
           volatile float keep = t.data.back();
           (void)keep;
         }
       },
       {}},
      {"proj",
       [&] {  // one loop over the three's columns, as nn.cpp's project()
         const float* w = mha.W_query.weight.data.data();
         const ca::LinearOut outs[] = {
             {q.data(), w, nullptr, D}, {k.data(), w, nullptr, D}, {v.data(), w, nullptr, D}};
         ca::linears_forward(x.data.data(), rows, D, outs, 3);
       },
       {}},
      {"scores",  // columns [c0, c1) of rows from c0 on
       [&] {
         split(kScoreColumns, [&](int bh, int slot, int c0, int c1) {
           const std::size_t c = at(bh) + std::size_t(c0) * D;
           ca::kernels::gemm_nt(T - c0, c1 - c0, hd, q.data() + c, D, k.data() + c, D,
                                scores.data() + slot * TT + std::size_t(c0) * T + c0, T,
                                ca::kernels::Tri::LowerOut);
         });
       },
       {}},
      {"softmax",
       [&] {
         split(kRows, [&](int, int slot, int r0, int r1) {
           ca::causal_softmax_forward(weights.data() + slot * TT, T, scores.data() + slot * TT, T,
                                      T, divisor, full.data() + slot * T, r0, r1);
         });
       },
       {}},
      {"exp",
       [&] {
         split(kRows, [&](int, int slot, int r0, int r1) {
           for (int i = r0; i < r1; ++i)
             ca::kernels::exp_shifted(weights.data() + slot * TT + std::size_t(i) * T, i + 1, 0.0f);
         });
       },
       {}},
      {"context",
       [&] {
         split(kColumns, [&](int bh, int slot, int c0, int c1) {
           ca::kernels::gemm(T, c1 - c0, T, weights.data() + slot * TT, T, v.data() + at(bh) + c0,
                             D, ctx.data() + at(bh) + c0, D, ca::kernels::Tri::LowerK);
         });
       },
       {}},
      {"out",
       [&] {  // on the projections' split, as nn.cpp's Linear natively
         const ca::LinearOut out = {y.data(), mha.out_proj.weight.data.data(),
                                    mha.out_proj.bias->data.data(), D};
         if (H > 1) ca::linears_forward(ctx.data(), rows, D, &out, 1);
       },
       {}},
      {"forward",
       [&] {
         volatile float keep = (H > 1 ? mha.forward(x, gen) : causal.forward(x, gen)).data.back();
         (void)keep;
       },
       {}},
  };
  // Scores before the softmax reads them, the softmax's weights before exp overwrites them:
  // run in order, the softmax once more before the context so it reads true weights.
  // With threads: [wall, CPU] per pass for 1 and N threads, the order alternating by round.
  const std::size_t softmax_pass = 3;
  std::vector<std::vector<double>> wall[2], cpu[2], serial(passes.size()), ideal(passes.size()),
      wake(passes.size());
  for (int n = 0; n < 2; ++n) wall[n].resize(passes.size()), cpu[n].resize(passes.size());
  for (int r = 0; r < rounds + 1; ++r)
    for (int turn = 0; turn < (threads > 1 ? 2 : 1); ++turn) {
      const int n = threads > 1 ? (turn + r) % 2 : 0;  // 0: one thread, 1: N threads
      ca::set_num_threads(n ? threads : 1);
      for (std::size_t i = 0; i < passes.size(); ++i) {
        Pass& p = passes[i];
        if (std::string(p.name) == "context") passes[softmax_pass].run();
        ca::LoopProfile loops;
        if (n) ca::profile_loops(&loops);
        const double w0 = wall_ms();
        const double t = ms(p.run), w = wall_ms() - w0;
        ca::profile_loops(nullptr);
        if (r == 0) {
          if (n == 0) p.first = t;  // round 0 warms up
          continue;
        }
        if (n == 0) p.times.push_back(t);
        wall[n][i].push_back(w);
        cpu[n][i].push_back(t);
        if (n) {
          serial[i].push_back(t - loops.busy_ms);
          ideal[i].push_back(t - loops.busy_ms + loops.critical_ms);
          wake[i].push_back(loops.wake_ms);
        }
      }
    }
    // The exp's path: natively AVX2 with FMA (whatever gemm's ISA), in WASM relaxed SIMD where
    // the engine runs it (exp_relaxed.cpp) or SIMD128; scalar without either.
#if defined(__EMSCRIPTEN__)
  const char* vector = ca::kernels::relaxed_exp() ? "relaxed-simd" : "simd128";
#else
  const char* vector = "avx2-fma";
#endif
  const char* exp = ca::kernels::fast_exp() ? vector : "scalar";
  std::printf("{\"isa\": \"%s\", \"exp\": \"%s\", \"shape\": [%d, %d, %d, %d], \"passes\": {",
              ca::kernels::isa_name(ca::kernels::active_isa()), exp, B, T, D, H);
  for (std::size_t i = 0; i < passes.size(); ++i) {
    std::vector<double>& t = passes[i].times;
    std::sort(t.begin(), t.end());
    std::printf("%s\"%s\": [%.4f, %.4f, %.4f]", i ? ", " : "", passes[i].name, t.front(),
                t[t.size() / 2], passes[i].first);
  }
  std::printf("}");
  if (threads > 1) {  // "pass": {"1": [wall min, median, CPU min, median], "N": [...]}
    std::printf(", \"threads\": {");
    for (std::size_t i = 0; i < passes.size(); ++i) {
      std::printf("%s\"%s\": {", i ? ", " : "", passes[i].name);
      for (int n = 0; n < 2; ++n) {
        const auto [wmin, wmed] = min_median(wall[n][i]);
        const auto [cmin, cmed] = min_median(cpu[n][i]);
        std::printf("%s\"%d\": [%.4f, %.4f, %.4f, %.4f]", n ? ", " : "", n ? threads : 1, wmin,
                    wmed, cmin, cmed);
      }
      const auto [smin, smed] = min_median(serial[i]);
      const auto [imin, imed] = min_median(ideal[i]);
      const auto [kmin, kmed] = min_median(wake[i]);
      std::printf(", \"serial\": [%.4f, %.4f], \"ideal\": [%.4f, %.4f], \"wake\": [%.4f, %.4f]}",
                  smin, smed, imin, imed, kmin, kmed);
    }
    std::printf("}");
  }
  std::printf("}\n");
  return 0;
}
