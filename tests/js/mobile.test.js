// Phones, links and hosts: the URL hash grammar (web/hash.js) in Node; in headless
// Chromium at 390×844 and 1280×800 the first table on the first screen, scroll hints, the skip
// link, taps, "Copy link" into a fresh page, every old JSON link of the fixtures, axe-core; the
// widget taking a host's font and colours (theme="inherit"), its --ca-* properties and parts.
// Screenshots go to $CA_BUILD/screenshots. Cost: about 40 s on 2 cores.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const {
  browserSuite,
  watchedPage,
  ready,
  cells,
  axeViolations,
  widgetsReady,
  settled,
  pageHash,
  web,
} = require('./browser');
const { root, BOOK_INPUTS } = require('./support');
// web/hash.js is an ES module inside the built causal-attention.js: its CausalAttention.hash.
const H = require(path.join(web, 'causal-attention.js')).hash;

const PHONE = { width: 390, height: 844 },
  DESKTOP = { width: 1280, height: 800 };
const shots = path.join(path.dirname(web), 'screenshots');
// Every configuration the test fixtures open the page or embed.html with as a JSON hash.
const OLD_HASHES = [
  { d_out: 4 },
  { rng: 'mkl' },
  { qkv_bias: true, d_out: 4, rng: 'mkl' },
  {
    tokens: ['Your', 'a|b', 'c,d', 'say "hi"', '=1+1', '<img src=x onerror=alert(1)>'],
    qkv_bias: true,
    rng: 'mkl',
  },
  {
    tokens: [
      '<img src=x onerror=alert(1)>',
      '"><b id=injected>bold</b>',
      'starts',
      'with',
      'one',
      'step',
    ],
  },
  { inputs: { randn: [40, 3], seed: 5 } },
];
const HOST = (body, style = '') =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>' +
  `<link rel="icon" href="/style.css"><link rel="stylesheet" href="host.css"><script src="causal-attention.js" defer></script></head><body><main>${body}</main></body></html>`;

const files = {};
const suite = browserSuite({ files, setup: () => fs.mkdirSync(shots, { recursive: true }) });

async function open(url, viewport, colorScheme = 'light') {
  const w = await watchedPage(suite.browser.context, suite.server.url);
  await w.page.setViewportSize(viewport);
  await w.page.emulateMedia({ colorScheme });
  await w.page.goto(url);
  return w;
}
async function done(w) {
  assert.deepEqual(w.problems, []);
  await w.page.close();
}

test('hash.js: settings-like text both ways, exact big seeds, labels with any character, old JSON', () => {
  assert.deepEqual(H.parse('#d_out=4&rng=mkl&stage=dropout_example'), {
    d_out: 4,
    rng: 'mkl',
    stage: 'dropout_example',
  });
  assert.equal(
    H.stringify({ d_out: 4, rng: 'mkl', stage: 'dropout_example' }),
    'd_out=4&rng=mkl&stage=dropout_example',
  );
  assert.equal(
    H.stringify({ qkv_bias: true, scale: false, lecture: true }),
    'qkv_bias&scale=false&lecture',
  );
  assert.equal(
    H.stringify({ inputs: BOOK_INPUTS.slice(0, 2) }),
    'inputs=0.43,0.15,0.89;0.55,0.87,0.66',
  );
  assert.equal(H.stringify({ inputs: { randn: [5, 4], seed: -7 } }), 'inputs=randn:5,4:-7');
  assert.deepEqual(H.parse('inputs=randn:5,4'), { inputs: { randn: [5, 4] } });
  const big = {
    seed_weights: 18446744073709551615n,
    seed_dropout: -9223372036854775808n,
    seed_class: 9007199254740991,
    dropout: 1e-7,
  };
  assert.equal(
    H.stringify(big),
    'seed_weights=18446744073709551615&seed_dropout=-9223372036854775808&seed_class=9007199254740991&dropout=1e-7',
  );
  assert.deepEqual(H.parse(H.stringify(big)), big);
  const tokens = ['Hello, world', 'a&b=c;d', '50%', 'último', '', '#x'];
  assert.equal(
    H.stringify({ tokens }),
    'tokens=Hello%2C%20world,a%26b%3Dc%3Bd,50%25,%C3%BAltimo,,%23x',
  );
  for (const c of [
    { tokens },
    { inputs: BOOK_INPUTS },
    { inputs: { randn: [40, 3], seed: 5 }, context_length: 9, train: false },
    ...OLD_HASHES,
  ]) {
    assert.deepEqual(H.parse(H.stringify(c)), c);
  }
  for (const c of OLD_HASHES)
    assert.deepEqual(H.parse('#' + encodeURIComponent(JSON.stringify(c))), c);
  assert.deepEqual(H.parse('d_out=abc&x'), { d_out: 'abc', x: true }); // the core names the problem
  assert.throws(() => H.parse('d_out=abc&%'), URIError); // a malformed link: the page says so
  assert.deepEqual(H.parse(''), {});
});

