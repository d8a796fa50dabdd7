// The text formats of a table (Markdown, LaTeX, CSV, a torch.tensor literal) and the escaping
// every export shares: what a label may carry into Markdown, CSV, HTML and XML.
import { f32, tableFormat } from '../format.js';
import { byId, matrix } from '../slices.js';

// Special values per format; everything else is a number. Markdown and LaTeX are for reading
// and show the table's numbers (format.js tableFormat: 4 decimals, or %.4e for a stage that 4
// decimals would show as zeros); CSV and torch are for computing and keep every float32 bit.
var SPECIAL = {
  markdown: { '-Infinity': '−∞', Infinity: '∞', NaN: 'nan' },
  latex: { '-Infinity': '-\\infty', Infinity: '\\infty', NaN: '\\mathrm{NaN}' },
  csv: { '-Infinity': '-inf', Infinity: 'inf', NaN: 'nan' },
  torch: { '-Infinity': "float('-inf')", Infinity: "float('inf')", NaN: "float('nan')" },
};
function number(format, x, shown) {
  if (!isFinite(x)) return SPECIAL[format][String(x)];
  if (format === 'markdown' || format === 'latex') return shown(x);
  var text = Object.is(x, -0) ? '-0' : f32(x); // -0 as the CLI prints it
  // A literal without a point or exponent would make torch.tensor an integer tensor.
  return format === 'torch' && !/[.e]/.test(text) ? text + '.0' : text;
}
function rowsOf(m, format, shown) {
  for (var rows = [], i = 0; i < m.rows; i++) {
    for (var row = [], j = 0; j < m.cols; j++) row.push(number(format, m.value(i, j), shown));
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
export function attr(text) {
  return plain(text)
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function labelsOf(m) {
  for (var labels = [], j = 0; j < m.cols; j++) labels.push(m.colLabel(j));
  return labels;
}
// Each text format: its table from the matrix m of a stage st, as rows of number strings.
var WRITE = {
  markdown: function (m, rows) {
    var out = [
      '| ' + [m.corner].concat(labelsOf(m)).map(markdownText).join(' | ') + ' |',
      '|---' + '|---:'.repeat(m.cols) + '|',
    ];
    for (var i = 0; i < m.rows; i++)
      out.push('| ' + [markdownText(m.rowLabel(i))].concat(rows[i]).join(' | ') + ' |');
    return out.join('\n');
  },
  latex: function (m, rows) {
    return (
      '\\begin{bmatrix}\n' +
      rows
        .map(function (r) {
          return r.join(' & ');
        })
        .join(' \\\\\n') +
      '\n\\end{bmatrix}'
    );
  },
  csv: function (m, rows) {
    var lines = [[m.corner].concat(labelsOf(m)).map(csvText).join(',')];
    for (var i = 0; i < m.rows; i++) lines.push([csvText(m.rowLabel(i))].concat(rows[i]).join(','));
    return lines.join('\r\n') + '\r\n';
  },
  // A 1-D stage stays 1-D, like PyTorch prints it.
  torch: function (m, rows, st) {
    var list = rows.map(function (r) {
      return '[' + r.join(', ') + ']';
    });
    return (
      'torch.tensor(' +
      (m.rows === 1 && st.shape.length === 1 ? list[0] : '[' + list.join(',\n        ') + ']') +
      ')'
    );
  },
};

/** The text of a table (batch element `batch` of stage `id`) in one of the four formats
 *  (markdown, latex, csv, torch); always every row and column, also of tables the page shows
 *  cut. */
export function text(format, wt, id, batch) {
  var st = byId(wt)[id],
    m = matrix(st, wt, batch);
  return WRITE[format](m, rowsOf(m, format, tableFormat(st)), st);
}
