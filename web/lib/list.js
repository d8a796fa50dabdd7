// A list of stage boxes: the page's sections (page/stages.js) and the widget (lib/element.js)
// show a walkthrough's stages through it. The box of a stage shown before is kept and updated
// in place when its shape allows (lib/render.js: focus, the tab stop and the picked cell stay),
// else built anew; a container's children move only when its list changed (moving a box loses
// its focus).
import { stage as stageBox, update as updateStage } from './render.js';

/** The stage boxes under root, by stage id. */
export function boxes(root) {
  var old = {};
  root.querySelectorAll('div.stage[data-stage]').forEach(function (box) {
    old[box.dataset.stage] = box;
  });
  return old;
}

/** The box showing stage st of walkthrough wt (opts: render.js's), taken out of `old` (from
 *  boxes()): the old one updated in place, or a new one. hooks, both optional (the page's):
 *  wait(box) true keeps an old box as it is (its update waits: it is off screen); make(old box
 *  or undefined) builds the new box instead of render.js's stage(). */
export function box(old, st, wt, opts, hooks) {
  var b = old[st.id];
  hooks = hooks || {};
  delete old[st.id];
  if (b && ((hooks.wait && hooks.wait(b)) || updateStage(b, st, wt, opts))) return b;
  return hooks.make ? hooks.make(b) : stageBox(st, wt, opts);
}

/** Makes `list` the children of container, moving nothing when they already are. */
export function place(container, list) {
  var have = container.children;
  if (
    list.length !== have.length ||
    list.some(function (b, k) {
      return have[k] !== b;
    })
  )
    container.replaceChildren.apply(container, list);
}
