// Beyond the chapter: generating with a KV cache (the book's ch04/03_kv-cache). Every kv.*
// stage is (batch, head, step, ...) or (batch, step, ...): row t is what step t computed, the
// cells after it (hatched) did not exist yet at that step.
import { fmt, grouped } from '../format.js';
import { at, byId } from '../slices.js';

export var sections = ['kv'];

/** What step t (0-based) of the cached generation costs against recomputing tokens 0..t, for
 *  configuration cfg (the batch of 2): exact multiply-adds of the projections, the scores,
 *  weights @ values and out_proj, and bytes (float32). Recomputing runs the module on the
 *  t + 1 tokens, as generation without a cache does, and PyTorch's products fill the masked
 *  (t + 1)² cells too. */
export function stepCost(cfg, t) {
  var B = 2,
    D = cfg.inputs.randn ? cfg.inputs.randn[1] : cfg.inputs[0].length,
    d = cfg.d_out,
    H = cfg.num_heads,
    n = t + 1;
  return {
    cached: B * (3 * D * d + 2 * n * d + d * d),
    recomputed: B * (3 * n * D * d + 2 * n * n * d + n * d * d),
    cacheBytes: 4 * 2 * B * n * d, // keys and values of n tokens, kept between steps
    scoresBytes: 4 * B * H * n, // the one new row of scores (and of weights)
    recomputedScoresBytes: 4 * B * H * n * n,
  };
}

// The cost lines of step t, under every kv cell of that step.
function costLines(x, t) {
  var c = stepCost(x.cfg, t);
  x.lines.push(
    'Step ' +
      t +
      ' with the cache: ' +
      grouped(c.cached) +
      ' multiply-adds (one token’s projections, ' +
      (t + 1) +
      ' scores and weighted values per head, out_proj); recomputing tokens 0…' +
      t +
      ': ' +
      grouped(c.recomputed) +
      ' (' +
      (c.recomputed / c.cached).toFixed(1) +
      '×).',
    'Memory: the cache holds ' +
      grouped(c.cacheBytes) +
      ' bytes of keys and values after this step; its row of scores is ' +
      grouped(c.scoresBytes) +
      ' bytes, against ' +
      grouped(c.recomputedScoresBytes) +
      ' for the (t + 1)² scores of a recomputation.',
  );
}

// The same cell of the full pass, when the run has it: [b, h, r, c] of a 4-D stage (sb is
// b·H + h, as slices count), [b, r, c] of a 3-D one.
function versus(x, other, sb, r, c) {
  var st = byId(x.wt)[other];
  if (!st) return;
  var w = at(x.wt, other, sb, r, c),
    idx = st.shape.length === 4 ? [(sb - (sb % x.H)) / x.H, sb % x.H, r, c] : [sb, r, c];
  x.lines.push(
    'The full pass: ' +
      other +
      '[' +
      idx.join(', ') +
      '] = ' +
      fmt(w) +
      (Object.is(w, x.v)
        ? ': equal bit for bit.'
        : ': differs by ' + Math.abs(w - x.v).toExponential(2) + '.'),
  );
}

// Why a weight (and the output after it) may differ in the last bit: softmax's sum.
function sumOrder(x, t) {
  var T = x.cfg.tokens.length;
  if (T >= 8 && t >= 2 && t <= 6)
    x.lines.push(
      'The sum of the ' +
        (t + 1) +
        ' exponentials: ATen adds a row shorter than 8 in order, but the full pass sums its row of ' +
        T +
        ' (+0 after the diagonal) in 8 lanes: the two sums may round differently, so steps 2 to 6 may differ in the last bit.',
    );
}

function notYet(x, what) {
  x.lines.push(
    'Not computed at step ' +
      x.i +
      ': the cache holds tokens 0…' +
      x.i +
      ', key ' +
      x.tok(x.j) +
      ' comes at step ' +
      x.j +
      '. ' +
      what,
  );
}

