// The display texts: each stage's note and each setting's help, from src/texts.json, their one
// copy (the native CLI compiles the same file in). They are not in the wasm: this module is in
// causal-attention.js, which the page (app.js's snapshot has none either) and the widget both
// load before their first table, whose caption shows its note. src/wasm/pack.js bundles the
// file's values only, as arrays in its order, which is the stage table's and the settings
// table's (tests/test_stages.cpp, test_settings.cpp hold it): read here by index.
import { help, notes } from '../../src/texts.json';

/** Gives each record of `list` (the core's stage table, or its settings table) its text
 *  (key "note" or "help") as its last key, in place, as the CLI's --format json prints them;
 *  without running a setter a host page put on Object.prototype. */
export function withTexts(list, key) {
  var texts = key === 'note' ? notes : help;
  if (list.length !== texts.length) throw new Error('src/texts.json is not from this build');
  list.forEach(function (r, i) {
    Object.defineProperty(r, key, {
      __proto__: null,
      value: texts[i],
      writable: true,
      enumerable: true,
      configurable: true,
    });
  });
  return list;
}
