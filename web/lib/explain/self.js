// §3.5.1's start: SelfAttention_v2's projections, scores, weights and context vectors.
import { byId } from '../slices.js';
import { linear, operand, terms } from './common.js';

export var sections = ['s1'];

export var kinds = {
  weights: function (x) {
    linear(x, x.cfg.seed_weights);
  },
};

// x_i · W[j] (+ b[j]): an nn.Linear's output (operands: inputs, its weight, its bias).
function projection(x) {
  var bias = byId(x.wt)[x.ops[2]],
    plus = bias ? ' + ' + x.ops[2] + '[' + x.j + ']' : '';
  x.lines.push(
    x.id +
      x.ij +
      ' = x_' +
      x.i +
      ' · ' +
      x.ops[1] +
      '[' +
      x.j +
      ']' +
      plus +
      '  (token ' +
      x.tok(x.i) +
      ')',
    '= ' +
      terms(x.rowOf(x.ops[0], 0, x.i), x.rowOf(x.ops[1], 0, x.j)) +
      (bias ? ' + ' + operand(bias.data[x.j]) : ''),
    '= ' + x.V,
  );
}

export var stages = {
  queries: projection,
  keys: projection,
  values: projection,
  attn_scores: function (x) {
    var i = x.i,
      j = x.j;
    x.lines.push(
      'ω' + x.ij + ' = q_' + i + ' · k_' + j + '  (query ' + x.tok(i) + ', key ' + x.tok(j) + ')',
      '= ' + terms(x.rowOf(x.ops[0], 0, i), x.rowOf(x.ops[1], 0, j)),
      '= ' + x.V,
    );
  },
  attn_weights: function (x) {
    x.softmax(x.ops[0], 0, x.scale, '√d_k (√' + x.cfg.d_out + ')');
  },
  context_vec: function (x) {
    x.lines.push(
      'context_vec' + x.ij + ' = Σ_k attn_weights[' + x.i + ', k] · values[k, ' + x.j + ']',
      '= ' + terms(x.rowOf(x.ops[0], 0, x.i), x.colOf(x.ops[1], 0, x.j)),
      '= ' + x.V,
    );
  },
};
