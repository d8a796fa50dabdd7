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

// The ids of options.stages (an array of strings), or none when options has no `stages`:
// then every stage is wanted.
bool wanted_ids(const val& options, std::vector<std::string>& ids) {
  if (options.isUndefined() || options.isNull()) return false;
  const val list = options["stages"];
  if (list.isUndefined() || !list.isArray()) return false;
  const unsigned n = list["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    if (list[i].typeOf().as<std::string>() == "string") ids.push_back(list[i].as<std::string>());
  }
  return true;
}

// {config, stages: [{id, title, code, shape, data}]} or {error}. With options.stages, only
// those stages cross into JS (a T = 1024 walkthrough is ~40 MB, the page shows a few MB).
val run(const val& config, const val& options) {
  val result = val::object();
  const ca::ParsedConfig parsed = ca::read_config(from_js(config, 0));
  if (!parsed.error.empty()) {
    result.set("error", parsed.error);
    return result;
  }
  const ca::Walkthrough w = ca::run_walkthrough(parsed.config);
  std::vector<std::string> ids;
  const bool some = wanted_ids(options, ids);
  val stages = val::array();
  for (std::size_t i = 0, out = 0; i < w.stages.size(); ++i) {
    const ca::Stage& s = w.stages[i];
    if (some && std::find(ids.begin(), ids.end(), s.id) == ids.end()) continue;
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

std::size_t heap_in_use() { return mallinfo().uordblks; }

std::size_t memory_bytes() { return emscripten_get_heap_size(); }

}  // namespace

EMSCRIPTEN_BINDINGS(causal_attention) {
  emscripten::function("run", &run);
  emscripten::function("stageIds", &stage_ids);
  emscripten::function("stageTable", &stage_table);
  emscripten::function("defaultTokens", &default_tokens);
  emscripten::function("heapInUse", &heap_in_use);
  emscripten::function("memoryBytes", &memory_bytes);
}
