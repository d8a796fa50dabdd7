// Exercise 3.3 over every core (issue 21): the page splits MultiHeadAttention over a pool of
// Workers (web/page/runner.js) by api.run's {shard} and api.project; every stage it shows has the
// single-thread core's bits (the module in Node) whatever the pool's size. Times are printed by
// the benchmark (bench/compare.sh), never asserted here.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { execFileSync } = require('child_process');
const path = require('path');
const { loadApi, web } = require('./support');
const { browserSuite, watchedPage } = require('./browser');

const apiPath = path.join(web, 'causal-attention.js');

const suite = browserSuite();
const sha = (f) =>
  crypto
    .createHash('sha256')
    .update(Buffer.from(f.buffer, f.byteOffset, f.byteLength))
    .digest('hex');
const slice = (f, ranges) =>
  Float32Array.from(ranges.flatMap(([a, b]) => Array.from(f.subarray(a, b))));

// Records in window.here what the page's main thread computes from now on, each with its
// WebAssembly memory (MB) after: ['run', shard] (a pool's shard), ['project', rows] (out_proj's
// block), ['heads', shard] (heads' weights fetched on demand once the result is in: the memory
// they grow comes after the result's) or ['whole', stages] (any other run).
const watchMain = (page) =>
  page.evaluate(async () => {
    const main = await CausalAttention.load(),
      { run, project } = main,
      mb = () => Math.round(main.memoryBytes() / 2 ** 20);
    window.here = [];
    main.run = (c, o) => {
      const r = run(c, o),
        heads = o && String(o.stages) === 'mha.attn_weights';
      window.here.push(
        o && o.shard ? [heads ? 'heads' : 'run', o.shard, mb()] : ['whole', o && o.stages, mb()],
      );
      return r;
    };
    main.project = (c, rows, w, b) => {
      const r = project(c, rows, w, b);
      window.here.push(['project', rows.length / 768, mb()]);
      return r;
    };
  });
// The progress line after 'Computed in N ms', and the line it should be where the run was on
// the main thread: its memory is the main thread's when the result came (not the heads').
const mainLine = (page) =>
  page.evaluate(() => [
    document.getElementById('progress').textContent.replace(/^Computed in \d+ ms/, ''),
    ` on the main thread; WebAssembly memory ${Math.max(
      ...window.here.filter(([k]) => k !== 'heads').map((x) => x[2]),
    )} MB.`,
  ]);

