// Exports of a table: Markdown, LaTeX, CSV, a torch.tensor literal, a PNG, an SVG (with its
// attention drawing) and the HTML that embeds a stage. Each copy also dispatches a `ca-export` event ({format, stage, batch, text})
// that bubbles out of any shadow root, for pages (and tests) that want the text.
import * as hash from '../hash.js';
import { info as stageInfo } from './facts.js';
import { f32, fmt } from './format.js';
import { stringify as toJson } from './json.js';
import { marks, scale } from './scale.js';
import { byId, matrix } from './slices.js';
import { masked, shade } from './styles.js';

// Special values per format; everything else is a number. Markdown and LaTeX are for reading
// and show the table's 4 decimals; CSV and torch are for computing and keep every float32 bit.
var SPECIAL = {
  markdown: { '-Infinity': '−∞', Infinity: '∞', NaN: 'nan' },
  latex: { '-Infinity': '-\\infty', Infinity: '\\infty', NaN: '\\mathrm{NaN}' },
  csv: { '-Infinity': '-inf', Infinity: 'inf', NaN: 'nan' },
  torch: { '-Infinity': "float('-inf')", Infinity: "float('inf')", NaN: "float('nan')" },
};
function number(format, x) {
  if (!isFinite(x)) return SPECIAL[format][String(x)];
  if (format === 'markdown' || format === 'latex') return x.toFixed(4);
  var text = Object.is(x, -0) ? '-0' : f32(x); // -0 as the CLI prints it
  // A literal without a point or exponent would make torch.tensor an integer tensor.
  return format === 'torch' && !/[.e]/.test(text) ? text + '.0' : text;
}
function rowsOf(m, format) {
  for (var rows = [], i = 0; i < m.rows; i++) {
    for (var row = [], j = 0; j < m.cols; j++) row.push(number(format, m.value(i, j)));
    rows.push(row);
  }
  return rows;
}
// Text in every export, by one rule: each control character (C0, DEL, C1: CR, LF and TAB
// too) and U+FFFE, U+FFFF (which XML cannot hold) become a space. The SVG stays well-formed
// XML, the CSV carries no raw control byte. (The core refuses lone surrogates.)
export function plain(text) {
  // eslint-disable-next-line no-control-regex -- the rule is about control characters
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f\ufffe\uffff]/g, ' ');
}
// A label in a Markdown cell, by the rule the CLI shares (tests/golden/markdown_cells.json):
// controls as everywhere (plain), and every ASCII punctuation character gets a backslash. No
// HTML, column break, emphasis, strikethrough, link, autolink or math survives; letters,
// digits and non-ASCII text stay as they are.
export function markdownText(text) {
  return plain(text).replace(/[!-/:-@[-`{-~]/g, '\\$&');
}
// A label as a CSV field (RFC 4180). A field that a spreadsheet could read as a formula gets
// a leading quote: one starting (after spaces, where the control characters went) with = + -
// @ or their full-width forms. A field with a ";" is quoted as well as one with a ",": in a
// ";"-separator locale, "x;=cmd|..." would otherwise split into a cell "=cmd|...".
export function csvText(text) {
  text = plain(text);
  if (/^\s*[=+\-@\uff1d\uff0b\uff0d\uff20]/.test(text)) text = "'" + text;
  return /[",;\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}
/** HTML and XML text, also in attributes (controls as everywhere: plain). */
function attr(text) {
  return plain(text)
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** The text of a table (batch element `batch` of stage `id`) in one of the four formats;
 *  always every row and column, also of tables the page shows cut. */
export function text(format, wt, id, batch) {
  var m = matrix(byId(wt)[id], wt, batch),
    rows = rowsOf(m, format),
    i,
    j,
    labels = [];
  for (j = 0; j < m.cols; j++) labels.push(m.colLabel(j));
  if (format === 'markdown') {
    var out = [
      '| ' + [m.corner].concat(labels).map(markdownText).join(' | ') + ' |',
      '|---' + '|---:'.repeat(m.cols) + '|',
    ];
    for (i = 0; i < m.rows; i++)
      out.push('| ' + [markdownText(m.rowLabel(i))].concat(rows[i]).join(' | ') + ' |');
    return out.join('\n');
  }
  if (format === 'latex') {
    return (
      '\\begin{bmatrix}\n' +
      rows
        .map(function (r) {
          return r.join(' & ');
        })
        .join(' \\\\\n') +
      '\n\\end{bmatrix}'
    );
  }
  if (format === 'csv') {
    var lines = [[m.corner].concat(labels).map(csvText).join(',')];
    for (i = 0; i < m.rows; i++) lines.push([csvText(m.rowLabel(i))].concat(rows[i]).join(','));
    return lines.join('\r\n') + '\r\n';
  }
  // torch: a 1-D stage stays 1-D, like PyTorch prints it.
  var list = rows.map(function (r) {
    return '[' + r.join(', ') + ']';
  });
  return (
    'torch.tensor(' +
    (m.rows === 1 && byId(wt)[id].shape.length === 1
      ? list[0]
      : '[' + list.join(',\n        ') + ']') +
    ')'
  );
}

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

/** The HTML that embeds stage `id` with configuration `config` (its non-default keys):
 *  the element, and an iframe for sites that allow no scripts, `height` px tall (its
 *  content's, measured by frameHeight). `base` is the URL of the directory holding
 *  causal-attention.js and embed.html; the frame's link is written like the page's (hash.js). */
function frameSrc(id, config, base) {
  return base + 'embed.html#' + hash.stringify(Object.assign({ stages: id }, config));
}
export function snippet(id, config, base, height) {
  var json = toJson(config);
  return (
    '<script src="' +
    attr(base + 'causal-attention.js') +
    '"></script>\n' +
    '<causal-attention-demo stages="' +
    attr(id) +
    '" ' +
    (json === '{}' ? 'preset="book"' : 'config="' + attr(json) + '"') +
    '></causal-attention-demo>\n' +
    '<!-- Or, where scripts are not allowed: -->\n' +
    '<iframe src="' +
    attr(frameSrc(id, config, base)) +
    '" title="' +
    attr('Causal attention: ' + id) +
    '" width="100%" height="' +
    height +
    '" style="border:0" loading="lazy"></iframe>'
  );
}

/** The height of the content of embed.html at `src` in a 700 px frame (a blog's column), as
 *  embed.js reports it once its widget is ready (a message: also from file://); 640 after 8 s. */
function frameHeight(src, doc) {
  return new Promise(function (resolve) {
    var win = doc.defaultView,
      frame = doc.createElement('iframe'),
      timer = setTimeout(done, 8000, 640);
    function done(height) {
      win.removeEventListener('message', listen);
      clearTimeout(timer);
      frame.remove();
      resolve(height);
    }
    function listen(e) {
      var d = e.data;
      if (e.source === frame.contentWindow && d && d.ready) done(d.height);
    }
    win.addEventListener('message', listen);
    frame.src = src;
    frame.title = 'measuring';
    frame.tabIndex = -1;
    frame.setAttribute('aria-hidden', 'true');
    // off screen (CSSOM, allowed by a strict CSP)
    frame.style.cssText = 'position:fixed;left:-1e4px;width:700px;border:0';
    doc.body.appendChild(frame);
  });
}

// Copy to the clipboard; where the browser refuses, show the text to copy by hand.
function copy(text, bar, label) {
  var msg = bar.querySelector('.msg'),
    doc = bar.ownerDocument;
  function fallback() {
    var area = doc.createElement('textarea');
    area.readOnly = true;
    area.value = text;
    area.setAttribute('aria-label', label + ': select and copy');
    msg.replaceChildren(area);
    area.select();
  }
  var clip = doc.defaultView.navigator.clipboard;
  if (!clip) return fallback();
  clip.writeText(text).then(function () {
    msg.textContent = 'Copied ' + label + '.';
  }, fallback);
}
function download(blob, name, doc) {
  var a = doc.createElement('a');
  a.href = URL.createObjectURL(blob); // a blob: URL, allowed for downloads under a strict CSP
  a.download = name;
  a.click();
  setTimeout(function () {
    URL.revokeObjectURL(a.href);
  }, 1000);
}

/** Handles the export buttons under `root`. `walkthrough()` is what the tables show;
 *  `config()` their configuration's non-default keys (for the embed snippet). */
export function bind(root, walkthrough, config) {
  root.addEventListener('click', function (e) {
    var button = e.target.closest && e.target.closest('button[data-export]');
    if (!button || !root.contains(button)) return;
    var format = button.dataset.export,
      box = button.closest('[data-stage]'),
      id = box.dataset.stage,
      batch = +button.dataset.batch;
    var wt = walkthrough(),
      doc = button.ownerDocument,
      bar = button.parentNode,
      out;
    var announce = function (detail) {
      button.dispatchEvent(
        new CustomEvent('ca-export', { bubbles: true, composed: true, detail: detail }),
      );
    };
    var file = id + (batch ? '-' + batch : '') + '.' + format;
    if (format === 'png') {
      return png(wt, id, batch, doc).then(function (blob) {
        announce({ format: format, stage: id, batch: batch, blob: blob });
        download(blob, file, doc);
        bar.querySelector('.msg').textContent = 'Saved ' + file + '.';
      });
    }
    if (format === 'svg') {
      out = svgText(wt, id, batch, doc, box);
      announce({ format: format, stage: id, batch: batch, text: out });
      download(new Blob([out], { type: 'image/svg+xml' }), file, doc);
      bar.querySelector('.msg').textContent = 'Saved ' + file + '.';
      return;
    }
    if (format === 'embed') {
      var base = new URL('.', doc.baseURI).href;
      bar.querySelector('.msg').textContent = 'Measuring…';
      return frameHeight(frameSrc(id, config(), base), doc).then(function (height) {
        out = snippet(id, config(), base, height);
        announce({ format: format, stage: id, batch: batch, text: out, height: height });
        copy(out, bar, button.textContent);
      });
    }
    out = text(format, wt, id, batch);
    announce({ format: format, stage: id, batch: batch, text: out });
    copy(out, bar, button.textContent);
  });
}

// The export formats, in the order of their buttons (render.js builds them from this list);
// `page`: only on the page. bind() produces each.
export var formats = [
  { id: 'markdown', label: 'Markdown' },
  { id: 'latex', label: 'LaTeX' },
  { id: 'csv', label: 'CSV' },
  { id: 'torch', label: 'torch' },
  { id: 'png', label: 'PNG' },
  { id: 'svg', label: 'SVG' },
  { id: 'embed', label: 'Embed', page: true },
];
