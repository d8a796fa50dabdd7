// The core's tables through the JS API: the settings (api.settings) and the stages' parts and
// operands are the CLI's, hold the book's values, and web/causal-attention.d.ts names exactly
// the stage ids and configuration keys the module has, with matching types.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { loadApi, cli, parseExact, root, BOOK_TOKENS, BOOK_INPUTS } = require('./support');

test("api.settings is the CLI's --list-settings table, with the book's defaults", async () => {
  const api = await loadApi();
  const table = parseExact(
    execFileSync(cli, ['--list-settings', '--format', 'json'], { encoding: 'utf8' }),
  );
  // The inputs are float32 values, as api.run's config has them; the CLI prints their shortest text.
  table.settings[0].default = table.settings[0].default.map((row) => row.map(Math.fround));
  assert.deepEqual(api.settings, table.settings);
  assert.ok(Object.isFrozen(api.settings) && Object.isFrozen(api.settings[0]));
  const byKey = Object.fromEntries(api.settings.map((s) => [s.key, s]));
  const defaults = Object.fromEntries(api.settings.map((s) => [s.key, s.default]));
  assert.deepEqual(defaults, {
    inputs: BOOK_INPUTS.map((row) => row.map(Math.fround)),
    tokens: BOOK_TOKENS,
    d_out: 2,
    query_token: 1,
    seed_v1: 123,
    num_heads: 2,
    qkv_bias: false,
    scale: true,
    seed_weights: 789,
    seed_dropout: 123,
    dropout: 0.5,
    seed_class: 123,
    class_dropout: 0,
    context_length: 6,
    rng: 'default',
    train: true,
  });
  // The resolved book configuration has the same keys, in the same order, and the same values.
  const book = api.run({}, { stages: [] }).config;
  assert.deepEqual(Object.keys(book), Object.keys(defaults));
  assert.deepEqual(JSON.parse(JSON.stringify(book)), defaults);
  assert.deepEqual([byKey.d_out.type, byKey.d_out.min, byKey.d_out.max], ['integer', 1, 1024]);
  assert.deepEqual(
    [byKey.seed_weights.type, byKey.seed_weights.min, byKey.seed_weights.max],
    ['seed', -(2n ** 63n), 2n ** 64n - 1n],
  );
  assert.deepEqual(
    byKey.rng.choices.map((c) => c.value),
    ['default', 'mkl'],
  );
  assert.deepEqual(
    api.settings.filter((s) => s.derived).map((s) => s.key),
    ['tokens', 'query_token', 'context_length'],
  );
  assert.deepEqual(
    api.settings.filter((s) => s.compact).map((s) => s.key),
    ['d_out', 'dropout', 'rng', 'train'],
  );
  // The ranges are the reader's: one past an end is refused with the same bounds.
  assert.throws(() => api.run({ d_out: 1025 }), /"d_out" must be an integer between 1 and 1024/);
  assert.throws(
    () => api.run({ num_heads: byKey.num_heads.max + 1 }),
    /"num_heads" must be an integer between 1 and 128/,
  );
});

test("stages carry their part and operands (the page's operand highlights read them)", async () => {
  const api = await loadApi();
  const info = Object.fromEntries(api.stages.map((s) => [s.id, s]));
  assert.equal(info['mha.attn_weights'].part, 'mha');
  assert.equal(info['v1_from_v2.context_vecs'].part, 'v1');
  assert.deepEqual(info.context_vec.operands, [
    { id: 'attn_weights', axis: 'row', index: 'i' },
    { id: 'values', axis: 'col', index: 'j' },
  ]);
  assert.deepEqual(info['mha.context_vecs'].operands, [
    { id: 'mha.context_vec', axis: '', index: '' },
    { id: 'mha.out_proj.weight', axis: '', index: '' },
    { id: 'mha.out_proj.bias', axis: '', index: '' },
  ]);
  const order = new Map(api.stageIds.map((id, k) => [id, k]));
  for (const s of api.stages) {
    for (const o of s.operands) assert.ok(order.get(o.id) < order.get(s.id), s.id + ' ' + o.id);
  }
});

// The names a declaration lists: the string literals of `type Name = 'a' | 'b'`, the keys of
// `interface Name {...}` (with their types).
function union(dts, name) {
  const m = dts.match(new RegExp('export type ' + name + ' =([^;]*);'));
  assert.ok(m, name);
  return [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1]);
}
function members(dts, name) {
  const m = dts.match(new RegExp('export interface ' + name + ' \\{([\\s\\S]*?)\\n\\}'));
  assert.ok(m, name);
  const body = m[1].replace(/\/\*\*[\s\S]*?\*\//g, '');
  return Object.fromEntries(
    [...body.matchAll(/^ {2}(\w+)\??: ([^;]*);/gm)].map((x) => [x[1], x[2].trim()]),
  );
}

test("the .d.ts names the module's stage ids, parts, kinds and configuration keys", async () => {
  const api = await loadApi();
  const dts = fs.readFileSync(path.join(root, 'web/causal-attention.d.ts'), 'utf8');
  assert.deepEqual(union(dts, 'StageId'), [...api.stageIds]);
  assert.deepEqual(union(dts, 'Part'), [...new Set(api.stages.map((s) => s.part))]);
  assert.deepEqual(
    union(dts, 'StageKind').sort(),
    [...new Set(api.stages.map((s) => s.kind))].sort(),
  );
  assert.deepEqual(
    union(dts, 'SettingType').sort(),
    [...new Set(api.settings.map((s) => s.type))].sort(),
  );
  const rng = api.settings.find((s) => s.key === 'rng');
  assert.deepEqual(
    union(dts, 'DropoutRng'),
    rng.choices.map((c) => c.value),
  );
  // Each key of Config and ResolvedConfig, in the table's order, typed as its setting says.
  const types = {
    inputs: ['Array<number[] | ArrayLike<number>> | RandnInputs', 'number[][] | { randn'],
    strings: ['string[]', 'string[]'],
    integer: ['number', 'number'],
    seed: ['Seed', 'ResolvedSeed'],
    probability: ['number', 'number'],
    boolean: ['boolean', 'boolean'],
    choice: ['DropoutRng', 'DropoutRng'],
  };
  const config = members(dts, 'Config');
  const resolved = members(dts, 'ResolvedConfig');
  const keys = api.settings.map((s) => s.key);
  assert.deepEqual(Object.keys(config), keys);
  assert.deepEqual(Object.keys(resolved), keys);
  for (const s of api.settings) {
    assert.equal(config[s.key], types[s.type][0], s.key);
    assert.ok(resolved[s.key].startsWith(types[s.type][1]), s.key + ': ' + resolved[s.key]);
  }
  // The fields of StageInfo and Setting are the tables' fields.
  assert.deepEqual(Object.keys(members(dts, 'StageInfo')), Object.keys(api.stages[0]));
  assert.deepEqual(Object.keys(members(dts, 'Setting')), Object.keys(api.settings[0]));
  assert.deepEqual(Object.keys(members(dts, 'Operand')), Object.keys(api.stages[1].operands[0]));
  // api.notebook(config): declared as the module has it (tests/js/notebook.test.js runs it).
  assert.match(dts, /^ {2}notebook\(config\?: Config\): string;$/m);
  assert.equal(typeof api.notebook({}), 'string');
  assert.throws(() => api.notebook({ d_out: 0 }), { message: /d_out/ });
});
