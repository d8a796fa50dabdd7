// The pictures of a table: a PNG (the canvas) and an SVG document with its attention drawing,
// both in the light theme, from one layout.
import { info as stageInfo } from '../facts.js';
import { fmt } from '../format.js';
import { marks, scale } from '../scale.js';
import { byId, matrix } from '../slices.js';
import { masked, shade } from '../styles.js';
import { attr, plain } from './text.js';

/** The table's layout for the PNG and the SVG: what the page shows of it (at most 32 × 32),
 *  in the light theme, cells of one width measured by `measure(text)` in FONT. */
var FONT = '13px ui-monospace,Menlo,Consolas,monospace',
  ROW_H = 24;
function layout(wt, id, batch, measure) {
  var st = byId(wt)[id],
    m = matrix(st, wt, batch),
    rows = Math.min(m.rows, 32),
    cols = Math.min(m.cols, 32);
  var info = stageInfo(id),
    sc = scale(m, info),
    flags = marks(st, wt, info, m),
    colW = 16,
    cells = [],
    i,
    j;
  var title = id + (batch ? '[' + batch + ']' : '') + ' (' + st.shape.join(', ') + ')';
  // Cell (i, j), with -1 for the header row and column.
  var text = function (i, j) {
    return i < 0
      ? plain(j < 0 ? m.corner : m.colLabel(j))
      : j < 0
        ? plain(m.rowLabel(i))
        : (flags(i, j)[1] ? '✗ ' : '') + fmt(m.value(i, j));
  };
  for (i = -1; i < rows; i++)
    for (j = -1; j < cols; j++) colW = Math.max(colW, measure(text(i, j)) + 16);
  colW = Math.min(Math.ceil(colW), 120); // one width for all: longer labels are squeezed
  for (i = -1; i < rows; i++) {
    for (j = -1; j < cols; j++) {
      var head = i < 0 || j < 0,
        v = !head && m.value(i, j);
      var look =
        !head && sc && sc.causal && flags(i, j)[0]
          ? { bg: masked, fg: '#000' } // scale.js: masked cells are not shaded
          : !head && sc && isFinite(v)
            ? shade(sc.v(i, v), sc.seq, v < 0)
            : { bg: head ? '#eef0f3' : '#fff', fg: '#000' };
      // x, y: the cell's top left; row 0 is the title
      cells.push({
        x: (j + 1) * colW,
        y: (i + 2) * ROW_H,
        text: text(i, j),
        head: head,
        bg: look.bg,
        fg: look.fg,
        masked: !head && flags(i, j)[0],
      });
    }
  }
  return {
    title: title,
    colW: colW,
    cells: cells,
    width: Math.max((cols + 1) * colW, measure(title) + 16),
    height: (rows + 2) * ROW_H,
  };
}
function measurer(doc) {
  var ctx = doc.createElement('canvas').getContext('2d', { willReadFrequently: true });
  ctx.font = FONT;
  return ctx;
}

/** The table as a PNG (a Blob): what the page shows of it, drawn on a canvas at 2x, with the
 *  light theme's shading, the masked cells' hatching and the ✗ of dropped cells. */
export function png(wt, id, batch, doc) {
  var canvas = doc.createElement('canvas'),
    ctx = canvas.getContext('2d');
  ctx.font = FONT;
  var t = layout(wt, id, batch, function (s) {
    return ctx.measureText(s).width;
  });
  canvas.width = 2 * t.width;
  canvas.height = 2 * t.height;
  ctx.scale(2, 2);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.font = FONT;
  ctx.textBaseline = 'middle';
  ctx.fillStyle = '#000';
  ctx.fillText(t.title, 8, ROW_H / 2);
  t.cells.forEach(function (c) {
    var x = c.x,
      y = c.y;
    ctx.fillStyle = c.bg;
    ctx.fillRect(x, y, t.colW, ROW_H);
    if (c.masked) {
      // masked: the page's hatching
      ctx.save();
      ctx.beginPath();
      ctx.rect(x, y, t.colW, ROW_H);
      ctx.clip();
      ctx.beginPath();
      for (var d = 0; d < t.colW + ROW_H; d += 6) {
        ctx.moveTo(x + d, y);
        ctx.lineTo(x + d - ROW_H, y + ROW_H);
      }
      ctx.strokeStyle = 'rgba(0,0,0,.16)';
      ctx.stroke();
      ctx.restore();
    }
    ctx.strokeStyle = '#c9d1d9';
    ctx.strokeRect(x + 0.5, y + 0.5, t.colW, ROW_H);
    ctx.fillStyle = c.fg;
    ctx.textAlign = c.head ? 'left' : 'right';
    ctx.fillText(c.text, c.head ? x + 8 : x + t.colW - 8, y + ROW_H / 2, t.colW - 16);
  });
  return new Promise(function (resolve) {
    canvas.toBlob(resolve, 'image/png');
  });
}

