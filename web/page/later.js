// app-later.js: what the page needs only after its first table (lib/lazy.js loads it, after
// causal-attention-later.js): lecture mode and "Why are my numbers different?".
export * as lecture from '../lecture.js';
export * as why from '../why.js';
