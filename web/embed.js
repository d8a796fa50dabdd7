// embed.html#<state>: chosen stages without the page around them, for sites that allow an
// iframe but no script. <state> is encodeURIComponent of a JSON object: the configuration's
// keys (as in the page's URL) plus the widget's "stages" (an array or a comma list),
// "controls", "theme" and "caption", and the host's look: "font" (a font-family), "bg" and "fg"
// (colours), which make the default theme "inherit" (else "auto"). The hash may also be
// written like the page's (hash.js: stages=masked,context_vecs&d_out=4&bg=%23fdf6e3). The page tells its parent its height on every change, as
// {type: 'causal-attention:height', height} (see README, Embedding).
(function () {
  'use strict';
  var doc = document,
    demo = doc.querySelector('causal-attention-demo'),
    reported = 0,
    reportedReady = false;
  var OPTIONS = ['stages', 'controls', 'theme', 'caption'],
    LOOK = { font: 'fontFamily', bg: 'backgroundColor', fg: 'color' };
  // The host's look, checked before it reaches a style: a colour is a hex, a keyword or a colour
  // function of numbers (no url(), var() or image: nothing is fetched); a font is a list of
  // family names. Anything else makes the link invalid.
  var VALID = {
    bg: /^(#[0-9a-f]{3,8}|[a-z]+|(rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\([-+\w.%,/ ]*\))$/i,
    font: /^\s*("[^"\\]*"|'[^'\\]*'|[\p{L}\p{N} _-]+)(\s*,\s*("[^"\\]*"|'[^'\\]*'|[\p{L}\p{N} _-]+))*\s*$/u,
  };
  VALID.fg = VALID.bg;
  function look(key, value) {
    var text = String(value),
      ok = VALID[key].test(text) && CSS.supports(key === 'font' ? 'font-family' : 'color', text);
    if (!ok) throw new Error('"' + key + '" is not a ' + (key === 'font' ? 'font name' : 'colour'));
    return text;
  }
  doc.body.style.margin = '0'; // the frame is exactly the widget (a style set from JS, CSP-safe)
  doc.adoptedStyleSheets = [CausalAttention.styleSheet()]; // for the h1 only screen readers see

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
      state = CausalAttention.hash.parse(location.hash);
      if (!state || state.constructor !== Object) throw new Error('not a JSON object');
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
    demo.setAttribute('config', CausalAttention.json.stringify(state));
  }

  // ready: the widget has rendered (the page's Embed button waits for it to size its snippet).
  function reportHeight() {
    var height = Math.ceil(doc.documentElement.getBoundingClientRect().height),
      ready = !!demo.dataset.state;
    if ((height !== reported || ready !== reportedReady) && parent !== window) {
      reported = height;
      reportedReady = ready;
      parent.postMessage({ type: 'causal-attention:height', height: height, ready: ready }, '*');
    }
  }

  show();
  addEventListener('hashchange', show);
  new ResizeObserver(reportHeight).observe(doc.documentElement);
  demo.addEventListener('ca-render', function () {
    requestAnimationFrame(reportHeight); // after its layout
  });
})();
