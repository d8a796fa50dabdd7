// Hostile inputs to the page, the widget and their exports (issue 19, rows 2, 4, 8, 9 and 10):
// names looked up as own properties only, exports that stay well-formed and formula-free,
// colours and fonts of embed links that fetch nothing, and a budget that counts the heads.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { loadApi, web } = require('./support');
const { browserSuite, watchedPage, ready, widgetsReady } = require('./browser');

const CA = require(path.join(web, 'causal-attention.js'));
const BOOK_T = 6;

// Labels a spreadsheet would read as a formula, or that carry control characters; each is the
// row label of one token of the book's six.
const LABELS = ['=1+1', '+1', '-1', '@SUM(A1)', '\t=1', '\r=1', "x;=cmd|' /C calc'!A0", 'a\u0001b'];

/** RFC 4180 fields of CSV text, split at `sep`, as a spreadsheet in that locale reads them. */
function parseCsv(text, sep = ',') {
  const rows = [];
  let row = [],
    field = '',
    quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === sep) (row.push(field), (field = ''));
    else if (c === '\r' && text[i + 1] === '\n')
      (rows.push([...row, field]), (row = []), (field = ''), i++);
    else field += c;
  }
  return rows;
}
// What a spreadsheet runs as a formula: a cell starting (after spaces) with = + - or @.
const FORMULA = /^\s*[=+\-@\uff1d\uff0b\uff0d\uff20]/;

test('CSV: no label cell reads as a formula, with "," or ";" as the separator', async () => {
  const api = await loadApi();
  for (let k = 0; k < LABELS.length; k += BOOK_T) {
    const tokens = LABELS.slice(k, k + BOOK_T);
    while (tokens.length < BOOK_T) tokens.push('t' + tokens.length);
    const wt = api.run({ tokens }),
      csv = CA.exports.text('csv', wt, 'inputs', 0);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(csv.replace(/\r\n/g, ''), /[\u0000-\u001f\u007f-\u009f]/, 'a raw control');
    for (const sep of [',', ';']) {
      const labels = parseCsv(csv, sep).map((r) => r[0]);
      assert.equal(labels.length, BOOK_T + 1, csv);
      for (const cell of labels) assert.doesNotMatch(cell, FORMULA, `${sep}: ${cell}`);
      // every cell of a row, not only the first: "x;=cmd" must not split into "=cmd..."
      for (const row of parseCsv(csv, sep).slice(1))
        for (const cell of row.slice(1)) assert.ok(sep === ';' || /^-?[\d.e+-]+$/.test(cell), cell);
    }
    if (k === 0) {
      assert.deepEqual(
        parseCsv(csv).map((r) => r[0]),
        ['token \\ in', "'=1+1", "'+1", "'-1", "'@SUM(A1)", "' =1", "' =1"],
      );
    }
  }
  const cell = CA.exports.csvCell;
  assert.equal(cell("x;=cmd|' /C calc'!A0"), `"x;=cmd|' /C calc'!A0"`); // one cell in ";" locales
  assert.equal(cell('a\u0001b'), 'a b');
  assert.equal(cell('\uff1d1+1'), "'\uff1d1+1"); // full-width =
  assert.equal(cell('Your'), 'Your');
  assert.equal(cell('-'), "'-");
  assert.equal(cell('a,"b"'), '"a,""b"""');
});

test('control characters are replaced the same way in every export', () => {
  const { plain, markdownCell, csvCell } = CA.exports;
  assert.equal(plain('a\u0001b\u007fc\u0085d\te\r\nf'), 'a b c d e  f');
  assert.equal(plain('x\ufffey\uffffz\ud83d\ude00'), 'x y z\ud83d\ude00'); // an emoji stays
  assert.equal(markdownCell('a\u0001b'), 'a b');
  assert.equal(csvCell('a\u0001b'), 'a b');
});

