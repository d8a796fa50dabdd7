// Paint first, load the rest when needed: what the first table does not need ships in
// classic scripts beside causal-attention.js, loaded when first used or in idle time:
// causal-attention-later.js (lib/later.js: the explanations, the PNG and SVG exports, the embed
// snippet) and, on the page, app-later.js (page/later.js: lecture mode, "Why are my numbers
// different?"). Same origin as causal-attention.js, so they load from file:// and under a strict
// CSP (script-src 'self'); each registers its namespace in CausalAttention.__modules under its
// file name (src/wasm/pack.js). The module itself is one of them: causal-attention-wasm.js (the
// glue) with causal-attention-wasm-data.js (the wasm), which the widget loads at once and the
// page after its first table.
// Outside a page they load at once: a Worker imports them, Node requires them (beside).
import { scriptUrl, wasm } from './worker.js';

export var LIB_LATER = 'causal-attention-later.js';
// The module: the deflated wasm and the Emscripten glue (lib/api.js's load() reads them from
// its namespace). Apart from the library (causal-attention.js), which the page's app.js reads
// before its first table: the page directory holds each byte once.
export var MODULE = 'causal-attention-wasm.js';
// The wasm itself, deflated and base64-encoded, which registers that text under its name:
// fetched beside MODULE, at the same time (in one file, zlib's blocks mixed the base64 and the
// glue: 0.9 KB more gzip). lib/module.js reads it when it starts; src/wasm/pack.js reads this
// line for the file's name.
export var WASM_DATA = 'causal-attention-wasm-data.js';
var loading = {};

/** The namespace of bundle `file` if it has run, else undefined. */
export function loaded(file) {
  var ns = globalThis.CausalAttention,
    r = ns && ns.__modules;
  return r && r[file];
}

/** A promise of the namespace of bundle `file` (a file beside causal-attention.js), loaded
 *  once (MODULE with WASM_DATA, at the same time); `after`: a bundle it reads modules from,
 *  loaded first. A failed load is tried again by the next call. */
export function later(file, after) {
  if (!loading[file]) {
    loading[file] = Promise.all([
      script(file, after),
      file === MODULE && !wasm.module && later(WASM_DATA), // none given the page's compiled wasm
    ]).then(function (r) {
      return r[0];
    });
    loading[file].catch(function () {
      delete loading[file];
    });
  }
  return loading[file];
}

// Bundle `file` run: by a <script> on a page, else beside().
function script(file, after) {
  if (loaded(file)) return Promise.resolve(loaded(file));
  return (after ? later(after) : Promise.resolve()).then(function () {
    if (typeof document === 'undefined') return beside(file);
    return new Promise(function (resolve, reject) {
      var doc = document,
        s = doc.createElement('script');
      s.src = new URL(file, scriptUrl || doc.baseURI).href;
      s.onload = function () {
        if (loaded(file)) resolve(loaded(file));
        else reject(new Error(file + ' did not start'));
      };
      s.onerror = function () {
        reject(new Error(file + ' could not be loaded'));
      };
      doc.head.appendChild(s);
    });
  });
}

// A Worker (started from causal-attention.js) imports the file beside its script; Node
// requires it beside causal-attention.js (its __require: src/wasm/pack.js).
function beside(file) {
  var ns = globalThis.CausalAttention;
  if (typeof importScripts === 'function') importScripts(new URL(file, location.href).href);
  else if (ns && ns.__require) ns.__require(file);
  if (!loaded(file)) throw new Error(file + ' did not start');
  return loaded(file);
}

/** In a Worker: the module's glue alone, imported at once (lib/worker.js; the wasm comes
 *  compiled from the page). */
export function glue() {
  return beside(MODULE);
}

/** fn(namespace of bundle `file`): at once when it has run (no frame in between), else once
 *  it has loaded. Returns fn's result, or a promise of it. */
export function withLater(file, fn, after) {
  var ns = loaded(file);
  return ns ? fn(ns) : later(file, after).then(fn);
}

// Idle time after a frame: requestIdleCallback's, or where a browser has none (Safari) a timer.
var ric = globalThis.requestIdleCallback;

/** Runs fn in idle time after the next frame is painted (after the tasks that frame's end lets
 *  run too; at the latest `wait` ms after it on a busy page; without requestIdleCallback, 50 ms
 *  after it). fn gets the idle period's deadline (none from the timer). Returns a function that
 *  cancels it. The page's one way to say "after the frame, when idle": an edit's whole run
 *  (app.js), the boxes off screen (page/stages.js), the code loaded after the first table. */
export function idleAfterFrame(fn, wait) {
  var job = 0,
    frame = requestAnimationFrame(function () {
      job = ric ? ric(fn, { timeout: wait }) : setTimeout(fn, 50);
    });
  return function () {
    cancelAnimationFrame(frame);
    (ric ? globalThis.cancelIdleCallback : clearTimeout)(job);
  };
}

/** Loads bundle `file` after the next frame is painted, when the page is idle. */
export function preload(file, after) {
  return new Promise(function (resolve) {
    idleAfterFrame(function () {
      resolve(later(file, after));
    }, 500); // a busy page still gets it soon
  });
}
