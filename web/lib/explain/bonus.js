// The bonus notebook's implementations (docs/bonus.md): combined QKV (ch03/02.3), einsum (ch03/02.4), the
// blocked pass of scaled_dot_product_attention (ch03/02.5) and nn.MultiheadAttention (ch03/02.7). Most
// explanations say which of §3.6.2's numbers a cell equals, bit for bit or by how much not.
import { fmt } from '../format.js';
import { at, byId } from '../slices.js';

export var sections = ['bonus-qkv', 'bonus-einsum', 'bonus-flash', 'bonus-torchmha'];

// A stage of the run, or undefined (a widget may show one stage alone).
function has(x, id) {
  return byId(x.wt)[id];
}
// "… equals mha.context_vecs[b, i, j] …", when that stage was computed.
function compare(x, other, sb, r, c) {
  if (has(x, other)) x.lines.push(x.same(other, sb, r, c));
}
// Units in the last place of float32 y.
function ulps(d, y) {
  var e = Math.floor(Math.log2(Math.abs(y) || 1e-45));
  return d / Math.pow(2, Math.max(e, -126) - 23);
}
// The key block k: its first key and one past its last, seen by query i (causal).
function keyBlock(x, k) {
  var T = x.cfg.tokens.length,
    block = Math.ceil(T / 4);
  return [k * block, Math.min((k + 1) * block, T, x.i + 1), block];
}

var inits = {
  qkv: 'nn.Linear(d_in, 3·d_out): one kaiming_uniform_ over its 3·d_out rows, U(±1/√d_in)',
  einsum: 'torch.randn, then kaiming_uniform_(a=√5) with fan_in = size(1) = d_out: U(±1/√d_out)',
  torchmha: 'xavier_uniform_: U(±√(6 / (d_out + 3·d_out)))',
};

export var kinds = {
  weights: function (x) {
    var part = x.info.part,
      proj = /proj/.test(x.id),
      bias = x.info.bias || x.info.rows === 'bias';
    x.lines.push(
      (bias
        ? 'Bias of output feature ' + x.j
        : x.info.rows === 'in'
          ? 'Input feature ' + x.i + ' → output feature ' + x.j + ' (used as x @ W)'
          : 'Output feature ' + x.i + ' ← input feature ' + x.j) +
        ', drawn after torch.manual_seed(' +
        x.cfg.seed_class +
        '): ' +
        (proj ? 'nn.Linear(d_out, d_out), U(±1/√d_out)' : inits[part] || 'U(±1/√fan_in)') +
        '.',
    );
    if (x.id === 'qkv.weight' && !x.cfg.qkv_bias) {
      var d = x.cfg.d_out,
        which = Math.floor(x.i / d);
      compare(x, ['mha.W_query', 'mha.W_key', 'mha.W_value'][which], 0, x.i % d, x.j);
    }
    if (x.id === 'qkv.proj.weight' && !x.cfg.qkv_bias)
      compare(x, 'mha.out_proj.weight', 0, x.i, x.j);
  },
};

