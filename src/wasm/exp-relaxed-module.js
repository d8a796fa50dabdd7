// exp over a row with WebAssembly's relaxed SIMD: SLEEF's AVX2 expf_u10 (exp_avx2.cpp) step for
// step, each _mm256_fmadd_ps a f32x4.relaxed_madd. Where the engine fuses it (V8 on x64 with
// FMA3: vfmadd; ARM: fmla) these are the bits of sleef::expf_u10 with no double-precision detour
// (exp_simd128.cpp). Clang 14 has only the old experimental relaxed opcodes, so this script
// writes the module's bytes itself, as a C array that src/core/exp_relaxed.cpp includes:
//   node src/wasm/exp-relaxed-module.js OUT.inc [OUT.wasm]
// The module imports the core's memory ("e" "m") and exports
//   x(p, n, max): w[j] = exp(w[j] - max) for the n floats at p (n a multiple of 4);
//   f(p): the 4 floats at p + 48 = relaxed_madd(a, b, c), a, b, c the 4 floats at p, p + 16,
//         p + 32 (src/core/exp_relaxed.cpp checks that the engine fuses it);
// and src/wasm/exp-relaxed.js instantiates it where the engine validates it.
'use strict';
const fs = require('fs');

// LEB128, unsigned.
const leb = (n) => {
  const out = [];
  do {
    const b = n & 0x7f;
    n >>>= 7;
    out.push(n ? b | 0x80 : b);
  } while (n);
  return out;
};
// LEB128, signed (i32.const's immediate).
const sleb = (n) => {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...out, b];
    out.push(b | 0x80);
  }
};
const f32 = (x) => [...new Uint8Array(Float32Array.of(x).buffer)];
const vec = (...items) => [leb(items.length), ...items].flat(Infinity);
const name = (s) => vec(...Buffer.from(s));
const section = (id, body) => [id, leb(body.length), body].flat();

// The instructions used, by their binary opcodes (the SIMD ones after the 0xfd prefix).
const I32 = 0x7f,
  F32 = 0x7d,
  V128 = 0x7b;
const simd = (op) => [0xfd, ...leb(op)];
const get = (i) => [0x20, i],
  set = (i) => [0x21, i],
  tee = (i) => [0x22, i];
const i32 = (n) => [0x41, ...sleb(n)];
const load = (offset) => [...simd(0x00), 2, ...leb(offset)]; // align 4: rows are float-aligned
const store = (offset) => [...simd(0x0b), 2, ...leb(offset)];
const op = {
  add: simd(0xe4),
  sub: simd(0xe5),
  mul: simd(0xe6),
  lt: simd(0x43), // f32x4
  iadd: simd(0xae),
  isub: simd(0xb1),
  shl: simd(0xab),
  shr: simd(0xac), // i32x4 (shr_s)
  andnot: simd(0x4f),
  // i32x4.relaxed_laneselect a b mask: a where the mask's lane is set; a comparison's mask (whole
  // lanes) selects the same on every engine, and V8 on x64 takes one vblendvps, not 3 instructions
  laneselect: simd(0x10b),
  madd: simd(0x105), // f32x4.relaxed_madd a b c: a * b + c, fused or not as the engine likes
};

