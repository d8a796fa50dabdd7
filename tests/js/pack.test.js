// src/wasm/pack.js minifies the page's CSS with a real parser: a descendant combinator before
// a pseudo-class (`a :hover`) stays one, comments and blank space go.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { root } = require('./support');

test('the CSS minifier keeps `a :hover` a descendant selector', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ca-pack-'));
  try {
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(
      path.join(dir, 'src/style.css'),
      '/* a comment */\nnav a :hover { color : red ; }\n.x > .y , .z::before { content : "a  b" }\n',
    );
    execFileSync('node', [
      path.join(root, 'src/wasm/pack.js'),
      '--page',
      path.join(dir, 'src'),
      path.join(dir, 'out'),
    ]);
    assert.equal(
      fs.readFileSync(path.join(dir, 'out/style.css'), 'utf8'),
      'nav a :hover{color:red}.x>.y,.z::before{content:"a  b"}',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
