// causal-attention-wasm.js, the module: the Emscripten glue comes before this code in that file
// (src/wasm/pack.js, as the file's own var), the deflated wasm is causal-attention-wasm-data.js
// beside it (lib/lazy.js loads both), then this: the JS API's
// friendly names over the Embind module (lib/api.js's load() resolves to start()'s), and the
// <causal-attention-demo> element, which shows nothing without them. causal-attention.js (the
// library) loads it beside itself (lib/lazy.js): the widget at once, the page after its first
// table, a Worker or Node when load() is first called.
import { define } from './element.js';
import { setTables } from './facts.js';
import { loaded, WASM_DATA } from './lazy.js';
import { withTexts } from './texts.js';
import { inWorker, wasm } from './worker.js';

function freeze(o) {
  Object.values(o).forEach(function (v) {
    if (v && typeof v === 'object') freeze(v);
  });
  return Object.freeze(o);
}

// A getter or proxy trap that threw while the caller's object was read (cause), or an array
// too long to copy (length); `where` is the path to it, built while unwinding.
function Stop(cause, length, message) {
  this.cause = cause;
  this.length = length;
  this.message = message;
  this.where = '';
}
function stopError(e, m) {
  var what;
  if (e.message) return new Error((e.where || 'the configuration') + ' ' + e.message);
  if (e.length !== undefined)
    return new Error(m.tooManyElements(e.where || 'the configuration', e.length));
  try {
    what = e.cause instanceof Error ? e.cause.name + ': ' + e.cause.message : String(e.cause);
  } catch (again) {
    what = 'an exception';
  }
  return new Error(
    (e.where || 'the configuration') + ' could not be read (it threw ' + what + ')',
    {
      cause: e.cause,
    },
  );
}

// A plain-data copy of the caller's configuration: own enumerable keys, arrays and typed
// arrays as arrays (rows of numbers as Float64Array, which the module reads in bulk), no
// getters or proxies left, so that reading it in C++ (bindings.cpp) cannot throw and unwind
// wasm frames. It counts as the module does and, where a limit is exceeded, stops and puts a
// stand-in that the module rejects with its own message: too many numbers or keys, or an
// array too deep. An array too long to copy stops here, with the module's message.
// A lone surrogate: the module's UTF-8 conversion would pair it with the next code unit
// ('\ud800a' became U+10061), so it is named here instead.
var LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function wellFormed(s) {
  var m = LONE_SURROGATE.exec(s);
  if (!m) return s;
  throw new Stop(
    null,
    undefined,
    'is not valid Unicode: a lone surrogate U+' +
      m[0].charCodeAt(0).toString(16).toUpperCase() +
      ' at index ' +
      m.index +
      ' (got ' +
      JSON.stringify(s.length > 40 ? s.slice(0, 40) + '…' : s) +
      ')',
  );
}

