// The Worker's side of big configurations (GPT-2-size attention) off the main thread: the page
// (page/runner.js) starts causal-attention.js itself as a Worker (one file, same origin:
// nothing else is fetched, a strict CSP allows it), which runs the walkthrough here and
// transfers the stages' buffers back without a copy.
import { load } from './api.js';

/** True inside the Worker that causal-attention.js starts from itself. */
export var inWorker =
  typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope;

// One run: {result: {config, stages}, ms: time of api.run, memory: wasm bytes} or {error}.
export function runHere(api, config, options) {
  var t0 = performance.now(),
    result;
  try {
    result = api.run(config, options);
  } catch (e) {
    return { error: e.message };
  }
  return { result: result, ms: performance.now() - t0, memory: api.memoryBytes() };
}

// Stage mha.context_vecs for rows of mha.context_vec (a pool's last step, page/runner.js).
function projectHere(api, config, rows) {
  try {
    return { stage: api.project(config, rows), memory: api.memoryBytes() };
  } catch (e) {
    return { error: e.message };
  }
}

// A MultiHeadAttention shard of 16 tokens (~20 ms): the functions a run calls are compiled on
// first call and tiered up as they run, and a GPT-2-size shard's first run paid for it (Node,
// one thread's CPU: 1020-1120 ms cold, 870-930 ms after this, 560-630 ms a second run).
var WARM_UP = [
  { inputs: { randn: [16, 64] }, d_out: 96 },
  { preset: 'gpt2', shard: [0, 1, 0, 12] },
];

/** The Worker's side: runs each request ({config, options} or {config, project: rows}) and
 *  transfers the stages' buffers back. */
export function serve() {
  // At once: the page starts its Workers before it asks them anything (page/runner.js); the
  // warm-up runs before any request, which waits for load() too.
  load().then(
    function (api) {
      runHere(api, WARM_UP[0], WARM_UP[1]);
    },
    function () {}, // a request gets the error
  );
  globalThis.onmessage = function (e) {
    var msg = e.data;
    load().then(function (api) {
      var out = msg.project
          ? projectHere(api, msg.config, msg.project)
          : runHere(api, msg.config, msg.options),
        stages = out.result ? out.result.stages : out.stage ? [out.stage] : [];
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
