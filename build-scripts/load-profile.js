// Where the book's load goes (issue 21: navigation -> first table painted <= 150 ms), on built
// page directories in headless Chromium (tests/js/browser.js's), timed as budgets.js times it
// (build-scripts/load-timing.js: a new tab, a plain server, navigation start -> the frame after
// data-ready painted), each load traced (Chrome DevTools protocol Tracing) and split into the
// renderer main thread's CPU time (thread time, not wall: on a shared machine wall time waits
// for the other processes) by kind: HTML parsing, scripts, style, layout, paint, the whole
// thread; and its synchronous font look-ups sent to the browser process (one per font family
// missing or found, one per strike: family x integer size x weight x style), with their wall
// time. And the load's wall time in three phases: navigation start -> the page's first script
// evaluated (navigation, fetches and the scripts' compile on V8's background threads: the main
// thread idles while it waits for them), its scripts evaluated until the DOM is built
// (data-ready), and that frame (style, layout, paint, the compositor's frame). The floor (one
// table, no script) is loaded in the same rounds. Several page directories
// are loaded in interleaved rounds in one invocation (before/after): medians and minima, ratios
// to the first; the first directory's last trace is written to PREFIX.json (DevTools,
// Performance, Load profile; or https://ui.perfetto.dev).
// --first: timed to the first stage table painted or data-ready, whichever comes first
// (load-timing.js), for a page whose first screen is in its HTML (pre-rendered).
//   node build-scripts/load-profile.js [WEB_DIR ...] [--loads N] [--page PATH] [--output PREFIX] [--first]
//   (defaults: build/web, 8 loads, index.html, /tmp/load)
'use strict';
const fs = require('fs');
const { launch, serveApart, web } = require('../tests/js/browser');
const { OBSERVE_READY, FLOOR, FLOOR_FILES, inTurn } = require('./load-timing');
const { loadAverage, median, stopTrace } = require('./edit-timing');

const args = process.argv.slice(2),
  opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt),
  LOADS = +opt('--loads', 8),
  PAGE = opt('--page', 'index.html'),
  output = opt('--output', '/tmp/load'),
  FIRST = args.includes('--first'),
  dirs = args.filter(
    (a, k) => !a.startsWith('--') && !['--loads', '--page', '--output'].includes(args[k - 1]),
  );
if (!dirs.length) dirs.push(web);

const CATEGORIES = [
  '-*',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'blink.user_timing',
  'loading',
  'v8.execute',
  'fonts',
  'toplevel',
].join(',');
// Trace event -> the kind of main-thread work it is (self time is not needed: these nest
// little in one another before the first frame).
const KINDS = {
  ParseHTML: 'parse',
  ParseAuthorStyleSheet: 'parse',
  EvaluateScript: 'script',
  FunctionCall: 'script',
  'v8.compileModule': 'script',
  UpdateLayoutTree: 'style',
  Layout: 'layout',
  PrePaint: 'paint',
  Paint: 'paint',
  Layerize: 'paint',
  'ThreadControllerImpl::RunTask': 'thread',
};
const FONT_IPC = /^(WebSandboxSupportLinux::|FontDataService::MatchFamilyName)/;
const COLUMNS = [
  'wall',
  'toScript',
  'fetched',
  'waitToJs',
  'scripts',
  'frame',
  'waitFrame',
  'thread',
  'parse',
  'script',
  'style',
  'layout',
  'paint',
  'fonts',
  'fontsWall',
];

