// Exercise 3.3 over a pool of Workers (page/runner.js starts them and posts): the shards of
// MultiHeadAttention, (batch element, heads) each (api.run's {shard}), then out_proj's rows in
// blocks (api.project) when a shard has fewer than every head; the parts put together. Every
// output is the same in-order sum as in one run: the bits do not depend on the pool's size.
// Loaded with app-later.js (page/later.js).
import { inParts } from '../lib/slices.js';

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
  var runs = list.map(function (sh, i) {
    var ids = i ? [] : p.ids.filter(RegExp.prototype.test.bind(PARAMETER));
    if (want['mha.attn_weights']) ids.push('mha.attn_weights');
    if (want['mha.context_vec'] || (want['mha.context_vecs'] && !every))
      ids.push('mha.context_vec');
    if (want['mha.context_vecs'] && every) ids.push('mha.context_vecs');
    return post(i, { config: config, options: { stages: ids, shard: sh } });
  });
  return Promise.all(runs).then(function (outs) {
    var by = {};
    outs.forEach(function (o, i) {
      memory[i] = o.memory;
    });
    outs[0].result.stages.forEach(function (s) {
      if (PARAMETER.test(s.id)) by[s.id] = s;
    });
    ['mha.attn_weights', 'mha.context_vec', 'mha.context_vecs'].forEach(function (id) {
      if (stageOf(outs[0], id)) by[id] = gather(outs, list, id, H);
    });
    var done = Promise.resolve();
    if (want['mha.context_vecs'] && !every)
      done = project(post, config, by['mha.context_vec'], outs.length, memory).then(function (s) {
        by['mha.context_vecs'] = s;
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

// The whole stage from the shards' parts: (B, H, T, T) weights in parts (each shard's heads of
// a batch element are contiguous in it: lib/slices.js reads them in place), or (B, T, D) context
// rows copied together.
function gather(outs, list, id, H) {
  var first = stageOf(outs[0], id),
    heads = first.shape.length === 4,
    T = first.shape[heads ? 2 : 1],
    D = heads ? 0 : (first.shape[2] * H) / (list[0][3] - list[0][2]),
    out = { id: id, title: first.title, code: first.code, shape: heads ? [B, H, T, T] : [B, T, D] },
    parts = [],
    data = heads ? null : new Float32Array(B * T * D);
  outs.forEach(function (o, k) {
    var s = stageOf(o, id),
      sh = list[k],
      n = sh[3] - sh[2],
      w = s.shape[2]; // context: the shard's columns (heads h0..h1, or every column)
    for (var b = sh[0]; b < sh[1]; b++) {
      if (heads)
        parts.push({
          at: (b * H + sh[2]) * T * T,
          data: s.data.subarray((b - sh[0]) * n * T * T, (b - sh[0] + 1) * n * T * T),
        });
      else
        for (var t = 0; t < T; t++)
          data.set(
            s.data.subarray(((b - sh[0]) * T + t) * w, ((b - sh[0]) * T + t + 1) * w),
            (b * T + t) * D + (w === D ? 0 : (sh[2] * D) / H),
          );
    }
  });
  if (!heads) return ((out.data = data), out);
  return inParts(
    out,
    parts.sort(function (a, b) {
      return a.at - b.at;
    }),
  );
}
