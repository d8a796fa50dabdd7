// The Embind surface of the core: the binding block and small adapters, nothing else.
// A JS configuration object is read field by field into the core's JSON document (no JSON
// text and no strtod in the module), so the JS API and the CLI share one reader and one
// set of messages. Errors come back as {error: message}, never as a C++ exception crossing
// into JS (that leaks wasm stack on every throw); web/lib/api.js throws them as Errors.
// web/lib/api.js first copies the caller's object into plain data (no getters, no proxies),
// so no JS exception can unwind these C++ frames either; and no code of the page runs while
// they are on the stack (issue 19: a throwing setter on Object.prototype.error or a throwing
// BigInt.prototype.toString unwound them, leaking wasm stack until every call failed): the
// objects made here have no prototype (api.js makes them ordinary), and the platform's
// functions are the ones looked up when the module started.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config.hpp"
#include "config_json.hpp"
#include "json.hpp"
#include "notebook.hpp"
#include "presets.hpp"
#include "settings.hpp"
#include "stages.hpp"
#include "text.hpp"
#include "walkthrough.hpp"

using ca::json::Value;
using emscripten::val;

namespace {

// The platform's functions, looked up once as the module starts (before a page can replace
// them): each is called on values it cannot run a page's code for.
struct Platform {
  val keys = val::global("Object")["keys"];      // own enumerable keys of a null-prototype copy
  val create = val::global("Object")["create"];  // create(null): setters on Object.prototype
  val number = val::global("Number");            // of a BigInt: exact, calls nothing
  val string = val::global("String");            // of a BigInt: its decimal, not its toString
  val is_view = val::global("ArrayBuffer")["isView"];
  val is_array = val::global("Array")["isArray"];  // val::isArray is instanceof global("Array")
  val big_int = val::global("BigInt");
  val float32_array = val::global("Float32Array");
};
const Platform& js() {
  static const Platform& p = *new Platform;  // never destroyed: no exit-time code
  return p;
}
const Platform& kStartup = js();  // looked up as the module starts

// %TypedArray%.prototype's set and length getter, each bound as the `this` of
// Function.prototype.call, so that set(view, source) and length(view) look nothing up when
// called (Embind's convertJSArrayToNumberVector calls view.set and reads .length, which a page
// can replace). Binding passes a val, which Embind accepts only once its own static
// initialisers ran, after this file's: stage_ids, api.js's first call, looks them up.
struct TypedArrays {
  val proto = val::global("Object")["getPrototypeOf"](val::global("Float64Array")["prototype"]);
  val call = val::global("Function")["prototype"]["call"];
  val set = call.call<val>("bind", proto["set"]);
  val length = call.call<val>(
      "bind", val::global("Object")["getOwnPropertyDescriptor"](proto, val("length"))["get"]);
};
const TypedArrays& typed() {
  static const TypedArrays& t = *new TypedArrays;  // never destroyed: no exit-time code
  return t;
}

// An object with no prototype: setting its keys runs no setter a page put on Object.prototype.
val new_object() { return js().create(val::null()); }

// Limits checked while converting, before anything is copied: no valid configuration comes
// near them, and a cyclic, deep or huge object stops here within milliseconds.
constexpr int kMaxDepth = 8;  // a configuration nests 3 deep: {inputs: [[x]]}
constexpr std::size_t kMaxItems = std::max(ca::kMaxTokens, ca::kMaxDim);  // per array / object
constexpr std::size_t kMaxNumbers =  // in rows of numbers (Float64Array, read in bulk)
    std::size_t{ca::kMaxTokens} * ca::kMaxDim;
constexpr std::size_t kMaxValues = 4 * ca::kMaxTokens + 64;  // other elements and keys in all
constexpr std::size_t kMaxStringBytes = ca::kMaxTokens * ca::kMaxTokenLength + 4096;

// A JS value read into the core's JSON document under the limits above. On failure `error`
// holds the problem and `where` the path to it ("tokens"[3]), built while unwinding.
class Reader {
 public:
  static std::string too_many(std::size_t n, const char* what) {
    return ca::cat({"has ", ca::decimal(n), " ", what, "; at most ", ca::decimal(kMaxItems),
                    " are supported"});
  }

