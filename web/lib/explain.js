// A cell's explanation (how the core computed it, from the stages' own float32 values) and
// the operands it names.
import { info as stageInfo } from './facts.js';
import { f32, fmt } from './format.js';
import { at, byId } from './slices.js';

// An operand inside a sum: negatives in parentheses.
function operand(x) {
  return x < 0 ? '(' + fmt(x) + ')' : fmt(x);
}
function isDropout(id) {
  return !!stageInfo(id).dropout;
}
// A sum of products, written out (the first 8 terms).
function terms(a, b) {
  for (var parts = [], k = 0; k < Math.min(a.length, 8); k++)
    parts.push(operand(a[k]) + '×' + operand(b[k]));
  return parts.join(' + ') + (a.length > 8 ? ' + … (' + a.length + ' terms)' : '');
}
// A list of numbers with the j-th in brackets.
function list(a, j) {
  for (var parts = [], k = 0; k < Math.min(a.length, 12); k++)
    parts.push(k === j ? '[' + fmt(a[k]) + ']' : fmt(a[k]));
  return parts.join(', ') + (a.length > 12 ? ', …' : '');
}
function rowOf(wt, id, batch, i) {
  var shape = byId(wt)[id].shape,
    out = [];
  for (var j = 0; j < shape[shape.length - 1]; j++) out.push(at(wt, id, batch, i, j));
  return out;
}

