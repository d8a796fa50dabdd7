// Lecture mode: one stage at a time over the whole window, in large type (title, PyTorch line,
// table, drawing). ←/→ or PageUp/PageDown (what presentation clickers send) move, Home/End
// jump, Esc leaves. The URL names the slide: #stage=attn_weights_causal&lecture. Cells that
// change from the previous slide flash (not under prefers-reduced-motion).
(function () {
  'use strict';
  var CA = globalThis.CausalAttention, doc = document, R = CA.render;
  var state = { on: false, stage: '' }, wt = null, box = null, shownId = '', back = null;

  /** The hash as settings: `key=value` parts joined by `&` (the grammar of the page's hash);
   *  `stage` and `lecture` are ours, every other part (the configuration) is returned in rest. */
  function settings(hash) {
    var out = { rest: [] };
    hash.replace(/^#/, '').split('&').forEach(function (part) {
      var m = /^(stage|lecture)(?:=(.*))?$/.exec(part);
      if (m) out[m[1]] = m[2] === undefined ? true : decodeURIComponent(m[2]);
      else if (part) out.rest.push(part);
    });
    return out;
  }
  // Our part of the hash ('' when lecture mode is off).
  function hash() { return state.on ? 'stage=' + encodeURIComponent(state.stage) + '&lecture' : ''; }
  function writeHash() {
    var rest = settings(location.hash).rest.concat(hash() || []).join('&');
    history.replaceState(null, '', rest ? '#' + rest : location.pathname + location.search);
  }
  /** Reads lecture mode and its stage from a URL hash (the page calls it before rendering). */
  function read(h) {
    var s = settings(h);
    state.on = !!s.lecture;
    state.stage = s.stage || '';
  }

  function el(tag, className, text, parent) {
    var node = doc.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return parent ? parent.appendChild(node) : node;
  }
  function build() {
    box = el('div', 'lec', undefined, doc.body);
    box.id = 'lecture';
    box.tabIndex = -1;
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-modal', 'true');
    box.setAttribute('aria-label', 'Lecture mode');
    box.addEventListener('keydown', keys);
    box.addEventListener('click', function (e) {
      var b = e.target.closest('button[data-go]');
      if (b) go(b.dataset.go);
    });
    if (CA.draw) CA.draw.bind(box);
  }
  function keys(e) {
    var inside = e.target.closest && e.target.closest('td,.tk'), key = e.key; // arrows move inside tables and drawings
    var to = { PageDown: 'next', PageUp: 'prev', Home: 'first', End: 'last', Escape: 'close' }[key] ||
      (!inside && { ArrowRight: 'next', ArrowLeft: 'prev' }[key]);
    if (!to || (inside && (key === 'Home' || key === 'End'))) return;
    e.preventDefault();
    e.stopPropagation();
    go(to);
  }
  function ids() { return wt.stages.map(function (s) { return s.id; }); }
  function go(to) {
    if (to === 'close') return close();
    var all = ids(), k = all.indexOf(state.stage);
    k = to === 'first' ? 0 : to === 'last' ? all.length - 1 : Math.max(0, Math.min(all.length - 1, k + (to === 'next' ? 1 : -1)));
    state.stage = all[k];
    writeHash();
    slide(true);
  }

  // The slide of state.stage; `step`: coming from the previous slide (its changed cells flash).
  function slide(step) {
    var all = ids(), k = Math.max(0, all.indexOf(state.stage)), st = wt.stages[k], info = CA.info(st.id);
    var prev = step && R.byId(wt)[shownId], section = CA.sections.filter(function (s) { return s.id === info.section; })[0];
    state.stage = st.id;
    var top = el('div', 'lh');
    el('span', 'lc', (k + 1) + ' / ' + all.length, top);
    el('span', 'ls', '§' + section.number + ' ' + section.title, top);
    var nav = el('span', 'ln', undefined, top);
    [['prev', '← Previous'], ['next', 'Next →'], ['close', 'Leave (Esc)']].forEach(function (b) {
      el('button', '', b[1], nav).dataset.go = b[0];
    });
    nav.querySelectorAll('button')[0].disabled = !k;
    nav.querySelectorAll('button')[1].disabled = k === all.length - 1;
    var title = el('h2', '', st.title);
    title.id = 'lecture-title';
    box.setAttribute('aria-labelledby', title.id);
    var stage = R.stage(st, wt, { doc: doc, caption: false });
    if (prev && prev.data.length === st.data.length && prev.shape.join() === st.shape.join()) {
      stage.querySelectorAll('td[data-col]').forEach(function (td, n) {
        if (R.fmt(prev.data[n]) !== td.textContent.replace(/^✗ /, '')) td.classList.add('chg');
      });
    }
    box.replaceChildren(top, title, el('code', '', st.code), stage);
    shownId = st.id;
    box.hidden = false;
    doc.documentElement.classList.add('lecturing');
  }

  function close() {
    state.on = false;
    box.hidden = true;
    doc.documentElement.classList.remove('lecturing');
    writeHash();
    var start = doc.getElementById('lecture-start'), target = doc.querySelector('[data-stage="' + state.stage + '"]');
    (back && back.isConnected ? back : start).focus();
    if (target) target.scrollIntoView({ block: 'center' });
  }
  function open(id) {
    back = doc.activeElement;
    state.on = true;
    state.stage = id || state.stage || wt.stages[0].id;
    writeHash();
    slide(false);
    box.focus();
  }

  /** The page rendered walkthrough `res`: redraw the slide if lecture mode is on. */
  function shown(res) {
    wt = res;
    if (!box) build();
    if (state.on) {
      if (box.hidden !== false) back = doc.activeElement;
      slide(false);
      if (!box.contains(doc.activeElement)) box.focus();
    } else {
      box.hidden = true;
    }
  }

  // The page's button into lecture mode, from the first stage.
  var start = el('button', '', 'Lecture mode (one stage at a time, arrow keys)');
  start.id = 'lecture-start';
  start.type = 'button';
  start.addEventListener('click', function () { open(wt.stages[0].id); });
  doc.querySelector('header').appendChild(start);

  CA.lecture = { settings: settings, hash: hash, read: read, shown: shown, open: open };
})();