// x(p, n, max): two groups of 4 per iteration, at p and at b = p + 16 (or p again when that is
// past the row: the same group twice, both loaded before either is stored), their steps
// interleaved, so that each group's chain of 17 dependent steps has the other's beside it:
// V8 schedules little, and the core's window fills with one chain's waiting steps. Locals: 0 p,
// 1 n, 2 max (params); 3 end, 4 b; v128: 5 m, then d, tm, q (i32x4), s, u, h (i32x4) per group.
// V8 rebuilds a splatted constant where it is used, inside the loop, even from a local set
// before it (2-4 instructions each), so the constants are globals (v128.const, 4 equal lanes),
// immutable: V8 loads each once per iteration for both groups (mutable ones it loads at every
// use, and with two groups it loads them all first and spills). Node 20, one row of 1,024:
// 0.70x the time of one group per iteration with mutable globals (three groups 0.62x, for 211
// bytes more). They are src/core/sleef.hpp's, in its order: tests/wasm/kernels.cpp compares
// them by bits.
const [p, n, max, end, b, m] = [0, 1, 2, 3, 4, 5];
const constants = [
  ['rln2', f32(Math.LOG2E)], // as float: 0x3fb8aa3b
  ['magic', f32(1.5 * 2 ** 23)], // the rounding's
  ['l2u', f32(-0.693145751953125)], // ln 2 in two parts
  ['l2l', f32(-1.428606765330187045e-6)],
  ['c0', f32(0.000198527617612853646278381)],
  ['c1', f32(0.00139304355252534151077271)],
  ['c2', f32(0.00833336077630519866943359)],
  ['c3', f32(0.0416664853692054748535156)],
  ['c4', f32(0.166666671633720397949219)],
  ['c5', f32(0.5)],
  ['one', f32(1)],
  ['under', f32(-104)],
  ['inf', f32(Infinity)],
  ['over', f32(100)],
  ['bias', [0x7f, 0, 0, 0]], // i32x4: the exponent's
];
const k = Object.fromEntries(constants.map(([key], i) => [key, [0x23, i]])); // global.get
const pow2i = [k.bias, ...op.iadd, ...i32(23), ...op.shl]; // e -> 2^e, normal floats
// One group's steps, at address a, over its six locals from `at`; each leaves the stack as it
// found it (the two groups' steps alternate).
const exp4 = (a, at) => {
  const [d, tm, q, s, u, h] = [0, 1, 2, 3, 4, 5].map((i) => at + i);
  return [
    [get(a), load(0), get(m), op.sub, set(d)], // d = w[j] - max
    // q = round(d / ln 2) to even, as cvtps does: adding 1.5 x 2^23 leaves it in the low bits
    // (|t| < 151; elsewhere the result is 0, inf or NaN whatever q is: exp_simd128.cpp)
    [get(d), k.rln2, op.mul, k.magic, op.add, tee(tm), k.magic, op.isub, set(q)],
    // steps 1-2: s = x - q ln 2, ln 2 in two parts (qf = tm - magic, exact)
    [get(tm), k.magic, op.sub, k.l2u, get(d), op.madd, set(s)],
    [get(tm), k.magic, op.sub, k.l2l, get(s), op.madd, set(s)],
    // steps 3-7: u = ((((c0 s + c1) s + c2) s + c3) s + c4) s + 0.5
    [
      [k.c0, get(s), k.c1, op.madd, get(s), k.c2, op.madd, get(s), k.c3, op.madd],
      [get(s), k.c4, op.madd, get(s), k.c5, op.madd, set(u)],
    ],
    // step 8: 1 + (s s u + s), times 2^h 2^(q - h), h = q >> 1, as vldexp2; x < -104: +0
    [
      [k.one, get(s), get(s), op.mul, get(u), get(s), op.madd, op.add],
      [get(q), i32(1), op.shr, tee(h), pow2i, op.mul, get(q), get(h), op.isub, pow2i, op.mul],
      [get(d), k.under, op.lt, op.andnot, set(u)],
    ],
    [get(a), k.inf, get(u), k.over, get(d), op.lt, op.laneselect, store(0)], // 100 < x: inf
  ];
};
const [first, second] = [exp4(p, m + 1), exp4(b, m + 7)];
const rows = [
  [get(p), get(n), i32(2), 0x74 /* i32.shl */, 0x6a /* i32.add */, set(end)],
  [get(max), simd(0x13), set(m)],
  [0x02, 0x40, 0x03, 0x40], // block, loop
  [get(p), get(end), 0x4f /* i32.ge_u */, 0x0d, 1], // br_if out of the block
  // b = p + 16 < end ? p + 16 : p
  [get(p), i32(16), 0x6a, tee(b), get(p), get(b), get(end), 0x49 /* i32.lt_u */, 0x1b, set(b)],
  first.map((step, i) => [step, second[i]]),
  [get(p), i32(32), 0x6a, set(p), 0x0c, 0, 0x0b, 0x0b], // p += 32, br to the loop; end; end
  0x0b,
].flat(Infinity);
const fmaCheck = [get(0), get(0), load(0), get(0), load(16), get(0), load(32), op.madd];
const check = [...fmaCheck, ...store(48), 0x0b].flat(Infinity);

const code = (locals, body) => {
  const fn = [vec(...locals.map(([count, type]) => [leb(count), type])), body].flat(Infinity);
  return [leb(fn.length), fn];
};
const bytes = Uint8Array.from(
  [
    [0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    section(1, vec([0x60, vec(I32, I32, F32), vec()], [0x60, vec(I32), vec()])),
    section(2, vec([name('e'), name('m'), 0x02, 0x00, 0])), // memory, at least 0 pages
    section(3, vec(0, 1)),
    section(6, vec(...constants.map(([, x]) => [V128, 0, simd(0x0c), x, x, x, x, 0x0b]))), // immutable
    section(7, vec([name('x'), 0x00, 0], [name('f'), 0x00, 1])),
    section(
      10,
      vec(
        code(
          [
            [2, I32],
            [13, V128],
          ],
          rows,
        ),
        code([], check),
      ),
    ),
  ].flat(Infinity),
);

const [inc, wasm] = process.argv.slice(2);
if (!inc) throw new Error('usage: node exp-relaxed-module.js OUT.inc [OUT.wasm]');
fs.writeFileSync(
  inc,
  `// ${bytes.length} bytes written by src/wasm/exp-relaxed-module.js\n${bytes.join(',')}\n`,
);
if (wasm) fs.writeFileSync(wasm, bytes);