// The main thread's CPU (ms) per kind from navigation start to the 'painted' mark, and the
// font look-ups in that time; the phases' wall time (ms): toScript (navigation start -> the
// first EvaluateScript), scripts (-> the 'ready' mark), frame (-> 'painted'); fetched
// (navigation start -> the last byte of the files the page fetched before 'ready': the network's
// own finish time, not when the main thread heard of it); waitToJs and waitFrame: the main
// thread's wall time in toScript and frame with no task running on it (waiting for the network,
// V8's background compile, the next begin-frame, the compositor).
function split(events) {
  const mark = (name) => events.find((e) => e.name === name && /user_timing/.test(e.cat)),
    painted = mark('painted'),
    ready = mark('ready');
  if (!painted || !ready) throw new Error('no "ready" or "painted" mark in the trace');
  // navigation start: the page's, by its navigation id (the new tab's about:blank has one too,
  // ~8 ms later, which was taken before: its ~8 ms of commit were left out)
  const { pid, tid } = painted,
    nav = events.find(
      (e) =>
        e.name === 'navigationStart' &&
        e.args.data &&
        e.args.data.navigationId === painted.args.data.navigationId,
    );
  if (!nav) throw new Error("no navigationStart with the 'painted' mark's navigation id");
  const start = nav.ts,
    script = events
      .filter((e) => e.name === 'EvaluateScript' && e.tid === tid && e.pid === pid && e.ts >= start)
      .reduce((a, e) => Math.min(a, e.ts), ready.ts);
  const r = Object.fromEntries(COLUMNS.map((c) => [c, 0]));
  r.toScript = (script - start) / 1000;
  r.scripts = (ready.ts - script) / 1000;
  r.frame = (painted.ts - ready.ts) / 1000;
  const finished = events
    .filter(
      (e) =>
        e.name === 'ResourceFinish' &&
        e.pid === pid &&
        e.ts >= start &&
        e.ts <= ready.ts &&
        e.args.data &&
        e.args.data.finishTime,
    )
    .map((e) => e.args.data.finishTime * 1e6);
  // 0 when nothing finished before it (the floor: its one file is still being parsed)
  r.fetched = finished.length ? (Math.max(...finished) - start) / 1000 : 0;
  // the main thread's tasks (top-level, merged), for the time between them
  const tasks = events
    .filter(
      (e) =>
        e.name === 'ThreadControllerImpl::RunTask' &&
        e.ph === 'X' &&
        e.tid === tid &&
        e.pid === pid,
    )
    .sort((a, b) => a.ts - b.ts);
  const idle = (from, to) => {
    let busy = 0,
      at = from;
    for (const e of tasks) {
      const a = Math.max(e.ts, at),
        b = Math.min(e.ts + e.dur, to);
      if (b > a) busy += b - a;
      at = Math.max(at, Math.min(e.ts + e.dur, to));
    }
    return (to - from - busy) / 1000;
  };
  r.waitToJs = idle(start, script);
  r.waitFrame = idle(ready.ts, painted.ts);
  for (const e of events) {
    if (e.pid !== pid || e.ph !== 'X' || e.ts < start || e.ts > painted.ts) continue;
    if (FONT_IPC.test(e.name)) {
      r.fonts++;
      r.fontsWall += e.dur / 1000;
    }
    if (e.tid === tid && KINDS[e.name]) r[KINDS[e.name]] += (e.tdur || 0) / 1000;
  }
  return r;
}

(async () => {
  const servers = [];
  for (const d of dirs) servers.push(await serveApart(d, FLOOR_FILES));
  const { context, close } = await launch();
  const got = [...dirs, FLOOR].map(() => []);
  let last = null;
  try {
    console.log(
      `load-profile: ${LOADS} loads of ${PAGE} from ${dirs.join(', ')} and the floor, interleaved; load ${loadAverage()}`,
    );
    // the directories in turns (load-timing.js's inTurn), the floor last
    for (let r = -1; r < LOADS; r++)
      for (let i = 0; i <= dirs.length; i++) {
        const k = i < dirs.length ? inTurn(r, i, dirs.length) : i,
          page = await context.newPage(),
          cdp = await context.newCDPSession(page);
        await page.addInitScript(OBSERVE_READY, FIRST);
        await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReturnAsStream' });
        await page.goto(servers[k % dirs.length].url + (k < dirs.length ? PAGE : FLOOR));
        await page.waitForFunction(() => window.__ready && window.__ready.painted, null, {
          timeout: 30000,
        });
        const ready = await page.evaluate(() => window.__ready),
          trace = await stopTrace(cdp),
          events = trace.traceEvents || trace;
        await page.close();
        if (ready.state !== '1' && ready.state !== 'table')
          throw new Error(`${dirs[k]}: data-ready="${ready.state}"`);
        if (r < 0) continue; // a warm-up round: the server's files and the browser's caches
        got[k].push({ ...split(events), wall: ready.painted });
        if (k === 0) last = events;
      }
    console.log(
      `main thread's CPU (ms) from navigation start to the first frame painted, of ${LOADS} loads;` +
        ` wall: navigation -> painted, in phases (wall): toScript (-> the first script evaluated),` +
        ` scripts (-> data-ready), frame (-> painted); fetched: navigation -> the last byte fetched` +
        ` before data-ready; waitToJs, waitFrame: the main thread idle in toScript, frame;` +
        ` fonts: synchronous font look-ups (count, their wall ms)`,
    );
    console.log(`${''.padEnd(32)}${COLUMNS.map((c) => c.padStart(10)).join('')}`);
    // medians, then minima (the least disturbed load: on a shared machine the median moves)
    const row = (label, v) =>
      console.log(`${label.padEnd(32)}${v.map((x) => x.padStart(10)).join('')}`);
    for (const [name, of] of [
      ['median', median],
      ['min', (a) => Math.min(...a)],
    ])
      got.forEach((runs, k) => {
        const m = COLUMNS.map((c) => of(runs.map((x) => x[c]))),
          first = COLUMNS.map((c) => of(got[0].map((x) => x[c])));
        const label = k < dirs.length ? dirs[k] : 'floor: 1 table, no script';
        row(
          `${name} ${label.slice(-(31 - name.length))}`,
          m.map((x) => x.toFixed(1)),
        );
        if (k > 0 && k < dirs.length)
          row(
            '  / the first',
            m.map((x, j) => (first[j] ? (x / first[j]).toFixed(2) : '-')),
          );
      });
    fs.writeFileSync(output + '.json', JSON.stringify(last));
    console.log(`load ${loadAverage()}; the first directory's last load traced: ${output}.json`);
  } finally {
    await close();
    for (const s of servers) await s.close();
  }
})().catch((e) => {
  console.error(`load-profile.js: ${e.stack || e.message}`);
  process.exit(1);
});
