// How much the page and the widget compute on the main thread per change. api.run's time grows
// as work = T²·(30 + 0.18·d_out) + T·d_in·d_out at the default 2 heads: a least-squares fit of
// api.run in Chromium on an idle 2-core x86-64 (5.2 ns per unit: T = 1024 with d_in = d_out =
// 64 takes 0.25 s, 1024³ about 7 s; a loaded machine is several times slower). Each head
// beyond 2 adds 9·T² + 0.045·T²·d_out + 0.3·T·d_in·d_out (the wrapper of §3.6.1 runs a whole
// d_out-wide CausalAttention per head; the module of §3.6.2 a softmax per head), and every
// head's causal mask 0.18·context_length² (a fit of 42 sizes, T 6 to 384, 1 to 128 heads, on
// the same machine loaded: the ratios to the T² term, within a factor 1.6 but for tiny runs).
// An edit also renders (0.2 to 0.4 s), so sizes above maxWork (0.6 s of api.run) are refused
// with a message instead of freezing the tab. The one place to relax once the computation
// moves to a Worker.
var NS_PER_UNIT = 5.2;

function units(T, dIn, dOut, H, L) {
  return (
    T * T * (30 + 0.18 * dOut) +
    T * dIn * dOut +
    Math.max(0, H - 2) * (9 * T * T + 0.045 * T * T * dOut + 0.3 * T * dIn * dOut) +
    0.18 * H * L * L
  );
}
// [T, d_in, d_out, num_heads, context_length] of a configuration (own keys), the book's where
// a key is absent; null when a size is not a number (the core names that problem).
var NAMES = ['T', 'd_in', 'd_out', 'num_heads', 'context_length'];
function sizes(c) {
  var x = c.inputs,
    get = function (k, d) {
      return Object.prototype.hasOwnProperty.call(c, k) && c[k] !== undefined ? c[k] : d;
    },
    T = Array.isArray(x) ? x.length : x && Array.isArray(x.randn) ? x.randn[0] : 6,
    s = [
      T,
      Array.isArray(x) ? (Array.isArray(x[0]) ? x[0].length : 0) : x && x.randn ? x.randn[1] : 3,
      get('d_out', 2),
      get('num_heads', 2),
      get('context_length', 0) || T, // 0 or absent: T
    ];
  return s.every(function (v) {
    return typeof v === 'number' && isFinite(v);
  })
    ? s
    : null;
}
/** The work units of a configuration (0 when a size is not a number). */
function work(config) {
  var s = config && typeof config === 'object' && sizes(config);
  return s ? units.apply(null, s) : 0;
}

export var budget = {
  maxWork: 1.15e8,
  work: work,
  /** '' when the configuration is quick enough for the main thread (factor times the budget:
   *  for a Worker), else why not: the sizes (num_heads and context_length where given). */
  check: function (config, factor) {
    var w = work(config),
      s = w && sizes(config);
    if (!w || w <= budget.maxWork * (factor || 1)) return '';
    return (
      NAMES.filter(function (k, i) {
        return i < 3 || config[k];
      })
        .map(function (k) {
          return k + ' = ' + s[NAMES.indexOf(k)];
        })
        .join(', ') +
      ' would keep the page busy for about ' +
      Math.round((w * NS_PER_UNIT) / 1e8) / 10 +
      ' s (it computes sizes that take up to about 1 s, ' +
      'e.g. T = 1024 with d_in = d_out = 128, or T = 256 with d_in = d_out = 512; the command line ' +
      'computes any size)'
    );
  },
};