// The module's results have no prototype (no setter a page put on Object.prototype runs
// inside it): made ordinary here, in place for arrays, without running setters either.
function ordinary(v) {
  var out, i;
  if (!v || typeof v !== 'object' || ArrayBuffer.isView(v)) return v;
  if (Array.isArray(v)) {
    for (i = 0; i < v.length; i++) if (v[i] && typeof v[i] === 'object') v[i] = ordinary(v[i]);
    return v;
  }
  out = {};
  Object.keys(v).forEach(function (k) {
    Object.defineProperty(out, k, {
      __proto__: null, // a descriptor inherits no "get" a page put on Object.prototype
      value: ordinary(v[k]),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  });
  return out;
}

function plainCopy(config, m, limits) {
  var values = 0,
    numbers = 0,
    stopped = false;
  function attempt(f, a, b) {
    try {
      return f(a, b);
    } catch (e) {
      throw new Stop(e);
    }
  }
  function get(o, k) {
    return o[k];
  }
  function kind(v) {
    if (Array.isArray(v)) return 'array';
    return ArrayBuffer.isView(v) && !(v instanceof DataView) ? 'typed' : 'object';
  }
  function inside(where, f, a, b) {
    try {
      return f(a, b);
    } catch (e) {
      if (e instanceof Stop) e.where = where + e.where;
      throw e;
    }
  }
  function packed(n) {
    if ((numbers += n) > limits.numbers) stopped = true;
    return stopped ? new Float64Array(n) : null;
  }
  function copy(v, depth) {
    var t = typeof v,
      out,
      n,
      i,
      raw,
      isList;
    if (stopped) return undefined;
    if (t === 'string') return wellFormed(v);
    if (t === 'number' || t === 'boolean' || t === 'bigint') return v;
    if (t !== 'object') return undefined; // symbols and functions are left out, like JSON
    if (v === null) return null;
    if (depth >= limits.depth) return ((stopped = true), []);
    isList = attempt(kind, v);
    if (isList !== 'object') {
      n = attempt(get, v, 'length');
      n = typeof n === 'number' ? n >>> 0 : 0;
      if (n > limits.items) throw new Stop(null, n);
      raw = [];
      for (i = 0; i < n; i++) {
        raw.push(
          inside(
            '[' + i + ']',
            function (k) {
              return attempt(get, v, k);
            },
            i,
          ),
        );
      }
      if (
        raw.every(function (x) {
          return typeof x === 'number';
        })
      ) {
        return packed(n) || Float64Array.from(raw);
      }
      if ((values += n) > limits.values) return ((stopped = true), new Array(n));
      out = new Array(n);
      for (i = 0; i < n && !stopped; i++) out[i] = inside('[' + i + ']', copy, raw[i], depth + 1);
      return out;
    }
    var keys = attempt(Object.keys, v);
    n = Math.min(keys.length, limits.items + 1);
    out = Object.create(null); // a key "__proto__" stays a key
    if (n > limits.items || (values += n) > limits.values) {
      for (stopped = true, i = 0; i < n; i++) out[keys[i]] = undefined;
      return out;
    }
    keys.forEach(function (key) {
      var where = depth ? '[' + JSON.stringify(key) + ']' : JSON.stringify(key);
      inside(where, wellFormed, key);
      out[key] = inside(
        where,
        function (k) {
          return copy(attempt(get, v, k), depth + 1);
        },
        key,
      );
    });
    return out;
  }
  try {
    return copy(config, 0);
  } catch (e) {
    throw e instanceof Stop ? stopError(e, m) : e;
  }
}

function wrap(m) {
  var ids = Object.freeze(m.stageIds()),
    table = ordinary(m.stageTable()),
    reader = m.readerLimits();
  var presets = {};
  m.presets().forEach(function (p) {
    presets[p.name] = ordinary(p);
  });
  presets = freeze(presets);
  // the notes and help are not in the wasm (lib/texts.js)
  withTexts(table.stages, 'note');
  table = freeze(table);
  var settings = freeze(withTexts(ordinary(m.settings()).settings, 'help'));
  var api = {
    stageIds: ids,
    stages: table.stages,
    sections: table.sections,
    limits: table.limits,
    defaults: table.defaults,
    // Every configuration key: type, range, default, group, label, help (the core's table).
    settings: settings,
    defaultTokens: function (n) {
      return m.defaultTokens(n);
    },
    presets: presets,
    // options: {stages: [ids]} computes only what those stages need; {preset: name} starts
    // from a preset's configuration (and its stages).
    run: function (config, options) {
      var r = m.run(
        plainCopy(config === undefined ? {} : config, m, reader),
        plainCopy(options === undefined ? {} : options, m, reader),
      );
      if (r.error !== undefined) throw new Error(r.error); // an own key: r has no prototype
      return ordinary(r);
    },
    // Stage mha.context_vecs for n rows of the configuration's mha.context_vec (a Float32Array
    // of n × d_out) by out_proj's weight and bias (its stages' data, which a shard brings): with
    // run's {shard}, how page/runner.js splits exercise 3.3 over Workers.
    project: function (config, rows, weight, bias) {
      var r = m.project(
        plainCopy(config === undefined ? {} : config, m, reader),
        rows,
        weight,
        bias,
      );
      if (r.error !== undefined) throw new Error(r.error);
      return ordinary(r.stage);
    },
    // The configuration as a Jupyter notebook (.ipynb text): every stage a cell that prints it.
    notebook: function (config) {
      var r = m.notebook(plainCopy(config === undefined ? {} : config, m, reader));
      if (r.error !== undefined) throw new Error(r.error);
      return r.text;
    },
    // What run(config, options) costs, without running it (the core's one cost model,
    // ca::run_cost): {bytes: its peak, work: its time in ~5.2 ns units, multiply_adds}.
    cost: function (config, options) {
      var r = m.cost(
        plainCopy(config === undefined ? {} : config, m, reader),
        plainCopy(options === undefined ? {} : options, m, reader),
      );
      if (r.error !== undefined) throw new Error(r.error);
      return ordinary(r);
    },
    heapInUse: function () {
      return m.heapInUse();
    },
    memoryBytes: function () {
      return m.memoryBytes();
    },
    // Live Embind handles (for leak tests): a run must leave none behind.
    liveHandles: function () {
      return m.count_emval_handles ? m.count_emval_handles() : 0;
    },
  };
  setTables(table, presets, settings, api.cost); // the facts renderers read (facts.js)
  return api;
}

// The wasm ships deflated in base64 (src/wasm/pack.js): inflate it with the platform.
function wasmBinary(base64) {
  // A plain loop: Uint8Array.from with a callback per byte took 10-25 ms of the page's load.
  var text = atob(base64),
    bytes = new Uint8Array(text.length);
  for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  // Through in-memory streams: a Blob's stream is read through the browser process, and its
  // replies waited behind the page's first layout (40-60 ms of the load).
  var ds = new DecompressionStream('deflate-raw'),
    writer = ds.writable.getWriter(),
    reader = ds.readable.getReader(),
    chunks = [],
    size = 0;
  writer.write(bytes).catch(function () {}); // bad data rejects reader.read() too
  writer.close().catch(function () {});
  return (function next() {
    return reader.read().then(function (r) {
      if (!r.done) {
        chunks.push(r.value);
        size += r.value.length;
        return next();
      }
      var out = new Uint8Array(size);
      for (var i = 0, at = 0; i < chunks.length; at += chunks[i++].length) out.set(chunks[i], at);
      return out.buffer;
    });
  })();
}

/** The Embind module instantiated and wrapped (once: lib/api.js caches the promise), from the
 *  wasm compiled here, or in a Worker from the page's (lib/worker.js's wasm.module: compiled
 *  once, its code shared, no fetch or inflate of the wasm there). */
export function start() {
  var waiting = [];
  // Chromium holds a page's messages to a Worker whose script has not run yet until the page's
  // thread learns that it has, in a task of its own: with Workers given the module, the
  // instance and the page's first run after it (~100 ms, one task) each wait for the next task,
  // so that the module reaches them meanwhile (on a busy machine it came ~600 ms later).
  function turn(x) {
    return waiting.length
      ? new Promise(function (resolve) {
          setTimeout(resolve, 0, x);
        })
      : x;
  }
  // a browser without DecompressionStream rejects, never throws
  return (
    wasm.module
      ? Promise.resolve(wasm.module)
      : wasmBinary(loaded(WASM_DATA)).then(function (buffer) {
          return new WebAssembly.Module(buffer); // lib/lazy.js loaded WASM_DATA beside this file
        })
  )
    .then(function (m) {
      wasm.module = m; // page/runner.js posts it to its Workers at once
      waiting = wasm.ready.splice(0);
      waiting.forEach(function (f) {
        f();
      });
      return turn(m);
    })
    .then(function (m) {
      return CausalAttentionModule({
        instantiateWasm: function (imports, ready) {
          var instance = new WebAssembly.Instance(m, imports);
          ready(instance);
          return instance.exports;
        },
      });
    })
    .then(wrap)
    .then(turn);
}

if (!inWorker) define();
