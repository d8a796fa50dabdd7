// Bundles and packs what the browser loads: web/ is written as ES modules for readers; esbuild
// bundles them into classic scripts (they work from file:// and under a strict CSP), terser
// minifies them.
//
//   node pack.js GLUE.js MODULE.wasm OUT.js
//     causal-attention.js: the wasm deflated (by zopfli, ~2 KB smaller than zlib -9) and
//     base64-encoded into CAUSAL_ATTENTION_WASM (web/lib/api.js inflates it; plain base64, as
//     SINGLE_FILE embeds it, gzips ~9 KB worse), then the Emscripten glue, then the bundle of
//     web/lib/index.js (the API, the element, everything the page shares with it). The base64
//     comes first: between the glue and the libraries it cost 1.1 KB of gzip (the JS on both
//     sides of it compresses better together). Beside it, causal-attention-later.js (lib/later.js:
//     what the page and the widget load after their first table, web/lib/lazy.js).
//   node pack.js --page SRC_DIR OUT_DIR
//     The page: its scripts bundled (app.js, embed.js, app-later.js), every other file of SRC_DIR
//     but the modules (lib/, the entries' imports) and type declarations copied, .css through
//     csso (a real CSS parser: `a :hover` stays a descendant).
//
// One copy of each module: each bundle registers the namespaces of the modules that bundles
// loaded after it import (SHARED, on CausalAttention), and their imports of one of them read it
// there instead of bundling a second copy (BUNDLES).
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

// The bundles, in the order they load: each reads the modules of the bundles before it
// (`after`) from CausalAttention.__modules instead of bundling a second copy. The "later"
// ones hold what the first table does not need (web/lib/lazy.js loads them when first used or
// in idle time) and register their entry's namespace under their own file name.
const BUNDLES = [
  { out: 'causal-attention.js', entry: 'lib/index.js', after: [] },
  {
    out: 'causal-attention-later.js',
    entry: 'lib/later.js',
    after: ['causal-attention.js'],
    later: true,
  },
  { out: 'app.js', entry: 'app.js', after: ['causal-attention.js'] },
  { out: 'embed.js', entry: 'embed.js', after: ['causal-attention.js'] },
  {
    out: 'app-later.js',
    entry: 'page/later.js',
    after: ['causal-attention.js', 'causal-attention-later.js', 'app.js'],
    later: true,
  },
];
const MODULE = BUNDLES.slice(0, 2); // beside the wasm (causal-attention*.js)
const PAGE = BUNDLES.slice(2); // the page's scripts

const relative = (file) => path.relative(WEB, file).split(path.sep).join('/');

// Imports of `held` modules left outside the bundle, or read from CausalAttention.__modules.
function outside(held, registry) {
  return {
    name: 'outside',
    setup(build) {
      build.onResolve({ filter: /^\./ }, (args) => {
        const file = relative(path.resolve(args.resolveDir, args.path));
        if (!held.has(file) || args.kind === 'entry-point') return undefined;
        return registry ? { path: file, namespace: 'shared' } : { path: file, external: true };
      });
      // registry: {module: [the names this bundle imports from it]}
      if (registry)
        build.onLoad({ filter: /.*/, namespace: 'shared' }, (args) => ({
          contents: `export var { ${registry[args.path].join(', ')} } = CausalAttention.${SHARED}[${JSON.stringify(args.path)}];`,
          loader: 'js',
        }));
    },
  };
}

// Per bundle: its modules (what its entry imports, transitively, that no bundle before it
// holds) and what it imports from those before it: {module: [names]}, read from esbuild's
// output, where each import of a module left outside is one statement.
async function plan() {
  const modules = {},
    imports = {};
  for (const b of BUNDLES) {
    const held = new Set(b.after.flatMap((a) => modules[a]));
    const r = await esbuild.build({
      entryPoints: [path.join(WEB, b.entry)],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      logLevel: 'silent',
      plugins: [outside(held)],
    });
    modules[b.out] = Object.keys(r.metafile.inputs)
      .filter((f) => !f.startsWith('<'))
      .map((f) => relative(path.resolve(f)));
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

// Bundle b: its entry, then the namespaces of its modules that later bundles import,
// registered in CausalAttention.__modules (a later bundle: its entry's whole namespace too).
async function bundle(b, { modules, imports }) {
  const used = {};
  for (const other of BUNDLES.filter((o) => o.after.includes(b.out)))
    for (const [m, names] of Object.entries(imports[other.out]))
      if (modules[b.out].includes(m)) used[m] = [...new Set([...(used[m] || []), ...names])].sort();
  const held = new Set(b.after.flatMap((a) => modules[a])),
    mods = Object.keys(used).sort();
  const entry = [
    b.later ? `import * as entry from './${b.entry}';` : `import './${b.entry}';`,
    ...mods.map((m, k) => `import { ${used[m].map((n) => `${n} as m${k}_${n}`)} } from './${m}';`),
    `var CA = globalThis.CausalAttention,`,
    `  R = CA.${SHARED} || Object.defineProperty(CA, '${SHARED}', { value: {} }).${SHARED};`,
    'Object.assign(R, {',
    ...mods.map((m, k) => `  '${m}': { ${used[m].map((n) => `${n}: m${k}_${n}`)} },`),
    b.later ? `  '${b.out}': entry,` : '',
    '});',
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
    plugins: [outside(held, imports[b.out])],
    footer:
      b.out === 'causal-attention.js'
        ? {
            js: "if (typeof module === 'object' && module.exports) module.exports = CausalAttention;",
          }
        : undefined,
  });
  return (await minify(r.outputFiles[0].text, TERSER)).code;
}

// causal-attention.js (the deflated wasm, the glue, the library) and causal-attention-later.js
// beside it.
async function packModule(glue, wasm, out) {
  const deflated = Buffer.from(await deflateRaw(fs.readFileSync(wasm), { numiterations: 15 }));
  const p = await plan();
  fs.writeFileSync(
    out,
    [
      `var CAUSAL_ATTENTION_WASM="${deflated.toString('base64')}";`,
      fs.readFileSync(glue, 'utf8'),
      await bundle(MODULE[0], p),
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(path.dirname(out), MODULE[1].out),
    (await bundle(MODULE[1], p)) + '\n',
  );
}

// restructure: false keeps the rules in their written order (no merging across rules).
function minifyCss(css) {
  return csso.minify(css, { restructure: false }).css;
}

// The page's files: its scripts bundled; the modules themselves (.js) and .d.ts stay behind.
async function packPage(src, out) {
  const p = await plan();
  fs.mkdirSync(out, { recursive: true });
  for (const b of PAGE.filter((x) => fs.existsSync(path.join(src, x.entry))))
    fs.writeFileSync(path.join(out, b.out), await bundle(b, p));
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

const args = process.argv.slice(2);
const done =
  args[0] === '--page'
    ? packPage(path.resolve(args[1]), path.resolve(args[2]))
    : packModule(args[0], args[1], args[2]);
done.catch((e) => {
  console.error(`pack.js: ${e.message}`);
  process.exit(1);
});
