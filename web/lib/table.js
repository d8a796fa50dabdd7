// The table of one slice of a stage: cells painted from values (text, shading, markers, spoken
// labels), headers, caption; updated in place for new values of the same shape.
// Everything a user typed (token labels above all) goes in as text, never as markup.
import { el } from './dom.js';
import { fmt, tableFormat, torchFormat } from './format.js';
import { isBig, matrix, sliceName } from './slices.js';
import { key, marks, scale } from './scale.js';

// What a screen reader should say for the cells whose meaning is in their look.
function spoken(x, masked, dropped) {
  var say = x === -Infinity ? 'minus infinity' : '';
  if (masked) say = (say || fmt(x)) + ', masked: a future token';
  if (dropped) say = (say || fmt(x)) + ', dropped by dropout';
  return say;
}

/** A cell's look from its value: text (fmt, or print()'s format), shading t (0 to 1, on the
 *  sequential scale when seq, or null: none; masked cells of a causal stage are not shaded:
 *  they show the masked colour), markers, its spoken label. Touches only what changed, and
 *  keeps the highlight classes (sel, hl) of a picked cell. */
function paint(td, x, masked, dropped, t, seq, text) {
  var key =
    (masked ? 1 : 0) +
    (dropped ? 2 : 0) +
    '|' +
    (t === null ? '' : +seq + ':' + t) +
    (text === fmt ? '' : 't');
  if (Object.is(td._x, x) && td._k === key) return; // as painted last time
  td._x = x;
  td._k = key;
  var shown = text(x),
    say = spoken(x, masked, dropped),
    cls = '',
    list = td.classList;
  var node = td.firstChild;
  if (!node) td.textContent = shown;
  else if (node.data !== shown) node.data = shown; // the same text node: cheaper than a new one
  if (masked) cls += ' m';
  if (dropped) cls += ' x';
  if (x === -Infinity) cls += ' ni';
  if (t !== null) {
    cls += (seq ? ' h' : ' d') + (x < 0 ? ' ng' : '');
    td.style.setProperty('--v', t.toFixed(4));
  } else if (list.contains('h') || list.contains('d')) td.style.removeProperty('--v');
  if (masked && t === null) cls += ' mk';
  if (list.contains('sel')) cls += ' sel';
  if (list.contains('hl')) cls += ' hl';
  if (td.className !== cls.slice(1)) td.className = cls.slice(1);
  if (say) {
    if (td.getAttribute('aria-label') !== say) td.setAttribute('aria-label', say);
  } else if (td.hasAttribute('aria-label')) td.removeAttribute('aria-label');
}
// Sets a header's label (an empty one shows as ""; long ones are cut, whole in the title; a
// stage's name, `named`, never).
function setHeader(th, text, named) {
  var shown = text || '""',
    cls = named ? 'nm' : text ? '' : 'em';
  if (th.textContent !== shown) th.textContent = shown;
  if (th.className !== cls) th.className = cls;
  if (text.length > 12) {
    if (th.title !== text) th.title = text;
  } else if (th.title) th.removeAttribute('title');
}

/** Fills a caption (or a heatmap's heading): title, shape, note and code on the first slice,
 *  then the slice's subtitle. */
export function caption(doc, cap, st, info, k, cut) {
  var sub = cut ? '' : sliceName(st, k).sub;
  if ((!k || (st.shape.length === 4 && (isBig(st) || !(k % st.shape[1])))) && !cut) {
    // 4-D stages show one batch element's heads (lib/heads.js): in full on its first head, or
    // on the one enlarged
    var head = cap.appendChild(el(doc, 'span', 'hd'));
    head.appendChild(el(doc, 'span', 'ti', st.title));
    head.appendChild(
      el(doc, 'span', 'sh', st.shape.length ? ' (' + st.shape.join(', ') + ')' : ' (a 0-D scalar)'),
    );
    if (info.note) cap.appendChild(el(doc, 'span', 'nt', info.note));
    cap.appendChild(el(doc, 'code', '', st.code));
  }
  if (sub) cap.appendChild(el(doc, 'span', 'sub', sub));
  if (cut) cap.appendChild(el(doc, 'span', 'nt', cut));
  return cap;
}

