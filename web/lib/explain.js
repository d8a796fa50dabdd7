// A cell's explanation (how the core computed it, from the stages' own float32 values) and
// the operands it names. Loaded after render.js; adds R.explain and R.operands.
(function (CA) {
  'use strict';
  var R = CA.render,
    fmt = R.fmt,
    f32 = R.f32,
    at = R.at,
    byId = R.byId;
  // An operand inside a sum: negatives in parentheses.
  function operand(x) {
    return x < 0 ? '(' + fmt(x) + ')' : fmt(x);
  }
  function isDropout(id) {
    return !!CA.info(id).dropout;
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
  function explain(wt, id, b, i, j, doc) {
    var cfg = wt.config,
      T = cfg.tokens.length,
      lines = [],
      p = cfg.dropout,
      scale = cfg.scale ? Math.sqrt(cfg.d_out) : 1;
    var v = at(wt, id, b, i, j),
      V = fmt(v),
      ij = '[' + i + ', ' + j + ']';
    var tok = function (k) {
      return '“' + cfg.tokens[k] + '”';
    };
    var get = function (other, k) {
      return fmt(at(wt, other, 0, i, k === undefined ? j : k));
    };
    var weight = /^(ca\.)?([Wb])_(\w+)$/.exec(id),
      qkv = { queries: 'query', keys: 'key', values: 'value' }[id];
    function softmax(src) {
      var z = rowOf(wt, src, 0, i).map(function (x) {
          return x / scale;
        }),
        e = z.map(Math.exp);
      var sum = e.reduce(function (acc, y) {
        return acc + y;
      });
      lines.push(
        'softmax of row ' +
          i +
          ' of ' +
          src +
          (cfg.scale ? ' / √d_k (√' + cfg.d_out + ' = ' + fmt(scale) + ')' : ' (no scaling)') +
          ':',
        'z = ' + list(z, j),
        'exp(z) = ' + list(e, j),
        'sum = ' + fmt(sum),
        id + ij + ' = exp(z_' + j + ') / sum = ' + fmt(e[j]) + ' / ' + fmt(sum) + ' = ' + V,
      );
    }
    if (id === 'inputs' || id === 'batch') {
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
      softmax('attn_scores');
    } else if (id === 'attn_weights_causal') {
      softmax('masked');
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
   *  or 'col', index]: the row of queries and the key (a row of keys, a column of keys.T)
   *  behind a score, the row of weights and the column of values behind a context value... */
  function operands(id, i, j) {
    var qkv = { queries: 'query', keys: 'key', values: 'value' }[id];
    return qkv
      ? [
          ['inputs', 'row', i],
          ['W_' + qkv, 'row', j],
        ]
      : {
          attn_scores: [
            ['queries', 'row', i],
            ['keys', 'row', j],
          ],
          attn_weights: [['attn_scores', 'row', i]],
          context_vec: [
            ['attn_weights', 'row', i],
            ['values', 'col', j],
          ],
          masked_simple: [
            ['attn_weights', 'row', i],
            ['mask_simple', 'row', i],
          ],
          row_sums: [['masked_simple', 'row', i]],
          masked_simple_norm: [
            ['masked_simple', 'row', i],
            ['row_sums', 'row', i],
          ],
          masked: [['attn_scores', 'row', i]],
          attn_weights_causal: [['masked', 'row', i]],
          attn_weights_dropped: [
            ['attn_weights_causal', 'row', i],
            ['dropout_example', 'row', i],
          ],
        }[id] || [];
  }

  R.explain = explain;
  R.operands = operands;
})(globalThis.CausalAttention || (globalThis.CausalAttention = {}));
