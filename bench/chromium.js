// Exercise 3.3 in the page (index.html#preset=gpt2) in headless Chromium, on 1 Worker and on
// pools of N (web/page/runner.js; navigator.hardwareConcurrency is set before the page runs):
// the time from the request to the result received (progress line running -> done), the time
// the progress line shows, the longest main-thread task meanwhile (Long Tasks API), and the
// shown stages' hashes, which must be equal on every pool size. Prints a Markdown table;
// bench/compare.sh puts it in docs/performance-tables.md. Runs alternate between pool sizes (and
// builds) so that a load change on a shared machine hits each alike. --base DIR: another build
// (e.g. main's build/web copied aside) run in turn with WEB_DIR, a row each, and the ratio.
// Wall times on a busy machine mostly measure the scheduler: on Linux each Worker thread's CPU
// time when the result is in (utime + stime from /proc: its start, warm-up and shard; the
// busiest Worker's is the critical path's compute) is printed too, which load hardly changes.
//   node bench/chromium.js [--runs 3] [--workers 1,2,4] [--base DIR] [WEB_DIR]
'use strict';
const fs = require('fs');
const os = require('os');
const { launch, serve, web } = require('../tests/js/browser');

const args = process.argv.slice(2),
  opt = (name, d) => (args.includes(name) ? args[args.indexOf(name) + 1] : d),
  runs = +opt('--runs', 3),
  sizes = opt('--workers', '1,2,4').split(',').map(Number),
  dir = args.find((a, k) => !a.startsWith('--') && !/^--/.test(args[k - 1] || '')) || web,
  base = opt('--base', null),
  builds = base ? { base: base, this: dir } : { this: dir };

// Before the page's scripts: the pool's size, and when the progress line runs and is done.
function observe(cores) {
  Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => cores });
  const t = (window.__bench = { long: [] });
  new PerformanceObserver((l) =>
    l.getEntries().forEach((e) => t.long.push([e.startTime, e.duration])),
  ).observe({ type: 'longtask', buffered: true });
  new MutationObserver(() => {
    const p = document.getElementById('progress');
    if (p && p.dataset.state === 'running' && !t.running) t.running = performance.now();
    if (p && p.dataset.state === 'done' && !t.done) t.done = performance.now();
  }).observe(document, { subtree: true, attributes: true, childList: true });
}

// The processes under the browser started with `profile` (Linux /proc; [] elsewhere).
function browserProcesses(profile) {
  const procs = {};
  try {
    for (const p of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x)))
      try {
        const ppid = +fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1];
        procs[p] = { ppid, cmd: fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') };
      } catch (e) {
        // gone meanwhile
      }
  } catch (e) {
    return [];
  }
  const root = Object.keys(procs).find((p) => procs[p].cmd.includes(profile)),
    under = (p) => p && (p === root || (procs[p] && under(String(procs[p].ppid))));
  return Object.keys(procs).filter((q) => root && q !== root && under(q));
}

// Samples the CPU ms (utime + stime) of each DedicatedWorker thread of those processes every
// 10 ms (the processes every 100 ms): stop() returns [[epoch ms, {thread id: CPU ms}], ...].
function sampleWorkers(profile) {
  let pids = [],
    tick = 0;
  const names = {},
    samples = [];
  const timer = setInterval(() => {
    const now = performance.timeOrigin + performance.now(),
      cpu = {};
    if (tick++ % 10 === 0) pids = browserProcesses(profile); // a navigation may start a renderer
    for (const p of pids)
      try {
        for (const t of fs.readdirSync(`/proc/${p}/task`)) {
          if (!(t in names))
            names[t] = fs.readFileSync(`/proc/${p}/task/${t}/comm`, 'utf8').startsWith('Dedicated');
          if (!names[t]) continue;
          const f = fs.readFileSync(`/proc/${p}/task/${t}/stat`, 'utf8').split(') ')[1].split(' ');
          cpu[t] = ((+f[11] + +f[12]) * 1000) / 100; // clock ticks of 10 ms
        }
      } catch (e) {
        // a process or thread ended meanwhile
      }
    samples.push([now, cpu]);
  }, 10);
  return () => (clearInterval(timer), samples);
}

async function once(browser, url, cores, hashes) {
  const page = await browser.context.newPage();
  await page.addInitScript(observe, cores);
  const stop = sampleWorkers(browser.profile); // the page's renderer exists once it is open
  await page.goto(url + 'index.html#preset=gpt2');
  await page.waitForSelector('#progress[data-state="done"]', { timeout: 600000 });
  await page.waitForTimeout(300); // long tasks are reported after they end
  const samples = stop(),
    done = await page.evaluate(() => performance.timeOrigin + window.__bench.done),
    asked = await page.evaluate(() => performance.timeOrigin + window.__bench.running),
    first = samples.length ? samples[0][1] : {},
    // each new Worker thread's CPU at the last sample before the result was in (the heads
    // computed on demand start right after it)
    at = samples.filter(([t]) => t <= done).pop(),
    cpu = at ? Object.entries(at[1]).filter(([t]) => !(t in first)) : [];
  const r = await page.evaluate(async (hash) => {
    const t = window.__bench,
      during = t.long.filter(([s, d]) => s + d > t.running && s < t.done).map(([, d]) => d),
      out = { wall: t.done - t.running, nav: t.done, longest: Math.max(0, ...during) };
    out.line = document.getElementById('progress').textContent;
    if (hash) {
      const hex = (b) =>
        Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
      out.hashes = {};
      // mha.attn_weights is computed on demand (lib/slices.js): s.whole() asks for every head
      for (const s of CausalAttention.__modules['page/store.js'].get().result.stages)
        out.hashes[s.id] = hex(
          await crypto.subtle.digest('SHA-256', await (s.whole ? s.whole() : s.data)),
        ).slice(0, 12);
    }
    return out;
  }, hashes);
  await page.close();
  r.cpu = cpu.length ? Math.max(...cpu.map(([, ms]) => ms)) : NaN;
  // and what each used from the request on (a Worker's work before it, warm-up and memory, is
  // off the path from request to result)
  const before = (samples.filter(([t]) => t <= asked).pop() || [0, {}])[1];
  r.after = cpu.length ? Math.max(...cpu.map(([t, ms]) => ms - (before[t] || 0))) : NaN;
  return r;
}

