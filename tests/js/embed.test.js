// <causal-attention-demo> and embed.html in headless Chromium: the example post's numbers, the
// attributes, Shadow DOM isolation both ways, widgets side by side on one WebAssembly instance,
// the iframe that tells its height (with the snippet of docs/embedding.md), the page's Embed button, markup
// typed as token labels, and a strict Content-Security-Policy.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const {
  browserSuite,
  serveWith,
  watchedPage,
  web,
  widgetsReady,
  widgetRow,
  settled,
} = require('./browser');
const { root, loadApi } = require('./support');

const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
const ATTACK = '<img src=x onerror=alert(1)>';
const TOKENS = [ATTACK, '"><b id=injected>bold</b>', 'starts', 'with', 'one', 'step'];
const ROW1_CAUSAL = ['0.5517', '0.4483', '0.0000', '0.0000', '0.0000', '0.0000'];
const ROW1_CAUSAL_D4 = ['0.4972', '0.5028', '0.0000', '0.0000', '0.0000', '0.0000'];

const suite = browserSuite();

/** A page of `body` that loads the module (for serveWith). */
function hostPage(body, head = '') {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title><link rel="icon" href="/style.css">${head}` +
    `<script src="/causal-attention.js" defer></script></head><body><main>${body}</main></body></html>`
  );
}
/** The stage ids each widget shows, by widget id. */
function widgetStages(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      Array.from(document.querySelectorAll('causal-attention-demo'), (w) => [
        w.id,
        Array.from(w.shadowRoot.querySelectorAll('[data-stage]'), (s) => s.dataset.stage),
      ]),
    ),
  );
}
/** Resolves with the ca-export event's detail after clicking an export button. */
function exportDetail(page, host, stage, format, batch = 0) {
  return page.evaluate(
    ([h, s, f, b]) =>
      new Promise((resolve) => {
        document.addEventListener('ca-export', (e) => resolve({ ...e.detail, blob: undefined }), {
          once: true,
        });
        (h ? document.querySelector(h).shadowRoot : document)
          .querySelector(`[data-stage="${s}"] button[data-export="${f}"][data-batch="${b}"]`)
          .click();
      }),
    [host, stage, format, batch],
  );
}

test("the example post renders each requested stage with the book's numbers", async () => {
  const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
  await page.goto(suite.server.url + 'examples/blog-post.html');
  await widgetsReady(page);
  assert.deepEqual(await widgetStages(page), {
    causal: ['masked', 'attn_weights_causal'],
    dropout: ['dropout_example'],
    batch: ['context_vecs'],
  });
  assert.deepEqual(await widgetRow(page, '#causal', 'attn_weights_causal', 1), ROW1_CAUSAL);
  assert.deepEqual(await widgetRow(page, '#causal', 'masked', 0), [
    '0.2899',
    '−∞',
    '−∞',
    '−∞',
    '−∞',
    '−∞',
  ]);
  assert.deepEqual(
    await widgetRow(page, '#dropout', 'dropout_example', 0),
    Array(6).fill('2.0000'),
  );
  for (const batch of [0, 1])
    assert.deepEqual(await widgetRow(page, '#batch', 'context_vecs', 0, batch), [
      '-0.4519',
      '0.2216',
    ]);
  // caption="off": the captions stay for screen readers only (out of the flow, clipped away).
  const captions = await page.evaluate(() =>
    ['#batch', '#causal'].map((id) => {
      const c = document.querySelector(id).shadowRoot.querySelector('caption'),
        style = getComputedStyle(c);
      return [
        c.textContent.length > 10,
        style.position,
        style.clipPath,
        c.getBoundingClientRect().width <= 1,
      ];
    }),
  );
  assert.deepEqual(captions, [
    [true, 'absolute', 'inset(50%)', true],
    [true, 'static', 'none', false],
  ]);
  // controls="compact": the book's default generator gives the book's printed dropout table.
  assert.equal(await page.locator('#dropout select[name=rng]').inputValue(), 'mkl');
  await page.locator('#dropout select[name=rng]').selectOption('default');
  await page.waitForFunction(
    () =>
      document
        .querySelector('#dropout')
        .shadowRoot.querySelector('[data-stage=dropout_example] td[data-row="0"][data-col="2"]')
        .textContent === '0.0000',
  );
  assert.deepEqual(await widgetRow(page, '#dropout', 'dropout_example', 0), [
    '2.0000',
    '2.0000',
    '0.0000',
    '2.0000',
    '2.0000',
    '0.0000',
  ]);
  await page.locator('#dropout input[name=dropout]').fill('0');
  await page.waitForFunction(
    () =>
      document.querySelector('#dropout').shadowRoot.querySelector('[data-stage=dropout_example] td')
        .textContent === '1.0000',
  );
  await page.locator('#dropout input[name=dropout]').fill('2');
  await page.waitForFunction(() =>
    /"dropout"/.test(
      document.querySelector('#dropout').shadowRoot.querySelector('.err').textContent,
    ),
  );
  // A click explains the number inside the widget.
  await page
    .locator('#causal [data-stage=attn_weights_causal] td[data-row="1"][data-col="0"]')
    .click();
  assert.match(
    await page.locator('#causal .ex').innerText(),
    /attn_weights_causal\[1, 0\] = 0\.5517[\s\S]*softmax of row 1 of masked/,
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('the example post works from file:// too', async () => {
  const { page, problems } = await watchedPage(suite.browser.context);
  await page.goto(pathToFileURL(path.join(web, 'examples/blog-post.html')).href);
  await widgetsReady(page);
  assert.deepEqual(await widgetRow(page, '#causal', 'attn_weights_causal', 1), ROW1_CAUSAL);
  assert.deepEqual(problems, []);
  await page.close();
});

test('attribute changes re-render; bad attributes say what is wrong', async () => {
  const s = await serveWith(web, {
    'attrs.html': hostPage(
      '<causal-attention-demo id="w" stages="attn_weights_causal"></causal-attention-demo>',
    ),
  });
  const { page, problems } = await watchedPage(suite.browser.context, s.url);
  await page.goto(s.url + 'attrs.html');
  await widgetsReady(page);
  const cell = (row, col) =>
    page.evaluate(
      ([r, c]) =>
        document
          .querySelector('#w')
          .shadowRoot.querySelector(`td[data-row="${r}"][data-col="${c}"]`).textContent,
      [row, col],
    );
  const error = () =>
    page.evaluate(() => document.querySelector('#w').shadowRoot.querySelector('.err').textContent);
  const set = (name, value) =>
    page.evaluate(
      ([n, v]) =>
        v === null
          ? document.querySelector('#w').removeAttribute(n)
          : document.querySelector('#w').setAttribute(n, v),
      [name, value],
    );
  assert.deepEqual(await widgetRow(page, '#w', 'attn_weights_causal', 1), ROW1_CAUSAL);
  await set('config', '{"d_out": 4}');
  await page.waitForFunction(
    () =>
      document.querySelector('#w').shadowRoot.querySelector('td[data-row="1"]').textContent ===
      '0.4972',
  );
  assert.deepEqual(await widgetRow(page, '#w', 'attn_weights_causal', 1), ROW1_CAUSAL_D4);
  await set('config', '{"d_out": 0}');
  await page.waitForFunction(() => document.querySelector('#w').dataset.state === 'error');
  assert.equal(await error(), '"d_out" must be an integer between 1 and 1024 (got 0)');
  assert.equal(await cell(1, 0), '0.4972'); // the last good tables stay
  await set('config', 'not json');
  await page.waitForFunction(() =>
    /JSON/.test(document.querySelector('#w').shadowRoot.querySelector('.err').textContent),
  );
  await set('config', null);
  await set('preset', 'book');
  await page.waitForFunction(() => document.querySelector('#w').dataset.state === 'ready');
  assert.equal(await cell(1, 0), '0.5517');
  assert.equal(await error(), '');
  // The chapter's new stages: a 4-D stage's heads side by side; the 0-D score.
  await set('stages', 'mha.context_vecs,v1.attn_score_qq,mha.attn_weights');
  await page.waitForFunction(
    () => document.querySelector('#w').shadowRoot.querySelectorAll('[data-stage]').length === 3,
  );
  assert.deepEqual((await widgetStages(page)).w, [
    'mha.context_vecs',
    'v1.attn_score_qq',
    'mha.attn_weights',
  ]);
  assert.equal(
    await page.evaluate(
      () =>
        document.querySelector('#w').shadowRoot.querySelector('[data-stage="v1.attn_score_qq"] td')
          .textContent,
    ),
    '1.8524',
  );
  assert.equal(
    await page.evaluate(
      () =>
        document.querySelector('#w').shadowRoot.querySelector('[data-stage="mha.context_vecs"] td')
          .textContent,
    ),
    '0.3190',
  );
  // Both heads of batch element 0 side by side: head 1's table is slice 1.
  assert.equal(
    await page.evaluate(
      () =>
        document
          .querySelector('#w')
          .shadowRoot.querySelector(
            '[data-stage="mha.attn_weights"] td[data-row="1"][data-col="1"][data-batch="1"]',
          ).textContent,
    ),
    '0.5012',
  );
  await set('stages', 'attn_weights_causal, nope');
  await page.waitForFunction(() =>
    /unknown stage "nope"/.test(
      document.querySelector('#w').shadowRoot.querySelector('.err').textContent,
    ),
  );
  await set('stages', 'context_vecs,mask');
  await page.waitForFunction(() => document.querySelector('#w').dataset.state === 'ready');
  assert.deepEqual((await widgetStages(page)).w, ['context_vecs', 'mask']);
  await set('stages', null); // every stage
  await page.waitForFunction(
    () => document.querySelector('#w').shadowRoot.querySelectorAll('[data-stage]').length === 86, // 60 + 18 of the bonus notebook + 8 of the KV cache
  );
  // controls: none, compact, full; the form follows the attribute.
  const fields = () =>
    page.evaluate(() =>
      Array.from(
        document.querySelector('#w').shadowRoot.querySelectorAll('form [name]'),
        (e) => e.name,
      ),
    );
  await set('controls', 'full');
  await page.waitForFunction(
    () => document.querySelector('#w').shadowRoot.querySelectorAll('form [name]').length > 4,
  );
  // The core's settings table (api.settings) decides: every setting with a control (not the
  // inputs' rows and labels), in its `order`; compact: the rows marked `compact`.
  const api = await loadApi();
  const controlled = api.settings
    .filter((s) => s.type !== 'inputs' && s.type !== 'strings')
    .sort((a, b) => a.order - b.order);
  assert.deepEqual(
    await fields(),
    controlled.map((s) => s.key),
  );
  assert.equal(controlled.length, 14); // query_token … num_heads
  await page.locator('#w input[name=qkv_bias]').check();
  await page.waitForFunction(
    () => document.querySelector('#w').shadowRoot.querySelectorAll('[data-stage]').length === 102, // 72 + 22 of the bonus notebook (no nn.MultiheadAttention with qkv_bias) + 8 of the KV cache
  );
  await set('controls', 'compact');
  await page.waitForFunction(
    () => document.querySelector('#w').shadowRoot.querySelectorAll('form [name]').length === 4,
  );
  assert.deepEqual(
    await fields(),
    controlled.filter((s) => s.compact).map((s) => s.key),
  );
  await set('controls', 'none');
  await page.waitForFunction(
    () => document.querySelector('#w').shadowRoot.querySelector('form').hidden,
  );
  // An element made by script works like one in the markup; it is as tall as its content.
  const heights = await page.evaluate(async () => {
    const w = document.createElement('causal-attention-demo');
    w.setAttribute('stages', 'row_sums');
    document.body.append(w);
    await new Promise((r) => w.addEventListener('ca-render', r, { once: true }));
    const small = w.getBoundingClientRect().height;
    w.setAttribute('stages', 'row_sums,attn_scores');
    await new Promise((r) => w.addEventListener('ca-render', r, { once: true }));
    return [
      small,
      w.getBoundingClientRect().height,
      w.shadowRoot.querySelector('.ca').getBoundingClientRect().height,
    ];
  });
  assert.ok(
    heights[0] > 100 && heights[1] > heights[0] + 100 && heights[1] === heights[2],
    String(heights),
  );
  assert.deepEqual(problems, []);
  await page.close();
  await s.close();
});

// Host elements named like the widget's insides, styled by the host and by nothing else.
const HOST_BODY =
  '<table class="t ca stage"><caption class="sr">host table</caption><tr><th scope="col" class="k">h</th></tr>' +
  '<tr><td class="m h x hl sel" tabindex="0">1</td></tr></table><p class="sr stage err ex tools cf after">host text</p>' +
  '<code>host code</code> <button type="button">host button</button> <input aria-label="host input"><div hidden class="cf">hidden</div>';
const HOSTILE_CSS =
  'html { font-size: 10px; } td, th { color: red !important; display: none !important; }' +
  '* { font-family: cursive !important; letter-spacing: 3px !important; } table { border: 9px solid red !important; }' +
  'causal-attention-demo { color: red !important; text-align: center !important; line-height: 5 !important; font-size: 40px !important; }' +
  ':root, causal-attention-demo { --bg: red; --fg: red; --line: red; --mono: 40px cursive; --v: 1; }';
const PROPS = [
  'color',
  'display',
  'font-family',
  'font-size',
  'letter-spacing',
  'line-height',
  'text-align',
  'border-top-width',
  'border-top-color',
  'background-color',
  'background-image',
  'padding-top',
  'margin-top',
  'outline-style',
  'position',
  'width',
  'height',
];
function computed(page, selectors, inWidget) {
  return page.evaluate(
    ([sels, props, w]) =>
      sels.map((s) => {
        const e = (
          w ? document.querySelector('causal-attention-demo').shadowRoot : document
        ).querySelector(s);
        const style = getComputedStyle(e);
        return s + ' ' + props.map((p) => p + ':' + style.getPropertyValue(p)).join(';');
      }),
    [selectors, PROPS, inWidget],
  );
}

test("host CSS does not reach into the widget, and the widget's CSS does not reach out", async () => {
  // theme="light": the widget's own look (the default, "inherit", takes the host's font and colour).
  const widget =
    '<causal-attention-demo theme="light" stages="attn_weights_causal,masked" controls="compact"></causal-attention-demo>';
  const s = await serveWith(web, {
    'clean.html': hostPage(widget),
    'hostile.html': hostPage(widget, `<style>${HOSTILE_CSS}</style>`),
    'plain.html': hostPage(HOST_BODY).replace(/<script[^>]*><\/script>/, ''),
    'plain-with-widget.html': hostPage(HOST_BODY + widget),
  });
  const { page, problems } = await watchedPage(suite.browser.context, s.url);
  const inside = [
    '.ca',
    'caption',
    'code',
    'th',
    'td[data-row="1"][data-col="0"]',
    'td[data-row="0"][data-col="1"]',
    'td.ni',
    'button',
    'input',
    'select',
    '.tools',
  ];
  await page.goto(s.url + 'clean.html');
  await widgetsReady(page);
  const clean = await computed(page, inside, true);
  await page.goto(s.url + 'hostile.html');
  await widgetsReady(page);
  assert.deepEqual(await computed(page, inside, true), clean);
  // theme="inherit" takes the host's colour, font family and size, and nothing else.
  await page.evaluate(() =>
    document.querySelector('causal-attention-demo').removeAttribute('theme'),
  );
  assert.deepEqual(
    await page.evaluate(() => {
      const c = getComputedStyle(
        document.querySelector('causal-attention-demo').shadowRoot.querySelector('.ca'),
      );
      return [c.color, c.fontFamily, c.fontSize, c.letterSpacing, c.textAlign, c.lineHeight];
    }),
    ['rgb(255, 0, 0)', 'cursive', '40px', 'normal', 'start', '58px'],
  );
  const outside = ['table', 'caption', 'th', 'td', 'p', 'code', 'button', 'input', 'div[hidden]'];
  await page.goto(s.url + 'plain.html');
  const plain = await computed(page, outside, false);
  await page.goto(s.url + 'plain-with-widget.html');
  await widgetsReady(page);
  assert.deepEqual(await computed(page, outside, false), plain);
  assert.deepEqual(
    await page.evaluate(() => [document.adoptedStyleSheets.length, document.styleSheets.length]),
    [0, 0],
  );
  assert.deepEqual(problems, []);
  await page.close();
  await s.close();
});

test('widgets with different configurations share one page and one WebAssembly instance', async () => {
  const s = await serveWith(web, {
    'two.html': hostPage(
      '<causal-attention-demo id="a" stages="attn_weights_causal" preset="book"></causal-attention-demo>' +
        '<causal-attention-demo id="b" stages="attn_weights_causal,dropout_example" config=\'{"d_out": 4, "rng": "mkl"}\' controls="full"></causal-attention-demo>' +
        '<causal-attention-demo id="c" stages="dropout_example" theme="dark"></causal-attention-demo>',
    ),
  });
  const { page, problems } = await watchedPage(suite.browser.context, s.url);
  await page.addInitScript(() => {
    window.wasmInstances = 0;
    for (const name of ['instantiate', 'instantiateStreaming']) {
      const original = WebAssembly[name];
      WebAssembly[name] = function (...args) {
        window.wasmInstances++;
        return original.apply(this, args);
      };
    }
    // The module is compiled and instantiated synchronously (WASM_ASYNC_COMPILATION=0). Only
    // the core's instances count: the core owns (exports) its memory, while the relaxed-SIMD
    // exp's small module (src/wasm/exp-relaxed.js) is instantiated over the core's memory.
    WebAssembly.Instance = new Proxy(WebAssembly.Instance, {
      construct(target, args) {
        if (WebAssembly.Module.exports(args[0]).some((e) => e.kind === 'memory'))
          window.wasmInstances++;
        return Reflect.construct(target, args);
      },
    });
  });
  await page.goto(s.url + 'two.html');
  await widgetsReady(page);
  assert.deepEqual(await widgetRow(page, '#a', 'attn_weights_causal', 1), ROW1_CAUSAL);
  assert.deepEqual(await widgetRow(page, '#b', 'attn_weights_causal', 1), ROW1_CAUSAL_D4);
  assert.deepEqual(await widgetRow(page, '#b', 'dropout_example', 0), Array(6).fill('2.0000'));
  assert.deepEqual(await widgetRow(page, '#c', 'dropout_example', 0), [
    '2.0000',
    '2.0000',
    '0.0000',
    '2.0000',
    '2.0000',
    '0.0000',
  ]);
  assert.equal(await page.evaluate(() => window.wasmInstances), 1);
  // Editing one widget leaves the others as they were.
  await page.locator('#b input[name=d_out]').fill('2');
  await page.waitForFunction(
    () =>
      document.querySelector('#b').shadowRoot.querySelector('td[data-row="1"]').textContent ===
      '0.5517',
  );
  assert.deepEqual(await widgetRow(page, '#c', 'dropout_example', 0), [
    '2.0000',
    '2.0000',
    '0.0000',
    '2.0000',
    '2.0000',
    '0.0000',
  ]);
  assert.deepEqual(await widgetRow(page, '#a', 'attn_weights_causal', 1), ROW1_CAUSAL);
  // theme="dark" on one widget only; #a has the default, "inherit": the host's background shows.
  const backgrounds = await page.evaluate(() =>
    ['#a', '#c'].map(
      (id) =>
        getComputedStyle(document.querySelector(id).shadowRoot.querySelector('.ca'))
          .backgroundColor,
    ),
  );
  assert.deepEqual(backgrounds, ['rgba(0, 0, 0, 0)', 'rgb(18, 20, 23)']);
  assert.equal(await page.evaluate(() => window.wasmInstances), 1);
  assert.deepEqual(problems, []);
  await page.close();
  await s.close();
});

/** The iframe snippet of docs/embedding.md: its <script> that resizes frames. */
function readmeResizeScript() {
  const doc = fs.readFileSync(path.join(root, 'docs/embedding.md'), 'utf8');
  return doc.match(/<script>\n([\s\S]*?)<\/script>/)[1];
}

test('embed.html shows only the chosen stages and its iframe takes its height (the snippet of docs/embedding.md)', async () => {
  const state = (o) => 'embed.html#' + encodeURIComponent(JSON.stringify(o));
  const s = await serveWith(web, {
    'frame.html':
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Frame host</title><link rel="icon" href="/style.css"><script src="resize.js"></script></head>' +
      `<body><main><h1>Host</h1><iframe id="f" title="Causal attention" width="700" height="50" src="${state({ stages: ['attn_weights_causal'], d_out: 4 })}"></iframe><p id="below">after</p></main></body></html>`,
    'resize.js': readmeResizeScript(),
  });
  const { page, problems } = await watchedPage(suite.browser.context, s.url);
  await page.goto(s.url + 'frame.html');
  const frame = page.frameLocator('#f');
  const fits = () =>
    page.waitForFunction(() => {
      const f = document.querySelector('#f'),
        d = f.contentDocument;
      const w = d && d.querySelector('causal-attention-demo');
      if (!w || w.dataset.state !== 'ready') return false;
      const content = Math.ceil(d.documentElement.getBoundingClientRect().height);
      return (
        content > 100 &&
        f.clientHeight === content &&
        d.documentElement.scrollHeight <= f.clientHeight
      );
    });
  await fits();
  assert.deepEqual(
    await frame.locator('[data-stage]').evaluateAll((e) => e.map((x) => x.dataset.stage)),
    ['attn_weights_causal'],
  );
  assert.deepEqual(await frame.locator('td[data-row="1"]').allTextContents(), ROW1_CAUSAL_D4);
  assert.equal(await frame.locator('header, #controls, h2').count(), 0); // no page chrome
  const before = await page.evaluate(() => document.querySelector('#f').clientHeight);
  // More stages: the frame grows to fit again; fewer: it shrinks.
  await page.evaluate(
    (src) => {
      document.querySelector('#f').src = src;
    },
    state({
      stages: ['masked', 'attn_weights_causal', 'context_vecs'],
      controls: 'full',
      caption: false,
    }),
  );
  await page.waitForFunction((h) => document.querySelector('#f').clientHeight > h + 200, before);
  await fits();
  assert.deepEqual(
    await frame.locator('[data-stage]').evaluateAll((e) => e.map((x) => x.dataset.stage)),
    ['masked', 'attn_weights_causal', 'context_vecs'],
  );
  await page.evaluate(
    (src) => {
      document.querySelector('#f').src = src;
    },
    state({ stages: 'row_sums' }),
  );
  await page.waitForFunction((h) => document.querySelector('#f').clientHeight < h, before);
  await fits();
  assert.deepEqual(problems, []);
  await page.close();
  await s.close();
});

test("the page's Embed button copies a snippet that shows the stage with the current settings", async () => {
  const files = {};
  const s = await serveWith(web, files);
  const { page, problems } = await watchedPage(suite.browser.context, s.url);
  await page.goto(s.url + '#' + encodeURIComponent('{"d_out":4}'));
  await page.waitForSelector('html[data-ready="1"]');
  await settled(page); // the boxes below the first screen are built in idle time
  const detail = await exportDetail(page, null, 'attn_weights_causal', 'embed');
  assert.equal(detail.format, 'embed');
  const snippet = detail.text;
  assert.ok(snippet.includes(`<script src="${s.url}causal-attention.js"></script>`), snippet);
  assert.ok(
    snippet.includes(
      '<causal-attention-demo stages="attn_weights_causal" config="{&quot;d_out&quot;:4}"></causal-attention-demo>',
    ),
    snippet,
  );
  const src = snippet.match(/<iframe src="([^"]+)"/)[1].replace(/&amp;/g, '&');
  assert.ok(src.startsWith(s.url + 'embed.html#'), src);
  assert.equal(src.split('#')[1], 'stages=attn_weights_causal&d_out=4'); // the page's grammar
  const height = +snippet.match(/<iframe [^>]*height="(\d+)"/)[1];
  assert.equal(detail.height, height);
  // The snippet, pasted into a 700 px column, shows the same table, as element and as iframe,
  // and the frame is as tall as its content without any script.
  files['pasted.html'] =
    `<!doctype html><html lang="en"><head><title>Pasted</title><link rel="icon" href="/style.css"></head><body><main style="width:700px">${snippet}</main></body></html>`;
  const pasted = await watchedPage(suite.browser.context, s.url);
  await pasted.page.goto(s.url + 'pasted.html');
  await widgetsReady(pasted.page);
  assert.deepEqual(
    await widgetRow(pasted.page, 'causal-attention-demo', 'attn_weights_causal', 1),
    ROW1_CAUSAL_D4,
  );
  await pasted.page
    .frameLocator('iframe')
    .locator('causal-attention-demo[data-state=ready]')
    .waitFor();
  assert.deepEqual(
    await pasted.page.frameLocator('iframe').locator('td[data-row="1"]').allTextContents(),
    ROW1_CAUSAL_D4,
  );
  const [content, frameBox] = await pasted.page.evaluate(() => {
    const f = document.querySelector('iframe');
    return [Math.ceil(f.contentDocument.documentElement.scrollHeight), f.clientHeight];
  });
  console.log(`Embed snippet: iframe height ${height}, content ${content} px in a 700 px column`);
  assert.ok(content > 300, content);
  assert.equal(frameBox, height);
  assert.ok(Math.abs(content - height) <= 2, `content ${content} px, frame ${height} px`);
  // Defaults: preset="book" instead of an empty config.
  await page.goto(s.url);
  await page.waitForSelector('html[data-ready="1"]');
  await settled(page); // the boxes below the first screen are built in idle time
  assert.match(
    (await exportDetail(page, null, 'masked', 'embed')).text,
    /<causal-attention-demo stages="masked" preset="book">/,
  );
  assert.equal(await page.locator('[data-stage] button[data-export=embed]').count(), 86);
  assert.deepEqual([...problems, ...pasted.problems], []);
  await pasted.page.close();
  await page.close();
  await s.close();
});

/** Fails if the page holds an element the attack could have made, anywhere (shadow roots too). */
async function assertNoInjectedMarkup(page) {
  const found = await page.evaluate(() => {
    const all = [];
    const walk = (root) =>
      root.querySelectorAll('*').forEach((e) => {
        if (/^(IMG|B)$/.test(e.tagName) || e.id === 'injected') all.push(e.outerHTML);
        if (e.shadowRoot) walk(e.shadowRoot);
      });
    walk(document);
    document
      .querySelectorAll('iframe')
      .forEach((f) => f.contentDocument && walk(f.contentDocument));
    return all;
  });
  assert.deepEqual(found, []);
}

test('token labels are text everywhere: page, widget, embed page, explanations and exports', async () => {
  const config = { tokens: TOKENS };
  const s = await serveWith(web, {
    'labels.html': hostPage(
      `<causal-attention-demo stages="attn_weights_causal,context_vecs" controls="full" config='${JSON.stringify(config).replace(/'/g, '&#39;')}'></causal-attention-demo>`,
    ),
  });
  const { page, problems } = await watchedPage(suite.browser.context, s.url);
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  const headers = (host) =>
    page.evaluate(
      (h) =>
        Array.from(
          (h ? document.querySelector(h).shadowRoot : document)
            .querySelector('[data-stage="attn_weights_causal"] thead')
            .querySelectorAll('th'),
          (th) => th.textContent,
        ).slice(1),
      host,
    );

  await page.goto(s.url + '#' + encodeURIComponent(JSON.stringify(config)));
  await page.waitForSelector('html[data-ready="1"]');
  await settled(page); // the boxes below the first screen are built in idle time
  assert.deepEqual(await headers(null), TOKENS);
  assert.equal(
    await page.locator('#inputs-editor input[name=tokens][data-row="0"]').inputValue(),
    ATTACK,
  );
  await page.locator('[data-stage="attn_weights_causal"] td[data-row="1"][data-col="0"]').click();
  await page.locator('[data-stage="attn_scores"] td[data-row="0"][data-col="1"]').click();
  assert.ok(
    (await page.locator('#explain-body').textContent()).includes(
      `query “${ATTACK}”, key “${TOKENS[1]}”`,
    ),
  );
  // The exports: Markdown escapes the markup (every < with a backslash: text in GitHub), CSV
  // and the snippet keep it as text.
  const md = (await exportDetail(page, null, 'attn_weights_causal', 'markdown')).text;
  assert.ok(md.includes('\\<img src\\=x onerror\\=alert\\(1\\)\\>') && !/(^|[^\\])</.test(md), md);
  const csv = (await exportDetail(page, null, 'attn_weights_causal', 'csv')).text;
  assert.ok(csv.startsWith(`query \\ key,${ATTACK},"""><b id=injected>bold</b>",starts`), csv);
  const snippet = (await exportDetail(page, null, 'attn_weights_causal', 'embed')).text;
  const parsed = await page.evaluate((html) => {
    const d = new DOMParser().parseFromString(html, 'text/html');
    return {
      tags: Array.from(d.querySelectorAll('*'), (e) => e.tagName).filter(
        (t) => !/^(HTML|HEAD|BODY)$/.test(t),
      ),
      config: d.querySelector('causal-attention-demo').getAttribute('config'),
      src: d.querySelector('iframe').getAttribute('src'),
    };
  }, snippet);
  assert.deepEqual(parsed.tags, ['SCRIPT', 'CAUSAL-ATTENTION-DEMO', 'IFRAME']);
  assert.deepEqual(JSON.parse(parsed.config).tokens, TOKENS);
  assert.deepEqual(
    require(path.join(web, 'causal-attention.js')).hash.parse(parsed.src.split('#')[1]).tokens,
    TOKENS,
  );
  await assertNoInjectedMarkup(page);

  await page.goto(s.url + 'labels.html');
  await widgetsReady(page);
  assert.deepEqual(await headers('causal-attention-demo'), TOKENS);
  await page
    .locator('causal-attention-demo [data-stage="context_vecs"] td[data-row="0"][data-col="0"]')
    .first()
    .click();
  assert.ok(
    (await page.locator('causal-attention-demo .ex').textContent()).includes(`token “${ATTACK}”`),
  );
  const widgetMd = (
    await exportDetail(page, 'causal-attention-demo', 'context_vecs', 'markdown', 1)
  ).text;
  assert.ok(widgetMd.includes('| \\<img src\\=x onerror\\=alert\\(1\\)\\> |'), widgetMd);
  await assertNoInjectedMarkup(page);

  await page.goto(
    s.url +
      'embed.html#' +
      encodeURIComponent(JSON.stringify({ stages: ['attn_weights_causal'], ...config })),
  );
  await widgetsReady(page);
  assert.deepEqual(await headers('causal-attention-demo'), TOKENS);
  await assertNoInjectedMarkup(page);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(problems, []); // no request for the image "x"
  await page.close();
  await s.close();
});

