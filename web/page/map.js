// The map of the chapter (issue 20): the data flow from the inputs to out_proj, then a node per
// section beyond the chapter that computes the layer again, as a small SVG,
// each node a stage with its shape for the current settings, each a link to its stage (the
// contents, like #toc), the stage on screen lit; and, for MultiHeadAttention, what view and
// transpose do: which columns of the queries become which head. A view of the store's result.
// The edges come from the stage table's operands (facts.js), the shapes from the result.
import { el } from '../lib/dom.js';
import { info as stageInfo } from '../lib/facts.js';
import * as stages from './stages.js';
import * as store from './store.js';

var doc = document,
  NS = 'http://www.w3.org/2000/svg',
  W = 340, // the drawing's width (user units: CSS px at 1:1)
  ROW = 44, // a row's height
  // The chapter's path, a row per step: its stages, and the operation that makes them.
  ROWS = [
    [['inputs'], ''],
    [['queries', 'keys', 'values'], 'nn.Linear: @ W_query, W_key, W_value'],
    [['attn_scores'], 'queries @ keys.T'],
    [['masked'], 'masked_fill(mask, −∞)'],
    [['attn_weights_causal'], 'softmax(· / √d_k)'],
    [['attn_weights_dropped'], 'dropout'],
    [['context_vecs'], 'CausalAttention: @ values, batched'],
    [['mhaw.context_vecs'], 'MultiHeadAttentionWrapper: heads concatenated'],
    [['mha.queries', 'mha.keys', 'mha.values'], 'MultiHeadAttention: view + transpose'],
    [['mha.attn_scores'], 'per head: queries @ keys.T'],
    [['mha.attn_weights'], 'mask, softmax, dropout'],
    [['mha.context_vec'], '@ values, transpose back, view'],
    [['mha.context_vecs'], 'out_proj'],
    // Beyond chapter 3: the same layer computed other ways, a node per section; `true`: no
    // edges in, each starts again from the inputs
    [
      ['qkv.context_vecs', 'einsum.context_vecs', 'flash.context_vecs', 'torchmha.context_vecs'],
      'beyond chapter 3: the same layer, other ways',
      true,
    ],
    [['kv.context_vecs'], 'generating: one token a step, keys and values cached', true],
  ];
var nav = null,
  lit = '', // the node lit (the stage on screen)
  drawn = '', // what the map shows: its stages' ids and shapes, and the heads' settings
  seen = null, // the IntersectionObserver of the stage boxes
  watched = new WeakSet(), // the boxes it observes
  onScreen = new WeakMap(); // stage box -> visible

function svg(parent, tag, attrs, text) {
  var node = doc.createElementNS(NS, tag);
  for (var k in attrs) node.setAttribute(k, attrs[k]);
  if (text !== undefined) node.textContent = text;
  return parent.appendChild(node);
}
// Does stage `from` feed stage `to` (through its operands, transitively)?
function feeds(from, to, memo) {
  if (from === to) return true;
  var key = from + '>' + to;
  if (key in memo) return memo[key];
  memo[key] = false;
  var facts = stageInfo(to);
  return (memo[key] = !!(
    facts &&
    facts.operands.some(function (o) {
      return feeds(from, o.id, memo);
    })
  ));
}
// A node's label: the stage's name, or for a section's result beyond the chapter, the section's
// prefix (qkv, einsum, ...).
function short(id) {
  var name = id.replace(/^mhaw?\./, '');
  return name.indexOf('.') > 0 ? name.slice(0, name.indexOf('.')) : name;
}

