// The one measurement of the page's load, shared by build-scripts/budgets.js (the budgets'
// printout) and build-scripts/load-profile.js (where a load's time goes): navigation start to
// the DOM built (html[data-ready]) and to the frame after it painted, and the floor it reads
// against.
'use strict';

// Records, from before any script of the page runs, performance.now() (relative to navigation
// start) when data-ready is set (the DOM built) and when the frame after it has been painted:
// a requestAnimationFrame callback runs before that frame's style, layout and paint, and a
// message posted from it is delivered after them. The marks 'ready' and 'painted' bound the
// load in a performance trace. With `first` (page.addInitScript(OBSERVE_READY, true)): from
// whichever comes first, data-ready or the first stage's table in the document (state 'table'):
// a page whose first screen is in its HTML (pre-rendered) paints it before its scripts run; the
// book as built puts its first table in and sets data-ready in one task (one frame).
const OBSERVE_READY = (first) => {
  new MutationObserver((records, obs) => {
    const html = document.documentElement;
    if (!(html && html.dataset.ready) && !(first && document.querySelector('[data-stage] table')))
      return;
    window.__ready = { state: html.dataset.ready || 'table', at: performance.now() };
    performance.mark('ready');
    obs.disconnect();
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        window.__ready.painted = performance.now();
        performance.mark('painted');
      };
      ch.port2.postMessage(0);
    });
  }).observe(document, {
    subtree: true,
    childList: !!first,
    attributes: true,
    attributeFilter: ['data-ready'],
  });
};

// The floor of the load measure: a page with one small table and nothing else (no script,
// no stylesheet), timed the same way, from the same server: what the headless browser takes
// to navigate and paint at all on this machine (a new tab's renderer: its V8 context, its
// first layout's fonts, its compositor's first frame). The book's 150 ms target reads against it.
const FLOOR = 'floor.html',
  FLOOR_FILES = {
    [FLOOR]:
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title>' +
      '<link rel="icon" href="data:,"></head><body><table><tr><th>x</th><td>0.4300</td></tr>' +
      "</table><script>document.documentElement.dataset.ready = '1';</script></body></html>",
  };

// Which of n builds loads i-th in round r: the order turns each round (ABBA). A round's first
// load runs faster or slower than its second (up to 1.2x, seen both ways), which a fixed order
// would give to one build. budgets.js's loads and edits, load-profile.js's loads.
const inTurn = (r, i, n) => (r % 2 ? n - 1 - i : i);

module.exports = { OBSERVE_READY, FLOOR, FLOOR_FILES, inTurn };
