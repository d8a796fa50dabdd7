// Where an edit's frame goes (issue 21, item 3), on the built page in headless Chromium
// (tests/js/browser.js's): one of budgets.js's edits (--edit: dropout, seed_weights, d_out (the
// default), inputs; `all`: each in turn) on the book's page and on randn inputs of T = 32,
// timed by build-scripts/edit-timing.js (budgets.js's measurement: input event -> handler's
// return, -> the next frame painted), then traced once more with
//   - a performance trace (Chrome DevTools protocol Tracing: the renderer's style, layout,
//     paint and scripts, with JS samples), written to PREFIX-<case>-<edit>.json: DevTools opens
//     it (Performance, Load profile), as does https://ui.perfetto.dev;
//   - a CPU profile, PREFIX-<case>-<edit>.cpuprofile (DevTools, Performance, Load profile);
// and printed: per edit, the main thread's tasks from the input event to the frame painted,
// wall and CPU (the handler, the frame and its phases, any other task by the Chromium
// function that posted it: autofill, timers, messages; the rest of the wall time the thread
// ran nothing); the main thread's self time per trace event, per edit, split between the
// edit's own frame and after it (idle time building boxes off screen, the URL, the map); what
// the handler changed in the page, per stage box (nodes added or removed, texts, styles: what
// the frame restyles and lays out) and the layout's dirty objects; and the JS functions with
// the most self time.
// Several page directories are timed in interleaved rounds, in one invocation (before/after:
// the first is traced); medians. For readable function names, profile a page packed without
// terser: CA_READABLE=1 node src/wasm/pack.js --page web OUT/web (see build-scripts/build.sh).
//   node build-scripts/edit-profile.js [WEB_DIR ...] [--edit NAME|all] [--edits N] [--rounds R] [--output PREFIX]
//   (defaults: build/web, d_out, 20 edits, 3 rounds, /tmp/edit; --rounds 0: the trace alone)
'use strict';
const fs = require('fs');
const { launch, serve, ready, web } = require('../tests/js/browser');
const {
  edits,
  editsOn,
  loadAverage,
  median,
  stopTrace,
  EDITS,
  RANDN_32,
} = require('./edit-timing');

const args = process.argv.slice(2),
  opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt),
  output = opt('--output', '/tmp/edit'),
  N = +opt('--edits', 20),
  ROUNDS = +opt('--rounds', 3),
  name = opt('--edit', 'd_out'),
  chosen = EDITS.filter((e) => name === 'all' || e.selector.includes(name)),
  dirs = args.filter((a, k) => !a.startsWith('--') && !(args[k - 1] || '').startsWith('--'));
if (!dirs.length) dirs.push(web);
if (!chosen.length) throw new Error(`--edit ${name}: none of ${EDITS.map((e) => e.what)}`);

const CASES = [
  ['book', '', 16],
  ['randn T = 32', RANDN_32, 30],
];

// The trace's categories: DevTools' Performance panel's own set (the timeline, its frames,
// JS samples, user timing marks).
const CATEGORIES = [
  '-*',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'disabled-by-default-devtools.timeline.stack',
  'v8.execute',
  'disabled-by-default-v8.cpu_profiler',
  'blink.user_timing',
  'toplevel', // the tasks, with the function that posted each
  'latencyInfo',
  'loading',
].join(',');

async function open(browser, server, hash) {
  const page = await browser.context.newPage();
  await page.goto(server.url + 'index.html' + hash);
  await ready(page);
  return page;
}

