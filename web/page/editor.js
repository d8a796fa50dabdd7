// The inputs editor: a table of token labels and input values, typed in as text (0.43 stays
// 0.43), or, for random inputs, the torch.randn line that makes them; too many values to edit
// one by one show as a caption. Its buttons add and remove tokens and features.
import { el } from '../lib/dom.js';
import { f32 } from '../lib/format.js';
import { byId } from '../lib/slices.js';

var doc = document,
  table = doc.getElementById('inputs-editor'),
  MAX_EDITABLE = 4096, // inputs with more values than this are not shown in the editor
  randnInputs = null, // {randn: [T, D], seed} while the inputs are random, else null
  tooBig = false, // the editor is off
  pending = null; // the labels of edits made before a heavy randomize's editor is built

/** The random inputs shown ({randn, seed}), or null when the inputs are typed. */
export function randn() {
  return randnInputs;
}
/** Sets the random inputs (null: typed); `quiet`: the line under the editor stays as it is
 *  (a randomize that may fail: it changes once the new editor is built). */
export function setRandn(r, quiet) {
  randnInputs = r;
  if (!quiet) showMode();
}
/** Labels typed while a heavy randomize runs, or null. */
export function pendingTokens() {
  return pending;
}
export function setPendingTokens(tokens) {
  pending = tokens;
}
/** The input of value [i][j]. */
export function cell(i, j) {
  return table.querySelector('[data-row="' + i + '"][data-col="' + j + '"]');
}

/** The editor as text: {tokens, rows}, or null when it is off. */
export function read() {
  return tooBig
    ? null
    : Array.prototype.reduce.call(
        table.tBodies[0].rows,
        function (model, tr) {
          var values = Array.prototype.map.call(tr.querySelectorAll('input'), function (x) {
            return x.value;
          });
          model.tokens.push(values.shift());
          model.rows.push(values);
          return model;
        },
        { tokens: [], rows: [] },
      );
}

function input(tr, props, row, col, label) {
  var box = el(doc, 'input', props, undefined, el(doc, 'td', '', undefined, tr));
  box.dataset.row = row;
  if (col !== undefined) box.dataset.col = col;
  box.setAttribute('aria-label', label);
}
// A value's spoken label: its token's name, e.g. '"journey" (token 1), feature 0'.
function valueLabel(token, i, j) {
  return '"' + token + '" (token ' + i + '), feature ' + j;
}
/** Builds the editor for model {tokens, rows} (text), or {big: [T, D]} (too big to edit). */
export function build(model) {
  var fragment = doc.createDocumentFragment();
  var T = model.rows ? model.rows.length : model.big[0],
    D = model.rows ? model.rows[0].length : model.big[1];
  tooBig = T * D > MAX_EDITABLE;
  ['add-token', 'add-feature', 'remove-feature'].forEach(function (id) {
    doc.getElementById(id).disabled = tooBig;
  });
  el(
    doc,
    'caption',
    '',
    tooBig
      ? T + ' × ' + D + ' values: too many to edit one by one.'
      : 'Token labels and input values',
    fragment,
  );
  if (!tooBig) {
    var tr = el(doc, 'tr', '', undefined, el(doc, 'thead', '', undefined, fragment));
    el(doc, 'th', { scope: 'col' }, 'token', tr);
    for (var j = 0; j < D; j++) el(doc, 'th', { scope: 'col' }, String(j), tr);
    el(doc, 'td', '', undefined, tr);
    var body = el(doc, 'tbody', '', undefined, fragment);
    model.rows.forEach(function (row, i) {
      tr = el(doc, 'tr', '', undefined, body);
      input(
        tr,
        { name: 'tokens', value: model.tokens[i], className: 'tok' },
        i,
        undefined,
        'Label of token ' + i,
      );
      row.forEach(function (v, j) {
        input(tr, { name: 'inputs', value: v }, i, j, valueLabel(model.tokens[i], i, j));
      });
      var remove = el(
        doc,
        'button',
        { type: 'button', className: 'rm', disabled: T < 2 },
        '×',
        el(doc, 'td', '', undefined, tr),
      );
      remove.dataset.removeRow = i;
      remove.setAttribute('aria-label', 'Remove token ' + i);
    });
  }
  table.replaceChildren(fragment);
  table.classList.toggle('big', tooBig); // a caption alone: as wide as the box, not a column
  showMode();
}
function showMode() {
  doc.getElementById('inputs-mode').textContent = randnInputs
    ? 'torch.manual_seed(' +
      randnInputs.seed +
      '); inputs = torch.randn(' +
      randnInputs.randn.join(', ') +
      ')'
    : 'Or random inputs:';
}

/** The editor's model for a result: the values as typed when config c has them, else the
 *  float32 values in their shortest form. */
export function modelFor(res, c) {
  var s = byId(res).inputs;
  if (!s) return { big: res.config.inputs.randn }; // a preset's run (randn inputs) leaves it out
  var T = s.shape[0],
    D = s.shape[1],
    rows = [];
  if (T * D > MAX_EDITABLE) return { big: s.shape };
  for (var i = 0; i < T; i++)
    rows.push(Array.prototype.slice.call(s.data, i * D, i * D + D).map(f32));
  return {
    tokens: res.config.tokens.slice(),
    rows:
      randnInputs || !c.inputs
        ? rows
        : c.inputs.map(function (r) {
            return r.map(String);
          }),
  };
}

/** A change of the editor's shape (change(model) edits it): the inputs become typed values
 *  again. False when the editor is off. */
export function restructure(change) {
  var model = read();
  if (!model) return false;
  randnInputs = null;
  change(model);
  build(model);
  return true;
}

/** The editor's clicks: + token, + feature, − feature, × of a row; then(source) after a change. */
export function bind(defaultTokens, then) {
  var form = table.form || doc.getElementById('controls');
  // A renamed token renames its values' labels.
  table.addEventListener('input', function (e) {
    var t = e.target;
    if (t.name !== 'tokens') return;
    t.closest('tr')
      .querySelectorAll('input[name=inputs]')
      .forEach(function (x) {
        x.setAttribute('aria-label', valueLabel(t.value, +x.dataset.row, +x.dataset.col));
      });
  });
  form.addEventListener('click', function (e) {
    var id = e.target.id,
      removeRow = e.target.dataset.removeRow,
      change =
        id === 'add-token'
          ? function (m) {
              m.rows.push(
                m.rows[0].map(function () {
                  return '0';
                }),
              );
              m.tokens.push(defaultTokens(m.rows.length).pop());
            }
          : id === 'add-feature'
            ? function (m) {
                m.rows.forEach(function (r) {
                  r.push('0');
                });
              }
            : id === 'remove-feature'
              ? function (m) {
                  if (m.rows[0].length > 1)
                    m.rows.forEach(function (r) {
                      r.pop();
                    });
                }
              : removeRow
                ? function (m) {
                    m.rows.splice(removeRow, 1);
                    m.tokens.splice(removeRow, 1);
                  }
                : null;
    if (!change || !restructure(change)) return;
    then('inputs');
    if (removeRow) {
      var next = table.querySelector(
        '[data-remove-row="' + Math.min(removeRow, table.tBodies[0].rows.length - 1) + '"]',
      );
      (next && !next.disabled ? next : doc.getElementById('add-token')).focus(); // focus stays in the editor
    }
  });
}