// A run whose Worker CPU was not sampled (no /proc sample before the result) is NaN: left out
// of the median and the range, and counted, instead of printing "NaN-NaN".
const median = (a) => {
  const s = a.filter((x) => !Number.isNaN(x)).sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
const cell = (a) => {
  const got = a.filter((x) => !Number.isNaN(x));
  if (!got.length) return 'not sampled';
  const missing = a.length - got.length ? `, ${got.length} of ${a.length} sampled` : '';
  return `${Math.round(median(got))} (${Math.round(Math.min(...got))}-${Math.round(Math.max(...got))}${missing})`;
};

(async () => {
  const browser = await launch(),
    servers = {};
  for (const [b, d] of Object.entries(builds)) servers[b] = await serve(d);
  const got = {};
  try {
    for (let k = 0; k < runs; k++)
      for (const n of sizes)
        for (const b of Object.keys(builds)) {
          const r = await once(browser, servers[b].url, n, k === 0);
          const g = (got[b + n] = got[b + n] || {
            wall: [],
            nav: [],
            shown: [],
            longest: [],
            cpu: [],
            after: [],
            line: r.line,
          });
          g.cpu.push(r.cpu);
          g.after.push(r.after);
          g.wall.push(r.wall);
          g.nav.push(r.nav);
          g.shown.push(+/in (\d+) ms/.exec(r.line)[1]);
          g.longest.push(r.longest);
          if (r.hashes) g.hashes = r.hashes;
        }
  } finally {
    await browser.close();
    for (const s of Object.values(servers)) await s.close();
  }
  const first = 'this' + sizes[0],
    one = median(got[first].wall),
    ref = JSON.stringify(got[first].hashes);
  console.log(
    `\nExercise 3.3 in the page (\`index.html#preset=gpt2\`: MultiHeadAttention(768, 768, 1024, 0.0, ` +
      `num_heads=12) on (2, 1024, 768), WASM in headless Chromium), pools of Workers ` +
      `(navigator.hardwareConcurrency set; page/runner.js); median ms (min-max) of ${runs} runs` +
      `, load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(', ')} at the end. ` +
      'Request to result: the progress line running to done (Workers started, computed, ' +
      'transferred, assembled, the result rendered in the same task); from navigation: the ' +
      "page's start to the same moment; shown: the time the " +
      "progress line gives; busiest Worker's CPU: the most CPU time (/proc) one Worker thread " +
      "had used when the result was in (start, warm-up, shard: the critical path's compute, " +
      'which load hardly changes), and from the request on; main thread: its longest task ' +
      'meanwhile.' +
      (base ? ` Builds: base = ${base}, this = ${dir}, in turn.` : '') +
      '\n',
  );
  console.log(
    `|${base ? ' build |' : ''} cores | progress line | request to result | / ${sizes[0]} core${sizes[0] > 1 ? 's' : ''}${base ? ' | / base' : ''} | from navigation | shown | busiest Worker's CPU${base ? ' | / base' : ''} | from the request${base ? ' | / base' : ''} | main thread's longest task | stages' sha256 |`,
  );
  console.log(
    `|${base ? '---|' : ''}---|---|---|---|${base ? '---|' : ''}---|---|---|${base ? '---|' : ''}---|${base ? '---|' : ''}---|---|`,
  );
  let same = true;
  for (const n of sizes)
    for (const b of Object.keys(builds)) {
      const g = got[b + n],
        eq = JSON.stringify(g.hashes) === ref;
      same = same && eq;
      console.log(
        `|${base ? ` ${b} |` : ''} ${n} | ${g.line.replace(/^Computed in \d+ ms /, '').replace(/;.*/, '')} | ${cell(g.wall)} | ` +
          `${(median(g.wall) / one).toFixed(2)}x |` +
          (base ? ` ${(median(g.wall) / median(got['base' + n].wall)).toFixed(2)}x |` : '') +
          ` ${cell(g.nav)} | ${cell(g.shown)} | ${cell(g.cpu)} |` +
          (base ? ` ${(median(g.cpu) / median(got['base' + n].cpu)).toFixed(2)}x |` : '') +
          ` ${cell(g.after)} |` +
          (base ? ` ${(median(g.after) / median(got['base' + n].after)).toFixed(2)}x |` : '') +
          ` ${cell(g.longest)} | ${eq ? 'equal' : 'DIFFER'} |`,
      );
    }
  console.log(
    `\nThe 7 stages' sha256 (first 12 hex digits) on ${sizes[0]} core: ` +
      Object.entries(got[first].hashes)
        .map(([id, h]) => `${id} ${h}`)
        .join(', ') +
      (same ? '; equal on every pool size' + (base ? ' and build.' : '.') : '; they DIFFER.'),
  );
  if (!same) process.exitCode = 1;
})();
