// The tables' stylesheet, shared by the page and every <causal-attention-demo>: the page adopts
// it into its document, each widget into its shadow root (a constructable stylesheet, which a
// strict CSP allows where <style> and style="" are blocked). One CSSStyleSheet object serves
// every widget on a page.
// The colours as variables. On the page they live on :root; in a widget on its inner .ca
// element, not on :host, so that nothing the host page sets can override them.
// The scales: sequential (probabilities) s0 → s2 through s1, diverging c0 → p2 (> 0) or
// n2 (< 0) through p1/n1, each a quadratic Bézier in oklab (perceptually near-uniform),
// lightness monotonic from the page's colour outwards: cividis-like blue–yellow and a
// blue–red diverging pair, both safe for colour-blind readers. Light: larger = darker;
// dark: larger = brighter; in both "the further from the page's colour, the larger".
// --cs, --cd, --cn (sequential, diverging > 0 and < 0) and --dir: where the cells' text turns from black to
// white (flipped in the dark theme), each side ≥ 4.5:1 (computed from the stops in oklab).
var LIGHT = {
  s0: '#fbf8dc',
  s1: '#4f93a0',
  s2: '#0d2a61',
  c0: '#f7f7f7',
  p1: '#6fa6d6',
  p2: '#0b3d7a',
  n1: '#e3906c',
  n2: '#7a1a12',
  mk: '#d5d5d5', // masked cells
};
var light =
  '--bg:#fff;--fg:#1b1b1b;--muted:#595959;--line:#c9d1d9;--soft:#f3f5f7;--accent:#0a58b8;--err:#b3261e;' +
  Object.keys(LIGHT)
    .map(function (k) {
      return '--' + k + ':' + LIGHT[k] + ';';
    })
    .join('') +
  '--cs:.6;--cd:.7;--cn:.71;--dir:1;--hl:rgba(255,170,0,.3);--hatch:rgba(0,0,0,.16);color-scheme:light';
var dark =
  '--bg:#121417;--fg:#e8e8e8;--muted:#a9b0b8;--line:#3b4149;--soft:#1d2126;--accent:#79b8ff;--err:#ff8a80;' +
  '--s0:#1c2131;--s1:#3a8a8c;--s2:#fde95a;--c0:#1c2131;--p1:#3a74b0;--p2:#c4e2ff;--n1:#b0603f;--n2:#ffd0ba;' +
  '--mk:#3a3f47;--cs:.458;--cd:.5;--cn:.495;--dir:-1;--hl:rgba(255,200,60,.25);--hatch:rgba(255,255,255,.2);color-scheme:dark';
// The host's hooks (README, Embedding): --ca-fg, --ca-bg, --ca-accent, --ca-border override
// the theme's colours, --ca-font and --ca-font-size its font; custom properties inherit
// into the shadow root, nothing else from the host does.
var HOOKS = { fg: 'fg', bg: 'bg', accent: 'accent', line: 'border' };
function hooked(theme) {
  return theme.replace(/--(fg|bg|accent|line):([^;]+)/g, function (_, k, v) {
    return '--' + k + ':var(--ca-' + HOOKS[k] + ',' + v + ')';
  });
}
light = hooked(light);
dark = hooked(dark);
// theme="inherit": the host's text colour, font and size, its background showing through;
// the greys are mixed from the text colour, so they suit a light and a dark host alike.
var inherit =
  '--fg:var(--ca-fg,currentColor);--bg:var(--ca-bg,transparent);--muted:color-mix(in srgb,currentColor 72%,transparent);' +
  '--line:var(--ca-border,color-mix(in srgb,currentColor 28%,transparent));--soft:color-mix(in srgb,currentColor 7%,transparent);' +
  '--hatch:color-mix(in srgb,currentColor 22%,transparent);' +
  'color:var(--ca-fg,inherit);font-family:var(--ca-font,inherit);font-size:inherit;--ca-size:var(--ca-font-size,1em)';
