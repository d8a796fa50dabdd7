// How much the page and the widget compute on the main thread per change. What a run costs is
// the core's (api.cost, ca::run_cost in walkthrough.cpp: one cost model); this module says how
// much of it the page allows: an edit also renders (0.2 to 0.4 s), so runs above maxWork
// (0.6 s of api.run, ~5.2 ns per unit on an idle 2-core x86-64; a loaded machine is several
// times slower) are refused with a message instead of freezing the tab. The page's Worker
// (page/compute.js) may take a multiple of it.
import { tables } from './facts.js';

var NS_PER_UNIT = 5.2;

/** What config costs (api.cost: {bytes, work, multiply_adds}), computing only `stages` when
 *  given, or null when the core refuses it (it names the problem when it runs). Needs the
 *  module loaded (api.js). */
function cost(config, stages) {
  try {
    return tables.cost(config, stages ? { stages: stages } : {});
  } catch (e) {
    return null;
  }
}
/** The work units of a configuration (of `stages` when given; 0 when the core refuses it). */
function work(config, stages) {
  var c = cost(config, stages);
  return c ? c.work : 0;
}
// The seconds of api.run that `w` units take, as the refusal says them: 0.62 (the budget is
// 0.60: one decimal would say 0.6 for both), 14.8.
function seconds(w) {
  var s = (w * NS_PER_UNIT) / 1e9;
  return s.toFixed(s < 1 ? 2 : 1);
}
// A setting's default (the core's settings table).
function book(key) {
  return tables.settings.filter(function (s) {
    return s.key === key;
  })[0].default;
}
// The sizes a refusal names: T, d_in, d_out, and num_heads and context_length where given.
function sizes(config) {
  var own = function (k) {
      return Object.prototype.hasOwnProperty.call(config, k) && config[k] !== undefined;
    },
    x = own('inputs') ? config.inputs : book('inputs'),
    random = !Array.isArray(x);
  return [
    ['T', random ? x.randn[0] : x.length],
    ['d_in', random ? x.randn[1] : x[0].length],
    ['d_out', own('d_out') ? config.d_out : book('d_out')],
    ['num_heads', config.num_heads],
    ['context_length', config.context_length],
  ]
    .filter(function (s) {
      return s[1];
    })
    .map(function (s) {
      return s[0] + ' = ' + s[1];
    })
    .join(', ');
}

export var budget = {
  maxWork: 1.15e8,
  cost: cost,
  work: work,
  /** '' when the configuration (computing only `stages` when given) is quick enough for the
   *  main thread (factor times the budget: for a Worker), else why not: the sizes (num_heads
   *  and context_length where given). known: its cost() when the caller has it. */
  check: function (config, factor, stages, known) {
    var w = known ? known.work : work(config, stages);
    if (!w || w <= budget.maxWork * (factor || 1)) return '';
    return (
      sizes(config) +
      ' would keep the page busy for about ' +
      seconds(w) +
      ' s (it computes sizes up to about ' +
      seconds(budget.maxWork) +
      ' s on the main thread, e.g. T = 640 with d_in = d_out = 128, or T = 256 with ' +
      'd_in = d_out = 384; the command line computes any size)'
    );
  },
};
