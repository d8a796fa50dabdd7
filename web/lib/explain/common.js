// What every section's explanations share: a cell's context (its value, the configuration,
// the stage's operands from the core's table) and the ways of writing a step out.
import { info as stageInfo } from '../facts.js';
import { fmt } from '../format.js';
import { at, byId } from '../slices.js';

// An operand inside a sum: negatives in parentheses.
export function operand(x) {
  return x < 0 ? '(' + fmt(x) + ')' : fmt(x);
}
// A sum of products, written out (the first 8 terms).
export function terms(a, b) {
  for (var parts = [], k = 0; k < Math.min(a.length, 8); k++)
    parts.push(operand(a[k]) + '×' + operand(b[k]));
  return parts.join(' + ') + (a.length > 8 ? ' + … (' + a.length + ' terms)' : '');
}
// A list of numbers with the j-th in brackets.
export function list(a, j) {
  for (var parts = [], k = 0; k < Math.min(a.length, 12); k++)
    parts.push(k === j ? '[' + fmt(a[k]) + ']' : fmt(a[k]));
  return parts.join(', ') + (a.length > 12 ? ', …' : '');
}

/** The context of element [b, i, j] of stage `id`: x.lines collects the explanation's lines;
 *  x.ops are the ids of the stages it reads, in the order of the core's table (operands). */
export function context(wt, id, b, i, j) {
  var cfg = wt.config,
    info = stageInfo(id),
    n = byId(wt)[id].shape.length,
    v = at(wt, id, b, i, j),
    H = cfg.num_heads,
    h = b % H;
  var x = {
    wt: wt,
    id: id,
    info: info,
    ops: info.operands.map(function (o) {
      return o.id;
    }),
    cfg: cfg,
    b: b,
    i: i,
    j: j,
    v: v,
    V: fmt(v),
    ij: n > 1 ? '[' + i + ', ' + j + ']' : n ? '[' + j + ']' : '', // as the stage is indexed
    q: cfg.query_token,
    qn: cfg.query_token + 1, // the book's number for the query's names: query_2, x_2
    H: H,
    hd: cfg.d_out / H,
    h: h,
    bb: (b - h) / H,
    lines: [],
    // √d_k when the configuration scales the scores, else 1
    scale: cfg.scale ? Math.sqrt(cfg.d_out) : 1,
  };
  x.tok = function (k) {
    return '“' + cfg.tokens[k] + '”';
  };
  // Element [i, k] (or [i, j]) of another stage, as text.
  x.get = function (other, k) {
    return fmt(at(wt, other, 0, i, k === undefined ? j : k));
  };
  // Row r, and column c, of slice sb of a stage.
  x.rowOf = function (src, sb, r) {
    var shape = byId(wt)[src].shape,
      out = [];
    for (var k = 0; k < shape[shape.length - 1]; k++) out.push(at(wt, src, sb, r, k));
    return out;
  };
  x.colOf = function (src, sb, c) {
    for (var out = [], k = 0; k < byId(wt)[src].shape.slice(-2)[0]; k++)
      out.push(at(wt, src, sb, k, c));
    return out;
  };
  // Softmax of row r (default i) of src (slice sb) scaled by 1/d: exp and sum are recomputed
  // here in doubles to show the steps; the value is the core's float32.
  x.softmax = function (src, sb, d, why, r) {
    r = r === undefined ? i : r;
    var z = x.rowOf(src, sb, r).map(function (y) {
        return y / d;
      }),
      e = z.map(Math.exp);
    var sum = e.reduce(function (acc, y) {
      return acc + y;
    });
    x.lines.push(
      'softmax of ' +
        (byId(wt)[src].shape.length > 1 ? 'row ' + r + ' of ' : '') +
        src +
        (d > 1 ? ' / ' + why + ' = ' + fmt(d) : '') +
        ':',
      'z = ' + list(z, j),
      'exp(z) = ' + list(e, j) + ' (recomputed here in doubles)',
      'sum = ' + fmt(sum) + ' (recomputed)',
      id + x.ij + ' = exp(z_' + j + ') / sum = ' + x.V + ' (the core’s float32)',
    );
  };
  // A dot product of stage values, written out.
  x.dot = function (name, a, bb, plus) {
    x.lines.push(
      name,
      '= ' + terms(a, bb) + (plus === undefined ? '' : ' + ' + operand(plus)),
      '= ' + x.V,
    );
  };
  // Is this element equal, bit for bit, to element (sb, r, c) of stage other?
  x.same = function (other, sb, r, c) {
    var w = at(wt, other, sb, r, c),
      m = byId(wt)[other].shape.length;
    return (
      other +
      (m ? '[' + [sb, r, c].slice(3 - m).join(', ') + ']' : '') +
      ' = ' +
      fmt(w) +
      (Object.is(w, v)
        ? ': equal bit for bit.'
        : ': differs by ' + Math.abs(w - v).toExponential(2) + '.')
    );
  };
  return x;
}

/** A weight or bias of an nn.Linear drawn after torch.manual_seed(seed). */
export function linear(x, seed) {
  x.lines.push(
    (x.info.bias
      ? 'Bias of output feature ' + x.j
      : 'Input feature ' + x.j + ' → output feature ' + x.i) +
      ': uniform in ±1/√d_in = ±' +
      fmt(1 / Math.sqrt(byId(x.wt).inputs.shape[1])) +
      ' after torch.manual_seed(' +
      seed +
      ').',
  );
}
