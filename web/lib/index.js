// causal-attention.js: the JS API and what the page shares with the widget, as one namespace:
// the global CausalAttention (and module.exports in Node, which src/wasm/pack.js appends: an
// ES module has no `module`). The module and the <causal-attention-demo> element are
// causal-attention-wasm.js beside it (lib/module.js): loaded at once on a host page, after its
// first table on ours (index.html's data-module="later"), by load() in a Worker or Node.
// Inside the Worker it starts from itself (worker.js), the same file only serves runs.
import { load } from './api.js';
import { budget } from './budget.js';
import * as draw from './draw.js';
import * as exportsOf from './export.js';
import { shownIndices, torchFormat } from './format.js';
import { textOf } from './table.js';
import { state as heatmapState } from './heatmap.js';
import * as hash from '../hash.js';
import * as json from './json.js';
import { LIB_LATER, MODULE, later, loaded } from './lazy.js';
import { nonFinite } from './nonfinite.js';
import { inWorker, serve } from './worker.js';

function fromLater(name) {
  return function () {
    var m = loaded(LIB_LATER);
    if (!m) throw new Error('CausalAttention.later() first: ' + LIB_LATER + ' is not loaded');
    return m[name].apply(null, arguments);
  };
}

// What Node users and tests read besides load() and json (typed in causal-attention.d.ts): the
// rest of the modules are imported by the page's scripts (src/wasm/pack.js shares them).
var ns = {
  load: load,
  /** A promise of causal-attention-later.js's namespace (loaded once, beside this file). */
  later: function () {
    return later(LIB_LATER);
  },
  json: { parse: json.parse, stringify: json.stringify },
  hash: { parse: hash.parse, stringify: hash.stringify },
  budget: budget,
  nonFinite: nonFinite,
  render: { torchFormat: torchFormat, shownIndices: shownIndices, textOf: textOf },
  heatmap: { state: heatmapState },
  draw: { figure: draw.figure, bind: draw.bind },
  exports: {
    text: exportsOf.text,
    // The pictures and the snippet are in causal-attention-later.js: after later() has loaded
    // it (the page and the widget load it after their first table; the npm package has it).
    png: fromLater('png'),
    svg: fromLater('svgText'),
    snippet: fromLater('snippet'),
    markdownCell: exportsOf.markdownText,
    csvCell: exportsOf.csvText,
    plain: exportsOf.plain,
  },
};

var script = typeof document !== 'undefined' && document.currentScript;
if (inWorker) serve();
else if (script && script.dataset.module !== 'later') later(MODULE).catch(function () {}); // load() says why
// On the page, app.js ran first and registered the modules it shares (src/wasm/pack.js): kept.
var before = globalThis.CausalAttention;
if (before && before.__modules) Object.defineProperty(ns, '__modules', { value: before.__modules });
globalThis.CausalAttention = ns;
