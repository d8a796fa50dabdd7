// The notebook's names and runnable code (issue 20, items 6 and 7): every stage's PyTorch line is
// valid Python and uses the book's variable names for the query token; the sections are the
// book's; the exported notebook (api.notebook, the CLI's --format ipynb), run by Debian's
// PyTorch cell by cell in one namespace, prints every stage with the module's bits.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { spawnSync } = require('child_process');
const fs = require('fs');
const { loadApi, cli, root, web } = require('./support');
const { browserSuite, settled } = require('./browser');

const PYTHON = '/usr/bin/python3'; // Debian's, with python3-torch
const RUNNER = path.join(root, 'tests/notebook/run.py');

// The book, and two others: randn inputs with qkv_bias (query token 3 of 5), and multi-head
// with dropout in both modules and the demo.
const NOTEBOOKS = {
  book: {},
  'randn inputs, qkv_bias': {
    inputs: { randn: [5, 4], seed: 7 },
    d_out: 3,
    qkv_bias: true,
    query_token: 3,
  },
  'three heads, dropout': { d_out: 6, num_heads: 3, class_dropout: 0.2, dropout: 0.25 },
  // d_in = d_out: nn.MultiheadAttention (ch03/02.7) runs too; head_dim 2, √2 inexact
  'nn.MultiheadAttention, no scale': {
    inputs: { randn: [7, 6], seed: 2 },
    d_out: 6,
    num_heads: 3,
    class_dropout: 0.1,
    scale: false,
  },
};
// More configurations for the code lines alone.
const CONFIGS = [
  ...Object.values(NOTEBOOKS),
  { query_token: 0 },
  { query_token: 5, scale: false },
  { train: false, rng: 'mkl' },
  { inputs: { randn: [1, 2] }, num_heads: 1 },
  { d_out: 5, num_heads: 2 }, // no MultiHeadAttention: its stages are left out
];

const suite = browserSuite();

