// Exercise 3.3 over a pool of Workers (page/runner.js starts them and posts): the shards of
// MultiHeadAttention, (batch element, heads) each (api.run's {shard}), then out_proj's rows in
// blocks (api.project) when a shard has fewer than every head; the parts put together. Every
// output is the same in-order sum as in one run: the bits do not depend on the pool's size.
// The (B, H, T, T) weights (100 MB) do not cross: the heads a reader looks at are computed
// again when asked for (a shard of one batch element's heads: the same bits), lib/slices.js's
// onDemand. Loaded with app-later.js (page/later.js).
import { need, sliceCount } from '../lib/slices.js';
var B = 2, // the batch: torch.stack((inputs, inputs))
  PARAMETER = /^mha\.(W_|b_|out_proj)/;

/** The shards [b0, b1, h0, h1] for n Workers: the batch, then each batch element's H heads in
 *  floor(n / B) groups. */
export function shards(n, H) {
  var out = [],
    g = Math.min(H, Math.floor(n / B));
  if (g < 1) return [[0, B, 0, H]];
  for (var b = 0; b < B; b++)
    for (var k = 0; k < g; k++)
      out.push([b, b + 1, Math.floor((k * H) / g), Math.floor(((k + 1) * H) / g)]);
  return out;
}

function stageOf(out, id) {
  return out.result.stages.filter(function (s) {
    return s.id === id;
  })[0];
}

/** The run of plan p ({c: the resolved config, ids: the stages asked for, n: the pool's size,
 *  order: every stage id, t0: when it was asked for}) on the pool: post(i, msg, transfer) is
 *  Worker i's reply to msg. */
export function pooled(post, config, p) {
  var t0 = p.t0,
    want = {},
    H = p.c.num_heads,
    list = shards(p.n, H),
    every = list[0][3] - list[0][2] === H, // each shard has every head: no out_proj step
    memory = [];
  p.ids.forEach(function (id) {
    want[id] = true;
  });
  // The weights: head 1 of batch element 1 (the head shown first; its title and code) from the
  // first shard, which keeps that head's weights alone (api.run's weightHeads); the others are
  // computed again when a reader asks. The parameters (9 MB to copy out of the heap) from the
  // last shard: the two shards' extra work on different Workers.
  var last = list.length - 1,
    params = p.ids.filter(RegExp.prototype.test.bind(PARAMETER)),
    by = {}; // the stages shown, by id
  var runs = list.map(function (sh, i) {
    var ids = i === last ? params.slice() : [],
      options = { stages: ids, shard: sh };
    if (want['mha.context_vec'] || (want['mha.context_vecs'] && !every))
      ids.push('mha.context_vec');
    if (want['mha.context_vecs'] && every) ids.push('mha.context_vecs');
    if (!i && want['mha.attn_weights']) {
      ids.push('mha.attn_weights');
      options.weightHeads = 1;
    }
    // Each reply's rows are put in place when it comes: the whole stage's new memory (6 MB at
    // GPT-2's size, ~40 ms of faults on this VM) is then touched while the other shards still
    // run, not after the last one.
    return post(i, { config: config, options: options }).then(function (o) {
      ['mha.context_vec', 'mha.context_vecs'].forEach(function (id) {
        var st = stageOf(o, id);
        if (st) by[id] = place(by[id], st, list, i, id, H);
      });
      return o;
    });
  });
  return Promise.all(runs).then(function (outs) {
    outs.forEach(function (o, i) {
      memory[i] = o.memory;
    });
    outs[last].result.stages.forEach(function (s) {
      if (PARAMETER.test(s.id)) by[s.id] = s;
    });
    var s = stageOf(outs[0], 'mha.attn_weights'),
      done = Promise.resolve();
    if (s) {
      by[s.id] = onDemand(
        { id: s.id, title: s.title, code: s.code, shape: [B, H, s.shape[2], s.shape[3]] },
        function (k0, k1) {
          return heads(post, config, p, k0, k1).then(function (got) {
            return got.data;
          });
        },
      );
      by[s.id].slices[0] = s.data;
    }
    if (want['mha.context_vecs'] && !every)
      done = done.then(function () {
        return project(post, config, by['mha.context_vec'], outs.length, memory).then(function (s) {
          by['mha.context_vecs'] = s;
        });
      });
    return done.then(function () {
      var stages = p.order
        .filter(function (id) {
          return want[id] && by[id];
        })
        .map(function (id) {
          return by[id];
        });
      return {
        result: { config: outs[0].result.config, stages: stages },
        ms: performance.now() - t0,
        memory: memory.reduce(function (a, b) {
          return a + b;
        }, 0),
        where: 'worker',
        workers: outs.length,
      };
    });
  });
}

