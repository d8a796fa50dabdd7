// The per-pass breakdown (bench/passes.cpp) of the native core and of WASM in Node, run
// interleaved in one invocation, with the ratios WASM / native. Builds nothing: first
//   cmake --build build/native --target ca_passes && cmake --build build/wasm --target ca-passes
//   node bench/passes.js [--build DIR] [--base DIR] [--isa avx2] [--simd128] [--rounds N]
//                        [--repeat R] B,T,D,H ...
// --base DIR adds a second WASM side (another build's ca-passes.js, e.g. main's) to compare a
// change with. Each process runs N rounds (default 5) per shape; R repeats (default 2)
// alternate the sides, every other repeat in reverse order (a load that drifts favours no
// side); the minimum over all of a side's rounds is shown. --isa runs the native
// side on those kernels (issue 21 compares WASM with AVX2: 4 floats per vector against 8).
// The WASM sides run as Chromium does, with relaxed SIMD (Node 20 needs
// --experimental-wasm-relaxed-simd: the exp then takes exp_relaxed.cpp's path where the engine
// fuses relaxed_madd); --simd128 runs them without it (the SIMD128 exp, as Node runs by
// default). Each side's exp path is printed above its table, and under it the first round's
// proj (the least over a side's processes), which WASM runs in the tier each call starts in.
'use strict';
const path = require('path');
const os = require('os');
const { execFileSync } = require('child_process');

// Options are taken out of args as they are read: what is left are the shapes.
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i < 0 ? fallback : args.splice(i, 2)[1];
};
const flag = (name) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};
const build = path.resolve(opt('--build', process.env.CA_BUILD || 'build'));
const base = opt('--base', null);
const isa = opt('--isa', null);
const simd128 = flag('--simd128');
const rounds = opt('--rounds', '5');
const repeat = +opt('--repeat', '2');
const shapes = args.length ? args : ['2,1024,64,1', '1,1024,768,12'];

const node = ['node', ...(simd128 ? [] : ['--experimental-wasm-relaxed-simd'])];
const sides = [
  ['native', [path.join(build, 'native/bench/ca_passes')]],
  ['wasm', [...node, path.join(build, 'wasm/ca-passes.js')]],
];
if (base) sides.push(['base', [...node, path.join(path.resolve(base), 'ca-passes.js')]]);

const fmt = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
for (const shape of shapes) {
  const best = {},
    exp = {},
    first = {};
  for (let r = 0; r < repeat; r++)
    for (const [name, cmd] of r % 2 ? [...sides].reverse() : sides) {
      const extra = name === 'native' && isa ? [isa] : [];
      const out = execFileSync(cmd[0], [...cmd.slice(1), ...shape.split(','), rounds, ...extra], {
        encoding: 'utf8',
      });
      const res = JSON.parse(out.trim().split('\n').at(-1)),
        passes = res.passes;
      exp[name] = res.exp;
      const b = (best[name] ??= {});
      for (const [pass, [min]] of Object.entries(passes)) b[pass] = Math.min(b[pass] ?? min, min);
      const f = passes.proj[2];
      if (f !== undefined) first[name] = Math.min(first[name] ?? f, f);
    }
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const exps = sides.map(([n]) => `${n} ${exp[n] ?? 'not printed (an older build)'}`);
  console.log(`\n(${shape.split(',').join(', ')}), load ${load}; exp: ${exps.join(', ')}`);
  const head = ['pass', ...sides.map(([n]) => `${n} ms`), 'wasm / native'];
  if (base) head.push('base / native', 'wasm / base');
  console.log(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
  for (const pass of Object.keys(best.native)) {
    const n = best.native[pass],
      w = best.wasm[pass];
    const row = [pass, ...sides.map(([s]) => fmt(best[s][pass])), `${(w / n).toFixed(2)}x`];
    if (base)
      row.push(`${(best.base[pass] / n).toFixed(2)}x`, `${(w / best.base[pass]).toFixed(2)}x`);
    console.log(`| ${row.join(' | ')} |`);
  }
  const firsts = sides.map(([n]) => `${n} ${first[n] === undefined ? '-' : fmt(first[n])}`);
  console.log(`first round's proj, ms: ${firsts.join(', ')}`);
}
