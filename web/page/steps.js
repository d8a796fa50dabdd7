// The KV cache section's steps (issue 23): a slider over the generation. At step t the kv.*
// tables light row t (what step t computed: its query, the key and value it appended, its one
// row of scores, weights and context) and fade the rows after it (steps not run yet, tokens not
// yet in the cache). The rule lives in one constructed stylesheet (a strict CSP allows it), so
// that tables built later, off screen, follow too.
import { el } from '../lib/dom.js';

var doc = document,
  sheet = null,
  box = null,
  input = null,
  out = null,
  written = '', // the sheet's rules
  T = 0;

function rules(t) {
  var row = '[data-section="kv"] .stage tbody tr';
  return t >= T - 1
    ? ''
    : row +
        ':nth-child(n+' +
        (t + 2) +
        ') td{opacity:.3}' +
        row +
        ':nth-child(' +
        (t + 1) +
        ') th{box-shadow:inset 0 0 0 2px var(--accent)}';
}

function update() {
  var t = +input.value;
  var said =
    t >= T - 1
      ? 'all ' + T + ' steps: the whole sequence generated'
      : 'step ' + t + ': the cache holds tokens 0…' + t;
  if (out.textContent !== said) out.textContent = said;
  // A stylesheet replaced restyles the whole page (8 ms of every edit at T = 32): only when
  // its rules change.
  var text = rules(t);
  if (text !== written) sheet.replaceSync((written = text));
}

/** Shows the slider above the kv tables of a run of `tokens` tokens (none without them). */
export function show(tokens) {
  var stages = doc.querySelector('div.stages[data-section="kv"]');
  if (!stages || !tokens) return;
  if (!sheet) {
    sheet = new CSSStyleSheet();
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.concat(sheet);
  }
  if (!box) {
    box = el(doc, 'p', 'kv-steps');
    var label = el(doc, 'label', '', 'Step ', box);
    input = el(doc, 'input', { type: 'range', min: 0, step: 1 }, undefined, label);
    out = el(doc, 'output', '', undefined, box);
    input.addEventListener('input', update);
  }
  if (box.nextSibling !== stages) stages.before(box);
  var atEnd = T === 0 || +input.value >= T - 1;
  T = tokens;
  if (+input.max !== T - 1) input.max = T - 1;
  if (atEnd || +input.value > T - 1) input.value = T - 1;
  update();
}
