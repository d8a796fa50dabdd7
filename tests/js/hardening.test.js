// Hostile values in headless Chromium: non-finite numbers from a link, a field or the widget's
// attribute give an inline message and the page keeps working; embed.html's invalid link; seeds
// beyond 2^53 exact through the URL, the fields and the widget; -0 in exports; Markdown labels by
// the rule shared with the CLI; notes where inf/NaN first appear; sizes that would freeze the
// page refused; a widget whose module fails to load says so.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const {
  browserSuite,
  watchedPage,
  widgetsReady,
  widgetRow,
  cells,
  settled,
  pageHash,
} = require('./browser');
const { root, runCli } = require('./support');

const hash = (c) => '#' + encodeURIComponent(typeof c === 'string' ? c : JSON.stringify(c));
const WIDGETS = `<!doctype html><meta charset="utf-8"><title>widgets</title><link rel="icon" href="data:,">
<script src="causal-attention.js" defer></script>
<causal-attention-demo id="inf" stages="dropout_example" config='{"dropout":-1e999}'></causal-attention-demo>
<causal-attention-demo id="seed" stages="W_query" config='{"seed_weights":18446744073709551615}'></causal-attention-demo>
<causal-attention-demo id="big" stages="inputs" config='{"inputs":{"randn":[1024,512]},"d_out":512}'></causal-attention-demo>`;
const FAILING = `<!doctype html><meta charset="utf-8"><title>no module</title><link rel="icon" href="data:,">
<script>window.DecompressionStream = undefined;</script>
<script src="causal-attention.js" defer></script>
<causal-attention-demo></causal-attention-demo>`;

const suite = browserSuite({ files: { 'widgets.html': WIDGETS, 'failing.html': FAILING } });

/** A watched page at `url`, ready; `check` runs after the test with its problems. */
async function open(t, url, readyWhen = 'html[data-ready="1"]') {
  const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
  t.after(async () => {
    assert.deepEqual(problems, []);
    await page.close();
  });
  await page.goto(suite.server.url + url);
  if (readyWhen) await page.waitForSelector(readyWhen);
  if (readyWhen === 'html[data-ready="1"]') await settled(page); // boxes below: idle time
  return page;
}
const text = (page, selector) => page.locator(selector).first().textContent();
function exportText(page, stage, format) {
  return page.evaluate(
    ([s, f]) =>
      new Promise((resolve) => {
        document.addEventListener('ca-export', (e) => resolve(e.detail.text), { once: true });
        document.querySelector(`[data-stage="${s}"] button[data-export="${f}"]`).click();
      }),
    [stage, format],
  );
}

