#include "presets.hpp"

namespace ca {
namespace {

json::Value object(std::vector<std::pair<std::string, json::Value>> members) {
  json::Value v;
  v.kind = json::Value::Kind::Object;
  v.members = std::move(members);
  return v;
}

json::Value book() { return object({}); }

// {"inputs": {"randn": [1024, 768], "seed": 123}, "d_out": 768, "num_heads": 12,
//  "context_length": 1024}
json::Value gpt2() {
  using json::make_number;
  json::Value size;
  size.kind = json::Value::Kind::Array;
  size.items = {make_number(1024), make_number(768)};
  return object({{"inputs", object({{"randn", size}, {"seed", make_number(123)}})},
                 {"d_out", make_number(768)},
                 {"num_heads", make_number(12)},
                 {"context_length", make_number(1024)}});
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = {
      {"book", "The book's six tokens and every stage of chapter 3", book, ""},
      // Exercise 3.3: the smallest GPT-2's attention, 12 heads of 64 over 768 features and a
      // context of 1024 tokens. Its (2, 12, 1024, 1024) weights are 100 MB each: only
      // MultiHeadAttention runs unless other stages are asked for.
      {"gpt2",
       "Exercise 3.3: MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12) on randn inputs", gpt2,
       "mha.W_query,mha.W_key,mha.W_value,mha.out_proj.weight,mha.out_proj.bias,mha.context_vecs"},
  };
  return table;
}

const Preset* find_preset(const std::string& name) {
  for (const Preset& p : presets()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

std::vector<std::string> preset_stages(const Preset& preset) {
  std::vector<std::string> ids;
  std::string id;
  for (const char* c = preset.stages;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!id.empty()) ids.push_back(id);
      id.clear();
      if (*c == '\0') break;
    } else {
      id += *c;
    }
  }
  return ids;
}

json::Value with_preset(const Preset& preset, const json::Value& doc) {
  json::Value merged = preset.config();
  for (const auto& [key, v] : doc.members) {
    bool replaced = false;
    for (auto& m : merged.members) {
      if (m.first == key) {
        m.second = v;
        replaced = true;
      }
    }
    if (!replaced) merged.members.emplace_back(key, v);
  }
  return merged;
}

}  // namespace ca
