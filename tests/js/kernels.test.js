// The WebAssembly SIMD128 kernels (gemm, gemm_nt, exp_shifted) against the naive reference,
// bit for bit: tests/wasm/kernels.cpp, built as build/wasm/ca-kernel-check.js, run in Node
// twice: as Node 20 runs by default (no relaxed SIMD: the SIMD128 exp), and with
// --experimental-wasm-relaxed-simd (the relaxed-SIMD exp, exp_relaxed.cpp, as Chromium runs it).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const build = process.env.CA_BUILD || path.join(__dirname, '../../build');

// 13^3 edge shapes x 3 modes + 33 blocked shapes, 32 exp sweeps, the fma halfway cases, the
// exp's steps (2.7 M inputs, each step's result) and the relaxed module's constants (by bits);
// millions of values.
const CASES = 13 * 13 * 13 * 3 + 33 + 32 + 2 + 1;

function check(flags) {
  const out = execFileSync('node', [...flags, path.join(build, 'wasm/ca-kernel-check.js')], {
    encoding: 'utf8',
  });
  const r = JSON.parse(out.trim().split('\n').at(-1));
  assert.equal(r.ok, true, r.error);
  assert.equal(r.differ, 0, `${r.differ} of ${r.values} values differ: ${r.first}`);
  assert.ok(r.values > 40_000_000, `only ${r.values} values compared`);
  // The sampled inputs whose 8th step's double sum the SIMD128 kernel finds halfway, and redoes.
  assert.equal(r.exp_ties, 43);
  return r;
}

test('the SIMD128 gemm and exp equal the reference kernels bit for bit', () => {
  const r = check([]);
  assert.equal(r.relaxed, false, 'Node 20 has no relaxed SIMD without its flag');
  assert.equal(r.cases, CASES);
});

// relaxed_madd is fused where V8 finds FMA3 (x64) or on ARM64: this machine's kind has it.
const fusedHere =
  process.arch === 'arm64' ||
  (process.arch === 'x64' && /^flags\s*:.*\bfma\b/m.test(fs.readFileSync('/proc/cpuinfo', 'utf8')));

test('the relaxed-SIMD exp, where it runs, has the same bits on the same inputs', () => {
  const r = check(['--experimental-wasm-relaxed-simd']);
  assert.equal(r.relaxed, fusedHere, `the relaxed-SIMD exp is ${r.relaxed ? 'on' : 'off'}`);
  // exp_shifted (the 32 sweeps) is now the relaxed path; the 2.7 M inputs once more, through
  // exp_shifted_relaxed at every tail length, with and without an odd group of 4 (it takes two
  // a step).
  assert.equal(r.cases, CASES + (r.relaxed ? 8 : 0));
});
