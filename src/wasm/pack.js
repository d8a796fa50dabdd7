// Bundles and packs what the browser loads: web/ is written as ES modules for readers; esbuild
// bundles them into classic scripts (they work from file:// and under a strict CSP), terser
// minifies them.
//
//   node pack.js GLUE.js MODULE.wasm OUT.js
//     causal-attention.js (OUT.js): the bundle of web/lib/index.js (the API, the element,
//     everything the page shares with it, the stage notes and setting help of src/texts.json).
//     The one <script> a blogger adds; the page loads it before app.js, which reads the library
//     from it (each byte once in the page directory).
//     Beside it, what it loads by its own URL (web/lib/lazy.js):
//     causal-attention-wasm.js, the module: the Emscripten glue and lib/module.js (the API's
//     wrapper, the element), and beside it causal-attention-wasm-data.js, the wasm deflated (by
//     zopfli, ~2 KB smaller than zlib -9) and base64-encoded (lib/module.js inflates it; plain
//     base64, as SINGLE_FILE embeds it, gzips ~9 KB worse). Two files, fetched side by side
//     (lib/lazy.js): in one, zlib's blocks mixed the base64 and the JS (-892 B gzip apart,
//     Node's zlib; -587 GNU gzip). The widget loads them at once, the page after its first
//     table.
//     causal-attention-later.js (lib/later.js): what the page and the widget load after their
//     first table.
//   node pack.js --page SRC_DIR OUT_DIR [MODULE.js]
//     The page: its scripts bundled (app.js, embed.js, app-later.js), every other file of SRC_DIR
//     but the modules (lib/, the entries' imports) and type declarations copied, .css through
//     csso (a real CSS parser: `a :hover` stays a descendant). With the module (MODULE.js, by
//     default OUT_DIR/causal-attention.js if it is there), app.js gets the book's run and the
//     core's tables as the module computes them in Node (web/page/snapshot.js, page/book.js):
//     the page paints the book without the module and loads it after.
//
// One copy of each module: each bundle registers the namespaces of the modules that bundles
// loaded after it import (SHARED, on CausalAttention), and their imports of one of them read it
// there instead of bundling a second copy (BUNDLES): the page's app.js reads the library from
// causal-attention.js, loaded before it.
'use strict';
const fs = require('fs');
const path = require('path');
const { promisify } = require('util');
const esbuild = require('esbuild');
const { minify } = require('terser');
const csso = require('csso');
const deflateRaw = promisify(require('@gfx/zopfli').deflate);

const TERSER = {
  ecma: 2020,
  compress: { passes: 2, pure_getters: true },
  mangle: true,
  format: { comments: false },
};
const WEB = path.resolve(__dirname, '../../web');
const SHARED = '__modules'; // CausalAttention.__modules: {"lib/render.js": namespace, ...}
// The display texts (stage notes, setting help), read by the native build too: see
// src/cli/texts.hpp. The snapshot leaves them out; web/lib/texts.js has them.
const TEXTS = JSON.parse(fs.readFileSync(path.join(__dirname, '../texts.json'), 'utf8'));

