// The attention drawings in headless Chromium (one line per unmasked pair, widths ∝ the
// weights, in sync with the tables), the colour keys, lecture mode, the explanation's operands
// and the two dropout tables. Screenshots: build-scripts/screenshots.js.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { browserSuite, axeViolations, settled, pageHash } = require('./browser');
const { runCli, cli, execFileSync, pageText, root } = require('./support');

const BOOK = runCli({});
const stageOf = (res, id) => res.stages.find((s) => s.id === id);
const num = (v) => (typeof v === 'string' ? { '-inf': -Infinity, inf: Infinity, nan: NaN }[v] : v);
const fmt = (x) => (x === -Infinity ? '−∞' : x.toFixed(4));

const suite = browserSuite();
const open = (hash = '', opts = {}) =>
  suite.open(hash, { viewport: { width: 1280, height: 900 }, ...opts });
const done = suite.done;

// The lines of a stage's drawing as the SVG has them.
function lines(page, id) {
  return page.evaluate(
    (s) =>
      Array.from(document.querySelectorAll(`#main [data-stage="${s}"] .dr line`), (l) => ({
        q: +l.dataset.q,
        k: +l.dataset.k,
        w: l.getAttribute('stroke-width'),
        dashed: l.classList.contains('dp'),
        shown: getComputedStyle(l).display !== 'none',
      })),
    id,
  );
}

test('every (T, T) scores or weights stage has a drawing: one line per unmasked pair, width ∝ weight', async () => {
  const w = await open();
  const drawn = await w.page.evaluate(() =>
    Array.from(
      document.querySelectorAll('#main .dr'),
      (d) => d.closest('[data-stage]').dataset.stage,
    ),
  );
  assert.deepEqual(drawn, [
    'simple.attn_scores',
    'simple.attn_weights',
    'attn_scores',
    'attn_weights',
    'masked_simple',
    'masked_simple_norm',
    'masked',
    'attn_weights_causal',
    'attn_weights_dropped',
    'mha.attn_scores', // 4-D: one drawing per head of the batch element shown
    'mha.attn_scores',
    'mha.attn_weights',
    'mha.attn_weights',
    'einsum.scores', // the bonus notebook's MHAEinsum, scaled then masked
    'einsum.scores',
  ]);
  const causal = new Set([
    'masked_simple',
    'masked_simple_norm',
    'masked',
    'attn_weights_causal',
    'attn_weights_dropped',
  ]);
  const pattern = stageOf(BOOK, 'dropout_example').data;
  // The (T, T) stages; the 4-D ones (every head of a batch element) are checked with a
  // synthetic stage below.
  for (const id of drawn.filter((d) => stageOf(BOOK, d).shape.length < 4)) {
    const st = stageOf(BOOK, id),
      T = st.shape[0],
      x = st.data.map(num),
      scores = FACTS[id].kind === 'scores';
    const expected = [];
    for (let q = 0; q < T; q++)
      for (let k = 0; k < T; k++) if (!(causal.has(id) && k > q)) expected.push([q, k]);
    const top = Math.max(scores ? 0 : 1, ...expected.map(([q, k]) => Math.abs(x[q * T + k])));
    // Weights: ∝ weight × the query's n visible keys / 2, at most 1 (lib/scale.js's relative
    // scale); scores: ∝ |score| / top.
    const visible = (q) => expected.filter((e) => e[0] === q).length;
    const got = await lines(w.page, id);
    assert.deepEqual(
      got.map((l) => [l.q, l.k]),
      expected,
      id,
    );
    for (const l of got) {
      const dropped = id === 'attn_weights_dropped' && pattern[l.q * T + l.k] === 0;
      assert.equal(l.dashed, dropped, `${id}[${l.q}, ${l.k}] dashed`);
      assert.equal(
        l.w,
        dropped
          ? '1'
          : (
              (scores
                ? Math.abs(x[l.q * T + l.k]) / top
                : Math.min(1, (Math.abs(x[l.q * T + l.k]) * visible(l.q)) / 2)) * 8
            ).toFixed(3),
        `${id}[${l.q}, ${l.k}] width`,
      );
    }
  }
  // The book's first causal row puts all its weight on "Your", its one visible key: uniform
  // attention over one key, half width.
  assert.equal((await lines(w.page, 'attn_weights_causal'))[0].w, '4.000');
  await done(w);
});