export var stages = {
  'qkv.qkv': function (x) {
    var d = x.cfg.d_out,
      which = Math.floor(x.j / d),
      c = x.j % d,
      h = Math.floor(c / x.hd),
      bias = has(x, 'qkv.bias');
    x.dot(
      'qkv' +
        '[' +
        [x.b, x.i, x.j].join(', ') +
        '] = batch[' +
        [x.b, x.i].join(', ') +
        '] · qkv.weight[' +
        x.j +
        ']' +
        (bias ? ' + qkv.bias[' + x.j + ']' : '') +
        ': the ' +
        ['queries', 'keys', 'values'][which] +
        ', head ' +
        h +
        ', column ' +
        (c % x.hd),
      x.rowOf('batch', x.b, x.i),
      x.rowOf('qkv.weight', 0, x.j),
      bias && bias.data[x.j],
    );
    if (!x.cfg.qkv_bias)
      compare(x, ['mha.queries', 'mha.keys', 'mha.values'][which], x.b * x.H + h, x.i, c % x.hd);
  },
  'qkv.context_vecs': function (x) {
    x.lines.push(
      'view, permute and unbind cut qkv into queries, keys and values; the rest is §3.6.2’s ' +
        'forward, line for line.',
    );
    compare(x, 'mha.context_vecs', x.b, x.i, x.j);
  },
  'einsum.scores': function (x) {
    var bb = x.bb,
      h = x.h,
      d = x.cfg.scale ? Math.sqrt(x.hd) : 1;
    if (x.j > x.i)
      x.lines.push(
        '−∞: masked_fill after the division; key ' +
          x.tok(x.j) +
          ' comes after query ' +
          x.tok(x.i) +
          '.',
      );
    else
      x.lines.push(
        'einsum("bhnd,bhmd->bhnm", Q, K)[' +
          [bb, h, x.i, x.j].join(', ') +
          '] = Σ_d Q[' +
          [bb, h, x.i].join(', ') +
          ', d] · K[' +
          [bb, h, x.j].join(', ') +
          ', d], a bmm of head ' +
          h +
          (d > 1 ? ', then / √head_dim = ' + fmt(d) : '') +
          ' = ' +
          x.V,
        'Q and K are batch @ W_query and batch @ W_key (einsum "bnd,do->bno"), cut into heads.',
      );
  },
  'einsum.context_vecs': function (x) {
    x.lines.push(
      'softmax of the scores above (already divided), then einsum("bhnm,bhmd->bhnd") with V, ' +
        'the heads side by side, out_proj: with MHAEinsum’s own weights.',
    );
  },
  'einsum.copied.context_vecs': function (x) {
    x.lines.push('MHAEinsum given mha’s weights, transposed (W_query = mha.W_query.weight.T):');
    compare(x, 'mha.context_vecs', x.b, x.i, x.j);
  },
  'flash.running_max': function (x) {
    var k = x.j,
      r = keyBlock(x, k),
      own = Math.floor(x.i / r[2]);
    x.lines.push(
      k > own
        ? 'Key block ' +
            k +
            ' comes after query ' +
            x.tok(x.i) +
            '’s own block (' +
            own +
            '): never computed, the max carries over.'
        : 'm after key block ' +
            k +
            ' (keys ' +
            r[0] +
            '…' +
            (r[1] - 1) +
            '): torch.maximum(m, max of this block’s scaled scores) = ' +
            x.V,
    );
    // The plain softmax's max of the row, over the same keys: the same bits.
    var scores = has(x, 'mha.attn_scores');
    if (scores && !x.cfg.qkv_bias) {
      var d = Math.fround(x.cfg.scale ? Math.sqrt(x.hd) : 1),
        last = Math.min(x.i, (Math.min(k, own) + 1) * r[2] - 1),
        m = -Infinity;
      for (var jj = 0; jj <= last; jj++)
        m = Math.max(m, Math.fround(at(x.wt, 'mha.attn_scores', x.b, x.i, jj) / d));
      x.lines.push(
        'The plain softmax’s max over keys 0…' +
          last +
          ' (mha.attn_scores / √head_dim) = ' +
          fmt(m) +
          (Object.is(m, x.v) ? ': equal bit for bit (a max rounds nothing).' : '.'),
      );
    }
  },
  'flash.running_sum': function (x) {
    var k = x.j;
    x.lines.push(
      'l after key block ' +
        k +
        ': l · exp(m_old − m_new) + Σ exp(score − m_new) over the block = ' +
        x.V +
        '. Each block’s exponentials are taken against the max so far and rescaled when it ' +
        'grows; the plain softmax takes them once, against the row’s final max.',
    );
    var w = has(x, 'mha.attn_scores');
    if (w && !x.cfg.qkv_bias && k === byId(x.wt)['flash.running_sum'].shape[3] - 1) {
      var d = Math.fround(x.cfg.scale ? Math.sqrt(x.hd) : 1),
        z = [];
      for (var jj = 0; jj <= x.i; jj++) z.push(at(x.wt, 'mha.attn_scores', x.b, x.i, jj) / d);
      var m = Math.max.apply(null, z),
        sum = z.reduce(function (acc, y) {
          return acc + Math.exp(y - m);
        }, 0);
      x.lines.push(
        'The plain softmax’s sum, recomputed here in doubles: ' +
          fmt(sum) +
          ' (differs by ' +
          Math.abs(sum - x.v).toExponential(2) +
          ').',
      );
    }
  },
  'flash.context_vec': function (x) {
    x.lines.push(
      'acc / l: acc is Σ exp(score − m) · value over the blocks, rescaled like l; the ' +
        'division comes last, where the plain softmax divides each weight first.',
    );
    if (!x.cfg.qkv_bias) compare(x, 'mha.context_vec', x.b, x.i, x.j);
  },
  'flash.context_vecs': function (x) {
    x.lines.push('proj of the row above, MultiHeadAttentionCombinedQKV’s weights.');
    compare(x, 'qkv.context_vecs', x.b, x.i, x.j);
  },
  'flash.difference': function (x) {
    var plain = has(x, 'qkv.context_vecs') ? at(x.wt, 'qkv.context_vecs', x.b, x.i, x.j) : 0;
    x.lines.push(
      'flash.context_vecs − qkv.context_vecs = ' +
        x.V +
        (plain
          ? ' = ' +
            ulps(Math.abs(x.v), plain).toFixed(1) +
            ' units in the last place of ' +
            fmt(plain)
          : '') +
        '. Rounding only: with dropout on in training, qkv.context_vecs also drops weights.',
    );
  },
  'torchmha.context_vecs': function (x) {
    x.lines.push(
      'proj(out_proj(attention)): PyTorch’s in_proj (one (3·d_out, d_out) product), q / √head_dim, ' +
        'baddbmm with the −∞ mask, softmax, bmm, out_proj without bias, then the wrapper’s proj.',
    );
  },
  'torchmha.attn_weights': function (x) {
    if (x.j > x.i) x.lines.push('0: the −∞ of the mask in every head.');
    else
      x.lines.push(
        'need_weights=True: the mean over the ' +
          x.H +
          ' heads of softmax((q/√head_dim)·k) (sum(dim=1) / H, heads added in order) = ' +
          x.V,
      );
  },
  'torchmha.copied.context_vecs': function (x) {
    x.lines.push(
      'Given mha’s weights (in_proj = cat(W_query, W_key, W_value), proj = identity + ' +
        'out_proj.bias). PyTorch divides q before the product, the chapter the scores after:',
    );
    compare(x, 'mha.context_vecs', x.b, x.i, x.j);
  },
};
