// The stage table through the JS API: the same facts as the CLI's --list-stages --format json,
// and the page built from them (one section per entry, every stage in its section).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('child_process');
const { loadApi, cli } = require('./support');

test("api.stages, sections, limits and defaults are the CLI's table", async () => {
  const api = await loadApi();
  const table = JSON.parse(
    execFileSync(cli, ['--list-stages', '--format', 'json'], { encoding: 'utf8' }),
  );
  assert.deepEqual(JSON.parse(JSON.stringify(api.stages)), table.stages);
  assert.deepEqual(JSON.parse(JSON.stringify(api.sections)), table.sections);
  assert.deepEqual({ ...api.limits }, table.limits);
  assert.deepEqual({ ...api.defaults }, table.defaults);
  assert.deepEqual(
    api.stages.map((s) => s.id),
    [...api.stageIds],
  );
  assert.ok(Object.isFrozen(api.stages[0]));
  const ca = api.stages.find((s) => s.id === 'attn_weights_causal');
  assert.deepEqual(
    [ca.section, ca.rows, ca.cols, ca.kind, ca.causal],
    ['s1', 'tok', 'tok', 'probabilities', true],
  );
  assert.equal(api.stages.find((s) => s.id === 'attn_weights_dropped').dropout, 'dropout_example');
  assert.deepEqual(api.defaultTokens(8), [
    'Your',
    'journey',
    'starts',
    'with',
    'one',
    'step',
    'x7',
    'x8',
  ]);
});

test('the page builds its sections from the table and puts each stage in its own', async () => {
  const { serve, launch, watchedPage, ready, web } = require('./browser');
  const [browser, server] = await Promise.all([launch(), serve(web)]);
  try {
    const api = await loadApi();
    const { page, problems } = await watchedPage(browser.context, server.url);
    await page.goto(server.url + '#%7B%22qkv_bias%22%3Atrue%7D');
    assert.equal(await ready(page), '1');
    const layout = await page.evaluate(() =>
      Array.from(document.querySelectorAll('main section'), (s) => ({
        id: s.querySelector('h2').id,
        heading: s.querySelector('h2').textContent,
        label: s.getAttribute('aria-labelledby'),
        stages: Array.from(s.querySelectorAll('[data-stage]'), (d) => d.dataset.stage),
      })),
    );
    assert.deepEqual(
      layout.map((s) => s.id),
      api.sections.map((s) => s.id),
    );
    // Every stage the run computes, in its section (nn.MultiheadAttention's need d_in = d_out:
    // the book's 3 and 2 leave its section without stages).
    const computed = new Set(api.run({ qkv_bias: true }).stages.map((st) => st.id));
    assert.ok(!computed.has('torchmha.context_vecs') && computed.has('qkv.context_vecs'));
    layout.forEach((s, k) => {
      assert.equal(s.heading, api.sections[k].number + ' ' + api.sections[k].title);
      assert.equal(s.label, s.id);
      assert.deepEqual(
        s.stages,
        api.stages.filter((st) => st.section === s.id && computed.has(st.id)).map((st) => st.id),
      );
    });
    // The corner of a bias table says what its single row is.
    assert.equal(await page.locator('[data-stage="b_query"] th.k').textContent(), 'bias \\ out');
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await browser.close();
    await server.close();
  }
});