test('pointing at a token shows only its lines and lights its table row; the table drives the drawing back', async () => {
  const w = await open(),
    page = w.page,
    id = 'attn_weights_causal';
  const litRows = () =>
    page.evaluate(
      (s) =>
        Array.from(
          document.querySelectorAll(`#main [data-stage="${s}"] td.ln`),
          (td) => `${td.dataset.row},${td.dataset.col}`,
        ),
      id,
    );
  await page.hover(`#main [data-stage="${id}"] .tk[data-side="q"][data-i="3"]`);
  assert.deepEqual(await litRows(), ['3,0', '3,1', '3,2', '3,3', '3,4', '3,5']);
  assert.deepEqual(
    (await lines(page, id)).filter((l) => l.shown).map((l) => `${l.q}-${l.k}`),
    ['3-0', '3-1', '3-2', '3-3'],
  );
  await page.hover(`#main [data-stage="${id}"] .tk[data-side="k"][data-i="4"]`);
  assert.deepEqual(await litRows(), ['0,4', '1,4', '2,4', '3,4', '4,4', '5,4']);
  assert.deepEqual(
    (await lines(page, id)).filter((l) => l.shown).map((l) => `${l.q}-${l.k}`),
    ['4-4', '5-4'],
  );
  await page.hover(`#main [data-stage="${id}"] td[data-row="5"][data-col="2"]`);
  assert.deepEqual(
    (await lines(page, id)).filter((l) => l.shown).map((l) => l.q),
    [5, 5, 5, 5, 5, 5],
  );
  // Keyboard: one tab stop per drawing, arrows move, the row follows; the name says the weights.
  await page.focus(`#main [data-stage="${id}"] .tk[tabindex="0"]`);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await litRows(), ['2,0', '2,1', '2,2', '2,3', '2,4', '2,5']);
  const name = await page.evaluate(() => document.activeElement.getAttribute('aria-label'));
  const w2 = stageOf(BOOK, id)
    .data.slice(12, 18)
    .map((x, k) => (k > 2 ? 'masked' : fmt(x)));
  assert.equal(
    name,
    `query starts attends to: Your ${w2[0]}, journey ${w2[1]}, starts ${w2[2]}, with masked, one masked, step masked`,
  );
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await litRows(), ['0,2', '1,2', '2,2', '3,2', '4,2', '5,2']);
  await done(w);
});

test('multi-head (B, H, T, T) stages: one drawing per head, of that head alone', async () => {
  const w = await open(),
    page = w.page;
  const r = await page.evaluate(() => {
    const CA = globalThis.CausalAttention,
      T = 4,
      H = 3,
      data = new Float32Array(2 * H * T * T);
    for (let n = 0; n < data.length; n++) data[n] = ((n * 7) % 10) / 10;
    const st = { id: 'mha_weights', shape: [2, H, T, T], data, title: 'x', code: 'x' };
    const wt = { config: { tokens: ['a', 'b', 'c', 'd'] }, stages: [st] };
    // Slice 5: batch element 1, head 2.
    const fig = CA.draw.figure(document, st, wt, 1 * H + 2, {
      rows: 'tok',
      cols: 'tok',
      kind: 'probabilities',
      causal: true,
      dropout: '',
    });
    return {
      lines: Array.from(fig.querySelectorAll('line'), (l) => [
        +l.dataset.q,
        +l.dataset.k,
        l.getAttribute('stroke-width'),
      ]),
      svgs: fig.querySelectorAll('svg').length,
      data: Array.from(data.slice((1 * H + 2) * T * T, (1 * H + 3) * T * T)),
    };
  });
  assert.equal(r.svgs, 1);
  assert.equal(r.lines.length, 10); // its unmasked pairs, one head
  // Query 3 (4 visible keys), key 1: its width is 8 × min(1, weight × 4 / 2).
  const line = r.lines.find((l) => l[0] === 3 && l[1] === 1);
  assert.equal(line[2], (Math.min(1, (r.data[13] * 4) / 2) * 8).toFixed(3));
  await done(w);
});

test('above 32 tokens the drawing says why it is hidden', async () => {
  const w = await open(
    '#' + encodeURIComponent(JSON.stringify({ inputs: { randn: [33, 3], seed: 1 } })),
  );
  const text = await w.page.textContent('#main [data-stage="attn_weights_causal"] .dr');
  assert.match(text, /No drawing above 32 tokens \(T = 33\)/);
  assert.equal(await w.page.locator('#main .dr line').count(), 0);
  await done(w);
});