// Self time (ms) per event name on the renderer's main thread, inside the edits' frames
// (between the marks edit-K and painted-K) and after them.
function selfTimes(trace) {
  const events = trace.traceEvents || trace,
    marks = events.filter(
      (e) => e.cat === 'blink.user_timing' && /^(edit|painted)-\d+$/.test(e.name),
    ),
    main = marks[0]; // the page's main thread: where its performance.mark()s are
  const own = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid);
  const windows = [];
  marks
    .filter((m) => m.name.startsWith('edit-'))
    .forEach((m) => {
      const end = marks.find((p) => p.name === 'painted-' + m.name.slice(5));
      if (end) windows.push([m.ts, end.ts]);
    });
  const inFrame = (ts) => windows.some((w) => ts >= w[0] && ts < w[1]);
  // Complete events (ph X) and B/E pairs, nested by time; self = duration - children's.
  const spans = [];
  const open = [];
  own
    .filter((e) => e.ph === 'X' || e.ph === 'B' || e.ph === 'E')
    .sort((a, b) => a.ts - b.ts || (a.ph === 'E' ? -1 : 1))
    .forEach((e) => {
      if (e.ph === 'X') spans.push({ name: e.name, ts: e.ts, end: e.ts + (e.dur || 0) });
      else if (e.ph === 'B') open.push({ name: e.name, ts: e.ts });
      else {
        const b = open.pop();
        if (b) spans.push({ name: b.name, ts: b.ts, end: e.ts });
      }
    });
  spans.sort((a, b) => a.ts - b.ts || b.end - a.end);
  const stack = [],
    out = { frame: {}, after: {} };
  const close = (s) => {
    const bucket = inFrame(s.ts) ? out.frame : out.after;
    bucket[s.name] = (bucket[s.name] || 0) + (s.end - s.ts - s.child) / 1000;
  };
  for (const s of spans) {
    while (stack.length && stack[stack.length - 1].end <= s.ts) close(stack.pop());
    s.child = 0;
    if (stack.length)
      stack[stack.length - 1].child += Math.min(s.end, stack[stack.length - 1].end) - s.ts;
    stack.push(s);
  }
  while (stack.length) close(stack.pop());
  return { ...out, windows };
}

