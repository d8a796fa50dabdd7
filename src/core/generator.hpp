// PyTorch's CPU random number generator and the distributions the book's program uses,
// reproduced bit for bit (tests/golden/rng.json, made by PyTorch itself, checks every one).
#pragma once

#include <cstdint>
#include <optional>

#include "tensor.hpp"

namespace ca {

// Which implementation of the Bernoulli draw behind nn.Dropout a PyTorch build uses.
enum class DropoutRng {
  Default,  // builds without MKL, macOS, ARM, AMD: the book's printed numbers
  Mkl,      // Intel x86 Linux/Windows builds: the tables its readers on Linux printed
};

// std::mt19937's sequence, computed lazily: the walkthrough seeds ten times and draws a few
// dozen numbers after most, while seeding and twisting whole states cost 1,248 steps each time.
// Seeding is a recurrence, so word i's seed is computed when a draw first needs it (a draw of
// word i < 227 reads seed words i, i + 1 and i + 397); and the twist updates one word per draw,
// in the order a whole twist would (word i reads words i + 1 and i + 397 mod 624, new once past
// them), so every output equals std::mt19937's (tests/test_generator.cpp checks 10^5 of them).
class Mt19937 {
 public:
  explicit Mt19937(std::uint32_t s = 5489u) { seed(s); }
  void seed(std::uint32_t s) {
    state_[0] = s;
    seeded_ = 1;
    index_ = 0;
  }
  std::uint32_t operator()();

 private:
  static constexpr int kN = 624, kM = 397;
  void seed_through(int last);  // computes seed words seeded_..last
  std::uint32_t state_[kN];
  int seeded_ = 0;  // words of the seed computed so far
  int index_ = 0;   // the next word to twist and draw
};

class Generator {
 public:
  // PyTorch's default CPU seed (c10::default_rng_seed_val).
  static constexpr std::uint64_t kDefaultSeed = 67280421310721ULL;

  explicit Generator(std::uint64_t seed = kDefaultSeed) { manual_seed(seed); }

  // torch.manual_seed(seed): MT19937 seeded with the low 32 bits; the cached normal is dropped.
  void manual_seed(std::uint64_t seed) {
    engine_.seed(static_cast<std::uint32_t>(seed));
    next_normal_.reset();
  }
  std::uint32_t random() { return static_cast<std::uint32_t>(engine_()); }
  // Two outputs, the first in the high 32 bits.
  std::uint64_t random64() {
    const std::uint64_t hi = random();
    const std::uint64_t lo = random();
    return (hi << 32) | lo;
  }

  // Box-Muller makes normals in pairs; PyTorch's small path keeps the second for the next call.
  std::optional<double>& cached_normal() { return next_normal_; }

 private:
  Mt19937 engine_;
  std::optional<double> next_normal_;
};

// Python's int seed -> the uint64 torch.manual_seed sees (negatives as two's complement).
inline std::uint64_t seed_from_int(std::int64_t s) { return static_cast<std::uint64_t>(s); }

// tensor.uniform_(from, to) on float32, element by element in row-major order.
void uniform_(Tensor& t, double from, double to, Generator& gen);

// tensor.normal_() on float32: torch.randn. numel >= 16 and numel < 16 take different paths.
void normal_(Tensor& t, Generator& gen);

// torch.randn(shape) with the generator as it is.
Tensor randn(const std::vector<int>& shape, Generator& gen);

// tensor.bernoulli_(p) on float32 (1 with probability p), in either of PyTorch's CPU paths.
void bernoulli_(Tensor& t, double p, Generator& gen, DropoutRng rng);

}  // namespace ca