test('the main-thread budget counts the heads, the context length and every growing term', async () => {
  await CA.load(); // the cost is the core's (api.cost)
  const { check } = CA.budget;
  // issue 19 row 2: 13.3 s on the main thread
  assert.match(
    check({ inputs: { randn: [1024, 1] }, d_out: 64, num_heads: 64 }),
    /^T = 1024, d_in = 1, d_out = 64, num_heads = 64 would keep the page busy for about \d/,
  );
  assert.match(
    check({ inputs: { randn: [1024, 1] }, d_out: 128, num_heads: 128 }),
    /num_heads = 128/,
  );
  // 64 causal masks of 1024² at T = 6: about 60 ms, counted but allowed; 1024 tokens are not
  const { work } = CA.budget;
  const masks = { num_heads: 64, d_out: 64, context_length: 1024 };
  assert.ok(work(masks) > 50 * work({ num_heads: 64, d_out: 64 }));
  assert.equal(check(masks), '');
  assert.match(
    check({ ...masks, inputs: { randn: [1024, 1] } }),
    /^T = 1024, d_in = 1, d_out = 64, num_heads = 64, context_length = 1024 would/,
  );
  assert.equal(check({}), '');
  assert.equal(check({ num_heads: 2, d_out: 4 }), '');
  assert.equal(check({ inputs: { randn: [256, 64] }, d_out: 64, num_heads: 8 }), '');
  // The bonus sections' and the KV cache's forwards count too: T = 640 with d_in = d_out = 128
  // is computed on the main thread (the largest the message names), T = 768 is not.
  assert.equal(check({ inputs: { randn: [640, 128] }, d_out: 128 }), '');
  assert.match(check({ inputs: { randn: [768, 128] }, d_out: 128 }), /^T = 768, d_in = 128/);
});

const files = {}; // pages served beside build/web
const suite = browserSuite({ files });

