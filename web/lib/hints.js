// Scroll hints: a table wider than its box fades at the edges it continues past.

/** A box whose table is wider than it says so: data-more names the edge(s) it continues past
 *  (the stylesheet fades them). hints(root) after a render or resize; watchHints(root) once. */
function more(box) {
  var left = box.scrollLeft > 1,
    right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
  return left && right ? 'both' : left ? 'left' : right ? 'right' : '';
}
function mark(box, side) {
  if (side) box.dataset.more = side;
  else delete box.dataset.more;
}
function hint(box) {
  mark(box, more(box));
}
// Every measure first, then every write: a write between two reads would force one layout
// of the page per table.
// keep(box), when given, picks the boxes to measure.
export function hints(root, keep) {
  var boxes = Array.prototype.filter.call(root.querySelectorAll('.scroll'), keep || Boolean),
    sides = boxes.map(more);
  boxes.forEach(function (b, k) {
    mark(b, sides[k]);
  });
}
export function watchHints(root) {
  root.addEventListener(
    'scroll',
    function (e) {
      if (e.target.classList && e.target.classList.contains('scroll')) hint(e.target);
    },
    true,
  );
}
