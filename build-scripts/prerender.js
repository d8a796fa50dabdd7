// The book's first frame, pre-rendered into the built index.html (issue 21: navigation -> first
// table painted <= 150 ms): headless Chromium loads the built page (its source index.html, from
// web/), and the body app.js has built when it sets data-ready (the DOM of the first frame:
// the first stage boxes built, the others empty placeholders) is written into index.html as
// <body data-pre>, with the controls' values as attributes. The page then paints its first
// screen as soon as it is parsed; page/first.js loads the scripts after that frame and app.js
// takes the nodes over (form.start, stages.build and editor.build adopt them) instead of
// building them again.
// A strict CSP blocks style="" in HTML (set from script it is allowed): the shades (--v) of
// the pre-rendered cells and keys are rules at the end of style.css instead, scoped to
// body[data-pre], and their declarations data-style="" (app.js sets them from script and
// removes data-pre in one task: its update then finds the nodes equal to those it builds).
// Generated at build time, not committed: it is a function of the built scripts and the core's
// run, which the source does not hold. `--check` renders again and fails when the built
// index.html or style.css differ (a stale pre-render: pack.js run without this after it).
//   node build-scripts/prerender.js WEB_DIR [--check]
'use strict';
const fs = require('fs');
const path = require('path');
const { serveWith, launch } = require('../tests/js/browser');

const SOURCE = path.join(__dirname, '../web/index.html');
const VIEWPORT = { width: 1440, height: 900 }; // not a phone: app.js closes the settings there
const MARK = '/* pre-rendered: build-scripts/prerender.js */';

// In the page, before its scripts: once data-ready is set (in the task that built the first
// frame's DOM), the body as HTML and the rules of its elements' style attributes.
const CAPTURE = () => {
  new MutationObserver((records, obs) => {
    if (!(document.documentElement && document.documentElement.dataset.ready)) return;
    obs.disconnect();
    const body = document.body;
    // Property state that is not an attribute: values typed or set by script.
    for (const x of body.querySelectorAll('input, select, textarea')) {
      if (x.type === 'checkbox' || x.type === 'radio') x.toggleAttribute('checked', x.checked);
      else if (x.tagName === 'SELECT')
        for (const o of x.options) o.toggleAttribute('selected', o.selected);
      else if (x.tagName === 'TEXTAREA') x.textContent = x.value;
      else x.setAttribute('value', x.value);
    }
    // An element's selector: the shortest tail of its path from the nearest ancestor with an
    // id (child positions) that selects only elements of the same style (the colour keys'
    // swatches are alike: one rule each serves them all).
    const styled = [...body.querySelectorAll('[style]')],
      styleOf = (e) => e.getAttribute('style').replace(/;?\s*$/, '');
    const selector = (e) => {
      const steps = [];
      for (; !e.id; e = e.parentElement)
        steps.unshift(`${e.localName}:nth-child(${[...e.parentElement.children].indexOf(e) + 1})`);
      return [`[id="${CSS.escape(e.id)}"]`, ...steps];
    };
    let rules = new Set();
    for (const e of styled) {
      const path = selector(e),
        same = (x) => x.hasAttribute('style') && styleOf(x) === styleOf(e);
      let k = path.length - 1;
      while (k > 0 && ![...body.querySelectorAll(path.slice(k).join('>'))].every(same)) k--;
      rules.add(`body[data-pre] ${path.slice(k).join('>')}{${styleOf(e)}}`);
    }
    for (const e of styled) {
      e.dataset.style = e.getAttribute('style');
      e.removeAttribute('style');
    }
    rules = [...rules];
    // Not seen in the first frame, and built again by app.js: the contents (in a closed
    // <details>) and the settings' help (their labels' titles).
    document.getElementById('toc-list').replaceChildren();
    for (const l of body.querySelectorAll('#settings label[for][title]'))
      l.removeAttribute('title');
    body.setAttribute('data-pre', '');
    window.__prerender = { body: body.outerHTML, rules };
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
};

// The built page directory's index.html and style.css with the first frame in them.
async function render(web) {
  const source = fs.readFileSync(SOURCE, 'utf8');
  const server = await serveWith(web, { 'index.html': source });
  const { context, close } = await launch();
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.setViewportSize(VIEWPORT);
    await page.addInitScript(CAPTURE);
    await page.goto(server.url + 'index.html');
    await page.waitForFunction(() => window.__prerender, null, { timeout: 30000 });
    const { body, rules } = await page.evaluate(() => window.__prerender);
    if (problems.length) throw new Error(problems.join('; '));
    const parts = source.split(/<body>[^]*<\/body>/);
    if (parts.length !== 2) throw new Error("web/index.html's <body>...</body> not found");
    const css = fs.readFileSync(path.join(web, 'style.css'), 'utf8').split(MARK)[0];
    return {
      'index.html': parts[0] + body + parts[1],
      'style.css': css + MARK + rules.join('') + '\n',
    };
  } finally {
    await close();
    await server.close();
  }
}

if (require.main === module) {
  const args = process.argv.slice(2),
    web = args.find((a) => !a.startsWith('--')),
    check = args.includes('--check');
  render(path.resolve(web))
    .then((files) => {
      for (const [name, text] of Object.entries(files)) {
        const file = path.join(web, name);
        if (!check) fs.writeFileSync(file, text);
        else if (fs.readFileSync(file, 'utf8') !== text) {
          console.error(`prerender.js --check: ${file} is not the pre-render of this build`);
          process.exitCode = 1;
        }
      }
    })
    .catch((e) => {
      console.error(`prerender.js: ${e.stack || e.message}`);
      process.exit(1);
    });
}

module.exports = { render };