// The bundles, in the order they load: each reads the modules of the bundles before it
// (`after`) from CausalAttention.__modules instead of bundling a second copy. The "later"
// ones hold what the first table does not need (web/lib/lazy.js loads them when first used or
// in idle time) and register their entry's namespace under their own file name.
// The library (lib/, hash.js) is causal-attention.js's: with `library`, also the library's
// modules that those entries import, so that the page's app.js holds none of them.
const BUNDLES = [
  // first: the display texts open the file, prose beside prose: interleaved with the code,
  // zlib's blocks (a Huffman table each) mix both: -241 B gzip (Node's zlib), -308 (GNU gzip).
  // onLoad (app.js's below): the book's and a widget's first table call most of the library;
  // compiled while it streams in, off the main thread (+24 B gzip; main-thread lazy compile
  // 5.2 -> 0.7 ms for the book, 18 -> 9 ms for a widget).
  {
    out: 'causal-attention.js',
    entry: 'lib/index.js',
    after: [],
    library: ['app.js'],
    first: ['lib/texts.js'],
    onLoad: true,
  },
  // the module: after the deflated wasm and the glue (packModule)
  {
    out: 'causal-attention-wasm.js',
    entry: 'lib/module.js',
    after: ['causal-attention.js'],
    later: true,
  },
  {
    out: 'causal-attention-later.js',
    entry: 'lib/later.js',
    after: ['causal-attention.js'],
    later: true,
  },
  // The page, after causal-attention.js (the library, not the wasm: the book's first tables
  // come from the snapshot; it loads causal-attention-wasm.js after its first table).
  // onLoad: its functions nearly all run before its first table: the magic comment has V8
  // (Chrome 136+) compile them all while the file streams in, off the main thread, instead of
  // each on its first call on the main thread (the book's load: main-thread script 0.75x).
  { out: 'app.js', entry: 'app.js', after: ['causal-attention.js'], onLoad: true },
  { out: 'embed.js', entry: 'embed.js', after: ['causal-attention.js'] },
  {
    out: 'app-later.js',
    entry: 'page/later.js',
    after: ['causal-attention.js', 'app.js', 'causal-attention-later.js'],
    later: true,
  },
];
// causal-attention.js's last line, for Node (require): the exports, and the files beside it
// (lib/lazy.js) required from its directory. build-scripts/package.js cuts it from the ES
// module by its first words.
const NODE_FOOTER =
  'if("object"==typeof module&&module.exports){module.exports=CausalAttention;' +
  'Object.defineProperty(CausalAttention,"__require",{value:function(f){' +
  'return module.require(__dirname+"/"+f)}})}';
const MODULE = BUNDLES.slice(0, 3); // the module's JS (causal-attention*.js)
// The wasm's file: its name where the page loads it, web/lib/lazy.js's WASM_DATA.
const WASM_DATA = (/^export var WASM_DATA = '([^']+)';$/m.exec(
  fs.readFileSync(path.join(WEB, 'lib/lazy.js'), 'utf8'),
) || [])[1];
if (!WASM_DATA)
  throw new Error('pack.js: no `export var WASM_DATA = ...;` line in web/lib/lazy.js');
const PAGE = BUNDLES.slice(3); // the page's scripts

const relative = (file) => path.relative(WEB, file).split(path.sep).join('/');

// Imports of `held` modules left outside the bundle, or read from CausalAttention.__modules.
// snapshot: the text of page/snapshot.js in this bundle (the book's run), if any. keyOf(m, name):
// the key of a module's name in the registry (served).
function outside(held, registry, snapshot, keyOf) {
  return {
    name: 'outside',
    setup(build) {
      if (snapshot)
        build.onLoad({ filter: /[\\/]page[\\/]snapshot\.js$/ }, () => ({
          contents: snapshot,
          loader: 'js',
        }));
      // src/texts.json: its values only, as arrays in its order (web/lib/texts.js)
      build.onLoad({ filter: /[\\/]src[\\/]texts\.json$/ }, () => ({
        contents: Object.entries(TEXTS)
          .map(([group, texts]) => `export var ${group} = ${JSON.stringify(Object.values(texts))};`)
          .join('\n'),
        loader: 'js',
      }));
      build.onResolve({ filter: /^\./ }, (args) => {
        const file = relative(path.resolve(args.resolveDir, args.path));
        if (!held.has(file) || args.kind === 'entry-point') return undefined;
        return registry ? { path: file, namespace: 'shared' } : { path: file, external: true };
      });
      // The library's keys are indices: it must be this build's causal-attention.js (keyOf.id).
      build.onResolve({ filter: /^pack:library$/ }, () => ({
        path: 'library',
        namespace: 'shared',
      }));
      // registry: {module: [the names this bundle imports from it]}
      if (registry)
        build.onLoad({ filter: /.*/, namespace: 'shared' }, (args) => ({
          contents:
            args.path === 'library'
              ? `if (CausalAttention.${SHARED}[${JSON.stringify(MODULE[0].out)}] !== ${JSON.stringify(keyOf.id)}) throw new Error(${JSON.stringify(`${MODULE[0].out} is not from this build`)});`
              : (keyOf.library(args.path) ? "import 'pack:library';\n" : '') +
                `export var { ${registry[args.path].map((n) => `${keyOf(args.path, n)}: ${n}`).join(', ')} } = CausalAttention.${SHARED}[${JSON.stringify(args.path)}];`,
          loader: 'js',
        }));
    },
  };
}

