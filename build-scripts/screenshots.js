// Screenshots of the built page (build/web, or $CA_BUILD/web) in headless Chromium, for people
// to look at: `node build-scripts/screenshots.js` writes them to $CA_BUILD/screenshots/;
// `--readme` also rewrites docs/screenshot.png, the README's picture (light theme, desktop).
// Desktop (1280x800), phone (360x740) and projector (1280x720) sizes, light and dark.
// `--views DIR` writes instead the views of issue 20 (seeing attention: colour, heads, the
// map, lecture slides, exercise 3.3) at 1440x900, 1280x720, 1920x1080 and 390x844, light and
// dark, into DIR: before/after pictures of a change.
// The tests assert what the page shows; this script only takes pictures of it.
'use strict';
const fs = require('fs');
const path = require('path');
const { serve, launch, watchedPage, ready, web } = require('../tests/js/browser');

const root = path.resolve(__dirname, '..');
const shots = path.join(path.dirname(web), 'screenshots');
const DESKTOP = { width: 1280, height: 800 };

const PHONE = { width: 360, height: 740 },
  PROJECTOR = { width: 1280, height: 720 };

// Each shot: the page at `hash` in `scheme` and `viewport` (desktop), after `before(page)`; the
// viewport (or `clip` of it), the whole page (`fullPage`), or `element`.
const SHOTS = [
  // The README's: the page scrolled to the causal weights and their drawing, beside the settings.
  {
    name: 'readme',
    hash: '#stage=attn_weights_causal',
    scheme: 'light',
    clip: { x: 0, y: 0, width: 1000, height: 580 },
  },
  ...['light', 'dark'].flatMap((scheme) => [
    { name: `page-desktop-${scheme}`, hash: '', scheme },
    { name: `page-full-${scheme}`, hash: '', scheme, fullPage: true },
    { name: `page-mkl-phone-${scheme}`, hash: '#rng=mkl', scheme, viewport: PHONE, fullPage: true },
    {
      name: `lecture-1280x720-${scheme}`,
      hash: '#stage=attn_weights_causal&lecture',
      scheme,
      viewport: PROJECTOR,
    },
    {
      name: `drawing-${scheme}`,
      hash: '',
      scheme,
      // A token pointed at: the drawing shows only its lines and lights its table row.
      before: (page) =>
        page.hover('#main [data-stage="attn_weights_causal"] .tk[data-side="q"][data-i="4"]'),
      element: (page) => page.locator('#main [data-stage="attn_weights_causal"] .duo'),
    },
    {
      name: `drawing-dropout-${scheme}`,
      hash: '',
      scheme,
      element: (page) => page.locator('#main [data-stage="attn_weights_dropped"] .duo'),
    },
  ]),
];

// Issue 20's views at the four sizes, light and dark (`--views DIR`).
const SIZES = {
  '1440x900': { width: 1440, height: 900 },
  '1280x720': PROJECTOR,
  '1920x1080': { width: 1920, height: 1080 },
  '390x844': { width: 390, height: 844 },
};
const VIEWS = [
  // The first screen of the book, and the weights (§3.5) and the heads (§3.6) scrolled to.
  { name: 'book', hash: '' },
  { name: 'weights', hash: '#stage=attn_weights_causal' },
  { name: 'heads', hash: '#stage=mha.attn_weights' },
  // Exercise 3.3's first screen (GPT-2's 12 heads at T = 1024).
  { name: 'gpt2', hash: '#preset=gpt2', timeout: 240000 },
  // Lecture slides: a 2-D stage and the chapter's last (a 3-D stage).
  { name: 'lecture-weights', hash: '#stage=attn_weights_causal&lecture' },
  { name: 'lecture-heads', hash: '#stage=mha.attn_weights&lecture' },
  { name: 'lecture-context', hash: '#stage=mha.context_vecs&lecture' },
  // The bonus notebook's sections (docs/bonus.md): the combined product, the blocked pass,
  // nn.MultiheadAttention (d_in = d_out) and a lecture slide of the difference.
  { name: 'bonus-qkv', hash: '#stage=qkv.qkv' },
  { name: 'bonus-flash', hash: '#stage=flash.running_max' },
  { name: 'bonus-torchmha', hash: '#inputs=randn:6,8:1&d_out=8&stage=torchmha.attn_weights' },
  { name: 'bonus-lecture', hash: '#stage=flash.difference&lecture' },
  // Issue 23's KV cache: its section at the last step, at step 2 (the slider), and a slide.
  { name: 'kv', hash: '#stage=kv.cache_k' },
  {
    name: 'kv-step2',
    hash: '#stage=kv.attn_weights',
    before: (page) =>
      page.$eval('.kv-steps input', (i) => {
        i.value = 2;
        i.dispatchEvent(new Event('input'));
      }),
  },
  { name: 'lecture-kv', hash: '#stage=kv.attn_weights&lecture' },
];
function views() {
  return VIEWS.flatMap((v) =>
    Object.entries(SIZES).flatMap(([size, viewport]) =>
      ['light', 'dark'].map((scheme) => ({
        ...v,
        name: `${v.name}-${size}-${scheme}`,
        viewport,
        scheme,
      })),
    ),
  );
}

async function main() {
  const readme = process.argv.includes('--readme');
  const at = process.argv.indexOf('--views'),
    dir = at > 0 ? path.resolve(process.argv[at + 1]) : shots,
    only = process.argv.indexOf('--only'), // --only TEXT: the shots whose names contain it
    list = (at > 0 ? views() : SHOTS).filter(
      (s) => only < 0 || s.name.includes(process.argv[only + 1]),
    );
  fs.mkdirSync(dir, { recursive: true });
  const [browser, server] = await Promise.all([launch(), serve(web)]);
  try {
    for (const s of list) {
      const { page, problems } = await watchedPage(browser.context, server.url);
      await page.setViewportSize(s.viewport || DESKTOP);
      await page.emulateMedia({ colorScheme: s.scheme, reducedMotion: 'reduce' });
      await page.goto(server.url + s.hash);
      if ((await ready(page, s.timeout)) !== '1')
        throw new Error(`${s.name}: the page did not load`);
      if (s.before) await s.before(page);
      const file = path.join(dir, `${s.name}.png`);
      if (s.element) await s.element(page).screenshot({ path: file });
      else await page.screenshot({ path: file, clip: s.clip, fullPage: s.fullPage });
      if (problems.length) throw new Error(`${s.name}: ${problems.join('; ')}`);
      console.log(`${path.relative(root, file)} (${fs.statSync(file).size} bytes)`);
      if (readme && s.name === 'readme') {
        fs.copyFileSync(file, path.join(root, 'docs/screenshot.png'));
        console.log('docs/screenshot.png rewritten');
      }
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((e) => {
  console.error(`screenshots: ${e.message}`);
  process.exit(1);
});
