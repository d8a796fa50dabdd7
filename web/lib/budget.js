// How much the page and the widget compute on the main thread per change. api.run's time grows
// as work = T²·(30 + 0.18·d_out) + T·d_in·d_out: a least-squares fit of api.run in Chromium on
// an idle 2-core x86-64 (5.2 ns per unit: T = 1024 with d_in = d_out = 64 takes 0.25 s,
// 1024³ about 7 s; a loaded machine is several times slower). An edit also renders (0.2 to
// 0.4 s), so sizes above maxWork (0.6 s of api.run) are refused with a message instead of
// freezing the tab. The one place to relax once the computation moves to a Worker.
var NS_PER_UNIT = 5.2;

function work(T, dIn, dOut) {
  return T * T * (30 + 0.18 * dOut) + T * dIn * dOut;
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

export var budget = {
  maxWork: 1.15e8,
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
      'e.g. T = 1024 with d_in = d_out = 128, or T = 256 with d_in = d_out = 512; the command line ' +
      'computes any size)'
    );
  },
};