// JS functions' self and total time (ms) in the CPU profile's samples inside the edits' frames
// (the profile's clock is the trace's).
function profileTimes(profile, windows) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n])),
    parent = new Map(),
    self = {},
    total = {};
  profile.nodes.forEach((n) => (n.children || []).forEach((c) => parent.set(c, n.id)));
  const nameOf = (n) => {
    const f = n.callFrame;
    return `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
  };
  let ts = profile.startTime;
  profile.samples.forEach((id, k) => {
    ts += profile.timeDeltas[k] || 0;
    const dt = (profile.timeDeltas[k + 1] || 0) / 1000;
    if (!windows.some((w) => ts >= w[0] && ts < w[1])) return;
    const seen = new Set();
    self[nameOf(nodes.get(id))] = (self[nameOf(nodes.get(id))] || 0) + dt;
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const name = nameOf(nodes.get(n));
      if (!seen.has(name)) total[name] = (total[name] || 0) + dt;
      seen.add(name);
    }
  });
  return { self, total };
}

// The main thread's tasks from each edit's input event to its frame painted (the windows of
// selfTimes), per edit (mean): the task that ran the input handler, the frame's (cc's
// BeginMainFrame) and its phases, and every other task by the Chromium function that posted
// it (an autofill scan, a timer, a message); wall and CPU (thread time) in ms. The rest of the
// window's wall time the thread ran nothing: it waited (for a core, or for the compositor).
function taskTimes(trace, windows) {
  const events = trace.traceEvents || trace,
    mark = events.find((e) => e.cat === 'blink.user_timing' && /^edit-\d+$/.test(e.name)),
    own = events
      .filter((e) => mark && e.pid === mark.pid && e.tid === mark.tid && e.ph === 'X')
      .sort((a, b) => a.ts - b.ts || b.dur - a.dur), // outer events first
    runs = own.filter((e) => e.name === 'ThreadControllerImpl::RunTask'),
    PHASES = {
      FireAnimationFrame: 'requestAnimationFrame callbacks',
      UpdateLayoutTree: 'style',
      Layout: 'layout',
      PrePaint: 'pre-paint',
      Paint: 'paint', // the outermost layer's (a layer's paint holds the ones inside it)
      Layerize: 'layerize',
      'IntersectionObserverController::computeIntersections': 'intersection observers',
      Commit: 'commit',
    },
    rows = {},
    add = (name, wall, cpu) => {
      const r = (rows[name] = rows[name] || [0, 0]);
      r[0] += wall / 1000;
      r[1] += cpu / 1000;
    };
  for (const [t0, t1] of windows) {
    let busy = 0;
    for (const t of runs) {
      if (t.ts + t.dur < t0 || t.ts > t1) continue;
      // the part of the task inside the window (the handler's task began before its mark)
      const wall = Math.min(t.ts + t.dur, t1) - Math.max(t.ts, t0),
        cpu = ((t.tdur || 0) * wall) / Math.max(1, t.dur),
        args = t.args || {},
        frame = args.src_func === 'ScheduledActionSendBeginMainFrame',
        what = t.ts <= t0 ? 'the input handler' : frame ? 'the frame' : `other: ${args.src_func}`;
      busy += wall;
      add(what, wall, cpu);
      let inside = 0; // the end of the last Paint counted
      if (frame)
        for (const e of own)
          if (PHASES[e.name] && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e.ts >= inside) {
            if (e.name === 'Paint') inside = e.ts + e.dur;
            add(`  of it ${PHASES[e.name]}`, e.dur, e.tdur || 0);
          }
    }
    add('nothing run (waiting)', t1 - t0 - busy, 0);
  }
  return rows;
}

const top = (table, n, per) =>
  Object.entries(table)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => `${(ms / per).toFixed(2).padStart(9)} ms  ${name}`);

// One traced and profiled pass of N edits `edit` of case `c` on page dir `server`.
async function trace(browser, server, [name, hash], edit, file) {
  const page = await open(browser, server, hash),
    cdp = await browser.context.newCDPSession(page);
  // performance.mark around each edit's frame: the trace's windows; and what its handler
  // changed in the page (a MutationObserver from the event's capture to its bubbling past the
  // window), per stage box: what the frame has to restyle and lay out.
  await page.evaluate((selector) => {
    let k = 0;
    const input = document.querySelector(selector),
      seen = new MutationObserver(() => {}),
      changes = (window.__changes = []);
    input.addEventListener(
      'input',
      () => {
        const n = k++;
        performance.mark('edit-' + n);
        seen.observe(document.body, {
          subtree: true,
          childList: true,
          attributes: true,
          characterData: true,
        });
        requestAnimationFrame(() => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => performance.mark('painted-' + n);
          ch.port2.postMessage(0);
        });
      },
      true,
    );
    window.addEventListener('input', () => {
      const edit = {};
      for (const m of seen.takeRecords()) {
        const e = m.target.nodeType === 1 ? m.target : m.target.parentElement,
          box = e && e.closest('[data-stage]'),
          where = box ? box.dataset.stage : e && e.closest('#controls') ? '(settings)' : '(page)',
          what =
            m.type === 'childList'
              ? 'nodes added/removed'
              : m.type === 'characterData'
                ? 'texts'
                : m.attributeName === 'style'
                  ? 'styles'
                  : 'other attributes',
          row = (edit[where] = edit[where] || {});
        row[what] =
          (row[what] || 0) +
          (m.type === 'childList' ? m.addedNodes.length + m.removedNodes.length : 1);
      }
      seen.disconnect();
      changes.push(edit);
    });
  }, edit.selector);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReturnAsStream' });
  await cdp.send('Profiler.start');
  const times = await edits(page, edit, N);
  const { profile } = await cdp.send('Profiler.stop');
  const events = await stopTrace(cdp);
  const changes = await page.evaluate(() => window.__changes);
  await page.close();
  fs.writeFileSync(file + '.cpuprofile', JSON.stringify(profile));
  fs.writeFileSync(file + '.json', JSON.stringify(events));
  const self = selfTimes(events);
  console.log(
    `\n${name}, ${edit.what}, traced (${N} edits; under tracing the times are longer: handler median ` +
      `${median(times.dom).toFixed(1)} ms, painted ${median(times.painted).toFixed(1)} ms):` +
      ` ${file}.json (trace), ${file}.cpuprofile`,
  );
  const per = Math.max(1, self.windows.length),
    js = profileTimes(profile, self.windows);
  const tasks = taskTimes(events, self.windows);
  console.log(
    `  main thread, per edit, its tasks from the input event to the frame painted (the JS under the sampling profiler: slower than untraced):`,
  );
  console.log(`      wall ms    CPU ms  task`);
  Object.entries(tasks)
    .filter(([what, [wall]]) => !what.startsWith('other') || wall / per >= 0.05)
    .forEach(([what, [wall, cpu]]) =>
      console.log(
        `  ${(wall / per).toFixed(2).padStart(9)} ${(cpu / per).toFixed(2).padStart(9)}  ${what}`,
      ),
    );
  // The last edit's DOM changes (every edit of a pair changes the same nodes) and the
  // layouts' dirty objects (median over the edits).
  const last = changes[changes.length - 1] || {},
    dirty = events.traceEvents || events;
  console.log(`  the handler's changes to the page (the last edit), per stage box:`);
  Object.entries(last).forEach(([where, row]) =>
    console.log(
      `    ${where.padEnd(28)} ${Object.entries(row)
        .map(([what, n]) => `${n} ${what}`)
        .join(', ')}`,
    ),
  );
  const layouts = self.windows.map((w) =>
    dirty
      .filter((e) => e.name === 'Layout' && e.ts >= w[0] && e.ts < w[1] && e.args.beginData)
      .reduce((n, e) => n + e.args.beginData.dirtyObjects, 0),
  );
  if (layouts.length)
    console.log(
      `  the frame's layout: ${median(layouts)} dirty objects (median over the edits; the trace's Layout events)`,
    );
  console.log(`  main thread, per edit, inside its frame (input event -> painted):`);
  top(self.frame, 12, per).forEach((l) => console.log('  ' + l));
  console.log(`  main thread, per edit, after its frame (idle time, URL, map):`);
  top(self.after, 8, per).forEach((l) => console.log('  ' + l));
  console.log(`  JS inside the frame (CPU profile), per edit: self time`);
  top(js.self, 12, per).forEach((l) => console.log('  ' + l));
  console.log(`  ... and total time (the function and what it calls)`);
  top(js.total, 25, per).forEach((l) => console.log('  ' + l));
}

