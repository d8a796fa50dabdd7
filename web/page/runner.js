// Big configurations (GPT-2-size attention) off the main thread: a Worker started from
// causal-attention.js itself (lib/worker.js serves it). Where no Worker can start (file://, a
// CSP without it), the same runs on the main thread after a frame, so that a progress
// indication can paint first.
import { load } from '../lib/api.js';
import { runHere, scriptUrl } from '../lib/worker.js';

export function runner() {
  var worker = null,
    pending = {},
    next = 0,
    broken = !scriptUrl;
  function onMain(config, options) {
    return new Promise(function (resolve) {
      setTimeout(resolve, 30);
    }) // let the progress paint
      .then(load)
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
      worker = new Worker(scriptUrl);
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
}
