// The WebAssembly module in Node: the same numbers as PyTorch's golden files and as the
// native CLI, the same error messages, copies not views, and no leak over 10,000 runs.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadApi, value, goldenCases, runCli, sameBits, web } = require('./support');

test('load() caches its promise', async () => {
  const CA = require('./support').web + '/causal-attention.js';
  const ns = require(CA);
  assert.equal(ns.load(), ns.load());
  const api = await ns.load();
  assert.deepEqual(api.stageIds.slice(0, 3), [
    'inputs',
    'simple.attn_scores_q',
    'simple.attn_weights_q_tmp',
  ]);
  assert.equal(api.stageIds.at(-1), 'kv.context_vecs');
  assert.deepEqual(Object.keys(api.presets), ['book', 'gpt2']);
});

test('every golden configuration equals PyTorch bit for bit', async (t) => {
  const api = await loadApi();
  let values = 0;
  // Not the bonus notebook's stages: they have their own files, below.
  const chapter = new Set(['inputs', 'simple', 'v1', 'sa', 'wrapper', 'mha', 'kv']);
  for (const g of goldenCases()) {
    const w = api.run(g.config);
    w.stages = w.stages.filter((s) => chapter.has(api.stages.find((x) => x.id === s.id).part));
    assert.deepEqual(
      w.stages.map((s) => s.id),
      g.stages.map((s) => s.id),
      g.name,
    );
    w.stages.forEach((s, k) => {
      const gs = g.stages[k];
      assert.deepEqual(s.shape, gs.shape, `${g.name} ${s.id}`);
      assert.ok(s.data instanceof Float32Array);
      s.data.forEach((got, i) => {
        const want = value(gs.data[i]);
        values++;
        if (!sameBits(got, want))
          assert.fail(`${g.name} / ${s.id}[${i}]: got ${got}, PyTorch ${want}`);
      });
    });
  }
  t.diagnostic(`${values} values, every one bit-identical`);
});

test("every bonus golden configuration equals PyTorch bit for bit (the notebook's implementations)", async (t) => {
  const api = await loadApi();
  let values = 0;
  for (const g of goldenCases('bonus')) {
    if (g.error) {
      assert.throws(() => api.run(g.config, { stages: ['qkv.context_vecs'] }), /num_heads/);
      continue;
    }
    const w = api.run(g.config, { stages: g.stages.map((s) => s.id) });
    assert.deepEqual(
      w.stages.map((s) => s.id),
      g.stages.map((s) => s.id),
      g.name,
    );
    w.stages.forEach((s, k) => {
      assert.deepEqual(s.shape, g.stages[k].shape, `${g.name} ${s.id}`);
      s.data.forEach((got, i) => {
        const want = value(g.stages[k].data[i]);
        values++;
        if (!sameBits(got, want))
          assert.fail(`${g.name} / ${s.id}[${i}]: got ${got}, PyTorch ${want}`);
      });
    });
  }
  t.diagnostic(`${values} values, every one bit-identical`);
});

test("stages equal the native CLI's JSON bit for bit, and the config exactly", async (t) => {
  const api = await loadApi();
  const exact = require(web + '/causal-attention.js').json.parse; // seeds beyond 2^53 as BigInt
  let compared = 0,
    identical = 0;
  for (const g of goldenCases()) {
    const native = runCli(g.configText, [], exact);
    const w = api.run(g.config);
    assert.deepEqual(
      w.stages.map((s) => [s.id, s.title, s.code, s.shape]),
      native.stages.map((s) => [s.id, s.title, s.code, s.shape]),
      g.name,
    );
    assert.deepEqual(Object.keys(w.config), Object.keys(native.config), g.name);
    for (const key of Object.keys(native.config)) {
      const want =
        key === 'inputs' && Array.isArray(native.config.inputs)
          ? native.config.inputs.map((r) => r.map(Math.fround))
          : native.config[key];
      assert.deepEqual(w.config[key], want, `${g.name} config.${key}`);
    }
    w.stages.forEach((s, k) =>
      s.data.forEach((v, i) => {
        compared++;
        const n = value(native.stages[k].data[i]);
        if (sameBits(v, n)) identical++;
        else assert.fail(`${g.name} ${s.id}[${i}]: wasm ${v}, native ${n}`);
      }),
    );
  }
  t.diagnostic(`${compared} values compared with the CLI, ${identical} bit-identical`);
  assert.equal(identical, compared);
});

