// Every head at once (small multiples, BertViz's model view): a (B, H, T, X) stage shows all
// H heads of one batch element side by side, each labelled "head h of H". Small heads are
// whole tables (and drawings) side by side; heads too big for a table are thumbnails, each a
// button that enlarges its head in the heatmap below. No head is drawn over another.
import { el } from './dom.js';
import { info as stageInfo } from './facts.js';
import { image, onScheme } from './pixels.js';
import { matrix, need } from './slices.js';

var THUMB = 136, // a thumbnail's side, CSS px
  waiting = new WeakMap(), // a thumbnail canvas -> its [st, wt, k, info], painted once in view
  painted = new Map(), // thumbnail canvases on screen -> their [st, wt, k, info]: repainted in a new scheme
  observers = new WeakMap(), // document -> the IntersectionObserver painting thumbnails
  queue = []; // thumbnails to paint, one per task (each is a pass over 1M values)

/** "head 2 of 12": head h (from 0) of H, as captions and buttons say it. */
export function headName(h, H) {
  return 'head ' + (h + 1) + ' of ' + H;
}

// Draws matrix k of stage st on thumbnail canvas c, averaged down (a 1024 × 1024 tensor keeps
// its structure in 136 px) in the colours of its theme: once c is in its document (the CSS
// colours are read from it), when it comes near the screen, and its matrix is here (an
// on-demand stage's are fetched then: lib/slices.js).
function thumb(c, st, wt, k, info) {
  var doc = c.ownerDocument,
    win = doc.defaultView,
    io = observers.get(doc),
    w = [st, wt, k, info];
  size(c, st);
  waiting.set(c, w);
  if (!win || !win.IntersectionObserver) return later(c, w);
  onScheme(win, repaintAll); // once per window: onScheme keeps a set of functions
  if (!io) {
    io = new win.IntersectionObserver(
      function (entries) {
        entries.forEach(function (e) {
          var w = waiting.get(e.target);
          if (!e.isIntersecting || !w || !e.target.isConnected) return;
          later(e.target, w);
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
    paintThumb(t, w);
  });
}
// Paints thumbnail c once its matrix is here, in a task of its own (each reads 1M values),
// unless it was painted meanwhile or waits for newer values; resolves then.
function later(c, w) {
  var wait = need(w[0], w[2], w[2] + 1);
  if (wait)
    return wait.then(function () {
      return later(c, w);
    });
  return new Promise(function (done) {
    if (queue.push([c, w, done]) === 1) setTimeout(next);
  });
}
function next() {
  var one = queue.shift();
  if (waiting.get(one[0]) === one[1] && one[0].isConnected) paintThumb(one[0], one[1]);
  one[2]();
  if (queue.length) setTimeout(next);
}
function size(c, st) {
  var dpr = (c.ownerDocument.defaultView || {}).devicePixelRatio || 1,
    w = Math.min(THUMB, st.shape[st.shape.length - 1] * 12),
    h = Math.min(THUMB, st.shape[st.shape.length - 2] * 12);
  c.style.width = w + 'px';
  c.width = Math.round(w * dpr);
  c.height = Math.round(h * dpr);
}
function paintThumb(c, w) {
  waiting.delete(c);
  var ctx = c.getContext('2d'),
    m = matrix(w[0], w[1], w[2]);
  painted.forEach(function (w, t) {
    if (!t.isConnected) painted.delete(t); // the boxes of an earlier run: let them go
  });
  painted.set(c, w);
  ctx.imageSmoothingEnabled = m.cols > c.width;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(image(c, m, w[3]), 0, 0, c.width, c.height);
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
      box.dataset.head = h;
      var k = b * H + h,
        wait = need(st, k, k + 1),
        show = function () {
          if (+box.dataset.head === h) shown.replaceChildren(parts.slice(k), parts.tools(k));
        };
      if (!wait) return show();
      // An on-demand head (lib/slices.js): computed in a Worker now; its place kept meanwhile.
      shown.replaceChildren(el(doc, 'p', 'hint fetching', 'Computing ' + headName(h, H) + '…'));
      wait.then(show);
    };
  for (var k = 0; k < H; k++) {
    var t = el(doc, 'button', 'th', undefined, strip);
    t.type = 'button';
    t.dataset.head = k;
    t.title = 'Enlarge ' + headName(k, H);
    el(doc, 'span', '', headName(k, H), t);
    thumb(el(doc, 'canvas', '', undefined, t), st, wt, b * H + k, info);
  }
  strip.addEventListener('click', function (e) {
    var t = e.target.closest('button.th');
    if (t) pick(+t.dataset.head);
  });
  pick(parts.head || 0);
  return box;
}

/** Paints every thumbnail under `root` that waits to come into view, each in a task of its
 *  own; resolves when they are painted, those computed on demand once they have arrived
 *  (main[data-complete] waits for it: page/stages.js, before a screenshot or a print). */
export function flush(root) {
  return Promise.all(
    Array.prototype.map.call(root.querySelectorAll('.thumbs canvas'), function (c) {
      var w = waiting.get(c);
      return w && c.isConnected && later(c, w);
    }),
  );
}

/** New values for the thumbnails of a div.heads (the enlarged head is updated by the caller). */
export function repaint(box, st, wt) {
  var H = st.shape[1],
    b = +box.dataset.batch,
    info = stageInfo(st.id);
  box.querySelectorAll('.thumbs canvas').forEach(function (c, h) {
    thumb(c, st, wt, b * H + h, info);
  });
}