for (const [size, viewport] of [
  ['phone', PHONE],
  ['desktop', DESKTOP],
]) {
  test(`${size}: first table on the first screen, no table overflows without a hint, skip link, axe`, async () => {
    for (const scheme of ['light', 'dark']) {
      const w = await open(suite.server.url + '#d_out=4&qkv_bias', viewport, scheme),
        page = w.page;
      assert.equal(await ready(page), '1');
      const first = await page.$eval('main table.t', (t) => t.getBoundingClientRect().toJSON());
      assert.ok(
        first.top > 0 && first.bottom <= viewport.height,
        `${size}: the first table is at ${first.top}..${first.bottom}`,
      );
      assert.equal(
        await page.$eval('#settings', (d) => d.open),
        size === 'desktop',
        'settings open on a desktop only',
      );
      await settled(page);
      const layout = await page.evaluate(() => ({
        page: document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth,
        unhinted: Array.from(document.querySelectorAll('.scroll'), (d) => [
          d,
          d.scrollWidth > d.clientWidth + 1,
        ]).filter(
          ([d, over]) =>
            over !== !!d.dataset.more || (over && getComputedStyle(d).maskImage === 'none'),
        ).length,
        hinted: document.querySelectorAll('main .scroll[data-more]').length,
      }));
      assert.equal(layout.page, 0, 'no horizontal page scroll');
      assert.equal(layout.unhinted, 0, 'every table wider than its box has a hint, and only those');
      if (size === 'phone') {
        // d_out=4 with bias: W tables are 4 × 3, scores 6 × 6 fit; 'query \ key' tables are the widest.
        assert.deepEqual((await cells(page, 'attn_weights_causal'))[1].length, 6);
        const fits = await page.$eval(
          '[data-stage="attn_weights_causal"] .scroll',
          (d) => d.scrollWidth <= d.clientWidth,
        );
        assert.ok(fits, 'a 6 × 6 table fits a phone');
        // A wide table (inputs of 12 features) hints, and scrolled to its end hints the other way.
        await page.goto(suite.server.url + '#inputs=randn:6,12');
        await ready(page);
        const box = page.locator('[data-stage="inputs"] .scroll');
        assert.equal(await box.getAttribute('data-more'), 'right');
        const fade = () => box.evaluate((d) => getComputedStyle(d).maskImage);
        assert.match(
          await fade(),
          /^linear-gradient\(to left, rgba\(0, 0, 0, 0\)/,
          'the right edge fades',
        );
        await box.evaluate((d) => {
          d.scrollLeft = d.scrollWidth;
        });
        await page.waitForFunction(
          () => document.querySelector('[data-stage="inputs"] .scroll').dataset.more === 'left',
        );
        assert.match(
          await fade(),
          /^linear-gradient\(to right, rgba\(0, 0, 0, 0\)/,
          'scrolled to the end: the left edge fades',
        );
        await settled(page); // tables off screen are built in idle time, then hinted
        assert.equal(
          await page.$$eval(
            'main .scroll',
            (all) =>
              all.filter(
                (d) =>
                  d.scrollWidth > d.clientWidth + 1 && getComputedStyle(d).maskImage === 'none',
              ).length,
          ),
          0,
        );
        const sticky = await page.$eval('[data-stage="inputs"] tbody th', (th) => [
          getComputedStyle(th).position,
          th.getBoundingClientRect().left,
        ]);
        assert.deepEqual(sticky[0], 'sticky');
        assert.ok(sticky[1] >= 0 && sticky[1] < 20, 'row labels stay in sight');
        await page.goto(suite.server.url + '#d_out=4&qkv_bias');
        await ready(page);
      }
      await page.screenshot({ path: path.join(shots, `mobile-${size}-${scheme}.png`) });
      if (scheme === 'light') {
        // The skip link: first Tab stop; Enter, then Tab lands in the first table.
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement.className), 'skip');
        assert.ok(
          await page.$eval('.skip', (a) => a.getBoundingClientRect().top >= 0),
          'visible when focused',
        );
        await page.keyboard.press('Enter');
        await page.keyboard.press('Tab');
        assert.deepEqual(
          await page.evaluate(() => [
            document.activeElement.tagName,
            document.activeElement.closest('[data-stage]').id,
          ]),
          ['TD', 'inputs'],
        );
        assert.equal(await pageHash(page), '#d_out=4&qkv_bias', 'the settings stay in the URL');
        assert.equal(await page.textContent('#status'), '');
        assert.deepEqual(await axeViolations(page), []);
        const landmarks = await page.evaluate(() => ({
          form: document.querySelector('form#controls').getAttribute('aria-label'),
          main: !!document.querySelector('main'),
          footer: !!document.querySelector('footer'),
          sections: Array.from(document.querySelectorAll('main section[aria-labelledby]')).length,
        }));
        assert.equal(landmarks.form, 'Settings');
        // Where it comes from, and what "PyTorch's numbers" means.
        const repo = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
          .repository.url.replace(/^git\+/, '')
          .replace(/\.git$/, '');
        assert.deepEqual(await page.$$eval('footer a', (as) => as.map((a) => a.href)), [
          'https://www.manning.com/books/build-a-large-language-model-from-scratch',
          'https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb',
          repo,
        ]);
        const bits = await page.textContent('#bits');
        for (const words of [
          'Debian’s PyTorch 1.13',
          'reference BLAS',
          'AVX2',
          'MKL, OpenBLAS or Accelerate',
          'last bit',
          '4-decimal tables are the same in every build',
        ]) {
          assert.ok(bits.includes(words), words);
        }
        assert.ok(
          landmarks.main && landmarks.footer && landmarks.sections >= 4,
          JSON.stringify(landmarks),
        );
      }
      await done(w);
    }
  });
}

