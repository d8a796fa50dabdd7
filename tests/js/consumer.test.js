// The npm package as a new user's project uses it (issue 19): the packed tarball installed
// offline, bundled for the browser with esbuild and with Rollup (no flags, no externals),
// type-checked by tsc --strict (nodenext: ESM and CommonJS files), imported from Node ESM and
// required from CommonJS, and the bundles run in Chromium. The packaging commands are the ones
// the docs give: `npm pack ./build/package`; `npm pack` at the root refuses. Cost: about 40 s.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { serveWith, launch, watchedPage, widgetsReady, widgetRow, web } = require('./browser');
const { root } = require('./support');

const pkgDir = path.join(path.dirname(web), 'package');
const NAME = 'causal-attention-demo';
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8' });
const npm = (args, cwd) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], cwd);
const ROW1 = ['0.5517', '0.4483', '0.0000', '0.0000', '0.0000', '0.0000'];

// The reader's project: an ES module that computes a value and adds the widget.
const MAIN = `import { load, json } from '${NAME}';
const api = await load();
const s = api.run(json.parse('{}')).stages.find((x) => x.id === 'attn_weights_causal');
document.body.dataset.value = s.data[6].toFixed(4);
document.body.insertAdjacentHTML('beforeend', '<causal-attention-demo stages="attn_weights_causal"></causal-attention-demo>');
`;
// Types, checked by tsc --strict: the ESM and the CommonJS view of the same package.
const TYPED_MTS = `import { load, json, type Api, type Config, type Walkthrough } from '${NAME}';
const config: Config = { d_out: 4, inputs: { randn: [3, 2] } };
const api: Api = await load();
const wt: Walkthrough = api.run(config, { stages: ['context_vecs'] });
const first: number = wt.stages[0].data[0];
const text: string = json.stringify({ seed: 2n ** 64n - 1n });
// @ts-expect-error d_out is a number
api.run({ d_out: 'four' });
// @ts-expect-error no such export
import { nothing } from '${NAME}';
export { first, text };
`;
const TYPED_CTS = `import ca = require('${NAME}');
export const loaded: Promise<ca.Api> = ca.load();
`;
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022', 'dom'],
    noEmit: true,
    skipLibCheck: false,
  },
  files: ['src/typed.mts', 'src/typed.cts'],
};

test('root npm pack refuses (it would ship the sources without the module)', () => {
  const r = spawnSync('npm', ['pack', '--dry-run'], { cwd: root, encoding: 'utf8' });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /npm pack \.\/build\/package/);
});

test('the packed tarball: bundled by esbuild and Rollup, typed, imported, required, run', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-consumer-'));
  try {
    // The documented command, from the repository's root: npm pack ./build/package.
    const rel = './' + path.relative(root, pkgDir);
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp, rel], root));
    assert.ok(packed.files.some((f) => f.path === 'causal-attention.mjs')); // package.test.js: all
    const project = path.join(tmp, 'reader');
    fs.mkdirSync(path.join(project, 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(project, 'package.json'),
      '{"name": "reader", "private": true, "type": "module"}\n',
    );
    npm(['install', '--offline', path.join(tmp, packed.filename)], project);
    fs.writeFileSync(path.join(project, 'src/main.js'), MAIN);
    fs.writeFileSync(path.join(project, 'src/typed.mts'), TYPED_MTS);
    fs.writeFileSync(path.join(project, 'src/typed.cts'), TYPED_CTS);
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));

    // Bundlers, as their docs say, with no flags about fs, path or externals.
    run(
      bin('esbuild'),
      ['src/main.js', '--bundle', '--format=esm', '--outfile=dist/esbuild.js'],
      project,
    );
    const rollup = require('rollup');
    const { nodeResolve } = require('@rollup/plugin-node-resolve');
    const bundle = await rollup.rollup({
      input: path.join(project, 'src/main.js'),
      plugins: [nodeResolve({ browser: true })],
      onwarn: (w) => assert.fail(`rollup: ${w.message}`),
    });
    await bundle.write({ file: path.join(project, 'dist/rollup.js'), format: 'es' });
    await bundle.close();
    for (const b of ['esbuild', 'rollup']) {
      const code = fs.readFileSync(path.join(project, `dist/${b}.js`), 'utf8');
      assert.doesNotMatch(code, /require\("(fs|path)"\)|__dirname/, b);
      console.log(`${b}: dist/${b}.js ${code.length} bytes`);
    }

    // tsc --strict over the ESM and the CommonJS file: passes, and a wrong type fails.
    const tsc = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', '.'],
      {
        cwd: project,
        encoding: 'utf8',
      },
    );
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);

    // Node: ESM named imports (what the .d.ts promises) and CommonJS require.
    const value = (api) =>
      `${api}.run({}).stages.find((x) => x.id === 'attn_weights_causal').data[6].toFixed(4)`;
    const esm = run(
      'node',
      [
        '--input-type=module',
        '-e',
        `import { load, json } from '${NAME}';
        const api = await load(); console.log(${value('api')}, typeof json.parse);`,
      ],
      project,
    );
    assert.equal(esm.trim(), '0.5517 function');
    const cjs = run(
      'node',
      [
        '--input-type=commonjs',
        '-e',
        `const { load, json } = require('${NAME}');
        load().then((api) => console.log(${value('api')}, typeof json.parse));`,
      ],
      project,
    );
    assert.equal(cjs.trim(), '0.5517 function');

    // Chromium: each bundle computes and shows the widget.
    const browser = await launch();
    const page = (b) =>
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Reader</title>' +
      `<link rel="icon" href="data:,"><script type="module" src="dist/${b}.js"></script></head>` +
      '<body><main></main></body></html>';
    const s = await serveWith(project, {
      'esbuild.html': page('esbuild'),
      'rollup.html': page('rollup'),
    });
    try {
      for (const b of ['esbuild', 'rollup']) {
        const { page: p, problems } = await watchedPage(browser.context, s.url);
        await p.goto(`${s.url}${b}.html`);
        await p.waitForFunction(() => document.body.dataset.value);
        assert.equal(await p.evaluate(() => document.body.dataset.value), '0.5517', b);
        await widgetsReady(p);
        assert.deepEqual(
          await widgetRow(p, 'causal-attention-demo', 'attn_weights_causal', 1),
          ROW1,
          b,
        );
        assert.deepEqual(problems, [], b);
        await p.close();
      }
    } finally {
      await s.close();
      await browser.close();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
