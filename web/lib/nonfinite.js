// Where inf or NaN first appear in a walkthrough (inputs near float32's limit of ±3.4e38, or
// large scores without scaling overflow): a note for those stages, since every later stage
// inherits them. The −∞ that the causal mask puts above the diagonal is deliberate and does
// not count.
import { info as stageInfo } from './facts.js';

var INF = 'Values overflow float32 here (beyond ±3.4e38) and become ±inf. ';
var NAN = 'NaN appears here (inf − inf, 0 × inf or inf / inf in the arithmetic). ';
var SAME =
  'PyTorch gives the same inf and NaN for these inputs; every stage computed from this one inherits them.';

// {inf, nan}: which non-finite values stage st holds, the mask's −∞ left out.
function found(st) {
  var shape = st.shape,
    cols = shape[shape.length - 1],
    rows = shape.length > 1 ? shape[shape.length - 2] : 1,
    info = stageInfo(st.id),
    causal = info && info.causal,
    out = { inf: false, nan: false };
  // A stage computed on demand (page/pool.js): the matrices that arrived (those shown; the
  // Workers are not asked for all of it to scan it).
  (st.slices || [st.data]).forEach(function (d, m) {
    // x × 0 is NaN for ±inf and NaN, 0 for every finite x: one pass without branches finds
    // whether the values are all finite (most are; scanning each value's kind was 20% of a
    // T = 32 edit's script).
    var any = 0,
      n;
    for (n = 0; n < d.length; n++) any += d[n] * 0;
    if (any === 0) return;
    for (n = 0; n < d.length; n++) {
      var x = d[n],
        k = m * rows * cols + n;
      if (x !== x) out.nan = true;
      else if (!out.inf && (x === Infinity || x === -Infinity)) {
        var i = Math.floor(k / cols) % rows,
          j = k % cols;
        if (!(causal && x === -Infinity && j > i)) out.inf = true;
      }
    }
  });
  return out;
}

/** {stage id: note} for the stages where inf or NaN first appear (cached on wt). */
export function nonFinite(wt) {
  if (!wt._nonFinite) {
    var seen = { inf: false, nan: false },
      notes = {};
    wt.stages.forEach(function (st) {
      var f = found(st),
        text = (f.inf && !seen.inf ? INF : '') + (f.nan && !seen.nan ? NAN : '');
      if (text) notes[st.id] = text + SAME;
      seen.inf = seen.inf || f.inf;
      seen.nan = seen.nan || f.nan;
    });
    wt._nonFinite = notes;
  }
  return wt._nonFinite;
}
