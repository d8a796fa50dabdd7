// The WebAssembly SIMD128 kernels (gemm, gemm_nt, exp_shifted) against the naive reference,
// bit for bit: tests/wasm/kernels.cpp, built as build/wasm/ca-kernel-check.js, run in Node.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { execFileSync } = require('child_process');

const build = process.env.CA_BUILD || path.join(__dirname, '../../build');

test('the SIMD128 gemm and exp equal the reference kernels bit for bit', () => {
  const out = execFileSync('node', [path.join(build, 'wasm/ca-kernel-check.js')], {
    encoding: 'utf8',
  });
  const r = JSON.parse(out.trim().split('\n').at(-1));
  assert.equal(r.ok, true, r.error);
  assert.equal(r.differ, 0, `${r.differ} of ${r.values} values differ: ${r.first}`);
  // 13^3 edge shapes x 3 modes + 30 blocked shapes, 16 exp sweeps, the fma halfway cases and
  // the exp's steps (2.7 M inputs, each step's result); millions of values.
  assert.equal(r.cases, 13 * 13 * 13 * 3 + 30 + 16 + 2);
  assert.ok(r.values > 40_000_000, `only ${r.values} values compared`);
  // The sampled inputs whose 8th step's double sum the kernel finds halfway, and redoes.
  assert.equal(r.exp_ties, 43);
});
