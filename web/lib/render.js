// A stage's table(s), a cell's explanation, hover/click/keys: pure DOM, Shadow DOM ready.
(function (CA) {
  'use strict';
  var MAX = 32; // rows/columns shown per table

  function fmt(x) { return x === -Infinity ? '−∞' : x === Infinity ? '∞' : x !== x ? 'nan' : x.toFixed(4); }
  function op(x) { return x < 0 ? '(' + fmt(x) + ')' : fmt(x); }
  // Shortest decimal that reads back as the same float32.
  function f32(x) {
    for (var p = 1; p < 10; p++) {
      var s = String(Number(x.toPrecision(p)));
      if (Math.fround(s) === x) return s;
    }
    return String(x);
  }
  function el(doc, tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function by(wt) {
    if (!wt._by) {
      wt._by = {};
      wt.stages.forEach(function (s) { wt._by[s.id] = s; });
    }
    return wt._by;
  }
  function at(wt, id, b, i, j) {
    var s = by(wt)[id], sh = s.shape, n = sh.length;
    return s.data[n === 1 ? j : n === 2 ? i * sh[1] + j : (b * sh[1] + i) * sh[2] + j];
  }
  function maxDiff(a, b) {
    for (var m = 0, k = 0; k < a.length; k++) m = Math.max(m, Math.abs(a[k] - b[k]));
    return m;
  }
  function head(doc, text, scope) {
    var h = el(doc, 'th', text ? '' : 'em', text || '""');
    h.scope = scope;
    if (text.length > 12) h.title = text;
    return h;
  }
  function label(kind, i, cfg) { return kind === 'tok' ? cfg.tokens[i] : kind === 'sum' ? 'sum' : kind ? String(i) : 'bias'; }

  function table(doc, st, wt, note, b, sub) {
    var sh = st.shape, n = sh.length, cfg = wt.config, N = CA.notes;
    var R = n === 1 ? 1 : sh[n - 2], C = sh[n - 1], off = n === 3 ? b * R * C : 0;
    var r = Math.min(R, MAX), c = Math.min(C, MAX), heat = N.heat[st.id], causal = N.causal[st.id];
    var drop = /^(dropout_example|attn_weights_dropped)$/.test(st.id) && by(wt).dropout_example;
    var t = el(doc, 'table', 't'), cap = t.appendChild(el(doc, 'caption'));
    if (!b) {
      var hd = cap.appendChild(el(doc, 'span', 'hd'));
      hd.appendChild(el(doc, 'span', 'ti', st.title));
      hd.appendChild(el(doc, 'span', 'sh', ' (' + sh.join(', ') + ')'));
      if (note.t) cap.appendChild(el(doc, 'span', 'nt', note.t));
      cap.appendChild(el(doc, 'code', '', st.code));
    }
    if (sub) cap.appendChild(el(doc, 'span', 'sub', sub));
    if (r < R || c < C) cap.appendChild(el(doc, 'span', 'nt', 'Showing the first ' + r + ' × ' + c + ' of ' + R + ' × ' + C + '.'));
    var tr = t.appendChild(el(doc, 'thead')).appendChild(el(doc, 'tr'));
    tr.appendChild(el(doc, 'th', 'k', note.k)).scope = 'col';
    for (var j = 0; j < c; j++) tr.appendChild(head(doc, label(note.c, j, cfg), 'col'));
    var tb = t.appendChild(el(doc, 'tbody'));
    for (var i = 0; i < r; i++) {
      tr = tb.appendChild(el(doc, 'tr'));
      tr.appendChild(head(doc, label(note.r, i, cfg), 'row'));
      for (j = 0; j < c; j++) {
        var x = st.data[off + i * C + j], td = tr.appendChild(el(doc, 'td', '', fmt(x))), cls = '';
        td.dataset.row = i;
        td.dataset.col = j;
        if (n === 3) td.dataset.batch = b;
        td.tabIndex = i || j ? -1 : 0;
        if (causal && j > i) cls += ' m';
        if (drop && drop.data[i * C + j] === 0) cls += ' x';
        if (x === -Infinity) cls += ' ni';
        if (heat && x > 0) {
          td.style.setProperty('--v', Math.min(1, Math.sqrt(x)).toFixed(3)); // shade ∝ √weight
          cls += ' h';
        }
        if (cls) td.className = cls.slice(1);
      }
    }
    var sc = el(doc, 'div', 'scroll');
    sc.appendChild(t);
    return sc;
  }

  /** One stage as a div[data-stage] holding its table(s); opts: {doc, after: text below}. */
  function stage(st, wt, opts) {
    opts = opts || {};
    var doc = opts.doc || document, note = CA.notes.get(st.id), box = el(doc, 'div', 'stage'), B = st.shape[0];
    box.dataset.stage = st.id;
    if (st.shape.length === 3) {
      for (var b = 0; b < B; b++) box.appendChild(table(doc, st, wt, note, b, st.id + '[' + b + ']: batch element ' + (b + 1) + ' of ' + B));
    } else box.appendChild(table(doc, st, wt, note, 0, ''));
    if (opts.after) box.appendChild(el(doc, 'p', 'after', opts.after));
    return box;
  }

  function terms(a, b) {
    for (var s = [], k = 0; k < Math.min(a.length, 8); k++) s.push(op(a[k]) + '×' + op(b[k]));
    return s.join(' + ') + (a.length > 8 ? ' + … (' + a.length + ' terms)' : '');
  }
  function list(a, j) {
    for (var s = [], k = 0; k < Math.min(a.length, 12); k++) s.push(k === j ? '[' + fmt(a[k]) + ']' : fmt(a[k]));
    return s.join(', ') + (a.length > 12 ? ', …' : '');
  }
  function row(wt, id, b, i) {
    var sh = by(wt)[id].shape, o = [];
    for (var j = 0; j < sh[sh.length - 1]; j++) o.push(at(wt, id, b, i, j));
    return o;
  }

  function explain(wt, id, b, i, j, doc) {
    var cfg = wt.config, T = cfg.tokens.length, L = [], p = cfg.dropout, s = cfg.scale ? Math.sqrt(cfg.d_out) : 1;
    var v = at(wt, id, b, i, j), V = fmt(v), ij = '[' + i + ', ' + j + ']';
    var tok = function (k) { return '“' + cfg.tokens[k] + '”'; }, get = function (id2, k) { return fmt(at(wt, id2, 0, i, k === undefined ? j : k)); };
    var m = /^(ca\.)?([Wb])_(\w+)$/.exec(id), qkv = { queries: 'query', keys: 'key', values: 'value' }[id];
    function smx(src) {
      var z = row(wt, src, 0, i).map(function (x) { return x / s; }), e = z.map(Math.exp), sum = e.reduce(function (p, q) { return p + q; });
      L.push('softmax of row ' + i + ' of ' + src + (cfg.scale ? ' / √d_k (√' + cfg.d_out + ' = ' + fmt(s) + ')' : ' (no scaling)') + ':',
        'z = ' + list(z, j), 'exp(z) = ' + list(e, j), 'sum = ' + fmt(sum),
        id + ij + ' = exp(z_' + j + ') / sum = ' + fmt(e[j]) + ' / ' + fmt(sum) + ' = ' + V);
    }
    if (id === 'inputs' || id === 'batch') {
      var rn = cfg.inputs.randn;
      L.push(id === 'batch' ? 'torch.stack copies inputs' + ij + ' into batch element ' + b + '.' :
        rn ? 'Number ' + (i * rn[1] + j + 1) + ' drawn by torch.randn(' + rn.join(', ') + ') after torch.manual_seed(' + cfg.inputs.seed + ').' :
        'Feature ' + j + ' of token ' + tok(i) + ', as typed in the inputs table.');
    } else if (m) {
      L.push((m[2] === 'W' ? 'Input feature ' + j + ' → output feature ' + i : 'Bias of output feature ' + j) + ': uniform in ±1/√d_in = ±' +
        fmt(1 / Math.sqrt(by(wt).inputs.shape[1])) + ' after torch.manual_seed(' + (m[1] ? cfg.seed_class : cfg.seed_weights) + ').');
    } else if (qkv) {
      var bs = by(wt)['b_' + qkv];
      L.push(id + ij + ' = x_' + i + ' · W_' + qkv + '[' + j + ']' + (bs ? ' + b_' + qkv + '[' + j + ']' : '') + '  (token ' + tok(i) + ')',
        '= ' + terms(row(wt, 'inputs', 0, i), row(wt, 'W_' + qkv, 0, j)) + (bs ? ' + ' + op(bs.data[j]) : ''), '= ' + V);
    } else if (id === 'attn_scores') {
      L.push('ω' + ij + ' = q_' + i + ' · k_' + j + '  (query ' + tok(i) + ', key ' + tok(j) + ')',
        '= ' + terms(row(wt, 'queries', 0, i), row(wt, 'keys', 0, j)), '= ' + V);
    } else if (id === 'attn_weights') {
      smx('attn_scores');
    } else if (id === 'attn_weights_causal') {
      smx('masked');
      L.push('exp(−∞) = 0. The simple way gave ' + get('masked_simple_norm') + ', off by ' + Math.abs(v - at(wt, 'masked_simple_norm', 0, i, j)).toExponential(2) + '.');
    } else if (id === 'context_vec') {
      var vs = [];
      for (var k = 0; k < T; k++) vs.push(at(wt, 'values', 0, k, j));
      L.push('context_vec' + ij + ' = Σ_k attn_weights[' + i + ', k] · values[k, ' + j + ']', '= ' + terms(row(wt, 'attn_weights', 0, i), vs), '= ' + V);
    } else if (id === 'mask_simple' || id === 'mask') {
      L.push('Key ' + tok(j) + (j > i ? ' comes after query ' + tok(i) + ': future, hidden' : ' is not after query ' + tok(i) + ': visible') + ', so ' + V + '.');
    } else if (id === 'masked_simple') {
      L.push('attn_weights' + ij + ' × mask_simple' + ij + ' = ' + get('attn_weights') + ' × ' + get('mask_simple') + ' = ' + V);
    } else if (id === 'row_sums') {
      L.push('row_sums[' + i + '] = Σ_j masked_simple[' + i + ', j] = ' + row(wt, 'masked_simple', 0, i).slice(0, 12).map(fmt).join(' + ') + (T > 12 ? ' + …' : '') + ' = ' + V);
    } else if (id === 'masked_simple_norm') {
      L.push('masked_simple' + ij + ' / row_sums[' + i + '] = ' + get('masked_simple') + ' / ' + get('row_sums', 0) + ' = ' + V);
    } else if (id === 'masked') {
      L.push(j > i ? '−∞: j > i, key ' + tok(j) + ' comes after query ' + tok(i) + '.' : 'j ≤ i: attn_scores' + ij + ' = ' + V + ' is kept.');
    } else if (drop(id)) {
      var w = id === 'dropout_example' ? 1 : at(wt, 'attn_weights_causal', 0, i, j);
      L.push(!cfg.train ? 'Eval mode: dropout is the identity, ' + V + '.' : !p ? 'p = 0: dropout keeps everything, ' + V + '.' :
        at(wt, 'dropout_example', 0, i, j) ? 'Kept: ' + fmt(w) + ' × 1/(1−p) = ' + fmt(w) + ' × ' + f32(1 / (1 - p)) + ' = ' + V :
        'Dropped (p = ' + p + '): ' + fmt(w) + ' becomes 0.', 'Generator: ' + cfg.rng + ', torch.manual_seed(' + cfg.seed_dropout + ').');
    } else if (id === 'context_vecs') {
      L.push('ca(batch) repeats sections 1 to 3 (and dropout p = ' + cfg.class_dropout + ') with its own weights ca.W_*, on batch element ' + b + ', token ' + tok(i) + ', output feature ' + j + '.');
    }
    L.push('float32 value: ' + (isFinite(v) ? f32(v) : V));
    var f = (doc = doc || document).createDocumentFragment();
    L.forEach(function (t) { f.appendChild(el(doc, 'p', '', t)); });
    return f;
  }
  function drop(id) { return id === 'dropout_example' || id === 'attn_weights_dropped'; }

  function bind(root, onPick) {
    var lit = [];
    function light(c) {
      lit.forEach(function (e) { e.classList.remove('hl'); });
      lit = [];
      if (!c) return;
      var tr = c.parentNode, rows = tr.parentNode.parentNode.rows;
      for (var k = 0; k < rows.length; k++) lit.push(rows[k].cells[c.cellIndex]);
      lit.push.apply(lit, tr.cells);
      lit.forEach(function (e) { e.classList.add('hl'); });
    }
    function cell(e) { var c = e.target.closest && e.target.closest('td[data-col]'); return c && root.contains(c) ? c : null; }
    root.addEventListener('mouseover', function (e) { light(cell(e)); });
    root.addEventListener('mouseleave', function () { light(); });
    root.addEventListener('focusin', function (e) { light(cell(e)); });
    root.addEventListener('click', function (e) { var c = cell(e); if (c) onPick(c); });
    root.addEventListener('keydown', function (e) {
      var c = cell(e), k = e.key, n, r;
      if (!c) return;
      if (k === 'Enter' || k === ' ') n = c;
      else if (k === 'ArrowRight') n = c.nextElementSibling;
      else if (k === 'ArrowLeft') n = c.previousElementSibling;
      else if (k === 'ArrowDown' || k === 'ArrowUp') n = (r = c.parentNode[k === 'ArrowUp' ? 'previousElementSibling' : 'nextElementSibling']) && r.cells[c.cellIndex];
      else return;
      e.preventDefault();
      if (n === c) onPick(c);
      else if (n && n.dataset.col) {
        c.tabIndex = -1;
        n.tabIndex = 0;
        n.focus();
      }
    });
  }

  CA.render = { fmt: fmt, f32: f32, stage: stage, explain: explain, bind: bind, maxDiff: maxDiff, at: at };
})(globalThis.CausalAttention || (globalThis.CausalAttention = {}));
