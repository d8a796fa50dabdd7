// The settings a reader can change, the one JS list of them: key, type (int, seed, float,
// bool, choice), the page's group, and which the widget's compact controls offer. Copied from
// the core's configuration (src/core/config.hpp) until the core exports its settings table;
// the values of the defaults come from the core (a run of {}), never from here.
export var settings = [
  { key: 'query_token', type: 'int', group: 'weights' },
  { key: 'seed_v1', type: 'seed', group: 'weights' },
  { key: 'd_out', type: 'int', group: 'v2', compact: true },
  { key: 'seed_weights', type: 'seed', group: 'v2' },
  { key: 'qkv_bias', type: 'bool', group: 'v2' },
  { key: 'scale', type: 'bool', group: 'v2' },
  { key: 'dropout', type: 'float', group: 'dropout', compact: true },
  { key: 'seed_dropout', type: 'seed', group: 'dropout' },
  { key: 'rng', type: 'choice', choices: ['default', 'mkl'], group: 'dropout', compact: true },
  { key: 'train', type: 'bool', group: 'dropout', compact: true },
  { key: 'seed_class', type: 'seed', group: 'class' },
  { key: 'class_dropout', type: 'float', group: 'class' },
  { key: 'context_length', type: 'int', group: 'class', empty: true }, // empty: = T
  { key: 'num_heads', type: 'int', group: 'class' },
];

/** The keys of the settings of `type` ('bool', 'choice'; 'number' for int, seed and float). */
export function keysOf(type) {
  return settings
    .filter(function (s) {
      return type === 'number' ? s.type !== 'bool' && s.type !== 'choice' : s.type === type;
    })
    .map(function (s) {
      return s.key;
    });
}

/** The setting of `key`, or undefined. */
export function setting(key) {
  return settings.filter(function (s) {
    return s.key === key;
  })[0];
}
