// Cells under the pointer and the keys: highlights, picking, a roving tabindex.
import { bind as bindDrawings } from './draw.js';

/** Hover/focus highlights a cell's row and column; click, Enter or Space picks it (onPick);
 *  arrow keys, Home and End move between the cells of a table (a roving tabindex). */
export function bind(root, onPick) {
  var lit = [];
  function light(cell) {
    lit.forEach(function (c) {
      c.classList.remove('hl');
    });
    lit = [];
    if (!cell) return;
    var tr = cell.parentNode,
      rows = tr.parentNode.parentNode.rows;
    for (var k = 0; k < rows.length; k++) lit.push(rows[k].cells[cell.cellIndex]);
    lit.push.apply(lit, tr.cells);
    lit.forEach(function (c) {
      c.classList.add('hl');
    });
  }
  function cellOf(e) {
    var c = e.target.closest && e.target.closest('td[data-col]');
    return c && root.contains(c) ? c : null;
  }
  // Only a mouse or keys light row and column: a tap would leave them lit (no pointer leaves).
  var touched = false;
  root.addEventListener('pointerdown', function (e) {
    touched = e.pointerType !== 'mouse';
  });
  root.addEventListener(
    'keydown',
    function () {
      touched = false;
    },
    true,
  );
  root.addEventListener('pointerover', function (e) {
    if (e.pointerType === 'mouse') light(cellOf(e));
  });
  bindDrawings(root);
  root.addEventListener('mouseleave', function () {
    light();
  });
  root.addEventListener('focusin', function (e) {
    light(touched ? null : cellOf(e));
  });
  root.addEventListener('click', function (e) {
    var c = cellOf(e);
    if (c) onPick(c);
  });
  root.addEventListener('keydown', function (e) {
    var cell = cellOf(e),
      key = e.key,
      row = cell && cell.parentNode,
      next,
      other;
    if (!cell) return;
    if (key === 'Enter' || key === ' ') next = cell;
    else if (key === 'ArrowRight') next = cell.nextElementSibling;
    else if (key === 'ArrowLeft') next = cell.previousElementSibling;
    else if (key === 'Home') next = row.cells[1];
    else if (key === 'End') next = row.cells[row.cells.length - 1];
    else if (key === 'ArrowDown' || key === 'ArrowUp')
      next =
        (other = row[key === 'ArrowUp' ? 'previousElementSibling' : 'nextElementSibling']) &&
        other.cells[cell.cellIndex];
    else return;
    e.preventDefault();
    if (next === cell) onPick(cell);
    else if (next && next.dataset.col) {
      // One tab stop per table: a clicked cell was not the stop, so clear whichever was.
      row.parentNode.parentNode.querySelectorAll('td[tabindex="0"]').forEach(function (c) {
        c.tabIndex = -1;
      });
      cell.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    }
  });
}