test("invalid configurations throw the CLI's message and the module keeps working", async () => {
  const api = await loadApi();
  const bad = [
    { d_out: 0 },
    { dropout: 1.5 },
    { class_dropout: -0.5 },
    { foo: 1 },
    { inputs: [] },
    { inputs: [[1, 2], [3]] },
    { inputs: [[1, 'x']] },
    { inputs: [[1e39]] },
    { tokens: ['a'] },
    { rng: 'intel' },
    { seed_weights: 1.5 },
    { context_length: 3 },
    { train: 'yes' },
    { inputs: { randn: [2000, 3] } },
    { inputs: { randn: [2, 2], bad: 1 } },
    { d_out: 2.5 },
  ];
  for (const config of bad) {
    const native = runCli(config);
    assert.equal(native.code, 2, JSON.stringify(config));
    const message = native.stderr.trim().replace(/^causal-attention: /, '');
    assert.throws(
      () => api.run(config),
      (e) => e instanceof Error && e.message === message,
      JSON.stringify(config),
    );
  }
  assert.throws(() => api.run([1, 2]), /the configuration must be a JSON object \(got an array\)/);
  assert.throws(() => api.run({ inputs: [[NaN]] }), /not a finite float32 number/);
  assert.equal(api.run({}).stages.length, 86); // 60 of the chapter, 18 of the bonus notebook, 8 of the KV cache
  // MultiHeadAttention's divisibility, asked for through the stages option, and unknown ids.
  for (const [config, stages] of [
    [{ d_out: 3 }, ['mha.context_vecs']],
    [{}, ['nope']],
  ]) {
    const native = runCli(config, ['--stage', stages[0]]);
    assert.equal(native.code, 2);
    if (stages[0] !== 'nope') {
      assert.throws(
        () => api.run(config, { stages }),
        (e) => e.message === native.stderr.trim().replace(/^causal-attention: /, ''),
      );
    } else {
      assert.throws(() => api.run(config, { stages }), /unknown stage "nope"/);
    }
  }
  assert.throws(() => api.run({}, { preset: 'gpt3' }), /unknown preset "gpt3"/);
  assert.deepEqual(
    api.run({}, { stages: ['mha.context_vecs', 'inputs'] }).stages.map((s) => s.id),
    ['inputs', 'mha.context_vecs'],
  );
});

test('bigint seeds are exact beyond 2^53', async () => {
  const api = await loadApi();
  const native = runCli('{"seed_weights": 18446744073709551615}');
  const w = api.run({ seed_weights: 18446744073709551615n });
  assert.equal(w.config.seed_weights, 18446744073709551615n);
  const wq = (r) => r.stages.find((s) => s.id === 'W_query').data;
  assert.deepEqual(Array.from(wq(w)), wq(native).map(Math.fround));
  assert.notDeepEqual(Array.from(wq(api.run({ seed_weights: 2 ** 64 - 2048 }))), Array.from(wq(w)));
});

test('stage data are copies owned by JS, not views of wasm memory', async () => {
  const api = await loadApi();
  const first = api.run({});
  const scores = first.stages.find((s) => s.id === 'attn_scores').data;
  assert.equal(scores.buffer.byteLength, scores.byteLength);
  const before = scores[0];
  scores.fill(42);
  api.run({ d_out: 8, inputs: { randn: [32, 8] } });
  assert.equal(api.run({}).stages.find((s) => s.id === 'attn_scores').data[0], before);
});

test('10,000 runs leave wasm memory and Embind handles as they were', async (t) => {
  const api = await loadApi();
  const configs = [
    {},
    { qkv_bias: true, rng: 'mkl' },
    { d_out: 0 },
    { inputs: { randn: [9, 4], seed: 1 } },
    { foo: 1 },
  ];
  const runAll = (n) => {
    for (let i = 0; i < n; i++) {
      try {
        api.run(configs[i % configs.length]);
      } catch (e) {
        /* the invalid ones */
      }
    }
  };
  runAll(50);
  const heap = api.heapInUse(),
    memory = api.memoryBytes(),
    handles = api.liveHandles();
  runAll(10000);
  t.diagnostic(
    `heap in use ${heap} -> ${api.heapInUse()} bytes, memory ${memory} -> ${api.memoryBytes()} bytes, live handles ${handles} -> ${api.liveHandles()}`,
  );
  assert.equal(api.heapInUse(), heap);
  assert.equal(api.memoryBytes(), memory);
  assert.equal(api.liveHandles(), handles);
});

test("each run's titles and PyTorch lines are its own, however long (the bindings reuse their JS strings)", async () => {
  const api = await loadApi();
  // 600 tokens of 3 values: an inputs line of ~13,000 characters, past what the bindings keep.
  const big = (v) => ({ inputs: Array.from({ length: 600 }, (_, i) => [v, i / 8, 1.5]) });
  const book = api.run({}).stages;
  const line = (r, id) => r.stages.find((s) => s.id === id).code;
  for (const v of [0.25, 0.75]) {
    const r = api.run(big(v));
    assert.ok(line(r, 'inputs').length > 4096, line(r, 'inputs').length);
    assert.ok(
      line(r, 'inputs').startsWith(`inputs = torch.tensor([[${v}, 0.0, 1.5], [${v}, 0.125, 1.5]`),
    );
    assert.equal(line(r, 'context_vecs'), book.find((s) => s.id === 'context_vecs').code);
    const again = api.run({ dropout: v });
    assert.equal(line(again, 'inputs'), book[0].code);
    assert.match(line(again, 'dropout_example'), new RegExp(`Dropout\\(${v}\\)`));
    assert.deepEqual(
      api.run({}).stages.map((s) => [s.id, s.title, s.code]),
      book.map((s) => [s.id, s.title, s.code]),
    );
  }
});
