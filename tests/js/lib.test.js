// The module's small JS helpers in Node: the Markdown cell rule shared with the CLI
// (tests/golden/markdown_cells.json), exact JSON for big seeds (Node 20 has no JSON.parse source
// text: this is the fallback path; Chromium's native path is tested in hardening.test.js),
// the main-thread budget and the non-finite notes.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { loadApi, root, web } = require('./support');

const CA = require(path.join(web, 'causal-attention.js'));

test('Markdown cells follow the rule shared with the CLI', () => {
  const cases = JSON.parse(
    fs.readFileSync(path.join(root, 'tests/golden/markdown_cells.json'), 'utf8'),
  );
  assert.ok(cases.length >= 7);
  for (const [input, output] of cases) assert.equal(CA.exports.markdownCell(input), output, input);
});

test('JSON with seeds beyond 2^53: parsed as BigInt, written digit for digit', () => {
  const text =
    '{"seed_weights":18446744073709551615,"tokens":["12345678901234567890"],' +
    '"inputs":{"randn":[2,3],"seed":-9223372036854775808},"dropout":1e400,"d_out":9007199254740991}';
  const c = CA.json.parse(text);
  assert.equal(c.seed_weights, 18446744073709551615n);
  assert.equal(c.inputs.seed, -9223372036854775808n);
  assert.deepEqual(c.tokens, ['12345678901234567890']); // strings stay strings
  assert.equal(c.dropout, Infinity);
  assert.equal(c.d_out, Number.MAX_SAFE_INTEGER); // safe integers stay numbers
  assert.equal(CA.json.stringify(c).replace('null', '1e400'), text); // Infinity: JSON has none
  assert.equal(
    CA.json.stringify({ s: 2n ** 64n - 1n, t: ['\u0000x'] }),
    '{"s":18446744073709551615,"t":["\\u0000x"]}',
  );
  assert.throws(() => CA.json.parse('{"a":12345678901234567890'), SyntaxError);
});

test('the budget refuses sizes that would block the main thread for more than about 1 s', async () => {
  await CA.load(); // the cost is the core's (api.cost)
  const { check } = CA.budget;
  assert.equal(check({}), '');
  assert.equal(check({ inputs: { randn: [512, 64] }, d_out: 64 }), '');
  // The sizes the message names fit (the bonus notebook's forwards and the KV cache's, issue 23,
  // added work: (256, 512), (1024, 128) and (768, 128) fitted before them).
  assert.equal(check({ inputs: { randn: [256, 384] }, d_out: 384 }), '');
  assert.equal(check({ inputs: { randn: [640, 128] }, d_out: 128 }), '');
  // The time it names is above the budget it names (both of api.run; rendering adds 0.2-0.4 s).
  assert.match(
    check({ inputs: { randn: [768, 128] }, d_out: 128 }),
    /busy for about 0\.62 s \(it computes sizes up to about 0\.60 s on the main thread, e\.g\. T = 640 /,
  );
  assert.match(check({ inputs: { randn: [1024, 128] }, d_out: 128 }), /about 1\.0 s \(/);
  assert.match(
    check({ inputs: { randn: [512, 512] }, d_out: 512 }),
    /^T = 512, d_in = 512, d_out = 512 would/,
  );
  assert.match(
    check({ inputs: { randn: [1024, 1024] }, d_out: 1024 }),
    /^T = 1024, d_in = 1024, d_out = 1024 would keep the page busy for about 14\.8 s \(it computes/,
  );
  const rows = Array.from({ length: 1024 }, () => [1, 2, 3]);
  assert.match(check({ inputs: rows, d_out: 512 }), /^T = 1024, d_in = 3, d_out = 512/);
  assert.equal(check({ inputs: { randn: ['x', 3] } }), ''); // the core names that problem
});

test("api.cost is the core's cost model: the page's budget and the 1 GiB limit read it", async () => {
  const api = await CA.load();
  const book = api.cost({});
  assert.deepEqual(Object.keys(book), ['bytes', 'work', 'multiply_adds']);
  // T = 6, d_in = 3, d_out = 2, 2 heads, context_length 6: 36·30.36 + 36 + 0.18·2·36
  // (summed over the parts the run computes: the same count to the last few bits), plus the
  // bonus notebook's 4 forwards and the KV cache's one, each costed as mha.attn_weights (mha below)
  const mha = (6 * 0.4 * 36) / 17 + 2.25 * 36 * 4 + 0.015 * 36 * 2 * 2;
  assert.ok(
    Math.abs(book.work - (36 * (30 + 0.18 * 2) + 6 * 3 * 2 + 0.18 * 2 * 6 * 6 + 5 * mha)) < 1e-9,
  );
  // A run of some stages costs the parts they need (ca::run_cost's Plan): one (T, T) map for
  // §3.3.2, nothing for the inputs, MultiHeadAttention alone for its weights.
  assert.ok(Math.abs(api.cost({}, { stages: ['simple.attn_weights'] }).work - 2.25 * 36) < 1e-9);
  assert.equal(api.cost({}, { stages: ['inputs'] }).work, 0);
  assert.equal(api.cost({}, { stages: [] }).work, 0);
  assert.ok(Math.abs(api.cost({}, { stages: ['mha.attn_weights'] }).work - mha) < 1e-9);
  assert.ok(Math.abs(CA.budget.work({}, ['mha.attn_weights']) - mha) < 1e-9);
  const gpt2 = api.presets.gpt2.config;
  assert.ok(api.cost({}, { preset: 'gpt2' }).work * 18 < api.cost(gpt2).work);
  assert.throws(() => api.cost({}, { stages: ['nope'] }), /unknown stage "nope"/);
  assert.throws(() => api.cost({}, { stage: [] }), /unknown option "stage"/);
  assert.equal(book.multiply_adds, 4 * 6 * (6 + 3) * 2 * (1 + 5));
  assert.equal(CA.budget.work({}), book.work);
  // A run the core refuses for its bytes costs more than 1 GiB by the same count.
  const huge = { inputs: { randn: [1024, 1] }, d_out: 128, num_heads: 128 };
  assert.ok(api.cost(huge).bytes > 2 ** 30);
  assert.throws(() => api.run(huge), /needs about \d+ MiB/);
  assert.ok(api.cost({ inputs: { randn: [1024, 1] }, d_out: 64, num_heads: 8 }).bytes < 2 ** 30);
  assert.throws(() => api.cost({ d_out: 0 }), /"d_out"/);
});

test("non-finite notes: where inf and NaN first appear, not the mask's −∞", async () => {
  const api = await loadApi();
  assert.deepEqual(CA.nonFinite(api.run({})), {});
  const big = CA.nonFinite(
    api.run({
      inputs: [
        [3e38, 3e38, 3e38],
        [-3e38, 3e38, -3e38],
      ],
    }),
  );
  const noScale = CA.nonFinite(
    api.run({
      inputs: [
        [1e30, 1e30],
        [1e30, -1e30],
      ],
      scale: false,
    }),
  );
  for (const notes of [big, noScale]) {
    const ids = Object.keys(notes);
    assert.ok(ids.length >= 1 && ids.length <= 2, ids.join());
    assert.ok(ids.every((id) => /PyTorch gives the same inf and NaN/.test(notes[id])));
  }
  assert.match(noScale['simple.attn_scores_q'], /^Values overflow float32 here/); // §3.3 first
  assert.ok(!('masked' in noScale) && !('mask' in noScale));
});
