// The page's "as PyTorch prints" numbers (render.torchFormat) against print() itself
// (tests/golden/torch_format.json, written by PyTorch) and against the CLI's torch format on
// every golden configuration: the same text for every number print() shows.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { root, cli, loadApi, value, goldenCases } = require('./support');

// The numbers of a printed tensor, in order ("..." left out).
const tokens = (text) =>
  text
    .replace(/^tensor\(|\)$/g, '')
    .split(/[[\],\s]+/)
    .filter((t) => t && t !== '...');
// A format golden's values: written out, or torch.randn(shape) after torch.manual_seed(c.randn),
// which the core rebuilds bit for bit as the inputs {"randn": [numel / last, last], "seed"}.
function values(api, c) {
  if (!('randn' in c)) return Float32Array.from(c.data.map(value));
  const last = c.shape[c.shape.length - 1],
    n = c.shape.reduce((a, b) => a * b, 1);
  const config = { inputs: { randn: [n / last, last], seed: c.randn } };
  return api.run(config, { stages: ['inputs'] }).stages[0].data;
}

test('torchFormat prints like print() on the format goldens (int, sci, nan, -0, summarised)', async () => {
  const CA = require(path.join(require('./support').web, 'causal-attention.js'));
  const api = await loadApi();
  const cases = JSON.parse(
    fs.readFileSync(path.join(root, 'tests/golden/torch_format.json'), 'utf8'),
  );
  for (const c of cases) {
    const st = { shape: c.shape, data: values(api, c) };
    const f = CA.render.torchFormat(st);
    assert.deepEqual(
      CA.render.shownIndices(c.shape).map((k) => f(st.data[k])),
      tokens(c.str),
      c.name,
    );
  }
});

test("torchFormat equals the CLI's torch format on every stage of every golden configuration", async () => {
  const api = await loadApi(),
    CA = require(path.join(require('./support').web, 'causal-attention.js'));
  let numbers = 0;
  for (const g of goldenCases()) {
    const out = spawnSync(cli, ['--config', '-', '--format', 'torch'], {
      maxBuffer: 1 << 28,
      input: g.configText,
      encoding: 'utf8',
    }).stdout;
    const printed = out
      .split(/^# /m)
      .slice(1)
      .map((block) => ({
        id: block.split(':')[0],
        text: block.slice(block.indexOf('\ntensor(') + 1),
      }));
    const res = api.run(g.config);
    assert.deepEqual(
      printed.map((p) => p.id),
      res.stages.map((s) => s.id),
      g.name,
    );
    res.stages.forEach((st, n) => {
      const f = CA.render.torchFormat(st),
        want = tokens(printed[n].text.trim());
      assert.deepEqual(
        CA.render.shownIndices(st.shape).map((k) => f(st.data[k])),
        want,
        `${g.name}: ${st.id}`,
      );
      numbers += want.length;
    });
  }
  assert.ok(numbers > 10000, `${numbers} numbers compared`);
});

test('printf ties round to even like C, not up like toFixed', async () => {
  const CA = require(path.join(require('./support').web, 'causal-attention.js'));
  const f = CA.render.torchFormat({
    shape: [4],
    data: Float32Array.from([0.03125, -0.03125, 0.09375, 0.5]),
  });
  assert.deepEqual([0.03125, -0.03125, 0.09375, 0.5, -0].map(f), [
    '0.0312',
    '-0.0312',
    '0.0938',
    '0.5000',
    '-0.0000',
  ]);
  const py = spawnSync(
    '/usr/bin/python3',
    ['-c', 'print(["%.4f" % x for x in (0.03125, -0.03125, 0.09375)])'],
    { encoding: 'utf8' },
  ).stdout;
  assert.equal(py.trim(), "['0.0312', '-0.0312', '0.0938']");
});

// Four decimals would show the blocked pass's difference from the plain softmax (~3e-8) as a
// table of 0.0000: a stage whose every nonzero value rounds to zero is shown as print() shows it.
test("the tables' text: 4 decimals, print()'s %.4e for a stage that 4 decimals would show as zeros", async () => {
  const CA = require(path.join(require('./support').web, 'causal-attention.js'));
  const api = await loadApi();
  const [ctx, diff] = api.run({}, { stages: ['mha.context_vecs', 'flash.difference'] }).stages;
  const shown = (st, opts = {}) => Array.from(st.data.slice(0, 4), CA.render.textOf(st, opts));
  assert.deepEqual(shown(ctx), ['0.3190', '0.4858', '0.2943', '0.3897']);
  assert.deepEqual(shown(diff), ['0.0000e+00', '0.0000e+00', '0.0000e+00', '-2.9802e-08']);
  assert.deepEqual(shown(ctx, { torch: true }), ['0.3190', '0.4858', '0.2943', '0.3897']);
  const zeros = { shape: [2, 2], data: new Float32Array(4) };
  assert.deepEqual(shown(zeros), ['0.0000', '0.0000', '0.0000', '0.0000']); // all zero: no news
});

// The same rule in what is copied out: the Markdown and LaTeX exports, and the CLI's Markdown,
// write such a stage as print() does, and every other stage with 4 decimals.
test("the Markdown and LaTeX exports and the CLI's Markdown: the tables' numbers", async () => {
  const CA = require(path.join(require('./support').web, 'causal-attention.js'));
  const api = await loadApi();
  const wt = api.run({}, { stages: ['mha.context_vecs', 'flash.difference'] });
  const cells = (md) =>
    md
      .split('\n')
      .filter((l) => /^\| \**(Your|journey|starts|with|one|step)\**/.test(l))
      .map((l) =>
        l
          .split('|')
          .slice(2, -1)
          .map((c) => c.trim()),
      );
  for (const [id, row1] of [
    ['flash.difference', ['0.0000e+00', '-2.9802e-08']],
    ['mha.context_vecs', ['0.2943', '0.3897']],
  ]) {
    const page = cells(CA.exports.text('markdown', wt, id, 0));
    assert.deepEqual(page[1], row1, id);
    const latex = CA.exports.text('latex', wt, id, 0).split(' \\\\\n')[1].split(' & ');
    assert.deepEqual(latex, row1, id);
    const out = spawnSync(cli, ['--format', 'markdown', '--stage', id], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    assert.deepEqual(cells(out.stdout.split('batch[1]')[0]), page, id); // every number of batch 0
  }
});
