// The page's tables: one <section> per entry of the core's section table, each stage's box in
// its section, kept from edit to edit (updated in place, or rebuilt inside for a new shape).
// Off-screen stages cost nothing while the page renders: new boxes past the first screen start
// empty (.lazy: content-visibility skips their style and layout) and boxes off screen keep
// their old tables, until they come into view or idle time after the frame brings them up to
// date one by one (so that a full-page screenshot or a print shows everything). The sections
// past the first are skipped the same way (.later) until idle time reaches their boxes, or a
// scroll brings them into view.
// main[data-complete] is set when all are.
import { el } from '../lib/dom.js';
import { info as stageInfo } from '../lib/facts.js';
import { flush as flushThumbs } from '../lib/heads.js';
import { flush as flushHeatmaps } from '../lib/heatmap.js';
import { hints as scrollHints } from '../lib/hints.js';
import { box as listBox, place } from '../lib/list.js';
import { rebuild, stage as stageBox, update as updateStage } from '../lib/render.js';
import { idleAfterFrame } from '../lib/lazy.js';
import { nonFinite } from '../lib/nonfinite.js';
import { byId, isBig } from '../lib/slices.js';
import { afterFrame } from './frame.js';
import { settle } from './store.js';

var doc = document,
  main = doc.getElementById('main'),
  lists = [], // the div.stages[data-section] (build()): the stage boxes are their children
  // FIRST_BOXES, FIRST_CELLS: the new stage boxes, and their cells, built at once (the first
  // table); the rest when seen or in idle time. Laying out the book's 60 boxes took 150 ms;
  // the book's second box (722 px down at desktop widths, past a phone's first screen) was 57
  // of the first frame's 496 elements and a fifth of its layout: it follows in the next frames.
  FIRST_BOXES = 1,
  FIRST_CELLS = 2000;
// Per box, kept off the DOM nodes: what it waits to show ([st, wt, opts]), whether it is on
// screen (true/false; absent: not known yet), and a box that builds itself (its fill function).
var pending = new WeakMap(),
  onScreen = new WeakMap(),
  fills = new WeakMap(),
  // Boxes of stages an edit took away, off screen: removed in idle time (taking a box's
  // tables out of the page costs as much as building them: 12 ms of the book's d_out edit).
  leaving = new Set(),
  // Boxes of stages gone that hold a select (a 4-D stage's batch element), by stage id: kept in
  // the page, hidden, for the stage's return. A select put in the page has Chromium scan its
  // forms for autofill 300 ms later (6-9 ms, inside the next edit's frame: the book's d_out
  // 3 -> 2 edit built 13).
  parked = {};
var stop = function () {}, // cancels the idle callback building the boxes that wait
  shows = 0, // show()'s count: a promise of an older one does not mark the page complete
  waits = []; // promises of boxes filled by code still loading (lib/lazy.js), and waitFor()'s