// Per bundle: its modules (what its entry imports, transitively, that no bundle before it
// holds) and what it imports from those before it: {module: [names]}, read from esbuild's
// output, where each import of a module left outside is one statement.
const LIBRARY = /^(lib\/|hash\.js$)/;
async function plan() {
  const modules = {},
    imports = {};
  const graph = async (entry, held) => {
    const r = await esbuild.build({
      entryPoints: [path.join(WEB, entry)],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      logLevel: 'silent',
      plugins: [outside(held)],
    });
    const files = Object.keys(r.metafile.inputs)
      .filter((f) => !f.startsWith('<'))
      .map((f) => relative(path.resolve(f)));
    return { r, files };
  };
  for (const b of BUNDLES) {
    const held = new Set(b.after.flatMap((a) => modules[a]));
    const { r, files } = await graph(b.entry, held);
    for (const other of b.library || [])
      for (const f of (await graph(BUNDLES.find((o) => o.out === other).entry, held)).files)
        if (LIBRARY.test(f) && !files.includes(f)) files.push(f);
    modules[b.out] = files;
    imports[b.out] = {};
    // import {a, b as c} from "m"; or import * as ns from "m" (every name m exports)
    for (const m of r.outputFiles[0].text.matchAll(
      /^import (?:\{([^}]*)\}|\* as \w+) from "([^"]+)";$/gm,
    )) {
      const names = m[1]
        ? m[1].split(',').map((t) => t.trim().split(/\s+as\s+/)[0])
        : await exportsOf(m[2]);
      imports[b.out][m[2]] = [...new Set([...(imports[b.out][m[2]] || []), ...names])];
    }
  }
  return { modules, imports };
}

// The names a module exports.
async function exportsOf(file) {
  const r = await esbuild.build({
    entryPoints: [path.join(WEB, file)],
    write: false,
    metafile: true,
    format: 'esm',
    outdir: 'out',
    logLevel: 'silent',
  });
  return Object.values(r.metafile.outputs)[0].exports;
}

// The names of module m that the bundles after its own import, sorted: what its bundle registers.
function served(imports, m) {
  return [...new Set(Object.values(imports).flatMap((i) => i[m] || []))].sort();
}
// A name's key in the registry: the library's (what causal-attention.js serves: most of what
// the page's scripts import) by its index in served(), which costs a digit in each bundle
// instead of the name; the page's modules by name.
function keys({ modules, imports }) {
  const library = (m) => modules[MODULE[0].out].includes(m),
    keyOf = (m, name) => (library(m) ? served(imports, m).indexOf(name) : name);
  keyOf.library = library;
  keyOf.id = require('crypto') // the build's: the served names, hashed
    .createHash('sha256')
    .update(JSON.stringify(modules[MODULE[0].out].map((m) => [m, served(imports, m)])))
    .digest('hex')
    .slice(0, 8);
  return keyOf;
}

