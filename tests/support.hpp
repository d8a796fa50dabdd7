// Shared helpers of the native tests.
#pragma once

#include <atomic>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

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

inline bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

}  // namespace test
