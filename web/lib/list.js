// A list of stage boxes: the page's sections (page/stages.js) and the widget (lib/element.js)
// show a walkthrough's stages through it. The box of a stage shown before is kept: updated in
// place when its shape allows (lib/render.js: focus, the tab stop and the picked cell stay),
// else its children are built anew inside it; a container's children move only where its list
// changed (moving or re-inserting a box loses its focus, and makes the browser style and lay
// out all of it again: re-inserting a section's boxes was most of an edit's frame).
import { rebuild, stage as stageBox, update as updateStage } from './render.js';

/** The stage boxes under root, by stage id. */
export function boxes(root) {
  var old = {};
  root.querySelectorAll('div.stage[data-stage]').forEach(function (box) {
    old[box.dataset.stage] = box;
  });
  return old;
}

/** The box showing stage st of walkthrough wt (opts: render.js's), taken out of `old` (from
 *  boxes()): the old one, updated in place or rebuilt inside, or a new one. hooks, both
 *  optional (the page's): wait(box) true keeps an old box as it is (its update waits: it is off
 *  screen); make() builds a new box instead of render.js's stage(). */
export function box(old, st, wt, opts, hooks) {
  var b = old[st.id];
  hooks = hooks || {};
  delete old[st.id];
  if (b && ((hooks.wait && hooks.wait(b)) || updateStage(b, st, wt, opts))) return b;
  if (b) return rebuild(b, st, wt, opts);
  return hooks.make ? hooks.make() : stageBox(st, wt, opts);
}

/** Makes `list` the children of container: the boxes not in it removed (but those hold(box)
 *  keeps, to be removed by the caller later), each other one moved only when it is not where it
 *  should be. */
export function place(container, list, hold) {
  var keep = new Set(list);
  Array.prototype.slice.call(container.children).forEach(function (c) {
    if (!keep.has(c) && !(hold && hold(c))) c.remove();
  });
  var at = container.firstElementChild;
  list.forEach(function (b) {
    while (at && at !== b && !keep.has(at)) at = at.nextElementSibling; // a box kept to leave
    if (at === b) at = at.nextElementSibling;
    else container.insertBefore(b, at);
  });
}
