// causal-attention-later.js: what the page and the widget need only after their first table
// (lib/lazy.js loads it): a cell's explanation, the PNG and SVG exports, the embed snippet.
export { explain, operands } from './explain.js';
export { png, svgText } from './export/picture.js';
export { frameHeight, frameSrc, snippet } from './export/embed.js';