export var css = [
  // The widget: a block as tall as its content. Inherited properties (font, colour,
  // alignment...) would cross the shadow boundary from the host page, so .ca resets them all
  // (first, so that the variables below win over its color-scheme).
  '.ca{all:initial;display:block;direction:ltr;padding:.4rem .6rem;border-radius:6px;background:var(--bg);color:var(--fg);font:var(--ca-size)/1.45 var(--ca-font,system-ui,sans-serif);--ca-size:var(--ca-font-size,16px)}',
  // --mono: also written out in .t td (below); viz.test.js checks that the two agree.
  ':root,.ca{--mono:.88rem/1.35 ui-monospace,Menlo,Consolas,monospace;' + light + '}',
  // theme="auto" (or none) follows the reader's system; theme="light"/"dark" forces one.
  '@media (prefers-color-scheme:dark){:root,:host([theme=auto]) .ca{' + dark + '}}',
  ':host([theme=dark]) .ca{' + dark + '}',
  ':host(:not([theme=light],[theme=dark],[theme=auto])) .ca{' + inherit + '}',
  ':host{display:block}:host([hidden]),[hidden]{display:none!important}',
  '.ca *{box-sizing:border-box}',
  'button,input,select{font:inherit;font-size:.9rem;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:.15rem .4rem;max-width:100%}',
  'button{cursor:pointer;margin:.3rem 0}button:disabled{opacity:.5}',
  ':focus-visible{outline:2px solid var(--accent);outline-offset:1px}',
  '.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}',
  '.scroll{overflow-x:auto;container-type:inline-size}',
  // A table wider than its box fades out at the edge it continues past (render.hints).
  '.scroll[data-more=right]{--fade:linear-gradient(to left,transparent,#000 2.5rem)}',
  '.scroll[data-more=left]{--fade:linear-gradient(to right,transparent,#000 2.5rem)}',
  '.scroll[data-more=both]{--fade:linear-gradient(to right,transparent,#000 2.5rem calc(100% - 2.5rem),transparent)}',
  '.scroll[data-more]{-webkit-mask-image:var(--fade);mask-image:var(--fade)}',
  '.stage{margin:1rem 0 1.5rem}.ca .stage{margin:.5rem 0}',
  '.pick{display:block;margin:.2rem 0;font-size:.85rem}.pick select{margin-left:.3rem}',
  '.t{border-collapse:collapse;margin-bottom:.3rem;font-variant-numeric:tabular-nums}',
  '.t th{font-size:.88rem}',
  '.t caption{text-align:left;font-size:.9rem;line-height:1.4;padding-bottom:.35rem;contain:inline-size}',
  '.t caption>*{display:block;width:min(44rem,100cqw)}',
  '.ti{font-weight:600}',
  '.sh,.sub,.k,.em,.m,.ni{color:var(--muted)}',
  'code{font:var(--mono);font-size:.82rem;background:var(--soft);padding:.1rem .35rem;white-space:pre-wrap;overflow-wrap:anywhere}',
  '.t th,.t td{border:1px solid var(--line);padding:.2rem .45rem;white-space:nowrap}',
  '.t th{max-width:8rem;overflow:hidden;text-overflow:ellipsis;background:var(--soft)}',
  '.t .k,.t .em{font-weight:400;font-size:.75rem}',
  '.t th.nm{max-width:none;overflow-wrap:anywhere}', // a stage's name as a row header: whole
  // A cell's font: --mono's, written out: a var() in a cell's rule is substituted and parsed
  // again on every restyle of the cell (an edit restyles each cell whose --v changes).
  '.t td{font:.88rem/1.35 ui-monospace,Menlo,Consolas,monospace;text-align:right;cursor:pointer;transition:box-shadow .15s}',
  '.t td:focus-visible,.t .sel{outline:2px solid var(--accent);outline-offset:-2px}',
  '@media (hover:hover){.t td:hover{outline:2px solid var(--accent);outline-offset:-2px}}',
  '.t .sel{outline-width:3px}',
  // Shading (cells and the key alike): the Bézier e0 → e2 through e1 at t = --v (= |x| / top);
  // text black or white past --cut (hsl() clamps the lightness: exactly black or white).
  '.h{--e0:var(--s0);--e1:var(--s1);--e2:var(--s2);--cut:var(--cs)}.d{--e0:var(--c0);--e1:var(--p1);--e2:var(--p2);--cut:var(--cd)}.d.ng{--e1:var(--n1);--e2:var(--n2);--cut:var(--cn)}',
  '.h,.d{--t:calc(var(--v)*100%);background-color:color-mix(in oklab,color-mix(in oklab,var(--e2) var(--t),var(--e1)) var(--t),color-mix(in oklab,var(--e1) var(--t),var(--e0)));color:hsl(0 0% calc((var(--v) - var(--cut))*var(--dir)*1e7%))}',
  // Masked: thin hatching that leaves the digits readable; dropped: a full-size ✗ before the number.
  '.m{background-image:repeating-linear-gradient(135deg,var(--hatch) 0 1px,transparent 1px 6px)}',
  '.x::before{content:"✗ ";font-weight:700}',
  // Masked cells of a causal stage (not shaded): one grey, in tables, keys and heatmaps alike.
  '.mk{background-color:var(--mk)}.km{display:inline-flex;align-items:center;gap:.25rem}.km .mk{width:.9rem;height:.9rem;border:1px solid var(--line)}',
  '.t .hl,.t .ln{box-shadow:inset 0 0 0 99rem var(--hl)}.t .op{outline:3px dashed var(--accent);outline-offset:-3px}',
  '.ck{display:flex;flex-wrap:wrap;align-items:center;gap:.3rem;font-size:.78rem;color:var(--muted);margin-bottom:.3rem}',
  '.ks{display:inline-flex;border:1px solid var(--line)}.ks span{width:.9rem;height:.9rem}',
  // The attention drawing.
  // Beside a drawing (.dd) the table is as wide as its content (not a container, its caption
  // wraps to the table's width); the drawing goes below where both do not fit.
  '.duo{container-type:inline-size;display:flex;flex-wrap:wrap;gap:.4rem 1.5rem;align-items:flex-start}.duo>.scroll{flex:1 1 100%}.dd>.scroll{container-type:normal;flex:0 1 auto;max-width:100%}.dd .t caption>*{width:auto}',
  '.dr{max-width:100%;overflow-x:auto}.dr svg{display:block;font:14px system-ui,sans-serif}.dr svg.sm{font-size:11px}',
  '.dr line{stroke:var(--hc,var(--p2));stroke-linecap:round}.dr line.ng{stroke:var(--hc,var(--n2))}.dr line.dp{stroke:var(--muted);stroke-dasharray:4 3}',
  '.dr .f line:not(.on),.dr line.hh,.dr .f .cut:not(.on){display:none}.dr .cut{stroke:var(--muted);stroke-opacity:.45;stroke-dasharray:2 2}',
  '.tk{cursor:pointer;outline:none}.tk rect{fill:transparent}.tk text{fill:var(--fg)}',
  '.tk.on rect,.tk[aria-pressed=true] rect{fill:var(--hl)}.tk:focus-visible rect{stroke:var(--accent);stroke-width:2}',
  '.dn{font-size:.78rem;color:var(--muted);max-width:22rem;margin:.2rem 0}',
  '.hb button{margin:0 .2rem .2rem 0;font-size:.75rem;border-bottom:3px solid var(--hc,var(--line))}.hb [aria-pressed=true]{font-weight:700}',
  '.after{margin:0;font-weight:600}',
  // Every head of a batch element side by side (lib/heads.js): small heads whole, big ones as
  // thumbnails that enlarge their head below.
  '.heads{display:flex;flex-wrap:wrap;gap:.5rem 2rem;align-items:flex-start}.heads>.head{flex:1 1 24rem;min-width:0;max-width:100%}',
  '.thumbs{display:flex;flex-wrap:wrap;gap:.4rem;flex:1 1 100%}.thumbs+.head{flex-basis:100%}',
  '.th{display:flex;flex-direction:column;align-items:center;gap:.15rem;margin:0;padding:.2rem;font-size:.75rem}.th canvas{display:block}.th[aria-pressed=true]{outline:3px solid var(--accent);outline-offset:-1px;font-weight:700}',
  // While the page renders, its stages off screen skip style, layout and paint (web/app.js
  // renders them in idle time after); the height they had when last shown keeps the
  // scrollbar still.
  'main .stage.lazy{content-visibility:auto;contain-intrinsic-size:auto 22rem}',
  // Heatmaps (lib/heatmap.js): the caption like a table's, the canvas, the readout.
  '.hc{font:.9rem/1.4 system-ui,sans-serif;padding-bottom:.35rem}.hc>*{display:block;max-width:44rem}',
  '.hm canvas{display:block;max-width:100%;height:auto;border:1px solid var(--line);cursor:crosshair;touch-action:none}',
  '.hb{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;font-size:.8rem}.hb button{margin:.2rem 0;font-size:.75rem;padding:0 .35rem}',
  '.ro{font:var(--mono);font-size:.82rem;margin:.2rem 0;min-height:1.3em}',
  '.nf{margin:.2rem 0;max-width:44rem;font-size:.9rem;color:var(--err)}', // inf/NaN appear here
  '.tools{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem;margin-bottom:.4rem;font-size:.8rem;color:var(--muted)}',
  '.tools button{margin:0;font-size:.75rem;padding:0 .35rem}',
  '.tools textarea{width:100%;height:5rem;font:var(--mono);font-size:.75rem}',
  // The widget's settings, its error line and its explanation of a clicked number.
  '.cf{display:flex;flex-wrap:wrap;gap:.2rem 1rem;align-items:center;font-size:.9rem}',
  '.cf input:not([type]){width:6rem}',
  '.err{color:var(--err);font-size:.9rem;margin:.25rem 0}',
  '.ex{font:var(--mono);font-size:.84rem;overflow-wrap:anywhere;border-left:3px solid var(--accent);padding-left:.6rem}',
  '.ex p{margin:.2rem 0}',
  // A narrow box (a phone): compact digits, row labels stay in sight while the table scrolls
  // (px: the widget's sheet turns rem into var(), which a container query cannot hold).
  '@container (max-width:34em){.t td,.t th{font-size:.75rem;padding:.15rem}.t .k{white-space:normal}.t tbody th{position:sticky;left:0;z-index:1;max-width:5rem}.t th.nm{white-space:normal}}',
  '@media (prefers-reduced-motion:reduce){*{transition:none!important;animation:none!important;scroll-behavior:auto!important}}',
].join('\n');

