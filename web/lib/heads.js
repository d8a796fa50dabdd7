// Every head at once (small multiples, BertViz's model view): a (B, H, T, X) stage shows all
// H heads of one batch element side by side, each labelled "head h of H". Small heads are
// whole tables (and drawings) side by side; heads too big for a table are thumbnails, each a
// button that enlarges its head in the heatmap below. No head is drawn over another.
import { el } from './dom.js';
import { info as stageInfo } from './facts.js';
import { image, onScheme } from './pixels.js';
import { matrix } from './slices.js';

var THUMB = 136, // a thumbnail's side, CSS px
  waiting = new WeakMap(), // a thumbnail canvas -> its [m, info], painted once in a document
  painted = new Map(), // thumbnail canvases on screen -> their [m, info]: repainted in a new scheme
  observers = new WeakMap(); // document -> the IntersectionObserver painting thumbnails

/** "head 2 of 12": head h (from 0) of H, as captions and buttons say it. */
export function headName(h, H) {
  return 'head ' + (h + 1) + ' of ' + H;
}

// Draws matrix m on thumbnail canvas c, averaged down (a 1024 × 1024 tensor keeps its
// structure in 136 px) in the colours of its theme: once c is in its document (the CSS
// colours are read from it), when it comes near the screen.
function thumb(c, m, info) {
  var doc = c.ownerDocument,
    win = doc.defaultView,
    io = observers.get(doc);
  size(c, m);
  waiting.set(c, [m, info]);
  if (!win || !win.IntersectionObserver) return paintThumb(c, m, info);
  onScheme(win, repaintAll); // once per window: onScheme keeps a set of functions
  if (!io) {
    io = new win.IntersectionObserver(
      function (entries) {
        entries.forEach(function (e) {
          var w = waiting.get(e.target);
          if (!e.isIntersecting || !w || !e.target.isConnected) return;
          waiting.delete(e.target);
          paintThumb(e.target, w[0], w[1]);
        });
      },
      { rootMargin: '200px' },
    );
    observers.set(doc, io);
  }
  io.unobserve(c);
  io.observe(c);
}
function repaintAll() {
  painted.forEach(function (w, t) {
    paintThumb(t, w[0], w[1]);
  });
}
function size(c, m) {
  var dpr = (c.ownerDocument.defaultView || {}).devicePixelRatio || 1,
    w = Math.min(THUMB, m.cols * 12),
    h = Math.min(THUMB, m.rows * 12);
  c.style.width = w + 'px';
  c.width = Math.round(w * dpr);
  c.height = Math.round(h * dpr);
}
function paintThumb(c, m, info) {
  var ctx = c.getContext('2d');
  painted.forEach(function (w, t) {
    if (!t.isConnected) painted.delete(t); // the boxes of an earlier run: let them go
  });
  painted.set(c, [m, info]);
  ctx.imageSmoothingEnabled = m.cols > c.width;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(image(c, m, info), 0, 0, c.width, c.height);
}

/** The heads of batch element b of stage st as a div.heads. parts: {slice(k) -> a slice's
 *  table (or heatmap) with its drawing, tools(k) -> its export buttons, big: heads are
 *  heatmaps, head: the head enlarged (big only)}. */
export function heads(doc, st, wt, b, parts) {
  var H = st.shape[1],
    info = stageInfo(st.id),
    box = el(doc, 'div', 'heads');
  box.dataset.batch = b;
  box.setAttribute('role', 'group');
  box.setAttribute('aria-label', 'The ' + H + ' heads of batch element ' + (b + 1));
  if (!parts.big) {
    for (var h = 0; h < H; h++) {
      var one = el(doc, 'div', 'head', undefined, box);
      one.appendChild(parts.slice(b * H + h));
      one.appendChild(parts.tools(b * H + h));
    }
    return box;
  }
  var strip = el(doc, 'div', 'thumbs', undefined, box),
    shown = el(doc, 'div', 'head', undefined, box),
    pick = function (h) {
      strip.querySelectorAll('button').forEach(function (t) {
        t.setAttribute('aria-pressed', String(+t.dataset.head === h));
      });
      shown.replaceChildren(parts.slice(b * H + h), parts.tools(b * H + h));
      box.dataset.head = h;
    };
  for (var k = 0; k < H; k++) {
    var t = el(doc, 'button', 'th', undefined, strip);
    t.type = 'button';
    t.dataset.head = k;
    t.title = 'Enlarge ' + headName(k, H);
    el(doc, 'span', '', headName(k, H), t);
    thumb(el(doc, 'canvas', '', undefined, t), matrix(st, wt, b * H + k), info);
  }
  strip.addEventListener('click', function (e) {
    var t = e.target.closest('button.th');
    if (t) pick(+t.dataset.head);
  });
  pick(parts.head || 0);
  return box;
}

/** Paints every thumbnail under `root` that waits to come into view (before a full-page
 *  screenshot or a print). */
export function flush(root) {
  root.querySelectorAll('.thumbs canvas').forEach(function (c) {
    var w = waiting.get(c);
    if (!w || !c.isConnected) return;
    waiting.delete(c);
    paintThumb(c, w[0], w[1]);
  });
}

/** New values for the thumbnails of a div.heads (the enlarged head is updated by the caller). */
export function repaint(box, st, wt) {
  var H = st.shape[1],
    b = +box.dataset.batch,
    info = stageInfo(st.id);
  box.querySelectorAll('.thumbs canvas').forEach(function (c, h) {
    thumb(c, matrix(st, wt, b * H + h), info);
  });
}
