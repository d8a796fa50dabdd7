// The page controller: settings <-> config <-> URL hash; runs the walkthrough, renders it.
(function () {
  'use strict';
  var CA = globalThis.CausalAttention,
    R = CA.render,
    H = CA.hash,
    doc = document;
  var $ = function (id) {
    return doc.getElementById(id);
  };
  var form = $('controls'),
    fields = form.elements,
    main = $('main'),
    status = $('status'),
    editor = $('inputs-editor');
  var panel = $('explain'),
    panelTitle = $('explain-title');
  var NUMBERS = [
    'query_token',
    'seed_v1',
    'd_out',
    'seed_weights',
    'seed_dropout',
    'dropout',
    'seed_class',
    'class_dropout',
    'context_length',
    'num_heads',
  ];
  var BOOLS = ['qkv_bias', 'scale', 'train'];
  var MAX_EDITABLE = 4096; // inputs with more values than this are not shown in the editor
  // api: the module; defaults: the book's resolved config; current: the walkthrough shown and
  // currentConfig its non-default keys (the URL hash); randn: {randn, seed} when the inputs are
  // random; tooBig: the editor is off; picked: the explained cell.
  var api,
    defaults,
    current,
    currentConfig = {},
    randn = null,
    tooBig = false,
    picked = null,
    lastHash,
    // Exercise 3.3 (#preset=gpt2): the name of the preset whose stages alone are computed (its
    // MultiHeadAttention, plus the per-head weights for their heatmaps), else null.
    preset = null;
  // Heavy configurations run in a Worker (lib/worker.js); computing: the newest request.
  // FIRST_BOXES, FIRST_CELLS: the new stage boxes, and their cells, built at once (the first
  // screen); the rest when seen or in idle time. Laying out the book's 60 boxes took 150 ms.
  var FIRST_BOXES = 2,
    FIRST_CELLS = 2000,
    HEAVY = 4e7,
    runner = CA.runner(),
    computing = 0,
    busy = false,
    queued = null,
    randnTokens = null,
    book = null;

  // The tables' stylesheet ships inside causal-attention.js, shared with <causal-attention-demo>.
  doc.adoptedStyleSheets = doc.adoptedStyleSheets.concat(CA.styleSheet());

  function defaultTokens(T) {
    return api.defaultTokens(T);
  }
  function same(a, b) {
    return H.stringify({ x: a }) === H.stringify({ x: b });
  } // BigInt-safe
  function el(tag, props, parent) {
    var node = doc.createElement(tag);
    for (var k in props) node[k] = props[k];
    return parent ? parent.appendChild(node) : node;
  }
  function input(tr, props, row, col, label) {
    var box = el('input', props, el('td', {}, tr));
    box.dataset.row = row;
    if (col !== undefined) box.dataset.col = col;
    box.setAttribute('aria-label', label);
  }

  // The inputs editor as text: {tokens, rows}, or null when it is off.
  function readEditor() {
    return tooBig
      ? null
      : Array.prototype.reduce.call(
          editor.tBodies[0].rows,
          function (model, tr) {
            var values = Array.prototype.map.call(tr.querySelectorAll('input'), function (x) {
              return x.value;
            });
            model.tokens.push(values.shift());
            model.rows.push(values);
            return model;
          },
          { tokens: [], rows: [] },
        );
  }
  // model: {tokens, rows} (text), or {big: [T, D]} for inputs too big to edit.
  function buildEditor(model) {
    var fragment = doc.createDocumentFragment();
    var T = model.rows ? model.rows.length : model.big[0],
      D = model.rows ? model.rows[0].length : model.big[1];
    tooBig = T * D > MAX_EDITABLE;
    ['add-token', 'add-feature', 'remove-feature'].forEach(function (id) {
      $(id).disabled = tooBig;
    });
    el(
      'caption',
      {
        textContent: tooBig
          ? T + ' × ' + D + ' values: too many to edit one by one.'
          : 'Token labels and input values',
      },
      fragment,
    );
    if (!tooBig) {
      var tr = el('tr', {}, el('thead', {}, fragment));
      el('th', { scope: 'col', textContent: 'token' }, tr);
      for (var j = 0; j < D; j++) el('th', { scope: 'col', textContent: j }, tr);
      el('td', {}, tr);
      var body = el('tbody', {}, fragment);
      model.rows.forEach(function (row, i) {
        tr = el('tr', {}, body);
        input(
          tr,
          { name: 'tokens', value: model.tokens[i], className: 'tok' },
          i,
          undefined,
          'Label of token ' + i,
        );
        row.forEach(function (v, j) {
          input(tr, { name: 'inputs', value: v }, i, j, 'Token ' + i + ', feature ' + j);
        });
        var remove = el(
          'button',
          { type: 'button', textContent: '×', className: 'rm', disabled: T < 2 },
          el('td', {}, tr),
        );
        remove.dataset.removeRow = i;
        remove.setAttribute('aria-label', 'Remove token ' + i);
      });
    }
    editor.replaceChildren(fragment);
    editor.classList.toggle('big', tooBig); // a caption alone: as wide as the box, not a column
    showInputsMode();
  }
  function showInputsMode() {
    $('inputs-mode').textContent = randn
      ? 'torch.manual_seed(' +
        randn.seed +
        '); inputs = torch.randn(' +
        randn.randn.join(', ') +
        ')'
      : 'Or random inputs:';
  }
  // The editor's model for a result: the values as typed when config c has them, else the
  // float32 values in their shortest form.
  function editorModel(res, c) {
    var s = R.byId(res).inputs;
    if (!s) return { big: res.config.inputs.randn }; // a preset's run (randn inputs) leaves it out
    var T = s.shape[0],
      D = s.shape[1],
      rows = [];
    if (T * D > MAX_EDITABLE) return { big: s.shape };
    for (var i = 0; i < T; i++)
      rows.push(Array.prototype.slice.call(s.data, i * D, i * D + D).map(R.f32));
    return {
      tokens: res.config.tokens.slice(),
      rows:
        randn || !c.inputs
          ? rows
          : c.inputs.map(function (r) {
              return r.map(String);
            }),
    };
  }

  // The settings as a config of their non-default keys (tokens: labels to use instead).
  function readConfig(tokens) {
    var c = {},
      model = readEditor(),
      rows =
        model &&
        model.rows.map(function (r) {
          return r.map(R.parseNumber);
        });
    c.inputs = randn || (model ? rows : current.config.inputs);
    var T = randn ? randn.randn[0] : c.inputs.length;
    if (same(c.inputs, defaults.inputs)) delete c.inputs;
    tokens = tokens || randnTokens || (model || current.config).tokens;
    if (!same(tokens, defaultTokens(T))) c.tokens = tokens;
    NUMBERS.forEach(function (k) {
      var text = fields[k].value,
        v = R.parseNumber(text);
      if (k === 'context_length' ? text.trim() : !same(v, defaults[k])) c[k] = v; // empty context_length = T
    });
    BOOLS.forEach(function (k) {
      if (fields[k].checked !== defaults[k]) c[k] = fields[k].checked;
    });
    if (fields.rng.value !== defaults.rng) c.rng = fields.rng.value;
    return c;
  }
  function setControls(c, res) {
    var cfg = res.config;
    randn = cfg.inputs.randn ? c.inputs : null;
    NUMBERS.forEach(function (k) {
      fields[k].value = k in c ? c[k] : k === 'context_length' ? '' : cfg[k];
    });
    BOOLS.forEach(function (k) {
      fields[k].checked = cfg[k];
    });
    fields.rng.value = cfg.rng;
    var shape = res.stages[0].shape;
    fields.randn_tokens.value = randn ? randn.randn[0] : shape[0];
    fields.randn_d_in.value = randn ? randn.randn[1] : shape[1];
    fields.randn_seed.value = randn ? cfg.inputs.seed : api.defaults.randn_seed;
    buildEditor(editorModel(res, c));
  }

  function clearErrors() {
    form.querySelectorAll('[data-error-for]').forEach(function (e) {
      e.textContent = '';
    });
    form.querySelectorAll('[aria-invalid]').forEach(function (e) {
      e.removeAttribute('aria-invalid');
    });
  }
  // The core's message names the key ("d_out" must be...; "inputs"[i][j] ...): show it there.
  function showError(msg, source, sourceElement) {
    clearErrors();
    var m = /^"(\w+)"(?:\[(\d+)\]\[(\d+)\])?/.exec(msg),
      key = m ? m[1] : /context_length/.test(msg) ? 'context_length' : source;
    if (key === 'inputs' && source === 'randn') key = 'randn';
    (
      form.querySelector('[data-error-for="' + key + '"]') ||
      form.querySelector('[data-error-for="' + source + '"]')
    ).textContent = msg;
    var bad =
      m && m[2]
        ? editor.querySelector('[data-row="' + m[2] + '"][data-col="' + m[3] + '"]')
        : fields[key] && fields[key].type
          ? fields[key]
          : key === source && sourceElement;
    if (bad) bad.setAttribute('aria-invalid', 'true');
  }

  // Whether a configuration is big enough to compute off the main thread (a T = 256 walkthrough
  // takes tens of ms; GPT-2's 1024 × 768 about a second): multiply-adds of its passes.
  var WORKER_BUDGET = 3; // a Worker may take 3 times the main thread's budget (~2 s)
  function heavy(c) {
    var x = c.inputs,
      T = x && x.randn ? x.randn[0] : x ? x.length : 6,
      D = x && x.randn ? x.randn[1] : x && x[0] ? x[0].length : 3,
      d = c.d_out || 2;
    // or many heads / a long context_length: half the main thread's budget (lib/budget.js)
    return T * (T + D) * d * 4 > HEAVY || CA.budget.work(c) > CA.budget.maxWork / 2;
  }
  // Runs config c; done(res) now for small configs, later (from a Worker) for heavy ones,
  // where only the newest request's result is shown. fail(message) on an invalid config.
  function compute(c, done, fail) {
    var ticket = ++computing,
      // Sizes that would keep even a Worker busy too long are refused (lib/budget.js); a
      // preset computes its few stages only, in a Worker: its size is known to fit.
      tooBig = !preset && CA.budget.check(c, heavy(c) ? WORKER_BUDGET : 1),
      options = preset && { stages: api.presets[preset].stages.concat('mha.attn_weights') };
    queued = null;
    if (tooBig) return fail(tooBig);
    if (!preset && !heavy(c)) {
      var res = book;
      book = null; // the book's run at start, shown once (a run is ~5 ms of the page's load)
      try {
        if (!res || Object.keys(c).length) res = api.run(c);
      } catch (e) {
        return fail(e.message);
      }
      progress(null);
      return done(res);
    }
    progress(0);
    // One heavy run at a time: edits made meanwhile wait, and only the newest of them runs.
    if (busy) queued = [c, done, fail, ticket, options];
    else start(c, done, fail, ticket, options);
  }
  function start(c, done, fail, ticket, options) {
    busy = true;
    function finish(ok, value) {
      busy = false;
      if (queued) start.apply(null, queued.splice(0));
      queued = null;
      if (ticket !== computing) return;
      if (!busy) progress(ok ? value : null);
      if (ok) done(value.result);
      else fail(value.message);
    }
    runner.run(c, options).then(
      function (out) {
        finish(true, out);
      },
      function (e) {
        finish(false, e);
      },
    );
  }
  // The progress line of a heavy run: out = 0 while it runs (the elapsed time ticks), then
  // {ms, memory, where} for the measured time; null hides it.
  function progress(out) {
    var line = $('progress');
    if (!line) {
      line = el('p', { id: 'progress', className: 'hint' });
      line.setAttribute('role', 'status');
      status.after(line);
    }
    clearInterval(progress.timer);
    line.hidden = out === null;
    if (out === 0) {
      var t0 = performance.now(),
        bar = el('progress', {}),
        text = el('span', {});
      bar.setAttribute('aria-label', 'Computing');
      line.replaceChildren(bar, ' ', text);
      line.dataset.state = 'running';
      progress.timer = setInterval(function () {
        text.textContent = 'Computing… ' + ((performance.now() - t0) / 1000).toFixed(1) + ' s';
      }, 100);
    } else if (out) {
      line.dataset.state = 'done';
      line.textContent =
        'Computed in ' +
        Math.round(out.ms) +
        ' ms ' +
        (out.where === 'worker' ? 'in a Worker' : 'on the main thread') +
        '; WebAssembly memory ' +
        Math.round(out.memory / 1048576) +
        ' MB.';
    }
  }

  function apply(source, sourceElement, tokens, then, failed) {
    var c = readConfig(tokens);
    compute(
      c,
      function (res) {
        clearErrors();
        show(res, c);
        if (randnTokens && source !== 'randn') {
          // an edit overtook a heavy randomize: its editor
          randnTokens = null;
          buildEditor(editorModel(res, {}));
        }
        if (then) then(res);
      },
      function (msg) {
        showError(msg, source, sourceElement);
        if (failed) failed();
      },
    );
  }
  var exercise = null;
  function exerciseLink() {
    var p = el('p', { className: 'exercise' }),
      a = el('a', {
        href: '#preset=gpt2',
        id: 'gpt2',
        textContent: 'the smallest GPT-2’s attention',
      });
    p.append(
      'Exercise 3.3: the same module at ',
      a,
      ': 12 heads over 1024 tokens of 768 features, computed in a Worker.',
    );
    return p;
  }
  // Above the tables while a preset is shown: what it is, its parameter count (the weights and
  // biases it computed) and the way back to the whole chapter.
  function presetNote(res) {
    var note = $('preset-note');
    if (!note) {
      note = el('p', { id: 'preset-note', className: 'hint' });
      main.prepend(note); // inside main: the page's grid keeps its two columns
    }
    note.hidden = !preset;
    if (!preset) return;
    var params = res.stages.reduce(function (n, s) {
      return /^mha\.(W_|b_|out_proj)/.test(s.id) ? n + s.data.length : n;
    }, 0);
    var back = el('a', { href: '#', textContent: 'the whole chapter' });
    note.replaceChildren(
      api.presets[preset].description +
        ': only its stages are computed, in a Worker; ' +
        params.toLocaleString('en') +
        ' parameters. Back to ',
      back,
      '.',
    );
  }
  // Renders every stage into its section, updating the tables of the same shape in place, and
  // puts the config in the URL hash (keepHash: an invalid link stays in the address bar).
  function show(res, c, keepHash) {
    current = res;
    currentConfig = c;
    // The hash: the configuration's settings, then lecture mode's stage=...&lecture (viz.js).
    // Set first: after the tables change, replaceState waits for a style pass (6 ms).
    var hash = keepHash
      ? location.hash
      : [
          preset ? 'preset=' + preset : '',
          Object.keys(c).length ? H.stringify(c) : '',
          CA.lecture.hash(),
        ]
          .filter(Boolean)
          .join('&');
    if (hash && hash[0] !== '#') hash = '#' + hash;
    lastHash = hash;
    if (location.hash !== hash)
      history.replaceState(null, '', hash || location.pathname + location.search);
    status.textContent = '';
    var lists = {},
      old = {},
      opts = { doc: doc, embed: true, torch: $('torch-format').checked },
      cells = 0,
      built = 0;
    main.querySelectorAll('div.stage[data-stage]').forEach(function (box) {
      old[box.dataset.stage] = box;
    });
    res.stages.forEach(function (s) {
      var box = old[s.id],
        section = CA.info(s.id).section;
      delete old[s.id];
      if (box && !box._seen && box.dataset.shape === s.shape.join())
        box._pending = [s, res, opts]; // off screen: later
      else if (!box || !R.update(box, s, res, opts)) {
        if (box) seen.unobserve(box);
        // New boxes past the first screen or two of cells start empty: built when needed.
        cells += R.isBig(s) ? 1024 : s.data.length;
        box =
          (box && box._seen) || (cells < FIRST_CELLS && built++ < FIRST_BOXES)
            ? R.stage(s, res, opts)
            : placeholder(s, res, opts);
        box.id = s.id; // every stage is an anchor: index.html#stage=ID (or #ID) scrolls to it
        seen.observe(box);
      }
      (lists[section] || (lists[section] = [])).push(box);
    });
    Object.keys(old).forEach(function (id) {
      seen.unobserve(old[id]);
    });
    // Exercise 3.3 follows §3.6 in the book: its link ends the multi-head section.
    if (lists.mha && !preset) lists.mha.push(exercise || (exercise = exerciseLink()));
    // "Why are my numbers different?" ends the dropout section; its tables wait like a box's.
    var why = CA.why.shown(res, c);
    if (why && lists.s4) {
      lists.s4.push(why);
      seen.observe(why);
    }
    lazy(lists);
    if (
      !lists.mha &&
      api.sections.some(function (x) {
        return x.id === 'mha';
      })
    ) {
      // d_out not divisible by num_heads
      try {
        api.run(c, { stages: ['mha.context_vecs'] });
      } catch (e) {
        lists.mha = [el('p', { className: 'err', textContent: e.message })];
      }
    }
    // A section's boxes are moved only when its list changed (moving a box loses focus).
    main.querySelectorAll('[data-section]').forEach(function (d) {
      var want = lists[d.dataset.section] || [],
        have = d.children;
      if (
        want.length !== have.length ||
        want.some(function (box, k) {
          return have[k] !== box;
        })
      )
        d.replaceChildren.apply(d, want);
    });
    hintsAfterFrame();
    if (picked) explain();
    presetNote(res);
    CA.lecture.shown(res);
  }
  // Stage boxes on screen (or nearly) are updated at once; the others get their new values
  // (box._pending) when they come into view, or in idle time.
  var seen = new IntersectionObserver(
    function (entries) {
      entries.forEach(function (e) {
        e.target._seen = e.isIntersecting;
        if (e.isIntersecting) catchUp(e.target);
      });
    },
    { rootMargin: '300px' },
  );
  function catchUp(box) {
    var p = box._pending,
      fill = box._fill; // not a stage: a box that builds itself (viz.js's "why")
    box._fill = null;
    if (fill) fill();
    box._pending = null;
    if (p && !box.firstChild)
      box.replaceChildren.apply(
        box,
        Array.prototype.slice.call(R.stage(p[0], p[1], p[2]).childNodes),
      );
    else if (p) R.update(box, p[0], p[1], p[2]);
  }
  // An empty stage box, to be filled by catchUp().
  function placeholder(s, res, opts) {
    var box = el('div', { className: 'stage' });
    box.dataset.stage = s.id;
    box.dataset.shape = s.shape.join();
    box._pending = [s, res, opts];
    return box;
  }
  // Off-screen stages cost nothing while the page renders: new boxes not yet built are .lazy
  // (content-visibility: auto: their style and layout are skipped), and boxes whose update
  // waits (box._pending) keep their old tables, until idle time after the frame, when they are
  // built or updated one by one and their heatmaps drawn, so that a full-page screenshot or a
  // print shows everything. Boxes already up to date are left alone. main[data-complete] is
  // set when all are.
  var idle =
    globalThis.requestIdleCallback ||
    function (f) {
      return setTimeout(f, 50);
    };
  var unidle = globalThis.cancelIdleCallback || clearTimeout;
  function lazy(lists) {
    var queue = [];
    Object.keys(lists).forEach(function (k) {
      lists[k].forEach(function (box) {
        // Only empty placeholders skip rendering (.lazy): re-marking a built box whose update
        // waits restyled it, and made each edit's frame run its lifecycle twice.
        if (box._pending && !box.firstChild) box.classList.add('lazy');
        if (box._pending || box._fill || box.classList.contains('lazy')) queue.push(box);
      });
    });
    delete main.dataset.complete;
    unidle(lazy.job);
    cancelAnimationFrame(lazy.frame);
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
        CA.heatmap.flush(box);
      }
      if (queue.length) lazy.job = idle(step, { timeout: 250 });
      else {
        main.dataset.complete = '1';
        hints(); // scroll hints of the tables built late
      }
    }
    // After the frame being prepared: an idle period before it would delay its paint.
    lazy.frame = requestAnimationFrame(function () {
      lazy.job = idle(step, { timeout: 250 });
    });
  }

  // Scrolls to a stage or section. The boxes above it that wait to be built are built first:
  // filled later, their real heights would move it from where it was scrolled to.
  function jump(target) {
    var waiting = main.querySelectorAll('.lazy');
    for (var i = 0; i < waiting.length; i++) {
      var box = waiting[i];
      if (target.compareDocumentPosition(box) & target.DOCUMENT_POSITION_FOLLOWING) break;
      catchUp(box);
      box.classList.remove('lazy');
    }
    target.scrollIntoView();
  }

  // Tables in boxes known to be off screen (.lazy and not seen: their layout is skipped) are
  // left out: measuring one would force its layout (at T = 32, ~100 ms of every edit). They
  // get theirs once idle time has built them all.
  function hints() {
    R.hints(doc, function (s) {
      var box = s.closest('.lazy');
      return !box || box._seen !== false;
    });
  }
  // After show(): once the frame is painted its layout is clean, and measuring costs nothing;
  // measuring before forced a layout of its own (25 ms of the book's load).
  function hintsAfterFrame() {
    if (hintsAfterFrame.frame) return;
    hintsAfterFrame.frame = requestAnimationFrame(function () {
      setTimeout(function () {
        hintsAfterFrame.frame = 0;
        hints();
      });
    });
  }
  R.watchHints(doc);
  addEventListener('resize', hints);

  // The element a hash names (#s3, #mha.queries) when the page has it, else null.
  function anchor(hash) {
    var id;
    try {
      id = decodeURIComponent(hash);
    } catch (e) {
      return null;
    }
    return (id && doc.getElementById(id)) || null;
  }
  // Shows the config of a URL hash (or the book's, with a message, when it is not valid), and
  // scrolls to the stage it names (#stage=ID, or a bare stage or section id).
  function load(hash, then) {
    var c = {},
      stage;
    CA.lecture.read(hash);
    function shown(res, msg) {
      setControls(c, res);
      clearErrors();
      show(res, c, msg);
      status.textContent = msg;
      var target = stage && doc.getElementById(stage);
      if (target) {
        jump(target);
        if (!msg)
          history.replaceState(
            null,
            '',
            (lastHash = '#' + H.stringify(Object.assign({}, c, { stage: stage }))),
          ); // kept until an edit
      }
      if (then) then();
    }
    function invalid(message) {
      var msg = 'Invalid link (' + message + '): showing the book instead.';
      preset = null;
      compute((c = {}), function (res) {
        shown(res, msg);
      });
    }
    try {
      c = H.parse(hash);
      if (!c || c.constructor !== Object) throw new Error('not a JSON object');
      stage = c.stage;
      Object.keys(c).forEach(function (k) {
        // a bare stage or section id (#masked) is a link to it too
        if (
          c[k] === true &&
          (api.stageIds.indexOf(k) >= 0 ||
            api.sections.some(function (x) {
              return x.id === k;
            }))
        )
          stage = k;
        if (k === stage || k === 'stage' || k === 'lecture') delete c[k]; // page keys, not config
      });
      preset = null;
      if ('preset' in c) {
        // own names only: "constructor", "__proto__" or "toString" are not presets
        if (!Object.prototype.hasOwnProperty.call(api.presets, c.preset) || c.preset === 'book')
          throw new Error('no preset "' + c.preset + '"');
        preset = c.preset;
        delete c.preset;
        c = Object.assign({}, api.presets[preset].config, c);
      }
    } catch (e) {
      return invalid(e.message);
    }
    compute(
      c,
      function (res) {
        shown(res, '');
      },
      invalid,
    );
  }

  // The link to the current settings (and to a stage): "Copy link" in the header, "Link" under
  // every stage. Where the clipboard is refused, the link shows selected, to copy by hand.
  function copyLink(stage, msg) {
    var hash = H.stringify(Object.assign({}, currentConfig, { stage: stage })),
      out = $('link-out');
    var url = location.href.replace(/#.*$/, '') + (hash ? '#' + hash : '');
    out.value = url;
    out.hidden = false;
    var clip = navigator.clipboard;
    (clip ? clip.writeText(url) : Promise.reject()).then(
      function () {
        msg.textContent = 'Link copied. ';
      },
      function () {
        out.select();
      },
    );
  }
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

  // The explanation panel of the picked cell (found again after every re-render).
  function explain() {
    var box = main.querySelector('[data-stage="' + picked.id + '"]'),
      rank = picked.rank,
      st = R.byId(current)[picked.id];
    var cell =
      box &&
      st &&
      box.querySelector(
        'td[data-row="' +
          picked.i +
          '"][data-col="' +
          picked.j +
          '"]' +
          (rank > 2 ? '[data-batch="' + picked.b + '"]' : ''),
      );
    if (!cell) return close();
    (picked.cell = cell).classList.add('sel');
    var index =
      rank > 2
        ? R.part(st, picked.b)
            .split(':')[0]
            .slice(picked.id.length + 1, -1)
            .split(', ')
        : [];
    panelTitle.textContent =
      picked.id +
      '[' +
      index.concat([picked.i, picked.j].slice(2 - Math.min(rank, 2))).join(', ') +
      '] = ' +
      R.fmt(R.at(current, picked.id, picked.b, picked.i, picked.j));
    $('explain-body').replaceChildren(
      R.explain(current, picked.id, picked.b, picked.i, picked.j, doc),
    );
    operands(R.operands(picked.id, picked.i, picked.j));
    panel.hidden = false;
  }
  // Marks (.op) the cells behind the explained number in their own tables.
  function operands(list) {
    main.querySelectorAll('.op').forEach(function (c) {
      c.classList.remove('op');
    });
    list.forEach(function (o) {
      var t = main.querySelector('[data-stage="' + o[0] + '"] table');
      if (t)
        t.querySelectorAll('td[data-' + o[1] + '="' + o[2] + '"]').forEach(function (c) {
          c.classList.add('op');
        });
    });
  }
  function close() {
    operands([]);
    panel.hidden = true;
    var cell = picked && picked.cell;
    picked = null;
    if (cell && cell.isConnected) {
      cell.classList.remove('sel');
      cell.focus();
    }
  }
  R.bind(main, function (cell) {
    if (picked && picked.cell) picked.cell.classList.remove('sel');
    var d = cell.dataset,
      id = cell.closest('[data-stage]').dataset.stage;
    picked = {
      id: id,
      rank: R.byId(current)[id].shape.length,
      b: +d.batch || 0,
      i: +d.row,
      j: +d.col,
    };
    explain();
    // The sheet must not hide the cell it explains: scroll the cell above it.
    var cellBox = cell.getBoundingClientRect(),
      sheet = panel.getBoundingClientRect();
    if (cellBox.bottom > sheet.top - 8) scrollBy(0, cellBox.bottom - sheet.top + 16);
  });
  CA.exports.bind(
    main,
    function () {
      return current;
    },
    function () {
      return currentConfig;
    },
  );

  // A change of the editor's shape: the inputs become typed values again.
  function restructure(change) {
    var model = readEditor();
    if (!model) return;
    randn = null;
    change(model);
    buildEditor(model);
    apply('inputs');
  }
  function randomize() {
    var T = R.parseNumber(fields.randn_tokens.value),
      old = randn,
      model = readEditor(),
      tokens = (model || current.config).tokens;
    randn = {
      randn: [T, R.parseNumber(fields.randn_d_in.value)],
      seed: R.parseNumber(fields.randn_seed.value),
    };
    if (T > 0 && T <= api.limits.max_tokens)
      tokens = tokens.slice(0, T).concat(defaultTokens(T).slice(tokens.length)); // keep the labels typed
    randnTokens = tokens; // the labels of edits made before a heavy run's editor is built
    apply(
      'randn',
      fields.randn_tokens,
      tokens,
      function (res) {
        randnTokens = null;
        buildEditor(editorModel(res, {}));
      },
      function () {
        randnTokens = null;
        randn = old;
      },
    );
  }
  form.addEventListener('input', function (e) {
    var target = e.target,
      name = target.name;
    if (!name || /^randn_/.test(name)) return;
    if (name === 'inputs' && randn) {
      randn = null; // the same values, now as typed in
      showInputsMode();
    }
    apply(name, target);
  });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    if (e.submitter === fields.randomize || /^randn_/.test(doc.activeElement.name)) randomize();
  });
  form.addEventListener('click', function (e) {
    var id = e.target.id,
      removeRow = e.target.dataset.removeRow;
    if (id === 'reset') load('');
    else if (id === 'add-token')
      restructure(function (m) {
        m.rows.push(
          m.rows[0].map(function () {
            return '0';
          }),
        );
        m.tokens.push(defaultTokens(m.rows.length).pop());
      });
    else if (id === 'add-feature')
      restructure(function (m) {
        m.rows.forEach(function (r) {
          r.push('0');
        });
      });
    else if (id === 'remove-feature')
      restructure(function (m) {
        if (m.rows[0].length > 1)
          m.rows.forEach(function (r) {
            r.pop();
          });
      });
    else if (removeRow) {
      restructure(function (m) {
        m.rows.splice(removeRow, 1);
        m.tokens.splice(removeRow, 1);
      });
      var next = editor.querySelector(
        '[data-remove-row="' + Math.min(removeRow, editor.tBodies[0].rows.length - 1) + '"]',
      );
      (next && !next.disabled ? next : $('add-token')).focus(); // focus stays in the editor
    }
  });
  $('explain-close').addEventListener('click', close);
  $('torch-format').addEventListener('change', function () {
    show(current, currentConfig);
  });
  doc.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && !panel.hidden) close();
  });
  addEventListener('hashchange', function () {
    if (api && location.hash !== lastHash) load(location.hash);
  }); // before: the first load reads it
  // The contents jump without touching the hash, which holds the settings.
  $('toc').addEventListener('click', function (e) {
    var link = e.target.closest('a'),
      target = link && anchor(link.getAttribute('href').slice(1));
    if (!target) return;
    e.preventDefault();
    jump(target);
  });

  // One <section> per entry of the core's section table, its stages filled in by show(), and
  // the contents: every section and its stages (bias stages come and go with qkv_bias: left out).
  function buildSections() {
    var toc = $('toc-list');
    toc.replaceChildren.apply(
      toc,
      api.sections.map(function (info) {
        var li = el('li', {}),
          stages = el('ol', {});
        el('a', { href: '#' + info.id, textContent: info.number + ' ' + info.title }, li);
        api.stages.forEach(function (s) {
          if (s.section === info.id && !s.bias)
            el('code', { textContent: s.id }, el('a', { href: '#' + s.id }, el('li', {}, stages)));
        });
        li.appendChild(stages);
        return li;
      }),
    );
    main.replaceChildren.apply(
      main,
      api.sections.map(function (info) {
        var section = el('section', {}),
          h2 = el('h2', { id: info.id, textContent: info.number + ' ' + info.title }, section);
        section.setAttribute('aria-labelledby', h2.id);
        el('p', { textContent: info.intro }, section);
        el('div', { className: 'stages' }, section).dataset.section = info.id;
        return section;
      }),
    );
  }

  // Phones: the settings start closed, so that the first table is on the first screen.
  if (matchMedia('(max-width: 700px)').matches) $('settings').open = false;

  CA.load()
    .then(function (loaded) {
      api = loaded;
      buildSections();
      book = api.run({});
      defaults = Object.assign({}, book.config);
      // The book's inputs as typed (0.43, not float32 0.4300000071525574), to compare with the editor.
      defaults.inputs = defaults.inputs.map(function (r) {
        return r.map(function (x) {
          return +R.f32(x);
        });
      });
      load(location.hash, function () {
        doc.documentElement.dataset.ready = '1';
      });
    })
    .catch(function (e) {
      status.textContent = 'The page could not start: ' + e.message;
      doc.documentElement.dataset.ready = 'error';
    });
})();