// The flow's SVG for result res: the rows whose stages it has.
function flow(res) {
  var shapes = {},
    memo = {},
    rows = [],
    pos = {};
  res.stages.forEach(function (s) {
    shapes[s.id] = s.shape;
  });
  ROWS.forEach(function (r) {
    var ids = r[0].filter(function (id) {
      return shapes[id];
    });
    if (ids.length) rows.push([ids, r[1], r[2]]);
  });
  var pic = doc.createElementNS(NS, 'svg');
  pic.setAttribute('viewBox', '0 0 ' + W + ' ' + rows.length * ROW);
  pic.setAttribute('width', W);
  pic.setAttribute('role', 'group');
  pic.setAttribute('aria-label', 'The data flow: each step a link to its stage');
  var edges = svg(pic, 'g', { class: 'me' });
  rows.forEach(function (r, k) {
    var n = r[0].length,
      w = (W - 8 * (n - 1)) / n;
    r[0].forEach(function (id, m) {
      var x = m * (w + 8),
        y = k * ROW + 12;
      pos[id] = { x: x + w / 2, top: y, bottom: y + 28 };
      var a = svg(pic, 'a', { href: '#' + id, class: 'mn' });
      a.dataset.node = id; // not data-stage: that names the stages' boxes
      svg(a, 'title', {}, stageInfo(id).title + ' (' + shapes[id].join(', ') + ')');
      svg(a, 'rect', { x: x + 0.5, y: y, width: w - 1, height: 28, rx: 4 });
      svg(a, 'text', { x: x + w / 2, y: y + 11, 'text-anchor': 'middle' }, short(id));
      svg(
        a,
        'text',
        { x: x + w / 2, y: y + 23, 'text-anchor': 'middle', class: 'ms' },
        '(' + shapes[id].join(', ') + ')',
      );
    });
    if (r[1]) {
      // A backing the edges pass under, as wide as the label at ~0.56 em a character (a guess
      // on the wide side: measuring the text would cost a layout).
      var lw = Math.min(W, r[1].length * 5.4 + 6);
      svg(pic, 'rect', { x: (W - lw) / 2, y: k * ROW, width: lw, height: 11.5, class: 'mb' });
      svg(pic, 'text', { x: W / 2, y: k * ROW + 9, 'text-anchor': 'middle', class: 'mo' }, r[1]);
    }
    if (!k || r[2]) return;
    // The edges from the row above: where the stage table says one feeds the other.
    rows[k - 1][0].forEach(function (from) {
      r[0].forEach(function (to) {
        if (n > 1 && rows[k - 1][0].length > 1 && rows[k - 1][0].indexOf(from) !== r[0].indexOf(to))
          return; // queries → queries, keys → keys...
        if (!feeds(from, to, memo) && !(rows[k - 1][0].length === 1 && n === 1)) return;
        svg(edges, 'line', {
          x1: pos[from].x,
          y1: pos[from].bottom,
          x2: pos[to].x,
          y2: pos[to].top,
          class: feeds(from, to, memo) ? '' : 'mx', // the same steps again, in a class
        });
      });
    });
  });
  return pic;
}

// What view and transpose do in MultiHeadAttention: column c of the (b, T, d_out) queries
// becomes column c % head_dim of head c / head_dim, whose (T, head_dim) block is mha.queries[b, h].
function heads(cfg) {
  var H = cfg.num_heads,
    D = cfg.d_out,
    hd = D / H,
    T = cfg.tokens.length,
    box = el(doc, 'div', 'vt');
  if (hd !== Math.floor(hd)) return box;
  el(
    doc,
    'p',
    '',
    'view(b, ' +
      T +
      ', ' +
      H +
      ', ' +
      hd +
      ') + transpose(1, 2): the ' +
      D +
      ' columns of queries (' +
      T +
      ', ' +
      D +
      ') become ' +
      H +
      ' heads of (' +
      T +
      ', ' +
      hd +
      '):',
    box,
  );
  var pic = svg(box, 'svg', { viewBox: '0 0 ' + W + ' 64', width: W, role: 'group' }),
    cw = W / D;
  pic.setAttribute(
    'aria-label',
    'Columns 0 to ' + (D - 1) + ' of queries: each run of ' + hd + ' columns is one head',
  );
  for (var h = 0; h < H; h++) {
    var a = svg(pic, 'a', { href: '#mha.queries', class: 'mh' });
    a.dataset.node = 'mha.queries';
    a.style.setProperty('--h', (h * 360) / H);
    svg(
      a,
      'title',
      {},
      'columns ' + h * hd + '–' + ((h + 1) * hd - 1) + ' → head ' + (h + 1) + ' of ' + H,
    );
    svg(a, 'rect', { x: h * hd * cw, y: 2, width: hd * cw, height: 14 });
    var bw = (W - 6 * (H - 1)) / H;
    svg(a, 'rect', { x: h * (bw + 6), y: 40, width: bw, height: 20 });
    svg(pic, 'line', {
      x1: (h + 0.5) * hd * cw,
      y1: 16,
      x2: h * (bw + 6) + bw / 2,
      y2: 40,
      class: 'vl',
    });
    if (H <= 16)
      svg(
        pic,
        'text',
        { x: h * (bw + 6) + bw / 2, y: 54, 'text-anchor': 'middle' },
        'head ' + (h + 1),
      );
  }
  svg(pic, 'text', { x: 2, y: 30, class: 'ms' }, 'queries[b, t, 0…' + (D - 1) + ']');
  return box;
}

