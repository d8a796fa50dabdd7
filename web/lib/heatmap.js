// A stage slice too big for a table (more than limits.max_shown rows or columns), drawn on a
// canvas: one pixel of an offscreen image per value, scaled up without smoothing. A cursor
// (mouse or arrow keys) reads one value out, announced to screen readers; a drag or the +/−
// keys zoom; Enter or a button shows the exact table of up to 32 × 32 values around the cursor.
// The colours are the tables' scales (--s0.., --c0.., lib/styles.js), read from CSS when drawing.
import { el } from './dom.js';
import { fmt } from './format.js';
import { image, onScheme } from './pixels.js';

var SIZE = 480; // the canvas's largest side, CSS px
var observers = new WeakMap(); // document -> the IntersectionObserver drawing what comes into view
var live = new Set(); // the heatmaps on screen somewhere: redrawn when the colour scheme changes
// a heatmap's box and canvas -> its state h; one map for every copy of this module (the page's
// app.js holds one, causal-attention.js another: CausalAttention.heatmap.state reads both's)
var STATES = Symbol.for('causal-attention.heatmaps'),
  states = globalThis[STATES] || (globalThis[STATES] = new WeakMap());

// Draws the view (and the cursor, and a drag's rectangle) onto the visible canvas.
function draw(h) {
  var canvas = h.canvas,
    v = h.view,
    ctx = canvas.getContext('2d'),
    W = canvas.width,
    H = canvas.height;
  if (!h.img) h.img = image(h.canvas, h.m, h.info);
  // Fewer pixels than values: averaged ('high' quality), so that a 1024 × 1024 tensor shows
  // its structure, not a sample of it; more: crisp squares.
  ctx.imageSmoothingEnabled = v.cols > W || v.rows > H;
  ctx.imageSmoothingQuality = 'high';
  ctx.clearRect(0, 0, W, H);
  ctx.drawImage(h.img, v.c0, v.r0, v.cols, v.rows, 0, 0, W, H);
  var sx = W / v.cols,
    sy = H / v.rows,
    box = function (r0, c0, rows, cols, colour) {
      ctx.strokeStyle = colour;
      ctx.lineWidth = 2 * (h.dpr || 1);
      ctx.strokeRect(
        (c0 - v.c0) * sx,
        (r0 - v.r0) * sy,
        Math.max(cols * sx, 3),
        Math.max(rows * sy, 3),
      );
    };
  if (h.drag)
    box(
      Math.min(h.drag.r, h.drag.r1),
      Math.min(h.drag.c, h.drag.c1),
      Math.abs(h.drag.r1 - h.drag.r) + 1,
      Math.abs(h.drag.c1 - h.drag.c) + 1,
      '#f80',
    );
  if (h.cursor)
    box(
      h.cursor.r,
      h.cursor.c,
      1,
      1,
      getComputedStyle(canvas).getPropertyValue('--accent').trim() || '#0a58b8',
    );
  h.dirty = false;
}
function redraw(h) {
  if (h.visible) draw(h);
  else h.dirty = true; // drawn when it comes into view
}
// The colours are CSS variables of the light and dark themes: a new scheme, new pixels.
function repaintAll() {
  live.forEach(function (h) {
    h.img = null;
    redraw(h);
  });
}
function observe(h) {
  var doc = h.canvas.ownerDocument,
    win = doc.defaultView;
  live.forEach(function (other) {
    if (!other.canvas.isConnected) live.delete(other);
  });
  live.add(h);
  onScheme(win, repaintAll); // once per window: onScheme keeps a set of functions
  if (!win || !win.IntersectionObserver) {
    h.visible = true;
    return;
  }
  var io = observers.get(doc);
  if (!io) {
    io = new win.IntersectionObserver(
      function (entries) {
        entries.forEach(function (e) {
          var hm = states.get(e.target);
          hm.visible = e.isIntersecting;
          if (hm.visible && hm.dirty) draw(hm);
        });
      },
      { rootMargin: '200px' },
    );
    observers.set(doc, io);
  }
  io.observe(h.canvas);
}

