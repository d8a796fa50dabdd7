// The JS API of causal-attention.js (typed in web/causal-attention.d.ts): friendly names over
// the Embind module, which is loaded once with its promise cached.
(function (root) {
  'use strict';
  var factory = typeof CausalAttentionModule === 'function' ? CausalAttentionModule : null;
  var ns = root.CausalAttention || (root.CausalAttention = {});
  var loading = null;

  function wrap(m) {
    var ids = Object.freeze(m.stageIds());
    return {
      stageIds: ids,
      run: function (config) {
        var r = m.runJson(JSON.stringify(config === undefined ? {} : config));
        if (r.error !== undefined) throw new Error(r.error);
        return { config: JSON.parse(r.config), stages: r.stages };
      },
      heapInUse: function () { return m.heapInUse(); },
      memoryBytes: function () { return m.memoryBytes(); },
      // Live Embind handles (for leak tests): a run must leave none behind.
      liveHandles: function () { return m.count_emval_handles ? m.count_emval_handles() : 0; }
    };
  }

  /** Loads the module once; every call returns the same promise. */
  ns.load = function () {
    if (!loading) loading = factory().then(wrap);
    return loading;
  };

  if (typeof module === 'object' && module.exports) module.exports = ns;
})(typeof globalThis !== 'undefined' ? globalThis : this);