test('a strict CSP (no unsafe-eval, no inline style) allows the page, the widget and the embed page', async () => {
  const s = await serveWith(
    web,
    {
      'csp-host.html': hostPage(
        '<causal-attention-demo stages="attn_weights_causal,dropout_example" controls="full" theme="dark"></causal-attention-demo>',
      ),
    },
    { 'Content-Security-Policy': CSP },
  );
  const pages = [
    'index.html',
    'examples/blog-post.html',
    'csp-host.html',
    'embed.html#' +
      encodeURIComponent(
        '{"stages":["masked","context_vecs"],"controls":"compact","qkv_bias":true}',
      ),
  ];
  for (const name of pages) {
    const { page, problems } = await watchedPage(suite.browser.context, s.url);
    await page.addInitScript(() => {
      window.violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.violations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    const response = await page.goto(s.url + name);
    assert.equal(response.headers()['content-security-policy'], CSP);
    if (name === 'index.html') {
      await page.waitForSelector('html[data-ready="1"]');
      await settled(page); // the boxes below the first screen are built in idle time
      assert.deepEqual(
        await page.locator('[data-stage="attn_weights_causal"] td[data-row="1"]').allTextContents(),
        ROW1_CAUSAL,
      );
      await page.locator('#d_out').fill('4');
      await page.waitForFunction(
        () =>
          document.querySelector('[data-stage="attn_weights_causal"] td[data-row="1"]')
            .textContent === '0.4972',
      );
      // The styles that matter come through: heatmap shades and the hatched mask.
      assert.notEqual(
        await page
          .locator('[data-stage="attn_weights_causal"] td.h')
          .first()
          .evaluate((e) => getComputedStyle(e).backgroundColor),
        'rgba(0, 0, 0, 0)',
      );
    } else {
      await widgetsReady(page);
      assert.equal(
        await page.locator('causal-attention-demo').first().getAttribute('data-state'),
        'ready',
      );
      assert.notEqual(
        await page
          .locator('causal-attention-demo td.m')
          .first()
          .evaluate((e) => getComputedStyle(e).backgroundImage),
        'none',
      );
    }
    // Exports under the CSP: a PNG (canvas, blob: download) and a copy.
    const host = name === 'index.html' ? null : 'causal-attention-demo';
    const stage = await page.evaluate(
      (h) =>
        (h ? document.querySelector(h).shadowRoot : document).querySelector('[data-stage]').dataset
          .stage,
      host,
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.evaluate(
        ([h, st]) =>
          (h ? document.querySelector(h).shadowRoot : document)
            .querySelector(`[data-stage="${st}"] button[data-export=png]`)
            .click(),
        [host, stage],
      ),
    ]);
    assert.ok(download.suggestedFilename().endsWith('.png'));
    assert.match((await exportDetail(page, host, stage, 'latex')).text, /^\\begin\{bmatrix\}/);
    assert.deepEqual(await page.evaluate(() => window.violations), [], name);
    assert.deepEqual(problems, [], name);
    await page.close();
  }
  await s.close();
});
