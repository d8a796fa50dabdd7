// The page's URL hash, all of it: the configuration's keys (web/hash.js's grammar), and the
// page's own: preset=NAME, stage=ID (a link to a stage; with lecture, the slide), lecture.
//
//   #d_out=4&rng=mkl&stage=dropout_example       a configuration, scrolled to a stage
//   #preset=gpt2                                  exercise 3.3's preset
//   #qkv_bias&stage=attn_weights_causal&lecture   lecture mode on that slide
//   #masked                                       a bare stage or section id links to it too
//
// It reads a hash into state, and writes the state back (replaceState: no history entry per
// edit; after the edit's frame is painted) whenever the configuration, preset, lecture slide or
// linked stage change.
import { parse, stringify } from '../hash.js';
import * as store from './store.js';
import { isRecord, merge } from '../lib/own.js';
import { afterFrame } from './frame.js';

var written = null, // the hash this page last wrote or followed: not a navigation when seen again
  due = null; // the state whose hash waits to be written

/** The state a hash asks for: {config, preset, anchor, lecture: {on, stage}}; throws an Error
 *  saying why a hash is not valid. `known`: {stageIds, sections, presets} of the module. */
export function read(hash, known) {
  var c = parse(hash),
    out = { config: {}, preset: null, anchor: null, lecture: { on: false, stage: '' } };
  if (!isRecord(c)) throw new Error('not a JSON object');
  var anchor = typeof c.stage === 'string' ? c.stage : null;
  out.lecture = { on: c.lecture === true, stage: anchor || '' };
  Object.keys(c).forEach(function (k) {
    var bare =
      c[k] === true &&
      (known.stageIds.indexOf(k) >= 0 ||
        known.sections.some(function (x) {
          return x.id === k;
        }));
    if (bare) anchor = k; // #masked: a link to that stage or section
    if (bare || k === 'stage' || k === 'lecture') delete c[k]; // the page's keys, not config
  });
  if ('preset' in c) {
    var name = c.preset;
    if (!Object.prototype.hasOwnProperty.call(known.presets, name) || name === 'book')
      throw new Error('no preset "' + name + '"'); // own names only: not "constructor"
    delete c.preset;
    out.preset = name;
    c = merge(known.presets[name].config, c);
  }
  out.config = c;
  out.anchor = out.lecture.on ? null : anchor;
  return out;
}

/** The hash of state s (without "#"): preset, configuration, then the linked stage or slide. */
export function hashOf(s, stage) {
  var page = s.lecture.on
    ? { stage: s.lecture.stage, lecture: true }
    : { stage: (stage === undefined ? s.anchor : stage) || undefined };
  return [
    s.preset ? 'preset=' + encodeURIComponent(s.preset) : '',
    stringify(s.config),
    stringify(page),
  ]
    .filter(Boolean)
    .join('&');
}

/** The link to the current state, scrolled to `stage`. */
export function link(stage) {
  var s = Object.assign({}, store.get(), { lecture: { on: false } }),
    hash = hashOf(s, stage || null);
  return location.href.replace(/#.*$/, '') + (hash ? '#' + hash : '');
}

// push: a new history entry (a lecture slide: Back and Forward step through the slides).
function write(s, push) {
  if (push) due = null; // an older edit's hash is not written after it
  if (s.keepHash) return; // an invalid link stays in the address bar, to be read and fixed
  var hash = hashOf(s);
  hash = hash ? '#' + hash : '';
  written = hash;
  if (location.hash !== hash)
    history[push ? 'pushState' : 'replaceState'](
      null,
      '',
      hash || location.pathname + location.search,
    );
}

// An edit's hash is written after its frame is painted: replaceState waits for the style and
// layout of the tables just changed (7-13 ms of the book's edit, 54 ms at T = 32 traced); a new
// history entry (a slide) at once. The newest state's hash only; pagehide writes one still due.
function soon(s) {
  due = s;
  afterFrame(flush);
}
function flush() {
  var s = due;
  due = null;
  if (s) write(s, false);
}

/** Keeps the address bar in step with the store, and calls navigate(hash) when the reader
 *  changes the hash (an edited address, a link inside the page). */
export function start(navigate) {
  var slide = '';
  store.subscribe(function (s, patch) {
    if (
      'config' in patch ||
      'preset' in patch ||
      'lecture' in patch ||
      'anchor' in patch ||
      'keepHash' in patch
    ) {
      // A move between slides (or in or out of lecture mode) by the reader is a history entry.
      if (
        'lecture' in patch &&
        !('result' in patch) &&
        (s.lecture.on ? s.lecture.stage : '') !== slide
      )
        write(s, true);
      else soon(s);
    }
    slide = s.lecture.on ? s.lecture.stage : '';
  });
  // One move of the reader's can fire both events (setting location.hash: popstate, then
  // hashchange): it is followed once.
  function moved() {
    due = null; // the reader's address wins over an edit's not yet written
    if (location.hash === written) return;
    written = location.hash;
    navigate(location.hash);
  }
  addEventListener('pagehide', flush);
  addEventListener('hashchange', moved);
  addEventListener('popstate', moved); // Back and Forward between pushed entries
}
