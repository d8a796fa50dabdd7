// The page in headless Chromium: served and from file://, the book's numbers in every table,
// edits against the native CLI, inline errors, the MKL dropout table, the URL state, cell
// explanations with mouse and keyboard, token labels as text, a phone in dark mode. Every test
// also fails on any console error or warning, page error, failed request or request to another
// origin. Screenshots: build-scripts/screenshots.js.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { pathToFileURL } = require('url');
const { spawnSync } = require('child_process');
const { browserSuite, watchedPage, ready, settled, pageHash, cells, web } = require('./browser');
const { runCli, cli, loadApi, pageText, BOOK_TOKENS, BOOK_INPUTS } = require('./support');

const f4 = (rows) => rows.map((r) => r.map((x) => x.toFixed(4)));

const suite = browserSuite();

/** A test with watched pages: `open(url, {viewport, colorScheme})` gives a loaded page (its
 *  data-ready is "1"); the test fails on anything the watch recorded. */
function pageTest(name, fn) {
  test(name, async (t) => {
    const watched = [];
    const open = async (url = suite.server.url, opts = {}) => {
      const w = await watchedPage(
        suite.browser.context,
        url.startsWith('file:') ? '' : suite.server.url,
      );
      watched.push(w);
      if (opts.viewport) await w.page.setViewportSize(opts.viewport);
      if (opts.colorScheme) await w.page.emulateMedia({ colorScheme: opts.colorScheme });
      if (opts.init) await w.page.addInitScript(opts.init); // before the page's scripts
      await w.page.goto(url);
      assert.equal(await ready(w.page), '1', `data-ready of ${url}`);
      return w.page;
    };
    let failure = null;
    try {
      await fn(open, t);
    } catch (e) {
      failure = e;
    }
    const problems = watched.flatMap((w) => w.problems);
    await Promise.all(watched.map((w) => w.page.close()));
    if (failure) {
      if (problems.length)
        failure.message += `\nalso recorded in the page:\n  ${problems.join('\n  ')}`;
      throw failure;
    }
    assert.deepEqual(
      problems,
      [],
      'console errors/warnings, page errors, failed or foreign requests',
    );
  });
}

/** Every stage as the page shows it: its tables' value cells, row by row. */
async function shown(page) {
  await settled(page);
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('div.stage[data-stage]'), (box) => ({
      id: box.dataset.stage,
      tables: Array.from(box.querySelectorAll('table.t'), (t) =>
        Array.from(t.tBodies[0].rows, (r) =>
          Array.from(r.querySelectorAll('td'), (td) => td.textContent),
        ),
      ),
    })),
  );
}

/** The CLI's number (JSON: a number, or "-inf", "inf", "nan") as a float32. */
const f32 = (v) =>
  typeof v === 'string' ? { '-inf': -Infinity, inf: Infinity, nan: NaN }[v] : Math.fround(v);

/** The CLI's stages as the page's tables: [{id, tables: [rows of text]}]. */
function expected(native) {
  return native.stages.map((s) => {
    // 0-D: one value; 3-D: one table per matrix; 4-D: every head of the first batch element.
    const sh = s.shape,
      C = sh.length ? sh[sh.length - 1] : 1,
      R = sh.length < 2 ? 1 : sh[sh.length - 2],
      B = sh.length === 3 ? sh[0] : sh.length === 4 ? sh[1] : 1;
    const tables = [],
      fmt = pageText(s.data.map(f32)),
      text = (v) => fmt(f32(v));
    for (let b = 0; b < B; b++) {
      const rows = [];
      for (let i = 0; i < R; i++)
        rows.push(s.data.slice((b * R + i) * C, (b * R + i + 1) * C).map(text));
      tables.push(rows);
    }
    return { id: s.id, tables };
  });
}

/** The whole visible state: URL hash, every control, the editor, every table with classes. */
async function snapshot(page) {
  // innerText is '' in stages still skipped off screen: wait for the page to render them all.
  await page.waitForSelector('main[data-complete="1"]');
  const hash = await pageHash(page);
  return page.evaluate(
    (hash) => ({
      hash,
      controls: Array.from(document.getElementById('controls').elements, (e) => [
        e.name || e.id,
        e.type === 'checkbox' ? e.checked : e.value,
        e.disabled,
      ]),
      editor: document.getElementById('inputs-editor').innerText,
      mode: document.getElementById('inputs-mode').textContent,
      status: document.getElementById('status').textContent,
      stages: Array.from(document.querySelectorAll('div.stage[data-stage]'), (box) => [
        box.dataset.stage,
        box.innerText,
        Array.from(box.querySelectorAll('td'), (td) => td.className).join(),
      ]),
    }),
    hash,
  );
}

/** Two snapshots are equal, key by key (shorter messages than one deepEqual). */
function sameState(got, want, what) {
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], `${what}: ${k}`);
}

const H = require(path.join(web, 'causal-attention.js')).hash; // web/hash.js, as it ships
const hashConfig = async (page) => H.parse(await pageHash(page));

