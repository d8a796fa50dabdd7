// Shared helpers of the native tests.
#pragma once

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config_json.hpp"
#include "tensor.hpp"
#include "walkthrough.hpp"

namespace test {

// Bytes requested from operator new since the program started (tests/allocations.cpp).
extern std::atomic<unsigned long long> g_allocated;
inline unsigned long long allocated_bytes() { return g_allocated; }

// The most operator new held at once since the last call (tests/allocations.cpp), as in:
// reset_peak(); work(); peak_bytes() - what was held before.
extern std::atomic<long long> g_live, g_peak;
inline long long reset_peak() { return g_peak = g_live.load(); }
inline long long peak_bytes() { return g_peak; }

inline nlohmann::json load_json(const std::string& relative) {
  std::ifstream in(std::string(CA_SOURCE_DIR) + "/" + relative);
  if (!in) throw std::runtime_error("cannot open " + relative);
  return nlohmann::json::parse(in);
}

// A golden number: a JSON number, or "-inf" / "inf" / "nan".
inline float golden_value(const nlohmann::json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
    return s == "-inf" ? -std::numeric_limits<float>::infinity()
                       : std::numeric_limits<float>::infinity();
  }
  return static_cast<float>(v.get<double>());
}

// A golden array of numbers as floats.
inline std::vector<float> golden_values(const nlohmann::json& data) {
  std::vector<float> out;
  out.reserve(data.size());
  for (const nlohmann::json& v : data) out.push_back(golden_value(v));
  return out;
}

// The walkthrough for a configuration given as JSON text; fails the test if it is invalid.
inline ca::Walkthrough run(const std::string& config_json) {
  const ca::ParsedConfig p = ca::parse_config(config_json);
  if (!p.error.empty()) throw std::runtime_error(p.error);
  return ca::run_walkthrough(p.config);
}

inline const ca::Tensor& stage(const ca::Walkthrough& w, const std::string& id) {
  for (const ca::Stage& s : w.stages) {
    if (s.id() == id) return s.tensor;
  }
  throw std::runtime_error("no stage " + id);
}

// Bit for bit: equal bits (+0 and -0 differ), or both NaN (PyTorch keeps no NaN payload).
inline bool bits_equal(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

// A float as a failure shows it: enough digits to tell it from its neighbours, and its bits,
// "0.237900019 (0x3e739c0e)".
inline std::string show(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  char s[48];
  std::snprintf(s, sizeof s, "%.9g (0x%08x)", static_cast<double>(x), u);
  return s;
}

// CHECK_THAT(got, test::BitEqual(want)): one float; a failure shows both values' bits.
class BitEqualFloat : public Catch::MatcherBase<float> {
 public:
  explicit BitEqualFloat(float want) : want_(want) {}
  bool match(const float& got) const override {
    got_ = got;  // Catch describes the matcher after matching: the message shows got's bits
    return bits_equal(got, want_);
  }
  std::string describe() const override {
    return "has the bits of " + show(want_) + "; its own: " + show(got_);
  }

 private:
  float want_;
  mutable float got_ = 0;
};
inline BitEqualFloat BitEqual(float want) { return BitEqualFloat(want); }

// Values under test, named in failures: a stage's data, a kernel's output. Views: the values
// must outlive the check (they do inside one CHECK_THAT).
struct Floats {
  std::string name;
  const float* data;
  std::size_t size;
  std::optional<std::vector<int>> shape;  // a tensor's: compared, and a failing index per dimension
};
inline Floats floats(std::string name, const ca::Tensor& t) {
  return {std::move(name), t.data.data(), t.data.size(), t.shape};
}
inline Floats floats(std::string name, const std::vector<float>& v) {
  return {std::move(name), v.data(), v.size(), std::nullopt};
}

// CHECK_THAT(test::floats("attn_weights", t), test::BitEqual(want, "PyTorch's")): every value
// bit for bit; a failure names the values, counts the differences and shows the first one's
// index (per dimension too) with both values' bits.
class BitEqualFloats : public Catch::MatcherBase<Floats> {
 public:
  BitEqualFloats(std::vector<float> want, std::string whose,
                 std::optional<std::vector<int>> shape = std::nullopt)
      : want_(std::make_shared<const std::vector<float>>(std::move(want))),
        whose_(std::move(whose)),
        want_shape_(std::move(shape)) {}
  bool match(const Floats& got) const override {
    differ_ = 0;
    got_size_ = got.size;
    shape_differs_ = want_shape_ && got.shape && *want_shape_ != *got.shape;
    if (shape_differs_ || got.size != want_->size()) return false;
    for (std::size_t i = 0; i < got.size; ++i) {
      if (bits_equal(got.data[i], (*want_)[i])) continue;
      if (differ_++ == 0) {
        first_ = i;
        first_got_ = got.data[i];
        where_ = got.shape ? index_of(i, *got.shape) : "";
      }
    }
    return differ_ == 0;
  }
  std::string describe() const override {
    std::string s =
        "equals " + whose_ + " " + std::to_string(want_->size()) + " values bit for bit";
    if (shape_differs_) return s + ", but " + whose_ + " shape is " + dims(*want_shape_);
    if (got_size_ != want_->size()) return s + ": it has " + std::to_string(got_size_) + " values";
    if (differ_ == 0) return s;
    return s + ": " + std::to_string(differ_) + (differ_ == 1 ? " differs" : " differ") +
           ", the first at index " + std::to_string(first_) + where_ + ": " + show(first_got_) +
           ", " + whose_ + " " + show((*want_)[first_]);
  }

 private:
  static std::string index_of(std::size_t i, const std::vector<int>& shape) {
    if (shape.size() < 2) return "";
    std::vector<int> at(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
      at[d] = static_cast<int>(i % static_cast<std::size_t>(shape[d]));
      i /= static_cast<std::size_t>(shape[d]);
    }
    return " " + dims(at, ", ");
  }
  static std::string dims(const std::vector<int>& v, const char* sep = " x ") {
    std::string s = "[";
    for (std::size_t d = 0; d < v.size(); ++d) s += (d ? sep : "") + std::to_string(v[d]);
    return s + "]";
  }
  // Shared: Catch copies the matcher into its expression, and wants can be millions long.
  std::shared_ptr<const std::vector<float>> want_;
  std::string whose_;
  std::optional<std::vector<int>> want_shape_;
  mutable bool shape_differs_ = false;
  mutable std::size_t differ_ = 0, got_size_ = 0, first_ = 0;
  mutable float first_got_ = 0;
  mutable std::string where_;
};
inline BitEqualFloats BitEqual(std::vector<float> want, std::string whose = "the expected") {
  return BitEqualFloats(std::move(want), std::move(whose));
}
inline BitEqualFloats BitEqual(const ca::Tensor& want, std::string whose = "the expected") {
  return BitEqualFloats(want.data, std::move(whose), want.shape);
}

}  // namespace test

// How Catch prints the values under test: their name and shape, not thousands of numbers.
template <>
struct Catch::StringMaker<test::Floats> {
  static std::string convert(const test::Floats& f) {
    std::string s = f.name + " (";
    if (f.shape) {
      for (std::size_t d = 0; d < f.shape->size(); ++d)
        s += (d ? " x " : "") + std::to_string((*f.shape)[d]);
      return s + (f.shape->empty() ? "0-D)" : ")");
    }
    return s + std::to_string(f.size) + (f.size == 1 ? " value)" : " values)");
  }
};
