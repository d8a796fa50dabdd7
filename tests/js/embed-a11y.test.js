// Accessibility of the page, the embed page and the example post, in headless Chromium:
// axe-core finds nothing (light and dark, with an explanation open, with every control),
// tables have scoped headers, cells are reached and explained from the keyboard with a
// visible focus, −∞ / masked / dropped cells say what they are, and prefers-color-scheme and
// prefers-reduced-motion are followed.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { browserSuite, axeViolations, settled } = require('./browser');

const suite = browserSuite();

const EMBED =
  'embed.html#' +
  encodeURIComponent(
    JSON.stringify({
      stages: ['masked', 'attn_weights_dropped', 'context_vecs'],
      controls: 'full',
      qkv_bias: true,
    }),
  );

/** The page ('page') or a page of widgets ('widgets') at url, ready. */
const open = (url, ready) => suite.open(url, { wait: ready });

for (const [name, url, ready] of [
  ['the page', '', 'page'],
  ['the embed page', EMBED, 'widgets'],
  ['the example post', 'examples/blog-post.html', 'widgets'],
]) {
  test(`axe-core: no violations on ${name}, light and dark`, async () => {
    const { page, problems } = await open(url, ready);
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page), [], `${name}, ${colorScheme}`);
    }
    // With a number explained (the page's panel, or the widget's note).
    await page.locator('td[data-row="1"][data-col="0"]').first().click();
    assert.deepEqual(await axeViolations(page), [], `${name}, explanation open`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('every table header has a scope; every table a caption', async () => {
  for (const [url, ready] of [
    ['', 'page'],
    ['examples/blog-post.html', 'widgets'],
  ]) {
    const { page } = await open(url, ready);
    const stats = await page.evaluate(() => {
      const roots = [
        document,
        ...Array.from(document.querySelectorAll('causal-attention-demo'), (w) => w.shadowRoot),
      ];
      const tables = roots.flatMap((r) => Array.from(r.querySelectorAll('table.t')));
      const ths = tables.flatMap((t) => Array.from(t.querySelectorAll('th')));
      return {
        tables: tables.length,
        captions: tables.filter((t) => t.caption && t.caption.textContent.trim()).length,
        unscoped: ths.filter((th) => !['col', 'row'].includes(th.scope)).length,
        rowHeaders: tables.every((t) =>
          Array.from(t.tBodies[0].rows).every(
            (tr) => tr.cells[0].tagName === 'TH' && tr.cells[0].scope === 'row',
          ),
        ),
      };
    });
    assert.ok(stats.tables > 3, url);
    assert.deepEqual(
      stats,
      { tables: stats.tables, captions: stats.tables, unscoped: 0, rowHeaders: true },
      url,
    );
    await page.close();
  }
});

test('keyboard: one tab stop per table, arrows/Home/End move, Enter explains, focus is visible', async () => {
  const { page, problems } = await open('examples/blog-post.html', 'widgets');
  // Where the focus is, inside the widget's shadow root.
  const focused = () =>
    page.evaluate(() => {
      const a = document.activeElement,
        e = a && a.shadowRoot ? a.shadowRoot.activeElement : a;
      const style = e && getComputedStyle(e);
      return e && e.dataset.row !== undefined
        ? `${a.id} ${e.closest('[data-stage]').dataset.stage} ${e.dataset.row},${e.dataset.col} ${style.outlineStyle} ${style.outlineWidth}`
        : String(e && e.tagName);
    });
  await page.keyboard.press('Tab'); // the first cell of the first table of #causal
  assert.equal(await focused(), 'causal masked 0,0 solid 2px');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), 'causal masked 1,1 solid 2px');
  await page.keyboard.press('End');
  assert.equal(await focused(), 'causal masked 1,5 solid 2px');
  await page.keyboard.press('Home');
  assert.equal(await focused(), 'causal masked 1,0 solid 2px');
  await page.keyboard.press('ArrowLeft'); // the row header is not a cell to land on
  await page.keyboard.press('ArrowUp');
  assert.equal(await focused(), 'causal masked 0,0 solid 2px');
  await page.keyboard.press('Enter');
  assert.match(await page.locator('#causal .ex').innerText(), /^masked\[0, 0\] = 0\.2899/);
  // Tab leaves the table: its drawing's one token stop, the export buttons, then the next
  // table's one cell.
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'g');
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'BUTTON');
  // One stop per export format (lib/export.js's registry: 7 with the notebook).
  const buttons = await page.evaluate(
    () =>
      document.querySelector('#causal').shadowRoot.querySelectorAll('[data-stage="masked"] button')
        .length,
  );
  assert.equal(buttons, 7);
  for (let k = 0; k < buttons; k++) await page.keyboard.press('Tab');
  assert.equal(await focused(), 'causal attn_weights_causal 0,0 solid 2px');
  // The same keys on the page.
  await page.goto(suite.server.url);
  await page.waitForSelector('html[data-ready="1"]');
  await settled(page); // the boxes below the first screen are built in idle time
  await page.locator('[data-stage="attn_scores"] td[data-row="0"][data-col="0"]').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press(' ');
  assert.match(await page.locator('#explain-title').textContent(), /^attn_scores\[0, 1\] = /);
  assert.equal(
    await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle),
    'solid',
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('−∞, masked and dropped cells say what they are to screen readers', async () => {
  const { page, problems } = await open(EMBED, 'widgets');
  const names = (stage) =>
    page.evaluate(
      (s) =>
        Array.from(
          document
            .querySelector('causal-attention-demo')
            .shadowRoot.querySelectorAll(`[data-stage="${s}"] td`),
          (td) => td.getAttribute('aria-label') || td.textContent,
        ),
      stage,
    );
  const masked = await names('masked');
  assert.equal(masked[1], 'minus infinity, masked: a future token');
  assert.equal(masked.filter((n) => n === 'minus infinity, masked: a future token').length, 15);
  assert.match(masked[0], /^-?\d\.\d{4}$/);
  const dropped = await names('attn_weights_dropped');
  // The book's pattern: row 0 keeps columns 0, 1, 3, 4; row 1 drops column 0.
  assert.deepEqual(
    [dropped[1], dropped[2], dropped[6]],
    [
      '0.0000, masked: a future token',
      '0.0000, masked: a future token, dropped by dropout',
      '0.0000, dropped by dropout',
    ],
  );
  // The accessibility tree has them as the cells' names.
  assert.equal(
    await page.getByRole('cell', { name: 'minus infinity, masked: a future token' }).count(),
    15,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('prefers-color-scheme and prefers-reduced-motion are followed; theme overrides the scheme', async () => {
  const { page, problems } = await open('examples/blog-post.html', 'widgets');
  const look = () =>
    page.evaluate(() => {
      const w = document.querySelector('#causal').shadowRoot;
      return [
        getComputedStyle(w.querySelector('.ca')).backgroundColor,
        getComputedStyle(w.querySelector('td')).transitionDuration,
      ];
    });
  // Without a theme ("inherit"), the host's background shows through in either scheme.
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal((await look())[0], 'rgba(0, 0, 0, 0)');
  await page.evaluate(() => document.querySelector('#causal').setAttribute('theme', 'auto'));
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  assert.deepEqual(await look(), ['rgb(255, 255, 255)', '0.15s']);
  await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
  assert.deepEqual(await look(), ['rgb(18, 20, 23)', '0s']);
  await page.evaluate(() => document.querySelector('#causal').setAttribute('theme', 'light'));
  assert.equal((await look())[0], 'rgb(255, 255, 255)');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.evaluate(() => document.querySelector('#causal').setAttribute('theme', 'dark'));
  assert.equal((await look())[0], 'rgb(18, 20, 23)');
  // The page follows the scheme too.
  await page.goto(suite.server.url);
  await page.waitForSelector('html[data-ready="1"]');
  await settled(page); // the boxes below the first screen are built in idle time
  const body = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await body(), 'rgb(255, 255, 255)');
  await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
  assert.equal(await body(), 'rgb(18, 20, 23)');
  assert.equal(
    await page.evaluate(() => getComputedStyle(document.querySelector('td')).transitionDuration),
    '0s',
  );
  assert.deepEqual(problems, []);
  await page.close();
});
