// app-later.js: what the page needs only after its first table (lib/lazy.js loads it, after
// causal-attention-later.js): lecture mode, "Why are my numbers different?", the map of the
// chapter and exercise 3.3's Worker pool (page/pool.js).
export * as lecture from '../lecture.js';
export * as map from './map.js';
export * as pool from './pool.js';
export * as why from '../why.js';
