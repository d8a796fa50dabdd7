// The page: wires the settings form, the store, the URL and the views. An edit reads the form
// into a configuration, computes it (page/compute.js) and puts the result in the store; the
// views (the chapter's tables, the explanation panel, lecture mode, the status line) and the
// URL follow the store. The book's page paints from the run computed at build time
// (page/book.js) and loads the module (causal-attention.js: the wasm) after, for edits.
// index.html loads this file with blocking="render": the first frame waits for it, which paints
// the book's tables from the run computed at build time (other links load the module first):
// painting the page without its tables first delayed them by its 30-50 ms of layout. (The
// explanation lives here, not in index.html, whose every byte comes before the first table.)
import { load as loadModule } from './lib/api.js';
import { idleAfterFrame, MODULE as MODULE_FILE, preload } from './lib/lazy.js';
import { book as snapshot, isBook } from './page/book.js';
import { bind as bindExports } from './lib/export.js';
import { f32 } from './lib/format.js';
import { setAbsolute } from './lib/scale.js';
import { watchHints } from './lib/hints.js';
import { styleSheet } from './lib/styles.js';
import * as chapter from './page/chapter.js';
import { compute, quick, remember, warm } from './page/compute.js';
import * as editor from './page/editor.js';
import * as form from './page/form.js';
import { pageLater, pageLoaded, preloadPage } from './page/later-load.js';
import * as panel from './page/panel.js';
import * as stages from './page/stages.js';
import * as store from './page/store.js';
import * as url from './page/url.js';

var doc = document,
  $ = function (id) {
    return doc.getElementById(id);
  },
  fields = $('controls').elements,
  api = null, // the module, once loaded
  known = null, // the core's tables: the module, or before it the snapshot's (page/book.js)
  book = null, // the book's resolved configuration, its inputs as typed (0.43, not float32's)
  missed = null; // a hash navigated to before the module was in

// The tables' stylesheet ships inside causal-attention.js, shared with <causal-attention-demo>.
doc.adoptedStyleSheets = doc.adoptedStyleSheets.concat(styleSheet());

// Views, in this order: the URL (an edit's hash is written after its frame is painted:
// page/url.js), the tables, the panel, lecture mode, the status line.
url.start(function (hash) {
  if (api) navigate(hash);
  else missed = hash; // followed once the module is in
});
// The map of the chapter (app-later.js): drawn once loaded, after the first table; after an
// edit, in the frame after the edit's (a task after its frame ran before the frame's other
// tasks, and a frame's end is seen by one): drawing a new shape's map in the edit's frame was
// a fifth of the book's d_out edit's script. main[data-complete] waits for it.
var mapFrame = 0;
store.subscribe(function (s, patch) {
  if ('result' in patch || 'torch' in patch || 'absolute' in patch) chapter.render(known, s);
  if ('result' in patch && pageLoaded() && !mapFrame)
    stages.waitFor(
      new Promise(function (drawn) {
        mapFrame = requestAnimationFrame(function () {
          requestAnimationFrame(function () {
            mapFrame = 0;
            drawn(pageLoaded().map.render(store.get()));
          });
        });
      }),
    );
});
panel.start();
// Lecture mode is in app-later.js (page/later-load.js): loaded when it is first turned on, or
// in idle time after the first table.
store.subscribe(function (s, patch) {
  if (!('result' in patch || 'lecture' in patch || 'torch' in patch || 'absolute' in patch)) return;
  if (pageLoaded()) pageLoaded().lecture.render(s, patch);
  else if (s.lecture.on)
    pageLater().then(function (m) {
      m.lecture.render(store.get(), patch);
    });
});
store.subscribe(function (s, patch) {
  if ('message' in patch) $('status').textContent = s.message;
});

// An edit: the form's configuration computed and shown (source: the changed control's name;
// tokens: labels to use; then(res) after it is shown, failed() when the core refused it).
// What the screen shows first: the stages of the sections on screen are run and shown in the
// handler, the whole run (the boxes off screen, the views, the map) in idle time after the
// edit's frame, or when the state is read before (page/store.js). The whole run in the handler
// was most of the book's dropout and d_out edits' script, and changed nothing on screen.
var partial = null, // the edit shown in part: its stages' run (its config, resolved)
  stop = function () {}; // cancels its whole run's idle callback (a newer edit replaces it)
