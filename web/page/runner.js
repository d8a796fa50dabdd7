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
  DIED = {}; // a Worker failed: what it owed goes to the main thread

/** How many Workers a pool has: the reader's cores, at most 8. */
export function poolSize() {
  return Math.max(1, Math.min(MAX_POOL, navigator.hardwareConcurrency || 1));
}

export function runner() {
  var workers = [],
    owed = [], // owed[i]: the requests Worker i has not answered, by id: {resolve, reject}
    kept = [], // kept[i]: the settings (their JSON) whose out_proj Worker i keeps (lib/worker.js)
    queue = [], // [msg, resolve, reject] for the first Worker free (ask(-1, ...))
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
  // Worker i failed to start or died: what it owed runs on the main thread (ask), and so does
  // every later request: none starts again. The other Workers finish what they run (their
  // replies kept), then stop (drain).
  function fail(i) {
    broken = true;
    for (var id in owed[i]) owed[i][id].reject(DIED);
    owed[i] = {};
    queue.splice(0).forEach(function (q) {
      q[2](DIED);
    });
    drain();
  }
  function worker(i) {
    var w = workers[i];
    if (!w) {
      try {
        w = workers[i] = new Worker(scriptUrl);
        owed[i] = {};
      } catch (e) {
        fail(i); // none may start here
        throw DIED;
      }
      w.onmessage = function (e) {
        var p = owed[i][e.data.id];
        delete owed[i][e.data.id];
        drain();
        try {
          p.resolve(settle(e.data, 'worker'));
        } catch (err) {
          p.reject(err);
        }
      };
      w.onerror = function () {
        fail(i);
      };
      // The page's compiled wasm, before any request (lib/worker.js): one compile, its code
      // shared, and no fetch, inflate or compile of the wasm in the Worker. Given now, or once
      // compiled (lib/module.js's start() calls wasm.ready's functions then, once).
      var give = function () {
        w.postMessage({ wasm: wasm.module });
      };
      if (wasm.module) give();
      else wasm.ready.push(give);
    }
    return w;
  }
  // Worker i's reply to msg: {result, ms, memory} (lib/worker.js's runHere; out_proj's block
  // {config, project, out_proj} is answered as a run of its one stage); i = -1: the first Worker
  // free takes it (a head asked for while the shards run goes to the Worker whose shard ends
  // first). Where no Worker runs, or Worker i died before it answered, the main thread answers
  // msg: as asked (send() posts a copy of a block's rows), so that a death costs the main
  // thread what the dead Worker owed alone.
  function ask(i, msg) {
    if (broken) return onMain(msg);
    return new Promise(function (resolve, reject) {
      if (i >= 0) return send(i, msg, resolve, reject);
      queue.push([msg, resolve, reject]);
      drain();
    }).catch(function (e) {
      if (e === DIED) return onMain(msg);
      throw e;
    });
  }
  // A block's out_proj weight and bias (2.4 MB cloned, ~1 ms) go to Worker i once for the
  // settings (lib/worker.js keeps them); its rows as a copy, transferred: msg keeps its own,
  // and its out_proj, for the main thread should Worker i die (ask).
  function send(i, msg, resolve, reject) {
    var w = worker(i);
    if (msg.project) {
      var key = JSON.stringify(msg.config);
      msg = Object.assign({}, msg, { project: msg.project.slice() });
      if (kept[i] === key) delete msg.out_proj;
      kept[i] = key;
    }
    msg.id = next++;
    owed[i][msg.id] = { resolve: resolve, reject: reject };
    w.postMessage(msg, msg.project ? [msg.project.buffer] : []);
  }
  // Each Worker free takes the first request queued (ask(-1, ...)); once broken, it stops
  // instead, out of the list.
  function drain() {
    for (var i = 0; i < poolSize(); i++) {
      if (Object.keys(owed[i] || {}).length) continue;
      if (broken) {
        if (workers[i]) workers[i].terminate();
        delete workers[i];
      } else if (queue.length) {
        var q = queue.shift();
        try {
          send(i, q[0], q[1], q[2]);
        } catch (e) {
          q[2](e); // no Worker starts: DIED
        }
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
      return load().then(function (api) {
        var p = plan(api, config, options);
        if (!p) return ask(0, msg);
        return pageLater().then(function (m) {
          return m.pool.pooled(ask, config, p);
        });
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
