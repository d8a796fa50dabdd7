// One stage as a box: its table(s) (heatmaps above max_shown), drawing, export buttons and
// notes; updated in place for new values of the same shape.
import { el } from './dom.js';
import { info as stageInfo } from './facts.js';
import { figure, wanted as drawn } from './draw.js';
import { formats } from './export.js';
import * as heatmap from './heatmap.js';
import { heads, repaint } from './heads.js';
import { nonFinite } from './nonfinite.js';
import { byId, isBig, matrix, maxDiff, maxShown, sliceCount, sliceName } from './slices.js';
import { key, scale } from './scale.js';
import { caption, fill, table, textOf } from './table.js';

// What a stage box or heatmap shows now, {st, wt}: a 4-D stage's select and a heatmap's exact
// table build from the newest values. Drawings' rebuild functions. Kept off the DOM nodes.
var latest = new WeakMap(),
  redraws = new WeakMap();

// A slice's table (or heatmap) in a div.duo, with its drawing beside it (lib/draw.js) for
// (T, T) attention stages (4-D: the slice's head).
function duo(doc, st, wt, info, b, opts, heat) {
  var box = el(doc, 'div', 'duo');
  box.appendChild(heat ? big(st, wt, info, b, opts) : table(doc, st, wt, info, b, opts));
  if (drawn(info)) {
    box.classList.add('dd');
    box.appendChild(drawing(doc, st, wt, b, info));
  }
  return box;
}
function drawing(doc, st, wt, b, info) {
  var fig = figure(doc, st, wt, b, info);
  redraws.set(fig, function (now, nowWt) {
    keep(fig, drawing(doc, now, nowWt, b, info));
  });
  return fig;
}
// Puts node `now` in place of `old` unless they are equal: an update that changes nothing
// leaves the page's layout valid (a new caption and colour key in every box on screen, though
// the same, were most of the book's d_out edit's layout and paint).
function keep(old, now) {
  if (!old.isEqualNode(now)) old.replaceWith(now);
}
function setText(node, s) {
  if (node.textContent !== s) node.textContent = s;
}

// A slice bigger than max_shown on a side: a canvas heatmap (lib/heatmap.js).
function big(st, wt, info, batch, opts) {
  var m = matrix(st, wt, batch),
    doc = opts.doc || document,
    max = maxShown();
  var head = caption(doc, el(doc, 'div', 'hc'), st, info, batch, '');
  if (opts.caption === false) head.className = 'hc sr';
  var box = heatmap.create(m, {
    doc: doc,
    info: info,
    size: opts.size,
    name: sliceName(st, batch).name,
    head: head,
    max: max,
    table: function (region) {
      var now = latest.get(box);
      return table(doc, now.st, now.wt, stageInfo(now.st.id), batch, opts, region);
    },
  });
  latest.set(box, { st: st, wt: wt });
  box.dataset.slice = batch;
  setKey(doc, box, m, info, box.querySelector('canvas'));
  return box;
}
// A slice's colour key (lib/scale.js) after node `at`: a heatmap's canvas, a table (m: the
// slice's matrix, 0 for a 0-D value: no key). An equal key stays.
function setKey(doc, box, m, info, at) {
  var sc = m && scale(m, info),
    old = box.querySelector(':scope > .ck'),
    ck = sc && key(doc, sc);
  if (old && ck) keep(old, ck);
  else if (old) old.remove();
  else if (ck) at.after(ck);
}
// The buttons under a table: the export formats (lib/export.js) and, on the page, the link.
function tools(doc, st, batch, withEmbed) {
  var bar = el(doc, 'div', 'tools'),
    name = sliceName(st, batch).name;
  bar.setAttribute('role', 'group');
  bar.setAttribute('aria-label', 'Export ' + name);
  bar.appendChild(el(doc, 'span', '', 'Export:'));
  formats.forEach(function (f) {
    if (f.page && !withEmbed) return;
    var b = bar.appendChild(el(doc, 'button', '', f.label));
    b.type = 'button';
    b.dataset.export = f.id;
    b.dataset.batch = batch;
  });
  if (withEmbed) {
    // on the page: a link to this stage with the current settings (app.js)
    var link = bar.appendChild(el(doc, 'button', '', 'Link'));
    link.type = 'button';
    link.dataset.link = st.id;
    link.setAttribute('aria-label', 'Link to ' + st.id);
  }
  bar.appendChild(el(doc, 'span', 'msg')).setAttribute('aria-live', 'polite'); // "Copied ..."
  return bar;
}

// The efficient mask against the simple one: the same weights, to float32 rounding.
function afterText(st, wt) {
  var simple = byId(wt).masked_simple_norm,
    diff;
  return st.id === 'attn_weights_causal' && simple
    ? 'max |difference| from the simple way (masked_simple_norm): ' +
        ((diff = maxDiff(st.data, simple.data)) ? diff.toExponential(2) : '0')
    : '';
}

/** One stage as a div[data-stage] holding its table(s) (heatmaps above max_shown) and their
 *  export buttons. opts: {doc, caption: false hides captions but for screen readers, embed:
 *  an Embed button}. */
