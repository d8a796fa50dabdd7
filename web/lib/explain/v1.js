// §3.4: trainable weights, step by step for one query (3.4.1), then as a class (3.4.2).
import { byId } from '../slices.js';

export var sections = ['v1-steps', 'v1-class'];

// x_i · W[:, j]: a projection by a (d_in, d_out) matrix, used as x @ W.
function projection(name) {
  return function (x) {
    x.dot(
      name + x.ij + ' = x_' + x.i + ' · ' + x.ops[1].slice(3) + '[:, ' + x.j + ']',
      x.rowOf(x.ops[0], 0, x.i),
      x.colOf(x.ops[1], 0, x.j),
    );
  };
}

export var kinds = {
  // W_query, W_key, W_value: torch.rand in turn after one seed.
  weights: function (x) {
    var st = byId(x.wt)[x.id],
      order = ['W_query', 'W_key', 'W_value'].indexOf(x.id.slice(3));
    x.lines.push(
      'Row ' +
        x.i +
        ' = input feature ' +
        x.i +
        ', column ' +
        x.j +
        ' = output feature ' +
        x.j +
        ': (d_in, d_out), used as x @ W. nn.Linear stores the transpose, (d_out, d_in).',
      'torch.rand: number ' +
        (order * st.data.length + x.i * st.shape[1] + x.j + 1) +
        ' in [0, 1) after torch.manual_seed(' +
        x.cfg.seed_v1 +
        ') (query, key, value in turn).',
    );
  },
};

export var stages = {
  'v1.query_q': function (x) {
    x.dot(
      'query_' +
        x.qn +
        '[' +
        x.j +
        '] = inputs[' +
        x.q +
        '] · W_query[:, ' +
        x.j +
        ']  (token ' +
        x.tok(x.q) +
        ')',
      x.rowOf(x.ops[0], 0, x.q),
      x.colOf(x.ops[1], 0, x.j),
    );
  },
  'v1.keys': projection('keys'),
  'v1.values': projection('values'),
  'v1.attn_score_qq': function (x) {
    x.dot(
      'attn_score_' + x.qn + x.qn + ' = query_' + x.qn + ' · keys[' + x.q + ']',
      x.rowOf(x.ops[0], 0, 0),
      x.rowOf(x.ops[1], 0, x.q),
    );
  },
  'v1.attn_scores_q': function (x) {
    x.dot(
      'attn_scores_' +
        x.qn +
        '[' +
        x.j +
        '] = query_' +
        x.qn +
        ' · keys[' +
        x.j +
        ']  (key ' +
        x.tok(x.j) +
        ')',
      x.rowOf(x.ops[0], 0, 0),
      x.rowOf(x.ops[1], 0, x.j),
    );
    if (x.j === x.q) x.lines.push(x.same('v1.attn_score_qq', 0, 0, 0));
  },
  'v1.attn_weights_q': function (x) {
    x.softmax(x.ops[0], 0, x.scale, '√d_k (√' + x.cfg.d_out + ')', 0);
  },
  'v1.context_vec_q': function (x) {
    x.dot(
      'context_vec_' +
        x.qn +
        '[' +
        x.j +
        '] = Σ_k attn_weights_' +
        x.qn +
        '[k] · values[k, ' +
        x.j +
        ']',
      x.rowOf(x.ops[0], 0, 0),
      x.colOf(x.ops[1], 0, x.j),
    );
  },
  // §3.4.2: the class repeats the steps for every token.
  'v1.context_vecs': function (x) {
    x.lines.push(
      'SelfAttention_v1 re-seeded with ' +
        x.cfg.seed_v1 +
        ' draws the same W_query, W_key, W_value and repeats the steps for token ' +
        x.tok(x.i) +
        '.',
    );
    if (x.i === x.q) x.lines.push(x.same('v1.context_vec_q', 0, 0, x.j));
  },
  'v1_from_v2.context_vecs': function (x) {
    x.lines.push(
      'SelfAttention_v1 with W = sa_v2’s nn.Linear weights transposed, (d_out, d_in) → (d_in, d_out): x @ W.T adds the same products in the same order.',
      x.same('context_vec', 0, x.i, x.j),
    );
  },
};
