// Numbers as text: the tables' 4 decimals, print()'s format, float32's shortest form, and
// what a typed number means.

import { flat, isBig } from './slices.js';

/** Would 4 decimals show every value up to `top` (the largest |value|) as 0.0000 while some is
 *  not zero? Then the tables and their colour keys use print()'s %.4e (torchFormat). */
export function readsZero(top) {
  return top > 0 && top < 5e-5;
}
/** Integer n with commas between thousands: toLocaleString('en')'s text, without the 50-80 ms
 *  its first call spends starting ICU (in the task that shows exercise 3.3's result). */
export function grouped(n) {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}
/** A number as the tables show it: 4 decimals, like PyTorch's print. */
export function fmt(x) {
  return x === -Infinity ? '−∞' : x === Infinity ? '∞' : x !== x ? 'nan' : x.toFixed(4);
}
/** How the tables, and the Markdown and LaTeX exports, write stage st's numbers: 4 decimals
 *  (fmt), or the whole tensor's print() format for a stage whose every nonzero value print()
 *  shows is below 0.00005 (readsZero: the blocked pass's difference from the plain softmax,
 *  ~3e-8). The CLI's Markdown has the same rule (src/cli/torch_format.cpp table_format). */
export function tableFormat(st) {
  if (isBig(st)) return fmt; // its data may be in a Worker's parts: not read for this
  var top = 0;
  for (var k of shownIndices(st.shape)) top = Math.max(top, Math.abs(st.data[k]) || 0); // NaN: 0
  return readsZero(top) ? torchFormat(st) : fmt;
}
// C's printf("%.*f" or "%.*e"): JS rounds exact ties away from zero, C to even; Python's
// two-digit exponent; the sign of -0 kept.
function printf(x, p, sci) {
  var f = sci ? 'toExponential' : 'toFixed',
    s = Math.abs(x)[f](p),
    t = Math.abs(x)[f](100),
    k = t.indexOf('.') + p + 1;
  if (p && t[k] === '5' && /^0*(e|$)/.test(t.slice(k + 1)) && t[k - 1] % 2 === 0)
    s = t.slice(0, k) + (sci ? s.slice(s.indexOf('e')) : '');
  return (x < 0 || Object.is(x, -0) ? '-' : '') + s.replace(/e([-+])(\d)$/, 'e$10$2');
}
/** The flat indices of the values print() shows for a tensor of this shape: all of them, or
 *  the 3 edge items of every dimension longer than 6 above 1000 values (torch/_tensor_str.py's
 *  summarising, edgeitems 3, threshold 1000). */
export function shownIndices(shape) {
  if (!shape.length) return [0]; // a 0-D tensor: its one value
  var n = shape.reduce(function (a, b) {
      return a * b;
    }, 1),
    out = [];
  (function walk(off, d) {
    var stride =
      n /
      shape.slice(0, d + 1).reduce(function (a, b) {
        return a * b;
      }, 1);
    for (var i = 0; i < shape[d]; i++) {
      if (n > 1000 && shape[d] > 6 && i === 3) i = shape[d] - 3;
      if (d < shape.length - 1) walk(off + i * stride, d + 1);
      else out.push(off + i);
    }
  })(0, 0);
  return out;
}
/** Stage st's numbers as print() shows them (torch/_tensor_str.py, ported like the CLI's
 *  torch_format.cpp): one mode for the tensor, measured over what print() shows
 *  (shownIndices): integers as "2.", else 4 decimals, or %.4e when wide. */
export function torchFormat(st) {
  var ints = true,
    min = Infinity,
    max = 0;
  // (an on-demand stage's matrices not fetched yet read undefined, and do not count)
  var vals = shownIndices(st.shape).map(function (k) {
    return flat(st, k);
  });
  vals.forEach(function (v) {
    if (!isFinite(v) || !v) return;
    min = Math.min(min, Math.abs(v));
    max = Math.max(max, Math.abs(v));
    ints = ints && v === Math.ceil(v);
  });
  var sci = max / min > 1000 || max > 1e8 || (!ints && min < 1e-4);
  return function (x) {
    return x !== x
      ? 'nan'
      : !isFinite(x)
        ? (x < 0 ? '-' : '') + 'inf'
        : sci
          ? printf(x, 4, 1)
          : ints
            ? printf(x, 0) + '.'
            : printf(x, 4);
  };
}
/** The shortest decimal that reads back as the same float32. */
export function f32(x) {
  for (var digits = 1; digits < 10; digits++) {
    var text = String(Number(x.toPrecision(digits)));
    if (Math.fround(text) === x) return text;
  }
  return String(x);
}
// The value of a number typed into a control: a number when the text is one, else the
// text itself, so that the core names the problem.
export function parseNumber(text) {
  text = text.trim();
  if (/^-?\d+$/.test(text) && !Number.isSafeInteger(+text)) return BigInt(text); // exact seeds
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? +text : text;
}
