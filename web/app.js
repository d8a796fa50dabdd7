// The page controller: settings <-> config <-> URL hash; runs the walkthrough, renders it.
(function () {
  'use strict';
  var CA = globalThis.CausalAttention, R = CA.render, N = CA.notes, doc = document;
  var $ = function (id) { return doc.getElementById(id); };
  var form = $('controls'), F = form.elements, main = $('main'), status = $('status'), ed = $('inputs-editor');
  var panel = $('explain'), ptitle = $('explain-title');
  var NUMS = ['d_out', 'seed_weights', 'seed_dropout', 'dropout', 'seed_class', 'class_dropout', 'context_length'];
  var BOOLS = ['qkv_bias', 'scale', 'train'];
  var BOOK = ['Your', 'journey', 'starts', 'with', 'one', 'step'];
  var api, DEF, cur, randn = null, big = false, pick = null, lastHash;

  function defTokens(T) {
    for (var o = [], i = 0; i < T; i++) o.push(BOOK[i] || 'x' + (i + 1));
    return o;
  }
  // Not a number: the text itself, so the core names the problem.
  function num(t) {
    t = t.trim();
    return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t) ? +t : t;
  }
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  function el(tag, props, parent) {
    var e = doc.createElement(tag);
    for (var k in props) e[k] = props[k];
    return parent ? parent.appendChild(e) : e;
  }
  function input(tr, props, i, j, label) {
    var x = el('input', props, el('td', {}, tr));
    x.dataset.row = i;
    if (j !== undefined) x.dataset.col = j;
    x.setAttribute('aria-label', label);
  }

  function readEd() {
    return big ? null : Array.prototype.reduce.call(ed.tBodies[0].rows, function (m, tr) {
      var v = Array.prototype.map.call(tr.querySelectorAll('input'), function (x) { return x.value; });
      m.tokens.push(v.shift());
      m.rows.push(v);
      return m;
    }, { tokens: [], rows: [] });
  }
  function buildEd(m) {
    var f = doc.createDocumentFragment(), T = m.rows ? m.rows.length : m.big[0], D = m.rows ? m.rows[0].length : m.big[1];
    big = T * D > 4096;
    ['add-token', 'add-feature', 'remove-feature'].forEach(function (id) { $(id).disabled = big; });
    el('caption', { textContent: big ? T + ' × ' + D + ' values: too many to edit one by one.' : 'Token labels and input values' }, f);
    if (!big) {
      var tr = el('tr', {}, el('thead', {}, f));
      el('th', { scope: 'col', textContent: 'token' }, tr);
      for (var j = 0; j < D; j++) el('th', { scope: 'col', textContent: j }, tr);
      el('td', {}, tr);
      var tb = el('tbody', {}, f);
      m.rows.forEach(function (r, i) {
        tr = el('tr', {}, tb);
        input(tr, { name: 'tokens', value: m.tokens[i], className: 'tok' }, i, undefined, 'Label of token ' + i);
        r.forEach(function (v, j) { input(tr, { name: 'inputs', value: v }, i, j, 'Token ' + i + ', feature ' + j); });
        var b = el('button', { type: 'button', textContent: '×', className: 'rm', disabled: T < 2 }, el('td', {}, tr));
        b.dataset.removeRow = i;
        b.setAttribute('aria-label', 'Remove token ' + i);
      });
    }
    ed.replaceChildren(f);
    setMode();
  }
  function setMode() {
    $('inputs-mode').textContent = randn ? 'torch.manual_seed(' + randn.seed + '); inputs = torch.randn(' + randn.randn.join(', ') + ')' : 'Or random inputs:';
  }
  function edFrom(res, c) {
    var s = res.stages[0], T = s.shape[0], D = s.shape[1], rows = [], toks = res.config.tokens.slice();
    if (T * D > 4096) return { big: s.shape };
    for (var i = 0; i < T; i++) rows.push(Array.prototype.slice.call(s.data, i * D, i * D + D).map(R.f32));
    return { tokens: toks, rows: randn || !c.inputs ? rows : c.inputs.map(function (r) { return r.map(String); }) };
  }

  function readConfig(tokens) {
    var c = {}, m = readEd(), rows = m && m.rows.map(function (r) { return r.map(num); });
    c.inputs = randn || (m ? rows : cur.config.inputs);
    var T = randn ? randn.randn[0] : c.inputs.length;
    if (same(c.inputs, DEF.inputs)) delete c.inputs;
    tokens = tokens || (m || cur.config).tokens;
    if (!same(tokens, defTokens(T))) c.tokens = tokens;
    NUMS.forEach(function (k) {
      var t = F[k].value, v = num(t), ctx = k === 'context_length';
      if (ctx ? t.trim() : !same(v, DEF[k])) c[k] = v;
    });
    BOOLS.forEach(function (k) { if (F[k].checked !== DEF[k]) c[k] = F[k].checked; });
    if (F.rng.value !== DEF.rng) c.rng = F.rng.value;
    return c;
  }
  function setControls(c, res) {
    var cfg = res.config;
    randn = cfg.inputs.randn ? c.inputs : null;
    NUMS.forEach(function (k) { F[k].value = k in c ? c[k] : k === 'context_length' ? '' : cfg[k]; });
    BOOLS.forEach(function (k) { F[k].checked = cfg[k]; });
    F.rng.value = cfg.rng;
    var sh = res.stages[0].shape;
    F.randn_tokens.value = randn ? randn.randn[0] : sh[0];
    F.randn_d_in.value = randn ? randn.randn[1] : sh[1];
    F.randn_seed.value = randn ? cfg.inputs.seed : 123;
    buildEd(edFrom(res, c));
  }

  function clearErr() {
    form.querySelectorAll('[data-error-for]').forEach(function (e) { e.textContent = ''; });
    form.querySelectorAll('[aria-invalid]').forEach(function (e) { e.removeAttribute('aria-invalid'); });
  }
  function showErr(msg, src, elm) {
    clearErr();
    var m = /^"(\w+)"(?:\[(\d+)\]\[(\d+)\])?/.exec(msg), key = m ? m[1] : /context_length/.test(msg) ? 'context_length' : src;
    if (key === 'inputs' && src === 'randn') key = 'randn';
    (form.querySelector('[data-error-for="' + key + '"]') || form.querySelector('[data-error-for="' + src + '"]')).textContent = msg;
    var bad = m && m[2] ? ed.querySelector('[data-row="' + m[2] + '"][data-col="' + m[3] + '"]') : F[key] && F[key].type ? F[key] : key === src && elm;
    if (bad) bad.setAttribute('aria-invalid', 'true');
  }

  function apply(src, elm, tokens) {
    var c = readConfig(tokens), res;
    try { res = api.run(c); } catch (e) { showErr(e.message, src, elm); return null; }
    clearErr();
    show(res, c);
    return res;
  }
  function show(res, c, keepHash) {
    cur = res;
    status.textContent = '';
    var secs = {}, boxes = main.querySelectorAll('[data-section]'), simple;
    boxes.forEach(function (d) { secs[d.dataset.section] = doc.createDocumentFragment(); });
    res.stages.forEach(function (s) {
      var o = { doc: doc }, d;
      if (s.id === 'masked_simple_norm') simple = s.data;
      if (s.id === 'attn_weights_causal' && simple) o.after = 'max |difference| from the simple way (masked_simple_norm): ' + ((d = R.maxDiff(s.data, simple)) ? d.toExponential(2) : '0');
      (secs[N.get(s.id).s] || secs[5]).appendChild(R.stage(s, res, o));
    });
    boxes.forEach(function (d) { d.replaceChildren(secs[d.dataset.section]); });
    if (pick) explain();
    var h = keepHash ? location.hash : Object.keys(c).length ? '#' + encodeURIComponent(JSON.stringify(c)) : '';
    lastHash = h;
    if (location.hash !== h) history.replaceState(null, '', h || location.pathname + location.search);
  }
  function load(h) {
    var c = {}, res, msg = '';
    try {
      if (h) c = JSON.parse(decodeURIComponent(h));
      if (!c || c.constructor !== Object) throw new Error('not a JSON object');
      res = api.run(c);
    } catch (e) {
      msg = 'Invalid link (' + e.message + '): showing the book instead.';
      res = api.run(c = {});
    }
    setControls(c, res);
    clearErr();
    show(res, c, msg);
    status.textContent = msg;
  }

  function explain() {
    var box = main.querySelector('[data-stage="' + pick.id + '"]'), n = pick.n;
    var cell = box && box.querySelector('td[data-row="' + pick.i + '"][data-col="' + pick.j + '"]' + (n > 2 ? '[data-batch="' + pick.b + '"]' : ''));
    if (!cell) return close();
    (pick.cell = cell).classList.add('sel');
    ptitle.textContent = pick.id + '[' + [pick.b, pick.i, pick.j].slice(3 - n).join(', ') + '] = ' + R.fmt(R.at(cur, pick.id, pick.b, pick.i, pick.j));
    $('explain-body').replaceChildren(R.explain(cur, pick.id, pick.b, pick.i, pick.j, doc));
    panel.hidden = false;
  }
  function close() {
    panel.hidden = true;
    var c = pick && pick.cell;
    pick = null;
    if (c && c.isConnected) { c.classList.remove('sel'); c.focus(); }
  }
  R.bind(main, function (cell) {
    if (pick && pick.cell) pick.cell.classList.remove('sel');
    var d = cell.dataset, id = cell.closest('[data-stage]').dataset.stage;
    pick = { id: id, n: cur.stages.filter(function (s) { return s.id === id; })[0].shape.length, b: +d.batch || 0, i: +d.row, j: +d.col };
    explain();
  });

  function restructure(f) {
    var m = readEd();
    if (!m) return;
    randn = null;
    f(m);
    buildEd(m);
    apply('inputs');
  }
  function randomize() {
    var T = num(F.randn_tokens.value), old = randn, m = readEd(), toks = (m || cur.config).tokens, res;
    randn = { randn: [T, num(F.randn_d_in.value)], seed: num(F.randn_seed.value) };
    if (T > 0 && T < 1025) toks = toks.slice(0, T).concat(defTokens(T).slice(toks.length));
    if ((res = apply('randn', F.randn_tokens, toks))) buildEd(edFrom(res, {}));
    else randn = old;
  }
  form.addEventListener('input', function (e) {
    var t = e.target, n = t.name;
    if (!n || /^randn_/.test(n)) return;
    if (n === 'inputs' && randn) {
      randn = null; // the same values, now as typed in
      setMode();
    }
    apply(n, t);
  });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    if (e.submitter === F.randomize || /^randn_/.test(doc.activeElement.name)) randomize();
  });
  form.addEventListener('click', function (e) {
    var id = e.target.id, r = e.target.dataset.removeRow;
    if (id === 'reset') load('');
    else if (id === 'add-token') restructure(function (m) { m.rows.push(m.rows[0].map(function () { return '0'; })); m.tokens.push(defTokens(m.rows.length).pop()); });
    else if (id === 'add-feature') restructure(function (m) { m.rows.forEach(function (r) { r.push('0'); }); });
    else if (id === 'remove-feature') restructure(function (m) { if (m.rows[0].length > 1) m.rows.forEach(function (r) { r.pop(); }); });
    else if (r) {
      restructure(function (m) { m.rows.splice(r, 1); m.tokens.splice(r, 1); });
      var b = ed.querySelector('[data-remove-row="' + Math.min(r, ed.tBodies[0].rows.length - 1) + '"]');
      (b && !b.disabled ? b : $('add-token')).focus();
    }
  });
  $('explain-close').addEventListener('click', close);
  doc.addEventListener('keydown', function (e) { if (e.key === 'Escape' && !panel.hidden) close(); });
  addEventListener('hashchange', function () { if (location.hash !== lastHash) load(location.hash.slice(1)); });
  $('rng-note').textContent = N.rng;

  CA.load().then(function (a) {
    api = a;
    DEF = api.run({}).config;
    DEF.inputs = DEF.inputs.map(function (r) { return r.map(function (x) { return +R.f32(x); }); });
    load(location.hash.slice(1));
    doc.documentElement.dataset.ready = '1';
  }).catch(function (e) {
    status.textContent = 'The page could not start: ' + e.message;
    doc.documentElement.dataset.ready = 'error';
  });
})();
