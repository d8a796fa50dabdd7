// A stage's data as the views read it: stages by id, an element, the rows × cols matrix of a
// slice with its labels, a slice's name. Facts of a stage come from the core's table (facts.js).
import { info as stageInfo, tables } from './facts.js';

// Stages by id, cached on the walkthrough object.
export function byId(wt) {
  if (!wt._by) {
    wt._by = {};
    wt.stages.forEach(function (s) {
      wt._by[s.id] = s;
    });
  }
  return wt._by;
}
/** A stage in parts [{at, data}] (whole matrices, in order: a pool of Workers' shards,
 *  page/runner.js): views read the part that holds their matrix, and st.data joins the parts
 *  only when something reads it whole (a 100 MB copy that tables and heatmaps never need). */
export function inParts(st, parts) {
  var whole = null;
  st.parts = parts;
  Object.defineProperty(st, 'data', {
    enumerable: true,
    get: function () {
      if (!whole) {
        var n = parts.reduce(function (a, p) {
          return a + p.data.length;
        }, 0);
        whole = new Float32Array(n);
        parts.forEach(function (p) {
          whole.set(p.data, p.at);
        });
      }
      return whole;
    },
  });
  return st;
}
// [the array, the index in it] of element k of stage s, in parts or not.
function locate(s, k) {
  for (var i = 0; s.parts && i < s.parts.length; i++) {
    var p = s.parts[i];
    if (k < p.at + p.data.length) return [p.data, k - p.at];
  }
  return [s.data, k];
}
/** Element [batch, row, col] of a stage (0-D: the value; 1-D: col only; 2-D: row, col;
 *  3-D and 4-D: `batch` counts the matrices of the leading dims, b·H + h for (B, H, T, X)). */
export function at(wt, id, batch, row, col) {
  var s = byId(wt)[id],
    shape = s.shape,
    rank = shape.length,
    k = locate(
      s,
      rank === 0
        ? 0
        : rank === 1
          ? col
          : rank === 2
            ? row * shape[1] + col
            : (batch * shape[rank - 2] + row) * shape[rank - 1] + col,
    );
  return k[0][k[1]];
}
export function maxDiff(a, b) {
  for (var worst = 0, k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]));
  return worst;
}
/** The label of row/column i on an axis of the stage table: tok (token labels, or their
 *  indices: `indexed`, random rows nobody named), sum, bias, '' (an unlabelled row), or a
 *  feature index. */
function label(axis, i, cfg, indexed) {
  return axis === 'tok'
    ? indexed
      ? String(i)
      : cfg.tokens[i]
    : axis === 'sum' || axis === 'bias'
      ? axis
      : !axis
        ? null
        : String(i);
}
// The table's corner: what its rows and columns are.
function corner(info) {
  return info.rows + info.cols === 'toktok'
    ? 'query \\ key'
    : (info.rows === 'tok' ? 'token' : info.rows) +
        ' \\ ' +
        (info.cols === 'tok' ? 'token' : info.cols);
}
/** What the matrices of a 3-D or 4-D stage are: ["batch"] (B, T, X), ["head"] (H, X, Y) for
 *  the wrapper's stacked weights, ["batch", "head"] (B, H, T, X). */
export function leading(st) {
  var info = stageInfo(st.id);
  return st.shape.length === 4
    ? ['batch', 'head']
    : st.shape.length === 3
      ? [info.kind === 'weights' ? 'head' : 'batch']
      : [];
}
export function maxShown() {
  return tables.limits.max_shown || 32;
}

/** The rows × cols matrix of slice `batch` of a stage (3-D: a batch element; 4-D: batch
 *  element and head, flattened as b·H + h), with its labels. */
export function matrix(st, wt, batch) {
  var shape = st.shape,
    rank = shape.length,
    info = stageInfo(st.id),
    cfg = wt.config;
  var rows = rank < 2 ? 1 : shape[rank - 2],
    cols = rank ? shape[rank - 1] : 1,
    from = locate(st, rank > 2 ? (batch || 0) * rows * cols : 0),
    data = from[0],
    offset = from[1];
  return {
    rows: rows,
    cols: cols,
    corner: corner(info),
    rowNamed: !info.rows, // a vector's one row: named as the book's variable (attn_weights_2)
    value: function (i, j) {
      return data[offset + i * cols + j];
    },
    // No row axis (a vector, a scalar): the row is named as the variable its code line
    // assigns (attn_scores_2, from "    attn_scores_2[i] = ..."), else after the stage.
    rowLabel: function (i) {
      var l = label(info.rows, i, cfg, wt.indexed),
        v = /^ *(\w+)(?:\[\w+\])? \+?= /.exec(String(st.code).split('\n').pop());
      return l !== null ? l : v ? v[1] : st.id.replace(/^[^.]*\./, '');
    },
    colLabel: function (j) {
      var l = label(info.cols, j, cfg, wt.indexed);
      return l === null ? '' : l;
    },
  };
}
/** How many slices (tables) a stage has: the product of its dimensions before the last two. */
export function sliceCount(st) {
  for (var n = 1, d = 0; d < st.shape.length - 2; d++) n *= st.shape[d];
  return n;
}
// The name of slice k, e.g. "context_vecs[1]" or "mha.attn_weights[0, 3]", and its subtitle.
export function sliceName(st, k) {
  var lead = st.shape.slice(0, -2),
    names = leading(st),
    idx = [];
  for (var d = lead.length - 1; d >= 0; d--) {
    idx.unshift(k % lead[d]);
    k = Math.floor(k / lead[d]);
  }
  var name = st.id + (idx.length ? '[' + idx.join(', ') + ']' : '');
  return {
    name: name,
    sub: !idx.length
      ? ''
      : name +
        ': ' +
        names
          .map(function (n, d) {
            return (n === 'batch' ? 'batch element ' : 'head ') + (idx[d] + 1) + ' of ' + lead[d];
          })
          .join(', '),
  };
}
/** "mha.attn_weights[1, 0]: batch element 2 of 2, head 1 of 2" */
export function part(st, k) {
  return sliceName(st, k).sub;
}

export function isBig(st) {
  var rank = st.shape.length,
    max = maxShown();
  return st.shape[rank - 1] > max || (rank > 1 && st.shape[rank - 2] > max);
}