pageTest(
  "served and from file://: the book's numbers, every stage, token headers, max difference",
  async (open) => {
    const native = runCli({});
    // Every stage of the book's run: --list-stages without the bias stages and without
    // nn.MultiheadAttention's (ch03/02.7 needs d_in = d_out: not the book's 3 and 2).
    const ids = spawnSync(cli, ['--list-stages'], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .filter((id) => !/(^|\.)b_|\.bias_|^qkv\.bias$|^torchmha\./.test(id));
    assert.equal(ids.length, 86); // 60 of the chapter, 18 of the bonus notebook, 8 of the KV cache
    assert.deepEqual(
      ids,
      native.stages.map((s) => s.id),
    );
    for (const url of [suite.server.url, pathToFileURL(path.join(web, 'index.html')).href]) {
      const page = await open(url);
      assert.deepEqual(
        await page.$$eval('div.stage', (d) => d.map((e) => e.dataset.stage)),
        ids,
        url,
      );
      assert.deepEqual(await shown(page), expected(native), `${url}: every table equals the CLI`);

      assert.equal((await cells(page, 'attn_scores'))[0][0], '0.2899');
      assert.deepEqual((await cells(page, 'masked'))[0], ['0.2899', '−∞', '−∞', '−∞', '−∞', '−∞']);
      assert.deepEqual(
        await page.$$eval('[data-stage="masked"] td[data-row="0"]', (tds) =>
          tds.map((td) => td.classList.contains('m')),
        ),
        [false, true, true, true, true, true],
        'masked cells carry .m',
      );
      assert.deepEqual((await cells(page, 'attn_weights_causal'))[1], [
        '0.5517',
        '0.4483',
        '0.0000',
        '0.0000',
        '0.0000',
        '0.0000',
      ]);
      assert.deepEqual((await cells(page, 'context_vec'))[0], ['-0.0739', '0.0713']);
      assert.deepEqual((await cells(page, 'dropout_example'))[0], [
        '2.0000',
        '2.0000',
        '0.0000',
        '2.0000',
        '2.0000',
        '0.0000',
      ]);
      assert.deepEqual((await cells(page, 'context_vecs', 0))[0], ['-0.4519', '0.2216']);
      assert.deepEqual((await cells(page, 'context_vecs', 1))[0], ['-0.4519', '0.2216']);

      // Captions: the core's title and code, the shape.
      const caps = await page.$$eval('div.stage', (d) =>
        d.map((e) => {
          const c = e.querySelector('caption');
          return [
            c.querySelector('.ti').textContent,
            c.querySelector('.sh').textContent,
            c.querySelector('code').textContent,
          ];
        }),
      );
      assert.deepEqual(
        caps,
        native.stages.map((s) => [
          s.title,
          s.shape.length ? ` (${s.shape.join(', ')})` : ' (a 0-D scalar)',
          s.code,
        ]),
      );

      // Token labels head the rows of token-indexed tables and the columns of token × token ones.
      for (const id of ['inputs', 'queries', 'attn_scores', 'attn_weights_causal', 'context_vec']) {
        assert.deepEqual(
          await page.$$eval(`[data-stage="${id}"] tbody th[scope=row]`, (th) =>
            th.map((e) => e.textContent),
          ),
          BOOK_TOKENS,
          id,
        );
      }
      assert.deepEqual(
        await page.$$eval('[data-stage="context_vecs"] tbody th[scope=row]', (th) =>
          th.map((e) => e.textContent),
        ),
        [...BOOK_TOKENS, ...BOOK_TOKENS],
      );
      assert.deepEqual(
        await page
          .$$eval('[data-stage="attn_scores"] thead th[scope=col]', (th) =>
            th.map((e) => e.textContent),
          )
          .then((h) => h.slice(1)),
        BOOK_TOKENS,
      );

      const after = await page.$eval(
        '[data-stage="attn_weights_causal"] p.after',
        (e) => e.textContent,
      );
      const m = /(\d[\d.]*(?:e[-+]?\d+)?)\s*$/.exec(after);
      assert.ok(m, `a number in "${after}"`);
      assert.ok(Number(m[1]) <= 1e-6, after);
      assert.equal(await pageHash(page), '', 'the book has an empty hash');
      assert.equal(await page.$eval('#status', (e) => e.textContent), '');
    }
  },
);

pageTest('editing an input changes the dependent tables, equal to the native CLI', async (open) => {
  const page = await open();
  const before = Object.fromEntries((await shown(page)).map((s) => [s.id, s.tables]));
  const cell = 'input[name=inputs][data-row="1"][data-col="0"]';
  assert.equal(await page.inputValue(cell), '0.55');
  await page.fill(cell, '0.9');
  const now = Object.fromEntries((await shown(page)).map((s) => [s.id, s.tables]));

  assert.equal(now.inputs[0][1][0], '0.9000');
  for (const id of [
    'W_query',
    'W_key',
    'W_value',
    'ca.W_query',
    'mask',
    'mask_simple',
    'dropout_example',
  ]) {
    assert.deepEqual(now[id], before[id], `${id} does not depend on the inputs`);
  }
  assert.deepEqual(now.queries[0][0], before.queries[0][0], 'queries row 0 keeps its input');
  assert.notDeepEqual(
    now.queries[0][1],
    before.queries[0][1],
    'queries row 1 follows inputs row 1',
  );
  for (const id of [
    'keys',
    'values',
    'attn_scores',
    'attn_weights_causal',
    'context_vec',
    'context_vecs',
  ]) {
    assert.notDeepEqual(now[id], before[id], `${id} follows the edit`);
  }
  // Causality: the first token sees only itself, so its context vector is unchanged.
  assert.deepEqual(now.context_vecs[0][0], before.context_vecs[0][0]);

  const inputs = BOOK_INPUTS.map((r) => r.slice());
  inputs[1][0] = 0.9;
  assert.deepEqual(await hashConfig(page), { inputs });
  const native = runCli({ inputs });
  assert.deepEqual(
    Object.keys(now),
    native.stages.map((s) => s.id),
  );
  for (const s of expected(native)) assert.deepEqual(now[s.id], s.tables, `${s.id} equals the CLI`);
});

pageTest(
  "invalid values: the core's message at the control, typed text kept, last good tables kept",
  async (open) => {
    const page = await open();
    const state = () =>
      settled(page).then(async () =>
        page.evaluate(
          (hash) => ({
            tables: Array.from(document.querySelectorAll('main td'), (td) => td.textContent).join(
              '|',
            ),
            hash,
            invalid: Array.from(
              document.querySelectorAll('[aria-invalid="true"]'),
              (e) => e.name + (e.dataset.row ? `[${e.dataset.row}][${e.dataset.col}]` : ''),
            ),
            errors: Array.from(document.querySelectorAll('[data-error-for]'), (e) => [
              e.dataset.errorFor,
              e.textContent,
            ]).filter((e) => e[1]),
          }),
          await pageHash(page),
        ),
      );
    const message = (config) => {
      const r = runCli(config);
      assert.equal(r.code, 2, JSON.stringify(config));
      return r.stderr.trim().replace(/^causal-attention: /, '');
    };

    await page.fill('#dropout', '0.25'); // a good edit first: the last good tables are not the book's
    const good = await state();
    assert.equal((await cells(page, 'dropout_example'))[0][0].length, 6);
    assert.deepEqual(good.errors, []);
    assert.deepEqual(good.invalid, []);

    const inputsBad = BOOK_INPUTS.map((r) => r.slice());
    inputsBad[2][1] = 'abc';
    const cases = [
      {
        sel: 'input[name=inputs][data-row="2"][data-col="1"]',
        text: 'abc',
        fix: '0.85',
        key: 'inputs',
        invalid: 'inputs[2][1]',
        msg: message({ inputs: inputsBad, dropout: 0.25 }),
      },
      {
        sel: '#dropout',
        text: '1.5',
        fix: '0.25',
        key: 'dropout',
        invalid: 'dropout',
        msg: message({ dropout: 1.5 }),
      },
      {
        sel: '#d_out',
        text: '0',
        fix: '2',
        key: 'd_out',
        invalid: 'd_out',
        msg: message({ d_out: 0, dropout: 0.25 }),
      },
    ];
    assert.equal(cases[0].msg, '"inputs"[2][1] must be a finite number (got "abc")');
    for (const c of cases) {
      await page.fill(c.sel, c.text);
      const bad = await state();
      assert.deepEqual(
        bad.errors,
        [[c.key, c.msg]],
        `${c.sel} = ${c.text}: the message at the control`,
      );
      assert.deepEqual(bad.invalid, [c.invalid], `${c.sel}: aria-invalid`);
      assert.equal(await page.inputValue(c.sel), c.text, 'the typed text stays');
      assert.equal(bad.tables, good.tables, 'the tables keep the last good numbers');
      assert.equal(bad.hash, good.hash, 'the URL keeps the last good state');
      assert.ok(await page.isVisible(`[data-error-for="${c.key}"]`));

      await page.fill(c.sel, c.fix);
      assert.deepEqual(
        await state(),
        good,
        `${c.sel} fixed: message and aria-invalid cleared, same tables`,
      );
    }
  },
);

// An edit whose tables are all off screen (seed_weights: W_query and after, below the first
// screen) changes nothing in the page in its handler: no attribute set again to the value it
// has (a section's or the preset note's hidden, lecture mode's box, the progress line, the KV
// slider's max and line), each of which restyled and repainted the page in the edit's frame.
pageTest(
  'an edit that changes nothing on screen writes nothing in the page in its handler',
  async (open) => {
    const page = await open(suite.server.url, { viewport: { width: 1280, height: 720 } });
    await settled(page);
    const got = await page.evaluate(async () => {
      const input = document.getElementById('seed_weights'),
        seen = new MutationObserver(() => {}),
        out = [];
      // The first edit builds the progress line and lecture mode's box (once): not counted.
      for (const [k, v] of ['790', '789', '790'].entries()) {
        seen.observe(document.body, {
          subtree: true,
          childList: true,
          attributes: true,
          characterData: true,
        });
        input.value = v;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        for (const m of seen.takeRecords()) {
          if (!k) continue;
          const e = m.target.nodeType === 1 ? m.target : m.target.parentElement;
          out.push(`${m.type} ${m.attributeName || ''} ${e.tagName}#${e.id}`);
        }
        seen.disconnect();
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
        while (document.getElementById('main').dataset.complete !== '1')
          await new Promise((r) => setTimeout(r, 20));
      }
      return out;
    });
    // main[data-complete] is taken off: idle time brings the boxes off screen up to date.
    assert.deepEqual(got, [
      'attributes data-complete MAIN#main',
      'attributes data-complete MAIN#main',
    ]);
  },
);

// An edit runs, in its handler, only the stages of the sections on screen (and what they read)
// and shows them; the whole chapter runs in idle time after its frame (or when the state is
// read before: the contents' jump, an export, a picked cell). At 1280 x 720 the book's dropout
// edit changes nothing on screen, and its whole run was most of its handler. The core's cost
// model is asked once per edit (page/compute.js): the handler's answer serves the whole run.
pageTest(
  'an edit runs the stages on screen in its handler, the whole chapter after its frame',
  async (open) => {
    const page = await open(suite.server.url, { viewport: { width: 1280, height: 720 } });
    await settled(page);
    const got = await page.evaluate(async () => {
      const api = await globalThis.CausalAttention.load(),
        run = api.run,
        runs = [],
        out = {};
      api.run = function (c, o) {
        runs.push(o && o.stages ? o.stages.slice().sort() : 'all');
        return run.apply(this, arguments);
      };
      // lib/budget.js's object, as page/compute.js calls it (its export's name is minified)
      const budget = Object.values(globalThis.CausalAttention.__modules['lib/budget.js']).find(
          (v) => v && v.maxWork,
        ),
        cost = budget.cost;
      let costs = 0;
      budget.cost = function () {
        costs++;
        return cost.apply(this, arguments);
      };
      const main = document.getElementById('main'),
        texts = (id) =>
          Array.from(document.querySelectorAll(`[data-stage="${id}"] td`), (td) => td.textContent),
        edit = async (sel, v, on) => {
          const input = document.querySelector(sel),
            before = on.map(texts);
          input.value = v;
          input.dispatchEvent(new Event('input', { bubbles: true }));
          const r = {
            handler: runs.splice(0),
            complete: main.dataset.complete,
            now: on.map(texts),
          };
          await new Promise((res) => requestAnimationFrame(() => setTimeout(res)));
          while (main.dataset.complete !== '1') await new Promise((res) => setTimeout(res, 20));
          r.after = runs.splice(0);
          r.costs = costs;
          costs = 0;
          r.changed = r.now.map((t, k) => t.join() !== before[k].join());
          r.final = on.map(texts).map((t, k) => t.join() === r.now[k].join());
          return r;
        };
      out.dropout = await edit('#dropout', '0.4', ['dropout_example']);
      out.inputs = await edit('input[name=inputs][data-row="1"][data-col="0"]', '0.9', [
        'inputs',
        'simple.attn_scores_q',
        'queries',
      ]);
      return out;
    });
    const d = got.dropout,
      x = got.inputs;
    assert.equal(d.handler.length, 1, `dropout: one run in the handler (${d.handler})`);
    assert.ok(d.handler[0].includes('simple.attn_scores_q'), 'of the stages on screen');
    assert.ok(!d.handler[0].includes('dropout_example'), 'not of the stages off screen');
    assert.equal(d.complete, undefined, 'main[data-complete] taken off in the handler');
    assert.equal(d.after[0], 'all', 'the whole run after the frame'); // then why.js's
    assert.deepEqual(d.changed, [false], 'dropout_example (off screen): in idle time');
    assert.deepEqual(d.final, [false]);
    assert.equal(d.costs, 1, 'the cost model asked once');
    assert.equal(x.handler.length, 1);
    assert.ok(!x.handler[0].includes('queries'));
    assert.equal(x.after[0], 'all');
    // inputs and §3.3's scores (on screen) show the edit's values in its handler, and keep them;
    // queries (off screen) follows in idle time.
    assert.deepEqual(x.changed, [true, true, false]);
    assert.deepEqual(x.final, [true, true, false]);
    assert.equal(x.costs, 1);
    const inputs = BOOK_INPUTS.map((r) => r.slice());
    inputs[1][0] = 0.9;
    assert.deepEqual(await shown(page), expected(runCli({ dropout: 0.4, inputs })));
  },
);

// Where a browser has no requestIdleCallback (Safari), "after the frame, when idle" is a timer
// 50 ms after the frame (lib/lazy.js's idleAfterFrame, for the edit's whole run, the boxes off
// screen and the code loaded after the first table): typing faster than that runs the whole
// chapter once, for the last edit. (The edit's was a timer of 0 ms: {timeout: 100} passed to
// setTimeout as its delay.)
pageTest(
  'without requestIdleCallback, an edit runs the whole chapter 50 ms after its frame',
  async (open) => {
    const page = await open(suite.server.url, {
      viewport: { width: 1280, height: 720 },
      init: () => {
        window.requestIdleCallback = window.cancelIdleCallback = undefined;
        // each timer's callback runs with window.__delay = the delay it was set with
        const set = window.setTimeout;
        window.setTimeout = function (f, delay) {
          return set(function () {
            window.__delay = delay;
            try {
              f();
            } finally {
              window.__delay = undefined;
            }
          }, delay);
        };
      },
    });
    await settled(page); // the boxes past the first screen, built on timers
    const got = await page.evaluate(async () => {
      const api = await globalThis.CausalAttention.load(),
        run = api.run,
        runs = [],
        main = document.getElementById('main'),
        input = document.getElementById('dropout');
      api.run = function (c, o) {
        runs.push([o && o.stages ? 'part' : 'all', window.__delay]);
        return run.apply(this, arguments);
      };
      input.value = '0.4';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
      const soon = runs.length; // in the task after the frame: the stages on screen only
      while (main.dataset.complete !== '1') await new Promise((r) => setTimeout(r, 20));
      return { soon, runs: runs.slice(0, 2) }; // (then why.js's)
    });
    assert.deepEqual(got, {
      soon: 1,
      runs: [
        ['part', undefined],
        ['all', 50],
      ],
    });
    assert.deepEqual(await shown(page), expected(runCli({ dropout: 0.4 })));
  },
);

// A select put in the page (built, or moved) has Chromium scan the page's forms for autofill
// 300 ms later: 6-9 ms that landed inside the next edit's frame. The book's d_out 2 -> 3 takes
// §3.6's 13 4-D stages away (2 heads do not divide 3) and 3 -> 2 brings them back: their boxes,
// each with its batch element's select, are kept hidden meanwhile, and updated when back.
pageTest(
  "a d_out edit puts no select in the page: the 4-D stages' boxes, gone and back, keep theirs",
  async (open) => {
    const page = await open(suite.server.url, { viewport: { width: 1280, height: 720 } });
    await settled(page);
    const edits = [
      ['d_out', '3'],
      ['d_out', '2'],
      ['d_out', '3'],
      ['seed_class', '7'], // while they are gone: back, they show the new run
      ['d_out', '2'],
    ];
    const got = await page.evaluate(async (edits) => {
      const selects = () => Array.from(document.querySelectorAll('#main select')),
        before = selects(),
        added = [],
        seen = new MutationObserver((records) => {
          for (const m of records)
            for (const n of m.addedNodes)
              if (n.nodeType === 1 && (n.matches('select') || n.querySelector('select')))
                added.push(n.tagName);
        });
      seen.observe(document.body, { subtree: true, childList: true });
      const shown = [];
      for (const [id, v] of edits) {
        const input = document.getElementById(id);
        input.value = v;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
        while (document.getElementById('main').dataset.complete !== '1')
          await new Promise((r) => setTimeout(r, 20));
        shown.push(document.querySelectorAll('#main div.stage[data-stage] .pick select').length);
      }
      seen.disconnect();
      const after = selects();
      return {
        added,
        shown,
        same: after.length === before.length && after.every((s, k) => s === before[k]),
        n: before.length,
      };
    }, edits);
    assert.deepEqual(got, { added: [], shown: [0, 13, 0, 0, 13], same: true, n: 13 });
    const want = expected(runCli({ d_out: 2, seed_class: 7 })),
      now = await shown(page);
    assert.deepEqual(
      now.map((t) => t.id),
      want.map((t) => t.id),
    );
    for (const id of ['mha.queries', 'mha.attn_weights', 'kv.cache_v'])
      assert.deepEqual(
        now.find((t) => t.id === id),
        want.find((t) => t.id === id),
        id,
      );
    // The kept select still picks the batch element shown.
    const box = '#main [data-stage="mha.attn_weights"]';
    await page.evaluate((q) => document.querySelector(q).scrollIntoView(), box);
    await page.selectOption(`${box} .pick select`, '1');
    assert.equal(await page.locator(`${box} .heads`).getAttribute('data-batch'), '1');
  },
);

pageTest(
  "an edit keeps every stage's box: the boxes on screen at once (rebuilt inside for a new shape), those off screen when jumped to or in idle time; the URL after the frame",
  async (open) => {
    const page = await open(suite.server.url, { viewport: { width: 1280, height: 720 } });
    const native = runCli({ d_out: 3 }),
      shapes = Object.fromEntries(native.stages.map((s) => [s.id, s.shape.join()]));
    // queries on screen: its (6, d_out) box is rebuilt in the edit's own frame.
    await page.evaluate(() => document.getElementById('queries').scrollIntoView());
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
    const got = await page.evaluate(() => {
      window.__boxes = new Map(
        Array.from(document.querySelectorAll('div.stage[data-stage]'), (b) => [b.dataset.stage, b]),
      );
      const input = document.getElementById('d_out');
      input.value = '3';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      const handler = {
        hash: location.hash,
        queries: document.getElementById('queries').dataset.shape,
        cols: document.querySelectorAll('#queries table.t tbody tr:first-child td').length,
      };
      // The contents jump to a stage far below before idle time: it and every box above it
      // show the new values (else they would still grow and move it off screen).
      document.querySelector('#toc a[href="#context_vecs"]').click();
      const boxes = Array.from(document.querySelectorAll('div.stage[data-stage]')),
        upTo = boxes.indexOf(document.getElementById('context_vecs'));
      return {
        handler,
        above: boxes.slice(0, upTo + 1).map((b) => [b.dataset.stage, b.dataset.shape]),
        empty: boxes.slice(0, upTo + 1).filter((b) => !b.firstChild).length,
        target: document
          .querySelector('#context_vecs table.t')
          .tBodies[0].rows[0].querySelectorAll('td').length,
      };
    });
    assert.deepEqual(got.handler, { hash: '', queries: '6,3', cols: 3 }, 'in the input handler');
    assert.equal(got.target, 3, 'context_vecs (2, 6, 3) shown when jumped to');
    assert.equal(got.empty, 0, 'no box above it left empty');
    assert.deepEqual(
      got.above,
      got.above.map(([id]) => [id, shapes[id]]),
      'the boxes above it have their new shapes',
    );
    assert.equal(await pageHash(page), '#d_out=3', 'the hash, written after the frame');
    // Settled: the boxes of every stage still computed are the same elements; those of the
    // stages gone (MultiHeadAttention needs d_out divisible by num_heads) are removed.
    await settled(page);
    const kept = await page.evaluate(() =>
      Array.from(document.querySelectorAll('div.stage[data-stage]'), (b) => [
        b.dataset.stage,
        window.__boxes.get(b.dataset.stage) === b,
      ]),
    );
    assert.deepEqual(
      kept,
      native.stages.map((s) => [s.id, true]),
    );
    assert.deepEqual(await shown(page), expected(native), 'the tables equal the CLI');

    // The reader's own address wins over an edit's hash not yet written.
    await page.evaluate(() => {
      const input = document.getElementById('d_out');
      input.value = '4';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      location.hash = '#d_out=2&qkv_bias';
    });
    await page.waitForFunction(() => document.getElementById('qkv_bias').checked);
    await settled(page);
    assert.equal(await page.inputValue('#d_out'), '2');
    assert.equal(await pageHash(page), '#d_out=2&qkv_bias');
  },
);

pageTest('a hash the reader sets is followed once', async (open) => {
  // Setting location.hash fires popstate and hashchange both (Chromium): each used to navigate,
  // and a heavy configuration ran twice in a Worker, the second queued behind the first.
  const page = await open();
  await page.evaluate(() => {
    window.__runs = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (msg, transfer) {
      if (msg && msg.config) window.__runs.push(JSON.stringify(msg.config));
      return post.call(this, msg, transfer);
    };
    location.hash = '#inputs=randn:256,256&d_out=256';
  });
  await page.waitForFunction(() => document.getElementById('randn_tokens').value === '256');
  await settled(page);
  await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
  const runs = await page.evaluate(() => window.__runs);
  assert.equal(runs.length, 1, `runs in a Worker: ${runs.join(' | ')}`);
  assert.deepEqual(JSON.parse(runs[0]).inputs, { randn: [256, 256] });
});

pageTest('the mkl generator gives the dropout tables of seed 000 exactly', async (open) => {
  const page = await open();
  await page.selectOption('#rng', 'mkl');
  const pattern = [
    [2, 2, 2, 2, 2, 2],
    [0, 2, 0, 0, 0, 0],
    [0, 0, 2, 0, 2, 0],
    [2, 2, 0, 0, 0, 2],
    [2, 0, 0, 0, 0, 2],
    [0, 2, 0, 0, 0, 0],
  ];
  assert.deepEqual(await cells(page, 'dropout_example'), f4(pattern));
  assert.deepEqual(
    await cells(page, 'attn_weights_dropped'),
    f4([
      [2.0, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.8966, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.0, 0.6206, 0.0, 0.0, 0.0],
      [0.5517, 0.4921, 0.0, 0.0, 0.0, 0.0],
      [0.435, 0.0, 0.0, 0.0, 0.0, 0.0],
      [0.0, 0.3327, 0.0, 0.0, 0.0, 0.0],
    ]),
  );
  // Dropped cells, and only they, are marked .x in both tables.
  const dropped = pattern.map((r) => r.map((x) => x === 0));
  for (const id of ['dropout_example', 'attn_weights_dropped']) {
    assert.deepEqual(
      await page.$$eval(`[data-stage="${id}"] tbody tr`, (trs) =>
        trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.classList.contains('x'))),
      ),
      dropped,
      `${id}: .x on the dropped cells`,
    );
  }
  assert.deepEqual(await hashConfig(page), { rng: 'mkl' });
  // The rest of the walkthrough does not depend on the generator.
  assert.deepEqual((await cells(page, 'attn_weights_causal'))[1], [
    '0.5517',
    '0.4483',
    '0.0000',
    '0.0000',
    '0.0000',
    '0.0000',
  ]);
  await page.selectOption('#rng', 'default');
  assert.deepEqual((await cells(page, 'dropout_example'))[0], [
    '2.0000',
    '2.0000',
    '0.0000',
    '2.0000',
    '2.0000',
    '0.0000',
  ]);
  assert.equal(await pageHash(page), '');
});