  bool read(const val& v, int depth, Value& out) {
    const std::string type = v.typeOf().as<std::string>();
    if (type == "number") {
      out = ca::json::make_number(v.as<double>());
    } else if (type == "bigint") {  // exact integers beyond 2^53, e.g. seeds up to 2^64 - 1
      out = ca::json::make_number(js().number(v).as<double>(), js().string(v).as<std::string>());
    } else if (type == "string") {
      return string(v, out.text) && (out.kind = Value::Kind::String, true);
    } else if (type == "boolean") {
      out = ca::json::make_bool(v.as<bool>());
    } else if (type == "object" && !v.isNull()) {
      if (depth >= kMaxDepth) {
        return fail(cat("is nested too deeply: a configuration has at most ", kMaxDepth,
                        " levels (is the object cyclic?)"));
      }
      if (js().is_view(v).as<bool>()) return numbers(v, out);  // api.js makes only Float64Arrays
      return js().is_array(v).as<bool>() ? array(v, depth, out) : object(v, depth, out);
    }  // else null: undefined, symbols and functions too
    return true;
  }

  explicit Reader(const char* root = "the configuration") : root_(root) {}

  // The message for the value `root` failed on, or "".
  std::string message() const {
    return where_.empty() ? root_ + " " + error_ : where_ + " " + error_;
  }

 private:
  std::string root_, error_, where_;
  std::size_t values_ = 0, numbers_ = 0, string_bytes_ = 0;

  static std::string cat(const char* a, std::size_t n, const char* b) {
    return ca::cat({a, ca::decimal(n), b});
  }
  bool fail(std::string error) {
    error_ = std::move(error);
    return false;
  }
  bool count(std::size_t n, const char* what) {
    if (n > kMaxItems) return fail(too_many(n, what));
    values_ += n;
    if (values_ > kMaxValues) {
      return fail(
          cat("makes the configuration hold more than ", kMaxValues, " array elements and keys"));
    }
    return true;
  }
  // A UTF-16 string never has more code units than its UTF-8 bytes: checked before copying.
  bool string(const val& v, std::string& out) {
    const std::size_t units = v["length"].as<std::size_t>();
    if (units > kMaxStringBytes - string_bytes_ ||
        (out = v.as<std::string>()).size() > kMaxStringBytes - string_bytes_) {
      return fail(
          cat("makes the configuration's strings longer than ", kMaxStringBytes, " bytes in all"));
    }
    string_bytes_ += out.size();
    return true;
  }
  // A row of numbers that web/lib/api.js packed into a Float64Array: copied in one go.
  bool numbers(const val& v, Value& out) {
    out.kind = Value::Kind::Array;
    const std::size_t n = typed().length(v).as<std::size_t>();
    if (n > kMaxItems) return fail(too_many(n, "elements"));
    if ((numbers_ += n) > kMaxNumbers) {
      return fail(cat("makes the configuration hold more than ", kMaxNumbers, " numbers"));
    }
    std::vector<double> row(n);
    typed().set(val(emscripten::typed_memory_view(n, row.data())), v);
    for (const double x : row) out.items.push_back(ca::json::make_number(x));
    return true;
  }
  bool array(const val& v, int depth, Value& out) {
    out.kind = Value::Kind::Array;
    const std::size_t n = v["length"].as<std::size_t>();
    if (!count(n, "elements")) return false;
    out.items.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (!read(v[i], depth + 1, out.items[i])) return within("[" + ca::decimal(i) + "]");
    }
    return true;
  }
  bool object(const val& v, int depth, Value& out) {
    out.kind = Value::Kind::Object;
    const val keys = js().keys(v);
    const std::size_t n = keys["length"].as<std::size_t>();
    if (n > kMaxItems) return fail(cat("has more than ", kMaxItems, " keys"));
    if (!count(n, "keys")) return false;
    for (std::size_t i = 0; i < n; ++i) {
      std::string key;
      if (!string(keys[i], key)) return false;
      const val item = v[key];
      if (item.isUndefined()) continue;  // {d_out: undefined} leaves the default
      out.members.emplace_back(key, Value{});
      if (!read(item, depth + 1, out.members.back().second)) {
        return within(depth == 0 ? ca::json::quote(key) : "[" + ca::json::quote(key) + "]");
      }
    }
    return true;
  }
  bool within(const std::string& segment) {
    where_ = segment + where_;
    return false;
  }
};

// `exact`: a seed (or a setting's range or default), returned as a BigInt when a double cannot
// hold it (beyond 2^53).
val to_js(const Value& v, bool exact = false) {
  switch (v.kind) {
    case Value::Kind::Bool:
      return val(v.boolean);
    case Value::Kind::Number:
      if (exact && !v.text.empty() && !(v.number >= -0x1p53 && v.number <= 0x1p53)) {
        return js().big_int(v.text);
      }
      return val(v.number);
    case Value::Kind::String:
      return val(v.text);
    case Value::Kind::Array: {
      val a = val::array();
      for (std::size_t i = 0; i < v.items.size(); ++i) a.set(i, to_js(v.items[i]));
      return a;
    }
    case Value::Kind::Object: {
      val o = new_object();
      for (const auto& [key, item] : v.members) {
        const bool exact =
            key.rfind("seed", 0) == 0 || key == "min" || key == "max" || key == "default";
        o.set(key, to_js(item, exact));
      }
      return o;
    }
    case Value::Kind::Null:
      break;
  }
  return val::null();
}

