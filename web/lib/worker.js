// The Worker's side of big configurations (GPT-2-size attention) off the main thread: the page
// (page/runner.js) starts causal-attention.js itself as a Worker (one file, same origin:
// nothing else is fetched, a strict CSP allows it), which runs the walkthrough here and
// transfers the stages' buffers back without a copy.
import { load } from './api.js';
import { glue } from './lazy.js';

/** True inside the Worker that causal-attention.js starts from itself. */
export var inWorker =
  typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope;

// out_proj's weight and bias, kept from the block that brought them (runHere): page/runner.js
// sends them once per Worker and settings.
var kept = {};

// The reply to msg, {result: {config, stages}, ms: its time, memory: wasm bytes} or {error}:
// api.run's of {config, options}, or of a block {config, project: rows, out_proj: {weight,
// bias}}, stage mha.context_vecs for those rows of mha.context_vec (result: {stages: [it]}: a
// pool's last step, page/pool.js). The page's main thread runs the same messages where no
// Worker does (page/runner.js).
export function runHere(api, msg) {
  var t0 = performance.now(),
    out;
  try {
    if (!msg.project) out = { result: api.run(msg.config, msg.options) };
    else {
      kept = msg.out_proj || kept; // the block's, or those kept for its settings
      out = { result: { stages: [api.project(msg.config, msg.project, kept.weight, kept.bias)] } };
    }
  } catch (e) {
    return { error: e.message };
  }
  out.ms = performance.now() - t0;
  out.memory = api.memoryBytes();
  return out;
}

// A MultiHeadAttention shard of 16 tokens (~20 ms): the functions a run calls are compiled on
// first call and tiered up as they run, and a GPT-2-size shard's first run paid for it (Node,
// one thread's CPU: 1020-1120 ms cold, 870-930 ms after this, 560-630 ms a second run).
var WARM_UP = {
  config: { inputs: { randn: [16, 64] }, d_out: 96 },
  options: { preset: 'gpt2', shard: [0, 1, 0, 12] },
};

/** The compiled wasm: {module: a WebAssembly.Module, set by lib/module.js's start() once
 *  compiled, or in a Worker the page's, posted ({wasm}: page/runner.js) instead of a fetch of
 *  the wasm; ready: functions called once it is compiled}. */
export var wasm = { module: null, ready: [] };

/** The Worker's side: runs each request ({config, options} or {config, project: rows, and
 *  out_proj: {weight, bias} unless kept}) and transfers the stages' buffers back. The page
 *  posts its compiled wasm ({wasm}) first. */
export function serve() {
  var ready = null;
  // Once the wasm is in: the module started, and a warm-up before any request.
  function started() {
    if (!ready) {
      ready = load();
      ready.then(
        function (api) {
          runHere(api, WARM_UP);
        },
        function () {}, // a request gets the error
      );
    }
    return ready;
  }
  // The glue at once, while the page compiles the wasm (Workers start before the page's module,
  // page/runner.js): after this file has run, whose namespace the glue's part reads.
  Promise.resolve()
    .then(glue)
    .catch(function () {}); // load() tries again and says why
  globalThis.onmessage = function (e) {
    var msg = e.data;
    if (msg.wasm) return started((wasm.module = msg.wasm));
    started().then(function (api) {
      var out = runHere(api, msg),
        stages = out.result ? out.result.stages : [];
      out.id = msg.id;
      globalThis.postMessage(
        out,
        stages.map(function (s) {
          return s.data.buffer;
        }),
      );
    });
  };
}

// This script's own URL (causal-attention.js: the page's app.js reads this module from it),
// known only while it first runs: the page's runner starts the Worker from it (page/runner.js).
export var scriptUrl =
  typeof document !== 'undefined' && document.currentScript ? document.currentScript.src : '';
