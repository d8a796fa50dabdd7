// The page's tables: one <section> per entry of the core's section table, each stage's box in
// its section, updated in place for new values of the same shape. Off-screen stages cost
// nothing while the page renders: new boxes past the first screen start empty (.lazy:
// content-visibility skips their style and layout) and boxes off screen keep their old tables,
// until they come into view or idle time after the frame builds them one by one (so that a
// full-page screenshot or a print shows everything). main[data-complete] is set when all are.
import { el } from '../lib/dom.js';
import { info as stageInfo } from '../lib/facts.js';
import { flush as flushThumbs } from '../lib/heads.js';
import { flush as flushHeatmaps } from '../lib/heatmap.js';
import { hints as scrollHints } from '../lib/hints.js';
import { box as listBox, boxes, place } from '../lib/list.js';
import { stage as stageBox, update as updateStage } from '../lib/render.js';
import { isBig } from '../lib/slices.js';

var doc = document,
  main = doc.getElementById('main'),
  // FIRST_BOXES, FIRST_CELLS: the new stage boxes, and their cells, built at once (the first
  // screen); the rest when seen or in idle time. Laying out the book's 60 boxes took 150 ms.
  FIRST_BOXES = 2,
  FIRST_CELLS = 2000;
// Per box, kept off the DOM nodes: what it waits to show ([st, wt, opts]), whether it is on
// screen (true/false; absent: not known yet), and a box that builds itself (its fill function).
var pending = new WeakMap(),
  onScreen = new WeakMap(),
  fills = new WeakMap();
var job = 0, // the idle callback building the boxes that wait
  frame = 0, // the frame after which it is scheduled
  hintFrame = 0, // the frame after which scroll hints are measured
  shows = 0, // show()'s count: a promise of an older one does not mark the page complete
  waits = []; // promises of boxes filled by code still loading (lib/lazy.js), and waitFor()'s
var idle =
  globalThis.requestIdleCallback ||
  function (f) {
    return setTimeout(f, 50);
  };
var unidle = globalThis.cancelIdleCallback || clearTimeout;

// Stage boxes on screen (or nearly) are updated at once; the others when they come into view,
// or in idle time.
var seen = new IntersectionObserver(
  function (entries) {
    entries.forEach(function (e) {
      onScreen.set(e.target, e.isIntersecting);
      if (e.isIntersecting) catchUp(e.target);
    });
  },
  { rootMargin: '300px' },
);

// The first section past the chapter's (its number is the book repository's folder, e.g.
// "ch04/03", not §3.x): the contents and the page mark where the chapter ends.
function beyond(api, info) {
  var first = api.sections.filter(function (s) {
    return !/^\d/.test(s.number);
  })[0];
  return first === info;
}

/** One <section> per entry of the core's section table, its stages filled in by show(), and
 *  the contents: every section and its stages (bias stages come and go with qkv_bias: left out). */
export function build(api) {
  var toc = doc.getElementById('toc-list');
  toc.replaceChildren.apply(
    toc,
    api.sections.map(function (info) {
      var li = el(doc, 'li', beyond(api, info) ? 'part' : ''),
        stages = el(doc, 'ol');
      el(doc, 'a', { href: '#' + info.id }, info.number + ' ' + info.title, li);
      api.stages.forEach(function (s) {
        if (s.section === info.id && !s.bias)
          el(
            doc,
            'code',
            '',
            s.id,
            el(doc, 'a', { href: '#' + s.id }, undefined, el(doc, 'li', '', undefined, stages)),
          );
      });
      li.appendChild(stages);
      return li;
    }),
  );
  // Above the sections: the stages a preset shows first (its result: exercise 3.3's heads).
  var first = el(doc, 'div', 'stages');
  first.dataset.section = 'first';
  main.replaceChildren.apply(
    main,
    [first].concat(
      api.sections.map(function (info) {
        var section = el(doc, 'section', beyond(api, info) ? 'part' : ''),
          h2 = el(doc, 'h2', { id: info.id }, info.number + ' ' + info.title, section);
        section.setAttribute('aria-labelledby', h2.id);
        el(doc, 'p', '', info.intro, section);
        el(doc, 'div', 'stages', undefined, section).dataset.section = info.id;
        return section;
      }),
    ),
  );
}

/** Puts walkthrough res's stages in their sections (opts: render.js's). extra: {section id:
 *  [nodes]} to put after a section's stages; later: [[node, fill]], nodes of extra that build
 *  themselves (fill()) when seen or in idle time; first: ids of stages shown (and built)
 *  first, above the sections. Sections left without stages are hidden. */