// A copy of the tensor's data, owned by JS: never a live view of wasm memory.
val to_float32_array(const ca::Tensor& t) {
  return js().float32_array.new_(emscripten::typed_memory_view(t.numel(), t.data.data()));
}

// A stage as a JS object, keeping the strings every run sends again: the keys, each stage's id
// and title (the table's, made once) and its PyTorch line (reused while its text is unchanged;
// an edit changes one or two). Decoding them from UTF-8 for each stage of each run was a fifth
// of api.run({})'s time.
class StagesToJs {
 public:
  StagesToJs() : entries_(ca::stage_table().size()) {}
  // {id, title, code, shape, data} of one stage.
  val stage(const ca::Stage& s) {
    Entry& e = entries_[s.info - ca::stage_table().data()];  // the stage's row of the table
    if (e.id.isUndefined()) {
      e.id = val(std::string(s.id()));  // std::string: Embind reads a const char* as Latin-1
      e.title = val(std::string(s.title()));
    }
    val shape = val::array();
    for (std::size_t d = 0; d < s.tensor.shape.size(); ++d) shape.set(d, s.tensor.shape[d]);
    val out = new_object();
    out.set(id_, e.id);
    out.set(title_, e.title);
    if (s.code.size() > kMaxKept) {  // a typed-in T = 1024 input: not worth keeping a copy
      out.set(code_, s.code);
    } else {
      if (e.code_js.isUndefined() || e.code != s.code) {
        e.code = s.code;  // keeps its capacity: the heap in use stays flat across runs
        e.code_js = val(s.code);
      }
      out.set(code_, e.code_js);
    }
    out.set(shape_, shape);
    out.set(data_, to_float32_array(s.tensor));
    return out;
  }

 private:
  static constexpr std::size_t kMaxKept = 4096;
  struct Entry {
    val id = val::undefined(), title = val::undefined(), code_js = val::undefined();
    std::string code;
  };
  std::vector<Entry> entries_;
  const val id_ = val("id"), title_ = val("title"), code_ = val("code"), shape_ = val("shape"),
            data_ = val("data");
};

// The configuration read into doc: "" or the message. Not inlined: one copy of the reader.
[[gnu::noinline]] std::string read_js(const val& config, Value& doc) {
  Reader reader;
  return reader.read(config, 0, doc) ? std::string() : reader.message();
}

// The options of run() and cost(): {stages: [ids]} (none = true for an empty list), {preset:
// name}, which sets doc to the preset's configuration and wanted to its stages, {shard: [b0,
// b1, h0, h1]} and {weightHeads: n}, mha.attn_weights of the shard's first n heads alone (run()
// only: cost() counts the whole run). "" or the error.
std::string read_options(const val& options, Value& doc, std::vector<std::string>& wanted,
                         bool& none, ca::Shard& shard) {
  Value opts;
  Reader options_reader("the options");
  if (!options_reader.read(options, 0, opts)) return options_reader.message();
  if (opts.kind == Value::Kind::Null) opts.kind = Value::Kind::Object;  // run(config, null)
  if (opts.kind != Value::Kind::Object)
    return ca::cat({"the options must be an object (got ", ca::json::describe(opts.kind), ")"});
  for (const auto& [key, v] : opts.members) {
    if (key != "stages" && key != "preset" && key != "shard" && key != "weightHeads")
      return "unknown option " + ca::quoted(key) + " (options: stages, preset, shard, weightHeads)";
    if (key == "stages" && v.kind != Value::Kind::Array) {
      return ca::cat({"the option \"stages\" must be an array of stage ids (got ",
                      ca::json::describe(v.kind), ")"});
    }
  }
  for (const auto& [key, v] : opts.members) {
    if (key == "shard") {  // [b0, b1, h0, h1]: integers
      int* const ends[] = {&shard.b0, &shard.b1, &shard.h0, &shard.h1};
      bool ok = v.kind == Value::Kind::Array && v.items.size() == 4;
      for (std::size_t i = 0; ok && i < 4; ++i) {
        const double x = v.items[i].number;
        ok = v.items[i].kind == Value::Kind::Number && x >= 0 && x <= 1e6 && x == int(x);
        if (ok) *ends[i] = int(x);
      }
      if (!ok) return "the option \"shard\" must be [b0, b1, h0, h1], four integers";
    }
    if (key == "weightHeads") {  // 1 to the shard's heads: else 0, which shard_error refuses
      const double n = v.kind == Value::Kind::Number ? v.number : 0;
      shard.weight_heads = n >= 1 && n <= 1e6 && n == int(n) ? int(n) : 0;
    }
    if (key == "preset") {
      const ca::Preset* p = v.kind == Value::Kind::String ? ca::find_preset(v.text) : nullptr;
      if (p == nullptr)
        return "unknown preset " +
               (v.kind == Value::Kind::String ? ca::json::quote(v.text) : "(not a string)");
      if (doc.kind == Value::Kind::Null) doc.kind = Value::Kind::Object;
      if (doc.kind == Value::Kind::Object) doc = ca::with_preset(*p, doc);
      if (wanted.empty()) wanted = ca::preset_stages(*p);
    }
  }
  for (const auto& [key, v] : opts.members) {
    if (key != "stages") continue;
    none = v.items.empty();  // {stages: []}: the resolved configuration, no stage
    wanted.clear();
    for (const Value& id : v.items) {
      if (id.kind != Value::Kind::String) {
        return ca::cat({"the option \"stages\" must be an array of stage ids (got ",
                        ca::json::describe(id.kind), ")"});
      }
      wanted.push_back(id.text);
    }
  }
  return "";
}

