// The page controller: settings <-> config <-> URL hash; runs the walkthrough, renders it.
(function () {
  'use strict';
  var CA = globalThis.CausalAttention, R = CA.render, doc = document;
  var $ = function (id) { return doc.getElementById(id); };
  var form = $('controls'), fields = form.elements, main = $('main'), status = $('status'), editor = $('inputs-editor');
  var panel = $('explain'), panelTitle = $('explain-title');
  var NUMBERS = ['d_out', 'seed_weights', 'seed_dropout', 'dropout', 'seed_class', 'class_dropout', 'context_length'];
  var BOOLS = ['qkv_bias', 'scale', 'train'];
  var MAX_EDITABLE = 4096; // inputs with more values than this are not shown in the editor
  // api: the module; defaults: the book's resolved config; current: the walkthrough shown and
  // currentConfig its non-default keys (the URL hash); randn: {randn, seed} when the inputs are
  // random; tooBig: the editor is off; picked: the explained cell.
  var api, defaults, current, currentConfig = {}, randn = null, tooBig = false, picked = null, lastHash;

  // The tables' stylesheet ships inside causal-attention.js, shared with <causal-attention-demo>.
  doc.adoptedStyleSheets = doc.adoptedStyleSheets.concat(CA.styleSheet());

  function defaultTokens(T) { return api.defaultTokens(T); }
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  function el(tag, props, parent) {
    var node = doc.createElement(tag);
    for (var k in props) node[k] = props[k];
    return parent ? parent.appendChild(node) : node;
  }
  function input(tr, props, row, col, label) {
    var box = el('input', props, el('td', {}, tr));
    box.dataset.row = row;
    if (col !== undefined) box.dataset.col = col;
    box.setAttribute('aria-label', label);
  }

  // The inputs editor as text: {tokens, rows}, or null when it is off.
  function readEditor() {
    return tooBig ? null : Array.prototype.reduce.call(editor.tBodies[0].rows, function (model, tr) {
      var values = Array.prototype.map.call(tr.querySelectorAll('input'), function (x) { return x.value; });
      model.tokens.push(values.shift());
      model.rows.push(values);
      return model;
    }, { tokens: [], rows: [] });
  }
  // model: {tokens, rows} (text), or {big: [T, D]} for inputs too big to edit.
  function buildEditor(model) {
    var fragment = doc.createDocumentFragment();
    var T = model.rows ? model.rows.length : model.big[0], D = model.rows ? model.rows[0].length : model.big[1];
    tooBig = T * D > MAX_EDITABLE;
    ['add-token', 'add-feature', 'remove-feature'].forEach(function (id) { $(id).disabled = tooBig; });
    el('caption', { textContent: tooBig ? T + ' × ' + D + ' values: too many to edit one by one.' : 'Token labels and input values' }, fragment);
    if (!tooBig) {
      var tr = el('tr', {}, el('thead', {}, fragment));
      el('th', { scope: 'col', textContent: 'token' }, tr);
      for (var j = 0; j < D; j++) el('th', { scope: 'col', textContent: j }, tr);
      el('td', {}, tr);
      var body = el('tbody', {}, fragment);
      model.rows.forEach(function (row, i) {
        tr = el('tr', {}, body);
        input(tr, { name: 'tokens', value: model.tokens[i], className: 'tok' }, i, undefined, 'Label of token ' + i);
        row.forEach(function (v, j) { input(tr, { name: 'inputs', value: v }, i, j, 'Token ' + i + ', feature ' + j); });
        var remove = el('button', { type: 'button', textContent: '×', className: 'rm', disabled: T < 2 }, el('td', {}, tr));
        remove.dataset.removeRow = i;
        remove.setAttribute('aria-label', 'Remove token ' + i);
      });
    }
    editor.replaceChildren(fragment);
    showInputsMode();
  }
  function showInputsMode() {
    $('inputs-mode').textContent = randn ? 'torch.manual_seed(' + randn.seed + '); inputs = torch.randn(' + randn.randn.join(', ') + ')' : 'Or random inputs:';
  }
  // The editor's model for a result: the values as typed when config c has them, else the
  // float32 values in their shortest form.
  function editorModel(res, c) {
    var s = res.stages[0], T = s.shape[0], D = s.shape[1], rows = [];
    if (T * D > MAX_EDITABLE) return { big: s.shape };
    for (var i = 0; i < T; i++) rows.push(Array.prototype.slice.call(s.data, i * D, i * D + D).map(R.f32));
    return { tokens: res.config.tokens.slice(), rows: randn || !c.inputs ? rows : c.inputs.map(function (r) { return r.map(String); }) };
  }

  // The settings as a config of their non-default keys (tokens: labels to use instead).
  function readConfig(tokens) {
    var c = {}, model = readEditor(), rows = model && model.rows.map(function (r) { return r.map(R.parseNumber); });
    c.inputs = randn || (model ? rows : current.config.inputs);
    var T = randn ? randn.randn[0] : c.inputs.length;
    if (same(c.inputs, defaults.inputs)) delete c.inputs;
    tokens = tokens || (model || current.config).tokens;
    if (!same(tokens, defaultTokens(T))) c.tokens = tokens;
    NUMBERS.forEach(function (k) {
      var text = fields[k].value, v = R.parseNumber(text);
      if (k === 'context_length' ? text.trim() : !same(v, defaults[k])) c[k] = v; // empty context_length = T
    });
    BOOLS.forEach(function (k) { if (fields[k].checked !== defaults[k]) c[k] = fields[k].checked; });
    if (fields.rng.value !== defaults.rng) c.rng = fields.rng.value;
    return c;
  }
  function setControls(c, res) {
    var cfg = res.config;
    randn = cfg.inputs.randn ? c.inputs : null;
    NUMBERS.forEach(function (k) { fields[k].value = k in c ? c[k] : k === 'context_length' ? '' : cfg[k]; });
    BOOLS.forEach(function (k) { fields[k].checked = cfg[k]; });
    fields.rng.value = cfg.rng;
    var shape = res.stages[0].shape;
    fields.randn_tokens.value = randn ? randn.randn[0] : shape[0];
    fields.randn_d_in.value = randn ? randn.randn[1] : shape[1];
    fields.randn_seed.value = randn ? cfg.inputs.seed : api.defaults.randn_seed;
    buildEditor(editorModel(res, c));
  }

  function clearErrors() {
    form.querySelectorAll('[data-error-for]').forEach(function (e) { e.textContent = ''; });
    form.querySelectorAll('[aria-invalid]').forEach(function (e) { e.removeAttribute('aria-invalid'); });
  }
  // The core's message names the key ("d_out" must be...; "inputs"[i][j] ...): show it there.
  function showError(msg, source, sourceElement) {
    clearErrors();
    var m = /^"(\w+)"(?:\[(\d+)\]\[(\d+)\])?/.exec(msg), key = m ? m[1] : /context_length/.test(msg) ? 'context_length' : source;
    if (key === 'inputs' && source === 'randn') key = 'randn';
    (form.querySelector('[data-error-for="' + key + '"]') || form.querySelector('[data-error-for="' + source + '"]')).textContent = msg;
    var bad = m && m[2] ? editor.querySelector('[data-row="' + m[2] + '"][data-col="' + m[3] + '"]') : fields[key] && fields[key].type ? fields[key] : key === source && sourceElement;
    if (bad) bad.setAttribute('aria-invalid', 'true');
  }

  function apply(source, sourceElement, tokens) {
    var c = readConfig(tokens), res;
    try { res = api.run(c); } catch (e) { showError(e.message, source, sourceElement); return null; }
    clearErrors();
    show(res, c);
    return res;
  }
  // Renders every stage into its section and puts the config in the URL hash (keepHash: an
  // invalid link stays in the address bar).
  function show(res, c, keepHash) {
    current = res;
    currentConfig = c;
    status.textContent = '';
    var sections = {}, boxes = main.querySelectorAll('[data-section]');
    boxes.forEach(function (d) { sections[d.dataset.section] = doc.createDocumentFragment(); });
    res.stages.forEach(function (s) {
      sections[CA.info(s.id).section].appendChild(R.stage(s, res, { doc: doc, embed: true, torch: $('torch-format').checked }));
    });
    boxes.forEach(function (d) { d.replaceChildren(sections[d.dataset.section]); });
    if (picked) explain();
    // The hash: the configuration, then lecture mode's stage=...&lecture (lecture.js).
    var hash = keepHash ? location.hash.slice(1) : [Object.keys(c).length ? encodeURIComponent(JSON.stringify(c)) : '', CA.lecture.hash()].filter(Boolean).join('&');
    lastHash = hash = hash && '#' + hash;
    if (location.hash !== hash) history.replaceState(null, '', hash || location.pathname + location.search);
    CA.why.shown(res, c);
    CA.lecture.shown(res);
  }
  // Shows the config of a URL hash (or the book's, with a message, when it is not valid).
  function load(hash) {
    var c = {}, res, msg = '';
    CA.lecture.read(hash);
    hash = CA.lecture.settings(hash).rest.join('&');
    try {
      if (hash) c = JSON.parse(decodeURIComponent(hash));
      if (!c || c.constructor !== Object) throw new Error('not a JSON object');
      res = api.run(c);
    } catch (e) {
      msg = 'Invalid link (' + e.message + '): showing the book instead.';
      res = api.run(c = {});
    }
    setControls(c, res);
    clearErrors();
    show(res, c, msg);
    status.textContent = msg;
  }

  // The explanation panel of the picked cell (found again after every re-render).
  function explain() {
    var box = main.querySelector('[data-stage="' + picked.id + '"]'), rank = picked.rank;
    var cell = box && box.querySelector('td[data-row="' + picked.i + '"][data-col="' + picked.j + '"]' + (rank > 2 ? '[data-batch="' + picked.b + '"]' : ''));
    if (!cell) return close();
    (picked.cell = cell).classList.add('sel');
    panelTitle.textContent = picked.id + '[' + [picked.b, picked.i, picked.j].slice(3 - rank).join(', ') + '] = ' + R.fmt(R.at(current, picked.id, picked.b, picked.i, picked.j));
    $('explain-body').replaceChildren(R.explain(current, picked.id, picked.b, picked.i, picked.j, doc));
    operands(R.operands(picked.id, picked.i, picked.j));
    panel.hidden = false;
  }
  // Marks (.op) the cells behind the explained number in their own tables.
  function operands(list) {
    main.querySelectorAll('.op').forEach(function (c) { c.classList.remove('op'); });
    list.forEach(function (o) {
      var t = main.querySelector('[data-stage="' + o[0] + '"] table');
      if (t) t.querySelectorAll('td[data-' + o[1] + '="' + o[2] + '"]').forEach(function (c) { c.classList.add('op'); });
    });
  }
  function close() {
    operands([]);
    panel.hidden = true;
    var cell = picked && picked.cell;
    picked = null;
    if (cell && cell.isConnected) { cell.classList.remove('sel'); cell.focus(); }
  }
  R.bind(main, function (cell) {
    if (picked && picked.cell) picked.cell.classList.remove('sel');
    var d = cell.dataset, id = cell.closest('[data-stage]').dataset.stage;
    picked = { id: id, rank: R.byId(current)[id].shape.length, b: +d.batch || 0, i: +d.row, j: +d.col };
    explain();
  });
  CA.exports.bind(main, function () { return current; }, function () { return currentConfig; });

  // A change of the editor's shape: the inputs become typed values again.
  function restructure(change) {
    var model = readEditor();
    if (!model) return;
    randn = null;
    change(model);
    buildEditor(model);
    apply('inputs');
  }
  function randomize() {
    var T = R.parseNumber(fields.randn_tokens.value), old = randn, model = readEditor(), tokens = (model || current.config).tokens, res;
    randn = { randn: [T, R.parseNumber(fields.randn_d_in.value)], seed: R.parseNumber(fields.randn_seed.value) };
    if (T > 0 && T <= api.limits.max_tokens) tokens = tokens.slice(0, T).concat(defaultTokens(T).slice(tokens.length)); // keep the labels typed
    if ((res = apply('randn', fields.randn_tokens, tokens))) buildEditor(editorModel(res, {}));
    else randn = old;
  }
  form.addEventListener('input', function (e) {
    var target = e.target, name = target.name;
    if (!name || /^randn_/.test(name)) return;
    if (name === 'inputs' && randn) {
      randn = null; // the same values, now as typed in
      showInputsMode();
    }
    apply(name, target);
  });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    if (e.submitter === fields.randomize || /^randn_/.test(doc.activeElement.name)) randomize();
  });
  form.addEventListener('click', function (e) {
    var id = e.target.id, removeRow = e.target.dataset.removeRow;
    if (id === 'reset') load('');
    else if (id === 'add-token') restructure(function (m) { m.rows.push(m.rows[0].map(function () { return '0'; })); m.tokens.push(defaultTokens(m.rows.length).pop()); });
    else if (id === 'add-feature') restructure(function (m) { m.rows.forEach(function (r) { r.push('0'); }); });
    else if (id === 'remove-feature') restructure(function (m) { if (m.rows[0].length > 1) m.rows.forEach(function (r) { r.pop(); }); });
    else if (removeRow) {
      restructure(function (m) { m.rows.splice(removeRow, 1); m.tokens.splice(removeRow, 1); });
      var next = editor.querySelector('[data-remove-row="' + Math.min(removeRow, editor.tBodies[0].rows.length - 1) + '"]');
      (next && !next.disabled ? next : $('add-token')).focus(); // focus stays in the editor
    }
  });
  $('explain-close').addEventListener('click', close);
  $('torch-format').addEventListener('change', function () { show(current, currentConfig); });
  doc.addEventListener('keydown', function (e) { if (e.key === 'Escape' && !panel.hidden) close(); });
  addEventListener('hashchange', function () { if (location.hash !== lastHash) load(location.hash.slice(1)); });

  // One <section> per entry of the core's section table, its stages filled in by show().
  function buildSections() {
    main.replaceChildren.apply(main, api.sections.map(function (info) {
      var section = el('section', {}), h2 = el('h2', { id: info.id, textContent: info.number + ' ' + info.title }, section);
      section.setAttribute('aria-labelledby', h2.id);
      el('p', { textContent: info.intro }, section);
      el('div', { className: 'stages' }, section).dataset.section = info.id;
      return section;
    }));
  }

  CA.load().then(function (loaded) {
    api = loaded;
    buildSections();
    defaults = api.run({}).config;
    // The book's inputs as typed (0.43, not float32 0.4300000071525574), to compare with the editor.
    defaults.inputs = defaults.inputs.map(function (r) { return r.map(function (x) { return +R.f32(x); }); });
    load(location.hash.slice(1));
    doc.documentElement.dataset.ready = '1';
  }).catch(function (e) {
    status.textContent = 'The page could not start: ' + e.message;
    doc.documentElement.dataset.ready = 'error';
  });
})();
