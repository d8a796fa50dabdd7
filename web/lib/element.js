// <causal-attention-demo>: chosen stages as live tables inside a Shadow DOM, so that the host
// page's CSS and the widget's cannot touch each other. Every widget on a page shares the one
// WebAssembly instance (CausalAttention.load() caches it) and the one stylesheet.
//
//   stages="attn_weights_causal,context_vecs"  which stages (default: all), in this order
//   preset="book" | config='{"dropout": 0.1}'  the configuration (the CLI's JSON keys)
//   controls="none" | "compact" | "full"       settings above the tables (default none)
//   theme="inherit" | "light" | "dark" | "auto"  inherit (default): the host's font and colours;
//                                              auto follows prefers-color-scheme
//   ::part(table), ::part(caption), ::part(controls) and --ca-* properties style it (styles.js)
//   caption="on" | "off"                       table titles, notes and code (default on)
import { load } from './api.js';
import { budget } from './budget.js';
import { bind as bindCells } from './cells.js';
import { bind as bindExports } from './export.js';
import { tables } from './facts.js';
import { parseNumber } from './format.js';
import { hints, watchHints } from './hints.js';
import { LIB_LATER, preload, withLater } from './lazy.js';
import { parse as parseJson } from './json.js';
import { box, boxes, place } from './list.js';
import { styleSheet } from './styles.js';
import { el } from './dom.js';
import { setting, settings } from './settings.js';
import { isRecord, merge } from './own.js';

// The settings each `controls` level offers (lib/settings.js): the compact ones, or all.
function controls(level) {
  return level === 'full' || level === 'compact'
    ? settings().filter(function (s) {
        return level === 'full' || s.compact;
      })
    : [];
}

var preloading = null; // causal-attention-later.js, asked for once by the first widget drawn

// Node and Workers have no HTMLElement: the class is defined there, never registered.
class CausalAttentionDemo extends (typeof HTMLElement === 'undefined' ? Object : HTMLElement) {
  static get observedAttributes() {
    return ['stages', 'preset', 'config', 'controls', 'theme', 'caption'];
  }

  constructor() {
    super();
    var doc = this.ownerDocument,
      shadow = this.attachShadow({ mode: 'open' }),
      self = this;
    shadow.adoptedStyleSheets = [styleSheet(true)];
    this.root = el(doc, 'div', 'ca', undefined, shadow);
    this.form = el(doc, 'form', 'cf', undefined, this.root); // unnamed: not a landmark, widgets may be many
    this.form.setAttribute('part', 'controls');
    this.error = el(doc, 'p', 'err', undefined, this.root);
    this.error.setAttribute('role', 'status');
    this.tables = el(doc, 'div', '', undefined, this.root);
    this.note = el(doc, 'div', 'ex', undefined, this.root);
    this.note.setAttribute('aria-live', 'polite');
    this.note.hidden = true;
    this.edits = {}; // what the reader changed with the controls, over the attributes
    this.form.addEventListener('input', function (e) {
      var input = e.target;
      self.edits[input.name] =
        input.type === 'checkbox'
          ? input.checked
          : input.tagName === 'SELECT'
            ? input.value
            : parseNumber(input.value);
      if (setting(input.name).empty && !input.value.trim()) delete self.edits[input.name]; // empty = T
      self.update(true);
    });
    this.form.addEventListener('submit', function (e) {
      e.preventDefault();
    });
    bindCells(this.tables, function (cell) {
      self.explain(cell);
    });
    watchHints(this.tables);
    new ResizeObserver(function () {
      hints(self.tables);
    }).observe(this.tables); // narrower: a fade where tables scroll
    bindExports(
      this.root,
      function () {
        return self.wt;
      },
      function () {
        return self.config();
      },
    );
  }

  connectedCallback() {
    this.update();
  }

  attributeChangedCallback(name) {
    if (name === 'config' || name === 'preset') this.edits = {};
    if (name === 'controls') this.builtControls = null;
    this.update();
  }

  /** The configuration: the preset or the config attribute, then the reader's edits. */
  config() {
    var preset = this.getAttribute('preset'),
      json = this.getAttribute('config'),
      base = {};
    if (json) {
      base = parseJson(json);
      if (!isRecord(base)) throw new Error('the config attribute must be a JSON object');
    } else if (preset) {
      // the core's table of presets (facts.js, filled when the module loaded)
      var presets = tables.presets;
      if (!Object.prototype.hasOwnProperty.call(presets, preset))
        throw new Error(
          'unknown preset "' + preset + '" (known: ' + Object.keys(presets).join(', ') + ')',
        );
      base = presets[preset].config;
    }
    return merge(base, this.edits); // own keys: config='{"__proto__": …}' is named, not lost
  }

  // Renders once the module is loaded; several changes in one task render once.
  update(fromControls) {
    var self = this;
    if (this.pending) return;
    this.pending = true;
    load().then(
      function (api) {
        self.pending = false;
        if (self.isConnected) self.render(api, fromControls);
      },
      function (e) {
        self.pending = false; // a failed load says so instead of leaving the widget blank
        self.error.textContent = 'The demo could not start: ' + e.message;
        self.dataset.state = 'error';
      },
    );
  }