export function stage(st, wt, opts) {
  opts = opts || {};
  var doc = opts.doc || document,
    info = stageInfo(st.id),
    box = el(doc, 'div', 'stage'),
    n = sliceCount(st),
    heat = isBig(st);
  box.dataset.stage = st.id;
  box.dataset.shape = st.shape.join();
  // A slice's table (or heatmap) and, for (T, T) attention stages, its drawing beside it.
  var slice = function (b, now, nowWt) {
    return duo(doc, now || st, nowWt || wt, info, b, opts, heat);
  };
  if (st.shape.length === 4) {
    // Every head of one batch element side by side (lib/heads.js); the batch element picked
    // with a select.
    var B = st.shape[0],
      H = st.shape[1],
      multiples = function (b, now, nowWt, head) {
        return heads(doc, now || st, nowWt || wt, b, {
          big: heat,
          head: head,
          slice: function (k) {
            return slice(k, now, nowWt);
          },
          tools: function (k) {
            return tools(doc, now || st, k, opts.embed && !k);
          },
        });
      };
    if (B > 1) {
      var label = box.appendChild(el(doc, 'label', 'pick', 'Batch element ')),
        pick = label.appendChild(el(doc, 'select'));
      for (var k = 0; k < B; k++)
        pick.appendChild(el(doc, 'option', '', k + 1 + ' of ' + B)).value = k;
      pick.addEventListener('change', function () {
        // label.parentNode: the box shown (a placeholder may have taken this box's children)
        var host = label.parentNode,
          now = latest.get(host) || { st: st, wt: wt },
          old = host.querySelector(':scope > .heads');
        old.replaceWith(multiples(+pick.value, now.st, now.wt, +old.dataset.head || 0));
      });
    }
    box.appendChild(multiples(0));
    box.dataset.heads = H;
  } else {
    for (var b = 0; b < n; b++) {
      box.appendChild(slice(b));
      box.appendChild(tools(doc, st, b, opts.embed && !b));
    }
  }
  // Where inf or NaN first appear (lib/nonfinite.js), a note under the table.
  var overflow = nonFinite(wt)[st.id];
  if (overflow) box.appendChild(el(doc, 'p', 'nf', overflow)).setAttribute('role', 'note');
  var after = afterText(st, wt);
  if (after) box.appendChild(el(doc, 'p', 'after', after));
  return box;
}

/** Builds a stage's box anew inside the same element, for a new shape (or a note that comes or
 *  goes): its place in the page, its id and its observers stay; its children are new. */
export function rebuild(box, st, wt, opts) {
  var fresh = stage(st, wt, opts);
  box.replaceChildren.apply(box, Array.prototype.slice.call(fresh.childNodes));
  box.dataset.shape = fresh.dataset.shape;
  if (fresh.dataset.heads) box.dataset.heads = fresh.dataset.heads;
  else delete box.dataset.heads;
  latest.delete(box); // a 4-D stage's select: the values it was built from, not the old shape's
  return box;
}

/** Updates a stage's box in place for new values of the same shape: cell texts, shading,
 *  markers, labels, captions; the cells themselves (focus, tab stop, picked cell) stay.
 *  Drawings are drawn again.
 *  Returns false when the shape differs: the caller builds a new box with stage(). */
export function update(box, st, wt, opts) {
  opts = opts || {};
  var nf = nonFinite(wt)[st.id];
  if (box.dataset.stage !== st.id || box.dataset.shape !== st.shape.join()) return false;
  if (st.slices) return false; // computed on demand (lib/slices.js): its heads are asked anew
  if (!nf !== !box.querySelector(':scope > .nf')) return false; // a note comes or goes: rebuild
  var doc = opts.doc || document,
    info = stageInfo(st.id),
    b;
  latest.set(box, { st: st, wt: wt }); // a 4-D stage's select builds its slices from the newest values
  var nodes = [];
  (function walk(parent) {
    Array.prototype.forEach.call(parent.children, function (child) {
      var list = child.classList;
      if (list.contains('heads')) repaint(child, st, wt); // the thumbnails
      if (list.contains('duo') || list.contains('heads') || list.contains('head')) walk(child);
      else nodes.push(child);
    });
  })(box);
  nodes.forEach(function (node) {
    if (heatmap.isHeatmap(node)) {
      latest.set(node, { st: st, wt: wt });
      b = +node.dataset.slice;
      var hm = matrix(st, wt, b);
      heatmap.update(
        node,
        hm,
        caption(doc, el(doc, 'div', opts.caption === false ? 'hc sr' : 'hc'), st, info, b, ''),
      );
      setKey(doc, node, hm, info, node.querySelector('canvas'));
    } else if (node.className === 'scroll') {
      var t = node.firstChild,
        cap = t.caption.cloneNode(false);
      b = +t.dataset.slice;
      cap.classList.toggle('sr', opts.caption === false); // (no empty class="": unequal)
      keep(t.caption, caption(doc, cap, st, info, b, ''));
      fill(
        t,
        st,
        wt,
        info,
        b,
        {
          r0: 0,
          c0: 0,
          rows: t.tBodies[0].rows.length,
          cols: t.tBodies[0].rows[0].cells.length - 1,
        },
        textOf(st, opts),
      );
      setKey(doc, node, st.shape.length && matrix(st, wt, b), info, t);
    } else if (node.classList.contains('nf')) setText(node, nf);
    else if (node.className === 'after') setText(node, afterText(st, wt));
    else if (redraws.has(node)) redraws.get(node)(st, wt); // a drawing: drawn again
  });
  return true;
}
