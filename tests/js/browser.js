// The browser tests' one harness: Debian's Chromium driven by playwright-core (no browser
// download), a static server for build/web on 127.0.0.1, and browserSuite(), which gives a test
// file both plus open() and done(). Shared by the browser tests, build-scripts/budgets.js and
// build-scripts/screenshots.js.
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
const { chromium } = require('playwright-core');

const web = path.join(process.env.CA_BUILD || path.resolve(__dirname, '../../build'), 'web');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
};

/** Serves `dir` on 127.0.0.1 (a free port); resolves to {url, close()}. `headers` are added to
 *  every response (e.g. a Content-Security-Policy). */
function serve(dir, headers = {}) {
  return serveWith(dir, {}, headers);
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
  return { context, close, profile };
}

/** A new page that records console errors and warnings, page errors and failed requests,
 *  and any request to another origin than `allowed` (or file:). */
async function watchedPage(context, allowed = '') {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning')
      problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    // A request cut short because its page closed or moved on (ERR_ABORTED) is not a failure.
    const why = r.failure() ? r.failure().errorText : '';
    if (why !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.url()} ${why}`);
  });
  page.on('request', (r) => {
    const u = r.url();
    if (!(
      u.startsWith('file:') ||
      u.startsWith('data:') ||
      u.startsWith('blob:') ||
      (allowed && u.startsWith(allowed))
    )) {
      problems.push(`request to another origin: ${u}`);
    }
  });
  return { page, problems };
}

/** Waits until the page has set <html data-ready> ("1" or "error") and returns its value;
 *  at "1", also until every stage is built (settled): the page shows the first screen first
 *  and builds the boxes below in idle time. */
async function ready(page, timeout = 15000) {
  await page.waitForFunction(() => document.documentElement.dataset.ready, null, { timeout });
  const state = await page.evaluate(() => document.documentElement.dataset.ready);
  if (state === '1') await settled(page);
  return state;
}

/** Waits until the page has rendered every stage: it updates those off screen in idle time
 *  after an edit (web/app.js sets main[data-complete]). Pages without a <main> are ready. */
function settled(page, timeout = 90000) {
  return page.waitForFunction(
    () => {
      const m = document.getElementById('main');
      return !m || m.dataset.complete === '1';
    },
    null,
    { timeout },
  );
}

/** The page's location.hash once written: the page writes an edit's hash after the edit's frame
 *  is painted (web/page/url.js: requestAnimationFrame, then a task), so this reads it after the
 *  next frame and a task of its own. */
function pageHash(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) =>
        requestAnimationFrame(() => setTimeout(() => resolve(location.hash))),
      ),
  );
}

/** The text of a stage's value cells, one array per table row; `batch` picks the table of a
 *  3-D stage. */
async function cells(page, id, batch = 0) {
  await settled(page);
  return page.evaluate(
    ([id, b]) => {
      const box = document.querySelector(`div.stage[data-stage="${id}"]`);
      const t = box && box.querySelectorAll('table.t')[b];
      if (!t) throw new Error(`no table ${b} in stage ${id}`);
      return Array.from(t.tBodies[0].rows, (r) =>
        Array.from(r.querySelectorAll('td'), (td) => td.textContent),
      );
    },
    [id, batch],
  );
}

/** Like serve(dir, headers), but `files` ({'path/name.html': text}) are served too, as if they
 *  were in `dir`: pages that only tests need, without writing into the build. The object is
 *  read at each request: files added later are served too. */
function serveWith(dir, files, headers = {}) {
  const server = http.createServer((req, res) => {
    const rel =
      decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    const file = path.join(dir, rel);
    const own = Object.prototype.hasOwnProperty.call(files, rel);
    if (
      !own &&
      (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory())
    ) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(rel)] || 'application/octet-stream',
      ...headers,
    });
    if (own) res.end(files[rel]);
    else fs.createReadStream(file).pipe(res);
  });
  // close() also ends the browser's idle keep-alive connections, which would hold it ~60 s.
  const close = () =>
    new Promise((r) => {
      server.close(r);
      server.closeAllConnections();
    });
  // Unref'd: a test that fails before its close() must not keep its file's process (and the
  // test command) waiting forever; the browser's pipe keeps the process alive while it runs.
  server.unref();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}/`, close });
    }),
  );
}

/** serveWith(dir, files, headers) in a thread of its own, for the load timings (budgets.js,
 *  load-profile.js). A real page's server is not the browser driver's process; this one's
 *  event loop also carries Playwright's messages, and at load ~10 it answered the page's
 *  scripts 28-41 ms late (the HTML, asked before the traffic starts, 5.6 ms). */
function serveApart(dir, files, headers = {}) {
  const worker = new Worker(__filename, { workerData: { serve: { dir, files, headers } } });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (url) => {
      worker.unref(); // as serveWith's server: a failed run must not wait for it
      const close = () =>
        new Promise((r) => {
          worker.ref(); // until it has closed
          worker.once('exit', r);
          worker.postMessage('close');
        });
      resolve({ url, close });
    });
  });
}

/** Runs axe-core (node_modules/axe-core) on the page, shadow roots included; resolves to its
 *  violations as short strings. */