// Paints every value cell of table t from the stage (region: the part of the slice shown;
// text: fmt or print()'s format) and, for a whole slice, its colour key after the table.
export function fill(t, st, wt, info, batch, region, text) {
  var m = matrix(st, wt, batch),
    sc = scale(m, info),
    flags = marks(st, wt, info, m);
  var head = t.tHead && t.tHead.rows[0].cells,
    rows = t.tBodies[0].rows,
    j;
  for (j = 0; head && j < region.cols; j++) setHeader(head[j + 1], m.colLabel(region.c0 + j));
  for (var r = 0; r < region.rows; r++) {
    var cells = rows[r].cells,
      i = region.r0 + r;
    setHeader(cells[0], m.rowLabel(i), m.rowNamed);
    for (j = 0; j < region.cols; j++) {
      var c = region.c0 + j,
        f = flags(i, c),
        x = m.value(i, c),
        shaded = sc && isFinite(x) && !(sc.causal && f[0]);
      paint(cells[j + 1], x, f[0], f[1], shaded ? sc.v(i, x) : null, sc && sc.seq, text || fmt);
    }
  }
}

/** The table of a slice (or of a region {r0, c0, rows, cols} of it: the exact values under
 *  a heatmap), its cells carrying their indices in the whole slice. */
export function table(doc, st, wt, info, batch, opts, region) {
  var m = matrix(st, wt, batch),
    whole = !region;
  region = region || { r0: 0, c0: 0, rows: m.rows, cols: m.cols };
  var t = el(doc, 'table', 't'),
    cap = t.appendChild(el(doc, 'caption', opts.caption === false ? 'sr' : ''));
  t.setAttribute('part', 'table'); // ::part(table) and ::part(caption) style a widget's from outside
  cap.setAttribute('part', 'caption');
  caption(
    doc,
    cap,
    st,
    info,
    batch,
    whole
      ? ''
      : sliceName(st, batch).name +
          ', rows ' +
          region.r0 +
          '–' +
          (region.r0 + region.rows - 1) +
          ', columns ' +
          region.c0 +
          '–' +
          (region.c0 + region.cols - 1),
  );
  t.dataset.dims = region.rows + 'x' + region.cols;
  t.dataset.slice = batch || 0;
  var tr, j;
  if (st.shape.length) {
    // a 0-D stage: the value alone, no axes
    tr = t.appendChild(el(doc, 'thead')).appendChild(el(doc, 'tr'));
    tr.appendChild(el(doc, 'th', 'k', m.corner)).scope = 'col';
    // the headers are labelled by fill()
    for (j = 0; j < region.cols; j++) tr.appendChild(el(doc, 'th', { scope: 'col' }));
  }
  var body = t.appendChild(el(doc, 'tbody'));
  for (var i = 0; i < region.rows; i++) {
    tr = body.appendChild(el(doc, 'tr'));
    tr.appendChild(el(doc, 'th', { scope: 'row' }));
    for (j = 0; j < region.cols; j++) {
      var td = tr.appendChild(el(doc, 'td'));
      td.dataset.row = region.r0 + i;
      td.dataset.col = region.c0 + j;
      if (st.shape.length > 2) td.dataset.batch = batch;
      td.tabIndex = i || j ? -1 : 0; // one tab stop per table; arrow keys move inside (bind)
    }
  }
  fill(t, st, wt, info, batch, region, textOf(st, opts));
  var scroller = el(doc, 'div', 'scroll'),
    sc = whole && st.shape.length && scale(m, info); // no key for a 0-D value
  scroller.appendChild(t);
  if (sc) scroller.appendChild(key(doc, sc));
  return scroller;
}
// The numbers' text: the tables' format (format.js tableFormat), or print()'s (opts.torch).
export function textOf(st, opts) {
  return opts.torch ? torchFormat(st) : tableFormat(st);
}
