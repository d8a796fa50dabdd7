// "Why are my numbers different?": under the dropout tables, the table of each of PyTorch's two
// CPU dropout paths side by side (both computed by the module: rng "default" and "mkl"), the
// differing cells marked, and which readers get which. Facts: docs/ and the README.
(function () {
  'use strict';
  var CA = globalThis.CausalAttention, doc = document, R = CA.render, api;
  CA.load().then(function (a) { api = a; }); // resolves before the page's first render
  var WHO = {
    default: 'The book’s table: PyTorch 2.7 or later on any CPU; before 2.7, builds without MKL (macOS on Apple silicon, ARM, conda OpenBLAS, Debian) and AMD CPUs while PyTorch still checked the vendor',
    mkl: 'The other table: x86 Linux, Windows and Colab with PyTorch’s MKL builds (pip, conda), PyTorch 0.4.1 to 2.6 on Intel CPUs, and on AMD ones after the vendor check was dropped'
  };
  var LINKS = [
    ['https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb', 'the notebook’s note (§3.5.2)'],
    ['https://github.com/rasbt/LLMs-from-scratch/issues/57', 'LLMs-from-scratch#57'],
    ['https://github.com/pytorch/pytorch/issues/121595', 'pytorch#121595']
  ];

  function el(tag, className, text, parent) {
    var node = doc.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return parent ? parent.appendChild(node) : node;
  }
  // One stage's table for one generator, cells that differ from `other` marked.
  function grid(st, other, tokens, rng, parent) {
    var T = tokens.length, wrap = el('div', 'scroll wv', undefined, parent), t = el('table', 't', undefined, wrap), i, j;
    wrap.tabIndex = 0; // it may scroll sideways on a phone: reachable by keyboard
    wrap.setAttribute('role', 'region');
    wrap.setAttribute('aria-label', st.id + ', rng ' + rng);
    t.dataset.rng = rng;
    el('caption', '', 'rng "' + rng + '": ' + WHO[rng], t);
    var tr = el('tr', '', undefined, el('thead', '', undefined, t));
    el('th', 'k', 'query \\ key', tr).scope = 'col';
    for (j = 0; j < T; j++) el('th', '', tokens[j], tr).scope = 'col';
    var body = el('tbody', '', undefined, t);
    for (i = 0; i < T; i++) {
      tr = el('tr', '', undefined, body);
      el('th', '', tokens[i], tr).scope = 'row';
      for (j = 0; j < T; j++) {
        var x = st.data[i * T + j], td = el('td', '', R.fmt(x), tr);
        if (x !== other.data[i * T + j]) {
          td.className = 'df';
          td.setAttribute('aria-label', R.fmt(x) + ', differs from the other table');
        }
      }
    }
  }

  /** After each render of the page: the comparison box at the end of the dropout section. */
  function shown(res, c) {
    var host = doc.querySelector('[data-section="s4"]'), cfg = res.config;
    if (!host || !api || !cfg.train || !cfg.dropout) return; // no dropout, nothing differs
    var mine = cfg.rng, flip = api.run(Object.assign({}, c, { rng: mine === 'mkl' ? 'default' : 'mkl' }));
    var by = { default: mine === 'default' ? res : flip, mkl: mine === 'mkl' ? res : flip };
    var box = el('aside', 'why', undefined, host);
    box.setAttribute('aria-labelledby', 'why-title');
    el('h3', '', 'Why are my numbers different?', box).id = 'why-title';
    el('p', '', 'Same seed, same code, two dropout tables. On the CPU, nn.Dropout calls bernoulli_, which has had two implementations. ' +
      'One draws each cell’s coin from PyTorch’s Mersenne Twister. The other, in x86 builds linked with Intel MKL, takes one number from the Mersenne Twister to seed MKL’s own generator and lets it draw the whole mask. ' +
      'Both are correct and both are reproducible; they are just different random streams. This page computes both: switch “generator” in the settings.', box);
    var links = el('p', '', 'More: ', box);
    LINKS.forEach(function (l, k) {
      var a = el('a', '', l[1], links);
      a.href = l[0];
      if (k < LINKS.length - 1) links.append(', ');
    });
    ['dropout_example', 'attn_weights_dropped'].forEach(function (id) {
      var a = R.byId(by.default)[id], b = R.byId(by.mkl)[id];
      el('h4', '', id + ' (' + a.code.replace(/^torch\.manual_seed\(\d+\); /, '') + ')', box);
      var pair = el('div', 'pair', undefined, box);
      grid(a, b, cfg.tokens, 'default', pair);
      grid(b, a, cfg.tokens, 'mkl', pair);
    });
    el('p', 'hint', 'Which PyTorch releases draw which way is known from their source and from published outputs; two boundaries are not pinned to a release: when AMD CPUs started taking the MKL path (roughly 1.11 to 2.0) and whether any 2.7+ wheel still does (2.7.0 turned it off for open-source builds).', box);
  }

  CA.why = { shown: shown };
})();
