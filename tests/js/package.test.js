// The npm package ($CA_BUILD/package, made by build.sh): `npm pack` ships exactly package.json's
// "files" (plus package.json, README.md and LICENSE); the tarball installs offline into an empty
// project, where Node requires it and Chromium runs the widget from node_modules. Prints the
// tarball's size and files. Cost: about 9 s.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { serveWith, launch, watchedPage, widgetsReady, widgetRow, web } = require('./browser');
const { root } = require('./support');

const pkgDir = path.join(path.dirname(web), 'package');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const npm = (args, cwd) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
  });

test('package.json describes the published package', () => {
  assert.equal(manifest.main, 'causal-attention.js');
  assert.equal(manifest.types, 'causal-attention.d.ts');
  assert.deepEqual(manifest.files, [
    'causal-attention.js',
    'causal-attention-wasm.js',
    'causal-attention-wasm-data.js',
    'causal-attention-later.js',
    'causal-attention.mjs',
    'causal-attention.d.ts',
    'causal-attention.d.mts',
  ]);
  // ESM (Node's import, and bundlers for a browser): the .mjs; require: the classic script.
  const esm = { types: './causal-attention.d.mts', default: './causal-attention.mjs' };
  assert.deepEqual(manifest.exports['.'], {
    browser: esm,
    import: esm,
    default: { types: './causal-attention.d.ts', default: './causal-attention.js' },
  });
  for (const k of ['name', 'version', 'license', 'repository', 'description'])
    assert.ok(manifest[k], k);
  // The licence the LICENSE file grants, so that writers may ship the widget.
  assert.equal(manifest.license, 'MIT');
  assert.match(fs.readFileSync(path.join(__dirname, '../../LICENSE'), 'utf8'), /^MIT License\n/);
  assert.ok(manifest.devDependencies['playwright-core'], 'the dev tools stay');
  const shipped = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  assert.equal(shipped.devDependencies, undefined);
  assert.equal(shipped.private, undefined);
  assert.deepEqual(shipped.exports, manifest.exports);
});

test('npm pack ships exactly the files; the tarball installs offline and runs in Node and Chromium', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-package-'));
  try {
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp, pkgDir], tmp));
    const names = packed.files.map((f) => f.path).sort();
    assert.deepEqual(names, [
      'LICENSE',
      'README.md',
      'causal-attention-later.js',
      'causal-attention-wasm-data.js',
      'causal-attention-wasm.js',
      'causal-attention.d.mts',
      'causal-attention.d.ts',
      'causal-attention.js',
      'causal-attention.mjs',
      'package.json',
    ]);
    const tgz = path.join(tmp, packed.filename);
    console.log(
      `npm pack: ${packed.filename}, ${fs.statSync(tgz).size} bytes (unpacked ${packed.unpackedSize}): ${names.join(', ')}`,
    );

    const project = path.join(tmp, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), '{"name": "reader", "private": true}\n');
    npm(['install', '--offline', tgz], project);
    const installed = path.join(project, 'node_modules', manifest.name);
    assert.deepEqual(
      fs.readFileSync(path.join(installed, 'causal-attention.js')),
      fs.readFileSync(path.join(web, 'causal-attention.js')),
    );

    // Node: require by the package's name, resolved through "exports".
    const out = execFileSync(
      'node',
      [
        '-e',
        `require('${manifest.name}').load().then((api) => {
      const s = api.run({}).stages.find((x) => x.id === 'attn_weights_causal');
      console.log(s.data[6].toFixed(4));
    })`,
      ],
      { cwd: project, encoding: 'utf8' },
    );
    assert.equal(out.trim(), '0.5517');

    // Chromium: a page of the project loads the widget from node_modules.
    const browser = await launch();
    const s = await serveWith(project, {
      'index.html':
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Reader</title><link rel="icon" href="data:,">' +
        `<script src="node_modules/${manifest.name}/causal-attention.js" defer></script></head>` +
        '<body><main><causal-attention-demo stages="attn_weights_causal"></causal-attention-demo></main></body></html>',
    });
    try {
      const { page, problems } = await watchedPage(browser.context, s.url);
      await page.goto(s.url);
      await widgetsReady(page);
      assert.deepEqual(await widgetRow(page, 'causal-attention-demo', 'attn_weights_causal', 1), [
        '0.5517',
        '0.4483',
        '0.0000',
        '0.0000',
        '0.0000',
        '0.0000',
      ]);
      assert.deepEqual(problems, []);
    } finally {
      await s.close();
      await browser.close();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