/** Draws the map for state s (its result), into the sidebar, once per result. */
export function render(s) {
  if (!nav) {
    nav = el(doc, 'nav', { id: 'map' });
    nav.setAttribute('aria-label', 'Map of the chapter');
    // Open where it fits on about a screen; closed on a short one (a phone sideways: 960 px of
    // drawing, two and a half screens, in the contents), a summary to open.
    var det = el(doc, 'details', { open: innerHeight > 480 }, undefined, nav);
    el(doc, 'summary', '', 'Map of the chapter', det);
    el(doc, 'div', 'mp', undefined, det);
    // Beside the tables, above the settings; one column (phones, tablets upright): inside the
    // contents (closed), so that the first table stays on the first screen.
    if (matchMedia('(min-width: 64em)').matches) doc.getElementById('controls').prepend(nav);
    else doc.querySelector('#toc details').append(nav);
    nav.addEventListener('click', function (e) {
      var a = e.target.closest('a'),
        target = a && doc.getElementById(a.dataset.node);
      if (!a) return;
      e.preventDefault(); // the hash holds the settings
      if (target) stages.jump(target);
    });
  }
  var cfg = s.result.config,
    mp = nav.querySelector('.mp'),
    mha = s.result.stages.some(function (x) {
      return x.id === 'mha.queries';
    }),
    now = JSON.stringify([
      s.result.stages.map(function (x) {
        return x.id + x.shape;
      }),
      mha && [cfg.num_heads, cfg.d_out, cfg.tokens.length],
    ]);
  watch();
  // The same drawing (an edit of values, not shapes): left as it is, its lit node too.
  if (now === drawn) return;
  drawn = now;
  mp.replaceChildren(flow(s.result));
  if (mha) mp.appendChild(heads(cfg));
  lit = '';
  light();
}

// Lights the node of the stage on screen (or the last node before it).
function light() {
  var boxes = stages.stageBoxes(),
    first = boxes.filter(function (b) {
      return onScreen.get(b);
    })[0],
    ids = store.get().result.stages.map(function (x) {
      return x.id;
    });
  if (!first) return;
  var k = ids.indexOf(first.dataset.stage),
    node = null;
  for (; k >= 0 && !node; k--) node = nav.querySelector('.mn[data-node="' + ids[k] + '"]');
  var id = node ? node.dataset.node : '';
  if (id === lit) return;
  lit = id;
  nav.querySelectorAll('.mn').forEach(function (a) {
    if (a === node) a.setAttribute('aria-current', 'location');
    else a.removeAttribute('aria-current');
  });
}
// Observes the boxes not observed yet (page/stages.js keeps a stage's box from edit to edit).
function watch() {
  if (!seen)
    seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        onScreen.set(e.target, e.isIntersecting);
      });
      light();
    });
  stages.stageBoxes().forEach(function (b) {
    if (watched.has(b)) return;
    watched.add(b);
    seen.observe(b);
  });
}
