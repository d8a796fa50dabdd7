// The page's views of issue 8 (page only; the tables and drawings are in lib/):
// - lecture mode: one stage at a time over the whole window, in large type (title, PyTorch
//   line, table, drawing). ←/→ or PageUp/PageDown (what presentation clickers send) move,
//   Home/End jump, Esc leaves. The URL names the slide: #stage=attn_weights_causal&lecture.
//   Cells that change from the previous slide flash (not under prefers-reduced-motion).
// - "Why are my numbers different?": under the dropout tables, the table of each of PyTorch's
//   two CPU dropout paths side by side (both computed: rng "default" and "mkl"), the
//   differing cells marked, and which readers get which.
(function () {
  'use strict';
  var CA = globalThis.CausalAttention,
    doc = document,
    R = CA.render,
    api;
  var state = { on: false, stage: '' },
    wt = null,
    box = null,
    shownId = '',
    back = null;

  /** The hash as settings: `key=value` parts joined by `&` (the grammar of the page's hash);
   *  `stage` and `lecture` are ours, every other part (the configuration) is returned in rest. */
  function settings(hash) {
    var out = { rest: [] };
    hash
      .replace(/^#/, '')
      .split('&')
      .forEach(function (part) {
        var m = /^(stage|lecture)(?:=(.*))?$/.exec(part);
        if (m) out[m[1]] = m[2] === undefined ? true : decodeURIComponent(m[2]);
        else if (part) out.rest.push(part);
      });
    return out;
  }
  // Our part of the hash ('' when lecture mode is off).
  function hash() {
    return state.on ? 'stage=' + encodeURIComponent(state.stage) + '&lecture' : '';
  }
  function writeHash() {
    var rest = settings(location.hash)
      .rest.concat(hash() || [])
      .join('&');
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
    var inside = e.target.closest && e.target.closest('.tk'),
      key = e.key; // arrows move between a drawing's tokens
    var to =
      { PageDown: 'next', PageUp: 'prev', Home: 'first', End: 'last', Escape: 'close' }[key] ||
      (!inside && { ArrowRight: 'next', ArrowLeft: 'prev' }[key]);
    if (!to || (inside && (key === 'Home' || key === 'End'))) return;
    e.preventDefault();
    e.stopPropagation();
    go(to);
  }
  function ids() {
    return wt.stages.map(function (s) {
      return s.id;
    });
  }
  function go(to) {
    if (to === 'close') return close();
    var all = ids(),
      k = all.indexOf(state.stage);
    k =
      to === 'first'
        ? 0
        : to === 'last'
          ? all.length - 1
          : Math.max(0, Math.min(all.length - 1, k + (to === 'next' ? 1 : -1)));
    state.stage = all[k];
    writeHash();
    slide(true);
  }

  // The slide of state.stage; `step`: coming from the previous slide (its changed cells flash).
  function slide(step) {
    var all = ids(),
      k = Math.max(0, all.indexOf(state.stage)),
      st = wt.stages[k],
      info = CA.info(st.id);
    var prev = step && R.byId(wt)[shownId],
      section = CA.sections.filter(function (s) {
        return s.id === info.section;
      })[0];
    state.stage = st.id;
    var top = el('div', 'lh');
    el('span', 'lc', k + 1 + ' / ' + all.length, top);
    el('span', 'ls', '§' + section.number + ' ' + section.title, top);
    var nav = el('span', 'ln', undefined, top);
    [
      ['prev', '← Previous'],
      ['next', 'Next →'],
      ['close', 'Leave (Esc)'],
    ].forEach(function (b) {
      el('button', '', b[1], nav).dataset.go = b[0];
    });
    nav.querySelectorAll('button')[0].disabled = !k;
    nav.querySelectorAll('button')[1].disabled = k === all.length - 1;
    var title = el('h2', '', st.title);
    title.id = 'lecture-title';
    box.setAttribute('aria-labelledby', title.id);
    var stage = R.stage(st, wt, {
      doc: doc,
      caption: false,
      torch: doc.getElementById('torch-format').checked,
    });
    if (prev && prev.data.length === st.data.length && prev.shape.join() === st.shape.join()) {
      stage.querySelectorAll('td[data-col]').forEach(function (td, n) {
        if (R.fmt(prev.data[n]) !== R.fmt(st.data[n])) td.classList.add('chg');
      });
    }
    box.replaceChildren(top, title, el('code', '', st.code), stage);
    shownId = st.id;
    box.hidden = false;
    doc.documentElement.classList.add('lecturing');
    if (!box.contains(doc.activeElement)) box.focus(); // the focused cell was replaced: keys stay here
  }

  function close() {
    state.on = false;
    box.hidden = true;
    doc.documentElement.classList.remove('lecturing');
    writeHash();
    var start = doc.getElementById('lecture-start'),
      target = doc.querySelector('[data-stage="' + state.stage + '"]');
    (back && back.isConnected ? back : start).focus();
    if (target) target.scrollIntoView({ block: 'center' });
  }
  function open(id) {
    back = doc.activeElement;
    state.on = true;
    state.stage = id || state.stage || wt.stages[0].id;
    writeHash();
    slide(false);
  }

  /** The page rendered walkthrough `res`: redraw the slide if lecture mode is on. */
  function shown(res) {
    wt = res;
    if (!box) build();
    if (state.on) {
      if (box.hidden !== false) back = doc.activeElement;
      slide(false);
    } else {
      box.hidden = true;
    }
  }

  // The page's button into lecture mode, from the first stage.
  var start = el('button', '', 'Lecture mode');
  start.title = 'One stage at a time, full screen; arrow keys move';
  start.id = 'lecture-start';
  start.type = 'button';
  start.addEventListener('click', function () {
    open(wt.stages[0].id);
  });
  var bar = doc.querySelector('header .bar') || doc.querySelector('header');
  var fmtBox = doc.getElementById('torch-format');
  bar.insertBefore(
    start,
    fmtBox && fmtBox.parentNode.parentNode === bar ? fmtBox.parentNode : null,
  );

  // "Why are my numbers different?"
  CA.load().then(function (a) {
    api = a;
  }); // resolves before the page's first render
  var WHO = {
    default:
      'the book’s table: PyTorch 2.7+ on any CPU; before, builds without MKL (Apple silicon, ARM, OpenBLAS, Debian) and AMD CPUs while PyTorch checked the vendor',
    mkl: 'x86 Linux, Windows and Colab with MKL builds (pip, conda), PyTorch 0.4.1 to 2.6, on Intel CPUs (AMD too once the vendor check was gone)',
  };
  var LINKS = [
    [
      'https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb',
      'the notebook’s note (§3.5.2)',
    ],
    ['https://github.com/rasbt/LLMs-from-scratch/issues/57', 'LLMs-from-scratch#57'],
    ['https://github.com/pytorch/pytorch/issues/121595', 'pytorch#121595'],
  ];

  // One stage's table for one generator, cells that differ from `other` marked: the first
  // 10 × 10 at most, enough to hold against a notebook's print (the book's are 6 × 6), with the
  // count of differing cells over the whole table (a T = 128 pair of whole tables would be
  // 33,000 cells to lay out on every edit). Labels by the stage's axes (dropout_example: 6 × 6).
  function grid(st, other, tokens, rng, parent) {
    var info = CA.info(st.id),
      rows = st.shape[0],
      cols = st.shape[1],
      n = Math.min(rows, 10),
      m = Math.min(cols, 10),
      differ = 0,
      wrap = el('div', 'scroll wv', undefined, parent),
      t = el('table', 't', undefined, wrap),
      i,
      j;
    var label = function (axis, k) {
      return axis === 'tok' ? tokens[k] : String(k);
    };
    for (i = 0; i < rows * cols; i++) if (st.data[i] !== other.data[i]) differ++;
    wrap.tabIndex = 0; // it may scroll sideways on a phone: reachable by keyboard
    wrap.setAttribute('role', 'region');
    wrap.setAttribute('aria-label', st.id + ', rng ' + rng);
    t.dataset.rng = rng;
    el(
      'caption',
      '',
      'rng "' +
        rng +
        '": ' +
        WHO[rng] +
        '. ' +
        differ +
        ' of ' +
        rows * cols +
        ' cells differ' +
        (n < rows || m < cols ? '; the first ' + n + ' × ' + m + ' shown.' : '.'),
      t,
    );
    var tr = el('tr', '', undefined, el('thead', '', undefined, t));
    el('th', 'k', info.rows === 'tok' ? 'query \\ key' : '', tr).scope = 'col';
    for (j = 0; j < m; j++) el('th', '', label(info.cols, j), tr).scope = 'col';
    var body = el('tbody', '', undefined, t);
    for (i = 0; i < n; i++) {
      tr = el('tr', '', undefined, body);
      el('th', '', label(info.rows, i), tr).scope = 'row';
      for (j = 0; j < m; j++) {
        var x = st.data[i * cols + j],
          td = el('td', '', R.fmt(x), tr);
        if (x !== other.data[i * cols + j]) {
          td.className = 'df';
          td.setAttribute('aria-label', R.fmt(x) + ', differs from the other table');
        }
      }
    }
  }

  /** After each render of the page: the comparison box for the end of the dropout section
   *  (null when nothing differs: no dropout, or a preset without it). The box is the same
   *  element every time; its tables are built by box._fill, which the page calls when the box
   *  is seen or in idle time (a second run and four tables were 8 ms of every edit). */
  var why = null;
  function compare(res, c) {
    var cfg = res.config;
    if (!api || !cfg.train || !cfg.dropout || !R.byId(res).dropout_example) return null;
    if (!why) {
      why = el('aside', 'why');
      why.setAttribute('aria-labelledby', 'why-title');
      el('h3', '', 'Why are my numbers different?', why).id = 'why-title';
      el(
        'p',
        '',
        'Same seed, same code, two tables: on the CPU, dropout’s bernoulli_ has two implementations. One draws each cell from PyTorch’s Mersenne Twister; ' +
          'the other, in x86 builds with Intel MKL, seeds MKL’s own generator with one Mersenne Twister number and lets it draw the mask. Both are right, just different random streams; this page computes both (“generator” in the settings).',
        why,
      );
      var links = el('p', '', 'More: ', why);
      LINKS.forEach(function (l, k) {
        var a = el('a', '', l[1], links);
        a.href = l[0];
        if (k < LINKS.length - 1) links.append(', ');
      });
      why._tables = el('div', '', undefined, why);
      el(
        'p',
        'hint',
        'From PyTorch’s source and published outputs; not pinned to a release: when AMD CPUs began taking the MKL path (about 1.11 to 2.0) and the 2.7.0 cut-over (seen in nightlies only).',
        why,
      );
    }
    why._fill = function () {
      var mine = cfg.rng,
        flip = api.run(Object.assign({}, c, { rng: mine === 'mkl' ? 'default' : 'mkl' }), {
          stages: ['dropout_example', 'attn_weights_dropped'], // computes only what they need
        });
      var by = { default: mine === 'default' ? res : flip, mkl: mine === 'mkl' ? res : flip },
        out = doc.createDocumentFragment();
      ['dropout_example', 'attn_weights_dropped'].forEach(function (id) {
        var a = R.byId(by.default)[id],
          b = R.byId(by.mkl)[id];
        el('h4', '', id + ' (' + a.code.replace(/^torch\.manual_seed\(\d+\); /, '') + ')', out);
        var pair = el('div', 'pair', undefined, out);
        grid(a, b, cfg.tokens, 'default', pair);
        grid(b, a, cfg.tokens, 'mkl', pair);
      });
      why._tables.replaceChildren(out);
    };
    return why;
  }

  CA.lecture = { settings: settings, hash: hash, read: read, shown: shown, open: open };
  CA.why = { shown: compare };
})();
