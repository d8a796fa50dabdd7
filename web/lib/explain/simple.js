// §3.3: attention without trainable weights, for one query token (3.3.1), then for all (3.3.2).
import { fmt } from '../format.js';
import { list } from './common.js';

export var sections = ['simple-one', 'simple-all'];

export var stages = {
  inputs: function (x) {
    var randn = x.cfg.inputs.randn;
    x.lines.push(
      randn
        ? 'Number ' +
            (x.i * randn[1] + x.j + 1) +
            ' drawn by torch.randn(' +
            randn.join(', ') +
            ') after torch.manual_seed(' +
            x.cfg.inputs.seed +
            ').'
        : 'Feature ' + x.j + ' of token ' + x.tok(x.i) + ', as typed in the inputs table.',
    );
  },
  'simple.attn_scores_q': function (x) {
    var j = x.j,
      q = x.q;
    x.dot(
      'attn_scores_' +
        x.qn +
        '[' +
        j +
        '] = x_' +
        j +
        ' · x_' +
        q +
        '  (token ' +
        x.tok(j) +
        ', query ' +
        x.tok(q) +
        ')',
      x.rowOf(x.ops[0], 0, j),
      x.rowOf(x.ops[0], 0, q),
    );
  },
  'simple.attn_weights_q_tmp': function (x) {
    var sc = x.rowOf(x.ops[0], 0, 0);
    x.lines.push(
      'attn_scores_' +
        x.qn +
        '[' +
        x.j +
        '] / attn_scores_' +
        x.qn +
        '.sum() = ' +
        fmt(sc[x.j]) +
        ' / Σ(' +
        list(sc) +
        ')',
      '= ' +
        x.V +
        ' (the sum, ' +
        fmt(
          sc.reduce(function (a, b) {
            return a + b;
          }),
        ) +
        ', recomputed here in doubles)',
    );
  },
  // The book's softmax_naive and torch.softmax, each compared with the other.
  'simple.attn_weights_q_naive': function (x) {
    x.softmax(x.ops[0], 0, 1, '', 0);
    x.lines.push(
      'No max subtracted (the book’s softmax_naive). ' +
        x.same('simple.attn_weights_q', 0, 0, x.j).replace(/^/, 'torch.softmax: '),
    );
  },
  'simple.attn_weights_q': function (x) {
    x.softmax(x.ops[0], 0, 1, '', 0);
    x.lines.push(
      'torch.softmax subtracts the largest score first. ' +
        x.same('simple.attn_weights_q_naive', 0, 0, x.j).replace(/^/, 'softmax_naive: '),
    );
  },
  'simple.context_vec_q': function (x) {
    x.dot(
      'context_vec_' +
        x.qn +
        '[' +
        x.j +
        '] = Σ_i attn_weights_' +
        x.qn +
        '[i] · x_i[' +
        x.j +
        '], i = 0, 1, … (the loop’s order)',
      x.rowOf(x.ops[0], 0, 0),
      x.colOf(x.ops[1], 0, x.j),
    );
  },
  // §3.3.2: every row is §3.3.1's computation for another query.
  'simple.attn_scores': function (x) {
    x.dot(
      'attn_scores' +
        x.ij +
        ' = x_' +
        x.i +
        ' · x_' +
        x.j +
        '  (' +
        x.tok(x.i) +
        ', ' +
        x.tok(x.j) +
        ')',
      x.rowOf(x.ops[0], 0, x.i),
      x.rowOf(x.ops[1], 0, x.j),
    );
    if (x.i === x.q) x.lines.push(x.same('simple.attn_scores_q', 0, 0, x.j));
  },
  'simple.attn_weights': function (x) {
    x.softmax(x.ops[0], 0, 1);
  },
  'simple.all_context_vecs': function (x) {
    x.dot(
      'all_context_vecs' + x.ij + ' = Σ_k attn_weights[' + x.i + ', k] · inputs[k, ' + x.j + ']',
      x.rowOf(x.ops[0], 0, x.i),
      x.colOf(x.ops[1], 0, x.j),
    );
    if (x.i === x.q) x.lines.push(x.same('simple.context_vec_q', 0, 0, x.j));
  },
};