// The map of the chapter: beside the tables, in their 24rem column; in one column, in the contents
// (closed), where it scaled to the column (1,628 px tall at 800 x 1024, its labels 28 px): there it
// is at most 27rem wide, whole on the screen, its type no smaller than beside the tables (nor
// than the drawing's own size: 11 px labels), and centred in the contents (at 800 x 1024 it sat
// at their left, 11 px from their left edge and 333 px from their right). On a short screen (a
// phone sideways, 844 x 390) its drawing, 959 px tall, was two and a half screens of the
// contents: there it is closed, a summary to open (as large as on a tablet when opened).
test('one column: the map in the contents fits on the screen, its type no smaller than beside the tables', async () => {
  const measure = async (viewport, colorScheme) => {
    const w = await open(suite.server.url, viewport, colorScheme);
    assert.equal(await ready(w.page), '1');
    const look = () =>
      w.page.evaluate(() => {
        const map = document.getElementById('map'),
          toc = map.closest('#toc');
        if (toc && !toc.firstElementChild.open) toc.querySelector('summary').click();
        map.scrollIntoView();
        const svg = map.querySelector('svg'),
          r = map.getBoundingClientRect(),
          c = (toc || map).firstElementChild.getBoundingClientRect(); // the contents' box
        return {
          toc: !!toc,
          open: map.firstElementChild.open,
          height: Math.round(r.height),
          scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width,
          // blank space left and right of the map in the contents
          gaps: [Math.round(r.left - c.left), Math.round(c.right - r.right)],
        };
      });
    const size = `${viewport.width}x${viewport.height}`,
      m = await look();
    await w.page.screenshot({ path: path.join(shots, `map-${size}-${colorScheme}.png`) });
    let opened = null;
    if (!m.open) {
      await w.page.click('#map summary');
      opened = await look();
    }
    await done(w);
    return { size, ...m, opened };
  };
  const beside = await measure(DESKTOP, 'light');
  assert.equal(beside.toc, false, 'beside the tables, above the settings');
  assert.equal(beside.open, true, 'beside the tables, open');
  const short = { width: 844, height: 390 };
  for (const [viewport, scheme] of [
    [{ width: 800, height: 1024 }, 'light'],
    [{ width: 800, height: 1024 }, 'dark'],
    [PHONE, 'dark'],
    [short, 'light'],
  ]) {
    const m = await measure(viewport, scheme);
    assert.ok(m.toc, `${m.size}: in the contents`);
    assert.equal(m.open, viewport !== short, `${m.size}: open (closed on a short screen)`);
    assert.ok(m.height <= viewport.height, `${m.size}: the map is ${m.height} px tall`);
    const drawn = m.opened || m;
    assert.ok(
      Math.abs(drawn.gaps[0] - drawn.gaps[1]) <= 1,
      `${m.size}: ${drawn.gaps.join(' and ')} px blank left and right of the map`,
    );
    if (viewport.width > 700)
      assert.ok(
        drawn.scale >= Math.max(1, beside.scale),
        `${m.size}: its type at ${drawn.scale}x its design size, ${beside.scale}x beside the tables`,
      );
  }
});

