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
var views = [];

/** The current state (treat as read-only: change it with set). */
export function get() {
  return state;
}

/** Changes some keys and tells every view which ones changed. */
export function set(patch) {
  state = Object.assign({}, state, patch);
  views.forEach(function (view) {
    view(state, patch);
  });
}

/** view(state, patch) after every change, in the order views subscribed. */
export function subscribe(view) {
  views.push(view);
}
