// The chapter view: the store's result as tables in their sections (stages.js), with what
// goes between them: exercise 3.3's link after §3.6, "Why are my numbers different?" after the
// dropout tables, §3.6's error when d_out does not divide into num_heads, and the preset's note.
import { load } from '../lib/api.js';
import { el } from '../lib/dom.js';
import { grouped } from '../lib/format.js';
import { info as stageInfo } from '../lib/facts.js';
import { pageLater } from './later-load.js';
import { byId } from '../lib/slices.js';
import * as stages from './stages.js';
import * as steps from './steps.js';

var doc = document,
  main = doc.getElementById('main'),
  exercise = null, // exercise 3.3's paragraph, built once
  why = null; // "Why are my numbers different?" (why.js fills it), the same box every render

// The box under the dropout tables when dropout is on in train mode (a preset without the
// dropout demo: none) and the function that fills it when seen or in idle time (a second run
// and four tables were 8 ms of every edit), with why.js from app-later.js and the module (the
// book's page paints before it is in).
function whyBox(res, c) {
  var cfg = res.config;
  if (!cfg.train || !cfg.dropout || !byId(res).dropout_example) return null;
  if (!why) why = el(doc, 'aside', 'why');
  return [
    why,
    function () {
      return Promise.all([pageLater(), load()]).then(function (m) {
        m[0].why.fill(why, m[1], res, c);
      });
    },
  ];
}

function exerciseLink() {
  var p = el(doc, 'p', 'exercise'),
    a = el(doc, 'a', { href: '#preset=gpt2', id: 'gpt2' }, 'the smallest GPT-2’s attention');
  p.append(
    'Exercise 3.3: the same module at ',
    a,
    ': 12 heads over 1024 tokens of 768 features, computed in a Worker.',
  );
  return p;
}

// Above the tables while a preset is shown: what it is, its parameter count (the weights and
// biases it computed) and the way back to the whole chapter.
function presetNote(api, res, preset) {
  var note = doc.getElementById('preset-note');
  if (!note) {
    note = el(doc, 'p', { id: 'preset-note', className: 'hint' });
    main.prepend(note); // inside main: the page's grid keeps its two columns
  }
  if (note.hidden !== !preset) note.hidden = !preset;
  if (!preset) return;
  var params = res.stages.reduce(function (n, s) {
    return /^mha\.(W_|b_|out_proj)/.test(s.id) ? n + s.data.length : n;
  }, 0);
  note.replaceChildren(
    api.presets[preset].description +
      ': only its stages are computed, in a Worker; ' +
      grouped(params) +
      ' parameters. Back to ',
    el(doc, 'a', { href: '#' }, 'the whole chapter'),
    '.',
  );
}

// The settings of the book's steps that a preset (MultiHeadAttention alone) does not read:
// §3.3-3.4's query token and v1 seed, SelfAttention_v2's weights, the dropout example's p.
// Marked data-book (style.css hides them under .preset), and a fieldset left empty with them.
var BOOK_ONLY = ['query_token', 'seed_v1', 'seed_weights', 'dropout'],
  marked = false; // once: the form does not change
function bookOnly() {
  if (marked) return;
  marked = true;
  BOOK_ONLY.forEach(function (k) {
    var f = doc.getElementById(k);
    if (f) f.parentNode.setAttribute('data-book', '');
  });
  doc.querySelectorAll('#settings fieldset').forEach(function (set) {
    var rows = set.querySelectorAll(':scope > .f, :scope > .c');
    if (rows.length && set.querySelectorAll(':scope > [data-book]').length === rows.length)
      set.setAttribute('data-book', '');
  });
}

/** Renders state s (its result, config, preset, torch) with the core's tables `api` (the
 *  module, or before it the book's snapshot: page/book.js). */
export function render(api, s) {
  var res = s.result,
    has = {},
    extra = {},
    later = [];
  res.stages.forEach(function (st) {
    has[stageInfo(st.id).section] = true;
  });
  if (has.mha && !s.preset) extra.mha = [exercise || (exercise = exerciseLink())];
  var box = whyBox(res, s.config);
  if (box && has.s4) {
    extra.s4 = [box[0]];
    later.push(box);
  }
  if (
    !has.mha &&
    api.sections.some(function (x) {
      return x.id === 'mha';
    })
  ) {
    // d_out not divisible by num_heads: the core's message where §3.6's tables would be
    try {
      api.run(s.config, { stages: ['mha.context_vecs'] });
    } catch (e) {
      extra.mha = [el(doc, 'p', 'err', e.message)];
    }
  }
  // A preset shows its result first: exercise 3.3's heads, on the first screen.
  stages.show(
    res,
    { doc: doc, embed: true, torch: s.torch },
    extra,
    later,
    s.preset ? ['mha.attn_weights'] : [],
  );
  if (has.kv) steps.show(res.config.tokens.length); // the KV cache's step slider
  presetNote(api, res, s.preset);
  // The sidebar shows the preset's own settings: the others' fields (data-book) are hidden.
  bookOnly();
  doc.getElementById('controls').classList.toggle('preset', !!s.preset);
}
