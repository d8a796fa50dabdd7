// A cell's explanation (how the core computed it, from the stages' own float32 values) and
// the operands it names. One module per part of a section of the chapter (explain/*.js) holds
// its stages' explanations: `stages` by stage id, `kinds` for every stage of a kind in its
// sections (weights, masks); the stage table says which section a stage is in and what it
// reads (its operands), so a section's module names no other section's stages.
import { info as stageInfo } from './facts.js';
import { f32 } from './format.js';
import * as batch from './explain/batch.js';
import * as bonus from './explain/bonus.js';
import { context } from './explain/common.js';
import * as heads from './explain/heads.js';
import * as kv from './explain/kv.js';
import * as mask from './explain/mask.js';
import * as self from './explain/self.js';
import * as simple from './explain/simple.js';
import * as v1 from './explain/v1.js';

var bySection = {}; // section id -> its modules (§3.5.1: self.js, then mask.js)
[simple, v1, self, mask, batch, heads, bonus, kv].forEach(function (m) {
  m.sections.forEach(function (s) {
    (bySection[s] = bySection[s] || []).push(m);
  });
});

/** How element [b, i, j] of stage `id` was computed, as a fragment of <p> lines. */
export function explain(wt, id, b, i, j, doc) {
  var x = context(wt, id, b, i, j),
    how = null;
  (bySection[x.info.section] || []).forEach(function (m) {
    how = how || (m.stages && m.stages[id]) || (m.kinds && m.kinds[x.info.kind]);
  });
  if (how) how(x);
  x.lines.push('float32 value: ' + (isFinite(x.v) ? f32(x.v) : x.V));
  var fragment = (doc = doc || document).createDocumentFragment();
  x.lines.forEach(function (line) {
    fragment.appendChild(doc.createElement('p')).textContent = line;
  });
  return fragment;
}

/** The operands of element [i, j] of stage `id` (its explanation's inputs), as [stage, 'row'
 *  or 'col', index], from the core's stage table: the row of queries and the key behind a
 *  score, the row of weights and the column of values behind a context value... Operands read
 *  whole (3-D and 4-D stages, biases) mark no table. */
export function operands(id, i, j) {
  return stageInfo(id)
    .operands.filter(function (o) {
      return o.axis;
    })
    .map(function (o) {
      return [o.id, o.axis, o.index === 'i' ? i : j];
    });
}
