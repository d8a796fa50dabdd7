// Packs what the browser loads, minified: web/ is written for readers.
//
//   node pack.js GLUE.js MODULE.wasm OUT.js LIB.js...
//     The single-file module: the wasm deflated (by zopfli, ~2 KB smaller than zlib -9) and
//     base64-encoded into CAUSAL_ATTENTION_WASM (web/lib/api.js inflates it; plain base64, as
//     SINGLE_FILE embeds it, gzips ~9 KB worse), then the Emscripten glue and the libraries.
//     The base64 comes first: between the glue and the libraries it cost 1.1 KB of gzip (the
//     JS on both sides of it compresses better together).
//   node pack.js --page SRC_DIR OUT_DIR
//     The page: every file of SRC_DIR but lib/ (inside the module) and type declarations,
//     .js through terser, .css through csso (a real CSS parser: `a :hover` stays a descendant).
'use strict';
const fs = require('fs');
const path = require('path');
const { promisify } = require('util');
const { minify } = require('terser');
const csso = require('csso');
const deflateRaw = promisify(require('@gfx/zopfli').deflate);

const TERSER = { ecma: 2017, compress: { passes: 2 }, mangle: true, format: { comments: false } };

async function packModule(glue, wasm, out, libs) {
  const deflated = Buffer.from(await deflateRaw(fs.readFileSync(wasm), { numiterations: 15 }));
  const lib = await minify(libs.map((f) => fs.readFileSync(f, 'utf8')).join('\n'), TERSER);
  fs.writeFileSync(
    out,
    [
      `var CAUSAL_ATTENTION_WASM="${deflated.toString('base64')}";`,
      fs.readFileSync(glue, 'utf8'),
      lib.code,
    ].join('\n'),
  );
}

// restructure: false keeps the rules in their written order (no merging across rules).
function minifyCss(css) {
  return csso.minify(css, { restructure: false }).css;
}

async function packPage(src, out) {
  for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
    const from = path.join(src, entry.name),
      to = path.join(out, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'lib') await packPage(from, to);
      continue;
    }
    if (entry.name.endsWith('.d.ts')) continue;
    fs.mkdirSync(out, { recursive: true });
    const text = fs.readFileSync(from, 'utf8');
    if (entry.name.endsWith('.js')) fs.writeFileSync(to, (await minify(text, TERSER)).code);
    else if (entry.name.endsWith('.css')) fs.writeFileSync(to, minifyCss(text));
    else fs.copyFileSync(from, to);
  }
}

const args = process.argv.slice(2);
const done =
  args[0] === '--page'
    ? packPage(path.resolve(args[1]), path.resolve(args[2]))
    : packModule(args[0], args[1], args[2], args.slice(3));
done.catch((e) => {
  console.error(`pack.js: ${e.message}`);
  process.exit(1);
});
