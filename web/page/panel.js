// The explanation panel: how the picked cell's number was computed (lib/explain.js, in
// causal-attention-later.js: loaded after the first table, lib/lazy.js), its operands marked
// (.op) in their own tables. A view of the store's `picked` and `result`: the
// cell is found again after every render; the panel closes when its cell is gone.
import { bind as bindCells } from '../lib/cells.js';
import { fmt } from '../lib/format.js';
import { LIB_LATER, withLater } from '../lib/lazy.js';
import { at, byId, part } from '../lib/slices.js';
import * as store from './store.js';

var doc = document,
  main = doc.getElementById('main'),
  panel = doc.getElementById('explain'),
  title = doc.getElementById('explain-title'),
  body = doc.getElementById('explain-body'),
  selected = null; // the cell marked .sel

function cellOf(picked) {
  var box = main.querySelector('[data-stage="' + picked.id + '"]');
  return (
    box &&
    box.querySelector(
      'td[data-row="' +
        picked.i +
        '"][data-col="' +
        picked.j +
        '"]' +
        (picked.rank > 2 ? '[data-batch="' + picked.b + '"]' : ''),
    )
  );
}

function render(s) {
  var picked = s.picked,
    wt = s.result,
    st = picked && byId(wt)[picked.id],
    cell = st && cellOf(picked);
  if (selected) selected.classList.remove('sel');
  if (!cell) return hide(picked !== null);
  (selected = cell).classList.add('sel');
  var index =
    picked.rank > 2
      ? part(st, picked.b)
          .split(':')[0]
          .slice(picked.id.length + 1, -1)
          .split(', ')
      : [];
  title.textContent =
    picked.id +
    '[' +
    index.concat([picked.i, picked.j].slice(2 - Math.min(picked.rank, 2))).join(', ') +
    '] = ' +
    fmt(at(wt, picked.id, picked.b, picked.i, picked.j));
  panel.hidden = false;
  withLater(LIB_LATER, function (m) {
    if (store.get().picked !== picked || store.get().result !== wt) return; // overtaken
    body.replaceChildren(m.explain(wt, picked.id, picked.b, picked.i, picked.j, doc));
    mark(m.operands(picked.id, picked.i, picked.j));
  });
}
// Marks (.op) the cells behind the explained number in their own tables.
function mark(list) {
  main.querySelectorAll('.op').forEach(function (c) {
    c.classList.remove('op');
  });
  list.forEach(function (o) {
    var t = main.querySelector('[data-stage="' + o[0] + '"] table');
    if (t)
      t.querySelectorAll('td[data-' + o[1] + '="' + o[2] + '"]').forEach(function (c) {
        c.classList.add('op');
      });
  });
}
// gone: the picked cell is not shown any more (the store still names it): forget it.
function hide(gone) {
  var cell = selected;
  mark([]);
  panel.hidden = true;
  selected = null;
  if (gone) store.set({ picked: null });
  else if (cell && cell.isConnected) cell.focus();
}

/** Shows the panel for the store's picked cell; a click, Enter or Space on a cell picks it. */
export function start() {
  store.subscribe(function (s, patch) {
    if ('picked' in patch || ('result' in patch && s.picked)) render(s);
  });
  bindCells(main, function (cell) {
    var d = cell.dataset,
      id = cell.closest('[data-stage]').dataset.stage;
    store.set({
      picked: {
        id: id,
        rank: byId(store.get().result)[id].shape.length,
        b: +d.batch || 0,
        i: +d.row,
        j: +d.col,
      },
    });
    // The sheet must not hide the cell it explains: scroll the cell above it.
    var cellBox = cell.getBoundingClientRect(),
      sheet = panel.getBoundingClientRect();
    if (cellBox.bottom > sheet.top - 8) scrollBy(0, cellBox.bottom - sheet.top + 16);
  });
  doc.getElementById('explain-close').addEventListener('click', close);
  doc.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && !panel.hidden) close();
  });
}
function close() {
  store.set({ picked: null });
}