pageTest('reload and a fresh page with the same URL restore the exact state', async (open) => {
  const page = await open();
  await page.fill('#randn_tokens', '5');
  await page.fill('#randn_d_in', '4');
  await page.fill('#randn_seed', '7');
  await page.click('#randomize');
  await page.fill('input[name=tokens][data-row="0"]', 'Hello, world');
  await page.fill('#seed_weights', '42');
  await page.fill('#seed_dropout', '-7');
  await page.fill('#seed_class', '2024');
  await page.selectOption('#rng', 'mkl');
  await page.check('#qkv_bias');
  await page.uncheck('#scale');
  await page.fill('#dropout', '0.3');
  await page.fill('#d_out', '3');
  await page.fill('#context_length', '9');
  await page.fill('input[name=tokens][data-row="4"]', 'último');

  const config = await hashConfig(page);
  assert.deepEqual(config, {
    inputs: { randn: [5, 4], seed: 7 },
    tokens: ['Hello, world', 'journey', 'starts', 'with', 'último'],
    d_out: 3,
    seed_weights: 42,
    seed_dropout: -7,
    dropout: 0.3,
    seed_class: 2024,
    context_length: 9,
    qkv_bias: true,
    scale: false,
    rng: 'mkl',
  });
  const state = await snapshot(page);
  assert.equal(
    state.stages.length,
    57,
    'bias stages shown, MultiHeadAttention not (d_out 3, 2 heads)',
  );
  const native = runCli(config);
  assert.deepEqual(await shown(page), expected(native), 'the edited state equals the CLI');

  await page.reload();
  assert.equal(await ready(page), '1');
  sameState(await snapshot(page), state, 'after reload');

  const fresh = await open(page.url());
  sameState(await snapshot(fresh), state, 'a fresh page with the same URL');

  // Editing an input value of the random inputs turns them into typed-in values, and that
  // state survives a reload too.
  await fresh.fill('input[name=inputs][data-row="0"][data-col="0"]', '1.5');
  const typed = await hashConfig(fresh);
  assert.ok(
    Array.isArray(typed.inputs) && typed.inputs.length === 5 && typed.inputs[0][0] === 1.5,
    JSON.stringify(typed.inputs),
  );
  // (The random-inputs form is not state: its seed field shows the default again.)
  const noSeed = (st) => ({ ...st, controls: st.controls.filter((c) => c[0] !== 'randn_seed') });
  const typedState = noSeed(await snapshot(fresh));
  await fresh.reload();
  assert.equal(await ready(fresh), '1');
  sameState(noSeed(await snapshot(fresh)), typedState, 'typed-in inputs after reload');

  // Reset goes back to the book and clears the hash.
  await fresh.click('#reset');
  assert.equal(await pageHash(fresh), '');
  assert.deepEqual((await cells(fresh, 'attn_scores'))[0][0], '0.2899');
});