test('phone: a tapped cell opens a sheet above which it stays visible; nothing stays lit', async () => {
  const w = await open(suite.server.url, PHONE),
    page = w.page;
  await ready(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
  const cell = page.locator('[data-stage="attn_weights_causal"] td[data-row="5"][data-col="5"]');
  await cell.scrollIntoViewIfNeeded();
  await page.evaluate(() =>
    window.scrollBy(
      0,
      document
        .querySelector('[data-stage="attn_weights_causal"] td[data-row="5"][data-col="5"]')
        .getBoundingClientRect().top -
        innerHeight +
        60,
    ),
  ); // near the bottom
  const r = await cell.boundingBox();
  for (const type of ['touchStart', 'touchEnd']) {
    await cdp.send('Input.dispatchTouchEvent', {
      type,
      touchPoints: type === 'touchEnd' ? [] : [{ x: r.x + r.width / 2, y: r.y + r.height / 2 }],
    });
  }
  await page.waitForFunction(() => !document.getElementById('explain').hidden);
  assert.match(await page.textContent('#explain-title'), /^attn_weights_causal\[5, 5\] = /);
  const [c, sheet] = await Promise.all([
    cell.evaluate((e) => e.getBoundingClientRect().toJSON()),
    page.$eval('#explain', (e) => e.getBoundingClientRect().toJSON()),
  ]);
  assert.ok(
    c.bottom <= sheet.top && c.top >= 0,
    `the cell (${c.top}..${c.bottom}) is above the sheet (${sheet.top})`,
  );
  assert.ok(
    sheet.left === 0 && sheet.right === PHONE.width && sheet.bottom === PHONE.height,
    JSON.stringify(sheet),
  );
  assert.equal(await page.locator('td.hl').count(), 0, 'a tap lights no row or column');
  await page.click('#explain-close');
  assert.equal(await page.locator('td.hl, td.sel').count(), 0, 'closed: nothing stays marked');
  assert.equal(await cell.evaluate((e) => getComputedStyle(e).outlineStyle), 'none');
  await page.screenshot({ path: path.join(shots, 'mobile-phone-tapped.png') });
  await done(w);
});

test('Copy link: a readable URL that restores the settings and the stage in a fresh page', async () => {
  const w = await open(suite.server.url, DESKTOP),
    page = w.page;
  await ready(page);
  await page
    .context()
    .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.server.url });
  await page.fill('#d_out', '4');
  await page.selectOption('#rng', 'mkl');
  await page.fill('input[name=tokens][data-row="0"]', 'Hello, world');
  await page.click('#dropout_example button[data-link]');
  const url = await page.inputValue('#link-out');
  assert.equal(
    url,
    suite.server.url +
      '#tokens=Hello%2C%20world,journey,starts,with,one,step&d_out=4&rng=mkl&stage=dropout_example',
  );
  await page.waitForFunction(
    () => document.querySelector('#dropout_example .msg').textContent === 'Link copied. ',
  );
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
  const want = await cells(page, 'dropout_example');
  const fresh = await open(url, DESKTOP);
  assert.equal(await ready(fresh.page), '1');
  assert.deepEqual(await cells(fresh.page, 'dropout_example'), want);
  assert.deepEqual(
    want[0],
    ['2.0000', '2.0000', '2.0000', '2.0000', '2.0000', '2.0000'],
    'the mkl table',
  );
  assert.deepEqual(
    await fresh.page.evaluate(() => [
      document.getElementById('d_out').value,
      document.getElementById('rng').value,
    ]),
    ['4', 'mkl'],
  );
  const top = await fresh.page.$eval('#dropout_example', (e) => e.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 2, `the stage is at the top of the screen (${top})`);
  // A bare stage id is a link to it too; the header's button links the settings alone.
  await fresh.page.goto(suite.server.url + 'index.html#context_vecs');
  await ready(fresh.page);
  assert.ok(
    Math.abs(await fresh.page.$eval('#context_vecs', (e) => e.getBoundingClientRect().top)) < 2,
  );
  await page.click('#copy-link');
  assert.ok(
    (await page.inputValue('#link-out')).endsWith(
      '#tokens=Hello%2C%20world,journey,starts,with,one,step&d_out=4&rng=mkl',
    ),
  );
  await done(fresh);
  await done(w);
});

