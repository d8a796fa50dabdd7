// The page's sizes that the README quotes, from one place: gzip -9 of the page directory, and of
// the files the page and a widget load before their first table (tests/js/paint.test.js checks
// in Chromium that these are the files). budgets.sh prints them, and
//   node build-scripts/sizes.js [--readme]      (measures build/web, or $CA_BUILD/web)
// prints them and with --readme writes them into README.md's marked figures
// (<!-- size:KEY -->N KB<!-- /size -->), which tests/js/docs.test.js holds to the build's: the
// README's figures are regenerated, never typed.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const FIRST_TABLE = {
  page: ['app.js', 'causal-attention.js', 'index.html', 'style.css'],
  widget: [
    'causal-attention-wasm-data.js',
    'causal-attention-wasm.js',
    'causal-attention.js',
    'embed.html',
    'embed.js',
  ],
};

const gzip = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;

function files(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? files(p) : e.isFile() ? [p] : [];
    })
    .sort();
}

/** gzip bytes: `page` (every file of the directory), `page-first` and `widget-first`. */
function sizes(web) {
  const sum = (list) => list.reduce((n, f) => n + gzip(path.join(web, f)), 0);
  return {
    page: files(web).reduce((n, f) => n + gzip(f), 0),
    'page-first': sum(FIRST_TABLE.page),
    'widget-first': sum(FIRST_TABLE.widget),
  };
}

const MARK = /<!-- size:([a-z-]+) -->([^<]*)<!-- \/size -->/g;
const kb = (bytes) => `${Math.round(bytes / 1000)} KB`;

/** The README's marked figures: [{key, text}]. */
const claims = (text) => [...text.matchAll(MARK)].map((m) => ({ key: m[1], text: m[2] }));

/** The README's text with every marked figure set to the build's, in whole KB. */
function rewrite(text, measured) {
  return text.replace(MARK, (all, key) => {
    if (!(key in measured)) throw new Error(`README.md marks an unknown size "${key}"`);
    return `<!-- size:${key} -->${kb(measured[key])}<!-- /size -->`;
  });
}

module.exports = { FIRST_TABLE, sizes, claims, rewrite, kb, files };

if (require.main === module) {
  const root = path.join(__dirname, '..'),
    web = path.join(process.env.CA_BUILD || path.join(root, 'build'), 'web'),
    measured = sizes(web);
  for (const [key, bytes] of Object.entries(measured))
    console.log(`${key.padEnd(13)} ${bytes} B gzip`);
  if (process.argv.includes('--readme')) {
    const file = path.join(root, 'README.md'),
      text = fs.readFileSync(file, 'utf8'),
      next = rewrite(text, measured);
    fs.writeFileSync(file, next);
    console.log(`README.md ${next === text ? 'already had these sizes' : 'rewritten'}`);
  }
}
