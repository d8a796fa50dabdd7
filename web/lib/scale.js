// The colour scale of a table, one rule per stage kind (styles.js holds the colours): tables,
// colour keys, heatmaps and exports all read it here.
import { el } from './dom.js';
import { fmt, readsZero, torchFormat } from './format.js';
import { byId } from './slices.js';

/** (i, j) → [masked, dropped] for the table m of stage st: masked above the diagonal of a
 *  causal stage, dropped where the stage's dropout pattern has a zero. */
export function marks(st, wt, info, m) {
  var pattern = info.dropout && byId(wt)[info.dropout];
  return function (i, j) {
    var masked = info.causal && j > i;
    return [
      masked,
      !!pattern &&
        (pattern === st ? m.value(i, j) === 0 && !masked : pattern.data[i * m.cols + j] === 0),
    ];
  };
}
// The colour rule of each stage kind: sequential from 0 (probabilities, and the 0/1 masks) or
// diverging around 0 (the signed kinds). The one table of it: add a kind here.
var RULES = {
  probabilities: 'sequential',
  mask: 'sequential',
  scores: 'diverging',
  values: 'diverging',
  weights: 'diverging',
};

/** Is stage kind `kind` shaded on the sequential scale (else the diverging one)? */
export function sequential(kind) {
  return RULES[kind] === 'sequential';
}

// The scale of probabilities: relative to uniform attention (a weight of 1/n, n the row's
// visible keys, is the middle shade, 2/n or more the darkest: rows of 0.15-0.24 or of 1/1024
// show which keys get more or less than an even share) or absolute (0 to 1). One switch for
// the whole document: tables, keys, heatmaps, drawings and exports read it.
var mode = { absolute: false };
/** Shade probabilities on the absolute 0-1 scale (true) or relative to each row (false). */
export function setAbsolute(on) {
  mode.absolute = !!on;
}
export function isAbsolute() {
  return mode.absolute;
}
/** Is stage `info` shaded relative to uniform attention? (probabilities, unless the absolute
 *  scale is on). */
export function relative(info) {
  return info.kind === 'probabilities' && !mode.absolute;
}
/** The relative shade of weight x in a row of n visible keys: x ÷ (2/n), at most 1. */
export function share(x, n) {
  return Math.min(1, (Math.abs(x) * n) / 2);
}

/** The colour scale of matrix m of a stage of facts `info`, for its table, colour key, heatmap
 *  and exports alike: {seq, rel, top, lo, hi, rows, causal, v(i, x)}. v(i, x): the shade of
 *  value x of row i, |x| / top (sequential kinds over [0, max(1, largest)], diverging ones
 *  over ±max |x|), or, relative (rel), share(x, row i's visible keys). Masked cells (above
 *  the diagonal of a causal stage) are not shaded and do not count; lo and hi: the finite
 *  range of the others. Null when nothing is finite. */
export function scale(m, info) {
  var lo = Infinity,
    hi = -Infinity,
    rel = relative(info),
    cut = info.causal && info.kind !== 'mask', // a mask's own cells are its values
    rows = new Float64Array(m.rows),
    d = m.data,
    i,
    j,
    x;
  // Straight from the array (not m.value): a 1024 × 1024 head in a few ms, not 25
  for (i = 0; i < m.rows; i++)
    for (j = 0; j < m.cols; j++)
      if (!(cut && j > i) && isFinite((x = d[m.offset + i * m.cols + j]))) {
        lo = Math.min(lo, x);
        hi = Math.max(hi, x);
        rows[i]++; // its visible keys
      }
  if (lo > hi) return null;
  var seq = sequential(info.kind),
    top = (seq ? Math.max(1, hi, -lo) : Math.max(-lo, hi)) || 1;
  return {
    seq: seq,
    rel: rel,
    top: top,
    lo: lo,
    hi: hi,
    rows: rows,
    causal: !!cut,
    v: function (i, x) {
      return rel ? share(x, rows[i]) : Math.abs(x) / top;
    },
  };
}
// A cell's colour: --v = t (the shade, 0 to 1) on scale sc; the colours are in styles.js.
export function shade(node, x, sc, t) {
  node.classList.add(sc.seq ? 'h' : 'd');
  if (x < 0) node.classList.add('ng');
  node.style.setProperty('--v', t.toFixed(4));
}
/** The colour key of scale sc in 12 steps of the cells' own rule: the table's range, lo to
 *  hi, or, relative, 0 to twice uniform attention; and a swatch of the masked cells' colour. */
export function key(doc, sc) {
  // print()'s %.4e when 4 decimals would label the whole range 0.0000 (table.js's textOf)
  var text = readsZero(sc.top) ? torchFormat({ shape: [1], data: [sc.top] }) : fmt,
    k = el(doc, 'div', 'ck'),
    strip = el(doc, 'span', 'ks');
  k.dataset.scale = sc.rel ? 'row' : 'absolute';
  k.appendChild(el(doc, 'span', 'sr', 'Colour key: '));
  k.appendChild(el(doc, 'span', 'kl', sc.rel ? '0' : text(sc.lo)));
  for (var n = 0; n < 12; n++) {
    var x = sc.rel ? n / 11 : n === 11 ? sc.hi : sc.lo + ((sc.hi - sc.lo) * n) / 11;
    shade(strip.appendChild(el(doc, 'span')), x, sc, sc.rel ? x : Math.abs(x) / sc.top);
  }
  strip.setAttribute('aria-hidden', 'true');
  k.appendChild(strip);
  k.appendChild(el(doc, 'span', 'kh', sc.rel ? '2 × uniform' : text(sc.hi)));
  k.appendChild(
    el(
      doc,
      'span',
      '',
      sc.rel
        ? '(shade ∝ weight × its row’s n visible keys: the middle shade is uniform attention, 1/n; darker, more than an even share; weights ' +
            text(sc.lo) +
            ' to ' +
            text(sc.hi) +
            ')'
        : sc.seq
          ? '(shade ∝ value on 0 to ' + text(sc.top) + ': faint = small)'
          : '(shade ∝ |value| up to ' + text(sc.top) + '; blue > 0, red < 0)',
    ),
  );
  if (sc.causal) {
    var mk = k.appendChild(el(doc, 'span', 'km'));
    mk.appendChild(el(doc, 'span', 'm mk')).setAttribute('aria-hidden', 'true');
    mk.appendChild(doc.createTextNode('masked'));
  }
  return k;
}