// Bundle b: its entry, then the namespaces of its modules that later bundles import,
// registered in CausalAttention.__modules (a later bundle: its entry's whole namespace too).
async function bundle(b, p, snapshot) {
  const { modules, imports } = p,
    used = {},
    keyOf = keys(p),
    serves = (o) => o.after.includes(b.out);
  for (const other of BUNDLES.filter(serves))
    for (const m of Object.keys(imports[other.out]))
      if (modules[b.out].includes(m)) used[m] = served(imports, m);
  const held = new Set(b.after.flatMap((a) => modules[a])),
    mods = Object.keys(used).sort();
  const entry = [
    ...(b.first || []).map((m) => `import './${m}';`), // evaluated first: first in the file
    b.later ? `import * as entry from './${b.entry}';` : `import './${b.entry}';`,
    ...mods.map((m, k) => `import { ${used[m].map((n) => `${n} as m${k}_${n}`)} } from './${m}';`),
    `var CA = globalThis.CausalAttention || (globalThis.CausalAttention = {}),`,
    `  R = CA.${SHARED} || Object.defineProperty(CA, '${SHARED}', { value: {} }).${SHARED},`,
    '  M = {',
    ...mods.map((m, k) => `  '${m}': { ${used[m].map((n) => `${keyOf(m, n)}: m${k}_${n}`)} },`),
    b.later ? `  '${b.out}': entry,` : '',
    b.out === MODULE[0].out ? `  '${b.out}': '${keyOf.id}',` : '',
    '};',
    'Object.keys(M).forEach(function (k) { R[k] = R[k] || M[k]; }); // the first copy stays',
  ].join('\n');
  const r = await esbuild.build({
    stdin: { contents: entry, resolveDir: WEB, sourcefile: 'pack:' + b.out },
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2020',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    plugins: [outside(held, imports[b.out], snapshot, keyOf)],
  });
  // a module the plan gave it that nothing here imports would be in no bundle at all
  const inside = Object.keys(r.metafile.inputs).map((f) => relative(path.resolve(f)));
  const lost = modules[b.out].filter((m) => !inside.includes(m));
  if (lost.length) throw new Error(`${b.out} does not hold ${lost.join(', ')}`);
  // CA_READABLE=1: not minified, for profiles with the functions' names (edit-profile.js).
  const code = process.env.CA_READABLE
    ? r.outputFiles[0].text
    : (await minify(r.outputFiles[0].text, TERSER)).code;
  return (b.onLoad ? '//# allFunctionsCalledOnLoad\n' : '') + code; // the file's first line
}

// causal-attention.js (the library), and beside it causal-attention-wasm.js (the glue and
// lib/module.js), causal-attention-wasm-data.js (the deflated wasm, registered as a base64
// string under its file name, like a bundle's namespace: lib/lazy.js) and
// causal-attention-later.js.
async function packModule(glue, wasm, out) {
  const deflated = Buffer.from(await deflateRaw(fs.readFileSync(wasm), { numiterations: 15 }));
  const p = await plan();
  fs.writeFileSync(out, (await bundle(MODULE[0], p)) + '\n' + NODE_FOOTER + '\n');
  fs.writeFileSync(
    path.join(path.dirname(out), WASM_DATA),
    `CausalAttention.${SHARED}[${JSON.stringify(WASM_DATA)}]="${deflated.toString('base64')}";\n`,
  );
  fs.writeFileSync(
    path.join(path.dirname(out), MODULE[1].out),
    [fs.readFileSync(glue, 'utf8'), await bundle(MODULE[1], p)].join('\n') + '\n',
  );
  fs.writeFileSync(
    path.join(path.dirname(out), MODULE[2].out),
    (await bundle(MODULE[2], p)) + '\n',
  );
}

// restructure: false keeps the rules in their written order (no merging across rules).
function minifyCss(css) {
  return csso.minify(css, { restructure: false }).css;
}

// A list of records with the same keys by columns: [keys, one row of values per record] (the
// keys repeated per record cost ~1.5 KB gzip in the snapshot); page/book.js's records() reads it.
function columns(list) {
  const keys = Object.keys(list[0]);
  for (const r of list)
    if (Object.keys(r).join() !== keys.join()) throw new Error(`columns: ${Object.keys(r)}`);
  return [keys, ...list.map((r) => keys.map((k) => r[k]))];
}

