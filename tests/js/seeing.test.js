// Seeing attention at a glance (issue 20): weights shaded relative to their row (and the
// absolute switch), masked cells alike in tables and heatmaps, every head at once (small
// multiples), exercise 3.3's first screen, lecture slides that fill the screen, the map of
// the chapter, and the layout fixes. Pixels and sizes are measured, never times.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { browserSuite, settled, pageHash } = require('./browser');
const { runCli, loadApi } = require('./support');

const BOOK = runCli({});
const stageOf = (res, id) => res.stages.find((s) => s.id === id);
const hashOf = (c) => '#' + encodeURIComponent(JSON.stringify(c));

const suite = browserSuite();
const open = (hash = '', opts = {}) =>
  suite.open(hash, { viewport: { width: 1440, height: 900 }, ...opts });
const done = suite.done;

// The --v (shade, 0 to 1) of every value cell of a stage's first table, by row; null: none.
function shades(page, id) {
  return page.evaluate(
    (s) =>
      Array.from(document.querySelector(`#main [data-stage="${s}"] table.t`).tBodies[0].rows, (r) =>
        Array.from(r.querySelectorAll('td'), (td) => {
          const v = td.style.getPropertyValue('--v');
          return v === '' ? null : +v;
        }),
      ),
    id,
  );
}

// The relative scale (lib/scale.js): weight x of a row of n visible keys at x·n/2, at most 1
// (uniform attention, 1/n, the middle shade).
const share = (x, n) => Math.min(1, (Math.abs(Math.fround(x)) * n) / 2);

test('weights are shaded relative to uniform attention: every row shows its structure; the switch gives 0 to 1; the key says which', async () => {
  const w = await open(),
    page = w.page;
  const st = stageOf(BOOK, 'attn_weights_causal'),
    T = st.shape[0];
  let got = await shades(page, 'attn_weights_causal');
  for (let i = 0; i < T; i++)
    // Visible keys: weight × (i + 1) / 2 (4 decimals); masked keys: not shaded.
    assert.deepEqual(
      got[i],
      st.data.slice(i * T, (i + 1) * T).map((x, j) => (j > i ? null : +share(x, i + 1).toFixed(4))),
      `row ${i}`,
    );
  // Row 5 of the book's weights spans 0.15 to 0.19 (0.04 of the 0-1 scale): 3 times that here.
  const spread = (r) => Math.max(...r) - Math.min(...r);
  assert.ok(spread(got[5]) > 0.12, `row 5 spans ${spread(got[5])}`);
  let key = await page.evaluate(() => {
    const k = document.querySelector('#main [data-stage="attn_weights_causal"] .ck');
    return {
      scale: k.dataset.scale,
      text: k.textContent,
      steps: Array.from(k.querySelectorAll('.ks span'), (s) => +s.style.getPropertyValue('--v')),
    };
  });
  assert.equal(key.scale, 'row');
  assert.match(
    key.text,
    /^Colour key: 0.*2 × uniform\(shade ∝ weight × its row’s n visible keys: the middle shade is uniform attention, 1\/n/,
  );
  assert.match(key.text, /masked$/);
  assert.deepEqual(
    key.steps,
    Array.from({ length: 12 }, (_, n) => +(n / 11).toFixed(4)),
  );
  // The drawing's lines: the same share, 8 px at twice uniform.
  const widths = await page.evaluate(() =>
    Array.from(
      document.querySelectorAll('#main [data-stage="attn_weights_causal"] .dr line'),
      (l) => [+l.dataset.q, +l.dataset.k, l.getAttribute('stroke-width')],
    ),
  );
  assert.equal(widths.length, (T * (T + 1)) / 2);
  for (const [q, k, sw] of widths)
    assert.equal(sw, (share(st.data[q * T + k], q + 1) * 8).toFixed(3), `line ${q} → ${k}`);
  // The switch: the absolute 0-1 scale, in the tables, keys and drawings.
  await page.check('#scale-absolute');
  await settled(page);
  got = await shades(page, 'attn_weights_causal');
  assert.deepEqual(
    got[5],
    st.data.slice(5 * T, 6 * T).map((x) => +Math.fround(x).toFixed(4)),
  );
  key = await page.evaluate(
    () => document.querySelector('#main [data-stage="attn_weights_causal"] .ck').dataset.scale,
  );
  assert.equal(key, 'absolute');
  assert.equal(
    await page.evaluate(() =>
      document
        .querySelector('#main [data-stage="attn_weights_causal"] .dr line[data-q="5"][data-k="0"]')
        .getAttribute('stroke-width'),
    ),
    (Math.fround(st.data[5 * T]) * 8).toFixed(3),
  );
  await done(w);
});

// The colour a canvas pixel has and the colour of a table cell, both as [r, g, b].
test('tables and heatmaps shade masked cells alike (and every other cell)', async () => {
  const T = 40;
  const w = await open(hashOf({ inputs: { randn: [T, 4], seed: 3 } })),
    page = w.page;
  for (const id of ['masked', 'attn_weights_causal']) {
    const r = await page.evaluate(async (s) => {
      const box = document.querySelector(`#main [data-stage="${s}"]`);
      box.scrollIntoView();
      const canvas = box.querySelector('canvas'),
        h = CausalAttention.heatmap.state(canvas);
      await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)));
      // The exact table of the top left 32 × 32 values, under the heatmap.
      box.querySelector('.hb button[title^="Show the exact"]').click();
      const rgb = (colour) => {
        const c = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
        c.fillStyle = colour;
        c.fillRect(0, 0, 1, 1);
        return Array.from(c.getImageData(0, 0, 1, 1).data.slice(0, 3));
      };
      const all = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data; // one readback
      const pixel = (i, j) => {
        const x = Math.floor(((j + 0.5) * canvas.width) / h.m.cols),
          y = Math.floor(((i + 0.5) * canvas.height) / h.m.rows),
          k = 4 * (y * canvas.width + x);
        return Array.from(all.slice(k, k + 3));
      };
      const cell = (i, j) => {
        const td = box.querySelector(`.hm .scroll td[data-row="${i}"][data-col="${j}"]`);
        let bg = getComputedStyle(td).backgroundColor;
        if (bg === 'rgba(0, 0, 0, 0)') bg = getComputedStyle(document.body).backgroundColor;
        return { rgb: rgb(bg), cls: td.className };
      };
      return [
        [3, 20],
        [0, 1],
        [20, 3],
        [31, 31],
      ].map(([i, j]) => ({ at: [i, j], cell: cell(i, j), pixel: pixel(i, j) }));
    }, id);
    for (const c of r) {
      const far = c.cell.rgb.some((x, k) => Math.abs(x - c.pixel[k]) > 2);
      assert.ok(!far, `${id}[${c.at}] (${c.cell.cls}): table ${c.cell.rgb}, heatmap ${c.pixel}`);
    }
  }
  await done(w);
});