function apply(source, sourceElement, tokens, then, failed) {
  store.defer(null); // an edit shown in part: this one replaces it
  var s = store.get(),
    c = form.read(api, book, (partial || s.result).config, tokens),
    part =
      !then &&
      !s.preset &&
      !s.picked &&
      !s.lecture.on &&
      !editor.pendingTokens() &&
      quick(api, c, stages.visible(api));
  function all() {
    partial = null;
    compute(
      api,
      c,
      store.get().preset,
      function (res) {
        form.clearErrors();
        store.set({ result: res, config: c, anchor: null, keepHash: false, message: '' });
        if (editor.pendingTokens() && source !== 'randn') {
          // an edit overtook a heavy randomize: its editor
          editor.setPendingTokens(null);
          editor.build(editor.modelFor(res, {}));
        }
        if (then) then(res);
      },
      function (msg) {
        form.showError(msg, source, sourceElement);
        if (failed) failed();
      },
    );
  }
  if (!part || !stages.preview(part, { doc: doc, embed: true, torch: s.torch })) return all();
  partial = part;
  form.clearErrors();
  store.set({ config: c, anchor: null, keepHash: false, message: '' }); // the URL
  store.defer(all);
  stop();
  stop = idleAfterFrame(store.settle, 100);
}

// Shows the state of a URL hash (or the book's, with a message, when it is not valid), and
// scrolls to the stage or section it names.
function navigate(hash, then) {
  var next;
  store.defer(null); // an edit shown in part is replaced
  partial = null;
  function shown(res, msg) {
    show(next, res, msg);
    if (then) then();
  }
  function invalid(message) {
    next = { config: {}, preset: null, anchor: null, lecture: { on: false, stage: '' } };
    compute(api, {}, null, function (res) {
      shown(res, 'Invalid link (' + message + '): showing the book instead.');
    });
  }
  try {
    next = url.read(hash, api);
  } catch (e) {
    return invalid(e.message);
  }
  compute(
    api,
    next.config,
    next.preset,
    function (res) {
      shown(res, '');
    },
    invalid,
  );
}

// Shows state `next` (url.read's) with its result res, and msg in the status line.
function show(next, res, msg) {
  form.show(known, next.config, res);
  form.clearErrors();
  store.set({
    result: res,
    config: next.config,
    preset: next.preset,
    lecture: next.lecture,
    anchor: null,
    keepHash: !!msg, // an invalid link stays in the address bar
    message: msg,
  });
  var target = next.anchor && $(next.anchor);
  if (target) {
    stages.jump(target);
    if (!msg) store.set({ anchor: next.anchor }); // in the hash until an edit
  }
}

function randomize() {
  var r = form.randnFields(),
    T = r.randn[0],
    old = editor.randn(),
    model = editor.read(),
    tokens = (model || store.get().result.config).tokens;
  editor.setRandn(r, true);
  if (T > 0 && T <= api.limits.max_tokens)
    tokens = tokens.slice(0, T).concat(api.defaultTokens(T).slice(tokens.length)); // keep the labels typed
  editor.setPendingTokens(tokens); // the labels of edits made before a heavy run's editor is built
  apply(
    'randn',
    fields.randn_tokens,
    tokens,
    function (res) {
      editor.setPendingTokens(null);
      editor.build(editor.modelFor(res, {}));
    },
    function () {
      editor.setPendingTokens(null);
      editor.setRandn(old, true);
    },
  );
}

// The link to the current settings (and to a stage): "Copy link" in the header, "Link" under
// every stage. Where the clipboard is refused, the link shows selected, to copy by hand.
function copyLink(stage, msg) {
  var out = $('link-out'),
    link = url.link(stage);
  out.value = link;
  out.hidden = false;
  var clip = navigator.clipboard;
  (clip ? clip.writeText(link) : Promise.reject()).then(
    function () {
      msg.textContent = 'Link copied. ';
    },
    function () {
      out.select();
    },
  );
}

// The element a hash names (#s3, #mha.queries) when the page has it, else null.
function anchor(hash) {
  try {
    return $(decodeURIComponent(hash));
  } catch (e) {
    return null;
  }
}

// The module, loaded once (the book's page paints without it and asks for it after).
function module() {
  return loadModule().then(function (loaded) {
    api = known = loaded;
    return api;
  });
}
// fn, once the module is loaded: at once, or after it arrives.
function withApi(fn) {
  return function () {
    var args = arguments;
    if (api) return fn.apply(null, args);
    module().then(function () {
      fn.apply(null, args);
    });
  };
}

