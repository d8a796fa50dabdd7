// Exports of a table: Markdown, LaTeX, CSV, a torch.tensor literal, a PNG, and the HTML that
// embeds a stage. Each copy also dispatches a `ca-export` event ({format, stage, batch, text})
// that bubbles out of any shadow root, for pages (and tests) that want the text.
(function (CA) {
  'use strict';
  var R = CA.render;

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
    var text = Object.is(x, -0) ? '-0' : R.f32(x); // -0 as the CLI prints it
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
  // A label in a Markdown cell, by the rule the CLI shares (tests/golden/markdown_cells.json):
  // every control character (C0, DEL, C1: CR, LF and TAB too) becomes a space, and every ASCII
  // punctuation character gets a backslash. No HTML, column break, emphasis, strikethrough,
  // link, autolink or math survives; letters, digits and non-ASCII text stay as they are.
  function markdownText(text) {
    // eslint-disable-next-line no-control-regex -- the rule is about control characters
    return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/[!-/:-@[-`{-~]/g, '\\$&');
  }
  // A CSV field (RFC 4180), and labels that a spreadsheet would run as a formula get a quote.
  function csvText(text, isLabel) {
    if (isLabel && /^[=+\-@\t\r]/.test(text)) text = "'" + text;
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }
  /** HTML attribute text. */
  function attr(text) {
    return String(text)
      .replace(/&/g, '&amp;')
      .replace(/"/g, '&quot;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;');
  }

  /** The text of a table (batch element `batch` of stage `id`) in one of the four formats;
   *  always every row and column, also of tables the page shows cut. */
  function text(format, wt, id, batch) {
    var m = R.matrix(R.byId(wt)[id], wt, batch),
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
      var lines = [
        [m.corner]
          .concat(labels)
          .map(function (l) {
            return csvText(l, true);
          })
          .join(','),
      ];
      for (i = 0; i < m.rows; i++)
        lines.push([csvText(m.rowLabel(i), true)].concat(rows[i]).join(','));
      return lines.join('\r\n') + '\r\n';
    }
    // torch: a 1-D stage stays 1-D, like PyTorch prints it.
    var list = rows.map(function (r) {
      return '[' + r.join(', ') + ']';
    });
    return (
      'torch.tensor(' +
      (m.rows === 1 && R.byId(wt)[id].shape.length === 1
        ? list[0]
        : '[' + list.join(',\n        ') + ']') +
      ')'
    );
  }

  /** The table as a PNG (a Blob): what the page shows of it, drawn on a canvas at 2x, with the
   *  light theme's shading, the masked cells' hatching and the ✗ of dropped cells. */
  function png(wt, id, batch, doc) {
    var st = R.byId(wt)[id],
      m = R.matrix(st, wt, batch),
      rows = Math.min(m.rows, 32),
      cols = Math.min(m.cols, 32);
    var info = CA.info(id),
      sc = R.scale(m, info),
      flags = R.marks(st, wt, info, m);
    var canvas = doc.createElement('canvas'),
      ctx = canvas.getContext('2d'),
      rowH = 24,
      colW = 16,
      i,
      j;
    var font = '13px ui-monospace,Menlo,Consolas,monospace',
      title = id + (batch ? '[' + batch + ']' : '') + ' (' + st.shape.join(', ') + ')';
    // Cell (i, j), with -1 for the header row and column.
    var cell = function (i, j) {
      return i < 0
        ? j < 0
          ? m.corner
          : m.colLabel(j)
        : j < 0
          ? m.rowLabel(i)
          : (flags(i, j)[1] ? '✗ ' : '') + R.fmt(m.value(i, j));
    };
    ctx.font = font;
    for (i = -1; i < rows; i++)
      for (j = -1; j < cols; j++) colW = Math.max(colW, ctx.measureText(cell(i, j)).width + 16);
    colW = Math.min(Math.ceil(colW), 120); // one width for all: longer labels are squeezed
    canvas.width = 2 * Math.max((cols + 1) * colW, ctx.measureText(title).width + 16);
    canvas.height = 2 * (rows + 2) * rowH;
    ctx.scale(2, 2);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.font = font;
    ctx.textBaseline = 'middle';
    ctx.strokeStyle = '#c9d1d9';
    ctx.fillStyle = '#000';
    ctx.fillText(title, 8, rowH / 2);
    for (i = -1; i < rows; i++) {
      for (j = -1; j < cols; j++) {
        var x = (j + 1) * colW,
          y = (i + 3) * rowH,
          head = i < 0 || j < 0,
          v = !head && m.value(i, j); // y: the cell's bottom; row 0 is the title
        var look =
          !head && sc && isFinite(v)
            ? CA.shade(Math.abs(v) / sc.top, sc.seq, v < 0)
            : { bg: head ? '#eef0f3' : '#fff', fg: '#000' };
        ctx.fillStyle = look.bg;
        ctx.fillRect(x, y - rowH, colW, rowH);
        if (!head && flags(i, j)[0]) {
          // masked: the page's hatching
          ctx.save();
          ctx.beginPath();
          ctx.rect(x, y - rowH, colW, rowH);
          ctx.clip();
          ctx.beginPath();
          for (var d = 0; d < colW + rowH; d += 6) {
            ctx.moveTo(x + d, y - rowH);
            ctx.lineTo(x + d - rowH, y);
          }
          ctx.strokeStyle = 'rgba(0,0,0,.16)';
          ctx.stroke();
          ctx.restore();
        }
        ctx.strokeRect(x + 0.5, y - rowH + 0.5, colW, rowH);
        ctx.fillStyle = look.fg;
        ctx.textAlign = head ? 'left' : 'right';
        ctx.fillText(cell(i, j), head ? x + 8 : x + colW - 8, y - rowH / 2, colW - 16);
      }
    }
    return new Promise(function (resolve) {
      canvas.toBlob(resolve, 'image/png');
    });
  }

  /** The HTML that embeds stage `id` with configuration `config` (its non-default keys):
   *  the element, and an iframe for sites that allow no scripts. `base` is the URL of the
   *  directory holding causal-attention.js and embed.html. */
  function snippet(id, config, base, height) {
    var json = CA.json.stringify(config),
      state = Object.assign({ stages: [id] }, config);
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
      attr(base + 'embed.html#' + encodeURIComponent(CA.json.stringify(state))) +
      '" title="' +
      attr('Causal attention: ' + id) +
      '" width="100%" height="' +
      (height || 400) +
      '" style="border:0" loading="lazy"></iframe>'
    );
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
  function bind(root, walkthrough, config) {
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
      if (format === 'png') {
        return png(wt, id, batch, doc).then(function (blob) {
          announce({ format: format, stage: id, batch: batch, blob: blob });
          download(blob, id + (batch ? '-' + batch : '') + '.png', doc);
          bar.querySelector('.msg').textContent = 'Saved ' + id + '.png.';
        });
      }
      // The frame's height: the stage's on the page, plus the widget's padding and stage margins.
      out =
        format === 'embed'
          ? snippet(
              id,
              config(),
              new URL('.', doc.baseURI).href,
              Math.ceil(box.getBoundingClientRect().height + 28.8),
            )
          : text(format, wt, id, batch);
      announce({ format: format, stage: id, batch: batch, text: out });
      copy(out, bar, button.textContent);
    });
  }

  CA.exports = { text: text, png: png, snippet: snippet, bind: bind, markdownCell: markdownText };
})(globalThis.CausalAttention || (globalThis.CausalAttention = {}));
