// The Embind surface of the core: the binding block and small adapters, nothing else.
// Errors come back as {error: message}, never as a C++ exception crossing into JS (that
// leaks wasm stack on every throw); web/lib/api.js turns them into thrown Errors.
#include "config_json.hpp"
#include "walkthrough.hpp"

#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

using emscripten::val;

namespace {

// A copy of the tensor's data, owned by JS: never a live view of wasm memory.
val to_float32_array(const ca::Tensor& t) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(t.numel(), t.data.data()));
}

// {config: JSON text of the resolved configuration, stages: [{id, title, code, shape, data}]}
val run_json(const std::string& config_json) {
  val result = val::object();
  const ca::ParsedConfig parsed = ca::parse_config(config_json);
  if (!parsed.error.empty()) {
    result.set("error", parsed.error);
    return result;
  }
  const ca::Walkthrough w = ca::run_walkthrough(parsed.config);
  val stages = val::array();
  for (std::size_t i = 0; i < w.stages.size(); ++i) {
    const ca::Stage& s = w.stages[i];
    val shape = val::array();
    for (std::size_t d = 0; d < s.tensor.shape.size(); ++d) shape.set(d, s.tensor.shape[d]);
    val stage = val::object();
    stage.set("id", s.id);
    stage.set("title", s.title);
    stage.set("code", s.code);
    stage.set("shape", shape);
    stage.set("data", to_float32_array(s.tensor));
    stages.set(i, stage);
  }
  result.set("config", ca::config_to_json(w.config));
  result.set("stages", stages);
  return result;
}

val stage_ids() {
  val ids = val::array();
  const std::vector<std::string>& all = ca::all_stage_ids();
  for (std::size_t i = 0; i < all.size(); ++i) ids.set(i, all[i]);
  return ids;
}

std::size_t heap_in_use() { return mallinfo().uordblks; }

std::size_t memory_bytes() { return emscripten_get_heap_size(); }

}  // namespace

EMSCRIPTEN_BINDINGS(causal_attention) {
  emscripten::function("runJson", &run_json);
  emscripten::function("stageIds", &stage_ids);
  emscripten::function("heapInUse", &heap_in_use);
  emscripten::function("memoryBytes", &memory_bytes);
}