// queries, and the caches: one row per step, head h of batch element bb.
function projected(x) {
  var key = x.id === 'kv.cache_k',
    value = x.id === 'kv.cache_v',
    name = key ? 'key' : value ? 'value' : 'query';
  x.lines.push(
    'Step ' +
      x.i +
      ' feeds token ' +
      x.tok(x.i) +
      ' alone: W_' +
      name +
      '(batch[' +
      x.bb +
      ', ' +
      x.i +
      ':' +
      (x.i + 1) +
      ']), head ' +
      x.h +
      ', column ' +
      x.j +
      '.',
    key || value
      ? 'Appended at step ' +
          x.i +
          ' and read again at steps ' +
          x.i +
          '…' +
          (x.cfg.tokens.length - 1) +
          ' without being recomputed.'
      : 'Used at step ' + x.i + ' only: queries are not cached.',
  );
  versus(x, key ? 'mha.keys' : value ? 'mha.values' : 'mha.queries', x.b, x.i, x.j);
  costLines(x, x.i);
}

export var stages = {
  'kv.queries': projected,
  'kv.cache_k': projected,
  'kv.cache_v': projected,
  'kv.mask': function (x) {
    if (x.j > x.i) return notYet(x, 'The row of step ' + x.i + ' ends at the diagonal.');
    x.lines.push(
      'mask.bool()[' +
        x.i +
        ':' +
        (x.i + 1) +
        ', :' +
        (x.i + 1) +
        '][0, ' +
        x.j +
        '] = (' +
        x.j +
        ' > ' +
        x.i +
        ') = False: key ' +
        x.tok(x.j) +
        ' is the new token or an earlier one.',
      'The new token is always the last one: its row of the mask has no future cell, masked_fill_ changes nothing.',
    );
  },
  'kv.attn_scores': function (x) {
    if (x.j > x.i) return notYet(x, 'Written −∞ here, as the full pass masks it.');
    x.dot(
      'query of step ' +
        x.i +
        ' · cache_k[' +
        [x.bb, x.h, x.j].join(', ') +
        ']  (head ' +
        x.h +
        ')',
      x.rowOf(x.ops[0], x.b, x.i),
      x.rowOf(x.ops[1], x.b, x.j),
    );
    versus(x, 'mha.attn_scores', x.b, x.i, x.j);
    costLines(x, x.i);
  },
  'kv.attn_weights': function (x) {
    if (x.j > x.i) return notYet(x, 'Written +0 here, as the full pass’s softmax gives.');
    x.softmax(x.ops[0], x.b, x.cfg.scale ? Math.sqrt(x.hd) : 1, '√head_dim (√' + x.hd + ')');
    x.lines.push('Over the ' + (x.i + 1) + ' cached keys: no mask, no −∞ in the row.');
    versus(x, 'mha.attn_weights', x.b, x.i, x.j);
    sumOrder(x, x.i);
  },
  'kv.context_vec': function (x) {
    var hd = x.hd,
      hj = Math.floor(x.j / hd),
      k = x.b * x.H + hj;
    x.dot(
      'step ' +
        x.i +
        ', head ' +
        hj +
        ', column ' +
        (x.j % hd) +
        ': Σ_k weights[k] · cache_v[' +
        [x.b, hj].join(', ') +
        ', k, ' +
        (x.j % hd) +
        '], k = 0…' +
        x.i,
      x.rowOf(x.ops[0], k, x.i).slice(0, x.i + 1),
      x.colOf(x.ops[1], k, x.j % hd).slice(0, x.i + 1),
    );
    versus(x, 'mha.context_vec', x.b, x.i, x.j);
    sumOrder(x, x.i);
  },
  'kv.context_vecs': function (x) {
    x.dot(
      'out_proj of step ' +
        x.i +
        '’s row: context_vec[' +
        x.b +
        ', ' +
        x.i +
        '] · out_proj.weight[' +
        x.j +
        '] + bias[' +
        x.j +
        ']',
      x.rowOf(x.ops[0], x.b, x.i),
      x.rowOf(x.ops[1], 0, x.j),
      byId(x.wt)[x.ops[2]].data[x.j],
    );
    versus(x, 'mha.context_vecs', x.b, x.i, x.j);
    sumOrder(x, x.i);
    costLines(x, x.i);
  },
};
