// The modules bench/compare.sh times, shared by the native program (compare_native.cpp) and
// the WASM module's bench entry (src/wasm/bench_bindings.cpp): the book's CausalAttention and
// MultiHeadAttention in eval mode, seeded like the PyTorch side (torch.manual_seed(123), the
// module, then x = torch.randn(B, T, d)), so all sides compute the same numbers.
#pragma once

#include <memory>
#include <string>

#include "nn.hpp"
#include "walkthrough.hpp"

// Set to 1 once src/core/nn.hpp has MultiHeadAttention (the chapter branch): the core's and
// the WASM module's MultiHeadAttention rows of bench/compare.sh then run.
#define CA_BENCH_MHA 0

namespace ca_bench {

// One (module, shape): built once, forward run many times.
class Workload {
 public:
  // module: "causal" or "mha"; x is (B, T, d), d_in = d_out = d, H heads (mha only).
  Workload(const std::string& module, int B, int T, int d, int H) : gen_(123) {
    if (module == "causal") {
      causal_ = std::make_unique<ca::CausalAttention>(d, d, T, 0.0, false, gen_);
      causal_->training = false;
#if CA_BENCH_MHA
    } else if (module == "mha") {
      mha_ = std::make_unique<ca::MultiHeadAttention>(d, d, T, 0.0, H, false, gen_);
#endif
    } else {
      (void)H;
      return;
    }
    x_ = ca::randn({B, T, d}, gen_);
  }
  bool ok() const { return !x_.data.empty(); }
  // One forward; returns the sum of the output (a check that every side computes the same).
  double run() {
#if CA_BENCH_MHA
    const ca::Tensor y = causal_ ? causal_->forward(x_, gen_) : mha_->forward(x_, gen_);
#else
    const ca::Tensor y = causal_->forward(x_, gen_);
#endif
    double sum = 0;
    for (float v : y.data) sum += v;
    return sum;
  }

 private:
  ca::Generator gen_;
  ca::Tensor x_;
  std::unique_ptr<ca::CausalAttention> causal_;
#if CA_BENCH_MHA
  std::unique_ptr<ca::MultiHeadAttention> mha_;
#endif
};

// The walkthrough of the book's example (every stage), as the page computes it.
inline std::size_t walkthrough() { return ca::run_walkthrough(ca::Config{}).stages.size(); }

}  // namespace ca_bench
