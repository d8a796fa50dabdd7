// The budgets of issue #3, measured on the built page (build/web, or $CA_BUILD/web):
//   size       gzip -9 of every file the page directory ships          asserted: <= 72,000 bytes (shared by all issues)
//   tables     navigation start -> <html data-ready="1"> (all tables)  target 150 ms, reported
//   recompute  an `input` event on a control -> tables re-rendered     target 5 ms, reported
// plus a bare api.run({}) in the page and the core's native benchmark. Run by budgets.sh.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { spawnSync } = require('child_process');
const { serve, launch, watchedPage, web } = require('../tests/js/browser');

const SIZE_BUDGET = 72000, READY_TARGET = 150, RECOMPUTE_TARGET = 5;
const LOADS = 10, EDITS = 30, RUNS = 40, RUN_BATCH = 10;
const build = path.dirname(web);

const group = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const ms = (x) => (x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1)) + ' ms';
const median = (a) => {
  const s = [...a].sort((x, y) => x - y), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const stats = (a) => `median ${ms(median(a))} (min ${ms(Math.min(...a))}, max ${ms(Math.max(...a))}, n = ${a.length})`;

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : e.isFile() ? [p] : [];
  }).sort();
}

function size() {
  console.log(`Size: gzip -9 of every file under ${web}/ (budget ${group(SIZE_BUDGET)} bytes)`);
  let raw = 0, gz = 0;
  for (const f of files(web)) {
    const data = fs.readFileSync(f), z = zlib.gzipSync(data, { level: 9 }).length;
    raw += data.length;
    gz += z;
    console.log(`  ${path.relative(web, f).padEnd(36)} ${group(data.length).padStart(9)} raw ${group(z).padStart(9)} gzip`);
  }
  console.log(`  ${'total'.padEnd(36)} ${group(raw).padStart(9)} raw ${group(gz).padStart(9)} gzip` +
    `   ${gz <= SIZE_BUDGET ? 'within' : 'OVER'} the budget of ${group(SIZE_BUDGET)} bytes`);
  return { raw, gz };
}