pageTest(
  'a cell explains itself with its operands; Esc closes; arrows and Enter work',
  async (open) => {
    const page = await open();
    const panel = () =>
      page.evaluate(() => ({
        hidden: document.getElementById('explain').hidden,
        title: document.getElementById('explain-title').textContent,
        body: Array.from(document.querySelectorAll('#explain-body p'), (p) => p.textContent),
        sel: Array.from(
          document.querySelectorAll('main .sel'),
          (td) =>
            td.closest('[data-stage]').dataset.stage + `[${td.dataset.row}][${td.dataset.col}]`,
        ),
        focus: document.activeElement.closest('[data-stage]')
          ? document.activeElement.closest('[data-stage]').dataset.stage +
            `[${document.activeElement.dataset.row}][${document.activeElement.dataset.col}]`
          : document.activeElement.id,
      }));
    assert.equal((await panel()).hidden, true);

    const q = (await cells(page, 'queries'))[2],
      k = (await cells(page, 'keys'))[3];
    const score = (await cells(page, 'attn_scores'))[2][3];
    assert.equal(score, '0.0259');
    await page.click('[data-stage="attn_scores"] td[data-row="2"][data-col="3"]');
    let p = await panel();
    assert.equal(p.hidden, false);
    assert.equal(p.title, 'attn_scores[2, 3] = 0.0259');
    assert.deepEqual(p.sel, ['attn_scores[2][3]']);
    const body = p.body.join('\n');
    assert.match(body, /query “starts”, key “with”/);
    for (const x of [...q, ...k])
      assert.ok(body.includes(x.startsWith('-') ? `(${x})` : x), `operand ${x} in:\n${body}`);
    assert.ok(body.includes(`${q[0]}×(${k[0]}) + (${q[1]})×(${k[1]})`), body);
    assert.match(body, /= 0\.0259\n/);
    assert.match(body, /float32 value: 0\.02588/);

    await page.keyboard.press('Escape');
    p = await panel();
    assert.equal(p.hidden, true, 'Esc closes');
    assert.deepEqual(p.sel, []);
    assert.equal(p.focus, 'attn_scores[2][3]', 'focus goes back to the cell');

    // A softmax cell lists the masked row and the sum; the close button closes too.
    await page.click('[data-stage="attn_weights_causal"] td[data-row="1"][data-col="0"]');
    p = await panel();
    assert.equal(p.title, 'attn_weights_causal[1, 0] = 0.5517');
    assert.ok(
      p.body.some((l) => l.includes('−∞')) && p.body.some((l) => /^sum = /.test(l)),
      p.body.join('\n'),
    );
    await page.click('#explain-close');
    assert.equal((await panel()).hidden, true, 'the close button closes');

    // Keyboard: the first cell of a table is in the tab order; arrows move, Enter opens.
    await page.focus('[data-stage="masked"] td[data-row="0"][data-col="0"]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    p = await panel();
    assert.equal(p.focus, 'masked[1][1]');
    assert.equal(p.hidden, true);
    assert.deepEqual(
      await page.$$eval('[data-stage="masked"] td[tabindex="0"]', (t) =>
        t.map((e) => `${e.dataset.row},${e.dataset.col}`),
      ),
      ['1,1'],
      'one tab stop per table, on the focused cell',
    );
    const lit = await page.$$eval('[data-stage="masked"] td.hl', (t) =>
      t.map((e) => `${e.dataset.row},${e.dataset.col}`).sort(),
    );
    assert.deepEqual(
      lit,
      ['0,1', '1,0', '1,1', '1,2', '1,3', '1,4', '1,5', '2,1', '3,1', '4,1', '5,1'],
      'row and column highlighted',
    );
    await page.keyboard.press('Enter');
    p = await panel();
    assert.equal(p.hidden, false);
    assert.equal(p.title, 'masked[1, 1] = 0.1723');
    await page.keyboard.press('Escape');
    assert.equal((await panel()).focus, 'masked[1][1]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press(' ');
    p = await panel();
    assert.equal(p.title, 'masked[1, 2] = −∞', 'Space opens too');
    assert.match(p.body.join('\n'), /key “starts” comes after query “journey”/);

    // The open explanation follows an edit.
    await page.fill('#d_out', '3');
    p = await panel();
    assert.equal(p.hidden, false);
    assert.equal(p.title, 'masked[1, 2] = −∞');
    await page.keyboard.press('Escape');
  },
);

pageTest('a token label with markup shows as text', async (open) => {
  const evil = '<img src=x onerror=alert(1)>';
  let page = await open();
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await page.fill('input[name=tokens][data-row="0"]', evil);
  for (let round = 0; round < 2; round++) {
    await settled(page); // stages off screen get their labels in idle time
    assert.equal(
      await page.evaluate(() => document.querySelectorAll('img').length),
      0,
      'no img element',
    );
    assert.equal(
      await page.$eval('[data-stage="attn_scores"] tbody th[scope=row]', (e) => e.textContent),
      evil,
    );
    assert.equal(
      await page.$eval(
        '[data-stage="attn_scores"] thead th[scope=col]:nth-child(2)',
        (e) => e.textContent,
      ),
      evil,
    );
    assert.equal(
      await page.$eval('[data-stage="context_vecs"] tbody th[scope=row]', (e) => e.textContent),
      evil,
    );
    assert.equal(await page.inputValue('input[name=tokens][data-row="0"]'), evil);
    assert.deepEqual((await hashConfig(page)).tokens, [evil, ...BOOK_TOKENS.slice(1)]);
    // Its explanation quotes it as text too.
    await page.click('[data-stage="attn_scores"] td[data-row="0"][data-col="0"]');
    assert.ok(
      (await page.$eval('#explain-body', (e) => e.textContent)).includes(`query “${evil}”`),
    );
    assert.equal(await page.evaluate(() => document.querySelectorAll('img').length), 0);
    await page.keyboard.press('Escape');
    page = await open(page.url()); // the same label from the URL
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      d.dismiss();
    });
  }
  await page.waitForTimeout(100);
  assert.deepEqual(dialogs, []);
});

