// Lecture mode (issue 8): one stage at a time over the whole window, in large type (title,
// PyTorch line, table, drawing), scaled to fill the screen (fit()). ←/→ or PageUp/PageDown
// (what presentation clickers send) move, Home/End jump, Esc leaves; the browser's Back and
// Forward step through the slides (page/url.js). A view of the store's `lecture` {on, stage}
// and `result`; the URL names the slide: #stage=attn_weights_causal&lecture. Cells that
// change from the previous slide flash (not under prefers-reduced-motion); a clicked number
// is explained on the slide.
import { bind as bindCells } from './lib/cells.js';
import { el } from './lib/dom.js';
import { bind as bindDrawings } from './lib/draw.js';
import { explain } from './lib/explain.js';
import { info as stageInfo, tables } from './lib/facts.js';
import { fmt } from './lib/format.js';
import { stage as stageBox } from './lib/render.js';
import { at, byId, part } from './lib/slices.js';
import * as store from './page/store.js';

var doc = document,
  box = null, // the slide's dialog, built once
  shownId = '', // the stage on the slide
  back = null; // where focus returns when lecture mode is left

function build() {
  box = el(doc, 'div', 'lec', undefined, doc.body);
  box.id = 'lecture';
  box.tabIndex = -1;
  box.hidden = true;
  box.setAttribute('role', 'dialog');
  box.setAttribute('aria-modal', 'true');
  box.setAttribute('aria-label', 'Lecture mode');
  box.addEventListener('keydown', keys);
  box.addEventListener('click', function (e) {
    var b = e.target.closest('button[data-go]');
    if (b) go(b.dataset.go);
  });
  bindDrawings(box);
  bindCells(box, explainCell);
  addEventListener('resize', function () {
    if (!box.hidden) fit();
  });
}
// A clicked (or Enter) number of the slide, explained under it (lib/explain.js).
function explainCell(cell) {
  var wt = store.get().result,
    id = cell.closest('[data-stage]').dataset.stage,
    b = +cell.dataset.batch || 0,
    i = +cell.dataset.row,
    j = +cell.dataset.col,
    old = box.querySelector('.lx');
  box.querySelectorAll('td.sel').forEach(function (c) {
    c.classList.remove('sel');
  });
  cell.classList.add('sel');
  var lx = el(doc, 'div', 'lx'),
    head = el(doc, 'div', 'ph', undefined, lx),
    st = byId(wt)[id];
  lx.setAttribute('role', 'region');
  lx.setAttribute('aria-label', 'How this number was computed');
  el(
    doc,
    'h3',
    '',
    (st.shape.length > 2 ? part(st, b).split(':')[0] : id) +
      '[' +
      (st.shape.length > 1 ? i + ', ' : '') +
      j +
      '] = ' +
      fmt(at(wt, id, b, i, j)),
    head,
  );
  var x = el(doc, 'button', { type: 'button' }, '×', head);
  x.dataset.go = 'unexplain';
  x.setAttribute('aria-label', 'Close explanation');
  lx.appendChild(explain(wt, id, b, i, j, doc));
  if (old) old.replaceWith(lx);
  else box.appendChild(lx);
}
function unexplain() {
  var lx = box.querySelector('.lx');
  if (!lx) return false;
  lx.remove();
  box.querySelectorAll('td.sel').forEach(function (c) {
    c.classList.remove('sel');
    c.focus();
  });
  return true;
}

// The slide's type size (--lf on its stage): the largest that fits the screen without
// scrolling, found by bisection on the layout (slices and heads wrap when they do not fit
// side by side). A phone: at least 16 px, fitted to its width; a wide table scrolls sideways
// and the slide down.
function fit() {
  var stage = box.querySelector('.stage'),
    narrow = box.clientWidth < 700,
    lo = narrow ? 16 : 10,
    hi = 72;
  if (!stage) return;
  var fits = function () {
    if (box.scrollWidth > box.clientWidth + 1) return false;
    if (!narrow && box.scrollHeight > box.clientHeight + 1) return false;
    return Array.prototype.every.call(
      stage.querySelectorAll(narrow ? '.dr' : '.scroll,.dr'),
      function (e) {
        return e.scrollWidth <= e.clientWidth + 1;
      },
    );
  };
  for (var n = 0; n < 9; n++) {
    var mid = (lo + hi) / 2;
    stage.style.setProperty('--lf', mid + 'px');
    if (fits()) lo = mid;
    else hi = mid;
  }
  stage.style.setProperty('--lf', Math.floor(lo) + 'px');
}
function keys(e) {
  var inside = e.target.closest && e.target.closest('.tk'),
    key = e.key; // arrows move between a drawing's tokens
  var to =
    { PageDown: 'next', PageUp: 'prev', Home: 'first', End: 'last', Escape: 'close' }[key] ||
    (!inside && { ArrowRight: 'next', ArrowLeft: 'prev' }[key]);
  if (!to || (inside && (key === 'Home' || key === 'End'))) return;
  e.preventDefault();
  e.stopPropagation();
  if (to === 'close' && unexplain()) return; // Esc: the explanation first, then the slides
  go(to);
}
function ids() {
  return store.get().result.stages.map(function (s) {
    return s.id;
  });
}
function go(to) {
  if (to === 'close') return close();
  if (to === 'unexplain') return unexplain();
  var all = ids(),
    k = all.indexOf(store.get().lecture.stage);
  k =
    to === 'first'
      ? 0
      : to === 'last'
        ? all.length - 1
        : Math.max(0, Math.min(all.length - 1, k + (to === 'next' ? 1 : -1)));
  store.set({ lecture: { on: true, stage: all[k] } });
}

