// The npm package, from the built module: node build-scripts/package.js MODULE.js OUT_DIR
//
//   causal-attention.js          the module as the page ships it: a classic script (a <script>
//                                from node_modules or a CDN) that is also CommonJS (require)
//   causal-attention-wasm.js     the Emscripten glue and the API's wrapper, which it loads beside
//                                it with causal-attention-wasm-data.js, the wasm
//   causal-attention-later.js    what the widget loads after its first table (explanations,
//                                the PNG and SVG exports: web/lib/lazy.js), beside it
//   causal-attention.mjs         the same code (the four files) as an ES module with the named exports of the
//                                .d.ts, for `import` (Node) and for bundlers ("browser"): without
//                                Emscripten's Node branch, whose require("fs") and require("path")
//                                no bundler resolves for a browser and whose __dirname Node's ESM
//                                lacks. Node needs none of it: the loader passes the wasm bytes.
//   causal-attention.d.ts/.d.mts the types, for CommonJS and ESM importers
//
// package.json's "exports" picks the entry by condition, so the package bundles with esbuild,
// Rollup, webpack or Vite without flags. The glue has no Node branch (the loader passes the
// wasm's bytes); causal-attention.js's last line, its Node exports (src/wasm/pack.js), is cut
// by its first words: if either changes shape, this fails instead of shipping a bundle that
// breaks.
'use strict';
const fs = require('fs');
const path = require('path');

const [moduleJs, out] = process.argv.slice(2);
const root = path.resolve(__dirname, '..');
const code = fs.readFileSync(moduleJs, 'utf8'),
  wasmJs = path.join(path.dirname(moduleJs), 'causal-attention-wasm.js'),
  glued = fs.readFileSync(wasmJs, 'utf8'),
  dataJs = path.join(path.dirname(moduleJs), 'causal-attention-wasm-data.js'),
  data = fs.readFileSync(dataJs, 'utf8'),
  laterJs = path.join(path.dirname(moduleJs), 'causal-attention-later.js'),
  later = fs.readFileSync(laterJs, 'utf8');

// The named exports the .d.ts declares as values.
const NAMES = ['load', 'json'];
const types = fs.readFileSync(path.join(root, 'web/causal-attention.d.ts'), 'utf8');
for (const name of NAMES)
  if (!new RegExp(`^export (function|const) ${name}\\b`, 'm').test(types))
    throw new Error(`package.js: the .d.ts declares no ${name}`);

const FOOTER = '\nif("object"==typeof module&&module.exports){';
if (code.split(FOOTER).length !== 2 || !/\n[^\n]*\n$/.test(code.slice(code.indexOf(FOOTER))))
  throw new Error("package.js: causal-attention.js's last line is not its Node exports");
const library = code.slice(0, code.indexOf(FOOTER) + 1);
// The libraries' `typeof globalThis != "undefined" ? globalThis : this`: in an ES module `this`
// is undefined at the top level, and Rollup warns about every such `this`.
const esm = (text) =>
  text.split('"undefined"!=typeof globalThis?globalThis:this').join('globalThis');
const browser = esm(library) + data + esm(glued);
if (/\brequire\(|__dirname/.test(browser + later))
  throw new Error('package.js: the ESM entry still requires');
const exportsOf = (from) => NAMES.map((n) => `export const ${n} = ${from}.${n};`).join('\n') + '\n';

fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, 'causal-attention.js'), code);
fs.copyFileSync(wasmJs, path.join(out, 'causal-attention-wasm.js'));
fs.copyFileSync(dataJs, path.join(out, 'causal-attention-wasm-data.js'));
fs.copyFileSync(laterJs, path.join(out, 'causal-attention-later.js'));
// An ES module has no script URL to load a file beside it from: the wasm and the later code
// are inside (each registers itself after the library, lib/lazy.js reads them there).
fs.writeFileSync(
  path.join(out, 'causal-attention.mjs'),
  browser + '\n' + later + exportsOf('globalThis.CausalAttention'),
);
fs.writeFileSync(path.join(out, 'causal-attention.d.ts'), types);
fs.writeFileSync(path.join(out, 'causal-attention.d.mts'), types);
for (const f of ['README.md', 'LICENSE']) fs.copyFileSync(path.join(root, f), path.join(out, f));
// package.json without the dev tools and the root's guard against packing the sources.
const p = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
for (const k of ['private', 'scripts', 'devDependencies']) delete p[k];
fs.writeFileSync(path.join(out, 'package.json'), JSON.stringify(p, null, 2) + '\n');
