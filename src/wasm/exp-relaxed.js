/* global mergeInto, LibraryManager, HEAPU8, wasmMemory, wasmTable */
// A JS library for every wasm build of the core (CMakeLists.txt): the loader of the
// relaxed-SIMD exp (src/wasm/exp-relaxed-module.js writes the module, exp_relaxed.cpp calls
// this once as the core starts, so the page, the widget, Workers and Node all take the same
// path).
// Where the engine validates the module (Chromium; Node 20 only with
// --experimental-wasm-relaxed-simd) it is instantiated over the core's memory, its fused
// multiply-add check f(fma) is run, and its exp x(p, n, max) put in the core's function table
// at `slot`, which is returned; anywhere else 0, and the core keeps its SIMD128 exp.
mergeInto(LibraryManager.library, {
  ca_exp_relaxed: function (bytes, size, slot, fma) {
    try {
      var code = HEAPU8.slice(bytes, bytes + size);
      if (!WebAssembly.validate(code)) return 0;
      var imports = {},
        e = {};
      e['m'] = wasmMemory; // quoted names: closure renames the others
      imports['e'] = e;
      e = new WebAssembly.Instance(new WebAssembly.Module(code), imports).exports;
      e['f'](fma);
      wasmTable.set(slot, e['x']);
      return slot;
    } catch (err) {
      return 0;
    }
  },
});
