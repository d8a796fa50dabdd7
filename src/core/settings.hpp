// Every configuration key (a "setting") in one table: its type, range, default, group and
// label (its help, a display text, is src/texts.json's: src/cli/texts.hpp). Config's defaults,
// the JSON reader's ranges, the CLI's flags and --list-settings, and the JS API's api.settings
// all read it; the book's defaults live here only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string_view>
#include <type_traits>

#include "json.hpp"

namespace ca {

// Sizes beyond these are refused as absurd for a teaching demo (memory grows as T^2).
constexpr int kMaxTokens = 1024;
constexpr int kMaxDim = 1024;
constexpr std::size_t kMaxTokenLength = 100;
constexpr int kMaxHeads = 128;
// MultiHeadAttentionWrapper's output is (2, T, num_heads * d_out): kept to what a page can hold.
constexpr int kMaxWrapperWidth = 16384;

// How a setting's JSON value is read (config_json.cpp) and what a form shows for it.
enum class SettingType {
  Inputs,       // T rows of d_in numbers, or {"randn": [T, d_in], "seed": S}
  Strings,      // one label per token
  Integer,      // an integer in [min, max]
  Seed,         // a torch.manual_seed argument in [min, max] = [-2^63, 2^64 - 1]
  Probability,  // a number in [min, max] = [0, 1]
  Boolean,
  Choice,  // one of `choices`
};

struct SettingInfo {
  const char* key;  // the JSON key, the JS key, the CLI's --key-with-dashes
  SettingType type;
  std::int64_t min;     // Integer, Seed, Probability: the accepted range, both ends included
  std::uint64_t max;    // (query_token and context_length are bounded by T as well)
  double value;         // Config's default: a number, 1 for true, a Choice's index
  bool derived;         // the default follows the inputs: resolve() fills it in
  bool compact;         // among the few the widget offers with controls="compact"
  const char* choices;  // Choice: one line per option, "value: what it means"
  const char* group;    // the heading the page's form puts it under
  const char* label;
};

constexpr std::int64_t kSeedMin = std::numeric_limits<std::int64_t>::min();
constexpr std::uint64_t kSeedMax = std::numeric_limits<std::uint64_t>::max();

namespace settings_detail {
using T = SettingType;
constexpr const char* kInputs = "Inputs";
constexpr const char* kSimple = "§3.3–3.4 without and with trainable weights";
constexpr const char* kAttention = "Attention (SelfAttention_v2)";
constexpr const char* kDropout = "Dropout";
constexpr const char* kClass = "The class (CausalAttention)";
}  // namespace settings_detail

// In the order of config_to_json's keys (and of src/texts.json's "help"). Fields: key, type,
// min, max, value, derived, compact, choices, group, label.
inline constexpr SettingInfo kSettings[] = {
    {"inputs", settings_detail::T::Inputs, 0, 0, 0, false, false, "", settings_detail::kInputs,
     "inputs"},
    {"tokens", settings_detail::T::Strings, 0, 0, 0, true, false, "", settings_detail::kInputs,
     "tokens"},
    {"d_out", settings_detail::T::Integer, 1, kMaxDim, 2, false, true, "",
     settings_detail::kAttention, "d_out"},
    {"query_token", settings_detail::T::Integer, 0, kMaxTokens - 1, -1, true, false, "",
     settings_detail::kSimple, "query_token"},
    {"seed_v1", settings_detail::T::Seed, kSeedMin, kSeedMax, 123, false, false, "",
     settings_detail::kSimple, "seed_v1"},
    {"num_heads", settings_detail::T::Integer, 1, kMaxHeads, 2, false, false, "",
     settings_detail::kClass, "num_heads (§3.6)"},
    {"qkv_bias", settings_detail::T::Boolean, 0, 1, 0, false, false, "",
     settings_detail::kAttention, "qkv_bias (nn.Linear with bias)"},
    {"scale", settings_detail::T::Boolean, 0, 1, 1, false, false, "", settings_detail::kAttention,
     "scale: divide scores by √d_k"},
    {"seed_weights", settings_detail::T::Seed, kSeedMin, kSeedMax, 789, false, false, "",
     settings_detail::kAttention, "seed_weights"},
    {"seed_dropout", settings_detail::T::Seed, kSeedMin, kSeedMax, 123, false, false, "",
     settings_detail::kDropout, "seed_dropout"},
    {"dropout", settings_detail::T::Probability, 0, 1, 0.5, false, true, "",
     settings_detail::kDropout, "dropout p"},
    {"seed_class", settings_detail::T::Seed, kSeedMin, kSeedMax, 123, false, false, "",
     settings_detail::kClass, "seed_class"},
    {"class_dropout", settings_detail::T::Probability, 0, 1, 0, false, false, "",
     settings_detail::kClass, "class_dropout"},
    {"context_length", settings_detail::T::Integer, 1, kMaxTokens, 0, true, false, "",
     settings_detail::kClass, "context_length"},
    {"rng", settings_detail::T::Choice, 0, 0, 0, false, true,
     "default: the book; PyTorch 2.7+ on any CPU, Apple silicon, ARM, builds without MKL\n"
     "mkl: x86 Linux/Windows/Colab MKL builds, PyTorch 0.4.1–2.6",
     settings_detail::kDropout, "generator"},
    {"train", settings_detail::T::Boolean, 0, 1, 1, false, true, "", settings_detail::kDropout,
     "train mode (off = .eval(): no dropout)"},
};

// The row of that key. A key missing from the table aborts, and does not compile where the
// index is needed at compile time (Config's defaults).
constexpr std::size_t setting_index(std::string_view key) {
  for (std::size_t i = 0; i < std::size(kSettings); ++i) {
    if (key == kSettings[i].key) return i;
  }
  std::abort();  // not a throw: the WebAssembly module links no exception machinery
}
constexpr const SettingInfo& setting(std::string_view key) { return kSettings[setting_index(key)]; }

// Row I's default as a T, a compile-time constant: Config{} copies numbers, it searches nothing.
template <typename T>
constexpr T default_as(double value) {
  if constexpr (std::is_floating_point_v<T>) {
    return value;
  } else {
    return static_cast<T>(static_cast<std::int64_t>(value));
  }
}
template <typename T, std::size_t I>
constexpr T kDefault = default_as<T>(kSettings[I].value);

const char* to_string(SettingType type);

// Option `index` of a Choice setting (one per line of its `choices`, "value: what it means"),
// its value and the whole line as a label; both empty past the last option.
struct Choice {
  std::string_view value, label;
};
Choice choice(const SettingInfo& setting, std::size_t index);

// {"settings": [{key, type, min, max, default, derived, compact, choices: [{value, label}],
// group, order, label}]} (ca::with_texts adds each "help" last): min and max null where the
// type has no range, default the book's value
// resolved (query_token 1, context_length 6, the six tokens).
json::Value settings_json();

}  // namespace ca
