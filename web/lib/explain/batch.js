// §3.5.2 and §3.5.3: dropout on the attention weights, then the compact class on a batch.
import { f32, fmt } from '../format.js';
import { at } from '../slices.js';
import { linear } from './common.js';

export var sections = ['s4', 's5'];

// Kept or dropped: the table's `dropout` names the stage whose zeros mark the dropped cells;
// the weights dropped are the first operand (none: a matrix of ones).
function dropout(x) {
  var cfg = x.cfg,
    p = cfg.dropout,
    w = x.ops.length ? at(x.wt, x.ops[0], 0, x.i, x.j) : 1;
  x.lines.push(
    !cfg.train
      ? 'Eval mode: dropout is the identity, ' + x.V + '.'
      : !p
        ? 'p = 0: dropout keeps everything, ' + x.V + '.'
        : at(x.wt, x.info.dropout, 0, x.i, x.j)
          ? 'Kept: ' + fmt(w) + ' × 1/(1−p) = ' + fmt(w) + ' × ' + f32(1 / (1 - p)) + ' = ' + x.V
          : 'Dropped (p = ' + p + '): ' + fmt(w) + ' becomes 0.',
    'Generator: ' + cfg.rng + ', torch.manual_seed(' + cfg.seed_dropout + ').',
  );
}

export var kinds = {
  // ca's own nn.Linear weights
  weights: function (x) {
    linear(x, x.cfg.seed_class);
  },
};

export var stages = {
  dropout_example: dropout,
  attn_weights_dropped: dropout,
  batch: function (x) {
    x.lines.push('torch.stack copies inputs' + x.ij + ' into batch element ' + x.b + '.');
  },
  context_vecs: function (x) {
    x.lines.push(
      'ca(batch) repeats sections 1 to 3 (and dropout p = ' +
        x.cfg.class_dropout +
        ') with its own weights ca.W_*, on batch element ' +
        x.b +
        ', token ' +
        x.tok(x.i) +
        ', output feature ' +
        x.j +
        '.',
    );
  },
};
