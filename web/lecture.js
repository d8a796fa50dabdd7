// Lecture mode (issue 8): one stage at a time over the whole window, in large type (title,
// PyTorch line, table, drawing). ←/→ or PageUp/PageDown (what presentation clickers send)
// move, Home/End jump, Esc leaves. A view of the store's `lecture` {on, stage} and `result`;
// the URL (page/url.js) names the slide: #stage=attn_weights_causal&lecture. Cells that change
// from the previous slide flash (not under prefers-reduced-motion).
import { el } from './lib/dom.js';
import { bind as bindDrawings } from './lib/draw.js';
import { info as stageInfo, tables } from './lib/facts.js';
import { fmt } from './lib/format.js';
import { stage as stageBox } from './lib/render.js';
import { byId } from './lib/slices.js';
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
  go(to);
}
function ids() {
  return store.get().result.stages.map(function (s) {
    return s.id;
  });
}
function go(to) {
  if (to === 'close') return close();
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
  el(doc, 'span', 'ls', '§' + section.number + ' ' + section.title, top);
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
  if (prev && prev.data.length === st.data.length && prev.shape.join() === st.shape.join()) {
    stage.querySelectorAll('td[data-col]').forEach(function (td, n) {
      if (fmt(prev.data[n]) !== fmt(st.data[n])) td.classList.add('chg');
    });
  }
  box.replaceChildren(top, title, el(doc, 'code', '', st.code), stage);
  shownId = st.id;
  if (box.hidden) back = doc.activeElement;
  box.hidden = false;
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
    box.hidden = true;
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
