// The attention drawing beside a (T, T) scores or probabilities table: queries left, keys
// right, one line per unmasked (query, key) pair, its width and opacity ∝ the weight relative
// to its query's largest (or to 1 on the absolute scale, lib/scale.js; scores: ∝ |score| /
// max |score|, coloured by sign). Masked pairs get a faint cut stub, dropped pairs a dashed
// one. A multi-head stage (B, H, T, T) gets one drawing per head, side by side beside its
// table (lib/render.js): no head is drawn over another. SVG built from the table's own data.
import { fmt, grouped } from './format.js';
import { relative, share } from './scale.js';
import { byId } from './slices.js';

var NS = 'http://www.w3.org/2000/svg',
  MAX_T = 32, // no drawing above: T² lines would be too dense
  MAX_W = 8; // MAX_W: px of the widest line

function svg(parent, tag, attrs) {
  var node = parent.ownerDocument.createElementNS(NS, tag);
  for (var k in attrs) node.setAttribute(k, attrs[k]);
  return parent.appendChild(node);
}
/** Does stage `info` get a drawing? (rows and cols both tokens, scores or probabilities.) */
export function wanted(info) {
  return (
    info.rows === 'tok' &&
    info.cols === 'tok' &&
    (info.kind === 'scores' || info.kind === 'probabilities')
  );
}

/** The drawing of slice `batch` of stage `st` (rank 2, 3 or 4: [B,] [H,] T, T; 4-D: b·H + h,
 *  one head), as a div.dr; `info` its facts (CA.info). Above T = 32 a note says why there is
 *  none. */
