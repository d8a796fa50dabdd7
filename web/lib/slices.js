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
// Are matrices k0..k1-1 (by default all) of stage s here?
function ready(s, k0, k1) {
  for (var k = k0 || 0; s.slices && k < (k1 === undefined ? s.slices.length : k1); k++)
    if (!(s.slices[k] instanceof Float32Array)) return false;
  return true;
}
var asked = []; // [stage, k, resolve]: the matrices asked for in this task, fetched together
/** Null when matrices k0..k1-1 of stage st are here (every stage but one computed on demand,
 *  page/pool.js), else a promise of their arrival. What one task asks for is fetched in one
 *  request per run of consecutive matrices. */
export function need(st, k0, k1) {
  if (ready(st, k0, k1)) return null;
  for (var wait = [], k = k0; k < k1; k++) {
    if (!st.slices[k]) {
      if (!asked.length) Promise.resolve().then(flush);
      st.slices[k] = new Promise(function (resolve) {
        asked.push([st, k, resolve]);
      });
    }
    wait.push(st.slices[k]);
  }
  return Promise.all(wait).then(function () {
    return need(st, k0, k1);
  });
}
function flush() {
  var list = asked.splice(0).sort(function (a, b) {
    return a[1] - b[1];
  });
  while (list.length) {
    for (var n = 1; n < list.length && list[n][0] === list[0][0] && list[n][1] === list[0][1] + n;)
      n++;
    var run = list.splice(0, n);
    run[0][0].fetch(run[0][1], run[0][1] + n).then(
      function (run) {
        run.forEach(function (a) {
          a[2]();
        });
      }.bind(null, run),
      function (run) {
        run.forEach(function (a) {
          a[0].slices[a[1]] = undefined; // asked again by the next reader
        });
      }.bind(null, run),
    );
  }
}
// [the array, the index in it] of element k of stage s; an on-demand matrix not here reads
// as undefined.
function locate(s, k) {
  if (!s.slices) return [s.data, k];
  var per = s.shape[s.shape.length - 2] * s.shape[s.shape.length - 1],
    d = s.slices[Math.floor(k / per)];
  return [d instanceof Float32Array ? d : [], k % per];
}
/** Element k of stage st in row-major order; undefined where an on-demand matrix is not here. */
export function flat(st, k) {
  var at = locate(st, k);
  return at[0][at[1]];
}
/** Element [batch, row, col] of a stage (0-D: the value; 1-D: col only; 2-D: row, col;
 *  3-D and 4-D: `batch` counts the matrices of the leading dims, b·H + h for (B, H, T, X)). */
export function at(wt, id, batch, row, col) {
  var s = byId(wt)[id],
    shape = s.shape,
    rank = shape.length;
  return flat(
    s,
    rank === 0
      ? 0
      : rank === 1
        ? col
        : rank === 2
          ? row * shape[1] + col
          : (batch * shape[rank - 2] + row) * shape[rank - 1] + col,
  );
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
    data: data, // value(i, j) is data[offset + i * cols + j]: for loops over a whole matrix
    offset: offset,
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
