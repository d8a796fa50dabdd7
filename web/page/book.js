// The book's page without the module: the core's tables and the book's run, computed by the
// module itself at build time (src/wasm/pack.js writes page/snapshot.js into app.js), each
// stage's float32 bits as computed. The page paints its first tables from them and loads
// causal-attention.js (the wasm) after, for edits; only the book's exact configuration (no key
// in the hash but a stage, a section or lecture mode) is shown from them.
import { setTables } from '../lib/facts.js';
import { withTexts } from '../lib/texts.js';
import { snapshot } from './snapshot.js';

var decoded = null;

// base64 of a Float32Array's bytes (little-endian, as written) back into one.
function floats(text) {
  var raw = atob(text),
    bytes = new Uint8Array(raw.length);
  for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

// A setting as the module has it: its seeds' ranges written as {bigint: text} (src/wasm/pack.js).
function setting(st) {
  var out = {};
  Object.keys(st).forEach(function (k) {
    var v = st[k];
    out[k] = v && typeof v === 'object' && typeof v.bigint === 'string' ? BigInt(v.bigint) : v;
  });
  return out;
}

/** The records of a list written by columns (src/wasm/pack.js): [keys, one row per record]. */
function records(cols) {
  return cols.slice(1).map(function (row) {
    var r = {};
    cols[0].forEach(function (k, i) {
      r[k] = row[i];
    });
    return r;
  });
}

/** {known, result}: the module's tables as url.read, stages.build and form.show read them
 *  (stageIds, stages, sections, limits, defaults, settings, presets; facts.js is filled with
 *  them), and the book's walkthrough as api.run({}) returns it; null when the page was built
 *  without the module. */
export function book() {
  if (!snapshot) return null;
  if (!decoded) {
    var s = snapshot,
      // the notes and help are the library's (lib/texts.js), not the snapshot's
      settings = withTexts(records(s.settings).map(setting), 'help'),
      stages = withTexts(records(s.stages), 'note'),
      ran = stages.filter(function (t) {
        return s.result.skip.indexOf(t.id) < 0;
      }),
      known = {
        stageIds: stages.map(function (st) {
          return st.id;
        }),
        stages: stages,
        sections: records(s.sections),
        limits: s.limits,
        defaults: s.defaults,
        settings: settings,
        presets: s.presets,
      };
    setTables(known, s.presets, settings, null); // the cost model arrives with the module
    decoded = {
      known: known,
      result: {
        config: s.result.config,
        // the run's stages are the table's but `skip`, in order; a title or code that is the
        // stage table's is null in the snapshot (src/wasm/pack.js)
        stages: records(s.result.stages).map(function (st, k) {
          var t = ran[k];
          return Object.assign({ id: t.id }, st, {
            title: st.title === null ? t.title : st.title,
            code: st.code === null ? t.code : st.code,
            data: floats(st.data),
          });
        }),
      },
    };
  }
  return decoded;
}

/** Whether state `next` (page/url.js's read) is the book's exact configuration. */
export function isBook(next) {
  return !next.preset && Object.keys(next.config).length === 0;
}
