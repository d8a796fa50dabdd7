// The settings a reader can change with a control, from the core's settings table (api.settings:
// key, type, range, default, group, order, label, help; facts.js holds it once loaded): every
// key but the inputs and token labels, which have an editor of their own, in the table's
// `order`. What is the page's and the widget's choice, not a fact of the configuration, is
// here: which control shows empty while it follows T (the table says which the widget's
// compact controls offer: `compact`).
import { tables } from './facts.js';

var EMPTY = ['context_length']; // "= tokens" until edited

/** The settings with a control, in the controls' order: the core's rows, plus `empty`. */
export function settings() {
  return tables.settings
    .filter(function (s) {
      return s.type !== 'inputs' && s.type !== 'strings';
    })
    .sort(function (a, b) {
      return a.order - b.order; // the core's: the page's form, by section of the chapter
    })
    .map(function (s) {
      return Object.assign({}, s, { empty: EMPTY.indexOf(s.key) >= 0 });
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
