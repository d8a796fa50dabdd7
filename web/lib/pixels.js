// Heatmap pixels: a matrix as an image in the tables' colours (the same scales and masked grey
// as a table's cells, lib/scale.js and lib/styles.js, read from CSS), for heatmaps
// (lib/heatmap.js) and the heads' thumbnails (lib/heads.js).
import { scale, sequential } from './scale.js';

var palettes = {}; // palette(): the colours of a set of CSS stops

// A CSS colour (any syntax) as [r, g, b, a], read back from a 1 × 1 canvas.
function rgba(doc, colour) {
  var c = doc.createElement('canvas'),
    ctx = c.getContext('2d', { willReadFrequently: true });
  c.width = c.height = 1;
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, 1, 1);
  return ctx.getImageData(0, 0, 1, 1).data;
}
/** The tables' colour scales (lib/styles.js's .h and .d rules, lib/scale.js's scale()), as
 *  256 colours each mixed by the browser exactly as a cell's: the sequential scale for
 *  probabilities and masks, each half of the diverging one (> 0, < 0) for signed kinds; and
 *  the colour of −∞ and NaN, and of masked cells. */
export function palette(canvas, seq) {
  var css = getComputedStyle(canvas),
    v = function (n) {
      return css.getPropertyValue('--' + n).trim();
    },
    halves = seq
      ? [['s0', 's1', 's2']]
      : [
          ['c0', 'p1', 'p2'],
          ['c0', 'n1', 'n2'],
        ],
    none = v('line') || '#888',
    mk = v('mk') || '#ccc',
    key =
      halves
        .map(function (h) {
          return h.map(v).join();
        })
        .join() +
      none +
      mk,
    cache = palettes;
  if (!cache[key]) {
    var doc = canvas.ownerDocument,
      c = doc.createElement('canvas'),
      ctx = c.getContext('2d', { willReadFrequently: true });
    c.width = 256;
    c.height = halves.length;
    halves.forEach(function (h, row) {
      var e = h.map(v);
      for (var k = 0; k < 256; k++) {
        var t = ((100 * k) / 255).toFixed(2) + '%';
        ctx.fillStyle =
          'color-mix(in oklab,color-mix(in oklab,' +
          e[2] +
          ' ' +
          t +
          ',' +
          e[1] +
          ') ' +
          t +
          ',color-mix(in oklab,' +
          e[1] +
          ' ' +
          t +
          ',' +
          e[0] +
          '))';
        ctx.fillRect(k, row, 1, 1);
      }
    });
    var px = ctx.getImageData(0, 0, 256, halves.length).data;
    cache[key] = {
      lut: px.slice(0, 1024),
      neg: halves.length > 1 ? px.slice(1024) : null,
      none: rgba(doc, none),
      mk: rgba(doc, mk),
    };
  }
  return cache[key];
}

/** Matrix m of a stage of facts `info` as an offscreen canvas, one pixel per value in the
 *  colours of `canvas`'s theme: shaded by scale.js's scale() as the tables are; masked cells
 *  of a causal stage in the masked grey, −∞ and NaN in the grid-line colour. */
export function image(canvas, m, info) {
  var doc = canvas.ownerDocument,
    img = doc.createElement('canvas'),
    ctx = img.getContext('2d');
  var sc = scale(m, info) || {
      seq: sequential(info.kind),
      v: function () {
        return 0;
      },
    },
    colours = palette(canvas, sc.seq);
  img.width = m.cols;
  img.height = m.rows;
  var data = ctx.createImageData(m.cols, m.rows),
    px = data.data,
    none = colours.none;
  for (var i = 0, p = 0; i < m.rows; i++) {
    for (var j = 0; j < m.cols; j++, p += 4) {
      var x = m.value(i, j),
        src = x < 0 && colours.neg ? colours.neg : colours.lut,
        k;
      if (sc.causal && j > i) {
        src = colours.mk;
        k = 0;
      } else if (isFinite(x)) k = 4 * Math.round(255 * Math.min(1, sc.v(i, x)));
      else {
        src = none;
        k = 0;
      }
      px[p] = src[k];
      px[p + 1] = src[k + 1];
      px[p + 2] = src[k + 2];
      px[p + 3] = 255;
    }
  }
  ctx.putImageData(data, 0, 0);
  return img;
}

var schemeHooks = new WeakMap(); // window -> the functions called when its colour scheme changes

/** Calls fn() whenever `win`'s colour scheme (light or dark) changes: pictures made by image()
 *  hold the old theme's colours, so heatmaps and thumbnails repaint. One media query per window. */
export function onScheme(win, fn) {
  if (!win || !win.matchMedia) return;
  var hooks = schemeHooks.get(win);
  if (!hooks) {
    schemeHooks.set(win, (hooks = new Set()));
    win.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', function () {
      hooks.forEach(function (f) {
        f();
      });
    });
  }
  hooks.add(fn);
}
