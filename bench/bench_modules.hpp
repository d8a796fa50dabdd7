// The modules bench/compare.sh times, shared by the native program (compare_native.cpp) and
// the WASM module's bench entry (src/wasm/bench_bindings.cpp): the book's CausalAttention and
// MultiHeadAttention in eval mode, seeded like the PyTorch side (torch.manual_seed(123), the
// module, then x = torch.randn(B, T, d)), so all sides compute the same numbers.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "nn.hpp"
#include "walkthrough.hpp"

namespace ca_bench {

// One (module, shape): built once, forward run many times.
class Workload {
 public:
  // module: "causal" or "mha"; x is (B, T, d), d_in = d_out = d, H heads (mha only).
  Workload(const std::string& module, int B, int T, int d, int H) : gen_(123) {
    if (module == "causal") {
      causal_ = std::make_unique<ca::CausalAttention>(d, d, T, 0.0, false, gen_);
      causal_->training = false;
    } else if (module == "mha") {
      mha_ = std::make_unique<ca::MultiHeadAttention>(d, d, T, 0.0, H, false, gen_);
      mha_->training = false;
    } else {
      return;
    }
    x_ = ca::randn({B, T, d}, gen_);
  }
  bool ok() const { return !x_.data.empty(); }
  // One forward; returns the sum of the output (a check that every side computes the same).
  double run() {
    y_ = causal_ ? causal_->forward(x_, gen_) : mha_->forward(x_, gen_);
    double sum = 0;
    for (float v : y_.data) sum += v;
    return sum;
  }
  // The last output's bits in 52 bits (a double holds them exactly, also in JS): the sum of
  // bits(y[i]) * (2 i + 1) modulo 2^64, as compare.py computes it for PyTorch's output.
  double bits() const {
    std::uint64_t h = 0;
    for (std::size_t i = 0; i < y_.data.size(); ++i) {
      std::uint32_t u;
      std::memcpy(&u, &y_.data[i], 4);
      h += std::uint64_t(u) * (2 * std::uint64_t(i) + 1);
    }
    return double(h & ((std::uint64_t(1) << 52) - 1));
  }
  const ca::Tensor& output() const { return y_; }

 private:
  ca::Generator gen_;
  ca::Tensor x_, y_;
  std::unique_ptr<ca::CausalAttention> causal_;
  std::unique_ptr<ca::MultiHeadAttention> mha_;
};

// The walkthrough of the book's example (every stage), as the page computes it.
inline std::size_t walkthrough() { return ca::run_walkthrough(ca::Config{}).stages.size(); }

}  // namespace ca_bench