// Matrices k0..k1-1 (b·H + h) of mha.attn_weights as one stage: each batch element's heads
// split in as many parts as the pool has Workers, each part a shard's run with only the
// weights asked for, taken by the first Worker free.
function heads(post, config, p, k0, k1) {
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
        post(-1, {
          config: config,
          options: { stages: ['mha.attn_weights'], shard: [b, b + 1, h0, h1] },
        }),
      );
    }
    k = end;
  }
  return Promise.all(asks).then(function (outs) {
    var first = outs[0].result.stages[0],
      per = first.shape[2] * first.shape[3],
      data = outs.length > 1 ? new Float32Array((k1 - k0) * per) : first.data;
    if (outs.length > 1)
      outs.reduce(function (at, o) {
        data.set(o.result.stages[0].data, at);
        return at + o.result.stages[0].data.length;
      }, 0);
    return { id: first.id, title: first.title, code: first.code, shape: first.shape, data: data };
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

// mha.context_vecs from n blocks of context_vec's rows, each projected by a Worker.
function project(post, config, cv, n, memory) {
  var D = cv.shape[2],
    rows = cv.shape[0] * cv.shape[1],
    block = Math.ceil(rows / n / 4) * 4, // whole 4-row tiles of the kernels
    blocks = [];
  for (var r0 = 0, i = 0; r0 < rows; r0 += block, i++) {
    var part = cv.data.slice(r0 * D, Math.min(rows, r0 + block) * D);
    blocks.push(post(i, { config: config, project: part }, [part.buffer]));
  }
  return Promise.all(blocks).then(function (outs) {
    var data = new Float32Array(rows * D);
    outs.forEach(function (o, i) {
      data.set(o.stage.data, i * block * D);
      memory[i] = Math.max(memory[i] || 0, o.memory);
    });
    var s = outs[0].stage;
    return { id: s.id, title: s.title, code: s.code, shape: cv.shape.slice(), data: data };
  });
}

// The whole (B, T, D) context rows from the shards' columns, shard k's part s put into `into`
// (null for the first part to come: the stage is made then). One shard of everything is the
// stage itself (one Worker); a shard of every head is whole rows, in one piece.
function place(into, s, list, k, id, H) {
  var sh = list[k],
    T = s.shape[1],
    D = (s.shape[2] * H) / (sh[3] - sh[2]),
    w = s.shape[2]; // the shard's columns (heads h0..h1, or every column)
  if (!into)
    into = {
      id: id,
      title: s.title,
      code: s.code,
      shape: [B, T, D],
      data: list.length > 1 || s.shape[0] !== B ? new Float32Array(B * T * D) : s.data,
    };
  var data = into.data;
  if (w === D) {
    if (s.data !== data) data.set(s.data, sh[0] * T * D);
    return into;
  }
  for (var b = sh[0]; b < sh[1]; b++)
    for (var t = 0; t < T; t++)
      data.set(
        s.data.subarray(((b - sh[0]) * T + t) * w, ((b - sh[0]) * T + t + 1) * w),
        (b * T + t) * D + (sh[2] * D) / H,
      );
  return into;
}
