// ESLint over the hand-written JS (web/, src/wasm/, tests/js/, build-scripts/, bench/); formatting
// is prettier's (npm run format). Globals are listed here to need no extra package.
'use strict';
const js = require('@eslint/js');

const shared = [
  'globalThis',
  'console',
  'setTimeout',
  'clearTimeout',
  'URL',
  'TextEncoder',
  'TextDecoder',
];
const browser = [
  'window',
  'document',
  'location',
  'history',
  'navigator',
  'parent',
  'addEventListener',
  'HTMLElement',
  'customElements',
  'CustomEvent',
  'CSSStyleSheet',
  'ResizeObserver',
  'Blob',
  'Response',
  'DecompressionStream',
  'atob',
  'CausalAttention',
  'CausalAttentionModule',
  'CAUSAL_ATTENTION_WASM',
  'importScripts',
  'performance',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'getComputedStyle',
  'MutationObserver',
  'Event',
  'crossOriginIsolated',
  'createImageBitmap',
  'Navigator',
  'WebAssembly',
  'DOMParser',
  'dispatchEvent',
  'HashChangeEvent',
  'MessageChannel',
  'innerHeight',
  'setInterval',
  'clearInterval',
  'IntersectionObserver',
  'scrollBy',
  'matchMedia',
  'MouseEvent',
  'CSS',
  'WorkerGlobalScope',
  'Worker',
  'PerformanceObserver', // bench/chromium.js's page.evaluate
  'crypto',
];
const node = ['require', 'module', 'process', 'Buffer', '__dirname', '__filename'];
const globals = (names) => Object.fromEntries(names.map((n) => [n, 'readonly']));

module.exports = [
  { ignores: ['node_modules/', 'build/'] },
  js.configs.recommended,
  {
    files: ['web/**/*.js'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module', // ES modules, bundled by src/wasm/pack.js (esbuild)
      globals: globals([...shared, ...browser, 'module']),
    },
  },
  {
    files: [
      'src/wasm/*.js',
      'tests/js/**/*.js',
      'build-scripts/*.js',
      'bench/*.js',
      'eslint.config.js',
    ],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'commonjs',
      globals: globals([...shared, ...node, ...browser]), // tests' page.evaluate runs in the page
    },
  },
  {
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      'no-cond-assign': 'off', // render.js assigns inside a ternary's test on purpose
    },
  },
];
