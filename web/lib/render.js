// A stage's table(s), a cell's explanation, hover/click/keys: pure DOM, Shadow DOM ready.
// Everything a user typed (token labels above all) goes in as text, never as markup.
(function (CA) {
  'use strict';
  var MAX_SHOWN = 32; // rows/columns shown per table: bigger tensors are cut, with a note

  /** A number as the tables show it: 4 decimals, like PyTorch's print. */
  function fmt(x) { return x === -Infinity ? '−∞' : x === Infinity ? '∞' : x !== x ? 'nan' : x.toFixed(4); }
  // C's printf("%.*f" or "%.*e"): JS rounds exact ties away from zero, C to even; Python's
  // two-digit exponent; the sign of -0 kept.
  function printf(x, p, sci) {
    var f = sci ? 'toExponential' : 'toFixed', s = Math.abs(x)[f](p), t = Math.abs(x)[f](100), k = t.indexOf('.') + p + 1;
    if (p && t[k] === '5' && /^0*(e|$)/.test(t.slice(k + 1)) && t[k - 1] % 2 === 0) s = t.slice(0, k) + (sci ? s.slice(s.indexOf('e')) : '');
    return (x < 0 || Object.is(x, -0) ? '-' : '') + s.replace(/e([-+])(\d)$/, 'e$10$2');
  }
  /** Stage st's numbers as print() shows them (torch/_tensor_str.py, ported like the CLI's
   *  torch_format.cpp): one mode for the tensor, measured over what print() shows (3 edge items
   *  per dimension above 1000 values): integers as "2.", else 4 decimals, or %.4e when wide. */
  function torchFormat(st) {
    var shape = st.shape, data = st.data, vals = [], ints = true, min = Infinity, max = 0;
    (function collect(off, d) {
      for (var n = shape[d], stride = data.length / shape.slice(0, d + 1).reduce(function (a, b) { return a * b; }, 1), i = 0; i < n; i++) {
        if (data.length > 1000 && n > 6 && i === 3) i = n - 3;
        if (d < shape.length - 1) collect(off + i * stride, d + 1);
        else vals.push(data[off + i]);
      }
    })(0, 0);
    vals.forEach(function (v) {
      if (!isFinite(v) || !v) return;
      min = Math.min(min, Math.abs(v));
      max = Math.max(max, Math.abs(v));
      ints = ints && v === Math.ceil(v);
    });
    var sci = max / min > 1000 || max > 1e8 || (!ints && min < 1e-4);
    return function (x) {
      return x !== x ? 'nan' : !isFinite(x) ? (x < 0 ? '-' : '') + 'inf' : sci ? printf(x, 4, 1) : ints ? printf(x, 0) + '.' : printf(x, 4);
    };
  }
  // An operand inside a sum: negatives in parentheses.
  function operand(x) { return x < 0 ? '(' + fmt(x) + ')' : fmt(x); }
  /** The shortest decimal that reads back as the same float32. */
  function f32(x) {
    for (var digits = 1; digits < 10; digits++) {
      var text = String(Number(x.toPrecision(digits)));
      if (Math.fround(text) === x) return text;
    }
    return String(x);
  }
  // The value of a number typed into a control: a number when the text is one, else the
  // text itself, so that the core names the problem.
  function parseNumber(text) {
    text = text.trim();
    return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? +text : text;
  }
  function el(doc, tag, className, text) {
    var node = doc.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  // Stages by id, cached on the walkthrough object.
  function byId(wt) {
    if (!wt._by) {
      wt._by = {};
      wt.stages.forEach(function (s) { wt._by[s.id] = s; });
    }
    return wt._by;
  }
  /** Element [batch, row, col] of a stage (1-D stages: col only; 2-D: row, col). */
  function at(wt, id, batch, row, col) {
    var s = byId(wt)[id], shape = s.shape, rank = shape.length;
    return s.data[rank === 1 ? col : rank === 2 ? row * shape[1] + col : (batch * shape[1] + row) * shape[2] + col];
  }
  function maxDiff(a, b) {
    for (var worst = 0, k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]));
    return worst;
  }
  function header(doc, text, scope) {
    var th = el(doc, 'th', text ? '' : 'em', text || '""'); // an empty label shows as ""
    th.scope = scope;
    if (text.length > 12) th.title = text; // long labels are cut with an ellipsis
    return th;
  }
  /** The label of row/column i on an axis of the stage table: tok (token labels), sum, bias,
   *  '' (an unlabelled row), or a feature index. */
  function label(axis, i, cfg) { return axis === 'tok' ? cfg.tokens[i] : axis === 'sum' || axis === 'bias' || !axis ? axis : String(i); }
  // The table's corner: what its rows and columns are.
  function corner(info) {
    return info.rows + info.cols === 'toktok' ? 'query \\ key' : (info.rows === 'tok' ? 'token' : info.rows) + ' \\ ' + info.cols;
  }
  function isDropout(id) { return !!CA.info(id).dropout; }

  /** The rows × cols matrix a table shows (batch element `batch` of a 3-D stage), with its labels. */
  function matrix(st, wt, batch) {
    var shape = st.shape, rank = shape.length, info = CA.info(st.id), cfg = wt.config;
    var rows = rank === 1 ? 1 : shape[rank - 2], cols = shape[rank - 1], offset = rank === 3 ? batch * rows * cols : 0;
    return {
      rows: rows, cols: cols, corner: corner(info),
      value: function (i, j) { return st.data[offset + i * cols + j]; },
      rowLabel: function (i) { return label(info.rows, i, cfg); },
      colLabel: function (j) { return label(info.cols, j, cfg); }
    };
  }

  // What a screen reader should say for the cells whose meaning is in their look.
  function spoken(x, masked, dropped) {
    var say = x === -Infinity ? 'minus infinity' : '';
    if (masked) say = (say || fmt(x)) + ', masked: a future token';
    if (dropped) say = (say || fmt(x)) + ', dropped by dropout';
    return say;
  }

  /** (i, j) → [masked, dropped] for the table m of stage st: masked above the diagonal of a
   *  causal stage, dropped where the stage's dropout pattern has a zero. */
  function marks(st, wt, info, m) {
    var pattern = info.dropout && byId(wt)[info.dropout];
    return function (i, j) {
      var masked = info.causal && j > i;
      return [masked, !!pattern && (pattern === st ? m.value(i, j) === 0 && !masked : pattern.data[i * m.cols + j] === 0)];
    };
  }
  // A table's colour scale: probabilities sequential over [0, max(1, largest)], the signed
  // kinds diverging around 0 over ±max |x|, masks none. lo and hi: its finite range.
  function scale(m, info) {
    var lo = Infinity, hi = -Infinity, i, j, x;
    for (i = 0; i < m.rows; i++) for (j = 0; j < m.cols; j++) if (isFinite(x = m.value(i, j))) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
    if (info.kind === 'mask' || lo > hi) return null;
    var seq = info.kind === 'probabilities';
    return { seq: seq, top: (seq ? Math.max(1, hi) : Math.max(-lo, hi)) || 1, lo: lo, hi: hi };
  }
  // A cell's colour on scale sc: --v = |x| / top; the colours are in styles.js.
  function shade(node, x, sc) {
    node.classList.add(sc.seq ? 'h' : 'd');
    if (x < 0) node.classList.add('ng');
    node.style.setProperty('--v', (Math.abs(x) / sc.top).toFixed(4));
  }
  /** The colour key of scale sc: the table's range, lo to hi, in 12 steps of the cells' own rule. */
  function key(doc, sc) {
    var k = el(doc, 'div', 'ck'), strip = el(doc, 'span', 'ks');
    k.appendChild(el(doc, 'span', 'sr', 'Colour key: '));
    k.appendChild(el(doc, 'span', 'kl', fmt(sc.lo)));
    for (var n = 0; n < 12; n++) shade(strip.appendChild(el(doc, 'span')), n === 11 ? sc.hi : sc.lo + (sc.hi - sc.lo) * n / 11, sc);
    strip.setAttribute('aria-hidden', 'true');
    k.appendChild(strip);
    k.appendChild(el(doc, 'span', 'kh', fmt(sc.hi)));
    k.appendChild(el(doc, 'span', '', sc.seq ? '(shade ∝ value on 0 to ' + fmt(sc.top) + ': faint = small)' : '(shade ∝ |value| up to ' + fmt(sc.top) + '; blue > 0, red < 0)'));
    return k;
  }

  function table(doc, st, wt, info, batch, subtitle, opts) {
    var m = matrix(st, wt, batch), shown = Math.min(m.rows, MAX_SHOWN), shownCols = Math.min(m.cols, MAX_SHOWN);
    var sc = scale(m, info), text = opts.torch ? torchFormat(st) : fmt;
    var flags = marks(st, wt, info, m);
    var t = el(doc, 'table', 't'), cap = t.appendChild(el(doc, 'caption', opts.caption === false ? 'sr' : ''));
    if (!batch) {
      var head = cap.appendChild(el(doc, 'span', 'hd'));
      head.appendChild(el(doc, 'span', 'ti', st.title));
      head.appendChild(el(doc, 'span', 'sh', ' (' + st.shape.join(', ') + ')'));
      if (info.note) cap.appendChild(el(doc, 'span', 'nt', info.note));
      cap.appendChild(el(doc, 'code', '', st.code));
    }
    if (subtitle) cap.appendChild(el(doc, 'span', 'sub', subtitle));
    if (shown < m.rows || shownCols < m.cols) cap.appendChild(el(doc, 'span', 'nt', 'Showing the first ' + shown + ' × ' + shownCols + ' of ' + m.rows + ' × ' + m.cols + '.'));
    var tr = t.appendChild(el(doc, 'thead')).appendChild(el(doc, 'tr'));
    tr.appendChild(el(doc, 'th', 'k', m.corner)).scope = 'col';
    for (var j = 0; j < shownCols; j++) tr.appendChild(header(doc, m.colLabel(j), 'col'));
    var body = t.appendChild(el(doc, 'tbody'));
    for (var i = 0; i < shown; i++) {
      tr = body.appendChild(el(doc, 'tr'));
      tr.appendChild(header(doc, m.rowLabel(i), 'row'));
      for (j = 0; j < shownCols; j++) {
        var x = m.value(i, j), td = tr.appendChild(el(doc, 'td', '', text(x))), cls = '';
        var f = flags(i, j), masked = f[0], dropped = f[1], say = spoken(x, masked, dropped);
        td.dataset.row = i;
        td.dataset.col = j;
        if (st.shape.length === 3) td.dataset.batch = batch;
        td.tabIndex = i || j ? -1 : 0; // one tab stop per table; arrow keys move inside (bind)
        if (say) td.setAttribute('aria-label', say);
        if (masked) cls += ' m';
        if (dropped) cls += ' x';
        if (x === -Infinity) cls += ' ni';
        if (cls) td.className = cls.slice(1);
        if (sc && isFinite(x)) shade(td, x, sc);
      }
    }
    var scroller = el(doc, 'div', 'scroll');
    scroller.appendChild(t);
    if (sc) scroller.appendChild(key(doc, sc));
    return scroller;
  }

  // The buttons under a table: exports (lib/export.js handles the clicks) and, on the page,
  // the embed snippet of the stage.
  var EXPORTS = [['markdown', 'Markdown'], ['latex', 'LaTeX'], ['csv', 'CSV'], ['torch', 'torch'], ['png', 'PNG']];
  function tools(doc, st, batch, withEmbed) {
    var bar = el(doc, 'div', 'tools'), name = st.id + (st.shape.length === 3 ? '[' + batch + ']' : '');
    bar.setAttribute('role', 'group');
    bar.setAttribute('aria-label', 'Export ' + name);
    bar.appendChild(el(doc, 'span', '', 'Export:'));
    EXPORTS.concat(withEmbed ? [['embed', 'Embed']] : []).forEach(function (f) {
      var b = bar.appendChild(el(doc, 'button', '', f[1]));
      b.type = 'button';
      b.dataset.export = f[0];
      b.dataset.batch = batch;
    });
    bar.appendChild(el(doc, 'span', 'msg')).setAttribute('aria-live', 'polite'); // "Copied ..."
    return bar;
  }

  /** One stage as a div[data-stage] holding its table(s) and their export buttons.
   *  opts: {doc, caption: false hides captions but for screen readers, embed: an Embed button}. */
  function stage(st, wt, opts) {
    opts = opts || {};
    var doc = opts.doc || document, info = CA.info(st.id), box = el(doc, 'div', 'stage'), batches = st.shape[0];
    box.dataset.stage = st.id;
    // The table and, for (T, T) attention stages, its drawing (lib/draw.js) beside it.
    function add(b, subtitle, embed) {
      var duo = box.appendChild(el(doc, 'div', 'duo'));
      duo.appendChild(table(doc, st, wt, info, b, subtitle, opts));
      if (CA.draw && CA.draw.wanted(info)) duo.appendChild(CA.draw.figure(doc, st, wt, b, info)).parentNode.classList.add('dd');
      box.appendChild(tools(doc, st, b, embed));
    }
    if (st.shape.length === 3) {
      for (var b = 0; b < batches; b++) add(b, st.id + '[' + b + ']: batch element ' + (b + 1) + ' of ' + batches, opts.embed && !b);
    } else {
      add(0, '', opts.embed);
    }
    // The efficient mask against the simple one: the same weights, to float32 rounding.
    var simple = byId(wt).masked_simple_norm, diff;
    if (st.id === 'attn_weights_causal' && simple) {
      box.appendChild(el(doc, 'p', 'after', 'max |difference| from the simple way (masked_simple_norm): ' + ((diff = maxDiff(st.data, simple.data)) ? diff.toExponential(2) : '0')));
    }
    return box;
  }

  // A sum of products, written out (the first 8 terms).
  function terms(a, b) {
    for (var parts = [], k = 0; k < Math.min(a.length, 8); k++) parts.push(operand(a[k]) + '×' + operand(b[k]));
    return parts.join(' + ') + (a.length > 8 ? ' + … (' + a.length + ' terms)' : '');
  }
  // A list of numbers with the j-th in brackets.
  function list(a, j) {
    for (var parts = [], k = 0; k < Math.min(a.length, 12); k++) parts.push(k === j ? '[' + fmt(a[k]) + ']' : fmt(a[k]));
    return parts.join(', ') + (a.length > 12 ? ', …' : '');
  }
  function rowOf(wt, id, batch, i) {
    var shape = byId(wt)[id].shape, out = [];
    for (var j = 0; j < shape[shape.length - 1]; j++) out.push(at(wt, id, batch, i, j));
    return out;
  }

  /** How element [b, i, j] of stage `id` was computed, as a fragment of <p> lines. */
  function explain(wt, id, b, i, j, doc) {
    var cfg = wt.config, T = cfg.tokens.length, lines = [], p = cfg.dropout, scale = cfg.scale ? Math.sqrt(cfg.d_out) : 1;
    var v = at(wt, id, b, i, j), V = fmt(v), ij = '[' + i + ', ' + j + ']';
    var tok = function (k) { return '“' + cfg.tokens[k] + '”'; };
    var get = function (other, k) { return fmt(at(wt, other, 0, i, k === undefined ? j : k)); };
    var weight = /^(ca\.)?([Wb])_(\w+)$/.exec(id), qkv = { queries: 'query', keys: 'key', values: 'value' }[id];
    function softmax(src) {
      var z = rowOf(wt, src, 0, i).map(function (x) { return x / scale; }), e = z.map(Math.exp);
      var sum = e.reduce(function (acc, y) { return acc + y; });
      lines.push('softmax of row ' + i + ' of ' + src + (cfg.scale ? ' / √d_k (√' + cfg.d_out + ' = ' + fmt(scale) + ')' : ' (no scaling)') + ':',
        'z = ' + list(z, j), 'exp(z) = ' + list(e, j), 'sum = ' + fmt(sum),
        id + ij + ' = exp(z_' + j + ') / sum = ' + fmt(e[j]) + ' / ' + fmt(sum) + ' = ' + V);
    }
    if (id === 'inputs' || id === 'batch') {
      var randn = cfg.inputs.randn;
      lines.push(id === 'batch' ? 'torch.stack copies inputs' + ij + ' into batch element ' + b + '.' :
        randn ? 'Number ' + (i * randn[1] + j + 1) + ' drawn by torch.randn(' + randn.join(', ') + ') after torch.manual_seed(' + cfg.inputs.seed + ').' :
        'Feature ' + j + ' of token ' + tok(i) + ', as typed in the inputs table.');
    } else if (weight) {
      lines.push((weight[2] === 'W' ? 'Input feature ' + j + ' → output feature ' + i : 'Bias of output feature ' + j) + ': uniform in ±1/√d_in = ±' +
        fmt(1 / Math.sqrt(byId(wt).inputs.shape[1])) + ' after torch.manual_seed(' + (weight[1] ? cfg.seed_class : cfg.seed_weights) + ').');
    } else if (qkv) {
      var bias = byId(wt)['b_' + qkv];
      lines.push(id + ij + ' = x_' + i + ' · W_' + qkv + '[' + j + ']' + (bias ? ' + b_' + qkv + '[' + j + ']' : '') + '  (token ' + tok(i) + ')',
        '= ' + terms(rowOf(wt, 'inputs', 0, i), rowOf(wt, 'W_' + qkv, 0, j)) + (bias ? ' + ' + operand(bias.data[j]) : ''), '= ' + V);
    } else if (id === 'attn_scores') {
      lines.push('ω' + ij + ' = q_' + i + ' · k_' + j + '  (query ' + tok(i) + ', key ' + tok(j) + ')',
        '= ' + terms(rowOf(wt, 'queries', 0, i), rowOf(wt, 'keys', 0, j)), '= ' + V);
    } else if (id === 'attn_weights') {
      softmax('attn_scores');
    } else if (id === 'attn_weights_causal') {
      softmax('masked');
      lines.push('exp(−∞) = 0. The simple way gave ' + get('masked_simple_norm') + ', off by ' + Math.abs(v - at(wt, 'masked_simple_norm', 0, i, j)).toExponential(2) + '.');
    } else if (id === 'context_vec') {
      var values = [];
      for (var k = 0; k < T; k++) values.push(at(wt, 'values', 0, k, j));
      lines.push('context_vec' + ij + ' = Σ_k attn_weights[' + i + ', k] · values[k, ' + j + ']', '= ' + terms(rowOf(wt, 'attn_weights', 0, i), values), '= ' + V);
    } else if (id === 'mask_simple' || id === 'mask') {
      lines.push('Key ' + tok(j) + (j > i ? ' comes after query ' + tok(i) + ': future, hidden' : ' is not after query ' + tok(i) + ': visible') + ', so ' + V + '.');
    } else if (id === 'masked_simple') {
      lines.push('attn_weights' + ij + ' × mask_simple' + ij + ' = ' + get('attn_weights') + ' × ' + get('mask_simple') + ' = ' + V);
    } else if (id === 'row_sums') {
      lines.push('row_sums[' + i + '] = Σ_j masked_simple[' + i + ', j] = ' + rowOf(wt, 'masked_simple', 0, i).slice(0, 12).map(fmt).join(' + ') + (T > 12 ? ' + …' : '') + ' = ' + V);
    } else if (id === 'masked_simple_norm') {
      lines.push('masked_simple' + ij + ' / row_sums[' + i + '] = ' + get('masked_simple') + ' / ' + get('row_sums', 0) + ' = ' + V);
    } else if (id === 'masked') {
      lines.push(j > i ? '−∞: j > i, key ' + tok(j) + ' comes after query ' + tok(i) + '.' : 'j ≤ i: attn_scores' + ij + ' = ' + V + ' is kept.');
    } else if (isDropout(id)) {
      var w = id === 'dropout_example' ? 1 : at(wt, 'attn_weights_causal', 0, i, j);
      lines.push(!cfg.train ? 'Eval mode: dropout is the identity, ' + V + '.' : !p ? 'p = 0: dropout keeps everything, ' + V + '.' :
        at(wt, 'dropout_example', 0, i, j) ? 'Kept: ' + fmt(w) + ' × 1/(1−p) = ' + fmt(w) + ' × ' + f32(1 / (1 - p)) + ' = ' + V :
        'Dropped (p = ' + p + '): ' + fmt(w) + ' becomes 0.', 'Generator: ' + cfg.rng + ', torch.manual_seed(' + cfg.seed_dropout + ').');
    } else if (id === 'context_vecs') {
      lines.push('ca(batch) repeats sections 1 to 3 (and dropout p = ' + cfg.class_dropout + ') with its own weights ca.W_*, on batch element ' + b + ', token ' + tok(i) + ', output feature ' + j + '.');
    }
    lines.push('float32 value: ' + (isFinite(v) ? f32(v) : V));
    var fragment = (doc = doc || document).createDocumentFragment();
    lines.forEach(function (line) { fragment.appendChild(el(doc, 'p', '', line)); });
    return fragment;
  }

  /** The operands of element [i, j] of stage `id` (its explanation's inputs), as [stage, 'row'
   *  or 'col', index]: the row of queries and the key (a row of keys, a column of keys.T)
   *  behind a score, the row of weights and the column of values behind a context value... */
  function operands(id, i, j) {
    var qkv = { queries: 'query', keys: 'key', values: 'value' }[id];
    return qkv ? [['inputs', 'row', i], ['W_' + qkv, 'row', j]] : ({
      attn_scores: [['queries', 'row', i], ['keys', 'row', j]],
      attn_weights: [['attn_scores', 'row', i]],
      context_vec: [['attn_weights', 'row', i], ['values', 'col', j]],
      masked_simple: [['attn_weights', 'row', i], ['mask_simple', 'row', i]],
      row_sums: [['masked_simple', 'row', i]],
      masked_simple_norm: [['masked_simple', 'row', i], ['row_sums', 'row', i]],
      masked: [['attn_scores', 'row', i]],
      attn_weights_causal: [['masked', 'row', i]],
      attn_weights_dropped: [['attn_weights_causal', 'row', i], ['dropout_example', 'row', i]]
    }[id] || []);
  }

  /** Hover/focus highlights a cell's row and column; click, Enter or Space picks it (onPick);
   *  arrow keys, Home and End move between the cells of a table (a roving tabindex). */
  function bind(root, onPick) {
    var lit = [];
    function light(cell) {
      lit.forEach(function (c) { c.classList.remove('hl'); });
      lit = [];
      if (!cell) return;
      var tr = cell.parentNode, rows = tr.parentNode.parentNode.rows;
      for (var k = 0; k < rows.length; k++) lit.push(rows[k].cells[cell.cellIndex]);
      lit.push.apply(lit, tr.cells);
      lit.forEach(function (c) { c.classList.add('hl'); });
    }
    function cellOf(e) { var c = e.target.closest && e.target.closest('td[data-col]'); return c && root.contains(c) ? c : null; }
    if (CA.draw) CA.draw.bind(root);
    root.addEventListener('mouseover', function (e) { light(cellOf(e)); });
    root.addEventListener('mouseleave', function () { light(); });
    root.addEventListener('focusin', function (e) { light(cellOf(e)); });
    root.addEventListener('click', function (e) { var c = cellOf(e); if (c) onPick(c); });
    root.addEventListener('keydown', function (e) {
      var cell = cellOf(e), key = e.key, row = cell && cell.parentNode, next, other;
      if (!cell) return;
      if (key === 'Enter' || key === ' ') next = cell;
      else if (key === 'ArrowRight') next = cell.nextElementSibling;
      else if (key === 'ArrowLeft') next = cell.previousElementSibling;
      else if (key === 'Home') next = row.cells[1];
      else if (key === 'End') next = row.cells[row.cells.length - 1];
      else if (key === 'ArrowDown' || key === 'ArrowUp') next = (other = row[key === 'ArrowUp' ? 'previousElementSibling' : 'nextElementSibling']) && other.cells[cell.cellIndex];
      else return;
      e.preventDefault();
      if (next === cell) onPick(cell);
      else if (next && next.dataset.col) {
        cell.tabIndex = -1;
        next.tabIndex = 0;
        next.focus();
      }
    });
  }

  CA.render = { fmt: fmt, f32: f32, parseNumber: parseNumber, stage: stage, explain: explain, marks: marks, operands: operands, torchFormat: torchFormat, bind: bind, scale: scale, maxDiff: maxDiff, at: at, matrix: matrix, byId: byId };
})(globalThis.CausalAttention || (globalThis.CausalAttention = {}));
