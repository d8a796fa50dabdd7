// The docs cannot drift: every ```sh runnable and ```js runnable block of README.md and
// docs/*.md runs against the build, and where a ```text output block follows, its output must
// equal it. Other ```sh blocks (builds, servers, the tests themselves) must name commands that
// exist. The rules are in docs/testing.md ("The doc test"). Cost: a few seconds.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const util = require('util');
const { spawnSync } = require('child_process');
const { root, web } = require('./support');

const build = path.dirname(web);
const DOCS = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** The fenced blocks of a Markdown text: {info, body, line}, `output` set to the ```text
 *  output block that follows a runnable one (only blank lines or an HTML comment between). */
function blocks(text) {
  const out = [];
  const re = /^```([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  let m;
  while ((m = re.exec(text))) {
    const line = text.slice(0, m.index).split('\n').length;
    out.push({ info: m[1].trim(), body: m[2], line, start: m.index, end: m.index + m[0].length });
  }
  for (let i = 0; i + 1 < out.length; i++) {
    const between = text.slice(out[i].end, out[i + 1].start);
    if (out[i + 1].info === 'text output' && /^\s*(<!--[\s\S]*?-->\s*)?$/.test(between))
      out[i].output = out[i + 1].body;
  }
  return out;
}

// Trailing blank lines and spaces are invisible in a rendered block: not compared.
const trim = (s) => s.replace(/[ \t]+$/gm, '').trimEnd();

/** `build/` in a command is the build directory ($CA_BUILD when set). */
const inBuild = (cmd) => cmd.replace(/(^|[\s|;(])build\//g, `$1${build}/`);

function runSh(body) {
  // stderr into stdout, in the order written, as a terminal shows them.
  const r = spawnSync('bash', ['-c', 'exec 2>&1\nset -e -o pipefail\n' + inBuild(body) + '\n'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120000,
  });
  return { code: r.status, text: r.stdout, error: r.error };
}

async function runJs(body) {
  const CausalAttention = require(path.join(web, 'causal-attention.js'));
  const lines = [];
  const log = (...args) =>
    lines.push(args.map((a) => (typeof a === 'string' ? a : util.inspect(a))).join(' '));
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  try {
    await new AsyncFunction('CausalAttention', 'console', body)(CausalAttention, { log });
  } catch (e) {
    lines.push(`${e.name}: ${e.message}`);
  }
  return lines.join('\n') + '\n';
}

// The first word of each command line of a shell block (continuations and comments skipped).
function commands(body) {
  const words = [];
  let continued = false;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    const skip = continued || !line || line.startsWith('#');
    continued = line.endsWith('\\') || line.endsWith('|');
    if (skip) continue;
    const word = line.replace(/^([A-Z_]+=\S*\s+)+/, '').split(/\s+/)[0];
    words.push(word);
  }
  return words;
}

/** A command: a file of the repository or the build (executable), or one on the PATH. */
function exists(word) {
  if (!word.includes('/')) return spawnSync('bash', ['-c', `command -v '${word}'`]).status === 0;
  const p = path.isAbsolute(word)
    ? word
    : word.startsWith('build/')
      ? path.join(build, word.slice(6))
      : path.join(root, word);
  return fs.existsSync(p) && (fs.statSync(p).mode & 0o111) !== 0;
}

for (const doc of DOCS) {
  const text = fs.readFileSync(path.join(root, doc), 'utf8');
  for (const b of blocks(text)) {
    const where = `${doc}:${b.line}`;
    const [lang, mark] = b.info.split(/\s+/);
    if (lang === 'sh' && mark === 'runnable') {
      test(`${where}: ${b.body.split('\n')[0]}`, () => {
        const r = runSh(b.body);
        assert.ifError(r.error);
        assert.equal(r.code, 0, `${where} exited with ${r.code}:\n${r.text}`);
        if (b.output !== undefined)
          assert.equal(trim(r.text), trim(b.output), `${where}: the output differs`);
      });
    } else if (lang === 'js' && mark === 'runnable') {
      test(`${where}: ${b.body.split('\n')[0]}`, async () => {
        const out = await runJs(b.body);
        if (b.output !== undefined)
          assert.equal(trim(out), trim(b.output), `${where}: the output differs`);
        else assert.doesNotMatch(out, /^\w*Error: /m, `${where} threw`);
      });
    } else if (lang === 'sh') {
      test(`${where}: the commands exist`, () => {
        for (const word of commands(b.body))
          assert.ok(exists(word), `${where}: no command ${word}`);
      });
    }
  }
}

test('every runnable block is found: the README has some, and no marker is misspelt', () => {
  let runnable = 0;
  for (const doc of DOCS) {
    const text = fs.readFileSync(path.join(root, doc), 'utf8');
    for (const b of blocks(text)) {
      if (/runnable/.test(b.info)) {
        assert.match(b.info, /^(sh|js) runnable$/, `${doc}:${b.line}: "${b.info}"`);
        runnable++;
      }
      if (b.info === 'text output')
        assert.ok(
          blocks(text).some((a) => a.output === b.body && /runnable/.test(a.info)),
          `${doc}:${b.line}: an output block follows no runnable block`,
        );
    }
  }
  assert.ok(runnable >= 10, `${runnable} runnable blocks`);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (h) =>
  h
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

test('every relative link of the docs names a file that exists, and a heading that exists', () => {
  const broken = [];
  for (const doc of DOCS) {
    const text = fs.readFileSync(path.join(root, doc), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split('#');
      const p = file
        ? path.resolve(path.dirname(path.join(root, doc)), file)
        : path.join(root, doc);
      if (!fs.existsSync(p)) broken.push(`${doc}: ${target} (no such file)`);
      else if (anchor) {
        const headings = fs
          .readFileSync(p, 'utf8')
          .split('\n')
          .filter((l) => /^#+ /.test(l))
          .map((l) => slug(l.replace(/^#+ /, '')));
        if (!headings.includes(anchor)) broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test("docs/cli.md's configuration table has the settings table's keys, in its order", () => {
  const text = fs.readFileSync(path.join(root, 'docs/cli.md'), 'utf8');
  const start = text.indexOf('| key | default | meaning |');
  const table = text.slice(start, text.indexOf('\n\n', start));
  const keys = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
  const r = spawnSync(
    path.join(build, 'native/causal-attention'),
    ['--list-settings', '--format', 'json'],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(r.status, 0, r.stderr);
  const settings = JSON.parse(r.stdout).settings.map((s) => s.key);
  assert.deepEqual(keys, settings);
});

// The README's sizes are written by build-scripts/sizes.js --readme, never typed: each marked
// figure is the build's to the kilobyte (one either way, so that a small change elsewhere does
// not fail here before the README is regenerated).
test("the README's size figures are the build's (build-scripts/sizes.js --readme writes them)", () => {
  const { sizes, claims } = require('../../build-scripts/sizes');
  const measured = sizes(web),
    marked = claims(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
  assert.deepEqual(marked.map((c) => c.key).sort(), Object.keys(measured).sort());
  for (const { key, text } of marked) {
    const kb = Math.round(measured[key] / 1000),
      said = Number(/^(\d+) KB$/.exec(text)?.[1]);
    assert.ok(
      Math.abs(said - kb) <= 1,
      `README.md says ${key} is "${text}", the build's is ${kb} KB: run node build-scripts/sizes.js --readme`,
    );
  }
});