// page/snapshot.js with the book's run and the core's tables as module `file` (a packed
// causal-attention.js) computes them in Node: each stage's data as base64 of its float32 bytes
// (little-endian), read back by page/book.js; a stage's title and code null where they are the
// stage table's (page/book.js puts those back); the lists of records by columns, stageIds left
// out (the stage table's ids in order), the run's stage ids too (the table's but `skip`).
// JSON.parse of one string: parsed faster than the same object as code.
async function snapshotOf(file) {
  const api = await require(path.resolve(file)).load();
  const res = api.run({});
  const table = Object.fromEntries(api.stages.map((st) => [st.id, st]));
  const own = (id, key, value) => (value === table[id][key] ? null : value);
  if (api.stageIds.join() !== api.stages.map((st) => st.id).join()) throw new Error('stageIds');
  // web/lib/texts.js reads the texts by index: the file's order must be the tables'
  if (Object.keys(TEXTS.notes).join() !== api.stageIds.join())
    throw new Error("src/texts.json's notes are not the stage table's ids in order");
  if (Object.keys(TEXTS.help).join() !== api.settings.map((st) => st.key).join())
    throw new Error("src/texts.json's help is not the settings' keys in order");
  const without = (key) => (o) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
  const ran = res.stages.map((st) => st.id),
    skip = api.stageIds.filter((id) => !ran.includes(id));
  if (api.stageIds.filter((id) => !skip.includes(id)).join() !== ran.join())
    throw new Error("the run's stages are not the stage table's, in order");
  const data = {
    stages: columns(api.stages.map(without('note'))),
    sections: columns(api.sections),
    limits: api.limits,
    defaults: api.defaults,
    // the seeds' ranges are BigInts: {bigint: decimal text}, page/book.js makes them BigInts
    settings: columns(
      api.settings
        .map(without('help'))
        .map((st) =>
          Object.fromEntries(
            Object.entries(st).map(([k, v]) => [k, typeof v === 'bigint' ? { bigint: `${v}` } : v]),
          ),
        ),
    ),
    presets: api.presets,
    result: {
      config: res.config,
      skip, // the stage table's ids the run has not: its stages' ids are the others, in order
      stages: columns(
        res.stages.map(({ id, title, code, ...st }) => ({
          title: own(id, 'title', title),
          code: own(id, 'code', code),
          ...st,
          data: Buffer.from(st.data.buffer, st.data.byteOffset, st.data.byteLength).toString(
            'base64',
          ),
        })),
      ),
    },
  };
  return `export var snapshot = JSON.parse(${JSON.stringify(JSON.stringify(data))});`;
}

// The page's files: its scripts bundled; the modules themselves (.js) and .d.ts stay behind.
async function packPage(src, out, module) {
  const p = await plan();
  module = module || path.join(out, MODULE[0].out);
  const snapshot = fs.existsSync(module) ? await snapshotOf(module) : null;
  fs.mkdirSync(out, { recursive: true });
  for (const b of PAGE.filter((x) => fs.existsSync(path.join(src, x.entry))))
    fs.writeFileSync(path.join(out, b.out), await bundle(b, p, b.out === 'app.js' && snapshot));
  copyPage(src, out);
}
function copyPage(from, to) {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name),
      target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'lib') copyPage(source, target);
      continue;
    }
    if (/\.(js|d\.ts)$/.test(entry.name)) continue; // modules: inside the bundles
    fs.mkdirSync(to, { recursive: true });
    if (entry.name.endsWith('.css'))
      fs.writeFileSync(target, minifyCss(fs.readFileSync(source, 'utf8')));
    else fs.copyFileSync(source, target);
  }
}

module.exports = { BUNDLES, WASM_DATA, plan }; // for tests/js/pack.test.js

if (require.main === module) {
  const args = process.argv.slice(2);
  const done =
    args[0] === '--page'
      ? packPage(path.resolve(args[1]), path.resolve(args[2]), args[3])
      : packModule(args[0], args[1], args[2]);
  done.catch((e) => {
    console.error(`pack.js: ${e.message}`);
    process.exit(1);
  });
}