test('every old JSON link of the fixtures still opens, on the page and in embed.html', async () => {
  const w = await open(suite.server.url, DESKTOP),
    page = w.page;
  for (const c of OLD_HASHES) {
    await page.goto(suite.server.url + '#' + encodeURIComponent(JSON.stringify(c)));
    await page.reload();
    assert.equal(await ready(page), '1');
    assert.equal(await page.textContent('#status'), '', JSON.stringify(c));
    assert.deepEqual(H.parse(await pageHash(page)), c, 'the same state, now written the new way');
    await page.goto(
      suite.server.url +
        'embed.html#' +
        encodeURIComponent(JSON.stringify({ stages: ['attn_weights_causal'], ...c })),
    );
    await page.reload();
    await widgetsReady(page);
    assert.equal(
      await page.locator('causal-attention-demo').getAttribute('data-state'),
      'ready',
      JSON.stringify(c),
    );
  }
  await done(w);
});

test('widget: theme="inherit" (the default) takes the host\'s font and colours; --ca-* and ::part', async () => {
  files['host.css'] =
    'body{background:#fdf6e3;color:rgb(59,47,47);font:20px/1.6 Georgia,serif}' +
    '#dark{background:#111;color:rgb(230,230,220);padding:1rem}' +
    '#hooked{--ca-font:monospace;--ca-font-size:13px;--ca-fg:rgb(1,2,3);--ca-bg:rgb(250,240,230);--ca-accent:rgb(200,0,100);--ca-border:rgb(255,0,0)}' +
    '#parts::part(table){outline:3px solid rgb(0,128,0)}#parts::part(caption){font-style:italic}#parts::part(controls){background-color:rgb(250,250,210)}';
  files['blog.html'] = HOST(
    '<h1>A cream blog</h1><p>Set in 20 px Georgia.</p>' +
      '<causal-attention-demo id="plain" stages="attn_weights_causal"></causal-attention-demo>' +
      '<div id="dark"><causal-attention-demo id="indark" stages="masked"></causal-attention-demo></div>' +
      '<causal-attention-demo id="light" theme="light" stages="mask"></causal-attention-demo>' +
      '<causal-attention-demo id="hooked" theme="light" stages="mask" controls="compact"></causal-attention-demo>' +
      '<causal-attention-demo id="parts" stages="mask" controls="compact"></causal-attention-demo>',
  );
  for (const scheme of ['light', 'dark']) {
    const w = await open(suite.server.url + 'blog.html', DESKTOP, scheme),
      page = w.page;
    await widgetsReady(page);
    const look = (id, sel = '.ca') =>
      page.evaluate(
        ([i, s]) => {
          const e = document.getElementById(i).shadowRoot.querySelector(s),
            c = getComputedStyle(e);
          return {
            font: c.fontFamily,
            size: c.fontSize,
            fg: c.color,
            bg: c.backgroundColor,
            border: c.borderTopColor,
            outline: c.outlineColor + ' ' + c.outlineStyle,
            italic: c.fontStyle,
          };
        },
        [id, sel],
      );
    const plain = await look('plain');
    assert.deepEqual(
      [plain.font, plain.size, plain.fg, plain.bg],
      ['Georgia, serif', '20px', 'rgb(59, 47, 47)', 'rgba(0, 0, 0, 0)'],
      `${scheme}: the host's look, whatever the reader's scheme`,
    );
    assert.equal((await look('plain', 'caption')).font, 'Georgia, serif');
    assert.equal((await look('plain', 'td')).size, '17.6px', "numbers at .88 of the host's size");
    assert.equal(
      (await look('indark')).fg,
      'rgb(230, 230, 220)',
      'inside a dark box: its light text',
    );
    const light = await look('light');
    assert.deepEqual(
      [light.size, light.fg, light.bg],
      ['16px', 'rgb(27, 27, 27)', 'rgb(255, 255, 255)'],
    );
    assert.match(light.font, /system-ui/);
    const hooked = await look('hooked');
    assert.deepEqual(
      [hooked.font, hooked.size, hooked.fg, hooked.bg],
      ['monospace', '13px', 'rgb(1, 2, 3)', 'rgb(250, 240, 230)'],
    );
    assert.equal((await look('hooked', 'td')).border, 'rgb(255, 0, 0)');
    await page.locator('#hooked td[data-row="1"][data-col="0"]').click();
    assert.equal((await look('hooked', 'td.sel')).outline, 'rgb(200, 0, 100) solid');
    assert.equal((await look('parts', 'table')).outline, 'rgb(0, 128, 0) solid');
    assert.equal((await look('parts', 'caption')).italic, 'italic');
    assert.equal((await look('parts', 'form')).bg, 'rgb(250, 250, 210)');
    assert.equal(
      (await look('plain', 'table')).outline.endsWith('none'),
      true,
      'parts style only the widget they name',
    );
    if (scheme === 'light') assert.deepEqual(await axeViolations(page), []);
    await page.screenshot({ path: path.join(shots, `blog-${scheme}.png`), fullPage: true });
    await done(w);
  }
});