test('every head at once: the book\'s 2 heads side by side, each its own drawing, labelled "head h of 2"', async () => {
  const w = await open('#stage=mha.attn_weights'),
    page = w.page;
  const st = stageOf(BOOK, 'mha.attn_weights'),
    [B, H, T] = st.shape;
  const heads = () =>
    page.evaluate(() => {
      const box = document.querySelector('#main [data-stage="mha.attn_weights"]');
      return Array.from(box.querySelectorAll('.heads > .head'), (h) => {
        const t = h.querySelector('table.t'),
          r = t.getBoundingClientRect();
        return {
          slice: +t.dataset.slice,
          caption: t.caption.querySelector('.sub').textContent,
          top: Math.round(r.top),
          left: Math.round(r.left),
          drawings: h.querySelectorAll('.dr svg').length,
          lines: Array.from(
            h.querySelectorAll('.dr line'),
            (l) => +l.dataset.q * 100 + +l.dataset.k,
          ),
          first: h.querySelector('td').textContent,
        };
      });
    });
  let got = await heads();
  assert.equal(got.length, H);
  got.forEach((h, k) => {
    assert.equal(h.slice, k);
    assert.match(h.caption, new RegExp(`batch element 1 of ${B}, head ${k + 1} of ${H}$`));
    assert.equal(h.drawings, 1, 'one drawing per head: no head drawn over another');
    assert.equal(h.lines.length, (T * (T + 1)) / 2); // its own head's unmasked pairs only
    assert.equal(h.first, st.data[k * T * T].toFixed(4));
  });
  assert.equal(got[0].top, got[1].top, 'side by side at 1440 px');
  assert.ok(got[1].left > got[0].left);
  // Batch element 2: its heads, slices 2 and 3.
  await page.selectOption('#main [data-stage="mha.attn_weights"] .pick select', '1');
  got = await heads();
  assert.deepEqual(
    got.map((h) => h.slice),
    [2, 3],
  );
  assert.match(got[1].caption, /batch element 2 of 2, head 2 of 2$/);
  // One way to name a head everywhere: "head h of H", never "head 0".
  const text = await page.evaluate(() =>
    Array.from(
      document.querySelectorAll('#main [data-stage^="mha."] :is(caption, .hc, button, .dr)'),
      (e) => e.textContent + ' ' + (e.getAttribute('aria-label') || ''),
    ).join('\n'),
  );
  assert.match(text, /head 2 of 2/);
  assert.doesNotMatch(text, /\bhead 0\b/);
  await done(w);
});