// The slide of stage `id` of wt; `step`: coming from the previous slide (its changed cells flash).
function slide(wt, id, step, torch) {
  var all = ids(),
    k = Math.max(0, all.indexOf(id)),
    st = wt.stages[k],
    info = stageInfo(st.id);
  var prev = step && byId(wt)[shownId],
    section = tables.sections.filter(function (s) {
      return s.id === info.section;
    })[0];
  var top = el(doc, 'div', 'lh');
  el(doc, 'span', 'lc', k + 1 + ' / ' + all.length, top);
  // §3.5.1 in the chapter; past it, the repository's folder (ch04/03) as it is
  el(
    doc,
    'span',
    'ls',
    (/^\d/.test(section.number) ? '§' : '') + section.number + ' ' + section.title,
    top,
  );
  var nav = el(doc, 'span', 'ln', undefined, top);
  [
    ['prev', '← Previous'],
    ['next', 'Next →'],
    ['close', 'Leave (Esc)'],
  ].forEach(function (b) {
    el(doc, 'button', '', b[1], nav).dataset.go = b[0];
  });
  nav.querySelectorAll('button')[0].disabled = !k;
  nav.querySelectorAll('button')[1].disabled = k === all.length - 1;
  var title = el(doc, 'h2', '', st.title);
  title.id = 'lecture-title';
  box.setAttribute('aria-labelledby', title.id);
  var stage = stageBox(st, wt, { doc: doc, caption: false, torch: torch });
  // The slices' "batch element 1 of 2, head 1 of 2" stay in sight (the title is the slide's).
  if (st.shape.length > 2)
    stage.querySelectorAll('caption.sr,.hc.sr').forEach(function (c) {
      c.classList.replace('sr', 'lsub');
    });
  // Drawings scale with the slide's type: their width in em (their text is 14 px at 1em).
  stage.querySelectorAll('.dr svg').forEach(function (svg) {
    svg.parentNode.style.width = +svg.getAttribute('width') / 14 + 'em';
  });
  if (
    prev &&
    !prev.slices && // on-demand stages (lib/slices.js) are heatmaps: no cells to mark
    !st.slices &&
    prev.data.length === st.data.length &&
    prev.shape.join() === st.shape.join()
  ) {
    stage.querySelectorAll('td[data-col]').forEach(function (td, n) {
      if (fmt(prev.data[n]) !== fmt(st.data[n])) td.classList.add('chg');
    });
  }
  box.replaceChildren(top, title, el(doc, 'code', '', st.code), stage);
  shownId = st.id;
  if (box.hidden) back = doc.activeElement;
  box.hidden = false;
  fit();
  doc.documentElement.classList.add('lecturing');
  if (!box.contains(doc.activeElement)) box.focus(); // the focused cell was replaced: keys stay here
  return st.id;
}

function close() {
  var id = store.get().lecture.stage;
  store.set({ lecture: { on: false, stage: id } });
  var target = doc.querySelector('[data-stage="' + id + '"]');
  (back && back.isConnected ? back : doc.getElementById('lecture-start')).focus();
  if (target) target.scrollIntoView({ block: 'center' });
}

/** A view of the store: the slide while lecture mode is on. */
export function render(s, patch) {
  if (!box) build();
  if (!s.lecture.on) {
    if (!box.hidden) box.hidden = true; // (an attribute set again restyles: every edit's frame)
    doc.documentElement.classList.remove('lecturing');
    return;
  }
  var step = !('result' in patch) && !box.hidden && s.lecture.stage !== shownId,
    id = slide(s.result, s.lecture.stage, step, s.torch);
  if (id !== s.lecture.stage) store.set({ lecture: { on: true, stage: id } }); // an unknown stage: the first
}

/** Opens lecture mode on stage `id` (default: the first). */
export function open(id) {
  var s = store.get();
  back = doc.activeElement;
  store.set({ lecture: { on: true, stage: id || s.lecture.stage || s.result.stages[0].id } });
}
