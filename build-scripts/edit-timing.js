// The one measurement of an edit's frame, shared by build-scripts/budgets.js (the budgets'
// printout) and build-scripts/edit-profile.js (the trace and profile of where the time goes):
// `n` edits of a control in the built page, each timed from the dispatch of its `input` event
// to the handler's return (the page updates synchronously in it) and to the next frame painted
// (a requestAnimationFrame callback runs before that frame's style, layout and paint; a message
// posted from it is delivered after them). Before the next edit, the page settles
// (main[data-complete]: the boxes off screen are brought up to date in idle time) and the
// `check` element must show the text it showed for that value before: proof that each edit
// reached the tables.
'use strict';

/** Randn inputs of T = 32: a page whose edits issue 21 budgets, beside the book's. */
const RANDN_32 =
  '#' + encodeURIComponent(JSON.stringify({ inputs: { randn: [32, 3], seed: 123 } }));
/** Every edit budgets.js times on each page it loads (inputs[1][0] on the book's only):
 *  {what, selector, values, check}, the control set to values[0] and values[1] in turn.
 *  d_out 2 <-> 3 is a change of shape (every box with a d_out axis): edit-profile.js's default. */
const EDITS = [
  {
    what: 'dropout 0.5 <-> 0.4',
    selector: '#dropout',
    values: ['0.5', '0.4'],
    check: '[data-stage="dropout_example"] code', // p, in a table's caption or above a heatmap
  },
  {
    what: 'seed_weights 789 <-> 790',
    selector: '#seed_weights',
    values: ['789', '790'],
    check: '[data-stage="W_query"] td[data-row="0"][data-col="0"]',
  },
  {
    what: 'd_out 2 <-> 3',
    selector: '#d_out',
    values: ['2', '3'],
    check: '[data-stage="context_vec"] .sh', // its shape: a table's caption or a heatmap's heading
  },
  {
    what: 'inputs[1][0] 0.55 <-> 0.9',
    selector: 'input[name=inputs][data-row="1"][data-col="0"]',
    values: ['0.55', '0.9'],
    check: '[data-stage="queries"] td[data-row="1"][data-col="0"]',
    book: true, // the book's page only
  },
];

/** The edits of list (EDITS, or some of them) made on the page of hash ('' is the book's):
 *  inputs[1][0] on the book's only. */
function editsOn(hash, list = EDITS) {
  return list.filter((e) => !hash || !e.book);
}

/** Resolves to {dom, painted}: per edit, ms to the handler's return and to the frame painted.
 *  The first 4 edits warm up and are not counted. */
async function edits(page, { selector, values, check }, n) {
  return page.evaluate(
    async ([selector, values, check, n]) => {
      const el = document.querySelector(selector),
        dom = [],
        painted = [],
        seen = [];
      // A table cell's text, or value [1, 0] of a heatmap (lib/heatmap.js keeps its matrix;
      // builds before the ES modules kept it on the canvas as _hm).
      const hm = (e) => {
        const CA = globalThis.CausalAttention;
        return CA.heatmap && CA.heatmap.state ? CA.heatmap.state(e) : e._hm;
      };
      const cell = () => {
        const e = document.querySelector(check);
        if (!e) return `(no ${check})`;
        return hm(e) ? String(hm(e).m.value(1, 0)) : e.textContent;
      };
      const frame = () =>
        new Promise((resolve) =>
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => resolve(performance.now());
            ch.port2.postMessage(0);
          }),
        );
      await frame();
      for (let k = -4; k < n; k++) {
        const v = (k + 10) % 2;
        el.value = values[v];
        const t0 = performance.now();
        el.dispatchEvent(new Event('input', { bubbles: true }));
        const t1 = performance.now(),
          t2 = await frame();
        for (let w = 0; w < 500 && document.getElementById('main').dataset.complete !== '1'; w++)
          await new Promise((r) => setTimeout(r, 10));
        if (k < -2) seen[v] = cell();
        else if (cell() !== seen[v])
          throw new Error(`${selector} = ${values[v]}: ${check} shows ${cell()}, not ${seen[v]}`);
        if (k >= 0) {
          dom.push(t1 - t0);
          painted.push(t2 - t0);
        }
      }
      if (seen[0] === seen[1])
        throw new Error(`${check} shows ${seen[0]} for both values of ${selector}`);
      return { dom, painted };
    },
    [selector, values, check, n],
  );
}

/** Ends a DevTools protocol trace started on `cdp` (transferMode ReturnAsStream) and resolves
 *  to it, parsed: read from its stream in chunks (edit-profile.js, load-profile.js). */
async function stopTrace(cdp) {
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.end');
  const { stream } = await done,
    parts = [];
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle: stream });
    parts.push(base64Encoded ? Buffer.from(data, 'base64').toString() : data);
    if (eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  return JSON.parse(parts.join(''));
}

/** The median of numbers `a`; the load average (1, 5, 15 min) as text, for the printouts. */
const median = (a) => {
  const s = [...a].sort((x, y) => x - y),
    m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const loadAverage = () =>
  require('os')
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');

module.exports = { edits, editsOn, loadAverage, median, stopTrace, EDITS, RANDN_32 };