function python(args, input) {
  const r = spawnSync(PYTHON, [RUNNER, ...args], { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("every stage's PyTorch line is valid Python (ast.parse), in every configuration", async () => {
  const api = await loadApi();
  const codes = CONFIGS.flatMap((c) => api.run(c).stages.map((s) => s.code));
  assert.ok(codes.length > 400, `${codes.length} lines`);
  assert.deepEqual(python(['--syntax'], JSON.stringify(codes)), []);
});

test("the query token's stages use the book's names: query_2, attn_scores_2, ...", async () => {
  const api = await loadApi();
  const names = (config) => Object.fromEntries(api.run(config).stages.map((s) => [s.id, s.code]));
  const book = names({});
  // The book's §3.3.1 and §3.4.1 cells, line for line (rasbt/LLMs-from-scratch ch03.ipynb).
  assert.equal(
    book['simple.attn_scores_q'],
    'query = inputs[1]  # x^(2), the query\nattn_scores_2 = torch.empty(inputs.shape[0])\n' +
      'for i, x_i in enumerate(inputs):\n    attn_scores_2[i] = torch.dot(x_i, query)',
  );
  assert.equal(
    book['simple.attn_weights_q_tmp'],
    'attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()',
  );
  assert.equal(
    book['simple.attn_weights_q'],
    'attn_weights_2 = torch.softmax(attn_scores_2, dim=0)',
  );
  assert.equal(
    book['simple.context_vec_q'],
    'context_vec_2 = torch.zeros(query.shape)\nfor i, x_i in enumerate(inputs):\n' +
      '    context_vec_2 += attn_weights_2[i] * x_i',
  );
  assert.equal(book['v1.query_q'], 'x_2 = inputs[1]\nquery_2 = x_2 @ W_query');
  assert.equal(book['v1.attn_score_qq'], 'keys_2 = keys[1]\nattn_score_22 = query_2.dot(keys_2)');
  assert.equal(book['v1.attn_scores_q'], 'attn_scores_2 = query_2 @ keys.T');
  assert.equal(
    book['v1.attn_weights_q'],
    'attn_weights_2 = torch.softmax(attn_scores_2 / keys.shape[-1]**0.5, dim=-1)',
  );
  assert.equal(book['v1.context_vec_q'], 'context_vec_2 = attn_weights_2 @ values');
  // Another query token is named as the notebook would: x^(q+1).
  const first = names({ query_token: 0 });
  assert.equal(first['v1.attn_score_qq'], 'keys_1 = keys[0]\nattn_score_11 = query_1.dot(keys_1)');
  assert.equal(
    first['simple.attn_weights_q'],
    'attn_weights_1 = torch.softmax(attn_scores_1, dim=0)',
  );
  assert.equal(
    names({ query_token: 5 })['v1.context_vec_q'],
    'context_vec_6 = attn_weights_6 @ values',
  );
  // No stage's line names a variable with the old "_q" suffix.
  for (const config of CONFIGS)
    for (const s of api.run(config).stages) assert.doesNotMatch(s.code, /\w_qq?\b/, s.id);
});

test("the sections are the book's: numbers, titles, and where the 0.1921 row is", async () => {
  const api = await loadApi();
  assert.deepEqual(
    api.sections.map((s) => s.number + ' ' + s.title),
    [
      '3.3.1 A simple self-attention mechanism without trainable weights',
      '3.3.2 Computing attention weights for all input tokens',
      '3.4.1 Computing the attention weights step by step',
      '3.4.2 Implementing a compact self-attention Python class',
      '3.5.1 Applying a causal attention mask',
      '3.5.2 Masking additional attention weights with dropout',
      '3.5.3 Implementing a compact causal attention class',
      '3.6.1 Stacking multiple single-head attention layers',
      '3.6.2 Implementing multi-head attention with weight splits',
      // the bonus notebook (mha-implementations.ipynb), its folder and headings
      'ch03/02.3 An alternative multi-head attention with combined weights',
      'ch03/02.4 Multi-head attention with Einsum',
      "ch03/02.5 PyTorch's scaled dot product attention and FlashAttention",
      "ch03/02.7 Using PyTorch's torch.nn.MultiheadAttention",
      // Past the chapter: the book repository's folder as the number
      'ch04/03 Generating with a KV cache',
    ],
  );
  const number = (id) =>
    api.sections.find((x) => x.id === api.stages.find((s) => s.id === id).section).number;
  // The book prints attn_weights (0.1921 first) and both masks in §3.5.1, and exercise 3.1 in §3.4.2.
  assert.equal(api.run({}, { stages: ['attn_weights'] }).stages[0].data[0].toFixed(4), '0.1921');
  for (const id of [
    'attn_weights',
    'mask_simple',
    'masked_simple_norm',
    'mask',
    'attn_weights_causal',
  ])
    assert.equal(number(id), '3.5.1', id);
  assert.equal(number('v1_from_v2.context_vecs'), '3.4.2');
  assert.equal(number('dropout_example'), '3.5.2');
  assert.equal(number('context_vecs'), '3.5.3');
});

for (const [name, config] of Object.entries(NOTEBOOKS)) {
  test(`the notebook of "${name}", run by PyTorch, prints every stage bit for bit`, async () => {
    const api = await loadApi();
    const text = api.notebook(config);
    // The CLI writes the same notebook.
    const r = spawnSync(cli, ['--config', '-', '--format', 'ipynb'], {
      input: JSON.stringify(config),
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, text);
    const nb = JSON.parse(text);
    assert.equal(nb.nbformat, 4);
    const run = api.run(config);
    // Every stage, in the page's order, each under its section's heading.
    const cells = nb.cells.filter((c) => c.metadata.stage);
    assert.deepEqual(
      cells.map((c) => c.metadata.stage),
      run.stages.map((s) => s.id),
    );
    const headings = nb.cells.filter(
      (c) => c.cell_type === 'markdown' && c.source.startsWith('## '),
    );
    const used = [...new Set(run.stages.map((s) => api.stages.find((x) => x.id === s.id).section))];
    assert.deepEqual(
      headings.map((c) => c.source.split('\n')[0]),
      used
        .map((id) => api.sections.find((s) => s.id === id))
        .map((s) => `## ${s.number} ${s.title}`),
    );
    assert.match(nb.cells[1].source, /MKL/); // which dropout generator a reader's PyTorch takes
    // Run it: every printed tensor equals the module's, bit for bit.
    const file = path.join(require('os').tmpdir(), `ca-notebook-${process.pid}.ipynb`);
    fs.writeFileSync(file, text);
    const out = python([file]);
    fs.rmSync(file);
    assert.match(out.torch, /^1\.13/);
    assert.equal(out.stages.length, run.stages.length);
    out.stages.forEach((got, k) => {
      const want = run.stages[k];
      assert.equal(got.id, want.id);
      assert.deepEqual(got.shape, want.shape, want.id);
      const bits = [...new Uint32Array(Float32Array.from(want.data).buffer)];
      const diff = bits.findIndex((b, i) => b !== got.bits[i]);
      assert.equal(
        diff,
        -1,
        `${want.id}[${diff}]: PyTorch ${got.bits[diff]}, module ${bits[diff]}`,
      );
      assert.equal(got.bits.length, bits.length, want.id);
    });
  });
}

test("a reader's Ctrl+F for the notebook's variables finds their tables on the page", async () => {
  const w = await suite.open('', { viewport: { width: 1440, height: 900 } });
  await settled(w.page);
  const text = await w.page.evaluate(() =>
    Object.fromEntries(
      Array.from(document.querySelectorAll('#main [data-stage]'), (e) => [
        e.dataset.stage,
        e.innerText,
      ]),
    ),
  );
  const where = {
    query_2: 'v1.query_q',
    attn_scores_2: 'simple.attn_scores_q',
    attn_weights_2_tmp: 'simple.attn_weights_q_tmp',
    attn_weights_2_naive: 'simple.attn_weights_q_naive',
    attn_weights_2: 'simple.attn_weights_q',
    context_vec_2: 'simple.context_vec_q',
    attn_score_22: 'v1.attn_score_qq',
  };
  for (const [name, id] of Object.entries(where))
    assert.match(text[id] || '', new RegExp(`\\b${name} = `), `${name} in ${id}`);
  // A vector's one row is labelled with the variable (whole in the title when cut).
  const labels = await w.page.evaluate(
    (ids) =>
      ids.map((id) => {
        const th = document.querySelector(`#main [data-stage="${id}"] tbody th`);
        return th.title || th.textContent;
      }),
    Object.values(where),
  );
  assert.deepEqual(labels, Object.keys(where));
  // The loop shows on its own lines, as it is pasted into Python.
  assert.match(text['simple.attn_scores_q'], /\nfor i, x_i in enumerate\(inputs\):\n/);
  await suite.done(w);
});

test("the Notebook button under a table saves chapter3.ipynb: api.notebook of the page's configuration", async () => {
  const api = await loadApi();
  const H = require(path.join(web, 'causal-attention.js')).hash; // web/hash.js, as it ships
  const config = { query_token: 0, d_out: 4, num_heads: 2, qkv_bias: true };
  const w = await suite.open('#' + H.stringify(config), { viewport: { width: 1440, height: 900 } });
  const [download] = await Promise.all([
    w.page.waitForEvent('download'),
    w.page.locator('[data-stage="attn_weights_causal"] button[data-export=ipynb]').click(),
  ]);
  assert.equal(download.suggestedFilename(), 'chapter3.ipynb');
  const text = fs.readFileSync(await download.path(), 'utf8');
  assert.equal(text, api.notebook(config));
  assert.match(text, /attn_score_11 = query_1\.dot\(keys_1\)/);
  await suite.done(w);
});
