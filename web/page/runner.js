// Big configurations off the main thread: Workers started from causal-attention.js itself
// (lib/worker.js serves them; one file, same origin: a strict CSP allows it). Exercise 3.3's
// MultiHeadAttention splits over a pool of them, one per core (at most 8), each with its own
// instance of the page's compiled wasm: a shard of batch element 1's heads each (api.run's
// {shard}; element 2 is a copy: page/shards.js), then out_proj's rows in blocks (api.project).
// Every output is the same in-order sum as in one run, so the bits do not depend on the pool's
// size. Other heavy runs go to the first Worker. Where no Worker can start (file://, a CSP
// without it), the same runs on the main thread after a frame, so that a progress indication
// can paint first. The pool's steps (page/shards.js, page/pool.js) come with app-later.js: none
// of it is needed before the first table (the Workers start meanwhile: warm()).
import { load } from '../lib/api.js';
import { runHere, scriptUrl, wasm } from '../lib/worker.js';
import { pageLater } from './later-load.js';

var MAX_POOL = 8,
  POOLED = /^mha\.(W_\w+|b_\w+|out_proj\.\w+|attn_weights|context_vecs?)$/, // what shards compute
  DIED = {}; // a Worker failed: the run goes to the main thread

/** How many Workers a pool has: the reader's cores, at most 8. */
export function poolSize() {
  return Math.max(1, Math.min(MAX_POOL, navigator.hardwareConcurrency || 1));
}

export function runner() {
  var workers = [],
    pending = {},
    busy = [], // busy[i]: the requests Worker i has not answered
    kept = [], // kept[i]: the settings (their JSON) whose out_proj Worker i keeps (lib/worker.js)
    queue = [], // [msg, transfer, resolve, reject] for the first Worker free (post(-1, ...))
    next = 0,
    broken = !scriptUrl;
  // msg ({config, options}, or out_proj's block: lib/worker.js's runHere) on the main thread.
  function onMain(msg) {
    return new Promise(function (resolve) {
      setTimeout(resolve, 30);
    }) // let the progress paint
      .then(load)
      .then(function (api) {
        return settle(runHere(api, msg), 'main');
      });
  }
  function settle(out, where) {
    if (out.error !== undefined) throw new Error(out.error);
    out.where = where;
    return out;
  }
  // A Worker failed to start or died: every Worker stops, what was pending runs on the main
  // thread, and so does every later request (ask): none starts again.
  function fail() {
    broken = true;
    workers.forEach(function (w) {
      w.terminate();
    });
    Object.keys(pending).forEach(function (id) {
      pending[id].reject(DIED);
      delete pending[id];
    });
    queue.splice(0).forEach(function (q) {
      q[3](DIED);
    });
  }
  function worker(i) {
    if (!workers[i]) {
      try {
        workers[i] = new Worker(scriptUrl);
      } catch (e) {
        fail(); // none may start here
        throw DIED;
      }
      workers[i].onmessage = function (e) {
        var p = pending[e.data.id];
        delete pending[e.data.id];
        busy[i]--;
        drain();
        try {
          p.resolve(settle(e.data, 'worker'));
        } catch (err) {
          p.reject(err);
        }
      };
      workers[i].onerror = fail;
      // The page's compiled wasm, before any request (lib/worker.js): one compile, its code
      // shared, and no fetch, inflate or compile of the wasm in the Worker. Given now, or once
      // compiled (lib/module.js's start() calls wasm.ready's functions then, once).
      var w = workers[i],
        give = function () {
          w.postMessage({ wasm: wasm.module });
        };
      if (wasm.module) give();
      else wasm.ready.push(give);
    }
    return workers[i];
  }
  // Worker i's reply to msg: {result, ms, memory} (lib/worker.js's runHere; out_proj's block
  // {config, project, out_proj} is answered as a run of its one stage). Where no Worker runs,
  // the main thread answers it; a block whose Worker died took its rows along (transferred):
  // run() then computes the whole configuration on the main thread.
  function ask(i, msg, transfer) {
    if (broken) return onMain(msg);
    return post(i, msg, transfer).catch(function (e) {
      if (e === DIED && !msg.project) return onMain(msg);
      throw e;
    });
  }
  // i = -1: the first Worker free takes it (a head asked for while the shards run goes to the
  // Worker whose shard ends first).
  function post(i, msg, transfer) {
    return new Promise(function (resolve, reject) {
      if (i >= 0) return send(i, msg, transfer, resolve, reject);
      queue.push([msg, transfer, resolve, reject]);
      drain();
    });
  }
  // A block's out_proj weight and bias (2.4 MB cloned, ~1 ms) go to Worker i once for the
  // settings: lib/worker.js keeps them.
  function send(i, msg, transfer, resolve, reject) {
    var w = worker(i);
    if (msg.out_proj) {
      var key = JSON.stringify(msg.config);
      if (kept[i] === key) delete msg.out_proj;
      kept[i] = key;
    }
    msg.id = next++;
    pending[msg.id] = { resolve: resolve, reject: reject };
    busy[i] = (busy[i] || 0) + 1;
    w.postMessage(msg, transfer || []);
  }
  function drain() {
    for (var i = 0; i < poolSize() && queue.length; i++)
      if (!busy[i]) {
        var q = queue.shift();
        try {
          send(i, q[0], q[1], q[2], q[3]);
        } catch (e) {
          q[3](e); // no Worker starts: DIED
        }
      }
  }
  // A pooled run's plan ({c, ids, n, order, t0}: page/pool.js's pooled), or null where one
  // Worker does it all: not only MultiHeadAttention's stages, or dropout drawn over every head.
  // (One core: a pool of one, whose weights are computed on demand all the same.)
  function plan(api, config, options) {
    var ids = (options && options.stages) || [],
      c;
    if (!ids.length || !ids.every(RegExp.prototype.test.bind(POOLED))) return null;
    c = {}; // the keys the plan reads, as given or the settings' defaults
    ['d_out', 'num_heads', 'train', 'class_dropout'].forEach(function (k) {
      c[k] = Object.prototype.hasOwnProperty.call(config, k)
        ? config[k]
        : api.settings.filter(function (s) {
            return s.key === k;
          })[0].default;
    });
    if ((c.train && c.class_dropout !== 0) || c.d_out % c.num_heads) return null;
    return {
      c: c,
      ids: ids,
      n: poolSize(),
      order: api.stageIds,
      t0: performance.now(),
    };
  }
  return {
    run: function (config, options) {
      var msg = { config: config, options: options };
      if (broken) return onMain(msg);
      return load()
        .then(function (api) {
          var p = plan(api, config, options);
          if (!p) return ask(0, msg);
          return pageLater().then(function (m) {
            return m.pool.pooled(ask, config, p);
          });
        })
        .catch(function (e) {
          if (e === DIED) return onMain(msg);
          throw e;
        });
    },
    /** Starts the pool's Workers now (each loads the glue at once, and starts its instance
     *  when given the page's compiled wasm), and loads the pool's steps (page/pool.js): a
     *  preset is coming. */
    warm: function () {
      pageLater();
      for (var i = 0; i < poolSize() && !broken; i++)
        try {
          worker(i);
        } catch (e) {
          // none may start here: runs go to the main thread
        }
    },
  };
}