pageTest(
  'a phone: no horizontal page scroll, tables scroll in their boxes; dark mode is dark',
  async (open) => {
    const luminance = (rgb) => {
      const [r, g, b] = rgb.match(/[\d.]+/g).map(Number);
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    };
    const colors = (page) =>
      page.evaluate(() => {
        const s = getComputedStyle(document.body);
        return {
          bg: s.backgroundColor,
          fg: s.color,
          cell: getComputedStyle(document.querySelector('.t td')).color,
        };
      });
    for (const colorScheme of ['light', 'dark']) {
      const page = await open(
        suite.server.url +
          '#' +
          encodeURIComponent(JSON.stringify({ qkv_bias: true, d_out: 4, rng: 'mkl' })),
        { viewport: { width: 360, height: 740 }, colorScheme },
      );
      const layout = await page.evaluate(() => ({
        width: document.scrollingElement.scrollWidth,
        client: document.scrollingElement.clientWidth,
        unboxed: Array.from(
          document.querySelectorAll('table.t, #inputs-editor'),
          (t) => t.parentElement,
        ).filter((d) => !d.classList.contains('scroll') || getComputedStyle(d).overflowX !== 'auto')
          .length,
        tables: document.querySelectorAll('table.t').length,
        overflowing: Array.from(
          document.querySelectorAll('main .scroll'),
          (d) => d.scrollWidth > d.clientWidth,
        ).filter(Boolean).length,
        boxesFit: Array.from(
          document.querySelectorAll('.scroll'),
          (d) => d.getBoundingClientRect().right,
        ).every((r) => r <= 361),
      }));
      assert.ok(layout.width <= 361, `${colorScheme}: page scrollWidth ${layout.width} > 360`);
      assert.equal(layout.unboxed, 0, 'every table sits in a horizontally scrolling box');
      assert.ok(layout.tables >= 30);
      assert.ok(
        layout.overflowing > 0,
        'some tables are wider than a phone and scroll inside their box',
      );
      assert.ok(layout.boxesFit, 'the scroll boxes fit the screen');

      // The explanation panel fits the phone too.
      await page.click('[data-stage="attn_scores"] td[data-row="5"][data-col="0"]');
      const pr = await page.$eval('#explain', (e) => e.getBoundingClientRect().toJSON());
      assert.ok(pr.left >= 0 && pr.right <= 360, JSON.stringify(pr));
      assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= 361));

      const c = await colors(page);
      if (colorScheme === 'dark') {
        assert.ok(luminance(c.bg) < 0.15, `dark background: ${c.bg}`);
        assert.ok(luminance(c.fg) > 0.7, `light text: ${c.fg}`);
      } else {
        assert.ok(luminance(c.bg) > 0.9, `light background: ${c.bg}`);
        assert.ok(luminance(c.fg) < 0.3, `dark text: ${c.fg}`);
      }
    }
  },
);

