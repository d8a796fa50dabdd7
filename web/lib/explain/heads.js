// §3.6: a wrapper of causal attention heads (3.6.1), then multi-head attention with weight
// splits (3.6.2).
import { at, byId } from '../slices.js';

export var sections = ['mha-wrapper', 'mha'];

export var kinds = {
  // Every head's nn.Linear weights (the wrapper: one CausalAttention per head; the class: one
  // nn.Linear whose output features are cut into heads, and out_proj).
  weights: function (x) {
    var mw = x.info.part === 'wrapper',
      weight = x.info.rows === 'out',
      f = weight ? x.i : x.j;
    x.lines.push(
      (weight
        ? 'Output feature ' + x.i + ' ← input feature ' + x.j
        : 'Bias of output feature ' + x.j) +
        (mw
          ? ' of head ' + (x.info.rows === 'head' ? x.i : x.b) + '’s CausalAttention'
          : /\.out_proj\./.test(x.id)
            ? ' of out_proj'
            : ', which feeds head ' +
              Math.floor(f / x.hd) +
              ' (column ' +
              (f % x.hd) +
              ' of its head_dim ' +
              x.hd +
              ')') +
        ': nn.Linear, uniform in ±1/√fan_in after torch.manual_seed(' +
        x.cfg.seed_class +
        ')' +
        (mw ? ', heads built one after another.' : '; W_query, W_key, W_value, then out_proj.'),
    );
  },
};

// queries, keys, values: batch @ W.T (+ b), then view + transpose into heads (operands: the
// batch, the weight, the bias).
function split(x) {
  var bias = byId(x.wt)[x.ops[2]],
    h = x.h,
    c = h * x.hd + x.j;
  x.dot(
    x.id.slice(4) +
      '[' +
      [x.bb, h, x.i, x.j].join(', ') +
      '] = (batch[' +
      x.bb +
      '] @ ' +
      x.ops[1].slice(4) +
      '.T)[' +
      x.i +
      ', ' +
      c +
      ']: view(b, T, ' +
      x.H +
      ', ' +
      x.hd +
      ') cuts column ' +
      c +
      ' into head ' +
      h +
      ', column ' +
      x.j +
      '; transpose(1, 2) makes (b, H, T, head_dim)',
    x.rowOf(x.ops[0], x.bb, x.i),
    x.rowOf(x.ops[1], 0, c),
    bias && bias.data[c],
  );
}

export var stages = {
  'mhaw.context_vecs': function (x) {
    var d = x.cfg.d_out,
      hh = Math.floor(x.j / d);
    x.lines.push(
      'torch.cat of the heads: column ' +
        x.j +
        ' is column ' +
        (x.j % d) +
        ' of head ' +
        hh +
        '’s CausalAttention (batch element ' +
        x.b +
        ', token ' +
        x.tok(x.i) +
        ').',
    );
    if (!hh) x.lines.push('Head 0 is §3.5’s ca: ' + x.same('context_vecs', x.b, x.i, x.j));
  },
  'mha.queries': split,
  'mha.keys': split,
  'mha.values': split,
  'mha.attn_scores': function (x) {
    var bb = x.bb,
      h = x.h;
    if (x.j > x.i)
      x.lines.push(
        '−∞: masked_fill_, key ' + x.tok(x.j) + ' comes after query ' + x.tok(x.i) + '.',
      );
    else
      x.dot(
        'attn_scores[' +
          [bb, h, x.i, x.j].join(', ') +
          '] = queries[' +
          [bb, h, x.i].join(', ') +
          '] · keys[' +
          [bb, h, x.j].join(', ') +
          ']  (head ' +
          h +
          ')',
        x.rowOf(x.ops[0], x.b, x.i),
        x.rowOf(x.ops[1], x.b, x.j),
      );
  },
  'mha.attn_weights': function (x) {
    var cfg = x.cfg;
    x.softmax(x.ops[0], x.b, cfg.scale ? Math.sqrt(x.hd) : 1, '√head_dim (√' + x.hd + ')');
    if (cfg.train && cfg.class_dropout)
      x.lines.push(
        'Then dropout p = ' +
          cfg.class_dropout +
          ' (' +
          cfg.rng +
          ' generator): ' +
          (x.v ? 'kept, × 1/(1−p).' : 'dropped, or masked.'),
      );
  },
  // transpose + view put the heads side by side
  'mha.context_vec': function (x) {
    var hd = x.hd,
      hj = Math.floor(x.j / hd),
      k = x.b * x.H + hj;
    x.dot(
      'context_vec' +
        x.ij +
        ' = head ' +
        hj +
        ', column ' +
        (x.j % hd) +
        ': Σ_k attn_weights[' +
        [x.b, hj, x.i].join(', ') +
        ', k] · values[' +
        [x.b, hj].join(', ') +
        ', k, ' +
        (x.j % hd) +
        '] (transpose + view put head ' +
        hj +
        ' at columns ' +
        hj * hd +
        '…' +
        (hj * hd + hd - 1) +
        ')',
      x.rowOf(x.ops[0], k, x.i),
      x.colOf(x.ops[1], k, x.j % hd),
    );
  },
  'mha.context_vecs': function (x) {
    x.dot(
      'context_vecs' +
        x.ij +
        ' = context_vec[' +
        x.b +
        ', ' +
        x.i +
        '] · out_proj.weight[' +
        x.j +
        '] + out_proj.bias[' +
        x.j +
        ']',
      x.rowOf(x.ops[0], x.b, x.i),
      x.rowOf(x.ops[1], 0, x.j),
      at(x.wt, x.ops[2], 0, 0, x.j),
    );
  },
};
