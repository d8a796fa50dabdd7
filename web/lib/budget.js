// How much the page and the widget compute on the main thread per change. api.run's time grows
// as work = T²·(320 + d_out) + 1.3·T·d_in·d_out: a least-squares fit of api.run in Node on a
// 2-core x86-64 (3.9 ns per unit: T = 1024, d_in = d_out = 64 takes 1.6 s; 1024³, 11 s).
// On the page an edit also renders (about 0.3 s), so sizes above maxWork (0.6 s of api.run
// there) are refused with a message instead of freezing the tab: T = 1024 is refused even with
// d = 2 (2 s per edit in Chromium). The one place to relax once the computation moves to a Worker.
(function (CA) {
  'use strict';
  var NS_PER_UNIT = 3.9;

  function work(T, dIn, dOut) {
    return T * T * (320 + dOut) + 1.3 * T * dIn * dOut;
  }
  // [T, d_in, d_out] of a configuration, the book's where a key is absent; null when a size is
  // not a number (the core names that problem).
  function sizes(config) {
    var inputs = config.inputs,
      dOut = config.d_out === undefined ? 2 : config.d_out,
      T = 6,
      dIn = 3;
    if (Array.isArray(inputs)) {
      T = inputs.length;
      dIn = Array.isArray(inputs[0]) ? inputs[0].length : 0;
    } else if (inputs && Array.isArray(inputs.randn)) {
      T = inputs.randn[0];
      dIn = inputs.randn[1];
    }
    return [T, dIn, dOut].every(function (x) {
      return typeof x === 'number' && isFinite(x);
    })
      ? [T, dIn, dOut]
      : null;
  }

  var budget = {
    maxWork: 1.5e8,
    work: work,
    /** '' when the configuration is quick enough for the main thread (factor times the budget:
     *  for a Worker), else why not. */
    check: function (config, factor) {
      var s = config && typeof config === 'object' ? sizes(config) : null,
        w = s && work(s[0], s[1], s[2]);
      if (!w || w <= budget.maxWork * (factor || 1)) return '';
      return (
        'T = ' +
        s[0] +
        ', d_in = ' +
        s[1] +
        ', d_out = ' +
        s[2] +
        ' would keep the page busy for about ' +
        Math.round((w * NS_PER_UNIT) / 1e8) / 10 +
        ' s (it computes sizes that take up to about 1 s, ' +
        'e.g. T = 512 with d_in = d_out = 64, or T = 256 with d_in = d_out = 512; the command line ' +
        'computes any size)'
      );
    },
  };
  CA.budget = budget;
})(globalThis.CausalAttention || (globalThis.CausalAttention = {}));