test("exercise 3.3: its first screen holds the 12 heads and the timing; heatmaps show the causal triangle and the rows; the sidebar is the module's", async () => {
  const api = await loadApi();
  const w = await open('#preset=gpt2', { viewport: { width: 1440, height: 900 }, wait: false }),
    page = w.page;
  await page.waitForSelector('#progress[data-state="done"]', { timeout: 240000 });
  await page.waitForFunction(() => document.documentElement.dataset.ready === '1');
  await settled(page);
  await page.evaluate(() => document.defaultView.scrollTo(0, 0));
  const first = await page.evaluate(() => {
    const thumbs = Array.from(
      document.querySelectorAll('#main [data-stage="mha.attn_weights"] .thumbs button'),
    );
    return {
      labels: thumbs.map((t) => t.textContent),
      bottoms: thumbs.map((t) => t.getBoundingClientRect().bottom),
      progress: document.getElementById('progress').getBoundingClientRect().bottom,
      dropout: document.getElementById('dropout').closest('.f').offsetParent === null,
      classDropout: document.getElementById('class_dropout').value,
    };
  });
  assert.deepEqual(
    first.labels,
    Array.from({ length: 12 }, (_, h) => `head ${h + 1} of 12`),
  );
  for (const b of first.bottoms.concat(first.progress))
    assert.ok(b <= 900, `on the first screen: ${b}`);
  assert.ok(first.dropout, "the §3.5.2 example's dropout p is not the module's: hidden");
  assert.equal(first.classDropout, '0');
  // Pixels of the enlarged head (1024 × 1024 on 480 px, no zoom) and of a thumbnail.
  const px = await page.evaluate(() => {
    const box = document.querySelector('#main [data-stage="mha.attn_weights"]');
    const measure = (canvas) => {
      const ctx = canvas.getContext('2d', { willReadFrequently: true }),
        W = canvas.width,
        d = ctx.getImageData(0, 0, W, W).data;
      const lum = (p) => 0.2126 * d[p] + 0.7152 * d[p + 1] + 0.0722 * d[p + 2];
      const up = [],
        low = [];
      for (let y = 2; y < W - 2; y += 3)
        for (let x = 2; x < W - 2; x += 3) {
          if (Math.abs(x - y) < 4) continue;
          (x > y ? up : low).push(lum(4 * (y * W + x)));
        }
      const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
      const sd = (a) => Math.sqrt(mean(a.map((v) => (v - mean(a)) ** 2)));
      return {
        up: mean(up),
        upSd: sd(up),
        low: mean(low),
        lowSd: sd(low),
        css: canvas.style.width,
      };
    };
    return {
      big: measure(box.querySelector('.hm canvas')),
      thumb: measure(box.querySelector('.thumbs canvas')),
    };
  });
  for (const [name, m] of Object.entries(px)) {
    // The triangle: the masked half is one flat grey, the causal half far from it...
    assert.ok(m.upSd < 1, `${name}: the masked half is flat (${m.upSd})`);
    assert.ok(Math.abs(m.up - m.low) > 40, `${name}: the triangle shows (${m.up} vs ${m.low})`);
    // ...and, in the enlarged head, the rows' weights are not one flat colour (main's 0-1 scale
    // painted them all the scale's faintest: sd < 1). A thumbnail averages 7 × 7 values a pixel:
    // random weights near uniform attention average to its middle shade.
    if (name === 'big')
      assert.ok(m.lowSd > 8, `${name}: the rows show their structure (sd ${m.lowSd})`);
  }
  // Labels of random rows are token indices; zooming keeps the canvas's size.
  const hm = await page.evaluate(async () => {
    const canvas = document.querySelector('#main [data-stage="mha.attn_weights"] .hm canvas'),
      h = CausalAttention.heatmap.state(canvas),
      before = canvas.getBoundingClientRect().width;
    canvas.focus();
    for (let k = 0; k < 6; k++)
      canvas.dispatchEvent(
        new document.defaultView.KeyboardEvent('keydown', { key: '+', bubbles: true }),
      );
    return {
      labels: [h.m.rowLabel(0), h.m.rowLabel(1023), h.m.colLabel(5)],
      before,
      after: canvas.getBoundingClientRect().width,
      rows: h.view.rows,
    };
  });
  assert.deepEqual(hm.labels, ['0', '1023', '5']);
  assert.equal(hm.rows, 16);
  assert.equal(hm.after, hm.before);
  assert.equal(hm.before, 480);
  // A thumbnail enlarges its head: head 12 of batch element 2 is the module's slice 23.
  await page.selectOption('#main [data-stage="mha.attn_weights"] .pick select', '1');
  await page.click('#main [data-stage="mha.attn_weights"] .thumbs button[data-head="11"]');
  const want = api.run({}, { preset: 'gpt2', stages: ['mha.context_vecs'] });
  assert.ok(want);
  const picked = await page.evaluate(() => {
    const box = document.querySelector('#main [data-stage="mha.attn_weights"]'),
      m = CausalAttention.heatmap.state(box.querySelector('.hm canvas')).m;
    return {
      pressed: box.querySelector('.thumbs [aria-pressed=true]').textContent,
      slice: +box.querySelector('.hm').dataset.slice,
      values: [m.value(0, 0), m.value(0, 1), m.value(1023, 1023) > 0],
    };
  });
  assert.deepEqual(picked, { pressed: 'head 12 of 12', slice: 23, values: [1, 0, true] });
  await done(w);
});

