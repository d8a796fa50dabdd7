// Exercise 3.3 over a pool of Workers (page/runner.js starts them): batch element 1's shards
// (heads each, api.run's {shard}: page/shards.js), then out_proj's rows in blocks (api.project)
// when a shard has fewer than every head; the parts put together, element 1's rows also element
// 2's (the batch is two copies of the inputs: page/shards.js). Every output is the same in-order
// sum as in one run: the bits do not depend on the pool's size. The (B, H, T, T) weights
// (100 MB) do not cross: the heads a reader looks at are computed again when asked for (a shard
// of batch element 1's heads: the same bits; onDemand below, which lib/slices.js reads). Loaded
// with app-later.js (page/later.js).
import { need, sliceCount } from '../lib/slices.js';
import { askShards, B, PARAMETER } from './shards.js';

function stageOf(out, id) {
  return out.result.stages.filter(function (s) {
    return s.id === id;
  })[0];
}

// A stage put together from parts: stage s's id, title and code with its own shape and data.
function like(s, shape, data) {
  return { id: s.id, title: s.title, code: s.code, shape: shape, data: data };
}

/** The run of plan p ({c: the resolved config, ids: the stages asked for, n: the pool's size,
 *  order: every stage id, t0: when it was asked for}) on the pool:
 *  ask(i, msg) is Worker i's reply to msg (page/runner.js's ask; i = -1: the first Worker
 *  free). */
export function pooled(ask, config, p) {
  var asked = askShards(ask, config, p),
    want = new Set(p.ids), // the stages asked for
    H = p.c.num_heads,
    list = asked.list,
    memory = [],
    by = {}; // the stages put together, by id: those shown, and what out_proj's blocks read
  // Each reply's rows are put in place when it comes: the whole stage's new memory (6 MB at
  // GPT-2's size, ~40 ms of faults on this VM) is then touched while the other shards still
  // run, not after the last one.
  var runs = asked.runs.map(function (run, i) {
    return run.then(function (o) {
      ['mha.context_vec', 'mha.context_vecs'].forEach(function (id) {
        var st = stageOf(o, id);
        if (st) by[id] = place(by[id], st, list, i, H, want.has(id) ? B : 1);
      });
      return o;
    });
  });
  return Promise.all(runs).then(function (outs) {
    outs.forEach(function (o, i) {
      memory[i] = o.memory;
      o.result.stages.forEach(function (s) {
        if (PARAMETER.test(s.id)) by[s.id] = s;
      });
    });
    var s = stageOf(outs[0], 'mha.attn_weights'),
      done = Promise.resolve([]);
    if (s) {
      by[s.id] = onDemand(like(s, [B, H, s.shape[2], s.shape[3]]), function (k0, k1) {
        return heads(ask, config, p, k0, k1);
      });
      by[s.id].slices[0] = s.data;
    }
    // More shards than one: out_proj's rows in blocks (a shard of every head projects its own).
    if (want.has('mha.context_vecs') && list.length > 1)
      done = project(ask, config, by, list.length, memory);
    return done.then(function (blocks) {
      var stages = p.order
          .filter(function (id) {
            return want.has(id) && by[id];
          })
          .map(function (id) {
            return by[id];
          }),
        // The replies from the main thread: a Worker died and what it owed ran there (and every
        // later request: page/runner.js), whose memory is then the only one left (the other
        // Workers stop once they have answered).
        here = outs.concat(blocks).filter(function (o) {
          return o.where === 'main';
        });
      return {
        result: { config: outs[0].result.config, stages: stages },
        ms: performance.now() - p.t0,
        memory: here.length
          ? Math.max.apply(
              Math,
              here.map(function (o) {
                return o.memory;
              }),
            )
          : memory.reduce(function (a, b) {
              return a + b;
            }, 0),
        where: here.length ? 'main' : 'worker',
        workers: outs.length,
      };
    });
  });
}

