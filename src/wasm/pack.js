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
//     sides of it compresses better together).
//   node pack.js --page SRC_DIR OUT_DIR
//     The page: its entries (PAGE_ENTRIES) bundled, every other file of SRC_DIR but the modules
//     (lib/, the entries' imports) and type declarations copied, .css through csso (a real CSS
//     parser: `a :hover` stays a descendant).
//
// One copy of each module: causal-attention.js registers the namespaces of the modules it holds
// (SHARED, on CausalAttention), and a page bundle's import of one of them reads it from there
// instead of bundling a second copy.
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
const LIB_ENTRY = path.join(WEB, 'lib/index.js');
// The page's scripts: each a classic script that reads the shared modules from the module.
const PAGE_ENTRIES = ['app.js', 'embed.js'];
const SHARED = '__modules'; // CausalAttention.__modules: {"lib/render.js": namespace, ...}

const relative = (file) => path.relative(WEB, file).split(path.sep).join('/');

// The modules inside causal-attention.js: what web/lib/index.js imports, transitively.
async function libModules() {
  const r = await esbuild.build({
    entryPoints: [LIB_ENTRY],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    logLevel: 'silent',
  });
  return Object.keys(r.metafile.inputs).map((f) => relative(path.resolve(f)));
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

async function bundle(options) {
  const r = await esbuild.build({
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2020',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'warning',
    ...options,
  });
  return (await minify(r.outputFiles[0].text, TERSER)).code;
}

// What the page's scripts import from the modules of causal-attention.js: {module: [names]},
// read from esbuild's own output, where each import of a module left outside is one statement.
async function sharedImports(held) {
  const used = {};
  for (const name of PAGE_ENTRIES) {
    const r = await esbuild.build({
      entryPoints: [path.join(WEB, name)],
      bundle: true,
      write: false,
      format: 'esm',
      logLevel: 'silent',
      plugins: [
        {
          name: 'outside',
          setup(build) {
            build.onResolve({ filter: /^\./ }, (args) => {
              const file = relative(path.resolve(args.resolveDir, args.path));
              if (!held.includes(file) || args.kind === 'entry-point') return undefined;
              return { path: file, external: true };
            });
          },
        },
      ],
    });
    for (const m of r.outputFiles[0].text.matchAll(/^import \{([^}]*)\} from "([^"]+)";$/gm)) {
      const names = m[1].split(',').map((s) => s.trim().split(/\s+as\s+/)[0]);
      used[m[2]] = [...new Set([...(used[m[2]] || []), ...names.filter(Boolean)])].sort();
    }
  }
  return used;
}

// The module's bundle: index.js, then the namespaces of the modules the page's scripts import.
async function libBundle() {
  const used = await sharedImports(await libModules()),
    modules = Object.keys(used).sort(),
    names = modules.map((m) => used[m]);
  const entry = [
    "import './lib/index.js';",
    ...modules.map(
      (m, k) => `import { ${names[k].map((n) => `${n} as m${k}_${n}`)} } from './${m}';`,
    ),
    `Object.defineProperty(globalThis.CausalAttention, '${SHARED}', { value: {`,
    ...modules.map((m, k) => `  '${m}': { ${names[k].map((n) => `${n}: m${k}_${n}`)} },`),
    '} });',
  ].join('\n');
  return bundle({
    stdin: { contents: entry, resolveDir: WEB, sourcefile: 'causal-attention.js' },
    footer: {
      js: "if (typeof module === 'object' && module.exports) module.exports = CausalAttention;",
    },
  });
}

// A page script: imports of a module that causal-attention.js holds read its namespace there.
function sharedPlugin(modules) {
  const held = new Set(modules);
  return {
    name: 'shared',
    setup(build) {
      build.onResolve({ filter: /^\./ }, (args) => {
        const file = relative(path.resolve(args.resolveDir, args.path));
        if (!held.has(file) || args.kind === 'entry-point') return undefined;
        return { path: file, namespace: 'shared' };
      });
      build.onLoad({ filter: /.*/, namespace: 'shared' }, async (args) => ({
        contents: `export var { ${(await exportsOf(args.path)).join(', ')} } = CausalAttention.${SHARED}[${JSON.stringify(args.path)}];`,
        loader: 'js',
      }));
    },
  };
}

async function packModule(glue, wasm, out) {
  const deflated = Buffer.from(await deflateRaw(fs.readFileSync(wasm), { numiterations: 15 }));
  fs.writeFileSync(
    out,
    [
      `var CAUSAL_ATTENTION_WASM="${deflated.toString('base64')}";`,
      fs.readFileSync(glue, 'utf8'),
      await libBundle(),
    ].join('\n'),
  );
}

// restructure: false keeps the rules in their written order (no merging across rules).
function minifyCss(css) {
  return csso.minify(css, { restructure: false }).css;
}

// The page's files: its entries bundled; the modules themselves (.js) and .d.ts stay behind.
async function packPage(src, out) {
  const modules = await libModules();
  fs.mkdirSync(out, { recursive: true });
  for (const name of PAGE_ENTRIES.filter((n) => fs.existsSync(path.join(src, n)))) {
    const code = await bundle({
      entryPoints: [path.join(src, name)],
      plugins: [sharedPlugin(modules)],
    });
    fs.writeFileSync(path.join(out, name), code);
  }
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
