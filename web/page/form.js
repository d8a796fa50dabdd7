// The page's settings form (index.html's #controls): the configuration it shows, read back as
// the keys that differ from the book's, and the core's messages shown at the control they name.
// The inputs editor is editor.js.
import { stringify } from '../hash.js';
import { el } from '../lib/dom.js';
import { parseNumber } from '../lib/format.js';
import { keysOf, settings } from '../lib/settings.js';
import * as editor from './editor.js';

var doc = document,
  form = doc.getElementById('controls'),
  fields = form.elements,
  NUMBERS = [],
  BOOLS = [],
  CHOICES = [],
  EMPTY = {}; // the keys of the settings shown empty (settings.js): read on every edit

// One setting's control: a checkbox, a select of its choices or a text field, its label (the
// table's), its error line; a note of index.html's (<template id="notes">, data-note=KEY) after
// it.
var INPUTMODE = { integer: 'numeric', probability: 'decimal' };
function control(s, notes) {
  var bool = s.type === 'boolean',
    box = el(doc, 'div', bool ? 'c' : 'f'),
    input = el(doc, s.type === 'choice' ? 'select' : 'input', { id: s.key, name: s.key }),
    label = el(doc, 'label', '', s.label),
    note = notes && notes.content.querySelector('[data-note="' + s.key + '"]');
  label.htmlFor = s.key;
  label.title = s.help;
  if (bool) input.type = 'checkbox';
  if (INPUTMODE[s.type]) input.inputMode = INPUTMODE[s.type];
  if (s.empty) input.placeholder = '= tokens';
  s.choices.forEach(function (c) {
    el(doc, 'option', { value: c.value }, c.label, input);
  });
  box.append.apply(box, bool ? [input, label] : [label, input]);
  if (!bool) {
    var err = el(doc, 'span', 'err', undefined, box);
    err.dataset.errorFor = s.key;
    err.setAttribute('aria-live', 'polite');
  }
  if (!note) return [box];
  note = note.cloneNode(true);
  input.setAttribute('aria-describedby', note.id);
  return [box, note];
}

/** Builds the form's controls from the settings table (once the module is loaded), a fieldset
 *  per group in the table's order, after the inputs' fieldset; notes which controls hold what.
 *  None is in the first frame: beside the tables (two columns) the settings are hidden until
 *  the map is drawn, in one column closed (app.js). */
export function start() {
  var groups = [],
    notes = doc.getElementById('notes'),
    box = doc.getElementById('settings');
  settings().forEach(function (s) {
    var last = groups[groups.length - 1];
    EMPTY[s.key] = s.empty;
    if (!last || last.name !== s.group) groups.push((last = { name: s.group, nodes: [] }));
    last.nodes = last.nodes.concat(control(s, notes));
  });
  box.append.apply(
    box,
    groups.map(function (g) {
      var set = el(doc, 'fieldset');
      el(doc, 'legend', '', g.name, set);
      set.append.apply(set, g.nodes);
      return set;
    }),
  );
  NUMBERS = keysOf('number');
  BOOLS = keysOf('boolean');
  CHOICES = keysOf('choice');
}

// Equal configuration values (numbers, BigInt seeds, arrays of them, text).
function same(a, b) {
  return Object.is(a, b) || stringify({ x: a }) === stringify({ x: b });
}

/** The settings as a config of their non-default keys. book: the book's resolved config
 *  (inputs as typed); shown: the resolved config shown now; tokens: labels to use instead. */
export function read(api, book, shown, tokens) {
  var c = {},
    randn = editor.randn(),
    model = editor.read();
  c.inputs =
    randn ||
    (model
      ? model.rows.map(function (r) {
          return r.map(parseNumber);
        })
      : shown.inputs);
  var T = randn ? randn.randn[0] : c.inputs.length;
  if (same(c.inputs, book.inputs)) delete c.inputs;
  tokens = tokens || editor.pendingTokens() || (model || shown).tokens;
  if (!same(tokens, api.defaultTokens(T))) c.tokens = tokens;
  NUMBERS.forEach(function (k) {
    var text = fields[k].value,
      v = parseNumber(text);
    if (EMPTY[k] ? text.trim() : !same(v, book[k])) c[k] = v; // empty context_length = T
  });
  BOOLS.forEach(function (k) {
    if (fields[k].checked !== book[k]) c[k] = fields[k].checked;
  });
  CHOICES.forEach(function (k) {
    if (fields[k].value !== book[k]) c[k] = fields[k].value;
  });
  return c;
}

/** Shows config c (its non-default keys) and its result res in the controls and the editor. */
export function show(api, c, res) {
  var cfg = res.config,
    randn = cfg.inputs.randn ? c.inputs : null;
  editor.setRandn(randn);
  NUMBERS.forEach(function (k) {
    fields[k].value = k in c ? c[k] : EMPTY[k] ? '' : cfg[k];
  });
  BOOLS.forEach(function (k) {
    fields[k].checked = cfg[k];
  });
  CHOICES.forEach(function (k) {
    fields[k].value = cfg[k];
  });
  var shape = res.stages[0].shape;
  fields.randn_tokens.value = randn ? randn.randn[0] : shape[0];
  fields.randn_d_in.value = randn ? randn.randn[1] : shape[1];
  fields.randn_seed.value = randn ? cfg.inputs.seed : api.defaults.randn_seed;
  editor.build(editor.modelFor(res, c));
}

/** The random inputs the randn fields ask for: {randn: [T, d_in], seed}. */
export function randnFields() {
  return {
    randn: [parseNumber(fields.randn_tokens.value), parseNumber(fields.randn_d_in.value)],
    seed: parseNumber(fields.randn_seed.value),
  };
}

export function clearErrors() {
  form.querySelectorAll('[data-error-for]').forEach(function (e) {
    e.textContent = '';
  });
  form.querySelectorAll('[aria-invalid]').forEach(function (e) {
    e.removeAttribute('aria-invalid');
  });
}

/** The core's message names the key ("d_out" must be...; "inputs"[i][j] ...): shown there,
 *  else at the control that was changed (source, sourceElement). */
export function showError(msg, source, sourceElement) {
  clearErrors();
  var m = /^"(\w+)"(?:\[(\d+)\]\[(\d+)\])?/.exec(msg),
    key = m ? m[1] : /context_length/.test(msg) ? 'context_length' : source;
  if (key === 'inputs' && source === 'randn') key = 'randn';
  (
    form.querySelector('[data-error-for="' + key + '"]') ||
    form.querySelector('[data-error-for="' + source + '"]')
  ).textContent = msg;
  var bad =
    m && m[2]
      ? editor.cell(m[2], m[3])
      : fields[key] && fields[key].type
        ? fields[key]
        : key === source && sourceElement;
  if (bad) bad.setAttribute('aria-invalid', 'true');
}
