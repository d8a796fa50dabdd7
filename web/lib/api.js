// The JS API of causal-attention.js (typed in web/causal-attention.d.ts): load() resolves to
// the module's friendly names over the Embind module, loaded once with its promise cached.
// The module (the wasm, the Emscripten glue and lib/module.js, which wraps them) is
// causal-attention-wasm.js beside this file (src/wasm/pack.js): load() adds it (lib/lazy.js).
import { later, MODULE } from './lazy.js';

var loading = null;

/** Loads the module once; every call returns the same promise. */
export function load() {
  if (!loading)
    loading = later(MODULE).then(function (m) {
      return m.start();
    });
  return loading;
}
