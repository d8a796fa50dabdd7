// The HTML that embeds a stage in another page: the element, and an iframe sized to its content.
import * as hash from '../../hash.js';
import { stringify as toJson } from '../json.js';
import { attr } from './text.js';

/** The HTML that embeds stage `id` with configuration `config` (its non-default keys):
 *  the element, and an iframe for sites that allow no scripts, `height` px tall (its
 *  content's, measured by frameHeight). `base` is the URL of the directory holding
 *  causal-attention.js and embed.html; the frame's link is written like the page's (hash.js). */
export function frameSrc(id, config, base) {
  return base + 'embed.html#' + hash.stringify(Object.assign({ stages: id }, config));
}
export function snippet(id, config, base, height) {
  var json = toJson(config);
  return (
    '<script src="' +
    attr(base + 'causal-attention.js') +
    '"></script>\n' +
    '<causal-attention-demo stages="' +
    attr(id) +
    '" ' +
    (json === '{}' ? 'preset="book"' : 'config="' + attr(json) + '"') +
    '></causal-attention-demo>\n' +
    '<!-- Or, where scripts are not allowed: -->\n' +
    '<iframe src="' +
    attr(frameSrc(id, config, base)) +
    '" title="' +
    attr('Causal attention: ' + id) +
    '" width="100%" height="' +
    height +
    '" style="border:0" loading="lazy"></iframe>'
  );
}

/** The height of the content of embed.html at `src` in a 700 px frame (a blog's column), as
 *  embed.js reports it once its widget is ready (a message: also from file://); 640 after 8 s. */
export function frameHeight(src, doc) {
  return new Promise(function (resolve) {
    var win = doc.defaultView,
      frame = doc.createElement('iframe'),
      timer = setTimeout(done, 8000, 640);
    function done(height) {
      win.removeEventListener('message', listen);
      clearTimeout(timer);
      frame.remove();
      resolve(height);
    }
    function listen(e) {
      var d = e.data;
      if (e.source === frame.contentWindow && d && d.ready) done(d.height);
    }
    win.addEventListener('message', listen);
    frame.src = src;
    frame.title = 'measuring';
    frame.tabIndex = -1;
    frame.setAttribute('aria-hidden', 'true');
    // off screen (CSSOM, allowed by a strict CSP)
    frame.style.cssText = 'position:fixed;left:-1e4px;width:700px;border:0';
    doc.body.appendChild(frame);
  });
}
