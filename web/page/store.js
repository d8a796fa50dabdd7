// The page's state, in one place: views subscribe and redraw from it; nothing else holds it.
//
//   config   the configuration's non-default keys (what the URL carries)
//   preset   the preset shown (#preset=gpt2: its stages alone are computed), or null
//   result   the walkthrough shown: {config (resolved), stages}
//   picked   the explained cell {id, rank, b, i, j}, or null
//   lecture  {on, stage}: lecture mode and its slide
//   torch    the tables show print()'s format instead of 4 decimals
//   absolute weights shaded on the absolute 0-1 scale instead of relative to their row
//   message  the status line ('' or why a link was not valid)
var state = {
  config: {},
  preset: null,
  result: null,
  picked: null,
  lecture: { on: false, stage: '' },
  torch: false,
  absolute: false,
  message: '',
};
var views = [],
  // An edit shown in part (app.js: the stages on screen, in its handler): the rest of it, run
  // in idle time after its frame, or before anything reads or changes the state.
  due = null;

/** Runs the part of an edit still due, now. */
export function settle() {
  var f = due;
  due = null;
  if (f) f();
}

/** f: the rest of the newest edit (null: none, an older one is dropped). */
export function defer(f) {
  due = f;
}

/** The current state (treat as read-only: change it with set). */
export function get() {
  settle();
  return state;
}

/** Changes some keys and tells every view which ones changed. */
export function set(patch) {
  settle();
  state = Object.assign({}, state, patch);
  views.forEach(function (view) {
    view(state, patch);
  });
}

/** view(state, patch) after every change, in the order views subscribed. */
export function subscribe(view) {
  views.push(view);
}
