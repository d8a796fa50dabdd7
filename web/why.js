// "Why are my numbers different?" (issue 8): under the dropout tables, the table of each of
// PyTorch's two CPU dropout paths side by side (both computed: rng "default" and "mkl"), the
// differing cells marked, and which readers get which.
import { el } from './lib/dom.js';
import { info as stageInfo } from './lib/facts.js';
import { fmt } from './lib/format.js';
import { byId } from './lib/slices.js';

var doc = document;
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
  var info = stageInfo(st.id),
    rows = st.shape[0],
    cols = st.shape[1],
    n = Math.min(rows, 10),
    m = Math.min(cols, 10),
    differ = 0,
    wrap = el(doc, 'div', 'scroll wv', undefined, parent),
    t = el(doc, 'table', 't', undefined, wrap),
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
    doc,
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
  var tr = el(doc, 'tr', '', undefined, el(doc, 'thead', '', undefined, t));
  el(doc, 'th', 'k', info.rows === 'tok' ? 'query \\ key' : '', tr).scope = 'col';
  for (j = 0; j < m; j++) el(doc, 'th', '', label(info.cols, j), tr).scope = 'col';
  var body = el(doc, 'tbody', '', undefined, t);
  for (i = 0; i < n; i++) {
    tr = el(doc, 'tr', '', undefined, body);
    el(doc, 'th', '', label(info.rows, i), tr).scope = 'row';
    for (j = 0; j < m; j++) {
      var x = st.data[i * cols + j],
        td = el(doc, 'td', '', fmt(x), tr);
      if (x !== other.data[i * cols + j]) {
        td.className = 'df';
        td.setAttribute('aria-label', fmt(x) + ', differs from the other table');
      }
    }
  }
}

/** Fills `box` (an aside.why at the end of the dropout section) for module api's walkthrough
 *  res of config c: its text once, and both generators' tables (a second run and four tables:
 *  the page calls this when the box is seen or in idle time). */
export function fill(box, api, res, c) {
  var cfg = res.config,
    tables = box.querySelector('.why-tables');
  if (!tables) {
    box.setAttribute('aria-labelledby', 'why-title');
    el(doc, 'h3', '', 'Why are my numbers different?', box).id = 'why-title';
    el(
      doc,
      'p',
      '',
      'Same seed, same code, two tables: on the CPU, dropout’s bernoulli_ has two implementations. One draws each cell from PyTorch’s Mersenne Twister; ' +
        'the other, in x86 builds with Intel MKL, seeds MKL’s own generator with one Mersenne Twister number and lets it draw the mask. Both are right, just different random streams; this page computes both (“generator” in the settings).',
      box,
    );
    var links = el(doc, 'p', '', 'More: ', box);
    LINKS.forEach(function (l, k) {
      var a = el(doc, 'a', '', l[1], links);
      a.href = l[0];
      if (k < LINKS.length - 1) links.append(', ');
    });
    tables = el(doc, 'div', 'why-tables', undefined, box);
    el(
      doc,
      'p',
      'hint',
      'From PyTorch’s source and published outputs; not pinned to a release: when AMD CPUs began taking the MKL path (about 1.11 to 2.0) and the 2.7.0 cut-over (seen in nightlies only).',
      box,
    );
  }
  var mine = cfg.rng,
    flip = api.run(Object.assign({}, c, { rng: mine === 'mkl' ? 'default' : 'mkl' }), {
      stages: ['dropout_example', 'attn_weights_dropped'], // computes only what they need
    });
  var by = { default: mine === 'default' ? res : flip, mkl: mine === 'mkl' ? res : flip },
    out = doc.createDocumentFragment();
  ['dropout_example', 'attn_weights_dropped'].forEach(function (id) {
    var a = byId(by.default)[id],
      b = byId(by.mkl)[id];
    el(doc, 'h4', '', id + ' (' + a.code.replace(/^torch\.manual_seed\(\d+\); /, '') + ')', out);
    var pair = el(doc, 'div', 'pair', undefined, out);
    grid(a, b, cfg.tokens, 'default', pair);
    grid(b, a, cfg.tokens, 'mkl', pair);
  });
  tables.replaceChildren(out);
}