async function axeViolations(page) {
  await page.addScriptTag({
    path: path.resolve(__dirname, '../../node_modules/axe-core/axe.min.js'),
  });
  const violations = await page.evaluate(async () => (await globalThis.axe.run()).violations);
  return violations.map(
    (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`,
  );
}

/** Waits until every <causal-attention-demo> of the page has rendered (data-state set). */
async function widgetsReady(page) {
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('causal-attention-demo');
    return all.length > 0 && Array.from(all).every((w) => w.dataset.state);
  });
  // ...and the code they load after their first table (explanations, the pictures' exports:
  // web/lib/lazy.js), which a widget drawn asks for in idle time.
  await page.waitForFunction(
    () =>
      !Array.from(document.querySelectorAll('causal-attention-demo')).some(
        (w) => w.dataset.state === 'ready',
      ) ||
      // fetched (resource timing), or run (lib/lazy.js's registry: resource timing has no
      // entries for file: URLs)
      performance
        .getEntriesByType('resource')
        .some((r) => /causal-attention-later\.js$/.test(r.name) && r.responseEnd > 0) ||
      Boolean(
        globalThis.CausalAttention &&
        CausalAttention.__modules &&
        CausalAttention.__modules['causal-attention-later.js'],
      ),
  );
}

/** The texts of row `row` of a stage's table (batch `batch` of 3-D stages) in the widget
 *  matched by `host` (a CSS selector), read through its shadow root. */
function widgetRow(page, host, stage, row, batch = 0) {
  return page.evaluate(
    ([h, s, r, b]) => {
      const root = document.querySelector(h).shadowRoot;
      return Array.from(root.querySelectorAll(`[data-stage="${s}"] td[data-row="${r}"]`))
        .filter((td) => (td.dataset.batch || '0') === String(b))
        .map((td) => td.textContent);
    },
    [host, stage, row, batch],
  );
}

/** One Chromium and one server of build/web (plus `files`, as serveWith) for the tests of a
 *  file: started before them, closed after (node:test hooks). Returns {browser, server, files,
 *  open, done}; browser and server are set once the tests start.
 *  open(url, {viewport, colorScheme, reducedMotion, wait}) resolves to a watched page
 *  ({page, problems}) at `url` (relative to the server unless it has a scheme), light and with
 *  motion unless asked otherwise; `wait`: 'page' (the default: data-ready "1" and every stage
 *  built), 'widgets' (every <causal-attention-demo> rendered) or false.
 *  done(w) asserts that the page recorded no problem and closes it. */
function browserSuite({ files = {}, headers = {}, setup = null } = {}) {
  const { before, after } = require('node:test');
  const assert = require('node:assert/strict');
  const suite = { files, browser: null, server: null };
  // A file's own setup goes in `setup`, not in another before(): Node 20 runs a file's root
  // before() hooks side by side, so a second one could run before the browser exists.
  before(async () => {
    assert.ok(fs.existsSync(path.join(web, 'index.html')), `no ${web}/index.html: build first`);
    [suite.browser, suite.server] = await Promise.all([launch(), serveWith(web, files, headers)]);
    if (setup) await setup(suite);
  });
  after(async () => {
    if (suite.browser) await suite.browser.close();
    if (suite.server) await suite.server.close();
  });
  suite.open = async (url = '', opts = {}) => {
    const w = await watchedPage(suite.browser.context, suite.server.url);
    if (opts.viewport) await w.page.setViewportSize(opts.viewport);
    await w.page.emulateMedia({
      colorScheme: opts.colorScheme || 'light',
      reducedMotion: opts.reducedMotion || 'no-preference',
    });
    await w.page.goto(/^[a-z]+:/.test(url) ? url : suite.server.url + url);
    const wait = opts.wait === undefined ? 'page' : opts.wait;
    if (wait === 'page') assert.equal(await ready(w.page), '1', `data-ready of ${url}`);
    else if (wait === 'widgets') await widgetsReady(w.page);
    return w;
  };
  suite.done = async (w) => {
    assert.deepEqual(w.problems, []);
    await w.page.close();
  };
  return suite;
}

// Runs before the page's scripts: records when the first stage's table is in the document (a
// widget's in its shadow root; not the page's inputs editor, a table in index.html itself),
// then when that frame has been painted (rAF, then a message: after style, layout and paint),
// and which files had been loaded by then.
/** An init script (page.addInitScript) for tests/js/paint.test.js and build-scripts/paint.js. */
const OBSERVE_FIRST_TABLE = () => {
  const found = () => {
    const w = document.querySelector('causal-attention-demo');
    return (w && w.shadowRoot ? w.shadowRoot : document).querySelector('[data-stage] table');
  };
  const look = () => {
    if (!found()) return requestAnimationFrame(look);
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      const at = performance.now(),
        box = found().closest('[data-stage]'),
        note = box.querySelector('.nt');
      window.__firstTable = {
        at,
        // the first table's stage and the note its caption shows (lib/table.js), as painted
        stage: box.dataset.stage,
        note: note && note.textContent,
        files: performance
          .getEntriesByType('resource')
          .filter((r) => r.startTime <= at)
          .map((r) => new URL(r.name).pathname.split('/').pop() || 'index.html'),
      };
    };
    ch.port2.postMessage(0);
  };
  requestAnimationFrame(look);
};

module.exports = {
  OBSERVE_FIRST_TABLE,
  browserSuite,
  serve,
  serveWith,
  serveApart,
  launch,
  watchedPage,
  ready,
  settled,
  pageHash,
  cells,
  axeViolations,
  widgetsReady,
  widgetRow,
  web,
};

// serveApart's thread: serve, say where, close when told.
if (!isMainThread && workerData && workerData.serve) {
  const { dir, files, headers } = workerData.serve;
  serveWith(dir, files, headers).then(({ url, close }) => {
    parentPort.postMessage(url);
    parentPort.once('message', () => close().then(() => parentPort.close()));
  });
}