// Stage boxes on screen (or nearly) are updated at once; the others when they come into view,
// or in idle time.
var seen = new IntersectionObserver(
  function (entries) {
    entries.forEach(function (e) {
      var known = onScreen.has(e.target);
      onScreen.set(e.target, e.isIntersecting);
      if (e.isIntersecting) {
        catchUp(e.target);
        // A section scrolled to before idle time (by find-in-page, a screen reader, the
        // reader) is rendered and opaque at once: one that comes into view after it was seen
        // out of it. Not one on the first screen at load (its first entry): at 1,080 px the
        // second section's heading is, and moves as the first section's boxes are filled
        // (paint.test.js's layout shift), and so do those on a reload's restored screen (unless
        // restored after their first entry); after them the sections below are 1,900 px down
        // or more, past this observer's margin.
        if (known) shown(e.target);
      }
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

/** One <section> per entry of the core's section table, its stages filled in by show(). */
export function build(api) {
  // Above the sections: the stages a preset shows first (its result: exercise 3.3's heads).
  var first = el(doc, 'div', 'stages');
  first.dataset.section = 'first';
  lists = [first];
  main.replaceChildren.apply(
    main,
    [first].concat(
      api.sections.map(function (info, k) {
        var section = el(doc, 'section', beyond(api, info) ? 'part' : '');
        // Past the first section (taller than any screen: its boxes' placeholders are 22rem
        // each), skipped by the first frame's style, layout and paint (style.css): their
        // headings, intros and placeholders were 157 of the first layout's 442 objects.
        if (k) section.classList.add('later');
        var h2 = el(doc, 'h2', { id: info.id }, info.number + ' ' + info.title, section);
        section.setAttribute('aria-labelledby', h2.id);
        el(doc, 'p', '', info.intro, section);
        var d = el(doc, 'div', 'stages', undefined, section);
        d.dataset.section = info.id;
        lists.push(d);
        seen.observe(section); // on screen or not: where an edit's new boxes are built at once
        return section;
      }),
    ),
  );
}

/** The contents: every section of the core's tables (known: the module or the snapshot) and
 *  its stages (bias stages come and go with qkv_bias: left out). Built when first opened, else
 *  with the map after the first table (app.js): in a closed <details>, they were 325 of the 817
 *  elements built before the first frame. */
export function contents(known) {
  var toc = doc.getElementById('toc-list');
  if (toc.firstChild) return;
  toc.replaceChildren.apply(
    toc,
    known.sections.map(function (info) {
      var li = el(doc, 'li', beyond(known, info) ? 'part' : ''),
        stages = el(doc, 'ol');
      el(doc, 'a', { href: '#' + info.id }, info.number + ' ' + info.title, li);
      known.stages.forEach(function (s) {
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
}

/** The stage boxes in the page, in its order (found without searching the tables' cells). */
export function stageBoxes() {
  var out = [];
  lists.forEach(function (d) {
    for (var b = d.firstElementChild; b; b = b.nextElementSibling) if (b.dataset.stage) out.push(b);
  });
  return out;
}

/** Puts walkthrough res's stages in their sections (opts: render.js's). extra: {section id:
 *  [nodes]} to put after a section's stages; later: [[node, fill]], nodes of extra that build
 *  themselves (fill()) when seen or in idle time; first: ids of stages shown (and built)
 *  first, above the sections. Sections left without stages are hidden. */
export function show(res, opts, extra, later, first) {
  var want = {},
    old = {},
    cells = 0,
    built = 0,
    loading = !shows, // the page's first tables
    top = first || [];
  stageBoxes().forEach(function (b) {
    old[b.dataset.stage] = b;
  });
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
      // Off screen: updated (or rebuilt inside, for a new shape) when seen or in idle time.
      wait: function (b) {
        var later = !onScreen.get(b);
        if (later) pending.set(b, [s, res, opts]);
        return later;
      },
      // New boxes past the first screen or two of cells start empty: built when needed. At
      // load, the first boxes; after an edit, those of a section on screen.
      make: function () {
        cells += isBig(s) ? 1024 : s.data.length;
        var made = parked[s.id];
        if (made) {
          // its old tables, updated (or rebuilt inside) now on screen, else when seen or in
          // idle time
          delete parked[s.id];
          made.hidden = false;
          made.dataset.stage = s.id;
          pending.set(made, [s, res, opts]);
          if (near(section)) catchUp(made);
          else made.classList.add('lazy'); // its tables' style and layout skipped till then
        } else
          made =
            cells < FIRST_CELLS && (loading ? built++ < FIRST_BOXES : near(section))
              ? stageBox(s, res, opts)
              : placeholder(s, res, opts);
        made.id = s.id; // every stage is an anchor: index.html#stage=ID (or #ID) scrolls to it
        seen.observe(made);
        return made;
      },
    });
    if (leaving.delete(box)) seen.observe(box); // back before it was removed
    (want[section] || (want[section] = [])).push(box);
  });
  Object.keys(old).forEach(function (id) {
    var b = old[id];
    seen.unobserve(b);
    pending.delete(b);
    if (onScreen.get(b) === false) leaving.add(b);
  });
  Object.keys(extra).forEach(function (id) {
    want[id] = (want[id] || []).concat(extra[id]);
  });
  later.forEach(function (l) {
    fills.set(l[0], l[1]);
    seen.observe(l[0]);
  });
  lazy(want);
  // A section's boxes are moved only where its list changed (lib/list.js); those leaving
  // stay until idle time. A section left without stages is hidden (at once when on screen).
  lists.forEach(function (d) {
    var list = want[d.dataset.section] || [],
      sec = d.parentNode;
    place(d, list, held);
    if (
      sec.tagName === 'SECTION' &&
      sec.hidden !== !list.length &&
      (list.length || !d.children.length || onScreen.get(sec))
    )
      sec.hidden = !list.length;
  });
  // After the frame: its layout is clean then, and measuring costs nothing; measuring before
  // forced a layout of its own (25 ms of the book's load).
  afterFrame(hints);
}
/** The stages an edit runs first (app.js, page/compute.js's quick()): those of the sections
 *  whose boxes are on screen (or nearly), with every stage they read (a dropout's pattern,
 *  masked_simple_norm under attn_weights_causal: what their boxes show). api: the module. */
export function visible(api) {
  var sections = {},
    want = {};
  function add(id) {
    if (want[id]) return;
    want[id] = 1;
    stageInfo(id).operands.forEach(function (o) {
      add(o.id);
    });
  }
  add('inputs'); // none asked for would ask for all
  stageBoxes().forEach(function (b) {
    if (!onScreen.get(b)) return;
    sections[stageInfo(b.dataset.stage).section] = 1;
    add(b.dataset.stage); // a bias stage: qkv_bias is on
  });
  api.stages.forEach(function (s) {
    if (sections[s.section] && !s.bias) add(s.id);
  });
  return Object.keys(want);
}

/** Shows walkthrough res (a run of visible()'s stages) in the boxes on screen, at once, as
 *  show() would (opts: render.js's); the boxes off screen wait for show() with the whole run.
 *  false, changing nothing, when a box on screen has no stage in res (show() takes it away), or
 *  res holds inf or NaN (where they first appear, noted, is the whole run's to say). */
export function preview(res, opts) {
  var by = byId(res),
    boxes = stageBoxes().filter(function (b) {
      return onScreen.get(b);
    });
  if (
    Object.keys(nonFinite(res)).length ||
    !boxes.every(function (b) {
      return by[b.dataset.stage];
    })
  )
    return false;
  restart(); // not complete until show(): its boxes wait for it
  boxes.forEach(function (b) {
    var s = by[b.dataset.stage];
    if (!updateStage(b, s, res, opts)) rebuild(b, s, res, opts);
  });
  return true;
}

// Kept in a list though not in it: boxes leaving, and hidden ones (parked boxes; a note hidden
// stays as well).
function held(box) {
  return leaving.has(box) || box.hidden;
}
// Whether the section (or the stages above the sections) is on screen, or nearly.
function near(id) {
  var d = lists.filter(function (x) {
    return x.dataset.section === id;
  })[0];
  return id === 'first' || !!(d && onScreen.get(d.parentNode));
}
// Takes the boxes leaving out of the page, and hides the sections left empty.
function leave(box) {
  leaving.delete(box);
  var d = box.parentNode;
  if (box.querySelector('.pick')) {
    parked[box.dataset.stage] = box;
    box.hidden = true;
    delete box.dataset.stage;
    box.id = '';
  } else box.remove();
  // nothing left shown (parked boxes are hidden)
  if (d && !d.querySelector(':scope>:not([hidden])') && d.parentNode.tagName === 'SECTION')
    d.parentNode.hidden = true;
}

function catchUp(box) {
  var p = pending.get(box),
    fill = fills.get(box); // not a stage: a box that builds itself ("why", lecture.js)
  fills.delete(box);
  var filling = fill && fill();
  if (filling && filling.then) waits.push(filling);
  pending.delete(box);
  // an empty placeholder, or a box of another shape: built inside
  if (p && (!box.firstChild || !updateStage(box, p[0], p[1], p[2]))) rebuild(box, p[0], p[1], p[2]);
}
// An empty stage box, to be filled by catchUp().
function placeholder(s, res, opts) {
  var box = el(doc, 'div', 'stage');
  box.dataset.stage = s.id;
  box.dataset.shape = s.shape.join();
  pending.set(box, [s, res, opts]);
  return box;
}
// main[data-complete] off and an older show()'s idle queue stopped; the new show()'s count.
function restart() {
  delete main.dataset.complete;
  stop();
  return ++shows;
}

function lazy(want) {
  var queue = Array.from(leaving);
  Object.keys(want).forEach(function (k) {
    want[k].forEach(function (box) {
      // Only empty placeholders skip rendering (.lazy): re-marking a built box whose update
      // waits restyled it, and made each edit's frame run its lifecycle twice.
      if (pending.has(box) && !box.firstChild) box.classList.add('lazy');
      if (pending.has(box) || fills.has(box) || box.classList.contains('lazy')) queue.push(box);
    });
  });
  var show = restart();
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
      if (leaving.has(box)) {
        leave(box);
        continue;
      }
      if (!box.isConnected) continue;
      catchUp(box);
      box.classList.remove('lazy');
      shown(box.closest('section'));
      void box.offsetHeight; // its layout (and its section's), now, within the idle period
      flushHeatmaps(box);
      waits.push(flushThumbs(box)); // heads computed on demand: complete when painted
    }
    if (queue.length) stop = idleAfterFrame(step, 250);
    else {
      shownAll();
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
  stop = idleAfterFrame(step, 250);
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

// A section skipped by the first frame (.later), rendered from now on.
function shown(section) {
  if (section && section.tagName === 'SECTION') section.classList.remove('later');
}
function shownAll() {
  lists.forEach(function (d) {
    shown(d.parentNode);
  });
}

/** Scrolls to a stage or section. The boxes above it that wait to be built are built first,
 *  and the sections rendered: filled later, their real heights would move it from where it
 *  was scrolled to. */
export function jump(target) {
  settle(); // an edit shown in part: the boxes above show all of it
  shownAll();
  leaving.forEach(leave);
  var waiting = stageBoxes();
  for (var i = 0; i < waiting.length; i++) {
    var box = waiting[i];
    if (target.compareDocumentPosition(box) & target.DOCUMENT_POSITION_FOLLOWING) break;
    if (!pending.has(box) && !fills.has(box)) continue;
    catchUp(box);
    box.classList.remove('lazy');
  }
  target.scrollIntoView();
}

/** Scroll hints. Tables in boxes or sections known to be off screen (.lazy, .later and not
 *  seen: their layout is skipped) are left out: measuring one would force its layout (at
 *  T = 32, ~100 ms of every edit). They get theirs once idle time has built them all. */
export function hints() {
  scrollHints(doc, function (s) {
    var box = s.closest('.lazy, .later'); // the nearest: a box inside a section
    return !box || onScreen.get(box) !== false;
  });
}
