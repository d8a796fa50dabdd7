// Where a book edit's time goes (issue 21, item 3): a CPU profile of 20 edits of d_out (2 <-> 3)
// on the built page in headless Chromium (tests/js/browser.js's), written to a .cpuprofile file
// (Chromium's DevTools open it: Performance, Load profile), and the functions with the most
// self time printed, with the edits' medians (input handler, and to the next frame painted).
// Layout that JS forces is counted in that function's self time; the rest of rendering is
// "(program)". For readable names, profile a page packed without terser
// (src/wasm/pack.js's bundle(): its text before minify).
//   node build-scripts/edit-profile.js [WEB_DIR] [--output FILE]   (default /tmp/edit.cpuprofile)
'use strict';
const fs = require('fs');
const { launch, serve, ready, web } = require('../tests/js/browser');

const args = process.argv.slice(2),
  output = args.includes('--output') ? args[args.indexOf('--output') + 1] : '/tmp/edit.cpuprofile',
  dir = args.find((a, k) => !a.startsWith('--') && args[k - 1] !== '--output') || web;

(async () => {
  const browser = await launch(),
    server = await serve(dir);
  try {
    const page = await browser.context.newPage();
    await page.goto(server.url);
    await ready(page);
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    const times = await page.evaluate(async () => {
      const input = document.querySelector('#d_out'),
        out = [];
      const frame = () =>
        new Promise((resolve) =>
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => resolve(performance.now());
            ch.port2.postMessage(0);
          }),
        );
      await frame();
      for (let k = 0; k < 20; k++) {
        input.value = k % 2 ? '2' : '3';
        const t0 = performance.now();
        input.dispatchEvent(new Event('input', { bubbles: true }));
        const t1 = performance.now();
        out.push([t1 - t0, (await frame()) - t0]);
        for (let w = 0; w < 200 && document.getElementById('main').dataset.complete !== '1'; w++)
          await new Promise((r) => setTimeout(r, 10));
      }
      return out;
    });
    const { profile } = await cdp.send('Profiler.stop');
    fs.writeFileSync(output, JSON.stringify(profile));
    const nodes = new Map(profile.nodes.map((n) => [n.id, n])),
      self = {};
    profile.samples.forEach((id, k) => {
      const f = nodes.get(id).callFrame,
        name = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
      self[name] = (self[name] || 0) + (profile.timeDeltas[k] || 0) / 1000;
    });
    const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
    console.log(
      `20 edits of d_out: input handler median ${median(times.map((t) => t[0])).toFixed(1)} ms, ` +
        `to the next frame painted ${median(times.map((t) => t[1])).toFixed(1)} ms; profile: ${output}`,
    );
    for (const [name, ms] of Object.entries(self)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20))
      console.log(`${ms.toFixed(1).padStart(9)} ms  ${name}`);
  } finally {
    await server.close();
    await browser.close();
  }
})().catch((e) => {
  console.error(`edit-profile.js: ${e.message}`);
  process.exit(1);
});