// The canvas's size: the whole tensor's, at most h.size CSS px a side and 12 px a value, kept
// when zooming (a zoomed view fills the same canvas).
function size(h) {
  var m = h.m,
    dpr = (h.dpr = (h.canvas.ownerDocument.defaultView || {}).devicePixelRatio || 1);
  var w = Math.min(h.size, m.cols * 12),
    ht = Math.min(h.size, m.rows * 12);
  h.canvas.style.width = w + 'px'; // the height follows the canvas's aspect ratio (CSS: height auto)
  h.canvas.width = Math.round(w * dpr);
  h.canvas.height = Math.round(ht * dpr);
}
export function setView(h, r0, c0, rows, cols) {
  var m = h.m;
  rows = Math.max(1, Math.min(m.rows, Math.round(rows)));
  cols = Math.max(1, Math.min(m.cols, Math.round(cols)));
  h.view = {
    r0: Math.max(0, Math.min(m.rows - rows, Math.round(r0))),
    c0: Math.max(0, Math.min(m.cols - cols, Math.round(c0))),
    rows: rows,
    cols: cols,
  };
  h.zoom.textContent =
    h.view.rows === m.rows && h.view.cols === m.cols
      ? 'Whole ' + m.rows + ' × ' + m.cols
      : 'Rows ' +
        h.view.r0 +
        '–' +
        (h.view.r0 + rows - 1) +
        ', columns ' +
        h.view.c0 +
        '–' +
        (h.view.c0 + cols - 1);
  size(h);
  redraw(h);
}
// Zoom by `f` (< 1: in) around the cursor, or the view's centre.
function zoomBy(h, f) {
  var v = h.view,
    c = h.cursor || { r: v.r0 + v.rows / 2, c: v.c0 + v.cols / 2 };
  setView(h, c.r - (v.rows * f) / 2, c.c - (v.cols * f) / 2, v.rows * f, v.cols * f);
}

/** The readout of value (r, c): its indices, labels and 4-decimal value. */
export function readout(h, r, c) {
  var m = h.m,
    x = m.value(r, c),
    rl = m.rowLabel(r),
    cl = m.colLabel(c);
  return (
    h.name +
    '[' +
    r +
    ', ' +
    c +
    ']' +
    (rl !== String(r) || cl !== String(c) ? ' (' + rl + ', ' + cl + ')' : '') +
    ' = ' +
    fmt(x)
  );
}
export function setCursor(h, r, c) {
  var m = h.m,
    v = h.view;
  h.cursor = { r: Math.max(0, Math.min(m.rows - 1, r)), c: Math.max(0, Math.min(m.cols - 1, c)) };
  // Keep the cursor inside the view: scroll the view along.
  if (
    h.cursor.r < v.r0 ||
    h.cursor.r >= v.r0 + v.rows ||
    h.cursor.c < v.c0 ||
    h.cursor.c >= v.c0 + v.cols
  ) {
    setView(
      h,
      Math.min(v.r0, h.cursor.r) + Math.max(0, h.cursor.r - (v.r0 + v.rows - 1)),
      Math.min(v.c0, h.cursor.c) + Math.max(0, h.cursor.c - (v.c0 + v.cols - 1)),
      v.rows,
      v.cols,
    );
  } else redraw(h);
  h.out.textContent = readout(h, h.cursor.r, h.cursor.c);
}
// The value under a mouse event.
function cellAt(h, e) {
  var rect = h.canvas.getBoundingClientRect(),
    v = h.view;
  return {
    r: Math.min(v.rows - 1, Math.floor(((e.clientY - rect.top) / rect.height) * v.rows)) + v.r0,
    c: Math.min(v.cols - 1, Math.floor(((e.clientX - rect.left) / rect.width) * v.cols)) + v.c0,
  };
}

/** The exact table of up to max × max values around the cursor (inside the view). */
export function showRegion(h) {
  var v = h.view,
    max = h.max,
    c = h.cursor || { r: v.r0, c: v.c0 };
  var rows = Math.min(max, v.rows),
    cols = Math.min(max, v.cols);
  var r0 = Math.max(v.r0, Math.min(v.r0 + v.rows - rows, c.r - (rows >> 1))),
    c0 = Math.max(v.c0, Math.min(v.c0 + v.cols - cols, c.c - (cols >> 1)));
  h.region = { r0: r0, c0: c0, rows: rows, cols: cols };
  h.exact.replaceChildren(h.table(h.region));
}

/** A heatmap of matrix `m` (lib/render.js's matrix(): rows, cols, value, labels).
 *  opts: {doc, info (the stage's facts: kind, causal), name ('id[b]'), head (caption
 *  element), table(region) -> element, max, size (the canvas's largest side, CSS px)}. */
