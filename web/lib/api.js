// The JS API of causal-attention.js (typed in web/causal-attention.d.ts): friendly names over
// the Embind module, which is loaded once with its promise cached.
(function (root) {
  'use strict';
  var factory = typeof CausalAttentionModule === 'function' ? CausalAttentionModule : null;
  var packed = typeof CAUSAL_ATTENTION_WASM === 'string' ? CAUSAL_ATTENTION_WASM : '';
  var ns = root.CausalAttention || (root.CausalAttention = {});
  var loading = null;

  function freeze(o) {
    Object.values(o).forEach(function (v) {
      if (v && typeof v === 'object') freeze(v);
    });
    return Object.freeze(o);
  }

  function wrap(m) {
    var ids = Object.freeze(m.stageIds()),
      table = freeze(m.stageTable()),
      info = {};
    var presets = {};
    m.presets().forEach(function (p) {
      presets[p.name] = p;
    });
    presets = freeze(presets);
    ns.presets = presets;
    table.stages.forEach(function (s) {
      info[s.id] = s;
    });
    // The facts of a stage for the renderers (lib/render.js), set once the module is loaded.
    ns.info = function (id) {
      return info[id];
    };
    ns.sections = table.sections;
    ns.limits = table.limits;
    return {
      stageIds: ids,
      stages: table.stages,
      sections: table.sections,
      limits: table.limits,
      defaults: table.defaults,
      defaultTokens: function (n) {
        return m.defaultTokens(n);
      },
      presets: presets,
      // options: {stages: [ids]} computes only what those stages need; {preset: name} starts
      // from a preset's configuration (and its stages).
      run: function (config, options) {
        var r = m.run(config === undefined ? {} : config, options === undefined ? {} : options);
        if (r.error !== undefined) throw new Error(r.error);
        return r;
      },
      heapInUse: function () {
        return m.heapInUse();
      },
      memoryBytes: function () {
        return m.memoryBytes();
      },
      // Live Embind handles (for leak tests): a run must leave none behind.
      liveHandles: function () {
        return m.count_emval_handles ? m.count_emval_handles() : 0;
      },
    };
  }

  // The wasm ships deflated in base64 (src/wasm/pack.js): inflate it with the platform.
  function wasmBinary() {
    var bytes = Uint8Array.from(atob(packed), function (c) {
      return c.charCodeAt(0);
    });
    var inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
    return new Response(inflated).arrayBuffer();
  }

  /** Loads the module once; every call returns the same promise. */
  ns.load = function () {
    if (!loading) {
      loading = wasmBinary()
        .then(function (buffer) {
          return factory({ wasmBinary: new Uint8Array(buffer) });
        })
        .then(wrap);
    }
    return loading;
  };

  if (typeof module === 'object' && module.exports) module.exports = ns;
})(typeof globalThis !== 'undefined' ? globalThis : this);
