// Where the module's bytes go: code bytes per function and per origin (a source file of the
// core, libc++, libc, ...), data-segment bytes, and each section's size, raw and deflated.
//
//   node build-scripts/wasm-sizes.js MODULE.wasm [OBJECT.o | LIB.a ...] [--top N]
//
// Function names come from the wasm's name section, which the page's module strips; the
// target causal-attention-named links the same code with it:
//   cmake --build $CA_BUILD/wasm --target causal-attention-named
//   L=/usr/share/emscripten/cache/sysroot/lib/wasm32-emscripten
//   node build-scripts/wasm-sizes.js $CA_BUILD/wasm/causal-attention-named.wasm \
//     $CA_BUILD/wasm/CMakeFiles/causal-attention-named.dir/src/wasm/bindings.cpp.o \
//     $CA_BUILD/wasm/libca_core.a $L/libc++-noexcept.a $L/libc++abi.a $L/libc.a \
//     $L/libembind-rtti.a $L/libemmalloc.a
// An origin is the object file (or archive member) that defines the function's symbol, read
// with llvm-nm; functions inlined into others count where they ended up.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');

const SECTIONS = [
  'custom',
  'type',
  'import',
  'function',
  'table',
  'memory',
  'global',
  'export',
  'start',
  'element',
  'code',
  'data',
  'datacount',
];

function reader(buf, pos = 0) {
  return {
    get pos() {
      return pos;
    },
    set pos(p) {
      pos = p;
    },
    byte: () => buf[pos++],
    u32() {
      let x = 0,
        shift = 0,
        b;
      do {
        b = buf[pos++];
        x += (b & 0x7f) * 2 ** shift;
        shift += 7;
      } while (b & 0x80);
      return x;
    },
    name() {
      const n = this.u32();
      const s = buf.toString('utf8', pos, pos + n);
      pos += n;
      return s;
    },
  };
}

function parse(buf) {
  const r = reader(buf, 8),
    sections = [],
    bodies = [],
    names = new Map(),
    data = [];
  let imported = 0;
  while (r.pos < buf.length) {
    const id = r.byte(),
      size = r.u32(),
      start = r.pos,
      end = start + size;
    let label = SECTIONS[id];
    if (id === 0) label = `custom "${r.name()}"`;
    sections.push({ label, size: end - start, bytes: buf.subarray(start, end) });
    if (id === 2) {
      for (let n = r.u32(); n > 0; n--) {
        r.name();
        r.name();
        const kind = r.byte();
        if (kind === 0) (imported++, r.u32());
        else if (kind === 1) (r.byte(), limits(r));
        else if (kind === 2) limits(r);
        else if (kind === 3) (r.byte(), r.byte());
      }
    } else if (id === 10) {
      for (let n = r.u32(); n > 0; n--) {
        const len = r.u32();
        bodies.push(buf.subarray(r.pos, r.pos + len));
        r.pos += len;
      }
    } else if (id === 11) {
      for (let n = r.u32(); n > 0; n--) {
        const flags = r.u32();
        if (flags === 0 || flags === 2) {
          if (flags === 2) r.u32();
          while (buf[r.pos++] !== 0x0b); // the offset expression
        }
        const len = r.u32();
        data.push(buf.subarray(r.pos, r.pos + len));
        r.pos += len;
      }
    } else if (label === 'custom "name"') {
      while (r.pos < end) {
        const sub = r.byte(),
          len = r.u32(),
          next = r.pos + len;
        if (sub === 1) for (let n = r.u32(); n > 0; n--) names.set(r.u32(), r.name());
        r.pos = next;
      }
    }
    r.pos = end;
  }
  const functions = bodies.map((b, i) => ({
    name: names.get(imported + i) || `#${imported + i}`,
    size: b.length,
    body: b,
  }));
  return { sections, functions, data, named: names.size > 0 };
}

function limits(r) {
  if (r.byte() & 1) (r.u32(), r.u32());
  else r.u32();
}

// symbol -> origin, from the defined functions of each object file or archive member.
function origins(files) {
  const map = new Map();
  for (const f of files) {
    const out = execFileSync('llvm-nm', ['--defined-only', '-A', '-C', f], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      stdio: ['ignore', 'pipe', 'ignore'], // "no symbols" notes
    });
    for (const line of out.split('\n')) {
      const m = /^(.*?): *(?:[0-9a-f]+ )?([TtWw]) (.+)$/.exec(line);
      if (!m) continue;
      const member = /\.a:(.*)$/.exec(m[1]);
      const origin = member
        ? `${path.basename(f)}(${member[1]})`
        : path.basename(m[1]).replace(/\.o$/, '');
      if (!map.has(m[3])) map.set(m[3], origin);
    }
  }
  return map;
}

const deflated = (b) => zlib.deflateRawSync(b, { level: 9 }).length;
const group = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const col = (n, w = 9) => group(n).padStart(w);

function main() {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? +args.splice(topAt, 2)[1] : 40;
  const [wasm, ...objects] = args;
  if (!wasm) {
    console.error(
      'usage: node build-scripts/wasm-sizes.js MODULE.wasm [OBJECT.o | LIB.a ...] [--top N]',
    );
    process.exit(2);
  }
  const buf = fs.readFileSync(wasm);
  const { sections, functions, data, named } = parse(buf);
  console.log(`${wasm}: ${group(buf.length)} bytes raw, ${group(deflated(buf))} deflated`);
  console.log('\nSections                        raw  deflated');
  for (const s of sections) {
    console.log(`  ${s.label.padEnd(24)} ${col(s.size)} ${col(deflated(s.bytes))}`);
  }
  const dataBytes = data.reduce((a, d) => a + d.length, 0);
  console.log(`\nData segments: ${data.length}, ${group(dataBytes)} bytes`);
  if (!named) {
    console.log('\n(no name section: link with --profiling-funcs for functions and origins)');
    return;
  }
  const map = origins(objects);
  const byOrigin = new Map();
  functions.forEach((f) => {
    f.origin =
      map.get(f.name) ||
      (/^\$?(dynCall|legalstub|stack|emscripten_)/.test(f.name) ? 'runtime' : '?');
    const o = byOrigin.get(f.origin) || { size: 0, count: 0, bodies: [] };
    o.size += f.size;
    o.count++;
    o.bodies.push(f.body);
    byOrigin.set(f.origin, o);
  });
  const code = functions.reduce((a, f) => a + f.size, 0);
  console.log(
    `\nCode by origin (${functions.length} functions, ${group(code)} bytes)   raw  deflated  functions`,
  );
  [...byOrigin]
    .sort((a, b) => b[1].size - a[1].size)
    .forEach(([origin, o]) =>
      console.log(
        `  ${origin.padEnd(44)} ${col(o.size)} ${col(deflated(Buffer.concat(o.bodies)))} ${col(o.count, 6)}`,
      ),
    );
  console.log(`\nThe ${top} biggest functions`);
  [...functions]
    .sort((a, b) => b.size - a.size)
    .slice(0, top)
    .forEach((f) =>
      console.log(`  ${col(f.size, 7)}  ${f.origin.padEnd(28)} ${f.name.slice(0, 110)}`),
    );
}

main();
