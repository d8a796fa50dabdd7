// Hostile and careless JS inputs thrown at api.run in a loop: each call
// returns or throws an Error naming the problem within a bound far below the seconds the old
// reader took, and afterwards the module's heap, memory and live Embind handles are as they
// were and it still computes the book. The bound is a hang detector, not a benchmark.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadApi, sameBits, BOOK_INPUTS } = require('./support');

const BOUND_MS = 2000;

function throwing(key, what) {
  return Object.defineProperty({}, key, {
    enumerable: true,
    get() {
      throw what;
    },
  });
}
function cyclic(levels) {
  const a = [];
  for (let i = 0; i < levels; i++) a.push(a);
  return a;
}
// A proxy whose every property is another such proxy: infinitely deep, never cyclic.
function bottomless() {
  const p = new Proxy(
    {},
    {
      ownKeys: () => ['inputs'],
      getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true }),
      get: () => p,
    },
  );
  return p;
}
const revoked = Proxy.revocable({}, {});
revoked.revoke();
const manyKeys = Object.fromEntries(Array.from({ length: 1e5 }, (_, i) => ['k' + i, i]));
const hugeArray = new Array(3e7);
const hugeStrings = Array(1e5).fill('x'.repeat(1e5));
const longStrings = Array(1000).fill('x'.repeat(1e5));
const hugeTyped = new Float64Array(3e7);
const wide = Array.from({ length: 1024 }, () => Array.from({ length: 1024 }, () => [1]));
const NESTED = /is nested too deeply: a configuration has at most 8 levels/;

