// The core's tables as the JS side sees them, filled once when the module loads (api.js): a
// stage's facts (id, title, section, axes, kind, causal, dropout...), the sections, the limits
// the presets, the settings and the cost model. Renderers read facts here, never from a global.
var stages = {};
export var tables = {
  sections: [],
  limits: {},
  presets: {},
  defaults: {},
  settings: [],
  cost: null, // api.cost: what a run costs (the core's cost model)
};

/** The facts of stage `id` (its row of the core's stage table), undefined before load. */
export function info(id) {
  return stages[id];
}

/** Called once by api.js with the core's stage table, presets, settings table and cost. */
export function setTables(table, presets, settings, cost) {
  table.stages.forEach(function (s) {
    stages[s.id] = s;
  });
  tables.sections = table.sections;
  tables.limits = table.limits;
  tables.defaults = table.defaults;
  tables.presets = presets;
  tables.settings = settings;
  tables.cost = cost;
}
