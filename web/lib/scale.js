// The colour scale of a table, one rule per stage kind (styles.js holds the colours): tables,
// colour keys, heatmaps and exports all read it here.
import { el } from './dom.js';
import { fmt } from './format.js';
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

/** The colour scale of matrix m of a stage of facts `info`, for its table, colour key, heatmap
 *  and exports alike: {seq, top, lo, hi}; a value x is shaded at |x| / top (sequential kinds
 *  over [0, max(1, largest)], diverging ones over ±max |x|); lo and hi: its finite range. Null
 *  when nothing is finite. */
export function scale(m, info) {
  var lo = Infinity,
    hi = -Infinity,
    i,
    j,
    x;
  for (i = 0; i < m.rows; i++)
    for (j = 0; j < m.cols; j++)
      if (isFinite((x = m.value(i, j)))) {
        lo = Math.min(lo, x);
        hi = Math.max(hi, x);
      }
  if (lo > hi) return null;
  var seq = sequential(info.kind);
  return {
    seq: seq,
    top: (seq ? Math.max(1, hi, -lo) : Math.max(-lo, hi)) || 1,
    lo: lo,
    hi: hi,
  };
}
// A cell's colour on scale sc: --v = |x| / top; the colours are in styles.js.
export function shade(node, x, sc) {
  node.classList.add(sc.seq ? 'h' : 'd');
  if (x < 0) node.classList.add('ng');
  node.style.setProperty('--v', (Math.abs(x) / sc.top).toFixed(4));
}
/** The colour key of scale sc: the table's range, lo to hi, in 12 steps of the cells' own rule. */
export function key(doc, sc) {
  var k = el(doc, 'div', 'ck'),
    strip = el(doc, 'span', 'ks');
  k.appendChild(el(doc, 'span', 'sr', 'Colour key: '));
  k.appendChild(el(doc, 'span', 'kl', fmt(sc.lo)));
  for (var n = 0; n < 12; n++)
    shade(
      strip.appendChild(el(doc, 'span')),
      n === 11 ? sc.hi : sc.lo + ((sc.hi - sc.lo) * n) / 11,
      sc,
    );
  strip.setAttribute('aria-hidden', 'true');
  k.appendChild(strip);
  k.appendChild(el(doc, 'span', 'kh', fmt(sc.hi)));
  k.appendChild(
    el(
      doc,
      'span',
      '',
      sc.seq
        ? '(shade ∝ value on 0 to ' + fmt(sc.top) + ': faint = small)'
        : '(shade ∝ |value| up to ' + fmt(sc.top) + '; blue > 0, red < 0)',
    ),
  );
  return k;
}
