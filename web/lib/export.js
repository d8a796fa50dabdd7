// The export formats of a table, one entry each in `formats`: the buttons under every table
// (render.js) and the click handler (bind) read it, so a new format is one entry here.
// Each click also dispatches a `ca-export` event ({format, stage, batch, text or blob}) that
// bubbles out of any shadow root, for pages (and tests) that want the result.
import { load } from './api.js';
// The text formats are here; the pictures and the embed snippet in causal-attention-later.js
// (lib/later.js), loaded after the first table (lib/lazy.js).
import { text } from './export/text.js';
import { LIB_LATER, withLater } from './lazy.js';
import { byId, need } from './slices.js';

export { csvText, markdownText, plain, text } from './export/text.js';

// A text format, copied to the clipboard.
function table(format) {
  return function (x) {
    return text(format, x.wt, x.id, x.batch);
  };
}

/** The formats, in the order of their buttons. A format is {id, label, extension, mime,
 *  produce, page?, file?}: produce(x) gets x = {wt, id, batch, doc, box, config, say} (the
 *  walkthrough the tables show, the stage, the batch element, the document, the stage's box,
 *  the configuration's non-default keys, a function that shows a status line) and returns a
 *  string, a Blob or {text, ...more detail}, or a promise of one. A format with an extension
 *  is saved as a file (stage[-batch].extension, or file.extension, of type mime); one without
 *  is copied.
 *  `page`: only on the page, not in the widget. */
export var formats = [
  { id: 'markdown', label: 'Markdown', produce: table('markdown') },
  { id: 'latex', label: 'LaTeX', produce: table('latex') },
  { id: 'csv', label: 'CSV', produce: table('csv') },
  { id: 'torch', label: 'torch', produce: table('torch') },
  {
    id: 'png',
    label: 'PNG',
    extension: 'png',
    mime: 'image/png',
    produce: function (x) {
      return withLater(LIB_LATER, function (m) {
        return m.png(x.wt, x.id, x.batch, x.doc);
      });
    },
  },
  {
    id: 'svg',
    label: 'SVG',
    extension: 'svg',
    mime: 'image/svg+xml',
    produce: function (x) {
      return withLater(LIB_LATER, function (m) {
        return m.svgText(x.wt, x.id, x.batch, x.doc, x.box);
      });
    },
  },
  {
    // The whole chapter with the table's configuration, as the core writes it (api.notebook):
    // every stage a cell that prints it, to run with one's own PyTorch.
    id: 'ipynb',
    label: 'Notebook',
    extension: 'ipynb',
    mime: 'application/x-ipynb+json',
    file: 'chapter3',
    produce: function (x) {
      return load().then(function (api) {
        return api.notebook(x.wt.config);
      });
    },
  },
  {
    id: 'embed',
    label: 'Embed',
    page: true,
    // The iframe's height is its content's, measured in a hidden frame first.
    produce: function (x) {
      var base = new URL('.', x.doc.baseURI).href;
      x.say('Measuring…');
      return withLater(LIB_LATER, function (m) {
        return m.frameHeight(m.frameSrc(x.id, x.config, base), x.doc).then(function (height) {
          return { text: m.snippet(x.id, x.config, base, height), height: height };
        });
      });
    },
  },
];

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
    var format = formats.find(function (f) {
        return f.id === button.dataset.export;
      }),
      box = button.closest('[data-stage]'),
      doc = button.ownerDocument,
      bar = button.parentNode,
      msg = bar.querySelector('.msg');
    var x = {
      wt: walkthrough(),
      id: box.dataset.stage,
      batch: +button.dataset.batch,
      doc: doc,
      box: box,
      config: config(),
      say: function (line) {
        msg.textContent = line;
      },
    };
    var file = (format.file || x.id + (x.batch ? '-' + x.batch : '')) + '.' + format.extension;
    var st = byId(x.wt)[x.id]; // an on-demand table (lib/slices.js) is fetched first
    return Promise.resolve(st && need(st, x.batch, x.batch + 1))
      .then(function () {
        return format.produce(x);
      })
      .then(function (out) {
        out = typeof out === 'string' ? { text: out } : out instanceof Blob ? { blob: out } : out;
        var detail = Object.assign({ format: format.id, stage: x.id, batch: x.batch }, out);
        button.dispatchEvent(
          new CustomEvent('ca-export', { bubbles: true, composed: true, detail: detail }),
        );
        if (!format.extension) return copy(out.text, bar, button.textContent);
        download(out.blob || new Blob([out.text], { type: format.mime }), file, doc);
        x.say('Saved ' + file + '.');
      });
  });
}