test("a shard's stages and out_proj's rows are slices of the whole run, bit for bit", async () => {
  const api = await loadApi();
  const config = { inputs: { randn: [37, 20], seed: 5 }, d_out: 35, num_heads: 5, qkv_bias: true };
  const ids = ['mha.attn_weights', 'mha.context_vec', 'mha.context_vecs'];
  const whole = Object.fromEntries(api.run(config, { stages: ids }).stages.map((s) => [s.id, s]));
  const T = 37,
    H = 5,
    hd = 7,
    D = 35;
  const part = api.run(config, { stages: ids, shard: [1, 2, 1, 4] }).stages;
  assert.deepEqual(
    part.map((s) => [s.id, s.shape]),
    [
      ['mha.attn_weights', [1, 3, T, T]],
      ['mha.context_vec', [1, T, 3 * hd]],
    ],
    'context_vecs needs every head',
  );
  const TT = T * T;
  assert.equal(
    sha(part[0].data),
    sha(whole['mha.attn_weights'].data.subarray((H + 1) * TT, (H + 4) * TT)),
  );
  const cols = [];
  for (let t = 0; t < T; t++) cols.push([(T + t) * D + hd, (T + t) * D + 4 * hd]);
  assert.equal(sha(part[1].data), sha(slice(whole['mha.context_vec'].data, cols)));
  // weightHeads: the first heads' weights alone, the rest of the shard as without them
  const few = api.run(config, { stages: ids, shard: [1, 2, 1, 4], weightHeads: 2 }).stages;
  assert.deepEqual(
    few.map((s) => [s.id, s.shape]),
    [
      ['mha.attn_weights', [1, 2, T, T]],
      ['mha.context_vec', [1, T, 3 * hd]],
    ],
  );
  assert.equal(
    sha(few[0].data),
    sha(whole['mha.attn_weights'].data.subarray((H + 1) * TT, (H + 3) * TT)),
  );
  assert.equal(sha(few[1].data), sha(part[1].data));
  const one = api.run(config, { stages: ['mha.attn_weights'], weightHeads: 1 }).stages[0];
  assert.deepEqual(one.shape, [1, 1, T, T]);
  assert.equal(sha(one.data), sha(whole['mha.attn_weights'].data.subarray(0, TT)));
  const every = api.run(config, { stages: ids, shard: [0, 1, 0, 5] }).stages;
  assert.equal(sha(every[2].data), sha(whole['mha.context_vecs'].data.subarray(0, T * D)));
  // out_proj on rows 3..41 of context_vec (across the batch elements) by its weight and bias
  // (the stages a shard brings): those of context_vecs
  const rows = whole['mha.context_vec'].data.slice(3 * D, 42 * D);
  const [W, b] = api
    .run(config, { stages: ['mha.out_proj.weight', 'mha.out_proj.bias'] })
    .stages.map((s) => s.data);
  const p = api.project(config, rows, W, b);
  assert.deepEqual(
    [p.id, p.shape, p.code],
    ['mha.context_vecs', [39, D], whole['mha.context_vecs'].code],
  );
  assert.equal(sha(p.data), sha(whole['mha.context_vecs'].data.subarray(3 * D, 42 * D)));
  // refusals: the core's messages
  assert.throws(
    () => api.run(config, { stages: ids, shard: [0, 1, 0, 6] }),
    /^Error: the shard must be batch elements \[b0, b1\) of \[0, 2\) and heads \[h0, h1\) of \[0, 5\)$/,
  );
  assert.throws(
    () => api.run({ ...config, class_dropout: 0.1 }, { stages: ids, shard: [0, 1, 0, 5] }),
    /a shard cannot draw dropout/,
  );
  assert.throws(() => api.run(config, { shard: [0, 1, 0] }), /"shard" must be \[b0, b1, h0, h1\]/);
  assert.throws(
    () => api.run(config, { stages: ids, shard: [1, 2, 1, 4], weightHeads: 4 }),
    /^Error: the weights' heads must be 1 to 3, the shard's heads$/,
  );
  assert.throws(
    () => api.run(config, { stages: ids, weightHeads: 1.5 }),
    /^Error: the weights' heads must be 1 to 5, the shard's heads$/,
  );
  assert.throws(
    () => api.run({ ...config, class_dropout: 0.1 }, { stages: ids, weightHeads: 1 }),
    /a shard cannot draw dropout/,
  );
  const refused =
    /^Error: the rows, out_proj's weight and bias must be Float32Arrays of n \* d_out \(n <= 2 \* T\), d_out \* d_out and d_out values$/;
  assert.throws(() => api.project(config, new Float32Array(34), W, b), refused);
  assert.throws(() => api.project(config, [1, 2], W, b), refused);
  assert.throws(() => api.project(config, rows, b, W), refused);
  assert.throws(() => api.project(config, rows), refused);
});