// The drawing's light-theme colours (styles.js): lines, negative scores, dropped, labels.
var INK = { line: '#0b3d7a', ng: '#7a1a12', dp: '#595959', text: '#1b1b1b' };
/** The table and, where the page shows one, its attention drawing, as one SVG document
 *  (text) in the light theme: the PNG's cells as rects and text (colours resolved to rgb,
 *  so that any SVG reader shows them), then the lines of the drawing as shown (a head
 *  filter applies), with their widths and opacities. */
// <name k="v" ...>text</name>, or <name ... /> without text; values escaped.
function tag(name, attrs, text) {
  var a = Object.keys(attrs)
    .map(function (k) {
      return ' ' + k + '="' + attr(attrs[k]) + '"';
    })
    .join('');
  return '<' + name + a + (text === undefined ? '/>' : '>' + attr(text) + '</' + name + '>');
}
export function svgText(wt, id, batch, doc, box) {
  var ctx = measurer(doc),
    t = layout(wt, id, batch, function (s) {
      return ctx.measureText(s).width;
    });
  var rgb = function (colour) {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = colour;
    ctx.fillRect(0, 0, 1, 1);
    var p = ctx.getImageData(0, 0, 1, 1).data;
    return 'rgb(' + p[0] + ',' + p[1] + ',' + p[2] + ')';
  };
  var centre = { 'dominant-baseline': 'central' },
    out = [tag('text', Object.assign({ x: 8, y: ROW_H / 2 }, centre), t.title)];
  t.cells.forEach(function (c) {
    var at = { x: c.x, y: c.y, width: t.colW, height: ROW_H };
    out.push(tag('rect', Object.assign({ fill: rgb(c.bg), stroke: '#c9d1d9' }, at)));
    if (c.masked) out.push(tag('rect', Object.assign({ fill: 'url(#hatch)' }, at)));
    out.push(
      tag(
        'text',
        Object.assign(
          {
            x: c.head ? c.x + 8 : c.x + t.colW - 8,
            y: c.y + ROW_H / 2,
            'text-anchor': c.head ? 'start' : 'end',
            fill: c.fg,
          },
          centre,
        ),
        c.text,
      ),
    );
  });
  var W = t.width,
    H = t.height,
    pic = box && box.querySelector('.dr[data-batch="' + batch + '"] svg');
  var shown = function (list) {
    // what the head buttons and the token filter leave visible
    return Array.prototype.filter.call(list, function (e) {
      return getComputedStyle(e).display !== 'none';
    });
  };
  if (pic) {
    var view = pic.viewBox.baseVal,
      x0 = W + 24,
      y0 = 2 * ROW_H;
    out.push(
      '<g transform="translate(' +
        x0 +
        ' ' +
        y0 +
        ')" font-family="system-ui,sans-serif" font-size="' +
        (pic.classList.contains('sm') ? 11 : 14) +
        '" stroke-linecap="round">',
    );
    shown(pic.querySelectorAll('line')).forEach(function (l) {
      var a = function (k) {
        return l.getAttribute(k);
      };
      var kind = l.classList.contains('dp') ? 'dp' : l.classList.contains('ng') ? 'ng' : 'line',
        line = {
          x1: a('x1'),
          y1: a('y1'),
          x2: a('x2'),
          y2: a('y2'),
          stroke: (kind !== 'dp' && l.style.getPropertyValue('--hc')) || INK[kind],
          'stroke-width': a('stroke-width'),
          'stroke-opacity': a('stroke-opacity'),
        };
      if (kind === 'dp') line['stroke-dasharray'] = '4 3';
      out.push(tag('line', line));
    });
    shown(pic.querySelectorAll('.cut')).forEach(function (c) {
      // the masked pairs' stubs
      var stub = { d: c.getAttribute('d'), stroke: INK.dp, 'stroke-opacity': '.45' };
      out.push(tag('path', Object.assign(stub, { 'stroke-dasharray': '2 2' })));
    });
    pic.querySelectorAll('.tk text').forEach(function (s) {
      var label = {
        x: s.getAttribute('x'),
        y: s.getAttribute('y'),
        'text-anchor': s.getAttribute('text-anchor'),
        fill: INK.text,
      };
      out.push(tag('text', Object.assign(label, centre), s.textContent));
    });
    out.push('</g>');
    W = x0 + view.width;
    H = Math.max(H, y0 + view.height);
  }
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="' +
    W +
    '" height="' +
    H +
    '" viewBox="0 0 ' +
    W +
    ' ' +
    H +
    '" font-family="ui-monospace,Menlo,Consolas,monospace" font-size="13">' +
    tag('title', {}, t.title) +
    '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" ' +
    'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="rgba(0,0,0,.16)"/></pattern></defs>' +
    tag('rect', { width: W, height: H, fill: '#fff' }) +
    out.join('') +
    '</svg>\n'
  );
}
