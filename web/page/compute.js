// Runs a configuration: small ones at once on the main thread, heavy ones in a Worker
// (page/runner.js; exercise 3.3 over a pool of them) with a progress line, one at a time, only
// the newest request's result shown.
import { budget } from '../lib/budget.js';
import { el } from '../lib/dom.js';
import { runner as makeRunner } from './runner.js';

var doc = document,
  HEAVY = 4e7, // multiply-adds above which a run goes to the Worker
  WORKER_BUDGET = 3, // a Worker may take 3 times the main thread's budget (~2 s)
  runner = makeRunner(),
  computing = 0, // the newest request's ticket
  busy = false, // a heavy run is under way
  queued = null, // the newest request made meanwhile: [c, done, fail, ticket, options]
  first = null, // the book's run made at start, shown once (a run is ~5 ms of the page's load)
  timer = 0, // the progress line's ticking clock
  costed = []; // [config, its cost]: the last configuration costed

// The core's cost model of config c (lib/budget.js), asked once per configuration: an edit
// shown in part (app.js) asks quick() in its handler and compute() in idle time, with one c.
function cost(c) {
  if (costed[0] !== c) costed = [c, budget.cost(c)];
  return costed[1];
}

// Whether a configuration is big enough to compute off the main thread (a T = 256 walkthrough
// takes tens of ms; GPT-2's 1024 × 768 about a second), by its cost k (api.cost, the core's
// cost model): its multiply-adds, or half the main thread's budget (many heads, a long
// context_length).
function heavy(k) {
  return !!k && (k.multiply_adds > HEAVY || k.work > budget.maxWork / 2);
}

/** Starts the Workers a preset will run in, before the page's own module is in. */
export function warm() {
  runner.warm();
}

/** The book's walkthrough, already computed: the first compute({}) shows it. */
export function remember(book) {
  first = book;
}

/** Stages `ids` of config c (page/stages.js's visible(): what the screen shows), run now, for
 *  an edit that shows them before the whole run (app.js); or null where that whole run must
 *  come first: a heavy or refused configuration, a heavy run under way, stages the core refuses
 *  (a shape that has them no more). */
export function quick(api, c, ids) {
  var k = cost(c);
  if (!k || busy || heavy(k) || budget.check(c, 1, null, k)) return null;
  try {
    return api.run(c, { stages: ids });
  } catch (e) {
    return null;
  }
}

/** Runs config c with module api; done(res) now for small configs, later (from a Worker) for
 *  heavy ones and presets (`preset`: its stages alone). fail(message) on an invalid config. */
export function compute(api, c, preset, done, fail) {
  var ticket = ++computing,
    // Sizes that would keep even a Worker busy too long are refused (lib/budget.js); a
    // preset computes its few stages only, in a Worker: its size is known to fit.
    // The core's cost model, asked once (three times was 13% of the book's edit's script).
    k = !preset && cost(c),
    big = heavy(k),
    tooBig = !preset && budget.check(c, big ? WORKER_BUDGET : 1, null, k),
    options = preset && { stages: api.presets[preset].stages.concat('mha.attn_weights') };
  queued = null;
  if (tooBig) return fail(tooBig);
  if (preset && !c.tokens) {
    // A preset's random rows are named by their index, not by the book's words (lib/slices.js).
    var shown = done;
    done = function (res) {
      res.indexed = true;
      shown(res);
    };
  }
  if (!preset && !big) {
    var res = first;
    first = null;
    try {
      if (!res || Object.keys(c).length) res = api.run(c);
    } catch (e) {
      return fail(e.message);
    }
    progress(null);
    return done(res);
  }
  progress(0);
  // One heavy run at a time: edits made meanwhile wait, and only the newest of them runs.
  if (busy) queued = [c, done, fail, ticket, options];
  else start(c, done, fail, ticket, options);
}
function start(c, done, fail, ticket, options) {
  busy = true;
  function finish(ok, value) {
    busy = false;
    if (queued) start.apply(null, queued.splice(0));
    queued = null;
    // A newer request was made (a queued one is always the newest, started just above): this
    // result is not shown.
    if (ticket !== computing) return;
    progress(ok ? value : null);
    if (ok) done(value.result);
    else fail(value.message);
  }
  runner.run(c, options).then(
    function (out) {
      finish(true, out);
    },
    function (e) {
      finish(false, e);
    },
  );
}

// The progress line of a heavy run: out = 0 while it runs (the elapsed time ticks), then
// {ms, memory, where} for the measured time; null hides it.
function progress(out) {
  var line = doc.getElementById('progress');
  if (!line) {
    line = el(doc, 'p', { id: 'progress', className: 'hint' });
    line.setAttribute('role', 'status');
    doc.getElementById('status').after(line);
  }
  clearInterval(timer);
  if (line.hidden !== (out === null)) line.hidden = out === null;
  if (out === 0) {
    var t0 = performance.now(),
      bar = el(doc, 'progress'),
      text = el(doc, 'span');
    bar.setAttribute('aria-label', 'Computing');
    line.replaceChildren(bar, ' ', text);
    line.dataset.state = 'running';
    timer = setInterval(function () {
      text.textContent = 'Computing… ' + ((performance.now() - t0) / 1000).toFixed(1) + ' s';
    }, 100);
  } else if (out) {
    line.dataset.state = 'done';
    line.textContent =
      'Computed in ' +
      Math.round(out.ms) +
      ' ms ' +
      (out.where === 'main'
        ? 'on the main thread'
        : out.workers > 1
          ? 'in ' + out.workers + ' Workers'
          : 'in a Worker') +
      '; WebAssembly memory ' +
      Math.round(out.memory / 1048576) +
      ' MB.';
  }
}