test("embed.html takes the host's look from its hash: font, bg, fg", async () => {
  const w = await open(
      suite.server.url +
        'embed.html#stages=attn_weights_causal&font=Georgia&bg=%23fdf6e3&fg=rgb(59%2C47%2C47)',
      DESKTOP,
      'dark',
    ),
    page = w.page;
  await widgetsReady(page);
  const look = await page.evaluate(() => {
    const c = getComputedStyle(
        document.querySelector('causal-attention-demo').shadowRoot.querySelector('.ca'),
      ),
      b = getComputedStyle(document.body);
    return [
      c.fontFamily,
      c.color,
      b.backgroundColor,
      document.querySelector('causal-attention-demo').getAttribute('theme'),
    ];
  });
  assert.deepEqual(look, ['Georgia', 'rgb(59, 47, 47)', 'rgb(253, 246, 227)', 'inherit']);
  // Without them: theme auto, dark for a dark-mode reader, as before.
  await page.goto(suite.server.url + 'embed.html#stages=attn_weights_causal');
  await page.reload();
  await widgetsReady(page);
  assert.equal(
    await page.evaluate(
      () =>
        getComputedStyle(
          document.querySelector('causal-attention-demo').shadowRoot.querySelector('.ca'),
        ).backgroundColor,
    ),
    'rgb(18, 20, 23)',
  );
  await done(w);
});

