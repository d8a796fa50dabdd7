// src/wasm/pack.js minifies the page's CSS with a real parser: a descendant combinator before
// a pseudo-class (`a :hover`) stays one, comments and blank space go. The packed module stays
// under its size ceiling.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { root, web } = require('./support');
const { WASM_DATA } = require('../../src/wasm/pack.js');

test('the CSS minifier keeps `a :hover` a descendant selector', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-pack-'));
  try {
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(
      path.join(dir, 'src/style.css'),
      '/* a comment */\nnav a :hover { color : red ; }\n.x > .y , .z::before { content : "a  b" }\n',
    );
    execFileSync('node', [
      path.join(root, 'src/wasm/pack.js'),
      '--page',
      path.join(dir, 'src'),
      path.join(dir, 'out'),
    ]);
    assert.equal(
      fs.readFileSync(path.join(dir, 'out/style.css'), 'utf8'),
      'nav a :hover{color:red}.x>.y,.z::before{content:"a  b"}',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The page directory holds each module once: no two bundles hold the same one, and the page's
// app.js holds none of the library (causal-attention.js's: the page runs it first). A second
// copy of the library in app.js was ~19 KB gzip of the directory.
test('each module is in one bundle: app.js reads the library from causal-attention.js', async () => {
  const { BUNDLES, plan } = require('../../src/wasm/pack.js');
  const { modules } = await plan();
  const where = {};
  for (const b of BUNDLES)
    for (const m of modules[b.out]) {
      assert.equal(where[m], undefined, `${m} is in ${where[m]} and ${b.out}`);
      where[m] = b.out;
    }
  assert.deepEqual(
    modules['app.js'].filter((m) => /^(lib\/|hash\.js$)/.test(m)),
    [],
  );
  for (const m of ['lib/render.js', 'lib/table.js', 'lib/styles.js', 'hash.js', 'lib/api.js'])
    assert.equal(where[m], 'causal-attention.js', m);
  // the module's own code is beside the wasm, which the page loads after its first table
  for (const m of ['lib/module.js', 'lib/element.js'])
    assert.equal(where[m], 'causal-attention-wasm.js', m);
});

// app.js's functions nearly all run before the book's first table, and most of the library's
// (causal-attention.js) before the book's or a widget's: their first line has V8 compile them
// while they stream in (pack.js's onLoad); the code for later (the module, app-later.js,
// causal-attention-later.js) runs a part of its functions, and compiles each on its first call.
test('app.js and the library alone open with the compile hint for functions called on load', () => {
  const HINT = '//# allFunctionsCalledOnLoad\n';
  const hinted = fs
    .readdirSync(web)
    .filter(
      (f) => f.endsWith('.js') && fs.readFileSync(path.join(web, f), 'utf8').startsWith(HINT),
    );
  assert.deepEqual(hinted, ['app.js', 'causal-attention.js']);
});

// The module's size, a ceiling against growth (build-scripts/budgets.js holds the page's
// budget; build-scripts/wasm-sizes.js says where the bytes go). The wasm is read back from the
// packed file, so what is asserted is what ships.
// Issue 19 (the exports' one rule for controls and formulas, the heads in the budget, the
// measured embed height, own-name lookups) added 362 bytes: 91,314 -> 91,676. Issue 18:
// web/hash.js (791 bytes, a file of the page before) moved inside, with the registry of the
// modules the page's scripts share: 91,676 -> 91,941 (the page's total: 107,903 -> 107,837).
// Issue 19's core limits (run_bytes, the reader's limits, options, no page code inside the
// module) added 3,149 wasm bytes and 1,687 gzip bytes (measured before the settings table).
// Issue 18's one cost model (api.cost: ca::run_cost, its binding) and the settings' form order
// added 1,176 wasm bytes (147,623 -> 148,799 before main's hardening; 148,766 with it); paint
// first moved ~5 KB gzip of the library out into causal-attention-later.js (93,833 -> 88,951).
// Issue 20's notebook export (src/core/notebook.cpp: the book's classes, the cells' JSON, the
// binding) and the stage table's book names: +7,823 wasm bytes (147,623 -> 155,446 measured
// before paint first), about +3,000 gzip.
// Issue 21 (threads): stage-level computation (walkthrough.cpp's plan and stage shapes, +4.3 KB
// raw code) and the parallel loops (nn.cpp +0.5 KB, attention.cpp -0.2 KB, parallel.cpp +0.1 KB):
// +7,588 wasm bytes measured (148,766 -> 156,354 on main 7b1997c), about +2,500 gzip.
// run_cost by part and api.cost's options (issue 18): wasm 164,047 -> 165,141 (+1,094), the
// module's gzip 96,429 -> 96,866 (the page's app.js now registers what the later bundles read
// first, causal-attention.js a little less: -118).
// Issue 23's KV cache section (8 stages: kv_cache.cpp, their rows and code lines): wasm 165,141
// -> 173,769 (+8,628), module gzip 96,866 -> 99,888 (+3,022), measured on main b240cf7 merged.
// Issue 23's bonus sections (28 stages, their notes and code, the notebook's classes, the
// modules): wasm +36,958, module gzip +11,653 (measured on main b240cf7 merged: 165,141 ->
// 202,099 and 96,866 -> 108,519).
// Issue 21 (the browser's Worker pool): api.run's {shard}, api.project and MultiHeadAttention's
// shard of heads: wasm +3,402 (165,141 -> 168,543 before the KV cache and bonus sections
// merged), the module's gzip +1,648 (96,866 -> 98,514, with lib/slices.js's stages in parts).
// Issue 21's weights on demand: module gzip 113,082 -> 113,556 (ceiling +300); a shard that keeps
// its first head's weights (api.run's weightHeads, exercise 3.3's head 1 without a second run):
// wasm 211,804 -> 212,656, module gzip 113,625 -> 113,869 (ceiling 113,700 -> 114,000); the
// Worker's warm-up shard (lib/worker.js WARM_UP): 113,869 -> 113,999 (ceiling -> 114,200).
// The page directory's dedupe (causal-attention.js the library alone, the wasm, its glue and the
// element in causal-attention-wasm.js beside it): the two files' gzip 113,999 -> 115,452 apart;
// wasm-opt -Oz to a fixed point (wasm 212,564 -> 211,321), the glue without a Node branch and
// without Embind's wide strings (16,992 -> 14,835 bytes), the library's registry by index:
// 113,994; 114,109 with main's WASM exp of the same day (wasm 211,674). The module's ceiling
// stays 114,200; the wasm's 214,300 -> 211,800. Workers' memory made ready before a preset's
// request (api.memoryBytes(reserve), lib/worker.js) and the result task's faster scale:
// 114,335, wasm 211,906 (ceilings 114,200 -> 114,400, 211,800 -> 212,000). The stage notes and
// setting help out of the wasm (src/texts.json, in the library) and the wasm in its own file:
// 114,015, wasm 200,729 (ceilings -> 114,200, 201,000); with main's shards without copies
// (ex33, 3883402): 113,624, wasm 199,531 (ceilings -> 114,000, 200,200). The relaxed-SIMD exp
// (its module, loader and checks, kern) and main's posted Module (ex33): 114,515, wasm 200,518
// (ceilings -> 114,600, 200,600). Exercise 3.3's shards one head at a time, softmax in place
// (ex33: a third less fresh memory per Worker): 115,517, wasm 202,457 (ceilings -> 115,600,
// 202,600). Issue 21's WASM kernels (wasm): the relaxed exp's constants as globals and tile()'s
// pointer walk, +500 wasm bytes and +219 gzip on 0288fa0; on main 7035cf2 with them: 115,905,
// wasm 203,135 (ceilings -> 116,000, 203,200). out_proj's blocks by the weight and bias a shard
// brought (ex33: api.project's two arguments, no weights drawn again): 116,126, wasm 203,592
// (ceilings -> 116,150, 203,650). causal-attention.js's compile hint (paint: its functions
// compiled while it streams in, main-thread lazy compile 5 -> 0.7 ms for the book): +24 B,
// 116,139 -> 116,163 on 34e8f3f (ceiling -> 116,175). The SIMD128 tile's k loop two steps at a
// time (wasm: its steps in blocks of their own, forward 0.91x at both bench rows): wasm 203,595 ->
// 203,876 on 34e8f3f, +8 B gzip; on f0f1bb4 (whose nn.cpp brought +6) 116,178, wasm 203,879
// (ceilings -> 116,185, 203,900). The relaxed exp two groups of 4 a step, its constants immutable
// (wasm: exp 0.73-0.80x, softmax 0.83x at both bench rows): its module 640 -> 851 B, wasm 203,877
// -> 204,096 on 9184894, 116,165 -> 116,260 (ceilings -> 116,280, 204,120).
const MODULE_GZIP_CEILING = 116280,
  WASM_CEILING = 204120;

// The module's gzip is that of causal-attention.js (the library), causal-attention-wasm.js (the
// glue, the element) and causal-attention-wasm-data.js (the wasm) together: what the widget's
// one <script> loads.
test('causal-attention.js and its wasm stay under their size ceilings and ship no bench entry', () => {
  const file = fs.readFileSync(path.join(web, WASM_DATA));
  const packed = new RegExp(
    `^CausalAttention\\.__modules\\["${WASM_DATA}"\\]="([A-Za-z0-9+/=]*)";\\n$`,
  ).exec(file.toString('latin1'));
  assert.ok(packed, 'the deflated wasm is registered under its file name');
  const wasm = zlib.inflateRawSync(Buffer.from(packed[1], 'base64'));
  assert.equal(wasm.subarray(0, 4).toString('latin1'), '\0asm');
  assert.ok(wasm.length <= WASM_CEILING, `the wasm is ${wasm.length} bytes (> ${WASM_CEILING})`);
  const gz = ['causal-attention.js', 'causal-attention-wasm.js', WASM_DATA]
    .map((f) => zlib.gzipSync(fs.readFileSync(path.join(web, f)), { level: 9 }).length)
    .reduce((a, b) => a + b);
  assert.ok(gz <= MODULE_GZIP_CEILING, `gzip -9 is ${gz} bytes (> ${MODULE_GZIP_CEILING})`);
  // Embind registers each function under its name: bench/compare.sh's entry is a module of its own.
  assert.equal(wasm.indexOf('benchSetup'), -1);
  assert.notEqual(wasm.indexOf('stageTable'), -1);
});
