// The benchmarks' own modules (bench/compare.sh's sides): the WASM bench module loads in Node
// as bench/compare_wasm.js loads it, and its output's bits equal the native core's
// (bench/compare_native.cpp, ca_compare) on the same workload. A bench that cannot load its
// module, or that times different numbers on the two sides, fails here and not in a
// 40-minute compare.sh run.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { execFileSync } = require('child_process');

const build = process.env.CA_BUILD || path.join(__dirname, '../../build');
const root = path.join(__dirname, '../..');

function side(cmd, args) {
  const out = execFileSync(cmd, args, { encoding: 'utf8' }).trim().split('\n').at(-1);
  return JSON.parse(out);
}

// (module, B, T, d, H): the book's shapes and a blocked one (T = 300: the scores' kernels run
// their edge tiles), one run each (timing is compare.sh's job).
const WORKLOADS = [
  ['causal', 2, 6, 3, 1],
  ['causal', 2, 300, 64, 1],
  ['mha', 2, 6, 4, 2],
  ['mha', 1, 130, 96, 4],
];

for (const [module, ...shape] of WORKLOADS)
  test(`bench ${module} (${shape.join(', ')}): WASM's bits equal the native core's`, () => {
    const args = [module, ...shape.map(String), '1', '0'];
    const native = side(path.join(build, 'native/bench/ca_compare'), args);
    const wasm = side('node', [
      path.join(root, 'bench/compare_wasm.js'),
      path.join(build, 'wasm'),
      ...args,
    ]);
    assert.equal(native.ok, true);
    assert.equal(wasm.ok, true);
    assert.ok(wasm.seconds.length >= 1 && wasm.seconds.every((s) => s > 0));
    assert.equal(wasm.bits, native.bits, 'the two sides timed different outputs');
    assert.equal(wasm.check, native.check);
  });