// Records performance.now() (relative to navigation start) the moment data-ready becomes "1",
// from a MutationObserver installed before any script of the page runs.
const OBSERVE_READY = () => {
  new MutationObserver((records, obs) => {
    for (const r of records) {
      if (r.target === document.documentElement && document.documentElement.dataset.ready) {
        window.__ready = { state: document.documentElement.dataset.ready, at: performance.now() };
        obs.disconnect();
        return;
      }
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
};

async function load(context, url) {
  const { page, problems } = await watchedPage(context, new URL(url).origin + '/');
  await page.addInitScript(OBSERVE_READY);
  await page.goto(url);
  await page.waitForFunction(() => window.__ready, null, { timeout: 20000 });
  const ready = await page.evaluate(() => window.__ready);
  if (ready.state !== '1') throw new Error(`the page did not start (data-ready="${ready.state}"): ${problems.join('; ')}`);
  if (problems.length) throw new Error(`the page reported problems: ${problems.join('; ')}`);
  return { page, at: ready.at };
}

// In the page: `n` edits alternating between two values of a control, each timed from the
// dispatch of its `input` event (the page re-renders synchronously in the handler) to the
// handler's return, and to the end of the style and layout it forces; one frame between edits.
async function edits(page, selector, values, check, n) {
  return page.evaluate(async ([selector, values, check, n]) => {
    const el = document.querySelector(selector), dom = [], layout = [];
    const cell = () => document.querySelector(check.cell).textContent;
    for (let k = -5; k < n; k++) {
      const v = (k + 10) % 2;
      el.value = values[v];
      const t0 = performance.now();
      el.dispatchEvent(new Event('input', { bubbles: true }));
      const t1 = performance.now();
      void document.body.offsetHeight;
      const t2 = performance.now();
      if (cell() !== check.want[v]) throw new Error(`${selector} = ${values[v]}: ${check.cell} shows ${cell()}, not ${check.want[v]}`);
      if (k >= 0) { dom.push(t1 - t0); layout.push(t2 - t0); }
      await new Promise(requestAnimationFrame);
    }
    return { dom, layout };
  }, [selector, values, check, n]);
}

async function browser() {
  // Cross-origin isolated, so that performance.now() has 5 µs resolution instead of 100 µs.
  const server = await serve(web, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
  const { context, close } = await launch();
  try {
    const url = server.url + 'index.html';
    const cold = await load(context, url);
    const isolated = await cold.page.evaluate(() => crossOriginIsolated);
    await cold.page.close();
    const warm = [];
    for (let k = 0; k < LOADS; k++) {
      const l = await load(context, url);
      warm.push(l.at);
      await l.page.close();
    }
    console.log(`\nTables: navigation start -> data-ready="1" (every table rendered), index.html from ${server.url} (target <= ${READY_TARGET} ms)`);
    console.log(`  first load, empty cache       ${ms(cold.at)}`);
    console.log(`  ${LOADS} loads, fresh page each    ${stats(warm)}`);

    const { page } = await load(context, url);
    const drop = await edits(page, '#dropout', ['0.5', '0.4'],
      { cell: '[data-stage="dropout_example"] td[data-row="0"][data-col="0"]', want: ['2.0000', '1.6667'] }, EDITS);
    const input = await edits(page, 'input[name=inputs][data-row="1"][data-col="0"]', ['0.55', '0.9'],
      { cell: '[data-stage="queries"] td[data-row="1"][data-col="0"]', want: ['0.9091', '1.0197'] }, EDITS);
    const runs = await page.evaluate(async ([n, batch]) => {
      const api = await CausalAttention.load(), t = [];
      for (let k = 0; k < 20; k++) api.run({});
      for (let k = 0; k < n; k++) {
        const t0 = performance.now();
        for (let j = 0; j < batch; j++) api.run({});
        t.push((performance.now() - t0) / batch);
      }
      return t;
    }, [RUNS, RUN_BATCH]);
    await page.close();
    console.log(`\nRecompute after an edit of the book's example: the input event's dispatch, the page re-rendering every table in it (target <= ${RECOMPUTE_TARGET} ms)`);
    console.log(`  dropout 0.5 <-> 0.4            ${stats(drop.dom)}`);
    console.log(`    incl. style and layout       ${stats(drop.layout)}`);
    console.log(`  inputs[1][0] 0.55 <-> 0.9      ${stats(input.dom)}`);
    console.log(`    incl. style and layout       ${stats(input.layout)}`);
    console.log(`  api.run({}) alone              ${stats(runs)} (batches of ${RUN_BATCH})`);
    if (!isolated) console.log('  (the page was not cross-origin isolated: timer resolution 100 µs)');
    return { cold: cold.at, ready: median(warm), recompute: median([...drop.dom, ...input.dom]), run: median(runs) };
  } finally {
    await close();
    await server.close();
  }
}

function bench() {
  const exe = path.join(build, 'native/bench/ca_bench');
  if (!fs.existsSync(exe)) {
    console.log(`\nCore benchmark: ${exe} not built, skipped`);
    return;
  }
  console.log('\nCore benchmark (native, Google Benchmark):');
  const r = spawnSync(exe, ['--benchmark_min_time=0.05', '--benchmark_filter=Walkthrough'], { encoding: 'utf8', timeout: 30000 });
  const lines = (r.stdout || '').split('\n').filter((l) => /^(Benchmark|BM_)/.test(l));
  if (r.status !== 0 || !lines.length) console.log(`  failed (${r.error ? r.error.message : `exit ${r.status}`}): ${(r.stderr || '').trim()}`);
  for (const l of lines) console.log('  ' + l);
}

async function main() {
  if (!fs.existsSync(path.join(web, 'index.html'))) {
    console.error(`budgets: no ${web}/index.html; run build-scripts/build.sh first`);
    process.exit(2);
  }
  const started = Date.now();
  const s = size();
  const t = await browser();
  bench();
  const ok = s.gz <= SIZE_BUDGET;
  console.log(`\nbudgets: size ${group(s.gz)} B gzip ${ok ? '<=' : '>'} ${group(SIZE_BUDGET)} B ${ok ? 'OK' : 'OVER'}; ` +
    `tables ${ms(t.ready)} median (cold ${ms(t.cold)}; target ${READY_TARGET} ms); ` +
    `recompute ${ms(t.recompute)} median (target ${RECOMPUTE_TARGET} ms); api.run({}) ${ms(t.run)}; ` +
    `measured in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (!ok) {
    console.error(`budgets: FAILED: the page is ${group(s.gz)} bytes gzipped, ${group(s.gz - SIZE_BUDGET)} over the budget of ${group(SIZE_BUDGET)}`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(`budgets: ${e.stack || e.message}`);
  process.exit(1);
});