// The smallest value cell of the slide, its caption texts, and whether the slide fits.
function slideCells(page) {
  return page.evaluate(() => {
    const box = document.getElementById('lecture'),
      tds = Array.from(box.querySelectorAll('td'));
    return {
      id: box.querySelector('[data-stage]').dataset.stage,
      min: Math.min(...tds.map((td) => td.getBoundingClientRect().height)),
      subs: Array.from(box.querySelectorAll('caption .sub, .hc .sub'))
        .filter((s) => s.getBoundingClientRect().height > 0)
        .map((s) => s.textContent),
      fits: box.scrollHeight <= box.clientHeight && box.scrollWidth <= box.clientWidth,
    };
  });
}

for (const [width, height, least] of [
  [1280, 720, 28],
  [1920, 1080, 40],
]) {
  test(`lecture slides fill ${width}×${height}: cells at least ${least} px tall on every slide, batch and head captions shown`, async () => {
    const w = await open('#stage=inputs&lecture', { viewport: { width, height } }),
      page = w.page;
    for (const st of BOOK.stages) {
      const s = await slideCells(page);
      assert.equal(s.id, st.id);
      assert.ok(s.fits, `${st.id} fits`);
      assert.ok(s.min >= least, `${st.id}: cells ${s.min} px tall`);
      if (st.shape.length > 2 && st.shape[st.shape.length - 1] <= 32)
        assert.ok(
          s.subs.length >= 2 && s.subs.every((t) => / of \d+/.test(t)),
          `${st.id}: ${s.subs}`,
        );
      await page.keyboard.press('PageDown');
    }
    await done(w);
  });
}