pageTest(
  'the contents list every section and stage in chapter order; links keep the settings',
  async (open) => {
    const page = await open(
      suite.server.url + '#' + encodeURIComponent(JSON.stringify({ num_heads: 1 })),
    );
    const api = await loadApi();
    const toc = await page.$$eval('#toc-list > li', (items) =>
      items.map((li) => [
        li.querySelector('a').getAttribute('href'),
        Array.from(li.querySelectorAll(':scope > ol a'), (a) => a.getAttribute('href')),
      ]),
    );
    assert.deepEqual(
      toc,
      api.sections.map((s) => [
        '#' + s.id,
        api.stages.filter((st) => st.section === s.id && !st.bias).map((st) => '#' + st.id),
      ]),
    );
    assert.deepEqual(
      api.sections.map((s) => s.number),
      [
        ...['3.3.1', '3.3.2', '3.4.1', '3.4.2', '3.5.1', '3.5.2', '3.5.3', '3.6.1', '3.6.2'],
        ...['ch03/02.3', 'ch03/02.4', 'ch03/02.5', 'ch03/02.7', 'ch04/03'],
      ],
    );
    // Past the chapter: the first section numbered by the repository's folder, marked once in
    // the contents and on the page (the "Beyond chapter 3" rule).
    assert.deepEqual(
      await page.$$eval('#toc-list > li.part > a, #main section.part > h2', (e) =>
        e.map((x) => x.getAttribute('href') || x.id),
      ),
      ['#bonus-qkv', 'bonus-qkv'],
    );
    await page.click('#toc summary');
    await page.click('a[href="#mha.queries"]');
    await page.waitForFunction(
      () => Math.abs(document.getElementById('mha.queries').getBoundingClientRect().top) < 2,
    );
    assert.deepEqual(await hashConfig(page), { num_heads: 1 });
    assert.equal(await page.locator('#mha\\.queries .sh').first().textContent(), ' (2, 1, 6, 2)');
    for (const id of ['s1', 'mha.attn_weights']) {
      // the anchors of the book's sections and stages
      await page.goto(suite.server.url + '#' + id);
      await page.waitForSelector('html[data-ready="1"]');
      await settled(page); // the boxes below the first screen are built in idle time
      await page.waitForFunction(
        (i) => Math.abs(document.getElementById(i).getBoundingClientRect().top) < 2,
        id,
      );
      assert.equal(await page.locator('#status').textContent(), '');
    }
  },
);

