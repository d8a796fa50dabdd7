// Packs the single-file module: the Emscripten glue, the wasm deflated and base64-encoded
// into CAUSAL_ATTENTION_WASM (web/lib/api.js inflates it), then the hand-written web/lib.
// Usage: node pack.js GLUE.js MODULE.wasm OUT.js LIB.js...
'use strict';
const fs = require('fs');
const zlib = require('zlib');

const [glue, wasm, out, ...libs] = process.argv.slice(2);
const deflated = zlib.deflateRawSync(fs.readFileSync(wasm), { level: 9 });
const parts = [
  fs.readFileSync(glue, 'utf8'),
  `var CAUSAL_ATTENTION_WASM = "${deflated.toString('base64')}";\n`,
  ...libs.map((f) => fs.readFileSync(f, 'utf8')),
];
fs.writeFileSync(out, parts.join('\n'));
