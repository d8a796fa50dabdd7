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
(function (CA) {
  'use strict';
  if (typeof HTMLElement === 'undefined' || typeof customElements === 'undefined') return; // Node
  var R = CA.render;
  // The settings each `controls` level offers; rng is a choice, the booleans checkboxes.
  var CONTROLS = {
    compact: ['d_out', 'dropout', 'rng', 'train'],
    full: [
      'query_token',
      'seed_v1',
      'd_out',
      'seed_weights',
      'qkv_bias',
      'scale',
      'dropout',
      'seed_dropout',
      'rng',
      'train',
      'seed_class',
      'class_dropout',
      'context_length',
      'num_heads',
    ],
  };
  var BOOLS = { qkv_bias: 1, scale: 1, train: 1 };

  function el(doc, tag, className, parent) {
    var node = doc.createElement(tag);
    if (className) node.className = className;
    return parent ? parent.appendChild(node) : node;
  }

  class CausalAttentionDemo extends HTMLElement {
    static get observedAttributes() {
      return ['stages', 'preset', 'config', 'controls', 'theme', 'caption'];
    }

    constructor() {
      super();
      var doc = this.ownerDocument,
        shadow = this.attachShadow({ mode: 'open' }),
        self = this;
      shadow.adoptedStyleSheets = [CA.styleSheet(true)];
      this.root = el(doc, 'div', 'ca', shadow);
      this.form = el(doc, 'form', 'cf', this.root); // unnamed: not a landmark, widgets may be many
      this.form.setAttribute('part', 'controls');
      this.error = el(doc, 'p', 'err', this.root);
      this.error.setAttribute('role', 'status');
      this.tables = el(doc, 'div', '', this.root);
      this.note = el(doc, 'div', 'ex', this.root);
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
              : CA.render.parseNumber(input.value);
        if (input.name === 'context_length' && !input.value.trim())
          delete self.edits.context_length; // empty = T
        self.update(true);
      });
      this.form.addEventListener('submit', function (e) {
        e.preventDefault();
      });
      R.bind(this.tables, function (cell) {
        self.explain(cell);
      });
      R.watchHints(this.tables);
      new ResizeObserver(function () {
        R.hints(self.tables);
      }).observe(this.tables); // narrower: a fade where tables scroll
      CA.exports.bind(
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
        base = CA.json.parse(json);
        if (!base || base.constructor !== Object)
          throw new Error('the config attribute must be a JSON object');
      } else if (preset) {
        // the core's table (CausalAttention.presets, set when the module loaded)
        var presets = CA.presets || {};
        if (!Object.prototype.hasOwnProperty.call(presets, preset))
          throw new Error(
            'unknown preset "' + preset + '" (known: ' + Object.keys(presets).join(', ') + ')',
          );
        base = presets[preset].config;
      }
      return Object.assign({}, base, this.edits);
    }

    // Renders once the module is loaded; several changes in one task render once.
    update(fromControls) {
      var self = this;
      if (this.pending) return;
      this.pending = true;
      CA.load().then(
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
          tooBig = !partial && CA.budget.check(config);
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
        fragment = doc.createDocumentFragment(),
        old = {};
      this.tables.querySelectorAll('div.stage').forEach(function (box) {
        old[box.dataset.stage] = box;
      });
      // Bias stages exist only with qkv_bias: a chosen one that is absent is left out. A table
      // of the same shape as before is updated in place.
      wt.stages
        .filter(function (s) {
          return !ids.length || ids.indexOf(s.id) >= 0;
        })
        .sort(function (a, b) {
          return ids.indexOf(a.id) - ids.indexOf(b.id);
        })
        .forEach(function (s) {
          var box = old[s.id];
          fragment.appendChild(box && R.update(box, s, wt, opts) ? box : R.stage(s, wt, opts));
        });
      this.tables.replaceChildren(fragment);
      var picked = this.tables.querySelector('.sel'); // the explanation closes: unmark its cell
      if (picked) picked.classList.remove('sel');
      R.hints(this.tables);
      this.note.hidden = true;
      this.dataset.state = 'ready';
      this.dispatchEvent(new CustomEvent('ca-render', { bubbles: true }));
    }

    // The settings form: built when `controls` changes, its values set from the resolved
    // configuration (but not while the reader is typing in it).
    buildControls(doc, cfg, fromControls) {
      var level = this.getAttribute('controls'),
        keys = (Object.prototype.hasOwnProperty.call(CONTROLS, level) && CONTROLS[level]) || [],
        form = this.form;
      form.hidden = !keys.length;
      if (this.builtControls !== level) {
        this.builtControls = level;
        form.replaceChildren();
        keys.forEach(function (key) {
          var label = el(doc, 'label', '', form),
            input;
          if (key === 'rng') {
            input = el(doc, 'select');
            ['default', 'mkl'].forEach(function (v) {
              el(doc, 'option', '', input).textContent = v;
            });
          } else {
            input = el(doc, 'input');
            if (BOOLS[key]) input.type = 'checkbox';
          }
          input.name = key;
          if (BOOLS[key])
            label.append(input, ' ' + key); // [x] train
          else label.append(key + ' ', input); // d_out [2]
        });
        fromControls = false;
      }
      if (fromControls) return;
      var edits = this.edits;
      keys.forEach(function (key) {
        var input = form.elements[key];
        if (BOOLS[key]) input.checked = cfg[key];
        else
          input.value =
            key === 'context_length' && !('context_length' in edits) ? '' : String(cfg[key]);
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
      this.note.replaceChildren(title, R.explain(this.wt, id, b, +d.row, +d.col, doc));
      this.note.hidden = false;
    }
  }

  if (!customElements.get('causal-attention-demo'))
    customElements.define('causal-attention-demo', CausalAttentionDemo);
})(globalThis.CausalAttention || (globalThis.CausalAttention = {}));