/** The light theme's masked cells' colour, for exports. */
export var masked = LIGHT.mk;
/** A cell's light-theme colours for exports (canvas takes color-mix): the shading of
 *  --v = v on the sequential (seq) or diverging scale (neg: below 0), and its text colour. */
export function shade(v, seq, neg) {
  var e = seq
      ? [LIGHT.s0, LIGHT.s1, LIGHT.s2]
      : [LIGHT.c0, LIGHT[neg ? 'n1' : 'p1'], LIGHT[neg ? 'n2' : 'p2']],
    t = ' ' + v * 100 + '%,';
  return {
    bg:
      'color-mix(in oklab,color-mix(in oklab,' +
      e[2] +
      t +
      e[1] +
      ')' +
      t +
      'color-mix(in oklab,' +
      e[1] +
      t +
      e[0] +
      '))',
    fg: v > (seq ? 0.6 : neg ? 0.71 : 0.7) ? '#fff' : '#000', // light's --cs, --cn, --cd (viz.test.js)
  };
}

var sheets = {};
/** The stylesheet as a CSSStyleSheet, one per kind, made on first use (browsers only). The
 *  widget's has its own size for rem (--ca-size: 16px, --ca-font-size or, with
 *  theme="inherit", the host's), not the host page's root font size. */
export function styleSheet(forWidget) {
  var kind = forWidget ? 'widget' : 'page';
  if (!sheets[kind]) {
    if (forWidget) {
      // A <length> property holds px, not "1em", so nested sizes do not compound.
      try {
        CSS.registerProperty({
          name: '--ca-size',
          syntax: '<length>',
          inherits: true,
          initialValue: '16px',
        });
      } catch (e) {
        /* registered */
      }
    }
    sheets[kind] = new CSSStyleSheet();
    sheets[kind].replaceSync(
      forWidget ? css.replace(/(\d*\.?\d+)rem/g, 'calc($1 * var(--ca-size))') : css,
    );
  }
  return sheets[kind];
}
