// After the frame: fn runs in a task after the next frame is painted (a requestAnimationFrame
// callback runs before the frame's style, layout and paint; a task it posts, after them). By
// then the frame's layout is clean: reading it costs nothing, and what fn changes is not in the
// frame. For what the first frame or an edit's frame need not wait for: the scroll hints
// (stages.js), the URL's hash (url.js). (In idle time after the frame: lib/lazy.js's
// idleAfterFrame.)

/** Runs fn in the task after the next frame is painted; once, if asked again before (fn.due
 *  says it waits). */
export function afterFrame(fn) {
  if (fn.due) return;
  fn.due = 1;
  requestAnimationFrame(function () {
    setTimeout(function () {
      fn.due = 0;
      fn();
    });
  });
}
