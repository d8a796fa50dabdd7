// Paint first (issue 18): for the page (the book) and a widget (embed.html), the gzip bytes
// loaded before the first table is painted and the time from navigation to that frame painted,
// medians of N loads in headless Chromium (tests/js/browser.js's). With another build's page
// directory as argument, both are measured in the same invocation, loads interleaved, and the
// ratio printed:
//   node build-scripts/paint.js [OTHER_WEB_DIR] [--loads N]
// e.g. a worktree of an older commit, built: git worktree add /tmp/base fcebb30, then
// node build-scripts/paint.js /tmp/base/build/web
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { launch, serve, web, OBSERVE_FIRST_TABLE } = require('../tests/js/browser');

const args = process.argv.slice(2),
  n = args.indexOf('--loads') >= 0 ? +args[args.indexOf('--loads') + 1] : 9,
  other = args.find((a, k) => !a.startsWith('--') && args[k - 1] !== '--loads');
const dirs = [web, ...(other ? [path.resolve(other)] : [])];
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

const median = (a) => {
  const s = [...a].sort((x, y) => x - y),
    m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const gzip = (dir, f) => zlib.gzipSync(fs.readFileSync(path.join(dir, f)), { level: 9 }).length;
function total(dir) {
  const walk = (d) =>
    fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(d, e.name);
      return e.isDirectory() ? walk(p) : [path.relative(dir, p)];
    });
  return walk(dir).reduce((s, f) => s + gzip(dir, f), 0);
}

async function once(context, url, dir) {
  const page = await context.newPage();
  await page.addInitScript(OBSERVE_FIRST_TABLE);
  await page.goto(url);
  await page.waitForFunction(() => window.__firstTable, null, { timeout: 30000 });
  const first = await page.evaluate(() => window.__firstTable);
  await page.close();
  const doc = new URL(url).pathname.split('/').pop() || 'index.html';
  const files = [...new Set([doc, ...first.files])].sort();
  return { ms: first.at, files, bytes: files.reduce((s, f) => s + gzip(dir, f), 0) };
}

(async () => {
  const browser = await launch();
  const servers = await Promise.all(dirs.map((d) => serve(d, { 'Content-Security-Policy': CSP })));
  const cases = [
    ['page (the book)', ''],
    ['widget (embed.html)', 'embed.html#stages=attn_weights_causal'],
  ];
  const got = dirs.map(() => cases.map(() => []));
  try {
    for (let k = -1; k < n; k++)
      // one warm-up load each
      for (let d = 0; d < dirs.length; d++)
        for (let c = 0; c < cases.length; c++) {
          const r = await once(browser.context, servers[d].url + cases[c][1], dirs[d]);
          if (k >= 0) got[d][c].push(r);
        }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    await browser.close();
  }
  console.log(`navigation -> first table painted, medians of ${n} loads (interleaved)`);
  dirs.forEach((dir, d) => {
    console.log(`${dir}: whole directory ${total(dir)} B gzip`);
    cases.forEach(([name], c) => {
      const r = got[d][c];
      console.log(
        `  ${name.padEnd(20)} ${median(r.map((x) => x.ms))
          .toFixed(1)
          .padStart(7)} ms ` +
          `(min ${Math.min(...r.map((x) => x.ms)).toFixed(1)}, max ${Math.max(...r.map((x) => x.ms)).toFixed(1)}), ` +
          `${r[0].bytes} B gzip before it: ${r[0].files.join(', ')}`,
      );
    });
  });
  if (dirs.length === 2)
    cases.forEach(([name], c) => {
      const a = median(got[0][c].map((x) => x.ms)),
        b = median(got[1][c].map((x) => x.ms));
      console.log(
        `${name}: this build / the other = ${(a / b).toFixed(2)} (time), ` +
          `${(got[0][c][0].bytes / got[1][c][0].bytes).toFixed(2)} (bytes)`,
      );
    });
})().catch((e) => {
  console.error(`paint.js: ${e.message}`);
  process.exit(1);
});