// Fresh memory is a Worker's dearest cost on a first run (each new page ~25 µs of CPU on this
// 2-core VM: a 56 MB heap grown was ~350 ms, as much as the shard's arithmetic), so a shard holds
// nothing it does not need: no copy of its batch elements or of the module's weights (the stages
// asked for take the module's own), no batch (its element is the inputs), one head's queries,
// keys and values at a time, the weights over the scores. A fresh module per shard (a child
// process), as each Worker has; the memory only grows, so its size is the run's peak plus
// emmalloc's slack.
test("a GPT-2 shard's memory: no copies, one head's queries, keys and values", () => {
  const P = ['mha.W_query', 'mha.W_key', 'mha.W_value', 'mha.out_proj.weight', 'mha.out_proj.bias'];
  const mb = (options) =>
    JSON.parse(
      execFileSync(process.execPath, [
        '-e',
        `require(${JSON.stringify(apiPath)}).load().then((api) => {
           api.run({}, ${JSON.stringify({ preset: 'gpt2', ...options })});
           console.log(api.memoryBytes() / 2 ** 20);
         })`,
      ]).toString(),
    );
  // 2 Workers' shards (page/shards.js): heads 1-6 of batch element 1 with head 1's weights and
  // out_proj's parameters, heads 7-12 with the projections'; 1 Worker: element 1's every head
  // and every parameter (element 2 is a copy). Before: 69.2, 69.2 and 83.1 MB; then 57.6, 48
  // and 69.2; with a batch element each (and the whole batch on 1 Worker), 33.3, 27.8 and 52.
  const first = mb({
      stages: ['mha.out_proj.weight', 'mha.out_proj.bias', 'mha.context_vec', 'mha.attn_weights'],
      shard: [0, 1, 0, 6],
      weightHeads: 1,
    }),
    last = mb({
      stages: ['mha.W_query', 'mha.W_key', 'mha.W_value', 'mha.context_vec'],
      shard: [0, 1, 6, 12],
    }),
    one = mb({
      stages: [...P, 'mha.context_vecs', 'mha.attn_weights'],
      shard: [0, 1, 0, 12],
      weightHeads: 1,
    });
  assert.ok(first <= 34, `heads 1-6's shard grew the memory to ${first} MB`);
  assert.ok(
    last <= 28,
    `heads 7-12's shard with the projections' parameters grew it to ${last} MB`,
  );
  assert.ok(one <= 34, `batch element 1's whole shard grew it to ${one} MB`);
});

