// Where an edit's frame goes (issue 21, item 3), on the built page in headless Chromium
// (tests/js/browser.js's): d_out 2 <-> 3 on the book's page and on randn inputs of T = 32,
// timed by build-scripts/edit-timing.js (budgets.js's measurement: input event -> handler's
// return, -> the next frame painted), then traced once more with
//   - a performance trace (Chrome DevTools protocol Tracing: the renderer's style, layout,
//     paint and scripts, with JS samples), written to PREFIX-<case>.json: DevTools opens it
//     (Performance, Load profile), as does https://ui.perfetto.dev;
//   - a CPU profile, PREFIX-<case>.cpuprofile (DevTools, Performance, Load profile);
// and printed: the main thread's self time per trace event, per edit, split between the
// edit's own frame (input event to painted) and after it (idle time building boxes off
// screen, the URL, the map), and the JS functions with the most self time.
// Several page directories are timed in interleaved rounds, in one invocation (before/after:
// the first is traced); medians. For readable function names, profile a page packed without
// terser: CA_READABLE=1 node src/wasm/pack.js --page web OUT/web (see build-scripts/build.sh).
//   node build-scripts/edit-profile.js [WEB_DIR ...] [--edits N] [--rounds R] [--output PREFIX]
//   (defaults: build/web, 20 edits, 3 rounds, /tmp/edit; --rounds 0: the trace alone)
'use strict';
const fs = require('fs');
const { launch, serve, ready, web } = require('../tests/js/browser');
const { edits, loadAverage, median, stopTrace, D_OUT, RANDN_32 } = require('./edit-timing');

const args = process.argv.slice(2),
  opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt),
  output = opt('--output', '/tmp/edit'),
  N = +opt('--edits', 20),
  ROUNDS = +opt('--rounds', 3),
  dirs = args.filter((a, k) => !a.startsWith('--') && !(args[k - 1] || '').startsWith('--'));
if (!dirs.length) dirs.push(web);

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

const top = (table, n, per) =>
  Object.entries(table)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => `${(ms / per).toFixed(2).padStart(9)} ms  ${name}`);

// One traced and profiled pass of N edits of `c` on page dir `server`.
async function trace(browser, server, [name, hash], file) {
  const page = await open(browser, server, hash),
    cdp = await browser.context.newCDPSession(page);
  // performance.mark around each edit's frame: the trace's windows.
  await page.evaluate(() => {
    let k = 0;
    const input = document.querySelector('#d_out');
    input.addEventListener(
      'input',
      () => {
        const n = k++;
        performance.mark('edit-' + n);
        requestAnimationFrame(() => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => performance.mark('painted-' + n);
          ch.port2.postMessage(0);
        });
      },
      true,
    );
  });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReturnAsStream' });
  await cdp.send('Profiler.start');
  const times = await edits(page, D_OUT, N);
  const { profile } = await cdp.send('Profiler.stop');
  const events = await stopTrace(cdp);
  await page.close();
  fs.writeFileSync(file + '.cpuprofile', JSON.stringify(profile));
  fs.writeFileSync(file + '.json', JSON.stringify(events));
  const self = selfTimes(events);
  console.log(
    `\n${name}, traced (${N} edits; under tracing the times are longer: handler median ` +
      `${median(times.dom).toFixed(1)} ms, painted ${median(times.painted).toFixed(1)} ms):` +
      ` ${file}.json (trace), ${file}.cpuprofile`,
  );
  const per = Math.max(1, self.windows.length),
    js = profileTimes(profile, self.windows);
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
      `edit-profile: ${N} edits of ${D_OUT.what}, ${ROUNDS} interleaved rounds of ${dirs.join(', ')}; load ${loadAverage()}`,
    );
    const times = {};
    for (let r = 0; r < ROUNDS; r++)
      for (const c of CASES)
        for (let d = 0; d < dirs.length; d++) {
          const page = await open(browser, servers[d], c[1]),
            t = await edits(page, D_OUT, N),
            k = c[0] + '|' + d;
          await page.close();
          times[k] = times[k] || { dom: [], painted: [] };
          times[k].dom.push(...t.dom);
          times[k].painted.push(...t.painted);
        }
    for (const [name, , target] of ROUNDS ? CASES : [])
      dirs.forEach((d, k) => {
        const t = times[name + '|' + k],
          first = times[name + '|0'];
        console.log(
          `${name.padEnd(13)} ${d}: handler median ${median(t.dom).toFixed(1)} ms, to the next ` +
            `frame painted ${median(t.painted).toFixed(1)} ms (target ${target} ms)` +
            (k ? `, ${(median(t.painted) / median(first.painted)).toFixed(2)}x the first` : ''),
        );
      });
    console.log(`load after the timed rounds ${loadAverage()}`);
    for (const c of CASES)
      await trace(browser, servers[0], c, `${output}-${c[0].replace(/\W+/g, '')}`);
  } finally {
    for (const s of servers) await s.close();
    await browser.close();
  }
})().catch((e) => {
  console.error(`edit-profile.js: ${e.stack || e.message}`);
  process.exit(1);
});
