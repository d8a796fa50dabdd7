// Big configurations (GPT-2-size attention) off the main thread: causal-attention.js starts
// itself as a Worker (one file, same origin: nothing else is fetched, a strict CSP allows it),
// which runs the walkthrough and transfers the stages' buffers back without a copy. Where no
// Worker can start (file://, a CSP without it), the same runs on the main thread after a frame,
// so that a progress indication can paint first.
(function (root) {
  'use strict';
  var CA = root.CausalAttention || (root.CausalAttention = {});
  var inWorker = typeof WorkerGlobalScope !== 'undefined' && root instanceof WorkerGlobalScope;

  // One run: {result: {config, stages}, ms: time of api.run, memory: wasm bytes} or {error}.
  function runHere(api, config, options) {
    var t0 = performance.now(),
      result;
    try {
      result = api.run(config, options);
    } catch (e) {
      return { error: e.message };
    }
    return { result: result, ms: performance.now() - t0, memory: api.memoryBytes() };
  }

  if (inWorker) {
    root.onmessage = function (e) {
      var msg = e.data;
      CA.load().then(function (api) {
        var out = runHere(api, msg.config, msg.options);
        out.id = msg.id;
        root.postMessage(
          out,
          out.result
            ? out.result.stages.map(function (s) {
                return s.data.buffer;
              })
            : [],
        );
      });
    };
    return;
  }

  // This script's own URL, known only while it first runs.
  var self =
    typeof document !== 'undefined' && document.currentScript ? document.currentScript.src : '';

  /** A runner: run(config, options) resolves to {result, ms, memory, where: 'worker' | 'main'}
   *  or rejects with the core's Error. Replies come in request order. */
  CA.runner = function () {
    var worker = null,
      pending = {},
      next = 0,
      broken = !self;
    function onMain(config, options) {
      return new Promise(function (resolve) {
        setTimeout(resolve, 30);
      }) // let the progress paint
        .then(function () {
          return CA.load();
        })
        .then(function (api) {
          return settle(runHere(api, config, options), 'main');
        });
    }
    function settle(out, where) {
      if (out.error !== undefined) throw new Error(out.error);
      out.where = where;
      return out;
    }
    // The worker failed to start or died: what it had pending runs on the main thread.
    function fail() {
      broken = true;
      if (worker) worker.terminate();
      worker = null;
      Object.keys(pending).forEach(function (id) {
        var p = pending[id];
        delete pending[id];
        onMain(p.config, p.options).then(p.resolve, p.reject);
      });
    }
    function start() {
      try {
        worker = new Worker(self);
      } catch (e) {
        broken = true;
        return null;
      }
      worker.onmessage = function (e) {
        var p = pending[e.data.id];
        delete pending[e.data.id];
        try {
          p.resolve(settle(e.data, 'worker'));
        } catch (err) {
          p.reject(err);
        }
      };
      worker.onerror = fail;
      return worker;
    }
    return {
      run: function (config, options) {
        if (broken || (!worker && !start())) return onMain(config, options);
        var id = next++;
        return new Promise(function (resolve, reject) {
          pending[id] = { resolve: resolve, reject: reject, config: config, options: options };
          worker.postMessage({ id: id, config: config, options: options });
        });
      },
      /** 'worker' when runs go to a Worker, 'main' when they fall back to the main thread. */
      get mode() {
        return broken ? 'main' : 'worker';
      },
    };
  };
})(typeof globalThis !== 'undefined' ? globalThis : this);
