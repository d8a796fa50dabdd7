// app-later.js (page/later.js: lecture mode, "Why are my numbers different?"), loaded after
// the first table; it reads the explanations' bundle, loaded first (lib/lazy.js).
import { LIB_LATER, later, loaded, preload } from '../lib/lazy.js';

var FILE = 'app-later.js';

/** A promise of app-later.js's namespace. */
export function pageLater() {
  return later(FILE, LIB_LATER);
}
/** Its namespace if it has run, else undefined. */
export function pageLoaded() {
  return loaded(FILE);
}
/** Loads both after the next frame is painted, when the page is idle. */
export function preloadPage() {
  return preload(FILE, LIB_LATER);
}
