// §3.5.1: hiding the future, the simple way (a 0/1 mask, then renormalising) and the
// efficient one (-inf before the softmax).
import { at } from '../slices.js';
import { fmt } from '../format.js';

export var sections = ['s1']; // after self.js's stages

export var kinds = {
  // mask_simple and mask: which keys a query may see.
  mask: function (x) {
    x.lines.push(
      'Key ' +
        x.tok(x.j) +
        (x.j > x.i
          ? ' comes after query ' + x.tok(x.i) + ': future, hidden'
          : ' is not after query ' + x.tok(x.i) + ': visible') +
        ', so ' +
        x.V +
        '.',
    );
  },
};

export var stages = {
  masked_simple: function (x) {
    x.lines.push(
      x.ops[0] +
        x.ij +
        ' × ' +
        x.ops[1] +
        x.ij +
        ' = ' +
        x.get(x.ops[0]) +
        ' × ' +
        x.get(x.ops[1]) +
        ' = ' +
        x.V,
    );
  },
  row_sums: function (x) {
    var T = x.cfg.tokens.length;
    x.lines.push(
      'row_sums[' +
        x.i +
        '] = Σ_j ' +
        x.ops[0] +
        '[' +
        x.i +
        ', j] = ' +
        x.rowOf(x.ops[0], 0, x.i).slice(0, 12).map(fmt).join(' + ') +
        (T > 12 ? ' + …' : '') +
        ' = ' +
        x.V,
    );
  },
  masked_simple_norm: function (x) {
    x.lines.push(
      x.ops[0] +
        x.ij +
        ' / ' +
        x.ops[1] +
        '[' +
        x.i +
        '] = ' +
        x.get(x.ops[0]) +
        ' / ' +
        x.get(x.ops[1], 0) +
        ' = ' +
        x.V,
    );
  },
  masked: function (x) {
    x.lines.push(
      x.j > x.i
        ? '−∞: j > i, key ' + x.tok(x.j) + ' comes after query ' + x.tok(x.i) + '.'
        : 'j ≤ i: attn_scores' + x.ij + ' = ' + x.V + ' is kept.',
    );
  },
  // The efficient way against the simple one (not an operand: the same weights, computed
  // another way).
  attn_weights_causal: function (x) {
    x.softmax(x.ops[0], 0, x.scale, '√d_k (√' + x.cfg.d_out + ')');
    x.lines.push(
      'exp(−∞) = 0. The simple way gave ' +
        x.get('masked_simple_norm') +
        ', off by ' +
        Math.abs(x.v - at(x.wt, 'masked_simple_norm', 0, x.i, x.j)).toExponential(2) +
        '.',
    );
  },
};