test('non-finite numbers: an inline message, and the page keeps working', async (t) => {
  const page = await open(t, hash('{"dropout":1e400}'));
  assert.equal(
    await text(page, '#status'),
    'Invalid link ("dropout" must be between 0 and 1 (got inf)): showing the book instead.',
  );
  const book = await cells(page, 'attn_weights_causal');
  assert.equal(book[1][0], '0.5517');
  await page.fill('#dropout', '1e400');
  assert.equal(
    await text(page, '[data-error-for="dropout"]'),
    '"dropout" must be between 0 and 1 (got inf)',
  );
  assert.equal(await page.getAttribute('#dropout', 'aria-invalid'), 'true');
  await page.fill('#dropout', '0.25');
  assert.equal(await text(page, '[data-error-for="dropout"]'), '');
  assert.match(decodeURIComponent(await pageHash(page)), /(^#|&)dropout=0\.25(&|$)/);
});

test('the widget shows the message of a non-finite config and recovers', async (t) => {
  const page = await open(t, 'widgets.html', null);
  await widgetsReady(page);
  const error = () =>
    page.evaluate(
      () => document.querySelector('#inf').shadowRoot.querySelector('.err').textContent,
    );
  assert.equal(await error(), '"dropout" must be between 0 and 1 (got -inf)');
  assert.equal(await page.getAttribute('#inf', 'data-state'), 'error');
  await page.evaluate(() =>
    document.querySelector('#inf').setAttribute('config', '{"dropout":0.5}'),
  );
  await page.waitForFunction(() => document.querySelector('#inf').dataset.state === 'ready');
  assert.equal(await error(), '');
});

test('embed.html with a malformed link shows the same message as index.html', async (t) => {
  const index = await open(t, '#%E0%A4%A');
  const message = await text(index, '#status');
  assert.equal(message, 'Invalid link (URI malformed): showing the book instead.');
  const embed = await open(t, 'embed.html#%E0%A4%A', null);
  await widgetsReady(embed);
  assert.equal(await text(embed, 'p[role="status"]'), message);
  assert.equal(await embed.getAttribute('causal-attention-demo', 'data-state'), 'ready');
  const bad = await open(t, 'embed.html' + hash('[1]'), null);
  await widgetsReady(bad);
  assert.equal(
    await text(bad, 'p[role="status"]'),
    'Invalid link (not a JSON object): showing the book instead.',
  );
});

test('seeds beyond 2^53 stay exact in the URL, the fields and the widget', async (t) => {
  const SEED = '18446744073709551615';
  const native = runCli(`{"seed_weights": ${SEED}}`).stages.find((s) => s.id === 'W_query');
  const want = native.data.slice(0, native.shape[1]).map((x) => x.toFixed(4));
  const page = await open(t, hash(`{"seed_weights":${SEED}}`));
  assert.equal(await text(page, '#status'), '');
  assert.equal(await page.inputValue('#seed_weights'), SEED);
  assert.deepEqual((await cells(page, 'W_query'))[0], want);
  await page.fill('#dropout', '0.25'); // the hash is written again from the settings
  assert.match(
    decodeURIComponent(await pageHash(page)),
    /(^#|&)seed_weights=18446744073709551615(&|$)/,
  );
  await page.fill('#seed_weights', '18446744073709551614');
  assert.match(
    decodeURIComponent(await pageHash(page)),
    /(^#|&)seed_weights=18446744073709551614(&|$)/,
  );
  assert.notDeepEqual((await cells(page, 'W_query'))[0], want);
  const widgets = await open(t, 'widgets.html', null);
  await widgetsReady(widgets);
  assert.deepEqual(await widgetRow(widgets, '#seed', 'W_query', 0), want);
  const embed = await open(
    t,
    'embed.html' + hash(`{"seed_weights":${SEED},"stages":["W_query"]}`),
    null,
  );
  await widgetsReady(embed);
  assert.deepEqual(await widgetRow(embed, 'causal-attention-demo', 'W_query', 0), want);
});

test('-0 is exported as -0 (CSV) and -0.0 (torch), as the CLI prints it', async (t) => {
  const page = await open(t, hash('{"inputs":[[-0,1],[2,-0]]}'));
  const csv = await exportText(page, 'inputs', 'csv');
  assert.equal(csv, 'token \\ in,0,1\r\nYour,-0,1\r\njourney,2,-0\r\n');
  const cli = runCli('{"inputs":[[-0,1],[2,-0]]}').stages[0].data;
  assert.deepEqual(
    cli,
    [-0, 1, 2, -0].map((x) => x),
  ); // JSON.parse keeps -0
  assert.ok(Object.is(cli[0], -0));
  assert.equal(
    await exportText(page, 'inputs', 'torch'),
    'torch.tensor([[-0.0, 1.0],\n        [2.0, -0.0]])',
  );
});

test('Markdown labels follow the rule shared with the CLI', async (t) => {
  const cases = JSON.parse(
    fs.readFileSync(path.join(root, 'tests/golden/markdown_cells.json'), 'utf8'),
  ).slice(0, 6);
  const page = await open(t, hash({ tokens: cases.map((c) => c[0]) }));
  const lines = (await exportText(page, 'inputs', 'markdown')).split('\n');
  cases.forEach(([, out], i) =>
    assert.ok(lines[i + 2].startsWith('| ' + out + ' | '), lines[i + 2]),
  );
});

test("a note where inf and NaN first appear, not for the mask's −∞", async (t) => {
  const book = await open(t, '');
  assert.equal(await book.locator('.nf').count(), 0);
  const page = await open(
    t,
    hash({
      inputs: [
        [1e30, 1e30],
        [1e30, -1e30],
      ],
      scale: false,
    }),
  );
  const notes = await page
    .locator('.nf')
    .evaluateAll((ps) => ps.map((p) => [p.closest('[data-stage]').dataset.stage, p.textContent]));
  assert.ok(notes.length >= 1 && notes.length <= 2, JSON.stringify(notes));
  assert.equal(notes[0][0], 'simple.attn_scores_q'); // §3.3's inputs @ inputs overflows first
  notes.forEach(([, note]) => assert.match(note, /PyTorch gives the same inf and NaN/));
  assert.ok(await page.locator('[data-stage="simple.attn_scores_q"] .nf').isVisible());
});

test('sizes that would freeze the page are refused with a message', async (t) => {
  const page = await open(t, hash({ inputs: { randn: [1024, 512] }, d_out: 512 }));
  assert.match(
    await text(page, '#status'),
    /^Invalid link \(T = 1024, d_in = 512, d_out = 512 would keep the page busy for about \d/,
  );
  assert.equal((await cells(page, 'inputs')).length, 6); // the book
  await page.fill('#d_out', '512');
  await page.fill('#randn_tokens', '1024');
  await page.fill('#randn_d_in', '512');
  await page.click('#randomize');
  assert.match(
    await text(page, '[data-error-for="randn"]'),
    /^T = 1024, d_in = 512, d_out = 512 would keep/,
  );
  const widgets = await open(t, 'widgets.html', null);
  await widgetsReady(widgets);
  assert.match(
    await widgets.evaluate(
      () => document.querySelector('#big').shadowRoot.querySelector('.err').textContent,
    ),
    /^T = 1024, d_in = 512, d_out = 512 would keep the page busy/,
  );
});

test('a widget whose module cannot load says so', async (t) => {
  const { page } = await watchedPage(suite.browser.context, suite.server.url);
  t.after(() => page.close());
  await page.goto(suite.server.url + 'failing.html');
  await widgetsReady(page);
  assert.equal(await page.getAttribute('causal-attention-demo', 'data-state'), 'error');
  assert.match(
    await page.evaluate(
      () =>
        document.querySelector('causal-attention-demo').shadowRoot.querySelector('.err')
          .textContent,
    ),
    /^The demo could not start: /,
  );
});
