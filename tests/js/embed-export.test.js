// The export buttons under every table, in headless Chromium: each text format parsed back
// gives the table's values (Markdown and LaTeX to their 4 decimals, CSV and the torch literal
// to the float32 bit, the latter read by torch itself), −∞ and
// labels survive, whole tables are exported where the page shows 32 × 32, the PNG downloads,
// and the clipboard receives the same text as the `ca-export` event.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const { spawnSync } = require('child_process');
const { browserSuite, watchedPage, widgetsReady, settled } = require('./browser');
const { loadApi } = require('./support');

// Labels that break naive formats: a column separator, a comma, quotes, a formula, markup.
const TOKENS = ['Your', 'a|b', 'c,d', 'say "hi"', '=1+1', '<img src=x onerror=alert(1)>'];
const CONFIG = { tokens: TOKENS, qkv_bias: true, rng: 'mkl' };

let page, problems, api;
const suite = browserSuite({
  async setup() {
    api = await loadApi();
    ({ page, problems } = await watchedPage(suite.browser.context, suite.server.url));
    await page.goto(suite.server.url + '#' + encodeURIComponent(JSON.stringify(CONFIG)));
    await page.waitForSelector('html[data-ready="1"]');
    await settled(page); // the boxes below the first screen are built in idle time
  },
});
test.after(async () => {
  assert.deepEqual(problems, []);
  await page.close();
});

/** Clicks an export button (page or widget `host`) and resolves with the ca-export detail. */
function exportText(stage, format, batch = 0, host = null, on = page) {
  return on.evaluate(
    ([h, s, f, b]) =>
      new Promise((resolve) => {
        document.addEventListener('ca-export', (e) => resolve(e.detail.text), { once: true });
        (h ? document.querySelector(h).shadowRoot : document)
          .querySelector(`[data-stage="${s}"] button[data-export="${f}"][data-batch="${b}"]`)
          .click();
      }),
    [host, stage, format, batch],
  );
}
/** The values of a table as the core computes them: {rows, cols, values[i][j]}. */
function expected(config, stage, batch = 0) {
  const s = api.run(config).stages.find((x) => x.id === stage),
    rank = s.shape.length;
  const rows = rank === 1 ? 1 : s.shape[rank - 2],
    cols = s.shape[rank - 1],
    off = rank === 3 ? batch * rows * cols : 0;
  const values = [];
  for (let i = 0; i < rows; i++)
    values.push(Array.from(s.data.slice(off + i * cols, off + (i + 1) * cols)));
  return { rows, cols, values, shape: s.shape };
}
const fixed4 = (x) => (x === -Infinity ? '−∞' : x.toFixed(4));
const special = {
  '-inf': -Infinity,
  inf: Infinity,
  nan: NaN,
  '−∞': -Infinity,
  '-\\infty': -Infinity,
  '\\infty': Infinity,
};
const toNumber = (text) => (text in special ? special[text] : Number(text));