export function figure(doc, st, wt, batch, info) {
  var shape = st.shape,
    rank = shape.length,
    T = shape[rank - 1],
    H = 1;
  var base = rank === 2 ? 0 : batch * T * T,
    cfg = wt.config,
    box = doc.createElement('div');
  var scores = info.kind === 'scores',
    pattern = info.dropout && byId(wt)[info.dropout],
    self = pattern === st;
  box.className = 'dr';
  box.dataset.batch = batch;
  if (T > MAX_T) {
    box.appendChild(doc.createElement('p')).textContent =
      'No drawing above ' +
      MAX_T +
      ' tokens (T = ' +
      T +
      '): its ' +
      grouped(T * T) +
      ' lines would be too dense to read. The heatmap holds the numbers.';
    return box;
  }
  var v = function (h, i, j) {
    return st.data[base + (h * T + i) * T + j];
  };
  var masked = function (h, i, j) {
    return (info.causal && j > i) || v(h, i, j) === -Infinity;
  };
  var dropped = function (h, i, j) {
    return pattern && !masked(h, i, j) && (self ? v(h, i, j) === 0 : pattern.data[i * T + j] === 0);
  };
  // The scale: widest line = `top` (probabilities: 1, or the largest value above 1), or,
  // relative, twice uniform attention over its query's rows[i] visible keys (scale.js).
  var top = scores ? 0 : 1,
    rel = relative(info),
    rows = new Float64Array(T),
    h,
    i,
    j;
  for (h = 0; h < H; h++)
    for (i = 0; i < T; i++)
      for (j = 0; j < T; j++)
        if (!masked(h, i, j)) {
          top = Math.max(top, Math.abs(v(h, i, j)));
          rows[i]++;
        }
  var label = function (k) {
    var t = cfg.tokens[k] || '""';
    return t.length > 10 ? t.slice(0, 9) + '…' : t;
  };
  var longest = cfg.tokens.reduce(function (n, t) {
    return Math.max(n, Math.min(t.length, 10));
  }, 2);
  var rowH = T > 16 ? 16 : 26,
    labelW = longest * 8 + 10,
    gap = 150,
    W = 2 * labelW + gap,
    Hpx = T * rowH + 8;
  var x1 = labelW + 4,
    x2 = labelW + gap - 4,
    y = function (k) {
      return 4 + (k + 0.5) * rowH;
    };
  var pic = svg(box, 'svg', {
    viewBox: '0 0 ' + W + ' ' + Hpx,
    width: W,
    height: Hpx,
    role: 'group',
    'aria-label':
      'Attention lines of ' +
      st.id +
      (rank > 2 ? '[' + batch + ']' : '') +
      ': queries left, keys right',
  });
  if (T > 16) pic.classList.add('sm');
  var lines = svg(pic, 'g', {});
  function say(side, k) {
    // a token's lines as text, for screen readers
    var parts = [];
    for (var h = 0; h < H; h++) {
      for (var m = 0; m < T; m++) {
        var q = side === 'q' ? k : m,
          kk = side === 'q' ? m : k;
        parts.push(
          (H > 1 ? 'head ' + h + ' ' : '') +
            (cfg.tokens[m] || '""') +
            ' ' +
            (masked(h, q, kk) ? 'masked' : dropped(h, q, kk) ? 'dropped' : fmt(v(h, q, kk))),
        );
      }
    }
    return (
      (side === 'q' ? 'query ' : 'key ') +
      (cfg.tokens[k] || '""') +
      (side === 'q' ? ' attends to: ' : ' is attended by: ') +
      parts.join(', ')
    );
  }
  for (h = 0; h < H; h++) {
    for (i = 0; i < T; i++) {
      for (j = 0; j < T; j++) {
        if (masked(h, i, j)) {
          // a faint cut stub: the pair exists, the mask hides it (say() tells screen readers)
          if (info.causal && !h) {
            var cut = svg(lines, 'path', {
              class: 'cut',
              d: 'M' + x1 + ' ' + y(i) + 'l' + (x2 - x1) / 8 + ' ' + (y(j) - y(i)) / 8,
            });
            cut.dataset.q = i;
            svg(cut, 'title', {}).textContent = 'masked: ' + label(j) + ' comes after ' + label(i);
          }
          continue;
        }
        var x = v(h, i, j),
          w = rel ? share(x, rows[i]) : Math.abs(x) / (top || 1),
          drop = dropped(h, i, j);
        var line = svg(lines, 'line', {
          x1: x1,
          y1: y(i),
          x2: x2,
          y2: y(j),
          'stroke-width': drop ? 1 : (w * MAX_W).toFixed(3),
          'stroke-opacity': drop ? 0.7 : Math.max(w, 0.04).toFixed(3),
        });
        line.dataset.q = i;
        line.dataset.k = j;
        line.dataset.h = h;
        if (drop) line.classList.add('dp');
        if (scores && x < 0) line.classList.add('ng');
      }
    }
  }
  ['q', 'k'].forEach(function (side) {
    for (var k = 0; k < T; k++) {
      var g = svg(pic, 'g', {
        class: 'tk',
        tabindex: side === 'q' && !k ? 0 : -1,
        role: 'button',
        'aria-pressed': 'false',
        'aria-label': say(side, k),
      });
      g.dataset.side = side;
      g.dataset.i = k;
      svg(g, 'rect', {
        x: side === 'q' ? 2 : x2 + 2,
        y: y(k) - rowH / 2 + 1,
        width: labelW,
        height: rowH - 2,
        rx: 3,
      });
      svg(g, 'text', {
        x: side === 'q' ? labelW : x2 + 6,
        y: y(k),
        'text-anchor': side === 'q' ? 'end' : 'start',
        'dominant-baseline': 'central',
      }).textContent = label(k);
    }
  });
  var note = box.appendChild(doc.createElement('p'));
  note.className = 'dn';
  note.textContent =
    (scores
      ? 'Width and opacity ∝ |score| (widest: ' + fmt(top) + '), colour its sign as in the key'
      : rel
        ? 'Width and opacity ∝ weight × its query’s n visible keys: half width is uniform attention (1/n), full width twice that or more'
        : 'Width and opacity ∝ weight (widest: ' + fmt(top) + ')') +
    (info.causal ? '; masked pairs: a faint cut stub' : '') +
    (pattern ? '; dropped: dashed' : '') +
    '. Point at or focus a token to see only its lines.';
  return box;
}