test('lecture: a clicked number is explained on the slide; Back and Forward step through the slides', async () => {
  const w = await open('#stage=attn_scores&lecture', { viewport: { width: 1280, height: 720 } }),
    page = w.page;
  await page.click('#lecture td[data-row="1"][data-col="2"]');
  const lx = await page.evaluate(() => {
    const x = document.querySelector('#lecture .lx');
    return (
      x && {
        visible: x.getBoundingClientRect().height > 0,
        title: x.querySelector('h3').textContent,
      }
    );
  });
  const st = stageOf(BOOK, 'attn_scores');
  assert.deepEqual(lx, { visible: true, title: `attn_scores[1, 2] = ${st.data[8].toFixed(4)}` });
  await page.keyboard.press('Escape'); // the explanation first
  assert.equal(await page.locator('#lecture .lx').count(), 0);
  assert.equal(await page.evaluate(() => document.getElementById('lecture').hidden), false);
  const ids = BOOK.stages.map((s) => s.id),
    k = ids.indexOf('attn_scores');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const slide = () =>
    page.evaluate(() => document.querySelector('#lecture [data-stage]').dataset.stage);
  assert.equal(await slide(), ids[k + 2]);
  await page.goBack();
  await page.waitForFunction(
    (id) => document.querySelector(`#lecture [data-stage="${id}"]`),
    ids[k + 1],
  );
  await page.goBack();
  await page.waitForFunction(
    (id) => document.querySelector(`#lecture [data-stage="${id}"]`),
    ids[k],
  );
  await page.goForward();
  await page.waitForFunction(
    (id) => document.querySelector(`#lecture [data-stage="${id}"]`),
    ids[k + 1],
  );
  assert.equal(await page.evaluate(() => document.getElementById('lecture').hidden), false);
  await done(w);
});

test("lecture on a phone: the slide's table is readable and whole in width, the drawing's labels at least 11 px", async () => {
  const w = await open('#stage=attn_weights_causal&lecture', {
      viewport: { width: 390, height: 844 },
    }),
    page = w.page;
  const r = await page.evaluate(() => {
    const box = document.getElementById('lecture');
    return {
      cell: box.querySelector('td').getBoundingClientRect().height,
      wide: box.scrollWidth <= box.clientWidth, // a wide table scrolls inside, with its row labels
      label: Math.min(
        ...Array.from(
          box.querySelectorAll('.dr .tk text'),
          (t) => t.getBoundingClientRect().height,
        ),
      ),
    };
  });
  assert.ok(r.cell >= 24, `cells ${r.cell} px`);
  assert.ok(r.wide);
  assert.ok(r.label >= 11, `labels ${r.label} px`);
  await done(w);
});

test("the map of the chapter: every node its stage's shape and link, the stage on screen lit, view and transpose drawn", async () => {
  const w = await open(),
    page = w.page;
  const nodes = await page.evaluate(() =>
    Array.from(document.querySelectorAll('#map .mn'), (a) => ({
      id: a.dataset.node,
      href: a.getAttribute('href'),
      shape: a.querySelector('.ms').textContent,
    })),
  );
  const ids = nodes.map((n) => n.id);
  for (const id of [
    'inputs',
    'queries',
    'keys',
    'values',
    'attn_scores',
    'masked',
    'attn_weights_causal',
    'attn_weights_dropped',
    'context_vecs',
    'mha.queries',
    'mha.attn_weights',
    'mha.context_vecs',
    'qkv.context_vecs', // beyond chapter 3: a node per section that computes the layer again
    'einsum.context_vecs',
    'flash.context_vecs',
    'kv.context_vecs',
  ])
    assert.ok(ids.includes(id), id);
  // nn.MultiheadAttention's section is empty at the book's d_in 3, d_out 2: no node
  assert.ok(!ids.includes('torchmha.context_vecs'));
  for (const n of nodes) {
    assert.equal(n.href, `#${n.id}`);
    assert.equal(n.shape, `(${stageOf(BOOK, n.id).shape.join(', ')})`);
  }
  // Every operation's label sits on a backing in the map's background, wider and taller than
  // its text: the edges pass under the label instead of striking it through.
  const labels = await page.evaluate(() =>
    Array.from(document.querySelectorAll('#map .mo'), (t) => {
      const b = t.getBBox(),
        r = t.previousElementSibling,
        rb = r && r.getBBox();
      return {
        text: t.textContent,
        backed:
          !!r &&
          r.classList.contains('mb') &&
          rb.x <= b.x &&
          rb.x + rb.width >= b.x + b.width &&
          rb.y <= b.y + 1.5 &&
          rb.y + rb.height >= b.y + b.height - 1.5,
        fill: r && getComputedStyle(r).fill,
        bg: getComputedStyle(document.body).backgroundColor,
      };
    }),
  );
  assert.ok(labels.length >= 10, `${labels.length} labels`);
  for (const l of labels) {
    assert.ok(l.backed, `"${l.text}" not covered by its backing`);
    assert.equal(l.fill, l.bg, l.text);
  }
  // A click scrolls to the stage (the hash keeps the settings); the node on screen is lit.
  await page.click('#map .mn[data-node="attn_weights_causal"]');
  await page.waitForFunction(() =>
    document.querySelector('#map .mn[data-node="attn_weights_causal"][aria-current]'),
  );
  assert.equal(await pageHash(page), '');
  assert.equal(await page.locator('#map .mn[aria-current]').count(), 1);
  // d_out = 4 and 2 heads: the shapes follow; view + transpose: columns 0-1 head 1, 2-3 head 2.
  await page.fill('#d_out', '4');
  await page.waitForFunction(
    () => document.querySelector('#map .mn[data-node="queries"] .ms').textContent === '(6, 4)',
  );
  const vt = await page.evaluate(() =>
    Array.from(document.querySelectorAll('#map .vt .mh title'), (t) => t.textContent),
  );
  assert.deepEqual(vt, ['columns 0–1 → head 1 of 2', 'columns 2–3 → head 2 of 2']);
  assert.equal(await page.textContent('#map .mn[data-node="mha.queries"] .ms'), '(2, 2, 6, 2)');
  await done(w);
});