test("exercise 3.3 in 1, 2, 3 and 4 Workers: the single-thread core's bits", async () => {
  const api = await loadApi();
  // What the page asks for (web/page/compute.js): the preset's stages and every head's weights.
  const ids = [...api.presets.gpt2.stages, 'mha.attn_weights'];
  const want = {};
  let weights;
  for (const s of api.run({}, { preset: 'gpt2', stages: ids }).stages) {
    want[s.id] = [s.shape.join(), sha(s.data)];
    if (s.id === 'mha.attn_weights') weights = s.data;
  }
  assert.equal(Object.keys(want).length, 7);
  const TT = 1024 * 1024,
    head23 = sha(weights.subarray(23 * TT, 24 * TT)); // batch element 2, head 12
  // Each shard's stages (web/page/shards.js): every parameter once, out_proj's with the first
  // shard (with head 1's weights), the projections' dealt over the others.
  const [Wq, Wk, Wv, Wo, bo] = ['W_query', 'W_key', 'W_value', 'out_proj.weight', 'out_proj.bias'],
    cv = 'context_vec',
    aw = 'attn_weights',
    first = [Wo, bo, cv, aw];
  for (const [cores, line, stages] of [
    // batch element 1, out_proj included (element 2 is a copy)
    [1, 'in a Worker', [[Wq, Wk, Wv, Wo, bo, 'context_vecs', aw]]],
    // 6 heads of element 1 each, then out_proj's rows in 2 blocks
    [2, 'in 2 Workers', [first, [Wq, Wk, Wv, cv]]],
    [3, 'in 3 Workers', [first, [Wq, Wv, cv], [Wk, cv]]],
    // 3 heads each, then out_proj's rows in 4 blocks
    [4, 'in 4 Workers', [first, [Wq, cv], [Wk, cv], [Wv, cv]]],
  ]) {
    const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
    await page.addInitScript((n) => {
      Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n });
      // The runs asked of the Workers, and whether the result was in yet
      const post = Worker.prototype.postMessage;
      window.asked = [];
      // Number's toLocaleString: its first call starts ICU, 50-80 ms of the result's task
      const locale = Number.prototype.toLocaleString;
      window.locale = 0;
      Number.prototype.toLocaleString = function (...a) {
        window.locale++;
        return locale.apply(this, a);
      };
      Worker.prototype.postMessage = function (msg, transfer) {
        const done = document.querySelector('#progress[data-state="done"]') !== null;
        if (msg && msg.options) window.asked.push([msg.options, done]);
        return post.call(this, msg, transfer);
      };
    }, cores);
    // The wasm is fetched, inflated and compiled once, by the page: each Worker gets the
    // compiled module (lib/worker.js) and imports the glue alone.
    const files = [];
    page.on('request', (r) => files.push(new URL(r.url()).pathname.split('/').pop()));
    await page.goto(suite.server.url + 'index.html#preset=gpt2');
    await page.waitForSelector('#progress[data-state="done"]', { timeout: 300000 });
    assert.deepEqual(
      ['causal-attention.js', 'causal-attention-wasm.js', 'causal-attention-wasm-data.js'].map(
        (f) => files.filter((x) => x === f).length,
      ),
      [1 + cores, 1 + cores, 1],
      `${cores} cores: the page's and each Worker's requests of the library, glue and wasm`,
    );
    const text = await page.locator('#progress').textContent();
    console.log(`${cores} cores: ${text}`);
    assert.match(text, new RegExp(`^Computed in \\d+ ms ${line}; WebAssembly memory \\d+ MB\\.$`));
    assert.equal(await page.evaluate(() => window.locale), 0, 'toLocaleString called');
    assert.match(
      await page.locator('[data-stage="mha.attn_weights"] .dr').first().textContent(),
      /^No drawing above 32 tokens \(T = 1024\): its 1,048,576 lines would be too dense/,
    );
    // Before the result: the shards alone, the first bringing head 1's weights (no second run
    // of that head on the way to the result)
    const early = (await page.evaluate(() => window.asked)).filter(([, done]) => !done);
    assert.deepEqual(
      early.map(([o]) => [o.stages, o.weightHeads || 0]),
      stages.map((ids, i) => [ids.map((id) => 'mha.' + id), i ? 0 : 1]),
      `${cores} cores: the runs before the result`,
    );
    // Only what is shown crossed: batch element 2's heads are computed when first looked at.
    const fetched = () =>
      page.evaluate(() =>
        Array.from(
          CausalAttention.__modules['page/store.js']
            .get()
            .result.stages.find((s) => s.id === 'mha.attn_weights').slices,
          (d) => d instanceof Float32Array,
        ),
      );
    const before = await fetched();
    assert.equal(before.length, 24);
    assert.ok(before[0], 'head 1 comes with the result');
    assert.deepEqual(before.slice(12), Array(12).fill(false), `${cores} cores`);
    // Head 12 of batch element 2, asked for by its thumbnail's button: the heatmap's values
    await page.locator('[data-stage="mha.attn_weights"] .pick select').selectOption('1');
    await page.click('[data-stage="mha.attn_weights"] .thumbs button[data-head="11"]');
    await page.waitForSelector('[data-stage="mha.attn_weights"] .heads[data-head="11"] .hm canvas');
    const shown = await page.evaluate(async () => {
      const m = CausalAttention.heatmap.state(
        document.querySelector('[data-stage="mha.attn_weights"] .hm canvas'),
      ).m;
      const f = new Float32Array(m.rows * m.cols);
      for (let i = 0; i < m.rows; i++)
        for (let j = 0; j < m.cols; j++) f[i * m.cols + j] = m.value(i, j);
      return Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', f)), (x) =>
        x.toString(16).padStart(2, '0'),
      ).join('');
    });
    assert.equal(shown, head23, `${cores} cores: head 12 of batch element 2, fetched later`);
    assert.ok((await fetched())[23]);
    const got = await page.evaluate(async () => {
      const hex = (b) =>
        Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
      const out = {};
      // mha.attn_weights is computed on demand (lib/slices.js): s.whole() asks for every head
      for (const s of CausalAttention.__modules['page/store.js'].get().result.stages)
        out[s.id] = [
          s.shape.join(),
          hex(await crypto.subtle.digest('SHA-256', await (s.whole ? s.whole() : s.data))),
        ];
      return out;
    });
    assert.deepEqual(got, want, `${cores} cores`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

// out_proj's weight and bias (2.4 MB) go to each Worker once for the settings (web/page/runner.js
// sends them where its kept says the Worker lacks them; lib/worker.js keeps them): the same
// settings again (a link to a stage of the preset) send none, other settings send theirs. After
// a Worker's death no Worker starts: the main thread runs the shards and out_proj's blocks.
test("out_proj's weight and bias go to each Worker once for the settings", async () => {
  const api = await loadApi();
  const gpt2 = api.presets.gpt2.config,
    other = { ...gpt2, qkv_bias: true },
    ids = ['mha.out_proj.weight', 'mha.context_vecs'],
    want = (config) => api.run(config, { stages: ids }).stages.map((s) => sha(s.data));
  const [w1, cv1] = want(gpt2),
    [w2, cv2] = want(other);
  assert.notEqual(w2, w1, "qkv_bias's draws change out_proj's weight");
  const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 2 });
    // Per run, each block's message's bytes (its typed arrays, wherever they are in it);
    // window.die: the next shard's Worker fails (its onerror: page/runner.js stops the pool, the
    // shards run here); window.started: the Workers started.
    const post = Worker.prototype.postMessage;
    window.started = 0;
    window.Worker = class extends Worker {
      constructor(...a) {
        super(...a);
        window.started++;
      }
    };
    const bytes = (x) =>
      ArrayBuffer.isView(x)
        ? x.byteLength
        : x && typeof x === 'object'
          ? Object.values(x).reduce((n, v) => n + bytes(v), 0)
          : 0;
    window.blocks = [];
    window.die = false;
    Worker.prototype.postMessage = function (msg, transfer) {
      if (msg && msg.project) window.blocks.push(bytes(msg));
      if (msg && msg.options && window.die) {
        window.die = false;
        this.onerror(new Event('error'));
      }
      return post.call(this, msg, transfer);
    };
  });
  // The page's run of a hash: [the blocks' messages' bytes, mha.context_vecs' hash, the Workers
  // started so far].
  const run = async (hash, die) => {
    await page.evaluate(
      ([h, d]) => {
        window.blocks = [];
        window.here = [];
        window.die = d;
        document.getElementById('progress')?.removeAttribute('data-state');
        location.hash = h;
      },
      [hash, die],
    );
    // done, or hidden while running: the run failed (the form says why)
    await page.waitForSelector('#progress[data-state="done"], #progress[hidden]', {
      state: 'attached',
      timeout: 300000,
    });
    return page.evaluate(async () => {
      const s = CausalAttention.__modules['page/store.js']
        .get()
        .result.stages.find((x) => x.id === 'mha.context_vecs');
      const d = await crypto.subtle.digest('SHA-256', s.data);
      return [
        window.blocks,
        Array.from(new Uint8Array(d), (x) => x.toString(16).padStart(2, '0')).join(''),
        window.started,
      ];
    });
  };
  // 2 blocks of 512 of element 1's 1024 rows (768 floats each), with or without out_proj's
  // 768 x 768 weight and 768 bias
  const rows = 512 * 768 * 4,
    both = Array(2).fill(rows + (768 * 768 + 768) * 4),
    none = Array(2).fill(rows);
  const wasm = [];
  page.on('request', (r) => r.url().endsWith('/causal-attention-wasm-data.js') && wasm.push(r));
  await page.goto(suite.server.url + 'index.html');
  assert.deepEqual(await run('#preset=gpt2', false), [both, cv1, 2], 'first run');
  const again = await run('#preset=gpt2&stage=mha.context_vecs', false);
  assert.deepEqual(again, [none, cv1, 2], 'the same settings again');
  assert.deepEqual(await run('#preset=gpt2&qkv_bias', false), [both, cv2, 2], 'other settings');
  assert.deepEqual(await run('#preset=gpt2&qkv_bias&stage=mha.context_vecs', false), [
    none,
    cv2,
    2,
  ]);
  assert.match(await page.locator('#progress').textContent(), / in 2 Workers; /);
  // The same settings, and a Worker dies at its shard: the shards and out_proj's blocks run on
  // the main thread (no block goes to a Worker, none starts), with the unbroken run's bits; so
  // does the next run.
  // The progress line says so, with the main thread's memory (once, not once per shard).
  await watchMain(page);
  assert.deepEqual(await run('#preset=gpt2&qkv_bias', true), [[], cv2, 2], 'after a death');
  let [shown, should] = await mainLine(page);
  assert.equal(shown, should);
  assert.deepEqual(await run('#preset=gpt2', false), [[], cv1, 2], 'after a death, other settings');
  [shown, should] = await mainLine(page);
  assert.equal(shown, should);
  // The wasm is fetched by the page alone: each Worker is given its compiled module.
  assert.equal(wasm.length, 1, 'requests of the wasm');
  assert.deepEqual(problems, []);
  await page.close();
});

