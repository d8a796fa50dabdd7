// libFuzzer: a configuration built from the bytes (any float32 inputs, seeds, probabilities,
// tokens), resolved, written as JSON and read back must be the same configuration, bit for bit.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "config_json.hpp"

namespace {

void check(bool ok, const char* what, const std::string& json) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_roundtrip: %s\n%s\n", what, json.c_str());
    std::abort();
  }
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  ca::Config c;
  const int T = in.ConsumeIntegralInRange(1, 8), d = in.ConsumeIntegralInRange(1, 8);
  if (in.ConsumeBool()) {
    c.randn = ca::RandnInputs{T, d, in.ConsumeIntegral<std::uint64_t>()};
  } else {
    std::vector<float> x(static_cast<std::size_t>(T) * d);
    for (float& v : x) {
      const std::uint32_t bits = in.ConsumeIntegral<std::uint32_t>();
      std::memcpy(&v, &bits, sizeof v);
      if (!std::isfinite(v)) v = 0.0f;
    }
    c.inputs = ca::Tensor({T, d}, std::move(x));
  }
  if (in.ConsumeBool()) {
    for (int i = 0; i < T; ++i) c.tokens.push_back(in.ConsumeRandomLengthString(12));
  }
  c.d_out = in.ConsumeIntegralInRange(1, 1024);
  c.qkv_bias = in.ConsumeBool();
  c.scale = in.ConsumeBool();
  c.seed_weights = in.ConsumeIntegral<std::uint64_t>();
  c.seed_dropout = in.ConsumeIntegral<std::uint64_t>();
  c.seed_class = in.ConsumeIntegral<std::uint64_t>();
  // Any double in [0, 1]: its bits, reduced, so that every representable probability can occur.
  const auto probability = [&in] {
    double p = in.ConsumeProbability<double>();
    if (in.ConsumeBool()) p = std::ldexp(p, -in.ConsumeIntegralInRange(0, 1074));
    return p;
  };
  c.dropout = probability();
  c.class_dropout = probability();
  c.context_length = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange(T, 1024);
  c.rng = in.ConsumeBool() ? ca::DropoutRng::Mkl : ca::DropoutRng::Default;
  c.train = in.ConsumeBool();
  if (!ca::validate(c).empty()) return 0;  // e.g. a token that is not UTF-8

  const ca::Config r = ca::resolve(c);
  const std::string json = ca::config_to_json(r);
  const ca::ParsedConfig back = ca::parse_config(json);
  check(back.error.empty(), ("read back: " + back.error).c_str(), json);
  const ca::Config b = ca::resolve(back.config);
  check(ca::config_to_json(b) == json, "written twice differently", json);
  check(b.randn.has_value() == r.randn.has_value(), "randn", json);
  if (r.randn) {
    check(b.randn->rows == r.randn->rows && b.randn->cols == r.randn->cols &&
              b.randn->seed == r.randn->seed,
          "randn", json);
  } else {
    check(b.inputs.shape == r.inputs.shape, "inputs shape", json);
    check(std::memcmp(b.inputs.data.data(), r.inputs.data.data(), 4 * r.inputs.numel()) == 0,
          "inputs bits", json);
  }
  check(b.tokens == r.tokens, "tokens", json);
  check(b.d_out == r.d_out && b.qkv_bias == r.qkv_bias && b.scale == r.scale, "flags", json);
  check(b.seed_weights == r.seed_weights && b.seed_dropout == r.seed_dropout &&
            b.seed_class == r.seed_class,
        "seeds", json);
  check(same_bits(b.dropout, r.dropout) && same_bits(b.class_dropout, r.class_dropout),
        "probabilities", json);
  check(b.context_length == r.context_length && b.rng == r.rng && b.train == r.train, "rest", json);
  return 0;
}