// [name, config, expected: an exact message, a RegExp, or null for a result].
const CASES = [
  ['dropout Infinity', { dropout: Infinity }, '"dropout" must be between 0 and 1 (got inf)'],
  ['dropout NaN', { dropout: NaN }, '"dropout" must be between 0 and 1 (got nan)'],
  [
    'class_dropout -Infinity',
    { class_dropout: -Infinity },
    '"class_dropout" must be between 0 and 1 (got -inf)',
  ],
  ['d_out Infinity', { d_out: Infinity }, /^"d_out" must be an integer between 1 and 1024/],
  ['seed NaN', { seed_weights: NaN }, /^"seed_weights" must be an integer/],
  ['inputs -Infinity', { inputs: [[-Infinity]] }, /^"inputs"\[0\]\[0\] is not a finite float32/],
  ['cyclic, 8 levels', { inputs: cyclic(8) }, NESTED],
  ['cyclic, 12 levels', { inputs: cyclic(12) }, NESTED],
  ['cyclic object', (() => ((o) => ((o.inputs = o), o))({}))(), NESTED],
  ['bottomless proxy', bottomless(), NESTED],
  [
    'tokens: new Array(3e7)',
    { tokens: hugeArray },
    '"tokens" has 30000000 elements; at most 1024 are supported',
  ],
  [
    "tokens: Array(1e5).fill('x'.repeat(1e5))",
    { tokens: hugeStrings },
    '"tokens" has 100000 elements; at most 1024 are supported',
  ],
  [
    "tokens: Array(1000).fill('x'.repeat(1e5))",
    { tokens: longStrings },
    '"tokens"[1] makes the configuration\'s strings longer than 106496 bytes in all',
  ],
  [
    'inputs: Float64Array(3e7)',
    { inputs: hugeTyped },
    '"inputs" has 30000000 elements; at most 1024 are supported',
  ],
  ['1e5 keys', manyKeys, 'the configuration has more than 1024 keys'],
  [
    '1024 x 1024 x [1]',
    { inputs: wide },
    '"inputs"[3] makes the configuration hold more than 4160 array elements and keys',
  ],
  ['getter throws 1', throwing('d_out', 1), '"d_out" could not be read (it threw 1)'],
  [
    'nested getter throws an Error',
    {
      inputs: [
        [1, 2],
        Object.defineProperty([1, 2], 1, {
          get() {
            throw new Error('boom');
          },
        }),
      ],
    },
    '"inputs"[1][1] could not be read (it threw Error: boom)',
  ],
  [
    'getter throws an unprintable object',
    throwing('rng', { toString: () => { throw 2; } }), // prettier-ignore
    '"rng" could not be read (it threw an exception)',
  ],
  [
    'ownKeys trap throws',
    new Proxy({}, { ownKeys: () => { throw new TypeError('no keys'); } }), // prettier-ignore
    'the configuration could not be read (it threw TypeError: no keys)',
  ],
  [
    'revoked proxy',
    { tokens: revoked.proxy },
    /^"tokens" could not be read \(it threw TypeError: /,
  ],
  ['BigInt seed', { seed_weights: 2n ** 64n - 1n }, null],
  [
    'BigInt d_out',
    { d_out: 10n ** 30n },
    '"d_out" must be an integer between 1 and 1024 (got 1000000000000000000000000000000)',
  ],
  ['symbol value (left out, like JSON)', { d_out: Symbol('x') }, null],
  ['symbol key', { [Symbol('k')]: 1 }, null],
  ['symbol token', { tokens: [Symbol('t')] }, '"tokens" must contain only strings (got null)'],
  ['function value', { inputs: () => 1 }, null],
  ['typed-array rows', { inputs: [new Float32Array([1, 2, 3]), new Int8Array([4, 5, 6])] }, null],
  ['BigInt64Array row', { inputs: [new BigInt64Array([1n, 2n])] }, null],
  ['sparse row', { inputs: [[1, , 3]] }, '"inputs"[0][1] must be a finite number (got null)'], // eslint-disable-line no-sparse-arrays
  ['sparse tokens', { tokens: new Array(6) }, '"tokens" must contain only strings (got null)'],
  ['"__proto__" key', JSON.parse('{"__proto__": 1}'), /^unknown configuration key "__proto__"/],
  ['null', null, 'the configuration must be a JSON object (got null)'],
  ['a number', 5, 'the configuration must be a JSON object (got a number)'],
  ['a Date', { inputs: new Date(0) }, '"inputs": an object needs "randn": [tokens, d_in]'],
];

test('hostile inputs: each call returns or throws its message in bounded time, nothing leaks', async (t) => {
  const api = await loadApi();
  const once = ([name, config, want]) => {
    const start = performance.now();
    let error = null;
    try {
      api.run(config);
    } catch (e) {
      error = e;
    }
    const ms = performance.now() - start;
    assert.ok(ms < BOUND_MS, `${name}: ${ms.toFixed(0)} ms`);
    if (want === null) assert.equal(error, null, `${name}: ${error && error.message}`);
    else {
      assert.ok(error instanceof Error, `${name}: did not throw an Error`);
      if (want instanceof RegExp) assert.match(error.message, want, name);
      else assert.equal(error.message, want, name);
    }
    return ms;
  };
  // Warm-up, two rounds: the first allocations, then the allocator's settling (dlmalloc hands
  // out a whole free chunk when its remainder is too small to split: a call's first round after
  // the warm-up once read +8 B in use, on a heap laid out differently, and never again).
  CASES.forEach(once);
  CASES.forEach(once);
  const heap = api.heapInUse(),
    memory = api.memoryBytes(),
    handles = api.liveHandles();
  let slowest = 0;
  for (let round = 0; round < 5; round++) {
    for (const c of CASES) slowest = Math.max(slowest, once(c));
  }
  t.diagnostic(`${CASES.length} inputs x 5: slowest call ${slowest.toFixed(1)} ms`);
  assert.equal(api.heapInUse(), heap);
  assert.equal(api.memoryBytes(), memory);
  assert.equal(api.liveHandles(), handles);
});

test('9,000 calls with a throwing getter each throw and leak no wasm stack or handles', async () => {
  const api = await loadApi();
  const book = api.run({}).stages.find((s) => s.id === 'context_vecs').data;
  const heap = api.heapInUse(),
    handles = api.liveHandles();
  for (let i = 0; i < 9000; i++) {
    assert.throws(
      () =>
        api.run({
          get d_out() {
            throw 1;
          },
        }),
      { message: '"d_out" could not be read (it threw 1)' },
    );
  }
  assert.equal(api.heapInUse(), heap);
  assert.equal(api.liveHandles(), handles);
  const again = api.run({}).stages.find((s) => s.id === 'context_vecs').data;
  assert.ok(again.every((x, i) => sameBits(x, book[i])));
});

test("non-finite numbers throw the CLI's message and the module keeps working", async () => {
  const api = await loadApi();
  for (const [config, got] of [
    [{ dropout: Infinity }, 'inf'],
    [{ dropout: -Infinity }, '-inf'],
    [{ dropout: NaN }, 'nan'],
    [{ class_dropout: -1e999 }, '-inf'], // eslint-disable-line no-loss-of-precision -- the issue's input
  ]) {
    const key = Object.keys(config)[0];
    assert.throws(() => api.run(config), {
      message: `"${key}" must be between 0 and 1 (got ${got})`,
    });
  }
  assert.equal(api.run({ dropout: 0.25 }).config.dropout, 0.25);
});

test('typed-array rows and -0 are read exactly', async () => {
  const api = await loadApi();
  const typed = api.run({
    inputs: [new Float32Array([0.43, -0, 0.89]), new Float64Array([1, 2, 3])],
  });
  const plain = api.run({
    inputs: [
      [Math.fround(0.43), -0, 0.89],
      [1, 2, 3],
    ],
  });
  const inputs = typed.stages[0].data;
  assert.ok(Object.is(inputs[1], -0));
  typed.stages.forEach((s, k) =>
    assert.ok(
      s.data.every((x, i) => sameBits(x, plain.stages[k].data[i])),
      s.id,
    ),
  );
});

test('seeds beyond 2^53 come back exact, as BigInt', async () => {
  const api = await loadApi();
  const w = api.run({
    seed_weights: 18446744073709551615n,
    inputs: { randn: [2, 2], seed: -(2n ** 63n) },
  });
  assert.equal(w.config.seed_weights, 18446744073709551615n);
  assert.equal(w.config.inputs.seed, 2n ** 63n); // two's complement, as torch.manual_seed
  assert.equal(w.config.seed_dropout, 123); // small seeds stay numbers
  assert.equal(api.run({ seed_weights: 2 ** 53 }).config.seed_weights, 2 ** 53);
});

test('a configuration within every limit but gigabytes big is refused before computing', async () => {
  // Issue 19 row 1: after 35-55 s, Aborted(), and 1.27 GB stayed in use.
  const api = await loadApi();
  const book = api.run({}).stages.find((s) => s.id === 'context_vecs').data;
  const heap = api.heapInUse();
  const big = { inputs: { randn: [1024, 1] }, d_out: 128, num_heads: 128 };
  const start = performance.now();
  assert.throws(() => api.run(big), {
    message:
      'this configuration needs about 5468 MiB for every stage; at most 1024 MiB are supported ' +
      '(T = 1024, 128 heads, d_out 128): ask for fewer stages, tokens or heads',
  });
  assert.ok(performance.now() - start < BOUND_MS);
  assert.throws(() => api.run(big, { stages: ['mha.attn_weights'] }), /needs about 1\d{3} MiB/);
  // What fits is computed: the final vectors without the (2, 128, 1024, 1024) intermediates.
  const fits = api.run(big, { stages: ['mha.context_vecs'] });
  assert.deepEqual(fits.stages[0].shape, [2, 1024, 128]);
  assert.ok(fits.stages[0].data.every(Number.isFinite));
  assert.ok(api.heapInUse() < heap + 1e6, `heap ${heap} -> ${api.heapInUse()}`);
  const again = api.run({}).stages.find((s) => s.id === 'context_vecs').data;
  assert.ok(again.every((x, i) => sameBits(x, book[i])));
});

// Issue 19 row 5: a page's code that runs inside the module (a setter the bindings hit, a
// toString they call) unwound C++ frames: 17.4 MB and 7,000 handles leaked per 1,000 calls
// and after 6,687 calls every call threw "memory access out of bounds".
const TAMPERING = [
  [
    'a throwing setter and a getter on Object.prototype.error',
    () =>
      Object.defineProperty(Object.prototype, 'error', {
        configurable: true,
        get: () => 'x',
        set() {
          throw new Error('setter');
        },
      }),
    () => delete Object.prototype.error,
  ],
  [
    'Object.prototype.error = "x"',
    () => (Object.prototype.error = 'x'),
    () => delete Object.prototype.error,
  ],
  [
    'a throwing getter and setter on Object.prototype.d_out',
    () =>
      Object.defineProperty(Object.prototype, 'd_out', {
        configurable: true,
        get() {
          throw new Error('getter');
        },
        set() {
          throw new Error('setter');
        },
      }),
    () => delete Object.prototype.d_out,
  ],
  [
    'a throwing %TypedArray%.prototype.set (Embind copies rows of numbers with it)',
    () => {
      const proto = Object.getPrototypeOf(Float64Array.prototype),
        own = proto.set;
      proto.set = function () {
        throw new Error('set');
      };
      return own;
    },
    (own) => (Object.getPrototypeOf(Float64Array.prototype).set = own),
  ],
  [
    "a throwing getter on %TypedArray%.prototype's length",
    () => {
      const proto = Object.getPrototypeOf(Float64Array.prototype),
        own = Object.getOwnPropertyDescriptor(proto, 'length');
      Object.defineProperty(proto, 'length', {
        configurable: true,
        get() {
          throw new Error('length');
        },
      });
      return own;
    },
    (own) => Object.defineProperty(Object.getPrototypeOf(Float64Array.prototype), 'length', own),
  ],
  [
    'a throwing BigInt.prototype.toString',
    () => {
      const own = BigInt.prototype.toString;
      BigInt.prototype.toString = () => {
        throw new Error('toString');
      };
      return own;
    },
    (own) => (BigInt.prototype.toString = own),
  ],
];

test('prototype tampering runs no page code inside the module; 8,000 failing runs leak nothing', async () => {
  const api = await loadApi();
  const book = api.run({}).stages.find((s) => s.id === 'context_vecs').data;
  const heap = api.heapInUse(),
    handles = api.liveHandles();
  for (const [name, install, remove] of TAMPERING) {
    const saved = install();
    try {
      for (let i = 0; i < 1000; i++) {
        assert.throws(() => api.run({ dropout: 2 }), {
          message: '"dropout" must be between 0 and 1 (got 2)',
        });
        assert.throws(() => api.run({ d_out: 10n ** 30n }), {
          message:
            '"d_out" must be an integer between 1 and 1024 (got 1000000000000000000000000000000)',
        });
      }
      const r = api.run({ seed_class: 2n ** 64n - 1n }, { stages: ['context_vecs'] });
      assert.equal(Object.getOwnPropertyNames(r).join(), 'config,stages', name);
      assert.equal(r.config.d_out, 2, name);
      assert.equal(r.config.seed_class, 2n ** 64n - 1n, name);
      assert.equal(Object.getPrototypeOf(r.config), Object.prototype, name);
      const ok = api.run({}).stages.find((s) => s.id === 'context_vecs').data;
      assert.ok(
        ok.every((x, i) => sameBits(x, book[i])),
        name,
      );
      const rows = api.run({ inputs: BOOK_INPUTS }, { stages: ['context_vecs'] }).stages[0].data;
      assert.ok(
        rows.every((x, i) => sameBits(x, book[i])),
        `${name}: the book's inputs as rows of numbers`,
      );
    } finally {
      remove(saved);
    }
  }
  assert.equal(api.heapInUse(), heap);
  assert.equal(api.liveHandles(), handles);
});

test('options: a wrong type or an unknown key is an Error naming the option', async () => {
  // Issue 19 row 6: these computed everything, or silently nothing.
  const api = await loadApi();
  for (const [options, message] of [
    [{ stages: 'inputs' }, 'the option "stages" must be an array of stage ids (got a string)'],
    [{ stages: 5 }, 'the option "stages" must be an array of stage ids (got a number)'],
    [{ stages: [5] }, 'the option "stages" must be an array of stage ids (got a number)'],
    [{ stage: ['inputs'] }, 'unknown option "stage" (options: stages, preset, shard, weightHeads)'],
    [
      { stages: ['inputs'], staegs: [] },
      'unknown option "staegs" (options: stages, preset, shard, weightHeads)',
    ],
    ['inputs', 'the options must be an object (got a string)'],
    [[], 'the options must be an object (got an array)'],
  ]) {
    assert.throws(() => api.run({}, options), { message }, JSON.stringify(options));
  }
  assert.equal(api.run({}, null).stages.length, api.run({}).stages.length);
  assert.deepEqual(
    api.run({}, { stages: ['inputs'] }).stages.map((s) => s.id),
    ['inputs'],
  );
});

test('a lone surrogate is named, never paired with its neighbour', async () => {
  // Issue 19 row 7: '\ud800a' became U+10061 and the 'a' was lost.
  const api = await loadApi();
  const tokens = (first) => [first, 'b', 'c', 'd', 'e', 'f'];
  for (const [config, message] of [
    [
      { tokens: tokens('\ud800a') },
      '"tokens"[0] is not valid Unicode: a lone surrogate U+D800 at index 0 (got "\\ud800a")',
    ],
    [
      { tokens: tokens('ok\udfff') },
      '"tokens"[0] is not valid Unicode: a lone surrogate U+DFFF at index 2 (got "ok\\udfff")',
    ],
    [
      { ['d_out\ud83d']: 1 },
      '"d_out\\ud83d" is not valid Unicode: a lone surrogate U+D83D at index 5 (got "d_out\\ud83d")',
    ],
  ]) {
    assert.throws(() => api.run(config), { message });
  }
  assert.equal(api.run({ tokens: tokens('\ud83d\ude80a') }).config.tokens[0], '🚀a');
});

// A library must not take over the process: Emscripten's defaults install handlers that turn
// every uncaught exception into its own rethrow and every unhandled rejection into a crash.
test("loading the module leaves Node's process handlers as they were", () => {
  const { spawnSync } = require('child_process');
  const { web } = require('./support');
  const script = `
    const before = ['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e));
    require(${JSON.stringify(require('path').join(web, 'causal-attention.js'))}).load().then((api) => {
      api.run({});
      const after = ['uncaughtException', 'unhandledRejection'].map((e) => process.listenerCount(e));
      process.stdout.write(JSON.stringify({ before, after }));
    });`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { before: [0, 0], after: [0, 0] });
});