function bind() {
  var form$ = $('controls'),
    main = $('main');
  form$.addEventListener(
    'input',
    withApi(function (e) {
      var target = e.target,
        name = target.name;
      if (!name || /^randn_/.test(name)) return;
      if (name === 'inputs' && editor.randn()) editor.setRandn(null); // the same values, now as typed in
      apply(name, target);
    }),
  );
  // A button clicked before the module is in waits for it, then is clicked.
  form$.addEventListener(
    'click',
    function (e) {
      var button = !api && e.target.closest('button');
      if (!button) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      module().then(function () {
        button.click();
      });
    },
    true,
  );
  form$.addEventListener('submit', function (e) {
    e.preventDefault();
    if (e.submitter === fields.randomize || /^randn_/.test(doc.activeElement.name))
      withApi(randomize)();
  });
  form$.addEventListener('click', function (e) {
    if (e.target.id === 'reset') navigate('');
  });
  editor.bind(
    function (n) {
      return known.defaultTokens(n);
    },
    function (source) {
      apply(source);
    },
  );
  // The skip link moves focus to the tables without touching the hash (which holds the settings).
  doc.querySelector('.skip').addEventListener('click', function (e) {
    e.preventDefault();
    main.focus();
    main.scrollIntoView();
  });
  $('copy-link').addEventListener('click', function () {
    copyLink(undefined, $('link-msg'));
  });
  main.addEventListener('click', function (e) {
    var id = e.target.dataset && e.target.dataset.link;
    if (id) copyLink(id, e.target.parentNode.querySelector('.msg'));
  });
  bindExports(
    main,
    function () {
      return store.get().result;
    },
    function () {
      return store.get().config;
    },
  );
  $('torch-format').addEventListener('change', function (e) {
    store.set({ torch: e.target.checked });
  });
  $('scale-absolute').addEventListener('change', function (e) {
    setAbsolute(e.target.checked); // lib/scale.js: every table, key, heatmap and drawing reads it
    store.set({ absolute: e.target.checked });
  });
  // The contents jump without touching the hash, which holds the settings.
  $('toc').addEventListener('click', function (e) {
    stages.contents(known); // before a click on its summary opens it
    var link = e.target.closest('a'),
      target = link && anchor(link.getAttribute('href').slice(1));
    if (!target) return;
    e.preventDefault();
    stages.jump(target);
  });
  watchHints(doc); // a table scrolled sideways: its fades follow
  addEventListener('resize', stages.hints);
}

// The page's button into lecture mode, from the first stage.
var start = doc.createElement('button');
start.textContent = 'Lecture mode';
start.title = 'One stage at a time, full screen; arrow keys move';
start.id = 'lecture-start';
start.type = 'button';
start.addEventListener('click', function () {
  pageLater().then(function (m) {
    m.lecture.open(store.get().result.stages[0].id);
  });
});
$('torch-format').parentNode.before(start);

// Beside the tables (style.css's two columns, 64em and wider): the settings are hidden until
// the map is drawn above them (painted()), which takes them off a first screen 800 px tall: in
// the first frame they were a tenth of its main-thread time, and then moved 550 px down when
// the map came in. One column (phones, tablets upright): closed, so that the first table is on
// the first screen (open, they and the map put it ~3,300 px down at 800 x 1024).
var settings = $('settings'),
  wide = matchMedia('(min-width: 64em)').matches;
settings.open = settings.hidden = wide;

// The page's first tables: the book's snapshot when the URL asks for the book (no module
// before them), else the module's run.
function started(loaded, first) {
  known = loaded;
  form.start();
  stages.build(known);
  remember(first);
  book = Object.assign({}, first.config);
  book.inputs = book.inputs.map(function (r) {
    return r.map(function (x) {
      return +f32(x);
    });
  });
  bind();
}
// After the first table: the rest of the page's code (main[data-complete] waits for it).
function painted() {
  doc.documentElement.dataset.ready = '1';
  stages.waitFor(
    preloadPage()
      .then(function (m) {
        stages.contents(known);
        m.map.render(store.get());
      })
      .catch(function () {})
      .then(function () {
        settings.hidden = false;
      }),
  );
}
function failed(e) {
  $('status').textContent = 'The page could not start: ' + e.message;
  doc.documentElement.dataset.ready = 'error';
}

var snap = snapshot(),
  hash = location.hash,
  next = null;
try {
  next = snap && url.read(hash, snap.known);
} catch (e) {
  next = null; // the module says what is wrong with it
}
if (next && isBook(next)) {
  started(snap.known, snap.result);
  show(next, snap.result, '');
  painted();
  // The module, for edits: in idle time after the first table (an edit before asks for it).
  stages.waitFor(
    preload(MODULE_FILE)
      .then(module)
      .then(function () {
        if (missed !== null) navigate(missed);
      })
      .catch(failed),
  );
} else {
  if (next && next.preset) warm(); // exercise 3.3's Workers load their modules meanwhile
  loadModule()
    .then(function (loaded) {
      api = loaded;
      started(api, api.run({}));
      navigate(location.hash, painted);
    })
    .catch(failed);
}