// The colour (computed background) of a key's end swatches and of the cells holding the ends.
async function keyEnds(page) {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('#main [data-stage] .scroll'), (sc) => {
      const key = sc.querySelector('.ck');
      if (!key) return null;
      const sw = key.querySelectorAll('.ks span'),
        bg = (e) => getComputedStyle(e).backgroundColor;
      const t = sc.querySelector('table'),
        cells = Array.from(t.querySelectorAll('td'));
      return {
        id: sc.closest('[data-stage]').dataset.stage,
        batch: +t.dataset.slice,
        lo: bg(sw[0]),
        hi: bg(sw[sw.length - 1]),
        loText: key.querySelector('.kl').textContent,
        scale: key.dataset.scale,
        steps: Array.from(sw, (e) => +e.style.getPropertyValue('--v')),
        shades: cells.map((td) => +td.style.getPropertyValue('--v')),
        masked: key.querySelector('.km .mk') && bg(key.querySelector('.km .mk')),
        hiText: key.querySelector('.kh').textContent,
        cells: cells.map(bg),
        page: getComputedStyle(document.body).backgroundColor,
      };
    }).filter(Boolean),
  );
}
// L of an oklab() or rgb() colour, for "further from the page = larger".
function lightness(c) {
  const ok = /oklab\(([\d.]+)/.exec(c);
  if (ok) return +ok[1];
  const [r, g, b] = c.match(/[\d.]+/g).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

// Every stage's facts (kind, causal), from the CLI's stage table.
const FACTS = Object.fromEntries(
  JSON.parse(
    execFileSync(cli, ['--list-stages', '--format', 'json'], { encoding: 'utf8' }),
  ).stages.map((s) => [s.id, s]),
);
for (const scheme of ['light', 'dark']) {
  test(`colour keys (${scheme}): end colours are the colours of the cells holding the range's ends, on the row and absolute scales`, async () => {
    const w = await open('', { colorScheme: scheme });
    for (const absolute of [false, true]) {
      if (absolute) {
        await w.page.check('#scale-absolute');
        await settled(w.page);
      }
      const keys = await keyEnds(w.page);
      const kinds = { probabilities: 0, signed: 0 };
      for (const k of keys) {
        const st = stageOf(BOOK, k.id),
          facts = FACTS[k.id],
          x = st.data.map(num),
          C = st.shape[st.shape.length - 1];
        const R = st.shape.length === 1 ? 1 : st.shape[st.shape.length - 2],
          part = x.slice(k.batch * R * C, (k.batch + 1) * R * C);
        // Masked cells of a causal stage (not a mask) are not shaded: one grey, out of the range.
        const cut = facts.causal && facts.kind !== 'mask',
          shown = (n) => !(cut && n % C > Math.floor(n / C)) && Number.isFinite(part[n]);
        const idx = part.map((_, n) => n).filter(shown),
          lo = Math.min(...idx.map((n) => part[n])),
          hi = Math.max(...idx.map((n) => part[n]));
        const seq = facts.kind === 'probabilities';
        kinds[seq ? 'probabilities' : 'signed']++;
        assert.equal(k.scale, seq && !absolute ? 'row' : 'absolute', k.id);
        if (seq && !absolute) {
          // Relative to uniform attention: weight × the row's n visible keys / 2, at most 1, on
          // the key's own rule (its 12 steps from 0 to 1).
          assert.equal(k.loText, '0', k.id);
          assert.equal(k.hiText, '2 × uniform', k.id);
          assert.deepEqual(
            k.steps,
            Array.from({ length: 12 }, (_, n) => +(n / 11).toFixed(4)),
            k.id,
          );
          for (let i = 0; i < R; i++) {
            const row = idx.filter((n) => Math.floor(n / C) === i);
            for (const n of row)
              assert.equal(
                k.shades[n],
                +Math.min(1, (Math.abs(part[n]) * row.length) / 2).toFixed(4),
                `${k.id}[${n}]`,
              );
          }
        } else {
          const text = pageText(idx.map((n) => part[n])); // %.4e when 4 decimals read 0.0000
          assert.equal(k.loText, text(lo), k.id);
          assert.equal(k.hiText, text(hi), k.id);
          const holding = (x) => idx.find((n) => part[n] === x); // a shaded cell holding x
          assert.equal(k.cells[holding(lo)], k.lo, `${k.id}: the cell holding ${lo}`);
          assert.equal(k.cells[holding(hi)], k.hi, `${k.id}: the cell holding ${hi}`);
        }
        if (cut)
          for (let n = 0; n < part.length; n++)
            if (n % C > Math.floor(n / C))
              assert.equal(k.cells[n], k.masked, `${k.id}[${n}]: masked`);
        // A stage of one value (kv.mask: all 0, nothing to hide) has one colour at both ends.
        if (lo === hi) {
          assert.equal(k.lo, k.hi, k.id);
          continue;
        }
        assert.notEqual(k.lo, k.hi, k.id);
        // What the key says ("faint = small"): the larger end is further from the page's lightness.
        if (seq || lo >= 0) {
          const page = lightness(k.page);
          assert.ok(
            Math.abs(lightness(k.hi) - page) > Math.abs(lightness(k.lo) - page),
            `${k.id}: ${k.lo} → ${k.hi} on ${k.page}`,
          );
        }
      }
      assert.ok(kinds.probabilities >= 6 && kinds.signed >= 12, JSON.stringify(kinds));
    }
    await done(w);
  });
}

// A shaded cell's text (lib/styles.js): black on the page's side of its scale's cut (--cs, --cd,
// --cn), white past it, the dark theme the other way round, the cut itself as the page's side
// in light and as past it in dark; hsl() clamps the lightness, so exactly black or white. Its
// font: --mono's, written out (not var(--mono), which a cell would resolve on each restyle).
for (const scheme of ['light', 'dark'])
  test(`shaded cells (${scheme}): text black or white on each side of the scale's cut; the font is --mono's`, async () => {
    const w = await open('', { colorScheme: scheme });
    const got = await w.page.evaluate(() => {
      const td = document.querySelector('#main table.t td.d'),
        probe = td.parentNode.appendChild(document.createElement('td')),
        root = getComputedStyle(document.documentElement),
        out = { font: getComputedStyle(td).font, cuts: {}, at: {} };
      probe.style.font = 'var(--mono)';
      out.mono = getComputedStyle(probe).font;
      probe.style.font = '';
      for (const [cls, cut] of [
        ['h', 'cs'],
        ['d', 'cd'],
        ['d ng', 'cn'],
      ]) {
        const c = +root.getPropertyValue('--' + cut);
        out.at[cls] = c;
        probe.className = cls;
        out.cuts[cls] = [0, c - 1e-4, c, c + 1e-4, 1].map((v) => {
          probe.style.setProperty('--v', v.toFixed(4));
          return getComputedStyle(probe).color;
        });
      }
      probe.remove();
      return out;
    });
    assert.match(got.font, /monospace/);
    assert.equal(got.font, got.mono);
    const [k, wh] = ['rgb(0, 0, 0)', 'rgb(255, 255, 255)'];
    const want = scheme === 'light' ? [k, k, k, wh, wh] : [wh, wh, k, k, k];
    for (const cls of ['h', 'd', 'd ng']) assert.deepEqual(got.cuts[cls], want, cls);
    if (scheme === 'light') {
      // exports (picture.js) draw the light theme's cells with shade(): the same text colours
      const { shade } = await import(
        'data:text/javascript,' +
          encodeURIComponent(fs.readFileSync(path.join(root, 'web/lib/styles.js'), 'utf8'))
      );
      for (const cls of ['h', 'd', 'd ng']) {
        const c = got.at[cls],
          fg = [0, c - 1e-4, c, c + 1e-4, 1].map(
            (v) =>
              ({ '#000': k, '#fff': wh })[shade(+v.toFixed(4), cls === 'h', cls === 'd ng').fg],
          );
        assert.deepEqual(fg, want, `an export's ${cls}`);
      }
    }
    await done(w);
  });

test('lecture mode: the keyboard steps through every stage, each fits 1280×720, the URL restores the slide', async () => {
  const w = await open('#stage=attn_weights_causal&lecture', {
      viewport: { width: 1280, height: 720 },
    }),
    page = w.page;
  const slide = async () => ({
    ...(await page.evaluate(() => {
      const box = document.getElementById('lecture');
      return {
        hidden: box.hidden,
        id: box.querySelector('[data-stage]').dataset.stage,
        title: box.querySelector('h2').textContent,
        counter: box.querySelector('.lc').textContent,
        section: box.querySelector('.ls').textContent,
        fits: box.scrollHeight <= box.clientHeight && box.scrollWidth <= box.clientWidth,
        focusInside: box.contains(document.activeElement),
      };
    })),
    hash: await pageHash(page),
  });
  const ids = BOOK.stages.map((s) => s.id);
  let s = await slide();
  assert.equal(s.hidden, false);
  assert.equal(s.id, 'attn_weights_causal');
  assert.equal(s.title, 'Causal attention weights');
  assert.equal(s.counter, `${ids.indexOf('attn_weights_causal') + 1} / ${ids.length}`);
  assert.equal(s.section, '§3.5.1 Applying a causal attention mask');
  assert.ok(s.focusInside);
  await page.keyboard.press('Home');
  for (let k = 0; k < ids.length; k++) {
    s = await slide();
    assert.equal(s.id, ids[k]);
    assert.equal(s.counter, `${k + 1} / ${ids.length}`);
    assert.equal(s.hash, `#stage=${encodeURIComponent(ids[k])}&lecture`);
    assert.ok(s.fits, `${ids[k]} fits 1280×720 without scrolling`);
    // The cells that changed from the previous slide flash.
    // (4-D slides show one picked slice: their flashes are not compared here.)
    if (k && stageOf(BOOK, ids[k]).shape.length < 4) {
      const prev = stageOf(BOOK, ids[k - 1]),
        cur = stageOf(BOOK, ids[k]);
      const chg = await page.evaluate(() =>
        Array.from(document.querySelectorAll('#lecture td'), (td) => td.classList.contains('chg')),
      );
      const same = prev.shape.join() === cur.shape.join();
      assert.deepEqual(
        chg,
        cur.data.map((x, n) => same && fmt(num(x)) !== fmt(num(prev.data[n]))),
        `changed cells of ${ids[k]}`,
      );
      if (ids[k] === 'masked')
        assert.equal(
          await page.evaluate(
            () => getComputedStyle(document.querySelector('#lecture td.chg')).animationName,
          ),
          'chg',
        );
    }
    await page.keyboard.press(k % 2 ? 'ArrowRight' : 'PageDown');
  }
  assert.equal((await slide()).id, ids[ids.length - 1]); // stays on the last
  await page.keyboard.press('PageUp');
  assert.equal((await slide()).id, ids[ids.length - 2]);
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  assert.equal((await slide()).id, ids[ids.length - 2]);
  // Arrows leave a clicked table cell for the next slide (clickers and teachers use them).
  await page.click('#lecture td[data-row="0"][data-col="0"]');
  await page.keyboard.press('ArrowLeft');
  assert.equal((await slide()).id, ids[ids.length - 3]);
  await page.keyboard.press('ArrowRight');
  assert.equal((await slide()).id, ids[ids.length - 2]);
  // The URL restores the same slide, in a fresh page.
  const url = page.url();
  const w2 = await open(url.slice(url.indexOf('#')), {
    viewport: { width: 1280, height: 720 },
    reducedMotion: 'reduce',
  });
  assert.equal(
    await w2.page.evaluate(() => document.querySelector('#lecture [data-stage]').dataset.stage),
    ids[ids.length - 2],
  );
  await w2.page.keyboard.press('Home');
  for (let k = 0; k < ids.indexOf('masked'); k++) await w2.page.keyboard.press('PageDown');
  assert.equal(
    await w2.page.evaluate(
      () => getComputedStyle(document.querySelector('#lecture td.chg')).animationName,
    ),
    'none',
  );
  await done(w2);
  await page.keyboard.press('Escape');
  assert.equal(await page.evaluate(() => document.getElementById('lecture').hidden), true);
  assert.equal(await pageHash(page), '');
  await page.click('#lecture-start');
  assert.equal((await slide()).id, ids[0]);
  await done(w);
});

test('axe-core: no violations with the drawings and keys, and in lecture mode, light and dark', async () => {
  for (const scheme of ['light', 'dark']) {
    const w = await open('', { colorScheme: scheme });
    assert.deepEqual(await axeViolations(w.page), [], `page, ${scheme}`);
    await w.page.click('#lecture-start');
    await w.page.keyboard.press('End');
    await w.page.keyboard.press('ArrowLeft');
    assert.deepEqual(await axeViolations(w.page), [], `lecture mode, ${scheme}`);
    await done(w);
  }
});

test('the explanation marks its operands in their tables', async () => {
  const w = await open(),
    page = w.page;
  const ops = () =>
    page.evaluate(() =>
      Array.from(
        document.querySelectorAll('#main td.op'),
        (td) => `${td.closest('[data-stage]').dataset.stage}[${td.dataset.row},${td.dataset.col}]`,
      ),
    );
  await page.click('#main [data-stage="attn_scores"] td[data-row="4"][data-col="1"]');
  assert.deepEqual(await ops(), ['queries[4,0]', 'queries[4,1]', 'keys[1,0]', 'keys[1,1]']);
  await page.click('#main [data-stage="context_vec"] td[data-row="2"][data-col="1"]');
  assert.deepEqual(await ops(), [
    'values[0,1]',
    'values[1,1]',
    'values[2,1]',
    'values[3,1]',
    'values[4,1]',
    'values[5,1]',
    'attn_weights[2,0]',
    'attn_weights[2,1]',
    'attn_weights[2,2]',
    'attn_weights[2,3]',
    'attn_weights[2,4]',
    'attn_weights[2,5]',
  ]);
  await page.click('#main [data-stage="attn_weights_causal"] td[data-row="3"][data-col="0"]');
  assert.deepEqual(await ops(), [
    'masked[3,0]',
    'masked[3,1]',
    'masked[3,2]',
    'masked[3,3]',
    'masked[3,4]',
    'masked[3,5]',
  ]);
  // §3.3 and §3.4: the weights row and the inputs column; the inputs row and W_key's column.
  await page.click('#main [data-stage="simple.all_context_vecs"] td[data-row="2"][data-col="1"]');
  const all = [0, 1, 2, 3, 4, 5];
  assert.deepEqual(await ops(), [
    ...all.map((k) => `inputs[${k},1]`),
    ...all.map((k) => `simple.attn_weights[2,${k}]`),
  ]);
  await page.click('#main [data-stage="v1.keys"] td[data-row="3"][data-col="0"]');
  assert.deepEqual(await ops(), [
    ...[0, 1, 2].map((k) => `inputs[3,${k}]`),
    ...[0, 1, 2].map((k) => `v1.W_key[${k},0]`),
  ]);
  await page.click('#explain-close');
  assert.deepEqual(await ops(), []);
  await done(w);
});

test('"Why are my numbers different?": the two generators\' real tables side by side, differences marked', async () => {
  for (const rng of ['default', 'mkl']) {
    const w = await open(rng === 'mkl' ? '#' + encodeURIComponent('{"rng":"mkl"}') : '');
    const got = await w.page.evaluate(() =>
      Array.from(document.querySelectorAll('.why table'), (t) => ({
        rng: t.dataset.rng,
        cells: Array.from(t.querySelectorAll('td'), (td) => [
          td.textContent,
          td.classList.contains('df'),
        ]),
      })),
    );
    const cli = { default: runCli({ rng: 'default' }), mkl: runCli({ rng: 'mkl' }) };
    assert.deepEqual(
      got.map((t) => t.rng),
      ['default', 'mkl', 'default', 'mkl'],
    );
    ['dropout_example', 'attn_weights_dropped'].forEach((id, n) => {
      const a = stageOf(cli.default, id).data,
        b = stageOf(cli.mkl, id).data;
      assert.deepEqual(
        got[2 * n].cells,
        a.map((x, k) => [fmt(x), x !== b[k]]),
        `${id}, default`,
      );
      assert.deepEqual(
        got[2 * n + 1].cells,
        b.map((x, k) => [fmt(x), x !== a[k]]),
        `${id}, mkl`,
      );
      assert.ok(
        a.some((x, k) => x !== b[k]),
        "the book's seed gives two different tables",
      );
    });
    assert.match(await w.page.textContent('.why'), /pytorch#121595/);
    await done(w);
  }
});

test('"Why are my numbers different?" at T = 40: the first 10 × 10 of each table, the count of every differing cell', async () => {
  const config = { inputs: { randn: [40, 3], seed: 5 } };
  const w = await open('#' + encodeURIComponent(JSON.stringify(config)));
  const got = await w.page.evaluate(() =>
    Array.from(document.querySelectorAll('.why table'), (t) => ({
      caption: t.caption.textContent,
      cells: Array.from(t.querySelectorAll('tbody tr'), (tr) =>
        Array.from(tr.querySelectorAll('td'), (td) => td.textContent),
      ),
    })),
  );
  const cli = {
    default: runCli(Object.assign({ rng: 'default' }, config)),
    mkl: runCli(Object.assign({ rng: 'mkl' }, config)),
  };
  ['dropout_example', 'attn_weights_dropped'].forEach((id, n) => {
    const a = stageOf(cli.default, id).data,
      b = stageOf(cli.mkl, id).data,
      differ = a.filter((x, k) => x !== b[k]).length;
    assert.equal(a.length, 1600);
    for (const [t, data] of [
      [got[2 * n], a],
      [got[2 * n + 1], b],
    ]) {
      assert.deepEqual(
        t.cells,
        Array.from({ length: 10 }, (_, i) => data.slice(i * 40, i * 40 + 10).map(fmt)),
        id,
      );
      assert.match(
        t.caption,
        new RegExp(`\\. ${differ} of 1600 cells differ; the first 10 × 10 shown\\.$`),
      );
    }
  });
  // Four tables of 10 × 10, not of 40 × 40: the box stays small on every edit.
  assert.ok((await w.page.$$eval('.why *', (e) => e.length)) < 700);
  await done(w);
});

test('the PyTorch print format switch: every table as print() shows it, back again', async () => {
  const w = await open(),
    page = w.page;
  const texts = (id) =>
    page.evaluate(
      (s) =>
        Array.from(
          document.querySelectorAll(`#main [data-stage="${s}"] td`),
          (td) => td.textContent,
        ),
      id,
    );
  await page.check('#torch-format');
  await settled(page); // stages off screen are updated in idle time
  assert.deepEqual((await texts('dropout_example')).slice(0, 6), [
    '2.',
    '2.',
    '0.',
    '2.',
    '2.',
    '0.',
  ]);
  assert.deepEqual((await texts('masked')).slice(0, 3), ['0.2899', '-inf', '-inf']);
  assert.deepEqual((await texts('mask')).slice(0, 3), ['0.', '1.', '1.']);
  await page.uncheck('#torch-format');
  await settled(page);
  assert.deepEqual((await texts('masked')).slice(0, 2), ['0.2899', '−∞']);
  await done(w);
});

test('§3.3, §3.4 and §3.6 cells explain themselves from the stages’ own values', async () => {
  const w = await open(),
    page = w.page;
  const val = (id, k) => num(stageOf(BOOK, id).data[k]);
  const row = (id, r, n) => Array.from({ length: n }, (_, k) => val(id, r * n + k));
  const op = (x) => (x < 0 ? `(${fmt(x)})` : fmt(x));
  const sum = (a, b) => a.map((x, k) => `${op(x)}×${op(b[k])}`).join(' + ');
  /** Clicks [batch, row, col] of a stage; returns the panel's title and lines. */
  const pick = async (id, r, c, b) => {
    // 4-D: one batch element's heads at a time (the book's 2 heads)
    const sel = `#main [data-stage="${id}"] .pick select`,
      four = stageOf(BOOK, id).shape.length === 4;
    if ((await page.$(sel)) && b !== undefined)
      await page.selectOption(sel, String(four ? Math.floor(b / 2) : b));
    await page.click(
      `#main [data-stage="${id}"] td[data-row="${r}"][data-col="${c}"]` +
        (b === undefined ? '' : `[data-batch="${b}"]`),
    );
    return page.evaluate(() => ({
      title: document.getElementById('explain-title').textContent,
      body: Array.from(document.querySelectorAll('#explain-body p'), (p) => p.textContent),
    }));
  };
  // x_4 · x_1 (the query "journey"), its terms from the inputs table.
  let p = await pick('simple.attn_scores_q', 0, 4);
  assert.deepEqual(p.body.slice(1, 3), [
    '= ' + sum(row('inputs', 4, 3), row('inputs', 1, 3)),
    '= ' + fmt(val('simple.attn_scores_q', 4)),
  ]);
  // The naive softmax against torch.softmax: the same 4 decimals, bits compared.
  p = await pick('simple.attn_weights_q_naive', 0, 2);
  const same = Object.is(val('simple.attn_weights_q_naive', 2), val('simple.attn_weights_q', 2));
  assert.ok(
    p.body.some((l) => l.startsWith('exp(z) = ') && l.endsWith('(recomputed here in doubles)')),
  );
  assert.ok(
    p.body.some((l) =>
      l.includes(
        'simple.attn_weights_q[2] = ' +
          fmt(val('simple.attn_weights_q', 2)) +
          (same ? ': equal bit for bit.' : ': differs by'),
      ),
    ),
    p.body.join('\n'),
  );
  // The context vector: weights × the inputs' column, in the loop's order.
  p = await pick('simple.context_vec_q', 0, 1);
  const col1 = [0, 1, 2, 3, 4, 5].map((k) => val('inputs', k * 3 + 1));
  assert.equal(p.body[1], '= ' + sum(row('simple.attn_weights_q', 0, 6), col1));
  // v1's (d_in, d_out) layout: W[:, j] is a column.
  p = await pick('v1.query_q', 0, 1);
  assert.equal(
    p.body[1],
    '= ' +
      sum(
        row('inputs', 1, 3),
        [0, 1, 2].map((k) => val('v1.W_query', k * 2 + 1)),
      ),
  );
  p = await pick('v1.W_key', 2, 1);
  assert.match(p.body[0], /^Row 2 = input feature 2, column 1 = output feature 1: \(d_in, d_out\)/);
  assert.match(p.body[1], /^torch\.rand: number 12 in \[0, 1\) after torch\.manual_seed\(123\)/);
  // Exercise 3.1: SelfAttention_v1 with v2's weights equals v2's context_vec bit for bit.
  p = await pick('v1_from_v2.context_vecs', 3, 0);
  assert.equal(val('v1_from_v2.context_vecs', 6), val('context_vec', 6));
  assert.equal(p.body[1], `context_vec[3, 0] = ${fmt(val('context_vec', 6))}: equal bit for bit.`);
  // The head split: batch element 1, head 1 of (2, 2, 6, 1) queries: column 1 of W_query.
  p = await pick('mha.queries', 4, 0, 3);
  assert.equal(p.title, `mha.queries[1, 1, 4, 0] = ${fmt(val('mha.queries', 3 * 6 + 4))}`);
  assert.match(p.body[0], /\[4, 1\]: view\(b, T, 2, 1\) cuts column 1 into head 1, column 0/);
  assert.equal(p.body[1], '= ' + sum(row('inputs', 4, 3), row('mha.W_query', 1, 3)));
  // out_proj: the heads' columns mixed, plus the bias.
  p = await pick('mha.context_vecs', 0, 1, 1);
  assert.equal(
    p.body[1],
    '= ' +
      sum(row('mha.context_vec', 6, 2), row('mha.out_proj.weight', 1, 2)) +
      ' + ' +
      op(val('mha.out_proj.bias', 1)),
  );
  assert.equal(p.body[2], '= ' + fmt(val('mha.context_vecs', 6 * 2 + 1)));
  await page.click('#explain-close');
  await done(w);
});

test('masked pairs: one faint cut stub each, with a text alternative, filtered with its query', async () => {
  const w = await open(),
    page = w.page;
  const stubs = () =>
    page.evaluate(() =>
      Array.from(document.querySelectorAll('#main .dr[data-batch="0"]'), (d) => [
        d.closest('[data-stage]').dataset.stage,
        Array.from(d.querySelectorAll('.cut'), (c) =>
          getComputedStyle(c).display === 'none' ? null : c.querySelector('title').textContent,
        ),
      ]),
    );
  const all = Object.fromEntries(await stubs());
  // The causal stages' drawings: 15 masked pairs of 6 tokens (the −∞ of `masked`), 15 stubs.
  assert.equal(stageOf(BOOK, 'masked').data.filter((x) => num(x) === -Infinity).length, 15);
  const counts = Object.fromEntries(Object.entries(all).map(([id, s]) => [id, s.length]));
  assert.deepEqual(counts, {
    'simple.attn_scores': 0,
    'simple.attn_weights': 0,
    attn_scores: 0,
    attn_weights: 0,
    masked_simple: 15,
    masked_simple_norm: 15,
    masked: 15,
    attn_weights_causal: 15,
    attn_weights_dropped: 15,
    'mha.attn_scores': 15, // one per pair, not per head
    'mha.attn_weights': 15,
    'einsum.scores': 15,
  });
  assert.equal(all.masked[0], 'masked: journey comes after Your');
  // Focusing query "starts" (row 2) leaves its three stubs.
  await page.focus('#main [data-stage="masked"] .tk[data-side="q"][data-i="0"]');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const shown = Object.fromEntries(await stubs()).masked.filter((t) => t);
  assert.deepEqual(shown, [
    'masked: with comes after starts',
    'masked: one comes after starts',
    'masked: step comes after starts',
  ]);
  await done(w);
});

for (const scheme of ['light', 'dark'])
  test(`SVG export (${scheme} page) of a multi-head slice: parses, the cells' fills and the drawing's lines and stubs as on the page`, async () => {
    const w = await open('', { colorScheme: scheme }),
      page = w.page;
    const got = await page.evaluate(async () => {
      const box = document.querySelector('#main [data-stage="mha.attn_weights"]');
      const text = await new Promise((resolve) => {
        document.addEventListener('ca-export', (e) => resolve(e.detail.text), { once: true });
        box.querySelector('button[data-export="svg"][data-batch="0"]').click();
      });
      const d = new DOMParser().parseFromString(text, 'image/svg+xml');
      const c = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
      const rgb = (colour) => {
        c.clearRect(0, 0, 1, 1);
        c.fillStyle = colour;
        c.fillRect(0, 0, 1, 1);
        const p = c.getImageData(0, 0, 1, 1).data;
        return `rgb(${p[0]},${p[1]},${p[2]})`;
      };
      const shown = [...box.querySelectorAll('.dr[data-batch="0"] line')].filter(
        (l) => getComputedStyle(l).display !== 'none',
      );
      const rects = [...d.querySelectorAll('rect[stroke="#c9d1d9"]')];
      return {
        error: d.querySelector('parsererror') !== null,
        external: /href|url\((?!#hatch\))/.test(text),
        fills: [...box.querySelectorAll('table.t[data-slice="0"] td[data-row]')].map((td) => [
          rects[(+td.dataset.row + 1) * 7 + +td.dataset.col + 1].getAttribute('fill'),
          rgb(getComputedStyle(td).backgroundColor),
        ]),
        lines: [...d.querySelectorAll('g line')].map((l) => [
          l.getAttribute('stroke-width'),
          l.getAttribute('stroke'),
        ]),
        page: shown.map((l) => l.getAttribute('stroke-width')),
        stubs: d.querySelectorAll('g path').length,
      };
    });
    assert.equal(got.error, false);
    assert.equal(got.external, false, 'standalone: no external references');
    assert.equal(got.lines.length, 21); // head 1 of batch element 1: its 21 unmasked pairs
    assert.deepEqual(
      got.lines.map((l) => l[0]),
      got.page,
    ); // widths as on the page
    assert.equal(new Set(got.lines.map((l) => l[1])).size, 1); // one head, one colour
    assert.equal(got.stubs, 15);
    assert.equal(got.fills.length, 36);
    // The export is the light theme's: on the light page its fills are the cells' own colours
    // (the page's colour-mix and the export's resolution may round a channel apart by 1).
    const ch = (c) => c.match(/\d+/g).map(Number);
    if (scheme === 'light')
      for (const [svg, td] of got.fills)
        assert.ok(
          ch(svg).every((x, k) => Math.abs(x - ch(td)[k]) <= 1),
          `${svg} vs ${td}`,
        );
    await done(w);
  });

test('KV cache cells explain their step: the full pass’s cell and the step’s exact cost', async () => {
  const w = await open('#stage=kv.attn_scores'),
    page = w.page;
  const pick = async (id, r, c, b) => {
    await page
      .locator(
        `#main [data-stage="${id}"] table.t[data-slice="${b}"] td[data-row="${r}"][data-col="${c}"]`,
      )
      .first()
      .click();
    return page.evaluate(() =>
      Array.from(document.querySelectorAll('#explain-body p'), (p) => p.textContent),
    );
  };
  // Step 2 of the book (T = 6, d_in 3, d_out 2, 2 heads): 2·(3·3·2 + 2·3·2 + 2²) = 68
  // multiply-adds cached, 3 times as many recomputing tokens 0…2; the score is the full pass's.
  let body = await pick('kv.attn_scores', 2, 1, 0);
  assert.match(
    body.join('\n'),
    /The full pass: mha\.attn_scores\[0, 0, 2, 1\] = .*: equal bit for bit\./,
  );
  assert.match(
    body.join('\n'),
    /Step 2 with the cache: 68 multiply-adds .*recomputing tokens 0…2: 204 \(3\.0×\)\./,
  );
  assert.match(body.join('\n'), /the cache holds 96 bytes of keys and values after this step/);
  // A cell after the diagonal was never computed at its step.
  body = await pick('kv.attn_scores', 1, 4, 0);
  assert.match(
    body[0],
    /^Not computed at step 1: the cache holds tokens 0…1, key “one” comes at step 4\./,
  );
  // The mask's row has nothing to hide.
  body = await pick('kv.mask', 3, 3, 0);
  assert.match(body.join('\n'), /= \(3 > 3\) = False/);
  await done(w);
});
