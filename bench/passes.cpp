// Where a forward's time goes, pass by pass, on the native core or in WASM (the same file
// built as build/native/bench/ca_passes and build/wasm/ca-passes.js): MultiHeadAttention's
// passes as nn.cpp runs them, each timed alone over its whole (B, T, D, H) workload.
//   ca_passes B T D H [ROUNDS [ISA]]     node build/wasm/ca-passes.js B T D H [ROUNDS]
// H = 1 is CausalAttention's head (hd = D). Prints one JSON line: per pass the minimum and
// median milliseconds of CPU time (the process's: on a shared machine wall time counts the
// other processes' turns) over ROUNDS (default 7) rounds, one thread. bench/passes.js runs both
// sides interleaved and prints the ratios.
//   alloc    the (B, T, D) tensors a forward allocates (q, k, v, context, output), zero-filled
//   proj     the three projections (x @ W^T), into kept buffers
//   scores   q_bh @ k_bh^T per (batch, head), the lower triangle (gemm_nt LowerOut)
//   softmax  the masked softmax per (batch, head) (causal_softmax_forward)
//   exp      its exponentials alone (kernels::exp_shifted over each row's triangle)
//   context  weights @ v_bh per (batch, head) (gemm LowerK)
//   out      out_proj (with bias; MultiHeadAttention only)
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s B T D H [ROUNDS]\n", argv[0]);
    return 2;
  }
  const int B = std::atoi(argv[1]), T = std::atoi(argv[2]), D = std::atoi(argv[3]),
            H = std::atoi(argv[4]), rounds = argc > 5 ? std::atoi(argv[5]) : 7, hd = D / H;
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
      scores(std::size_t(T) * T), weights(scores.size());
  std::vector<unsigned char> full(T);
  const ca::ConstMatrixMap xm(x.data.data(), rows, D);
  const float divisor = ca::score_divisor(hd, true);
  const auto at = [&](int bh) { return std::size_t(bh / H) * T * D + std::size_t(bh % H) * hd; };

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
       [&] {
         for (float* out : {q.data(), k.data(), v.data()})
           ca::linear_forward(ca::MatrixMap(out, rows, D), xm, mha.W_query.weight.matrix(),
                              nullptr);
       },
       {}},
      {"scores",
       [&] {
         for (int bh = 0; bh < B * H; ++bh)
           ca::kernels::gemm_nt(T, T, hd, q.data() + at(bh), D, k.data() + at(bh), D, scores.data(),
                                T, ca::kernels::Tri::LowerOut);
       },
       {}},
      {"softmax",
       [&] {
         for (int bh = 0; bh < B * H; ++bh)
           ca::causal_softmax_forward(weights.data(), T, scores.data(), T, T, divisor, full.data());
       },
       {}},
      {"exp",
       [&] {
         for (int bh = 0; bh < B * H; ++bh)
           for (int i = 0; i < T; ++i)
             ca::kernels::exp_shifted(weights.data() + std::size_t(i) * T, i + 1, 0.0f);
       },
       {}},
      {"context",
       [&] {
         for (int bh = 0; bh < B * H; ++bh)
           ca::kernels::gemm(T, hd, T, weights.data(), T, v.data() + at(bh), D, ctx.data() + at(bh),
                             D, ca::kernels::Tri::LowerK);
       },
       {}},
      {"out",
       [&] {
         if (H > 1)
           ca::linear_forward(ca::MatrixMap(y.data(), rows, D),
                              ca::ConstMatrixMap(ctx.data(), rows, D), mha.out_proj.weight.matrix(),
                              mha.out_proj.bias->data.data());
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
  for (int r = 0; r < rounds + 1; ++r)
    for (Pass& p : passes) {
      if (std::string(p.name) == "context")
        ca::causal_softmax_forward(weights.data(), T, scores.data(), T, T, divisor, full.data());
      const double t = ms(p.run);
      if (r > 0)
        p.times.push_back(t);
      else
        p.first = t;  // round 0 warms up
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
  std::printf("}}\n");
  return 0;
}