// {config, stages: [{id, title, code, shape, data}]} or {error}. options: {stages: [ids],
// preset: name}; the preset's configuration lies under `config`, its stages are the default.
// Only the wanted stages cross into JS (a T = 1024 walkthrough is ~40 MB, a page shows a few).
val run(const val& config, const val& options) {
  val result = new_object();
  Value doc;
  Reader reader;
  if (!reader.read(config, 0, doc)) return result.set("error", reader.message()), result;
  std::vector<std::string> wanted;
  bool none = false;
  ca::Shard shard;
  if (std::string e = read_options(options, doc, wanted, none, shard); !e.empty())
    return result.set("error", e), result;
  const ca::ParsedConfig parsed = ca::read_config(doc);
  std::string error = parsed.error;
  if (error.empty()) error = ca::stages_error(parsed.config, wanted);
  if (error.empty()) error = ca::shard_error(parsed.config, shard);
  if (!error.empty()) {
    result.set("error", error);
    return result;
  }
  if (none) {
    result.set("config", to_js(ca::config_to_value(ca::resolve(parsed.config))));
    result.set("stages", val::array());
    return result;
  }
  const ca::Walkthrough w = ca::run_walkthrough(parsed.config, wanted, shard);
  static StagesToJs& to_js_stage = *new StagesToJs;  // never destroyed: no exit-time code
  val stages = val::array();                         // run_walkthrough kept only the wanted stages
  for (std::size_t i = 0; i < w.stages.size(); ++i) stages.set(i, to_js_stage.stage(w.stages[i]));
  result.set("config", to_js(ca::config_to_value(w.config)));
  result.set("stages", stages);
  return result;
}

// {text: the .ipynb of the configuration} or {error}.
val notebook(const val& config) {
  val result = new_object();
  Value doc;
  std::string error = read_js(config, doc);
  const ca::ParsedConfig parsed = error.empty() ? ca::read_config(doc) : ca::ParsedConfig{};
  if (error.empty()) error = parsed.error;
  if (error.empty()) return result.set("text", ca::notebook(parsed.config)), result;
  return result.set("error", error), result;
}

// v's n values into out when v is a Float32Array of n > 0 of them, else false.
bool read_floats(const val& v, std::size_t n, std::vector<float>& out) {
  if (!n || !js().is_view(v).as<bool>() || typed().length(v).as<std::size_t>() != n) return false;
  out.resize(n);
  typed().set(val(emscripten::typed_memory_view(n, out.data())), v);
  return true;
}