export function show(res, opts, extra, later, first) {
  var lists = {},
    old = boxes(main),
    cells = 0,
    built = 0,
    top = first || [];
  var order = res.stages.filter(function (s) {
    return top.indexOf(s.id) >= 0;
  });
  order = order.concat(
    res.stages.filter(function (s) {
      return top.indexOf(s.id) < 0;
    }),
  );
  order.forEach(function (s) {
    var section = top.indexOf(s.id) >= 0 ? 'first' : stageInfo(s.id).section;
    var box = listBox(old, s, res, opts, {
      // off screen with the same shape: updated when seen or in idle time
      wait: function (b) {
        var later = !onScreen.get(b) && b.dataset.shape === s.shape.join();
        if (later) pending.set(b, [s, res, opts]);
        return later;
      },
      // New boxes past the first screen or two of cells start empty: built when needed.
      make: function (b) {
        if (b) seen.unobserve(b);
        cells += isBig(s) ? 1024 : s.data.length;
        var made =
          (b && onScreen.get(b)) || (cells < FIRST_CELLS && built++ < FIRST_BOXES)
            ? stageBox(s, res, opts)
            : placeholder(s, res, opts);
        made.id = s.id; // every stage is an anchor: index.html#stage=ID (or #ID) scrolls to it
        seen.observe(made);
        return made;
      },
    });
    (lists[section] || (lists[section] = [])).push(box);
  });
  Object.keys(old).forEach(function (id) {
    seen.unobserve(old[id]);
  });
  Object.keys(extra).forEach(function (id) {
    lists[id] = (lists[id] || []).concat(extra[id]);
  });
  later.forEach(function (l) {
    fills.set(l[0], l[1]);
    seen.observe(l[0]);
  });
  lazy(lists);
  // A section's boxes are moved only when its list changed (lib/list.js).
  main.querySelectorAll('[data-section]').forEach(function (d) {
    var want = lists[d.dataset.section] || [];
    place(d, want);
    if (d.parentNode.tagName === 'SECTION') d.parentNode.hidden = !want.length;
  });
  hintsAfterFrame();
}

function catchUp(box) {
  var p = pending.get(box),
    fill = fills.get(box); // not a stage: a box that builds itself ("why", lecture.js)
  fills.delete(box);
  var filling = fill && fill();
  if (filling && filling.then) waits.push(filling);
  pending.delete(box);
  if (p && !box.firstChild)
    box.replaceChildren.apply(
      box,
      Array.prototype.slice.call(stageBox(p[0], p[1], p[2]).childNodes),
    );
  else if (p) updateStage(box, p[0], p[1], p[2]);
}
// An empty stage box, to be filled by catchUp().
function placeholder(s, res, opts) {
  var box = el(doc, 'div', 'stage');
  box.dataset.stage = s.id;
  box.dataset.shape = s.shape.join();
  pending.set(box, [s, res, opts]);
  return box;
}
function lazy(lists) {
  var queue = [];
  Object.keys(lists).forEach(function (k) {
    lists[k].forEach(function (box) {
      // Only empty placeholders skip rendering (.lazy): re-marking a built box whose update
      // waits restyled it, and made each edit's frame run its lifecycle twice.
      if (pending.has(box) && !box.firstChild) box.classList.add('lazy');
      if (pending.has(box) || fills.has(box) || box.classList.contains('lazy')) queue.push(box);
    });
  });
  delete main.dataset.complete;
  var show = ++shows;
  unidle(job);
  cancelAnimationFrame(frame);
  function step(deadline) {
    // At least one box per call: idle periods shorter than 3 ms (a busy page) must not
    // starve the queue.
    for (
      var first = true;
      queue.length &&
      (first || !deadline || !deadline.timeRemaining || deadline.timeRemaining() > 3);
      first = false
    ) {
      var box = queue.shift();
      catchUp(box);
      box.classList.remove('lazy');
      void box.offsetHeight; // its layout, now, within the idle period
      flushHeatmaps(box);
      waits.push(flushThumbs(box)); // heads computed on demand: complete when painted
    }
    if (queue.length) job = idle(step, { timeout: 250 });
    else {
      waits.push(flushThumbs(main)); // the first screen's too: complete once they are painted
      var all = waits.slice(),
        complete = function () {
          waits = waits.filter(function (w) {
            return all.indexOf(w) < 0;
          });
          if (show !== shows) return;
          main.dataset.complete = '1';
          hints(); // scroll hints of the tables built late
        };
      Promise.all(all).then(complete, complete);
    }
  }
  // After the frame being prepared: an idle period before it would delay its paint.
  frame = requestAnimationFrame(function () {
    job = idle(step, { timeout: 250 });
  });
}

/** main[data-complete] waits for promise p too (the code loaded after the first table). */
export function waitFor(p) {
  var show = shows;
  waits.push(p);
  if (!main.dataset.complete) return; // the idle queue waits for it
  delete main.dataset.complete;
  p.then(null, function () {}).then(function () {
    if (show === shows) main.dataset.complete = '1';
  });
}

/** Scrolls to a stage or section. The boxes above it that wait to be built are built first:
 *  filled later, their real heights would move it from where it was scrolled to. */
export function jump(target) {
  var waiting = main.querySelectorAll('.lazy');
  for (var i = 0; i < waiting.length; i++) {
    var box = waiting[i];
    if (target.compareDocumentPosition(box) & target.DOCUMENT_POSITION_FOLLOWING) break;
    catchUp(box);
    box.classList.remove('lazy');
  }
  target.scrollIntoView();
}

/** Scroll hints. Tables in boxes known to be off screen (.lazy and not seen: their layout is
 *  skipped) are left out: measuring one would force its layout (at T = 32, ~100 ms of every
 *  edit). They get theirs once idle time has built them all. */
export function hints() {
  scrollHints(doc, function (s) {
    var box = s.closest('.lazy');
    return !box || onScreen.get(box) !== false;
  });
}
// After show(): once the frame is painted its layout is clean, and measuring costs nothing;
// measuring before forced a layout of its own (25 ms of the book's load).
function hintsAfterFrame() {
  if (hintFrame) return;
  hintFrame = requestAnimationFrame(function () {
    setTimeout(function () {
      hintFrame = 0;
      hints();
    });
  });
}