test("layout: the phone's open settings leave the first table on the first screen; row headers are whole; the editor names tokens", async () => {
  const w = await open('', { viewport: { width: 390, height: 844 } }),
    page = w.page;
  await page.click('#settings > summary');
  await page.fill('#d_out', '3');
  await settled(page);
  // Scrolled past the header: the open settings stay at the top, d_out in sight, and the first
  // table shows under them.
  const at = await page.evaluate(() => {
    document.defaultView.scrollTo(0, document.getElementById('controls').offsetTop);
    const r = (e) => e.getBoundingClientRect();
    return {
      dOut: r(document.getElementById('d_out')),
      table: r(document.querySelector('#main [data-stage] table')).top,
    };
  });
  assert.ok(at.dOut.top >= 0 && at.dOut.bottom <= 844, `d_out at ${at.dOut.top} px`);
  assert.ok(at.table < 844 - 150, `the first table starts at ${at.table} px`);
  const cut = await page.evaluate(() =>
    Array.from(document.querySelectorAll('#main tbody th'))
      .filter((th) => th.scrollWidth > th.clientWidth + 1)
      .map((th) => th.textContent),
  );
  assert.deepEqual(cut, []);
  const label = await page.getAttribute(
    '#inputs-editor input[name=inputs][data-row="1"][data-col="0"]',
    'aria-label',
  );
  assert.equal(label, '"journey" (token 1), feature 0');
  await done(w);
});

// The masked corner of a thumbnail and of the enlarged heatmap, as [r, g, b]: after the reader's
// system turns dark, both are repainted in the dark theme's masked grey.
test('thumbnails and heatmaps repaint in the new colours when the colour scheme changes', async () => {
  const w = await open(hashOf({ inputs: { randn: [40, 4], seed: 3 }, d_out: 8, num_heads: 4 })),
    page = w.page;
  const corners = () =>
    page.evaluate(async () => {
      const box = document.querySelector('#main [data-stage="mha.attn_weights"]');
      box.scrollIntoView();
      await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)));
      // Copied out (one pixel) so that the page's canvases are not read back twice.
      const corner = (c) => {
        const one = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
        one.drawImage(c, c.width - 2, 1, 1, 1, 0, 0, 1, 1);
        return Array.from(one.getImageData(0, 0, 1, 1).data.slice(0, 3));
      };
      return {
        thumbs: Array.from(box.querySelectorAll('.thumbs canvas'), corner),
        big: corner(box.querySelector('.hm canvas')),
        mk: getComputedStyle(box).getPropertyValue('--mk').trim(),
      };
    });
  const light = await corners();
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await corners();
  assert.notEqual(light.mk, dark.mk, 'the theme has another masked grey');
  assert.equal(light.thumbs.length, 4);
  for (const [name, at] of [
    ['light', light],
    ['dark', dark],
  ])
    for (const t of at.thumbs)
      assert.ok(
        t.every((x, k) => Math.abs(x - at.big[k]) <= 2),
        `${name}: thumbnail ${t}, heatmap ${at.big}`,
      );
  assert.ok(
    dark.big.some((x, k) => Math.abs(x - light.big[k]) > 40),
    `${light.big} -> ${dark.big}`,
  );
  await done(w);
});