pageTest('the KV cache step slider lights step t and fades the steps after it', async (open) => {
  const page = await open(suite.server.url + '#stage=kv.attn_weights');
  const input = page.locator('.kv-steps input');
  await page.waitForSelector('[data-stage="kv.cache_k"] tbody tr');
  assert.equal(await input.getAttribute('max'), '5'); // one step per token
  assert.equal(await input.inputValue(), '5'); // the whole sequence generated: nothing faded
  const opacity = (id, row) =>
    page.$eval(
      `[data-stage="${id}"] tbody tr:nth-child(${row + 1}) td`,
      (td) => getComputedStyle(td).opacity,
    );
  assert.equal(await opacity('kv.attn_weights', 5), '1');
  await input.fill('2');
  assert.match(await page.textContent('.kv-steps output'), /^step 2: the cache holds tokens 0…2$/);
  // Step 2's row of weights and the cache's first three rows are lit; later ones fade.
  for (const id of ['kv.attn_weights', 'kv.cache_k', 'kv.context_vecs']) {
    assert.equal(await opacity(id, 2), '1', id);
    assert.equal(await opacity(id, 3), '0.3', id);
  }
  // Other sections are untouched.
  assert.equal(await opacity('mha.attn_weights', 3), '1');
  await input.fill('5');
  assert.equal(await opacity('kv.attn_weights', 5), '1');
});
