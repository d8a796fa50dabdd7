// Debian's Chromium driven by playwright-core (no browser download), and a static server for
// build/web on 127.0.0.1. Shared by the browser tests and build-scripts/budgets.mjs.
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
];

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png' };

/** Serves `dir` on 127.0.0.1 (a free port); resolves to {url, close()}. `headers` are added to
 *  every response (e.g. a Content-Security-Policy). */
function serve(dir, headers = {}) {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    const file = path.join(dir, rel);
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', ...headers });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) });
  }));
}

/** A fresh headless Chromium with its own empty profile. */
async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const close = async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/** A new page that records console errors and warnings, page errors and failed requests,
 *  and any request to another origin than `allowed` (or file:). */
async function watchedPage(context, allowed = '') {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  page.on('request', (r) => {
    const u = r.url();
    if (!(u.startsWith('file:') || u.startsWith('data:') || u.startsWith('blob:') || (allowed && u.startsWith(allowed)))) {
      problems.push(`request to another origin: ${u}`);
    }
  });
  return { page, problems };
}

module.exports = { serve, launch, watchedPage, web: path.join(process.env.CA_BUILD || path.resolve(__dirname, '../../build'), 'web') };
