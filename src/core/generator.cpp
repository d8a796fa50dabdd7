// Each function names the PyTorch 1.13 kernel it reproduces (aten/src/ATen/native/cpu/).
#include "generator.hpp"

#include <algorithm>
#include <cmath>

#include "cephes.hpp"
#include "fma.hpp"

namespace ca {
namespace {

constexpr double kPi = 3.14159265358979323846;

// at::uniform_real_distribution<float>: 24 random bits of one 32-bit output, then
// x * (to - from) + from in float32. PyTorch's AVX2 kernels (and ARM builds) compile that
// into one fused multiply-add, so nn.Linear's weights are bit-exact only with fma.
float uniform_float(Generator& gen, float from, float to) {
  const float x = static_cast<float>(gen.random() & 0xFFFFFFu) * (1.0f / 16777216.0f);
  return ca::fma(x, to - from, from);
}

// at::uniform_real_distribution<double>: 53 random bits of one 64-bit output.
double uniform_double(Generator& gen) {
  return static_cast<double>(gen.random64() & ((std::uint64_t{1} << 53) - 1)) * 0x1p-53;
}

// normal_fill_16_AVX2: Box-Muller on 8 pairs (data[j], data[j + 8]) of uniforms, in float32
// with avx_mathfun's log and sincos (PyTorch's x86-64 build dispatches here on AVX2 CPUs).
void normal_fill_16(float* data) {
  const float two_pi = static_cast<float>(2.0 * kPi);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] for the log
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes::logf(u1));
    float sin_theta, cos_theta;
    cephes::sincosf(two_pi * u2, sin_theta, cos_theta);
    data[j] = radius * cos_theta;
    data[j + 8] = radius * sin_theta;
  }
}

// Long fills go block by block, each block a call of its own (noinline): V8 runs a wasm
// function's call to its end in the code it started in, so a single call over a GPT-2-size
// tensor ran in its baseline (Liftoff) code throughout. A multiple of 16 (normal_fill_16).
constexpr std::size_t kBlock = 4096;

__attribute__((noinline)) void uniform_block(float* d, std::size_t n, Generator& gen, float from,
                                             float to) {
  for (std::size_t i = 0; i < n; ++i) d[i] = uniform_float(gen, from, to);
}

// normal_fill_16 over `groups` consecutive blocks of 16.
__attribute__((noinline)) void normal_block(float* d, std::size_t groups) {
  for (std::size_t g = 0; g < groups; ++g) normal_fill_16(d + 16 * g);
}

// at::normal_distribution<double>: pairs in double, the sine half cached in the generator.
double normal_double(Generator& gen) {
  std::optional<double>& cached = gen.cached_normal();
  if (cached) {
    const double r = *cached;
    cached.reset();
    return r;
  }
  const double u1 = uniform_double(gen);
  const double u2 = uniform_double(gen);
  const double radius = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * kPi * u1;
  cached = radius * std::sin(theta);
  return radius * std::cos(theta);
}

}  // namespace

std::uint32_t Mt19937::operator()() {
  const int i = index_;
  if (seeded_ < kN) seed_through(i + kM < kN ? i + kM : kN - 1);
  const int next = i + 1 < kN ? i + 1 : 0;
  const int far = i + kM < kN ? i + kM : i + kM - kN;
  const std::uint32_t y = (state_[i] & 0x80000000u) | (state_[next] & 0x7fffffffu);
  std::uint32_t x = state_[far] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
  state_[i] = x;
  index_ = next;
  x ^= x >> 11;  // tempering
  x ^= (x << 7) & 0x9d2c5680u;
  x ^= (x << 15) & 0xefc60000u;
  return x ^ (x >> 18);
}

void Mt19937::seed_through(int last) {
  for (; seeded_ <= last; ++seeded_) {
    const std::uint32_t prev = state_[seeded_ - 1];
    state_[seeded_] = 1812433253u * (prev ^ (prev >> 30)) + static_cast<std::uint32_t>(seeded_);
  }
}

// uniform_kernel: the bounds are cast to float32 before anything else.
void uniform_(Tensor& t, double from, double to, Generator& gen) {
  const float f = static_cast<float>(from);
  const float l = static_cast<float>(to);
  float* d = t.data.data();
  for (std::size_t i = 0, n = t.numel(); i < n; i += kBlock)
    uniform_block(d + i, std::min(kBlock, n - i), gen, f, l);
}

// normal_kernel: numel >= 16 fills every element with a uniform first, transforms whole
// blocks of 16, then redraws and transforms the last 16 if numel % 16 != 0 (normal_fill);
// smaller tensors draw element by element in double.
void normal_(Tensor& t, Generator& gen) {
  const std::size_t n = t.numel();
  float* d = t.data.data();
  if (n >= 16) {
    // Block by block: each block's uniforms, then its whole 16s (they draw nothing, so the
    // draws come in the same order as all uniforms first).
    for (std::size_t i = 0; i < n; i += kBlock) {
      const std::size_t len = std::min(kBlock, n - i);
      uniform_block(d + i, len, gen, 0.0f, 1.0f);
      normal_block(d + i, len / 16);
    }
    if (n % 16 != 0) {
      float* tail = d + n - 16;
      for (std::size_t i = 0; i < 16; ++i) tail[i] = uniform_float(gen, 0.0f, 1.0f);
      normal_fill_16(tail);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<float>(normal_double(gen));
  }
}

Tensor randn(const std::vector<int>& shape, Generator& gen) {
  Tensor t(shape);
  normal_(t, gen);
  return t;
}

void bernoulli_(Tensor& t, double p, Generator& gen, DropoutRng rng) {
  if (rng == DropoutRng::Default) {
    // bernoulli_scalar_kernel_default: one 53-bit uniform per element.
    for (float& v : t.data) v = uniform_double(gen) < p ? 1.0f : 0.0f;
    return;
  }
  // bernoulli_scalar_kernel with MKL: one 32-bit draw seeds an MCG31m1 stream
  // (VSL_BRNG_MCG31, viRngBernoulli ICDF). Skip-ahead per thread gives the same sequence.
  constexpr std::uint64_t kModulus = 2147483647;  // 2^31 - 1
  constexpr std::uint64_t kMultiplier = 1132489760;
  std::uint64_t x = gen.random() % kModulus;
  if (x == 0) x = 1;
  for (float& v : t.data) {
    v = static_cast<double>(x) / static_cast<double>(kModulus) < p ? 1.0f : 0.0f;
    x = (x * kMultiplier) % kModulus;
  }
}

}  // namespace ca
