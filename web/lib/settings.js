// The settings a reader can change with a control, from the core's settings table (api.settings:
// key, type, range, default, group, label, help; facts.js holds it once loaded): every key but
// the inputs and token labels, which have an editor of their own. What is the page's and the
// widget's choice, not a fact of the configuration, is here: which settings the widget's
// compact controls offer, and which control shows empty while it follows T.
import { tables } from './facts.js';

var COMPACT = ['d_out', 'dropout', 'rng', 'train'],
  EMPTY = ['context_length']; // "= tokens" until edited

/** The settings with a control, in the core's order: its rows, plus `compact` and `empty`. */
export function settings() {
  return tables.settings
    .filter(function (s) {
      return s.type !== 'inputs' && s.type !== 'strings';
    })
    .map(function (s) {
      return Object.assign({}, s, {
        compact: COMPACT.indexOf(s.key) >= 0,
        empty: EMPTY.indexOf(s.key) >= 0,
      });
    });
}

/** The keys of the settings of `type` ('boolean', 'choice'; 'number' for the numeric types). */
export function keysOf(type) {
  return settings()
    .filter(function (s) {
      return type === 'number' ? s.type !== 'boolean' && s.type !== 'choice' : s.type === type;
    })
    .map(function (s) {
      return s.key;
    });
}

/** The setting of `key`, or undefined. */
export function setting(key) {
  return settings().filter(function (s) {
    return s.key === key;
  })[0];
}