// A Worker dies with a block (or a shard) in flight: its rows went along (transferred), but the
// runner posted a copy and keeps its own (web/page/runner.js's send), so the main thread computes
// what the dead Worker owed alone; the live Worker's reply is kept, and it stops once it has
// answered. Every later request runs on the main thread: none starts again.
test("a Worker's death in flight: the main thread computes what it owed alone", async () => {
  const api = await loadApi();
  const gpt2 = api.presets.gpt2.config,
    cv = sha(api.run(gpt2, { stages: ['mha.context_vecs'] }).stages[0].data);
  for (const [at, owed] of [
    // the second block's Worker, after its rows were posted: that block alone (512 of 1024 rows)
    ['block', [['project', 512]]],
    // the second shard's (heads 7-12): that shard, then out_proj's blocks (asked after the death)
    [
      'shard',
      [
        ['run', [0, 1, 6, 12]],
        ['project', 512],
        ['project', 512],
      ],
    ],
  ]) {
    const { page, problems } = await watchedPage(suite.browser.context, suite.server.url);
    await page.addInitScript((at) => {
      Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 2 });
      const post = Worker.prototype.postMessage,
        terminate = Worker.prototype.terminate;
      window.started = 0;
      window.stopped = 0;
      window.Worker = class extends Worker {
        constructor(...a) {
          super(...a);
          window.started++;
        }
        terminate() {
          window.stopped++;
          return terminate.call(this);
        }
      };
      let blocks = 0;
      // The Worker dies once the message is posted (its transfer done): it never answers.
      Worker.prototype.postMessage = function (msg, transfer) {
        post.call(this, msg, transfer);
        if (at === 'block' ? msg.project && ++blocks === 2 : msg.options?.shard?.[2] > 0) {
          terminate.call(this);
          this.onerror(new Event('error'));
        }
      };
    }, at);
    await page.goto(suite.server.url + 'index.html');
    await watchMain(page);
    await page.evaluate(() => (location.hash = '#preset=gpt2'));
    await page.waitForSelector('#progress[data-state="done"], #progress[hidden]', {
      state: 'attached',
      timeout: 300000,
    });
    const got = await page.evaluate(async () => {
      const s = CausalAttention.__modules['page/store.js']
          .get()
          .result.stages.find((x) => x.id === 'mha.context_vecs'),
        d = await crypto.subtle.digest('SHA-256', s.data);
      return [
        // the pool's shards and blocks that the main thread ran
        window.here.filter(([k]) => k === 'run' || k === 'project').map(([k, x]) => [k, x]),
        Array.from(new Uint8Array(d), (x) => x.toString(16).padStart(2, '0')).join(''),
        [window.started, window.stopped],
      ];
    });
    assert.deepEqual(got, [owed, cv, [2, 2]], `a Worker died at its ${at}`);
    const [shown, should] = await mainLine(page);
    assert.equal(shown, should);
    assert.deepEqual(problems, []);
    await page.close();
  }
});