// Stage mha.context_vecs {id, title, code, shape, data} for rows (n, d_out) of the
// configuration's mha.context_vec by out_proj's weight (d_out, d_out) and bias (d_out), the
// stages a shard brought (ca::mha_out_proj: web/page/pool.js splits out_proj's rows over
// Workers), Float32Arrays each, or {error}.
val project(const val& config, const val& rows, const val& weight, const val& bias) {
  val result = new_object();
  Value doc;
  std::string error = read_js(config, doc);
  const ca::ParsedConfig parsed = error.empty() ? ca::read_config(doc) : ca::ParsedConfig{};
  if (error.empty()) error = parsed.error;
  if (error.empty()) error = ca::mha_error(parsed.config);
  const int d = parsed.config.d_out;
  const std::size_t n =
      error.empty() && js().is_view(rows).as<bool>() ? typed().length(rows).as<std::size_t>() : 0;
  ca::Tensor x, w, b;
  if (error.empty() &&
      (n % d || n > ca::kMaxTokens * std::size_t(2 * d) || !read_floats(rows, n, x.data) ||
       !read_floats(weight, std::size_t(d) * d, w.data) || !read_floats(bias, d, b.data)))
    error =
        "the rows, out_proj's weight and bias must be Float32Arrays of n * d_out (n <= 2 * T), "
        "d_out * d_out and d_out values";
  if (!error.empty()) return result.set("error", error), result;
  x.shape = {int(n / d), d};
  w.shape = {d, d};
  b.shape = {d};
  static StagesToJs& to_js_stage = *new StagesToJs;
  return result.set("stage", to_js_stage.stage(ca::mha_out_proj(
                                 parsed.config, x, ca::Linear(std::move(w), std::move(b))))),
         result;
}

// {bytes, work, multiply_adds} (ca::run_cost: the one cost model) of run(config, options), or
// {error}, without running.
val cost(const val& config, const val& options) {
  val result = new_object();
  Value doc;
  std::string error = read_js(config, doc);
  std::vector<std::string> wanted;
  bool none = false;
  ca::Shard shard;
  if (error.empty()) error = read_options(options, doc, wanted, none, shard);
  const ca::ParsedConfig parsed = error.empty() ? ca::read_config(doc) : ca::ParsedConfig{};
  if (error.empty()) error = parsed.error;
  for (const std::string& id : wanted)  // run()'s message; a run too big still has a cost
    if (error.empty() && ca::find_stage(id) == nullptr) error = "unknown stage \"" + id + "\"";
  if (!error.empty()) return result.set("error", error), result;
  const ca::RunCost c = none ? ca::RunCost{0, 0, 0} : ca::run_cost(parsed.config, wanted);
  result.set("bytes", static_cast<double>(c.bytes));
  result.set("work", c.work);
  result.set("multiply_adds", c.multiply_adds);
  return result;
}

val stage_ids() {
  typed();  // api.js's first call: the typed arrays' methods are looked up before any run
  val ids = val::array();
  const std::vector<std::string>& all = ca::all_stage_ids();
  for (std::size_t i = 0; i < all.size(); ++i) ids.set(i, all[i]);
  return ids;
}

// One of the core's tables as JS objects (one copy of the document's destructor for all).
val table(ca::json::Value (*document)()) { return to_js(document()); }

// {sections, stages, limits, defaults}: every fact about each stage, from the core's table.
val stage_table() { return table(ca::stage_table_json); }

// {settings: [{key, type, min, max, default, derived, compact, choices, group, label, help}]}.
val settings() { return table(ca::settings_json); }

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
    val item = new_object();
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

// The limits of Reader, for web/lib/api.js's copy of the caller's object.
val reader_limits() {
  val o = new_object();
  o.set("depth", kMaxDepth);
  o.set("items", kMaxItems);
  o.set("values", kMaxValues);
  o.set("numbers", kMaxNumbers);
  o.set("stringBytes", kMaxStringBytes);
  return o;
}

// The message for an array of n elements at `where`, too long to copy (web/lib/api.js).
std::string too_many_elements(const std::string& where, std::size_t n) {
  return where + " " + Reader::too_many(n, "elements");
}

std::size_t heap_in_use() { return mallinfo().uordblks; }

// The memory's size in bytes (a Worker reports it with each run: the page's progress line).
std::size_t memory_bytes() { return emscripten_get_heap_size(); }

}  // namespace

EMSCRIPTEN_BINDINGS(causal_attention) {
  emscripten::function("run", &run);
  emscripten::function("notebook", &notebook);
  emscripten::function("project", &project);
  emscripten::function("cost", &cost);
  emscripten::function("stageIds", &stage_ids);
  emscripten::function("stageTable", &stage_table);
  emscripten::function("presets", &presets);
  emscripten::function("settings", &settings);
  emscripten::function("defaultTokens", &default_tokens);
  emscripten::function("readerLimits", &reader_limits);
  emscripten::function("tooManyElements", &too_many_elements);
  emscripten::function("heapInUse", &heap_in_use);
  emscripten::function("memoryBytes", &memory_bytes);
}
