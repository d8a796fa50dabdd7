// Shared helpers of the JS tests: paths, the built module, the golden files, the CLI.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');

const root = path.resolve(__dirname, '../..');
const build = process.env.CA_BUILD || path.join(root, 'build');
const web = path.join(build, 'web');
const cli = path.join(build, 'native/causal-attention');

/** The book's example (rasbt/LLMs-from-scratch, chapter 3): its six tokens and their 3-d
 *  embeddings, the configuration's defaults. */
const BOOK_TOKENS = ['Your', 'journey', 'starts', 'with', 'one', 'step'];
const BOOK_INPUTS = [
  [0.43, 0.15, 0.89],
  [0.55, 0.87, 0.66],
  [0.57, 0.85, 0.64],
  [0.22, 0.58, 0.33],
  [0.77, 0.25, 0.1],
  [0.05, 0.8, 0.55],
];

/** The module as the page ships it. */
function loadApi() {
  return require(path.join(web, 'causal-attention.js')).load();
}

/** A golden number: a JSON number, or "-inf" / "inf" / "nan". */
function value(v) {
  if (typeof v !== 'string') return v;
  return v === 'nan' ? NaN : v === '-inf' ? -Infinity : Infinity;
}

/** JSON text with integers beyond 2^53 read as BigInt, as the JS API takes exact seeds. */
function parseExact(text) {
  const marked = text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"__bigint:$2"');
  return JSON.parse(marked, (k, v) =>
    typeof v === 'string' && v.startsWith('__bigint:') ? BigInt(v.slice(9)) : v,
  );
}

/** The golden cases (tests/golden/cases, or another folder: 'bonus'), each with `configText`:
 *  its configuration exactly as the file has it. */
function goldenCases(folder = 'cases') {
  const dir = path.join(root, 'tests/golden', folder);
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      const g = JSON.parse(text);
      g.configText = text.match(/^"config":(.*),$/m)[1];
      g.config = parseExact(g.configText);
      return g;
    });
}

/** The CLI's JSON output for a configuration (read by `parse`), or {code, stderr} when it
 *  fails. */
function runCli(config, args = [], parse = JSON.parse) {
  const r = spawnSync(cli, ['--config', '-', '--format', 'json', ...args], {
    input: typeof config === 'string' ? config : JSON.stringify(config),
    encoding: 'utf8',
    maxBuffer: 1 << 28, // the KV cache's (2, H, T, T) stages: 1.5 MB at T = 40
  });
  if (r.status !== 0) return { code: r.status, stderr: r.stderr, stdout: r.stdout };
  return parse(r.stdout);
}

/** Same float32, bit for bit (NaN equal to NaN, +0 and -0 distinct). */
function sameBits(a, b) {
  return Object.is(Math.fround(a), Math.fround(b));
}

/** The page's text for the numbers of a table (web/lib/table.js textOf, written again here):
 *  4 decimals, or print()'s %.4e (two-digit exponent) when every nonzero value of `values`
 *  would read 0.0000; −∞ and ∞ for the infinities. */
function pageText(values) {
  const a = values.filter((v) => v === v).map(Math.abs),
    tiny = a.some((v) => v > 0) && a.every((v) => v < 5e-5);
  const sci = (x) =>
    (x < 0 || Object.is(x, -0) ? '-' : '') +
    Math.abs(x)
      .toExponential(4)
      .replace(/e([-+])(\d)$/, 'e$10$2');
  return (x) =>
    x === -Infinity ? '−∞' : x === Infinity ? '∞' : x !== x ? 'nan' : tiny ? sci(x) : x.toFixed(4);
}

module.exports = {
  pageText,
  BOOK_TOKENS,
  BOOK_INPUTS,
  parseExact,
  root,
  web,
  cli,
  loadApi,
  value,
  goldenCases,
  runCli,
  sameBits,
  execFileSync,
};
