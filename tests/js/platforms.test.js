// The paste-ready snippets of docs/embed/, built by the real generators (Debian's hugo and
// jekyll) from a tiny site each, with the script pointed at build/web's copy, then read in
// Chromium: every widget renders its stage with the configuration it was given, and each
// page loads the script once. Cost: about 11 s on 2 cores (Jekyll starts slowly).
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { serve, launch, watchedPage, widgetsReady, web } = require('./browser');
const { root } = require('./support');

const docs = path.join(root, 'docs/embed');
const ROW1_CAUSAL = ['0.5517', '0.4483', '0.0000', '0.0000', '0.0000', '0.0000'];
const ROW0_MKL = Array(6).fill('2.0000'); // dropout_example with rng mkl
const CDN = 'https://cdn.jsdelivr.net/npm/causal-attention-demo@0.1.0/causal-attention.js';

let tmp, browser;
before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-platforms-'));
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function write(dir, files) {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

// Serves a generated site with build/web's causal-attention.js and the scripts it loads beside
// it (the module, causal-attention-wasm.js and -wasm-data.js; after its first table,
// causal-attention-later.js) at its root; checks the post.
async function check(site, post) {
  for (const f of [
    'causal-attention.js',
    'causal-attention-wasm.js',
    'causal-attention-wasm-data.js',
    'causal-attention-later.js',
  ])
    fs.copyFileSync(path.join(web, f), path.join(site, f));
  const s = await serve(site);
  try {
    const { page, problems } = await watchedPage(browser.context, s.url);
    await page.goto(s.url + post);
    await widgetsReady(page);
    assert.equal(
      await page.locator('script[src="/causal-attention.js"]').count(),
      1,
      'the script once per page',
    );
    const row = (n, stage, r) =>
      page.evaluate(
        ([n, stage, r]) => {
          const host = document.querySelectorAll('causal-attention-demo').item(n);
          return Array.from(
            host.shadowRoot.querySelectorAll(`[data-stage="${stage}"] td[data-row="${r}"]`),
            (td) => td.textContent,
          );
        },
        [n, stage, r],
      );
    assert.equal(await page.locator('causal-attention-demo').count(), 2);
    assert.deepEqual(await row(0, 'attn_weights_causal', 1), ROW1_CAUSAL);
    assert.deepEqual(await row(1, 'dropout_example', 0), ROW0_MKL);
    assert.equal(
      await page.locator('causal-attention-demo >> nth=1').getAttribute('controls'),
      'compact',
    );
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await s.close();
  }
}

test('Hugo: the shortcode, twice in a post', async () => {
  const src = path.join(tmp, 'hugo'),
    out = path.join(tmp, 'hugo-out');
  write(src, {
    'hugo.toml':
      'baseURL = "/"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap", "home", "section", "404"]\n[params]\ncausal_attention_src = "/causal-attention.js"\n',
    'layouts/_default/single.html':
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title><link rel="icon" href="data:,"></head><body><main>{{ .Content }}</main></body></html>',
    'layouts/shortcodes/causal-attention.html': fs.readFileSync(
      path.join(docs, 'hugo/layouts/shortcodes/causal-attention.html'),
      'utf8',
    ),
    'content/post.md':
      '---\ntitle: Attention\n---\n\nThe weights:\n\n{{< causal-attention stages="attn_weights_causal" >}}\n\n' +
      'And dropout on Intel:\n\n{{< causal-attention stages="dropout_example" config=`{"rng": "mkl"}` controls="compact" >}}\n',
  });
  execFileSync('hugo', ['--quiet', '-s', src, '-d', out], { encoding: 'utf8' });
  await check(out, 'post/index.html');
});

test('Jekyll: the include, twice in a post; the Markdown snippet as pasted', async () => {
  const src = path.join(tmp, 'jekyll'),
    out = path.join(tmp, 'jekyll-out');
  const markdown = fs.readFileSync(path.join(docs, 'markdown.md'), 'utf8');
  assert.ok(markdown.includes(CDN), 'the Markdown snippet loads the CDN copy');
  write(src, {
    '_config.yml': 'causal_attention_src: /causal-attention.js\n',
    '_layouts/default.html':
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ page.title }}</title><link rel="icon" href="data:,"></head><body><main>{{ content }}</main></body></html>',
    '_includes/causal-attention.html': fs.readFileSync(
      path.join(docs, 'jekyll/_includes/causal-attention.html'),
      'utf8',
    ),
    'post.md':
      '---\nlayout: default\ntitle: Attention\n---\n\nThe weights:\n\n{% include causal-attention.html stages="attn_weights_causal" %}\n\n' +
      'And dropout on Intel:\n\n{% include causal-attention.html stages="dropout_example" config=\'{"rng": "mkl"}\' controls="compact" %}\n',
    // The plain snippet, with a second widget added as a writer would, the CDN swapped for the local copy.
    'pasted.md':
      '---\nlayout: default\ntitle: Pasted\n---\n\n' +
      markdown
        .replace(CDN, '/causal-attention.js')
        .replace(
          'stages="masked,attn_weights_causal"></causal-attention-demo>',
          'stages="masked,attn_weights_causal"></causal-attention-demo>\n<causal-attention-demo stages="dropout_example" config=\'{"rng": "mkl"}\' controls="compact"></causal-attention-demo>',
        )
        .replace(/<iframe[\s\S]*?<\/iframe>/, ''),
  });
  execFileSync('jekyll', ['build', '--quiet', '--safe', '-s', src, '-d', out], {
    encoding: 'utf8',
    env: { ...process.env, JEKYLL_ENV: 'production' },
  });
  await check(out, 'post.html');
  await check(out, 'pasted.html');
});
