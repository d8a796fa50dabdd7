// causal-attention.js: the JS API, the <causal-attention-demo> element and what the page
// shares with it, as one namespace: the global CausalAttention (and module.exports in Node,
// which src/wasm/pack.js appends: an ES module has no `module`).
// Inside the Worker it starts from itself (worker.js), the same file only serves runs.
import { load } from './api.js';
import { budget } from './budget.js';
import * as draw from './draw.js';
import { define } from './element.js';
import * as exportsOf from './export.js';
import { shownIndices, torchFormat } from './format.js';
import { state as heatmapState } from './heatmap.js';
import * as hash from '../hash.js';
import * as json from './json.js';
import { nonFinite } from './nonfinite.js';
import { inWorker, serve } from './worker.js';

// What Node users and tests read besides load() and json (typed in causal-attention.d.ts): the
// rest of the modules are imported by the page's scripts (src/wasm/pack.js shares them).
var ns = {
  load: load,
  json: { parse: json.parse, stringify: json.stringify },
  hash: { parse: hash.parse, stringify: hash.stringify },
  budget: budget,
  nonFinite: nonFinite,
  render: { torchFormat: torchFormat, shownIndices: shownIndices },
  heatmap: { state: heatmapState },
  draw: { figure: draw.figure, bind: draw.bind },
  exports: {
    text: exportsOf.text,
    png: exportsOf.png,
    svg: exportsOf.svgText,
    snippet: exportsOf.snippet,
    markdownCell: exportsOf.markdownText,
    csvCell: exportsOf.csvText,
    plain: exportsOf.plain,
  },
};

if (inWorker) serve();
else define();
globalThis.CausalAttention = ns;