// Markdown: a GFM table; cells split at unescaped |, then backslash escapes undone.
function parseMarkdown(text) {
  const lines = text.split('\n');
  assert.match(lines[1], /^\|---(\|---:)+\|$/);
  const cells = (line) =>
    line
      .slice(2, -2)
      .split(/ (?<!\\)\| /)
      .map((c) => c.replace(/\\(.)/g, '$1'));
  const header = cells(lines[0]);
  const body = lines.slice(2).map(cells);
  return {
    corner: header[0],
    cols: header.slice(1),
    rows: body.map((r) => r[0]),
    values: body.map((r) => r.slice(1)),
  };
}
function parseLatex(text) {
  const m = text.match(/^\\begin\{bmatrix\}\n([\s\S]*)\n\\end\{bmatrix\}$/);
  assert.ok(m, text);
  return m[1].split(' \\\\\n').map((row) => row.split(' & '));
}
// CSV per RFC 4180: quoted fields with doubled quotes, CRLF line ends.
function parseCsv(text) {
  assert.ok(text.endsWith('\r\n'));
  const rows = [];
  let row = [],
    field = '',
    quoted = false;
  for (let k = 0; k < text.length; k++) {
    const ch = text[k];
    if (quoted) {
      if (ch === '"' && text[k + 1] === '"') {
        field += '"';
        k++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[k + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      k++;
    } else field += ch;
  }
  return rows;
}
// The torch literal, evaluated by Python's torch itself (Debian's python3-torch, installed by
// build-scripts/setup.sh): its dtype, shape and every value's repr.
const PYTHON = `
import json, sys, torch
def describe(literal):
    t = eval(literal, {'torch': torch})
    return {'dtype': str(t.dtype), 'shape': list(t.shape), 'data': [repr(x) for x in t.flatten().tolist()]}
print(json.dumps([describe(literal) for literal in json.load(sys.stdin)]))
`;
/** Each literal's {dtype, shape, data (Python reprs)}, from one Python process. */
function evalTorch(literals) {
  const r = spawnSync('/usr/bin/python3', ['-c', PYTHON], {
    input: JSON.stringify(literals),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}
const sameFloat32 = (text, want) =>
  Object.is(Math.fround(toNumber(text)), want) || (Number.isNaN(want) && text === 'nan');

// Tables with −∞ (masked), masked zeros, dropped cells, a bias vector, both batch elements.
const TABLES = [
  ['masked', 0],
  ['attn_weights_causal', 0],
  ['attn_weights_dropped', 0],
  ['dropout_example', 0],
  ['b_query', 0],
  ['W_key', 0],
  ['mask', 0],
  ['context_vecs', 0],
  ['context_vecs', 1],
  ['row_sums', 0],
];

test('Markdown parses back to the table: labels as typed, 4 decimals, −∞', async () => {
  for (const [stage, batch] of TABLES) {
    const want = expected(CONFIG, stage, batch),
      md = parseMarkdown(await exportText(stage, 'markdown', batch));
    const shown = await page.evaluate(
      ([s, b]) =>
        Array.from(
          document.querySelectorAll(`[data-stage="${s}"] td${b ? `[data-batch="${b}"]` : ''}`),
        )
          .filter((td) => (td.dataset.batch || '0') === String(b))
          .map((td) => td.textContent),
      [stage, batch],
    );
    assert.deepEqual(md.values.flat(), shown, stage); // what the page shows, cell for cell
    assert.deepEqual(
      md.values,
      want.values.map((r) => r.map(fixed4)),
      stage,
    );
    md.values.flat().forEach((t, k) => {
      const w = want.values.flat()[k];
      assert.ok(
        Object.is(toNumber(t), w) || Math.abs(toNumber(t) - w) <= 5e-5,
        `${stage} ${t} ${w}`,
      );
    });
    if (['masked', 'attn_weights_causal'].includes(stage)) {
      assert.deepEqual(md.cols, TOKENS);
      assert.deepEqual(md.rows, TOKENS);
      assert.equal(md.corner, 'query \\ key');
    }
  }
  assert.equal(parseMarkdown(await exportText('b_query', 'markdown')).rows[0], 'bias');
});

test('LaTeX bmatrix parses back to the table, −∞ as -\\infty', async () => {
  for (const [stage, batch] of TABLES) {
    const want = expected(CONFIG, stage, batch),
      rows = parseLatex(await exportText(stage, 'latex', batch));
    assert.deepEqual(
      rows,
      want.values.map((r) => r.map((x) => (x === -Infinity ? '-\\infty' : x.toFixed(4)))),
      stage,
    );
  }
  assert.match(
    await exportText('masked', 'latex'),
    /^\\begin\{bmatrix\}\n-?\d\.\d{4} & -\\infty & -\\infty/,
  );
});

test('CSV parses back to every float32 bit, with labels, -inf and formula-safe labels', async () => {
  for (const [stage, batch] of TABLES) {
    const want = expected(CONFIG, stage, batch),
      rows = parseCsv(await exportText(stage, 'csv', batch));
    assert.equal(rows.length, want.rows + 1, stage);
    rows.slice(1).forEach((r, i) => {
      assert.equal(r.length, want.cols + 1);
      r.slice(1).forEach((t, j) =>
        assert.ok(
          sameFloat32(t, want.values[i][j]),
          `${stage}[${i}][${j}]: ${t} vs ${want.values[i][j]}`,
        ),
      );
    });
    if (stage === 'masked') {
      // '=1+1' would run as a formula in a spreadsheet: it gets a leading quote.
      assert.deepEqual(rows[0], [
        'query \\ key',
        'Your',
        'a|b',
        'c,d',
        'say "hi"',
        "'=1+1",
        '<img src=x onerror=alert(1)>',
      ]);
      assert.deepEqual(rows.map((r) => r[0]).slice(1), [
        'Your',
        'a|b',
        'c,d',
        'say "hi"',
        "'=1+1",
        '<img src=x onerror=alert(1)>',
      ]);
      assert.deepEqual(rows[1].slice(2), Array(5).fill('-inf'));
    }
  }
});

test('the torch literal, evaluated by torch.tensor, gives the same float32 values and shape', async () => {
  const literals = [];
  for (const [stage, batch] of TABLES) literals.push(await exportText(stage, 'torch', batch));
  const results = evalTorch(literals);
  for (const [k, [stage, batch]] of TABLES.entries()) {
    const want = expected(CONFIG, stage, batch),
      literal = literals[k],
      got = results[k];
    assert.match(literal, /^torch\.tensor\(\[/);
    assert.equal(got.dtype, 'torch.float32', `${stage}: ${literal}`);
    assert.deepEqual(
      got.shape,
      want.shape.length === 1 ? want.shape : [want.rows, want.cols],
      stage,
    );
    got.data.forEach((text, k) =>
      assert.ok(
        sameFloat32(text, want.values.flat()[k]),
        `${stage}[${k}]: ${text} vs ${want.values.flat()[k]}`,
      ),
    );
  }
  assert.match(await exportText('masked', 'torch'), /float\('-inf'\)/);
  assert.match(await exportText('mask', 'torch'), /^torch\.tensor\(\[\[0\.0, 1\.0,/); // floats, not an int tensor
});

test('exports hold the whole table where the page shows a heatmap', async () => {
  const big = { inputs: { randn: [40, 3], seed: 5 } };
  const { page: p, problems: pp } = await watchedPage(suite.browser.context, suite.server.url);
  await p.goto(suite.server.url + '#' + encodeURIComponent(JSON.stringify(big)));
  await p.waitForSelector('html[data-ready="1"]');
  await settled(p); // the boxes below the first screen are built in idle time
  await settled(p); // stages off screen are built in idle time
  assert.equal(await p.locator('[data-stage="attn_weights_causal"] canvas').count(), 1);
  assert.equal(await p.locator('[data-stage="attn_weights_causal"] td').count(), 0);
  const want = expected(big, 'attn_weights_causal');
  const csv = parseCsv(await exportText('attn_weights_causal', 'csv', 0, null, p));
  assert.equal(csv.length, 41);
  assert.ok(
    csv.slice(1).every((r, i) => r.slice(1).every((v, j) => sameFloat32(v, want.values[i][j]))),
  );
  assert.equal(
    parseMarkdown(await exportText('attn_weights_causal', 'markdown', 0, null, p)).values.length,
    40,
  );
  assert.equal(parseLatex(await exportText('attn_weights_causal', 'latex', 0, null, p)).length, 40);
  assert.equal(
    evalTorch([await exportText('attn_weights_causal', 'torch', 0, null, p)])[0].data.length,
    1600,
  );
  assert.deepEqual(pp, []);
  await p.close();
});

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

test("PNG: a download with a PNG signature and the table's size", async () => {
  for (const [stage, batch, name, rows] of [
    ['attn_weights_causal', 0, 'attn_weights_causal.png', 6],
    ['context_vecs', 1, 'context_vecs-1.png', 6],
    ['b_query', 0, 'b_query.png', 1],
  ]) {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page
        .locator(`[data-stage="${stage}"] button[data-export=png][data-batch="${batch}"]`)
        .click(),
    ]);
    assert.equal(download.suggestedFilename(), name);
    const bytes = fs.readFileSync(await download.path());
    const [width, height] = pngSize(bytes);
    assert.equal(height, 2 * 24 * (rows + 2), stage); // 2x: a title row, a header row, the rows
    assert.ok(width >= 200 && width <= 2 * 120 * 33, `${stage} ${width}`);
    // Drawn as laid out: dark text in the title row, the header's grey-blue, grey masked cells.
    const look = await page.evaluate(async (b64) => {
      const image = await createImageBitmap(
        new Blob([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))]),
      );
      const ctx = Object.assign(document.createElement('canvas'), {
        width: image.width,
        height: image.height,
      }).getContext('2d', { willReadFrequently: true });
      ctx.drawImage(image, 0, 0);
      const px = (x, y) => Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3)).join(',');
      const band = ctx.getImageData(0, 0, image.width, 48).data;
      let dark = 0;
      for (let k = 0; k < band.length; k += 4) if (band[k] < 100) dark++;
      const colW = image.width / 2 / 7; // 6 columns and the labels' (attn_weights_causal)
      return {
        titleInk: dark,
        titleBackground: px(image.width - 4, 24),
        header: px(4, 52),
        cornerOfTable: px(4, 100),
        masked: Array.from({ length: 24 }, (_, k) => px(image.width - 6 - k, 100)),
        first: px(Math.round(2 * colW + 6), 102),
      };
    }, bytes.toString('base64'));
    assert.ok(look.titleInk > 50, `${stage}: no title drawn`);
    assert.equal(
      look.titleBackground,
      '255,255,255',
      `${stage}: the title row is white, above the header`,
    );
    assert.equal(look.header, '238,240,243', stage);
    assert.equal(look.cornerOfTable, '238,240,243', stage); // the row labels' column
    if (stage === 'attn_weights_causal') {
      // Shaded as on the page (light theme, weights relative to uniform attention): row 0's
      // 1.0 is its one visible key's even share, the scale's middle; masked cells hatched.
      assert.equal(look.first, '104,144,160');
      assert.ok(
        look.masked.includes('213,213,213') && look.masked.some((c) => c.split(',')[0] < 200),
        look.masked.join(' '),
      );
    }
    assert.match(
      await page.locator(`[data-stage="${stage}"] .tools .msg`).nth(batch).textContent(),
      /^Saved /,
    );
  }
});

test('SVG: the table and its drawing as shown, colours resolved, labels as text', async () => {
  /** Exports stage/batch as SVG; returns what the document holds and what the page shows. */
  const svgOf = async (stage, batch = 0) => {
    const [download, text] = await Promise.all([
      page.waitForEvent('download'),
      exportText(stage, 'svg', batch),
    ]);
    assert.equal(download.suggestedFilename(), stage + (batch ? '-' + batch : '') + '.svg');
    assert.equal(fs.readFileSync(await download.path(), 'utf8'), text);
    return page.evaluate(
      ([svg, s, b]) => {
        const d = new DOMParser().parseFromString(svg, 'image/svg+xml'),
          box = document.querySelector(`[data-stage="${s}"]`),
          shown = [...box.querySelectorAll(`.dr[data-batch="${b}"] line`)].filter(
            (l) => getComputedStyle(l).display !== 'none',
          );
        const cells = [...d.querySelectorAll('rect[stroke="#c9d1d9"]')];
        return {
          error: d.querySelector('parsererror') !== null,
          foreign: d.querySelectorAll('img, script, foreignObject').length,
          cells: cells.length,
          fills: cells.map((r) => r.getAttribute('fill')),
          hatched: d.querySelectorAll('rect[fill="url(#hatch)"]').length,
          texts: [...d.querySelectorAll(':root > text')].map((t) => t.textContent),
          lines: [...d.querySelectorAll('g line')].map((l) => [
            l.getAttribute('stroke-width'),
            l.getAttribute('stroke-dasharray'),
          ]),
          pageLines: shown.map((l) => [
            l.getAttribute('stroke-width'),
            l.classList.contains('dp') ? '4 3' : null,
          ]),
          labels: [...d.querySelectorAll('g text')].map((t) => t.textContent),
          row1: [...box.querySelectorAll('tbody tr:nth-child(2) td')].map((td) => td.textContent),
        };
      },
      [text, stage, batch],
    );
  };
  const w = await svgOf('attn_weights_causal');
  assert.equal(w.error, false);
  assert.equal(w.foreign, 0, 'the <img> token is text, not markup');
  assert.equal(w.cells, 7 * 7); // the header row and column, 6 × 6 values
  assert.equal(w.hatched, 15); // the masked upper triangle
  // Row 1 as the page shows it: label, then the six values (title, corner, 6 labels before).
  assert.deepEqual(w.texts.slice(1 + 7 + 7 + 1, 1 + 7 + 7 + 7), w.row1);
  assert.ok(w.texts[0].startsWith('attn_weights_causal (6, 6)'));
  // The light theme's scale, resolved to rgb: row 0's 1.0 (one visible key: uniform attention)
  // at its middle.
  assert.equal(w.fills[8], 'rgb(104,144,160)');
  assert.equal(w.fills[9], 'rgb(213,213,213)'); // masked: the one masked grey (--mk), not a shade
  assert.equal(w.lines.length, 21); // one per unmasked pair
  assert.deepEqual(w.lines, w.pageLines);
  assert.deepEqual(
    w.labels,
    [...TOKENS, ...TOKENS].map((t) => (t.length > 10 ? t.slice(0, 9) + '…' : t)),
  );
  // Dropped pairs: dashed as on the page, ✗ in their cells.
  const d = await svgOf('attn_weights_dropped');
  assert.ok(d.lines.some((l) => l[1] === '4 3'));
  assert.deepEqual(d.lines, d.pageLines);
  assert.ok(d.texts.some((t) => t.startsWith('✗ ')));
  // A table without a drawing is the table alone.
  const v = await svgOf('context_vecs', 1);
  assert.equal(v.lines.length, 0);
  assert.equal(v.cells, 7 * 3);
});

test('the clipboard receives the text of the ca-export event, from the page and from a widget', async () => {
  await suite.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: suite.server.url.replace(/\/$/, ''),
  });
  await page.bringToFront();
  const md = await exportText('masked', 'markdown');
  await page.waitForFunction(() =>
    /Copied/.test(document.querySelector('[data-stage="masked"] .msg').textContent),
  );
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), md);
  assert.equal(await page.locator('[data-stage="masked"] .msg').textContent(), 'Copied Markdown.');
  const { page: w, problems: wp } = await watchedPage(suite.browser.context, suite.server.url);
  await w.goto(suite.server.url + 'examples/blog-post.html');
  await widgetsReady(w);
  await w.bringToFront(); // the clipboard takes text from the focused page only
  const csv = await exportText('context_vecs', 'csv', 1, '#batch', w);
  assert.match(csv, /^token \\ out,0,1\r\nYour,-0\.451\d*,0\.221/);
  await w.waitForFunction(() =>
    /Copied/.test(
      document.querySelector('#batch').shadowRoot.querySelectorAll('.msg')[1].textContent,
    ),
  );
  assert.equal(await w.evaluate(() => navigator.clipboard.readText()), csv);
  assert.deepEqual(wp, []);
  await w.close();
});

test('without clipboard access the text is shown, selected, to copy by hand', async () => {
  const { page: p, problems: pp } = await watchedPage(suite.browser.context, suite.server.url);
  await p.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined });
  });
  await p.goto(suite.server.url + '#' + encodeURIComponent(JSON.stringify(CONFIG)));
  await p.waitForSelector('html[data-ready="1"]');
  await settled(p); // the boxes below the first screen are built in idle time
  const latex = await exportText('masked', 'latex', 0, null, p);
  const area = p.locator('[data-stage="masked"] .msg textarea');
  assert.equal(await area.inputValue(), latex);
  assert.equal(await area.getAttribute('aria-label'), 'LaTeX: select and copy');
  assert.deepEqual(pp, []);
  await p.close();
});