export function create(m, opts) {
  var doc = opts.doc,
    box = el(doc, 'div', 'hm'),
    canvas = el(doc, 'canvas');
  var h = {
    m: m,
    info: opts.info,
    size: opts.size || SIZE,
    name: opts.name,
    table: opts.table,
    max: opts.max || 32,
    canvas: canvas,
    box: box,
    visible: false,
    dirty: true,
  };
  states.set(box, h);
  states.set(canvas, h);
  if (opts.head) box.appendChild(opts.head);
  canvas.tabIndex = 0;
  canvas.setAttribute('role', 'application');
  canvas.setAttribute('aria-roledescription', 'heatmap');
  canvas.setAttribute(
    'aria-label',
    'Heatmap of ' +
      opts.name +
      ', ' +
      m.rows +
      ' × ' +
      m.cols +
      '. Arrow keys move the cursor, + and − zoom, 0 shows everything, Enter shows the exact values around the cursor.',
  );
  var bar = el(doc, 'div', 'hb');
  h.zoom = bar.appendChild(el(doc, 'span', 'sub'));
  [
    [
      '−',
      'Zoom out',
      function () {
        zoomBy(h, 2);
      },
    ],
    [
      'Whole',
      'Show the whole tensor',
      function () {
        setView(h, 0, 0, m.rows, m.cols);
      },
    ],
    [
      'Exact values',
      'Show the exact table around the cursor',
      function () {
        showRegion(h);
      },
    ],
  ].forEach(function (b) {
    var button = bar.appendChild(el(doc, 'button', '', b[0]));
    button.type = 'button';
    button.title = b[1];
    button.addEventListener('click', b[2]);
  });
  box.appendChild(canvas);
  box.appendChild(bar);
  h.out = box.appendChild(
    el(doc, 'p', 'ro', 'Point at the heatmap or focus it to read a value; drag to zoom.'),
  );
  h.out.setAttribute('aria-live', 'polite');
  h.exact = box.appendChild(el(doc, 'div', 'scroll'));

  canvas.addEventListener('mousemove', function (e) {
    var at = cellAt(h, e);
    if (h.drag) {
      h.drag.r1 = at.r;
      h.drag.c1 = at.c;
      draw(h);
    }
    h.out.textContent = readout(h, at.r, at.c);
  });
  canvas.addEventListener('mousedown', function (e) {
    var at = cellAt(h, e);
    h.drag = { r: at.r, c: at.c, r1: at.r, c1: at.c };
    e.preventDefault();
    canvas.focus();
  });
  canvas.addEventListener('mouseup', function (e) {
    var d = h.drag,
      at = cellAt(h, e);
    h.drag = null;
    if (!d) return;
    if (d.r === at.r && d.c === at.c) return setCursor(h, at.r, at.c); // a click: the cursor
    setView(
      h,
      Math.min(d.r, at.r),
      Math.min(d.c, at.c),
      Math.abs(at.r - d.r) + 1,
      Math.abs(at.c - d.c) + 1,
    );
  });
  canvas.addEventListener('mouseleave', function () {
    if (h.drag) {
      h.drag = null;
      draw(h);
    }
  });
  canvas.addEventListener('focus', function () {
    if (!h.cursor) setCursor(h, h.view.r0, h.view.c0);
  });
  canvas.addEventListener('keydown', function (e) {
    var c = h.cursor || { r: 0, c: 0 },
      step = e.shiftKey ? Math.max(1, Math.round(h.view.rows / 8)) : 1,
      k = e.key;
    var stepC = e.shiftKey ? Math.max(1, Math.round(h.view.cols / 8)) : 1;
    if (k === 'ArrowUp') setCursor(h, c.r - step, c.c);
    else if (k === 'ArrowDown') setCursor(h, c.r + step, c.c);
    else if (k === 'ArrowLeft') setCursor(h, c.r, c.c - stepC);
    else if (k === 'ArrowRight') setCursor(h, c.r, c.c + stepC);
    else if (k === '+' || k === '=') zoomBy(h, 0.5);
    else if (k === '-' || k === '_') zoomBy(h, 2);
    else if (k === '0') setView(h, 0, 0, h.m.rows, h.m.cols);
    else if (k === 'Enter' || k === ' ') showRegion(h);
    else return;
    e.preventDefault();
  });
  setView(h, 0, 0, m.rows, m.cols);
  observe(h);
  return box;
}

/** The state of the heatmap whose box or canvas is `node` ({m, view, cursor, dirty...}), for
 *  tests and tools; undefined for other nodes. */
export function state(node) {
  return states.get(node);
}

/** Is `node` a heatmap's box? */
export function isHeatmap(node) {
  return states.has(node) && node.tagName !== 'CANVAS';
}

/** New values of the same shape: redrawn (now if on screen), the view, cursor and an open
 *  exact table kept. Returns false when the shape differs (the caller rebuilds). */
export function update(box, m, head) {
  var h = states.get(box);
  if (!h || h.m.rows !== m.rows || h.m.cols !== m.cols) return false;
  h.m = m;
  h.img = null;
  if (head) box.replaceChild(head, box.firstChild);
  redraw(h);
  if (h.cursor) h.out.textContent = readout(h, h.cursor.r, h.cursor.c);
  if (h.region) h.exact.replaceChildren(h.table(h.region));
  return true;
}

/** Draws every heatmap under `root` that waits to come into view (before a full-page
 *  screenshot or a print, or in idle time). */
export function flush(root) {
  root.querySelectorAll('canvas').forEach(function (c) {
    var h = states.get(c);
    if (!h || !h.dirty) return;
    draw(h);
    h.img = null; // off screen: its pixels are on the canvas, the full image is made again if zoomed
  });
}