  render(api, fromControls) {
    var doc = this.ownerDocument,
      wt,
      ids,
      unknown;
    try {
      ids = (this.getAttribute('stages') || '')
        .split(',')
        .map(function (s) {
          return s.trim();
        })
        .filter(Boolean);
      unknown = ids.filter(function (id) {
        return api.stageIds.indexOf(id) < 0;
      });
      if (unknown.length)
        throw new Error(
          'unknown stage "' + unknown[0] + '" (known: ' + api.stageIds.join(', ') + ')',
        );
      // A preset with its own stages (gpt2, exercise 3.3) computes only the stages shown; the
      // others run whole, so that explanations find the stages they refer to.
      var name = this.getAttribute('preset'),
        preset =
          !this.getAttribute('config') &&
          Object.prototype.hasOwnProperty.call(api.presets, name) &&
          api.presets[name];
      var partial = preset && preset.stages.length > 0;
      if (!ids.length && partial) ids = preset.stages.slice();
      var config = this.config(),
        tooBig = !partial && budget.check(config);
      if (tooBig) throw new Error(tooBig); // sizes that would freeze the page
      wt = api.run(config, partial ? { stages: ids } : {});
    } catch (e) {
      this.error.textContent = e.message; // the tables keep the last good configuration
      this.dataset.state = 'error';
      return;
    }
    this.error.textContent = '';
    this.wt = wt;
    this.buildControls(doc, wt.config, fromControls);
    var opts = { doc: doc, caption: this.getAttribute('caption') !== 'off' },
      old = boxes(this.tables);
    // Bias stages exist only with qkv_bias: a chosen one that is absent is left out. A table
    // of the same shape as before is updated in place (lib/list.js, as the page's).
    place(
      this.tables,
      wt.stages
        .filter(function (s) {
          return !ids.length || ids.indexOf(s.id) >= 0;
        })
        .sort(function (a, b) {
          return ids.indexOf(a.id) - ids.indexOf(b.id);
        })
        .map(function (s) {
          return box(old, s, wt, opts);
        }),
    );
    var picked = this.tables.querySelector('.sel'); // the explanation closes: unmark its cell
    if (picked) picked.classList.remove('sel');
    hints(this.tables);
    this.note.hidden = true;
    this.dataset.state = 'ready';
    this.dispatchEvent(new CustomEvent('ca-render', { bubbles: true }));
    // the explanations and the pictures' exports, after this first table is painted
    if (!preloading) preloading = preload(LIB_LATER).catch(function () {});
  }

  // The settings form: built when `controls` changes, its values set from the resolved
  // configuration (but not while the reader is typing in it).
  buildControls(doc, cfg, fromControls) {
    var level = this.getAttribute('controls'),
      keys = controls(level),
      form = this.form;
    form.hidden = !keys.length;
    if (this.builtControls !== level) {
      this.builtControls = level;
      form.replaceChildren();
      keys.forEach(function (s) {
        var label = el(doc, 'label', '', undefined, form),
          bool = s.type === 'boolean',
          input = el(doc, s.type === 'choice' ? 'select' : 'input');
        s.choices.forEach(function (c) {
          el(doc, 'option', '', c.value, input);
        });
        if (bool) input.type = 'checkbox';
        input.name = s.key;
        if (bool)
          label.append(input, ' ' + s.key); // [x] train
        else label.append(s.key + ' ', input); // d_out [2]
      });
      fromControls = false;
    }
    if (fromControls) return;
    var edits = this.edits;
    keys.forEach(function (s) {
      var input = form.elements[s.key];
      if (s.type === 'boolean') input.checked = cfg[s.key];
      else input.value = s.empty && !(s.key in edits) ? '' : String(cfg[s.key]); // empty: = T
    });
  }

  // A clicked cell: its row and column stay marked, and how it was computed shows below.
  explain(cell) {
    var doc = this.ownerDocument,
      d = cell.dataset,
      id = cell.closest('[data-stage]').dataset.stage,
      b = +d.batch || 0;
    var old = this.tables.querySelector('.sel'),
      title = el(doc, 'p', 'ti');
    if (old) old.classList.remove('sel');
    cell.classList.add('sel');
    title.textContent =
      id + '[' + (d.batch ? b + ', ' : '') + d.row + ', ' + d.col + '] = ' + cell.textContent;
    var wt = this.wt,
      note = this.note;
    note.replaceChildren(title);
    note.hidden = false;
    withLater(LIB_LATER, function (m) {
      if (title.isConnected) title.after(m.explain(wt, id, b, +d.row, +d.col, doc));
    });
  }
}

/** Registers <causal-attention-demo> (browsers only; once). */
export function define() {
  if (typeof customElements !== 'undefined' && !customElements.get('causal-attention-demo'))
    customElements.define('causal-attention-demo', CausalAttentionDemo);
}