(async () => {
  const browser = await launch(),
    servers = [];
  try {
    for (const d of dirs) servers.push(await serve(d));
    console.log(
      `edit-profile: ${N} edits of ${chosen.map((e) => e.what).join(', ')}, ${ROUNDS} interleaved rounds of ${dirs.join(', ')}; load ${loadAverage()}`,
    );
    const times = {},
      runs = CASES.flatMap((c) => editsOn(c[1], chosen).map((e) => [c, e]));
    for (let r = 0; r < ROUNDS; r++)
      for (const [c, e] of runs)
        for (let d = 0; d < dirs.length; d++) {
          const page = await open(browser, servers[d], c[1]),
            t = await edits(page, e, N),
            k = c[0] + '|' + e.what + '|' + d;
          await page.close();
          times[k] = times[k] || { dom: [], painted: [] };
          times[k].dom.push(...t.dom);
          times[k].painted.push(...t.painted);
        }
    for (const [[name, , target], e] of ROUNDS ? runs : [])
      dirs.forEach((d, k) => {
        const t = times[name + '|' + e.what + '|' + k],
          first = times[name + '|' + e.what + '|0'];
        console.log(
          `${name.padEnd(13)} ${e.what.padEnd(25)} ${d}: handler median ${median(t.dom).toFixed(1)} ms, to the next ` +
            `frame painted ${median(t.painted).toFixed(1)} ms (target ${target} ms)` +
            (k ? `, ${(median(t.painted) / median(first.painted)).toFixed(2)}x the first` : ''),
        );
      });
    console.log(`load after the timed rounds ${loadAverage()}`);
    for (const [c, e] of runs)
      await trace(
        browser,
        servers[0],
        c,
        e,
        `${output}-${c[0].replace(/\W+/g, '')}-${e.selector.replace(/\W+/g, '')}`,
      );
  } finally {
    for (const s of servers) await s.close();
    await browser.close();
  }
})().catch((e) => {
  console.error(`edit-profile.js: ${e.stack || e.message}`);
  process.exit(1);
});