// Shows only the lines of token (side, i) of drawing `box` (none: every line) and marks the
// matching table row (query) or column (key) with .ln.
export function focus(box, side, i) {
  var pic = box.querySelector('svg'),
    stage = box.closest('[data-stage]'),
    t = stage && stage.querySelector('table.t[data-slice="' + (box.dataset.batch || 0) + '"]');
  if (!pic) return;
  pic.classList.toggle('f', side !== undefined);
  pic.querySelectorAll('line,.cut').forEach(function (l) {
    l.classList.toggle('on', l.dataset[side] === String(i));
  });
  pic.querySelectorAll('.tk').forEach(function (g) {
    g.classList.toggle('on', g.dataset.side === side && g.dataset.i === String(i));
  });
  if (t)
    t.querySelectorAll('td').forEach(function (td) {
      td.classList.toggle('ln', (side === 'q' ? td.dataset.row : td.dataset.col) === String(i));
    });
}
function pinned(box) {
  var g = box.querySelector('.tk[aria-pressed=true]');
  return g ? [g.dataset.side, g.dataset.i] : [];
}

/** Hover, focus, keys and clicks of the drawings under `root`, in sync with their tables. */
export function bind(root) {
  function drawing(e) {
    var t = e.target,
      td = t.closest && t.closest('td[data-row]'),
      box;
    if (
      td &&
      root.contains(td) &&
      (box = td
        .closest('[data-stage]')
        .querySelector('.dr[data-batch="' + (td.dataset.batch || 0) + '"]'))
    )
      return [box, 'q', td.dataset.row];
    var g = t.closest && t.closest('.tk');
    return g && root.contains(g) ? [g.closest('.dr'), g.dataset.side, g.dataset.i, g] : null;
  }
  function on(e) {
    var d = drawing(e);
    if (d) focus(d[0], d[1], d[2]);
  }
  function off(e) {
    var d = drawing(e);
    if (d) focus.apply(null, [d[0]].concat(pinned(d[0])));
  }
  root.addEventListener('mouseover', on);
  root.addEventListener('focusin', on);
  root.addEventListener('mouseout', off);
  root.addEventListener('focusout', off);
  root.addEventListener('click', function (e) {
    var d = drawing(e);
    if (!d || !d[3]) return;
    var was = d[3].getAttribute('aria-pressed') === 'true';
    d[0].querySelectorAll('.tk').forEach(function (g) {
      g.setAttribute('aria-pressed', 'false');
    });
    d[3].setAttribute('aria-pressed', String(!was));
  });
  root.addEventListener('keydown', function (e) {
    var d = drawing(e),
      g = d && d[3],
      key = e.key;
    if (!g) return;
    var all = Array.prototype.slice.call(d[0].querySelectorAll('.tk')),
      n = all.length / 2,
      k = all.indexOf(g);
    var side = k < n ? 0 : 1,
      pos = k % n;
    if (key === 'Enter' || key === ' ') {
      e.preventDefault();
      return g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    }
    if (key === 'ArrowRight' || key === 'ArrowLeft') side = +(key === 'ArrowRight');
    else if (key === 'ArrowDown' || key === 'ArrowUp')
      pos = Math.max(0, Math.min(n - 1, pos + (key === 'ArrowDown' ? 1 : -1)));
    else if (key === 'Home' || key === 'End') pos = key === 'Home' ? 0 : n - 1;
    else return;
    e.preventDefault();
    g.setAttribute('tabindex', -1);
    all[side * n + pos].setAttribute('tabindex', 0);
    all[side * n + pos].focus();
  });
}