/** How element [b, i, j] of stage `id` was computed, as a fragment of <p> lines. */
export function explain(wt, id, b, i, j, doc) {
  var cfg = wt.config,
    T = cfg.tokens.length,
    lines = [],
    p = cfg.dropout,
    scale = cfg.scale ? Math.sqrt(cfg.d_out) : 1;
  var v = at(wt, id, b, i, j),
    V = fmt(v),
    n = byId(wt)[id].shape.length,
    ij = n > 1 ? '[' + i + ', ' + j + ']' : n ? '[' + j + ']' : ''; // as the stage is indexed
  var tok = function (k) {
    return '“' + cfg.tokens[k] + '”';
  };
  var get = function (other, k) {
    return fmt(at(wt, other, 0, i, k === undefined ? j : k));
  };
  var weight = /^(ca\.)?([Wb])_(\w+)$/.exec(id),
    qkv = { queries: 'query', keys: 'key', values: 'value' }[id];
  // Softmax of row i of src (slice sb) scaled by 1/d: exp and sum are recomputed here in
  // doubles to show the steps; the value is the core's float32.
  function softmax(src, sb, d, why) {
    var z = rowOf(wt, src, sb, i).map(function (x) {
        return x / d;
      }),
      e = z.map(Math.exp);
    var sum = e.reduce(function (acc, y) {
      return acc + y;
    });
    lines.push(
      'softmax of ' +
        (byId(wt)[src].shape.length > 1 ? 'row ' + i + ' of ' : '') +
        src +
        (d > 1 ? ' / ' + why + ' = ' + fmt(d) : '') +
        ':',
      'z = ' + list(z, j),
      'exp(z) = ' + list(e, j) + ' (recomputed here in doubles)',
      'sum = ' + fmt(sum) + ' (recomputed)',
      id + ij + ' = exp(z_' + j + ') / sum = ' + V + ' (the core’s float32)',
    );
  }
  // Column c of slice sb of a stage.
  function colOf(src, sb, c) {
    for (var out = [], k = 0; k < byId(wt)[src].shape.slice(-2)[0]; k++)
      out.push(at(wt, src, sb, k, c));
    return out;
  }
  // A dot product of stage values, written out.
  function dot(name, a, bb, plus) {
    lines.push(
      name,
      '= ' + terms(a, bb) + (plus === undefined ? '' : ' + ' + operand(plus)),
      '= ' + V,
    );
  }
  // Is this element equal, bit for bit, to element (sb, r, c) of stage other?
  function same(other, sb, r, c) {
    var w = at(wt, other, sb, r, c),
      n = byId(wt)[other].shape.length;
    return (
      other +
      (n ? '[' + [sb, r, c].slice(3 - n).join(', ') + ']' : '') +
      ' = ' +
      fmt(w) +
      (Object.is(w, v)
        ? ': equal bit for bit.'
        : ': differs by ' + Math.abs(w - v).toExponential(2) + '.')
    );
  }
  var q = cfg.query_token,
    qn = q + 1, // the book's names count tokens from 1: attn_scores_2 for token 1
    H = cfg.num_heads,
    hd = cfg.d_out / H,
    h = b % H,
    bb = (b - h) / H,
    sim = /^simple\.(.*)$/.exec(id),
    v1 = /^v1\.(.*)$/.exec(id),
    mh = /^mhaw?\.(W|b|out_proj)(_|\.)(\w+)$/.exec(id),
    split = { 'mha.queries': 'W_query', 'mha.keys': 'W_key', 'mha.values': 'W_value' }[id];
  if (sim) {
    var sc = rowOf(wt, 'simple.attn_scores_q', 0, 0);
    ({
      attn_scores_q: function () {
        dot(
          'attn_scores_' +
            qn +
            '[' +
            j +
            '] = x_' +
            j +
            ' · x_' +
            q +
            '  (token ' +
            tok(j) +
            ', query ' +
            tok(q) +
            ')',
          rowOf(wt, 'inputs', 0, j),
          rowOf(wt, 'inputs', 0, q),
        );
      },
      attn_weights_q_tmp: function () {
        lines.push(
          'attn_scores_' +
            qn +
            '[' +
            j +
            '] / attn_scores_' +
            qn +
            '.sum() = ' +
            fmt(sc[j]) +
            ' / Σ(' +
            list(sc) +
            ')',
          '= ' +
            V +
            ' (the sum, ' +
            fmt(
              sc.reduce(function (x, y) {
                return x + y;
              }),
            ) +
            ', recomputed here in doubles)',
        );
      },
      attn_weights_q_naive: function () {
        i = 0;
        softmax('simple.attn_scores_q', 0, 1);
        lines.push(
          'No max subtracted (the book’s softmax_naive). ' +
            same('simple.attn_weights_q', 0, 0, j).replace(/^/, 'torch.softmax: '),
        );
      },
      attn_weights_q: function () {
        i = 0;
        softmax('simple.attn_scores_q', 0, 1);
        lines.push(
          'torch.softmax subtracts the largest score first. ' +
            same('simple.attn_weights_q_naive', 0, 0, j).replace(/^/, 'softmax_naive: '),
        );
      },
      context_vec_q: function () {
        dot(
          'context_vec_' +
            qn +
            '[' +
            j +
            '] = Σ_i attn_weights_' +
            qn +
            '[i] · x_i[' +
            j +
            '], i = 0, 1, … (the loop’s order)',
          rowOf(wt, 'simple.attn_weights_q', 0, 0),
          colOf('inputs', 0, j),
        );
      },
      attn_scores: function () {
        dot(
          'attn_scores' + ij + ' = x_' + i + ' · x_' + j + '  (' + tok(i) + ', ' + tok(j) + ')',
          rowOf(wt, 'inputs', 0, i),
          rowOf(wt, 'inputs', 0, j),
        );
        if (i === q) lines.push(same('simple.attn_scores_q', 0, 0, j));
      },
      attn_weights: function () {
        softmax('simple.attn_scores', 0, 1);
      },
      all_context_vecs: function () {
        dot(
          'all_context_vecs' + ij + ' = Σ_k attn_weights[' + i + ', k] · inputs[k, ' + j + ']',
          rowOf(wt, 'simple.attn_weights', 0, i),
          colOf('inputs', 0, j),
        );
        if (i === q) lines.push(same('simple.context_vec_q', 0, 0, j));
      },
    })[sim[1]]();
  } else if (/^v1\.W_/.test(id)) {
    var cols = byId(wt)[id].shape[1];
    lines.push(
      'Row ' +
        i +
        ' = input feature ' +
        i +
        ', column ' +
        j +
        ' = output feature ' +
        j +
        ': (d_in, d_out), used as x @ W. nn.Linear stores the transpose, (d_out, d_in).',
      'torch.rand: number ' +
        (['W_query', 'W_key', 'W_value'].indexOf(id.slice(3)) * byId(wt)[id].data.length +
          i * cols +
          j +
          1) +
        ' in [0, 1) after torch.manual_seed(' +
        cfg.seed_v1 +
        ') (query, key, value in turn).',
    );
  } else if (v1) {
    var W = function (w, c) {
      return colOf('v1.W_' + w, 0, c);
    };
    ({
      query_q: function () {
        dot(
          'query_' +
            qn +
            '[' +
            j +
            '] = inputs[' +
            q +
            '] · W_query[:, ' +
            j +
            ']  (token ' +
            tok(q) +
            ')',
          rowOf(wt, 'inputs', 0, q),
          W('query', j),
        );
      },
      keys: function () {
        dot(
          'keys' + ij + ' = x_' + i + ' · W_key[:, ' + j + ']',
          rowOf(wt, 'inputs', 0, i),
          W('key', j),
        );
      },
      values: function () {
        dot(
          'values' + ij + ' = x_' + i + ' · W_value[:, ' + j + ']',
          rowOf(wt, 'inputs', 0, i),
          W('value', j),
        );
      },
      attn_score_qq: function () {
        dot(
          'attn_score_' + qn + qn + ' = query_' + qn + ' · keys[' + q + ']',
          rowOf(wt, 'v1.query_q', 0, 0),
          rowOf(wt, 'v1.keys', 0, q),
        );
      },
      attn_scores_q: function () {
        dot(
          'attn_scores_' +
            qn +
            '[' +
            j +
            '] = query_' +
            qn +
            ' · keys[' +
            j +
            ']  (key ' +
            tok(j) +
            ')',
          rowOf(wt, 'v1.query_q', 0, 0),
          rowOf(wt, 'v1.keys', 0, j),
        );
        if (j === q) lines.push(same('v1.attn_score_qq', 0, 0, 0));
      },
      attn_weights_q: function () {
        i = 0;
        softmax('v1.attn_scores_q', 0, scale, '√d_k (√' + cfg.d_out + ')');
      },
      context_vec_q: function () {
        dot(
          'context_vec_' +
            qn +
            '[' +
            j +
            '] = Σ_k attn_weights_' +
            qn +
            '[k] · values[k, ' +
            j +
            ']',
          rowOf(wt, 'v1.attn_weights_q', 0, 0),
          colOf('v1.values', 0, j),
        );
      },
      context_vecs: function () {
        lines.push(
          'SelfAttention_v1 re-seeded with ' +
            cfg.seed_v1 +
            ' draws the same W_query, W_key, W_value and repeats the steps for token ' +
            tok(i) +
            '.',
        );
        if (i === q) lines.push(same('v1.context_vec_q', 0, 0, j));
      },
    })[v1[1]]();
  } else if (id === 'v1_from_v2.context_vecs') {
    lines.push(
      'SelfAttention_v1 with W = sa_v2’s nn.Linear weights transposed, (d_out, d_in) → (d_in, d_out): x @ W.T adds the same products in the same order.',
      same('context_vec', 0, i, j),
    );
  } else if (mh) {
    var mw = id[3] === 'w',
      lin = mh[1] === 'out_proj' ? 'out_proj' : 'W_' + mh[3];
    lines.push(
      (mh[1] === 'W' || mh[3] === 'weight'
        ? 'Output feature ' + i + ' ← input feature ' + j
        : 'Bias of output feature ' + j) +
        (mw
          ? ' of head ' + b + '’s CausalAttention'
          : lin === 'out_proj'
            ? ' of out_proj'
            : ', which feeds head ' +
              Math.floor((mh[1] === 'W' ? i : j) / hd) +
              ' (column ' +
              ((mh[1] === 'W' ? i : j) % hd) +
              ' of its head_dim ' +
              hd +
              ')') +
        ': nn.Linear, uniform in ±1/√fan_in after torch.manual_seed(' +
        cfg.seed_class +
        ')' +
        (mw ? ', heads built one after another.' : '; W_query, W_key, W_value, then out_proj.'),
    );
  } else if (id === 'mhaw.context_vecs') {
    var hh = Math.floor(j / cfg.d_out);
    lines.push(
      'torch.cat of the heads: column ' +
        j +
        ' is column ' +
        (j % cfg.d_out) +
        ' of head ' +
        hh +
        '’s CausalAttention (batch element ' +
        b +
        ', token ' +
        tok(i) +
        ').',
    );
    if (!hh) lines.push('Head 0 is §3.5’s ca: ' + same('context_vecs', b, i, j));
  } else if (split) {
    var sb = byId(wt)[split.replace('W', 'mha.b')],
      c = h * hd + j;
    dot(
      id.slice(4) +
        '[' +
        [bb, h, i, j].join(', ') +
        '] = (batch[' +
        bb +
        '] @ ' +
        split +
        '.T)[' +
        i +
        ', ' +
        c +
        ']: view(b, T, ' +
        H +
        ', ' +
        hd +
        ') cuts column ' +
        c +
        ' into head ' +
        h +
        ', column ' +
        j +
        '; transpose(1, 2) makes (b, H, T, head_dim)',
      rowOf(wt, 'batch', bb, i),
      rowOf(wt, 'mha.' + split, 0, c),
      sb && sb.data[c],
    );
  } else if (id === 'mha.attn_scores') {
    if (j > i) lines.push('−∞: masked_fill_, key ' + tok(j) + ' comes after query ' + tok(i) + '.');
    else
      dot(
        'attn_scores[' +
          [bb, h, i, j].join(', ') +
          '] = queries[' +
          bb +
          ', ' +
          h +
          ', ' +
          i +
          '] · keys[' +
          bb +
          ', ' +
          h +
          ', ' +
          j +
          ']  (head ' +
          h +
          ')',
        rowOf(wt, 'mha.queries', b, i),
        rowOf(wt, 'mha.keys', b, j),
      );
  } else if (id === 'mha.attn_weights') {
    softmax('mha.attn_scores', b, cfg.scale ? Math.sqrt(hd) : 1, '√head_dim (√' + hd + ')');
    if (cfg.train && cfg.class_dropout)
      lines.push(
        'Then dropout p = ' +
          cfg.class_dropout +
          ' (' +
          cfg.rng +
          ' generator): ' +
          (v ? 'kept, × 1/(1−p).' : 'dropped, or masked.'),
      );
  } else if (id === 'mha.context_vec') {
    var hj = Math.floor(j / hd);
    dot(
      'context_vec' +
        ij +
        ' = head ' +
        hj +
        ', column ' +
        (j % hd) +
        ': Σ_k attn_weights[' +
        b +
        ', ' +
        hj +
        ', ' +
        i +
        ', k] · values[' +
        b +
        ', ' +
        hj +
        ', k, ' +
        (j % hd) +
        '] (transpose + view put head ' +
        hj +
        ' at columns ' +
        hj * hd +
        '…' +
        (hj * hd + hd - 1) +
        ')',
      rowOf(wt, 'mha.attn_weights', b * H + hj, i),
      colOf('mha.values', b * H + hj, j % hd),
    );
  } else if (id === 'mha.context_vecs') {
    dot(
      'context_vecs' +
        ij +
        ' = context_vec[' +
        b +
        ', ' +
        i +
        '] · out_proj.weight[' +
        j +
        '] + out_proj.bias[' +
        j +
        ']',
      rowOf(wt, 'mha.context_vec', b, i),
      rowOf(wt, 'mha.out_proj.weight', 0, j),
      at(wt, 'mha.out_proj.bias', 0, 0, j),
    );
  } else if (id === 'inputs' || id === 'batch') {
    var randn = cfg.inputs.randn;
    lines.push(
      id === 'batch'
        ? 'torch.stack copies inputs' + ij + ' into batch element ' + b + '.'
        : randn
          ? 'Number ' +
            (i * randn[1] + j + 1) +
            ' drawn by torch.randn(' +
            randn.join(', ') +
            ') after torch.manual_seed(' +
            cfg.inputs.seed +
            ').'
          : 'Feature ' + j + ' of token ' + tok(i) + ', as typed in the inputs table.',
    );
  } else if (weight) {
    lines.push(
      (weight[2] === 'W'
        ? 'Input feature ' + j + ' → output feature ' + i
        : 'Bias of output feature ' + j) +
        ': uniform in ±1/√d_in = ±' +
        fmt(1 / Math.sqrt(byId(wt).inputs.shape[1])) +
        ' after torch.manual_seed(' +
        (weight[1] ? cfg.seed_class : cfg.seed_weights) +
        ').',
    );
  } else if (qkv) {
    var bias = byId(wt)['b_' + qkv];
    lines.push(
      id +
        ij +
        ' = x_' +
        i +
        ' · W_' +
        qkv +
        '[' +
        j +
        ']' +
        (bias ? ' + b_' + qkv + '[' + j + ']' : '') +
        '  (token ' +
        tok(i) +
        ')',
      '= ' +
        terms(rowOf(wt, 'inputs', 0, i), rowOf(wt, 'W_' + qkv, 0, j)) +
        (bias ? ' + ' + operand(bias.data[j]) : ''),
      '= ' + V,
    );
  } else if (id === 'attn_scores') {
    lines.push(
      'ω' + ij + ' = q_' + i + ' · k_' + j + '  (query ' + tok(i) + ', key ' + tok(j) + ')',
      '= ' + terms(rowOf(wt, 'queries', 0, i), rowOf(wt, 'keys', 0, j)),
      '= ' + V,
    );
  } else if (id === 'attn_weights') {
    softmax('attn_scores', 0, scale, '√d_k (√' + cfg.d_out + ')');
  } else if (id === 'attn_weights_causal') {
    softmax('masked', 0, scale, '√d_k (√' + cfg.d_out + ')');
    lines.push(
      'exp(−∞) = 0. The simple way gave ' +
        get('masked_simple_norm') +
        ', off by ' +
        Math.abs(v - at(wt, 'masked_simple_norm', 0, i, j)).toExponential(2) +
        '.',
    );
  } else if (id === 'context_vec') {
    var values = [];
    for (var k = 0; k < T; k++) values.push(at(wt, 'values', 0, k, j));
    lines.push(
      'context_vec' + ij + ' = Σ_k attn_weights[' + i + ', k] · values[k, ' + j + ']',
      '= ' + terms(rowOf(wt, 'attn_weights', 0, i), values),
      '= ' + V,
    );
  } else if (id === 'mask_simple' || id === 'mask') {
    lines.push(
      'Key ' +
        tok(j) +
        (j > i
          ? ' comes after query ' + tok(i) + ': future, hidden'
          : ' is not after query ' + tok(i) + ': visible') +
        ', so ' +
        V +
        '.',
    );
  } else if (id === 'masked_simple') {
    lines.push(
      'attn_weights' +
        ij +
        ' × mask_simple' +
        ij +
        ' = ' +
        get('attn_weights') +
        ' × ' +
        get('mask_simple') +
        ' = ' +
        V,
    );
  } else if (id === 'row_sums') {
    lines.push(
      'row_sums[' +
        i +
        '] = Σ_j masked_simple[' +
        i +
        ', j] = ' +
        rowOf(wt, 'masked_simple', 0, i).slice(0, 12).map(fmt).join(' + ') +
        (T > 12 ? ' + …' : '') +
        ' = ' +
        V,
    );
  } else if (id === 'masked_simple_norm') {
    lines.push(
      'masked_simple' +
        ij +
        ' / row_sums[' +
        i +
        '] = ' +
        get('masked_simple') +
        ' / ' +
        get('row_sums', 0) +
        ' = ' +
        V,
    );
  } else if (id === 'masked') {
    lines.push(
      j > i
        ? '−∞: j > i, key ' + tok(j) + ' comes after query ' + tok(i) + '.'
        : 'j ≤ i: attn_scores' + ij + ' = ' + V + ' is kept.',
    );
  } else if (isDropout(id)) {
    var w = id === 'dropout_example' ? 1 : at(wt, 'attn_weights_causal', 0, i, j);
    lines.push(
      !cfg.train
        ? 'Eval mode: dropout is the identity, ' + V + '.'
        : !p
          ? 'p = 0: dropout keeps everything, ' + V + '.'
          : at(wt, 'dropout_example', 0, i, j)
            ? 'Kept: ' + fmt(w) + ' × 1/(1−p) = ' + fmt(w) + ' × ' + f32(1 / (1 - p)) + ' = ' + V
            : 'Dropped (p = ' + p + '): ' + fmt(w) + ' becomes 0.',
      'Generator: ' + cfg.rng + ', torch.manual_seed(' + cfg.seed_dropout + ').',
    );
  } else if (id === 'context_vecs') {
    lines.push(
      'ca(batch) repeats sections 1 to 3 (and dropout p = ' +
        cfg.class_dropout +
        ') with its own weights ca.W_*, on batch element ' +
        b +
        ', token ' +
        tok(i) +
        ', output feature ' +
        j +
        '.',
    );
  }
  lines.push('float32 value: ' + (isFinite(v) ? f32(v) : V));
  var fragment = (doc = doc || document).createDocumentFragment();
  lines.forEach(function (line) {
    fragment.appendChild(doc.createElement('p')).textContent = line;
  });
  return fragment;
}

/** The operands of element [i, j] of stage `id` (its explanation's inputs), as [stage, 'row'
 *  or 'col', index], from the core's stage table: the row of queries and the key behind a
 *  score, the row of weights and the column of values behind a context value... Operands read
 *  whole (3-D and 4-D stages, biases) mark no table. */
export function operands(id, i, j) {
  return stageInfo(id)
    .operands.filter(function (o) {
      return o.axis;
    })
    .map(function (o) {
      return [o.id, o.axis, o.index === 'i' ? i : j];
    });
}
