// embed.html#<state>: chosen stages without the page around them, for sites that allow an
// iframe but no script. <state> is encodeURIComponent of a JSON object: the configuration's
// keys (as in the page's URL) plus the widget's "stages" (an array or a comma list),
// "controls", "theme" and "caption", and the host's look: "font" (a font-family), "bg" and "fg"
// (colours), which make the default theme "inherit" (else "auto"). The hash may also be
// written like the page's (hash.js: stages=masked,context_vecs&d_out=4&bg=%23fdf6e3). The page tells its parent its height on every change, as
// {type: 'causal-attention:height', height} (see README, Embedding).
import { parse as parseHash } from './hash.js';
import { stringify as toJson } from './lib/json.js';
import { styleSheet } from './lib/styles.js';
import { isRecord } from './lib/own.js';

var doc = document,
  demo = doc.querySelector('causal-attention-demo'),
  reported = 0;
var OPTIONS = ['stages', 'controls', 'theme', 'caption'],
  LOOK = { font: 'fontFamily', bg: 'backgroundColor', fg: 'color' };
// The host's look, checked before it reaches a style: a colour (bg, fg) or a list of font
// names, without a function of functions, var() or url(); else the link is invalid. They set
// background-color, color and font-family, none of which fetches anything.
function look(key, value) {
  var font = key === 'font';
  if (!CSS.supports(font ? 'font-family' : 'color', value) || /\(.*\(|var\(|url\(/i.test(value))
    throw new Error('"' + key + '" is not a ' + (font ? 'font name' : 'colour'));
}
doc.body.style.margin = '0'; // the frame is exactly the widget (a style set from JS, CSP-safe)
doc.adoptedStyleSheets = [styleSheet()]; // for the h1 only screen readers see

// A link that is not valid (bad percent-encoding, bad JSON, not an object) shows the book
// with the same message as index.html.
var status = doc.createElement('p');
status.className = 'err';
status.setAttribute('role', 'status');
status.style.font = '14px/1.45 system-ui, sans-serif'; // the widget's font, set from JS (CSP-safe)
status.style.margin = '.4rem .6rem';
demo.parentNode.insertBefore(status, demo);

function show() {
  var state,
    msg = '',
    styled = false;
  try {
    state = parseHash(location.hash);
    if (!isRecord(state)) throw new Error('not a JSON object');
    Object.keys(LOOK).forEach(function (key) {
      if (Object.prototype.hasOwnProperty.call(state, key)) look(key, state[key]);
    });
  } catch (e) {
    msg = 'Invalid link (' + e.message + '): showing the book instead.';
    state = {};
  }
  status.textContent = msg;
  status.hidden = !msg;
  Object.keys(LOOK).forEach(function (key) {
    // styles set from JS (allowed by a strict CSP), of values checked above
    var own = Object.prototype.hasOwnProperty.call(state, key);
    doc.body.style[LOOK[key]] = own
      ? String(state[key])
      : key === 'font'
        ? 'system-ui,sans-serif'
        : '';
    styled = styled || own;
    delete state[key];
  });
  if (!('theme' in state)) state.theme = styled ? 'inherit' : 'auto';
  OPTIONS.forEach(function (key) {
    var v = state[key];
    delete state[key];
    if (v === undefined) demo.removeAttribute(key);
    else demo.setAttribute(key, Array.isArray(v) ? v.join(',') : v === false ? 'off' : String(v));
  });
  demo.setAttribute('config', toJson(state));
}

// ready: the widget has rendered (the page's Embed button waits for it to size its snippet).
function reportHeight() {
  var height = Math.ceil(doc.documentElement.getBoundingClientRect().height);
  if (height !== reported && parent !== window) {
    reported = height;
    parent.postMessage(
      { type: 'causal-attention:height', height: height, ready: !!demo.dataset.state },
      '*',
    );
  }
}

show();
addEventListener('hashchange', show);
new ResizeObserver(reportHeight).observe(doc.documentElement);
demo.addEventListener('ca-render', function () {
  reported = 0; // once more, ready
  requestAnimationFrame(reportHeight); // after its layout
});