// The content height of the first iframe of a page, once its widget has rendered.
async function frameContent(page) {
  await page.frameLocator('iframe').locator('causal-attention-demo[data-state=ready]').waitFor();
  return page.evaluate(() => {
    const f = document.querySelector('iframe');
    return [
      Math.ceil(f.contentDocument.documentElement.getBoundingClientRect().height),
      f.clientHeight,
      getComputedStyle(f).borderTopWidth,
    ];
  });
}

test("iframe heights: the Embed button's snippet and docs/embedding.md's fit their stage, without a border", async () => {
  const w = await open(suite.server.url, DESKTOP),
    page = w.page;
  await ready(page);
  const width = await page.$eval(
    '[data-stage="attn_weights_causal"]',
    (e) => e.getBoundingClientRect().width,
  );
  const snippet = await page.evaluate(
    () =>
      new Promise((resolve) => {
        document.addEventListener('ca-export', (e) => resolve(e.detail.text), { once: true });
        document
          .querySelector('[data-stage="attn_weights_causal"] button[data-export=embed]')
          .click();
      }),
  );
  const height = +snippet.match(/<iframe [^>]*height="(\d+)"/)[1];
  assert.match(snippet, /<iframe [^>]*style="border:0"/);
  files['host.css'] = `body{margin:0}main{width:${width}px}`;
  files['pasted.html'] = HOST(snippet.slice(snippet.indexOf('<iframe')));
  await page.goto(suite.server.url + 'pasted.html');
  let [content, frame, border] = await frameContent(page);
  assert.equal(border, '0px');
  assert.equal(frame, height);
  assert.ok(
    height >= content && height <= content + 2,
    `Embed: height="${height}" for ${content} px of content`,
  );

  const doc = fs.readFileSync(path.join(root, 'docs/embedding.md'), 'utf8');
  const iframe = doc.match(/<iframe [\s\S]*?<\/iframe>/)[0];
  const readmeHeight = +iframe.match(/height="(\d+)"/)[1];
  files['host.css'] = 'body{margin:0}main{width:700px}';
  files['readme.html'] = HOST(
    iframe.replace('https://example.org/causal-attention/', suite.server.url),
  );
  await page.goto(suite.server.url + 'readme.html');
  [content, frame, border] = await frameContent(page);
  assert.equal(border, '0px');
  assert.ok(
    readmeHeight >= content && readmeHeight <= content + 2,
    `docs/embedding.md: height="${readmeHeight}" for ${content} px of content in a 700 px column`,
  );
  await done(w);
});

test('widget on a phone: a 6 × 6 table fits with compact digits; wider ones fade where they scroll and keep their row labels in sight', async () => {
  files['host.css'] = 'body{margin:0 8px;font:16px Georgia,serif}';
  files['phone.html'] = HOST(
    '<causal-attention-demo stages="attn_weights_causal"></causal-attention-demo>' +
      '<causal-attention-demo id="wide" stages="inputs" config=\'{"inputs": {"randn": [6, 12]}}\'></causal-attention-demo>',
  );
  const w = await open(suite.server.url + 'phone.html', PHONE),
    page = w.page;
  await widgetsReady(page);
  const fit = await page.evaluate(() =>
    Array.from(document.querySelectorAll('causal-attention-demo'), (d) => {
      const box = d.shadowRoot.querySelector('.scroll'),
        td = box.querySelector('td'),
        th = box.querySelector('tbody th');
      return [
        box.scrollWidth <= box.clientWidth,
        getComputedStyle(td).fontSize,
        getComputedStyle(th).position,
        box.dataset.more || '',
        getComputedStyle(box).maskImage.slice(0, 23),
      ];
    }),
  );
  assert.deepEqual(
    fit,
    [
      [true, '12px', 'sticky', '', 'none'],
      [false, '12px', 'sticky', 'right', 'linear-gradient(to left'],
    ],
    ".75 of the host's 16 px; a fade where it scrolls",
  );
  await page.screenshot({ path: path.join(shots, 'blog-phone.png'), fullPage: true });
  await done(w);
});
