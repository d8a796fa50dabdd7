// The modules bench/compare.sh times, shared by the native program (compare_native.cpp) and
// the WASM module's bench entry (src/wasm/bench_bindings.cpp): the book's CausalAttention and
// MultiHeadAttention in eval mode, seeded like the PyTorch side (torch.manual_seed(123), the
// module, then x = torch.randn(B, T, d)), so all sides compute the same numbers.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "bonus.hpp"
#include "nn.hpp"
#include "walkthrough.hpp"

namespace ca_bench {

// One (module, shape): built once, forward run many times.
class Workload {
 public:
  // module: "causal", "mha" or a bonus one (below); x is (B, T, d), d_in = d_out = d, H heads.
  Workload(const std::string& module, int B, int T, int d, int H) : gen_(123) {
    if (module == "causal") {
      causal_ = std::make_unique<ca::CausalAttention>(d, d, T, 0.0, false, gen_);
      causal_->training = false;
    } else if (module == "mha") {
      mha_ = std::make_unique<ca::MultiHeadAttention>(d, d, T, 0.0, H, false, gen_);
      mha_->training = false;
    } else if (!bonus(module, T, d, H)) {
      return;
    }
    x_ = ca::randn({B, T, d}, gen_);
  }
  bool ok() const { return !x_.data.empty(); }
  // One forward alone, its output kept: what every side times (PyTorch's: m(x)); the check,
  // sum(), is taken once after the timed runs.
  void forward() {
    if (wrapper_)  // Ch03_MHA_Wrapper: the heads concatenated, then its out_proj
      y_ = (*out_)(wrapper_->forward(x_, gen_));
    else if (flash_)  // qkv, the blocked pass, proj
      y_ = (*out_)(
          ca::flash_attention((*qkv_)(x_), heads_, ca::flash_block(x_.shape[1]), true).context_vec);
    else if (causal_)
      y_ = causal_->forward(x_, gen_);
    else
      y_ = out_ ? (*out_)(mha_->forward(x_, gen_)) : mha_->forward(x_, gen_);
  }
  // The sum of the last output, in order in a double (PyTorch's side: y.double().sum()).
  double sum() const {
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
  // The bonus notebook's (bonus.hpp), at its own initialisation, in eval mode: "wrapper"
  // (Ch03_MHA_Wrapper: H heads of d / H and out_proj), "qkv", "einsum", "flash" (the blocked
  // pass on MHAPyTorchScaledDotProduct's weights), "torchmha" (MHAPyTorchClass).
  bool bonus(const std::string& module, int T, int d, int H) {
    ca::Config c;
    c.context_length = T;
    c.num_heads = H;
    c.class_dropout = 0.0;
    c.train = false;
    heads_ = H;
    if (module == "wrapper") {
      wrapper_ = std::make_unique<ca::MultiHeadAttentionWrapper>(d, d / H, T, 0.0, H, false, gen_);
      for (ca::CausalAttention& h : wrapper_->heads) h.training = false;
      out_ = std::make_unique<ca::Linear>(d, d, true, gen_);
    } else if (module == "qkv" || module == "flash") {
      const ca::CombinedQKV m(d, d, false, gen_);
      if (module == "flash") {
        flash_ = true;
        qkv_ = std::make_unique<ca::Linear>(m.qkv);
        out_ = std::make_unique<ca::Linear>(m.proj);
      } else {
        mha_ = std::make_unique<ca::MultiHeadAttention>(m.as_mha(c));
      }
    } else if (module == "einsum") {
      mha_ = std::make_unique<ca::MultiHeadAttention>(ca::MHAEinsum(d, d, false, gen_).as_mha(c));
    } else if (module == "torchmha") {
      const ca::TorchMHA m(d, gen_);
      mha_ = std::make_unique<ca::MultiHeadAttention>(m.as_mha(c));
      out_ = std::make_unique<ca::Linear>(m.proj);
    } else {
      return false;
    }
    return true;
  }

  ca::Generator gen_;
  ca::Tensor x_, y_;
  std::unique_ptr<ca::CausalAttention> causal_;
  std::unique_ptr<ca::MultiHeadAttention> mha_;
  std::unique_ptr<ca::MultiHeadAttentionWrapper> wrapper_;
  std::unique_ptr<ca::Linear> qkv_, out_;  // flash's projection; an output projection after
  bool flash_ = false;
  int heads_ = 1;
};

// The walkthrough of the book's example (every stage), as the page computes it.
inline std::size_t walkthrough() { return ca::run_walkthrough(ca::Config{}).stages.size(); }

}  // namespace ca_bench