test('preset names are own properties only: page, hash change and widget say what is wrong', async () => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
  const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
  for (const name of names) {
    await page.goto(`${suite.server.url}index.html#preset=${name}`);
    assert.equal(await ready(page), '1', name);
    const msg = await page.evaluate(() => document.getElementById('status').textContent);
    assert.equal(msg, `Invalid link (no preset "${name}"): showing the book instead.`);
    assert.ok(
      await page.$('div.stage[data-stage="context_vecs"] table'),
      `${name}: the book's tables`,
    );
  }
  // a hash change to a bad name, then back to a good one
  await page.goto(`${suite.server.url}index.html#preset=gpt2`);
  await ready(page, 60000);
  await page.evaluate(() => (location.hash = '#preset=constructor'));
  await page.waitForFunction(() => /no preset "constructor"/.test(document.body.textContent));
  // the widget: a message naming the preset, not a TypeError
  for (const name of names) {
    await page.setContent(
      `<script src="${suite.server.url}causal-attention.js"></script>` +
        `<causal-attention-demo preset="${name}" stages="inputs"></causal-attention-demo>` +
        `<causal-attention-demo controls="${name}" stages="inputs"></causal-attention-demo>`,
    );
    await widgetsReady(page);
    const [bad, good] = await page.evaluate(() =>
      Array.from(document.querySelectorAll('causal-attention-demo'), (w) => [
        w.dataset.state,
        w.shadowRoot.querySelector('.err').textContent,
        w.shadowRoot.querySelectorAll('table').length,
      ]),
    );
    assert.deepEqual(bad.slice(0, 1), ['error'], name);
    assert.match(bad[1], new RegExp(`^unknown preset "${name}" \\(known: book`), name);
    assert.doesNotMatch(bad[1], /TypeError|undefined|not a function/);
    assert.deepEqual(good, ['ready', '', 1], `controls="${name}" is no level: none`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('a key named like an Object.prototype property is a key: the link and the widget name it', async () => {
  const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
  for (const [hash, key] of [
    ['constructor', 'constructor'],
    ['__proto__=1', '__proto__'],
    ['d_out=4&toString', 'toString'],
  ]) {
    await page.goto(`${suite.server.url}index.html#${hash}`);
    assert.equal(await ready(page), '1', hash);
    const msg = await page.evaluate(() => document.getElementById('status').textContent);
    assert.match(msg, new RegExp(`^Invalid link \\(unknown configuration key "${key}"`), hash);
    assert.ok(await page.$('div.stage[data-stage="context_vecs"] table'), `${hash}: the book`);
  }
  // the widget: config='{"__proto__": {...}}' is named, not silently the book
  await page.setContent(
    `<script src="${suite.server.url}causal-attention.js"></script>` +
      `<causal-attention-demo config='{"__proto__": {"d_out": 4}}' stages="inputs"></causal-attention-demo>` +
      `<causal-attention-demo config='{"constructor": 1}' stages="inputs"></causal-attention-demo>`,
  );
  await widgetsReady(page);
  const states = await page.evaluate(() =>
    Array.from(document.querySelectorAll('causal-attention-demo'), (w) => [
      w.dataset.state,
      w.shadowRoot.querySelector('.err').textContent,
    ]),
  );
  assert.equal(states[0][0], 'error');
  assert.match(states[0][1], /^unknown configuration key "__proto__"/);
  assert.equal(states[1][0], 'error');
  assert.match(states[1][1], /^unknown configuration key "constructor"/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the SVG export with control characters in labels is well-formed XML', async () => {
  const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
  await page.goto(`${suite.server.url}embed.html#stages=inputs`);
  await widgetsReady(page);
  const out = await page.evaluate(async () => {
    const api = await CausalAttention.load();
    const wt = api.run({
      tokens: ['a\u0001b', 'c\u001fd', 'e\u007ff', 'g\u0085h', 'i\tj', 'k\u0000l'],
    });
    const svg = CausalAttention.exports.svg(wt, 'attn_weights_causal', 0, document, null);
    const xml = new DOMParser().parseFromString(svg, 'image/svg+xml');
    return {
      error: xml.querySelector('parsererror')?.textContent || '',
      labels: Array.from(xml.querySelectorAll('text'), (t) => t.textContent).slice(1, 8),
    };
  });
  assert.equal(out.error, '');
  assert.deepEqual(out.labels, ['query \\ key', 'a b', 'c d', 'e f', 'g h', 'i j', 'k l']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('colours and fonts of an embed link are checked: nothing is fetched', async () => {
  const bad = [
    'bg=url(http%3A%2F%2Ftracker.invalid%2Fp.png)',
    'bg=red%20url(http%3A%2F%2Ftracker.invalid%2Fp.png)',
    'bg=image-set(%22http%3A%2F%2Ftracker.invalid%2Fp.png%22%201x)',
    'bg=var(--x%2Curl(http%3A%2F%2Ftracker.invalid%2Fp.png))',
    'fg=url(http%3A%2F%2Ftracker.invalid%2Fp.png)',
    'bg=red%3Bbackground-image%3Aurl(http%3A%2F%2Ftracker.invalid%2Fp.png)',
    'font=x%3Bsrc%3Aurl(http%3A%2F%2Ftracker.invalid%2Ff.woff)',
    'font=url(http%3A%2F%2Ftracker.invalid%2Ff.woff)',
  ];
  const requests = [];
  for (const hash of bad) {
    const { page } = await watchedPage(suite.browser.context, suite.server.url);
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${suite.server.url}embed.html#stages=masked&${hash}`);
    await widgetsReady(page);
    const status = await page.evaluate(() => document.querySelector('p.err').textContent);
    assert.match(status, /^Invalid link \("(bg|fg|font)" is not a (colour|font name)\)/, hash);
    const style = await page.evaluate(() => document.body.getAttribute('style'));
    assert.doesNotMatch(style, /url|image/, hash);
    await page.close();
  }
  assert.deepEqual(
    requests.filter((u) => !u.startsWith(suite.server.url)),
    [],
  );
  // Good values still style the frame.
  const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
  await page.goto(
    `${suite.server.url}embed.html#stages=masked&bg=%23fdf6e3&fg=rgb(10%2C%2020%2C%2030)&font=Georgia%2C%22Times%20New%20Roman%22%2Cserif`,
  );
  await widgetsReady(page);
  const look = await page.evaluate(() => {
    const s = getComputedStyle(document.body);
    return [s.backgroundColor, s.color, s.fontFamily, document.querySelector('p.err').hidden];
  });
  assert.deepEqual(look, [
    'rgb(253, 246, 227)',
    'rgb(10, 20, 30)',
    'Georgia, "Times New Roman", serif',
    true,
  ]);
  assert.deepEqual(problems, []);
  await page.close();
});

test('in a 640 or 700 px blog column at 20 px Georgia, every widget stage fits or scrolls with a cue', async () => {
  const shots = path.join(path.dirname(web), 'screenshots');
  fs.mkdirSync(shots, { recursive: true });
  const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
  await page.setViewportSize({ width: 800, height: 900 });
  for (const [width, stages] of [
    [640, 'dropout_example'],
    [700, 'dropout_example'],
    [640, 'masked,attn_weights_causal,context_vecs'],
  ]) {
    await page.setContent(
      `<!doctype html><html lang="en"><head><title>Blog</title><style>body{margin:0 40px}` +
        `main{width:${width}px;font:20px Georgia,serif}</style>` +
        `<script src="${suite.server.url}causal-attention.js" defer></script></head><body><main><p>A post.</p>` +
        `<causal-attention-demo stages="${stages}" controls="compact"></causal-attention-demo></main></body></html>`,
    );
    await widgetsReady(page);
    const boxes = await page.evaluate(() => {
      const w = document.querySelector('causal-attention-demo'),
        column = document.querySelector('main').getBoundingClientRect().right;
      return Array.from(w.shadowRoot.querySelectorAll('.stage'), (s) => {
        const box = s.querySelector('.scroll');
        return {
          stage: s.dataset.stage,
          inside: s.getBoundingClientRect().right <= column + 0.5,
          fits: box.scrollWidth <= box.clientWidth,
          cue: box.dataset.more || '',
          page: document.documentElement.scrollWidth <= window.innerWidth,
        };
      });
    });
    for (const b of boxes) {
      assert.ok(b.inside && b.page, `${width} px: ${b.stage} reaches past the column`);
      assert.ok(b.fits || b.cue === 'right', `${width} px: ${b.stage} is cut without a cue`);
    }
    // The book's dropout table fits whole: compact digits in a box under 34 em (680 px here).
    if (stages === 'dropout_example') assert.deepEqual(boxes[0].fits, true, `${width} px`);
    await page.screenshot({
      path: path.join(shots, `column-${width}-georgia-20-${boxes.length}.png`),
      fullPage: true,
    });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("docs/embed/markdown.md's iframe is as tall as its content in a 700 px column", async () => {
  const doc = fs.readFileSync(path.join(__dirname, '../../docs/embed/markdown.md'), 'utf8');
  const iframe = doc.match(/<iframe src="https:\/\/example\.org\/causal-attention\/([^"]+)"[^>]*>/);
  const height = +iframe[0].match(/height="(\d+)"/)[1];
  const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
  files['post.html'] =
    `<!doctype html><html lang="en"><head><title>Post</title><link rel="icon" href="data:,"></head>` +
    '<body><main style="width:700px">' +
    iframe[0].replace(/https:\/\/example\.org\/causal-attention\//, suite.server.url) +
    '</iframe></main></body></html>';
  await page.goto(suite.server.url + 'post.html');
  await page.frameLocator('iframe').locator('causal-attention-demo[data-state=ready]').waitFor();
  const content = await page.evaluate(() =>
    Math.ceil(document.querySelector('iframe').contentDocument.documentElement.scrollHeight),
  );
  console.log(`docs/embed/markdown.md: iframe ${height} px, content ${content} px`);
  assert.ok(content > 300, content);
  assert.ok(Math.abs(content - height) <= 2, `content ${content} px, iframe height="${height}"`);
  assert.deepEqual(problems, []);
  await page.close();
});
