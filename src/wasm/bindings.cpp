// The Embind surface of the core: the binding block and small adapters, nothing else.
// A JS configuration object is read field by field into the core's JSON document (no JSON
// text and no strtod in the module), so the JS API and the CLI share one reader and one
// set of messages. Errors come back as {error: message}, never as a C++ exception crossing
// into JS (that leaks wasm stack on every throw); web/lib/api.js throws them as Errors.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config_json.hpp"
#include "presets.hpp"
#include "json.hpp"
#include "stages.hpp"
#include "walkthrough.hpp"

using ca::json::Value;
using emscripten::val;

namespace {

constexpr int kMaxDepth = 8;  // a configuration nests 3 deep; cyclic objects stop here

Value from_js(const val& v, int depth) {
  Value out;
  const std::string type = v.typeOf().as<std::string>();
  if (type == "number") return ca::json::make_number(v.as<double>());
  if (type == "bigint") {  // exact integers beyond 2^53, e.g. seeds up to 2^64 - 1
    return ca::json::make_number(val::global("Number")(v).as<double>(),
                                 v.call<std::string>("toString"));
  }
  if (type == "string") return ca::json::make_string(v.as<std::string>());
  if (type == "boolean") return ca::json::make_bool(v.as<bool>());
  if (type != "object" || v.isNull() || depth > kMaxDepth) return out;  // null
  if (v.isArray()) {
    out.kind = Value::Kind::Array;
    const unsigned n = v["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) out.items.push_back(from_js(v[i], depth + 1));
    return out;
  }
  out.kind = Value::Kind::Object;
  const val keys = val::global("Object").call<val>("keys", v);
  const unsigned n = keys["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    const std::string key = keys[i].as<std::string>();
    const val item = v[key];
    if (!item.isUndefined()) out.members.emplace_back(key, from_js(item, depth + 1));
  }
  return out;
}

val to_js(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Bool:
      return val(v.boolean);
    case Value::Kind::Number:
      return val(v.number);
    case Value::Kind::String:
      return val(v.text);
    case Value::Kind::Array: {
      val a = val::array();
      for (std::size_t i = 0; i < v.items.size(); ++i) a.set(i, to_js(v.items[i]));
      return a;
    }
    case Value::Kind::Object: {
      val o = val::object();
      for (const auto& [key, item] : v.members) o.set(key, to_js(item));
      return o;
    }
    case Value::Kind::Null:
      break;
  }
  return val::null();
}

// A copy of the tensor's data, owned by JS: never a live view of wasm memory.
val to_float32_array(const ca::Tensor& t) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(t.numel(), t.data.data()));
}

// {config, stages: [{id, title, code, shape, data}]} or {error}. options: {stages: [ids],
// preset: name}; the preset's configuration lies under `config`, its stages are the default.
// Only the wanted stages cross into JS (a T = 1024 walkthrough is ~40 MB, a page shows a few).
val run(const val& config, const val& options) {
  val result = val::object();
  Value doc = from_js(config, 0);
  std::vector<std::string> wanted;
  const Value opts = from_js(options, 0);
  for (const auto& [key, v] : opts.members) {
    if (key == "preset") {
      const ca::Preset* p = v.kind == Value::Kind::String ? ca::find_preset(v.text) : nullptr;
      if (p == nullptr) {
        result.set("error", "unknown preset " + (v.kind == Value::Kind::String ? ca::json::quote(v.text) : std::string("(not a string)")));
        return result;
      }
      if (doc.kind == Value::Kind::Null) doc.kind = Value::Kind::Object;
      if (doc.kind == Value::Kind::Object) doc = ca::with_preset(*p, doc);
      if (wanted.empty()) wanted = ca::preset_stages(*p);
    }
  }
  bool none = false;
  for (const auto& [key, v] : opts.members) {
    if (key != "stages") continue;
    none = v.items.empty();  // {stages: []}: the resolved configuration, no stage
    wanted.clear();
    for (const Value& id : v.items) {
      if (id.kind != Value::Kind::String) {
        result.set("error", std::string("\"stages\" must be an array of stage ids"));
        return result;
      }
      wanted.push_back(id.text);
    }
  }
  const ca::ParsedConfig parsed = ca::read_config(doc);
  std::string error = parsed.error;
  if (error.empty()) error = ca::stages_error(parsed.config, wanted);
  if (!error.empty()) {
    result.set("error", error);
    return result;
  }
  if (none) {
    result.set("config", to_js(ca::config_to_value(ca::resolve(parsed.config))));
    result.set("stages", val::array());
    return result;
  }
  const ca::Walkthrough w = ca::run_walkthrough(parsed.config, wanted);
  val stages = val::array();
  for (std::size_t i = 0, out = 0; i < w.stages.size(); ++i) {
    const ca::Stage& s = w.stages[i];
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), s.id) == wanted.end()) continue;
    val shape = val::array();
    for (std::size_t d = 0; d < s.tensor.shape.size(); ++d) shape.set(d, s.tensor.shape[d]);
    val stage = val::object();
    stage.set("id", s.id);
    stage.set("title", s.title);
    stage.set("code", s.code);
    stage.set("shape", shape);
    stage.set("data", to_float32_array(s.tensor));
    stages.set(out++, stage);
  }
  result.set("config", to_js(ca::config_to_value(w.config)));
  result.set("stages", stages);
  return result;
}

val stage_ids() {
  val ids = val::array();
  const std::vector<std::string>& all = ca::all_stage_ids();
  for (std::size_t i = 0; i < all.size(); ++i) ids.set(i, all[i]);
  return ids;
}

// {sections, stages, limits, defaults}: every fact about each stage, from the core's table.
val stage_table() { return to_js(ca::stage_table_json()); }

// The row labels of n tokens when none are given: the book's words, then x7, x8, ...
val default_tokens(int n) {
  val out = val::array();
  const std::vector<std::string> tokens = ca::default_tokens(n < 0 ? 0 : n);
  for (std::size_t i = 0; i < tokens.size(); ++i) out.set(i, tokens[i]);
  return out;
}

// [{name, description, config, stages}] from the core's table.
val presets() {
  val out = val::array();
  int i = 0;
  for (const ca::Preset& p : ca::presets()) {
    val item = val::object();
    item.set("name", std::string(p.name));
    item.set("description", std::string(p.description));
    item.set("config", to_js(p.config()));
    val ids = val::array();
    const std::vector<std::string> stages = ca::preset_stages(p);
    for (std::size_t k = 0; k < stages.size(); ++k) ids.set(k, stages[k]);
    item.set("stages", ids);
    out.set(i++, item);
  }
  return out;
}

std::size_t heap_in_use() { return mallinfo().uordblks; }

std::size_t memory_bytes() { return emscripten_get_heap_size(); }

}  // namespace

EMSCRIPTEN_BINDINGS(causal_attention) {
  emscripten::function("run", &run);
  emscripten::function("stageIds", &stage_ids);
  emscripten::function("stageTable", &stage_table);
  emscripten::function("presets", &presets);
  emscripten::function("defaultTokens", &default_tokens);
  emscripten::function("heapInUse", &heap_in_use);
  emscripten::function("memoryBytes", &memory_bytes);
}