// Matrices k0..k1-1 (b·H + h) of mha.attn_weights, one Float32Array: each batch element's heads
// split in as many parts as the pool has Workers, each part a shard of batch element 1's heads
// (element 2's are the same) with only the weights asked for, taken by the first Worker free.
function heads(ask, config, p, k0, k1) {
  var H = p.c.num_heads,
    asks = [];
  for (var k = k0; k < k1;) {
    var b = Math.floor(k / H),
      end = Math.min(k1, (b + 1) * H),
      n = Math.min(p.n, end - k);
    for (var i = 0; i < n; i++) {
      var h0 = k - b * H + Math.floor(((end - k) * i) / n),
        h1 = k - b * H + Math.floor(((end - k) * (i + 1)) / n);
      asks.push(
        ask(-1, {
          config: config,
          options: { stages: ['mha.attn_weights'], shard: [0, 1, h0, h1] },
        }),
      );
    }
    k = end;
  }
  return Promise.all(asks).then(function (outs) {
    var s = outs[0].result.stages[0];
    if (outs.length < 2) return s.data; // one part: its own, no copy
    var data = new Float32Array((k1 - k0) * s.shape[2] * s.shape[3]);
    outs.reduce(function (at, o) {
      data.set(o.result.stages[0].data, at);
      return at + o.result.stages[0].data.length;
    }, 0);
    return data;
  });
}

/** Stage st computed on demand (lib/slices.js reads it: need(), matrix(), at()): fetch(k0, k1)
 *  resolves to the Float32Array of matrices k0..k1-1; st.whole() to every value (an export of
 *  the whole stage: every matrix fetched). */
function onDemand(st, fetch) {
  var per = st.shape[2] * st.shape[3];
  st.slices = new Array(sliceCount(st)); // matrix k: its Float32Array, or a promise of it
  st.fetch = function (k0, k1) {
    var got = fetch(k0, k1).then(function (data) {
      for (var k = k0; k < k1; k++)
        st.slices[k] = data.subarray((k - k0) * per, (k - k0 + 1) * per);
    });
    for (var k = k0; k < k1; k++) st.slices[k] = got;
    return got;
  };
  var whole = null;
  st.whole = function () {
    return Promise.resolve(need(st, 0, st.slices.length)).then(function () {
      return st.data;
    });
  };
  Object.defineProperty(st, 'data', {
    enumerable: true,
    get: function () {
      if (!whole) {
        whole = new Float32Array(st.slices.length * per);
        st.slices.forEach(function (d, k) {
          if (!(d instanceof Float32Array)) throw new Error(st.id + ': read it with st.whole()');
          whole.set(d, k * per);
        });
      }
      return whole;
    },
  });
  return st;
}

// by['mha.context_vecs'] from at most n blocks of batch element 1's rows of context_vec (by: the
// stages by id), each projected by a Worker with the first shard's out_proj weight and bias
// (where drawing the module's weights again was ~32 ms; page/runner.js sends them to a Worker
// once for the settings); element 2's rows the same. memory[i]: Worker i's, the larger of its
// shard's and its block's (n shards: each block's Worker had one). Resolves to the blocks'
// replies.
function project(ask, config, by, n, memory) {
  var cv = by['mha.context_vec'],
    D = cv.shape[2],
    rows = cv.shape[1],
    block = Math.ceil(rows / n / 4) * 4, // whole 4-row tiles of the kernels
    out_proj = { weight: by['mha.out_proj.weight'].data, bias: by['mha.out_proj.bias'].data },
    blocks = [];
  for (var r0 = 0, i = 0; r0 < rows; r0 += block, i++) {
    var part = cv.data.subarray(r0 * D, Math.min(rows, r0 + block) * D); // runner.js copies it
    blocks.push(ask(i, { config: config, project: part, out_proj: out_proj }));
  }
  return Promise.all(blocks).then(function (outs) {
    var data = new Float32Array(B * rows * D);
    outs.forEach(function (o, i) {
      for (var b = 0; b < B; b++) data.set(o.result.stages[0].data, (b * rows + i * block) * D);
      memory[i] = Math.max(memory[i], o.memory);
    });
    by['mha.context_vecs'] = like(outs[0].result.stages[0], [B, rows, D], data);
    return outs;
  });
}

// The (n, T, D) context rows from the shards' columns, shard k's part s (batch element 1's
// rows, heads h0..h1 or every column) put into each of `into`'s n batch elements (null for the
// first part to come: the stage is made then). n = B for a stage shown, else 1: element 1's
// rows are all that out_proj's blocks read (3 MB less fresh memory on the main thread).
function place(into, s, list, k, H, n) {
  var sh = list[k],
    T = s.shape[1],
    D = (s.shape[2] * H) / (sh[3] - sh[2]),
    w = s.shape[2]; // the shard's columns
  if (!into) into = like(s, [n, T, D], new Float32Array(n * T * D));
  for (var b = 0; b < n; b++)
    if (w === D) into.data.set(s.data, b * T * D);
    else
      for (var t = 0; t < T; t++)
        into.data.set(s.data.subarray(t * w, (t + 1) * w), (b * T + t) * D + (sh[2] * D) / H);
  return into;
}
