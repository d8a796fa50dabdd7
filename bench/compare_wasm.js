// The WASM side of bench/compare.sh: the bench module (causal-attention-bench in the wasm build
// directory: the page's module, same core and flags, plus the bench entry), timed in Node with
// performance.now(). Only the forward is timed, as compare_native.cpp times it; the output's sum
// (the check) is taken once at the end. compare.py runs Node with relaxed SIMD, as Chromium
// runs the page's module (src/wasm/exp-relaxed.js detects it; the exp then takes
// exp_relaxed.cpp's path).
//   node compare_wasm.js WASM_BUILD_DIR causal|mha|walkthrough|api B T d H MIN_RUNS MIN_SECONDS
// Prints {"ok": true, "seconds": [...], "check": ..., "bits": ...} (bench_modules.hpp's
// hash of the output; ok false when the module lacks it).
// "walkthrough" is the core's walkthrough alone; "api" is api.run({}) of causal-attention.js,
// Embind and the JS wrapper included.
'use strict';
const fs = require('fs');
const path = require('path');
const { performance } = require('perf_hooks');

async function main() {
  const [dir, module, B, T, d, H, minRuns, minSeconds] = process.argv.slice(2);
  const ids = { causal: 0, mha: 1, walkthrough: 2 };
  let once, m;
  if (module === 'api') {
    // the JS API as the page loads it: causal-attention.js
    const api = await require(path.resolve(dir, 'causal-attention.js')).load();
    once = () => api.run({}).stages.length;
  } else {
    const factory = require(path.resolve(dir, 'causal-attention-bench.js'));
    // The module takes no wasmBinary (src/wasm/wasm.cmake's INCOMING_MODULE_JS_API): it is
    // instantiated here as lib/module.js does it.
    const bytes = fs.readFileSync(path.resolve(dir, 'causal-attention-bench.wasm'));
    const compiled = new WebAssembly.Module(bytes);
    m = await factory({
      instantiateWasm(imports, ready) {
        const instance = new WebAssembly.Instance(compiled, imports);
        ready(instance);
        return instance.exports;
      },
    });
    if (m.benchSetup(ids[module], +B, +T, +d, +H)) once = () => m.benchRun(1);
  }
  if (!once) return console.log(JSON.stringify({ ok: false }));
  // Warm-up: at least 0.25 s, so that V8 has tiered the hot functions up (Liftoff's code runs
  // 2-5x slower) before the timed runs, which compare.sh's rounds keep short.
  let check = once();
  for (const t0 = performance.now(); performance.now() - t0 < 250;) check = once();
  const seconds = [];
  let total = 0,
    batch = 1;
  while (seconds.length < +minRuns || total < +minSeconds) {
    const t0 = performance.now();
    for (let r = 0; r < batch; r++) check = once();
    const s = (performance.now() - t0) / 1000;
    if (s < 2e-3 && seconds.length === 0 && batch < 1 << 20) {
      batch *= 2;
      continue;
    }
    seconds.push(s / batch);
    total += s;
    if (seconds.length >= 200) break;
  }
  const kept = module === 'causal' || module === 'mha';
  if (kept) check = m.benchSum();
  const bits = kept ? m.benchBits() : 0;
  console.log(JSON.stringify({ ok: true, check, bits, seconds }));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
