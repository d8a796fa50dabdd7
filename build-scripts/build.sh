#!/usr/bin/env bash
# Builds the native CLI and tests, the WebAssembly module, and assembles the self-contained
# page directory web/ (copy it anywhere, or open web/index.html from disk). Everything goes
# under build/, or under $CA_BUILD (another directory keeps parallel builds apart).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten finds acorn there
export EM_CLOSURE_COMPILER="$root/node_modules/.bin/google-closure-compiler"
jobs="$(nproc)"
out="${CA_BUILD:-$root/build}"

cmake -S . -B "$out/native" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out/native" -j"$jobs"
emcmake cmake -S . -B "$out/wasm" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out/wasm" -j"$jobs"

# The page: web/ is written for readers, build/web gets it minified, with the module.
rm -rf "$out/web"
node src/wasm/pack.js --page web "$out/web"
cp "$out/wasm/causal-attention.js" "$out/web/"

# The npm package: package.json's "files" (the module and its types), README and a package.json
# without the dev tools. `npm pack "$out/package"` makes the tarball.
rm -rf "$out/package"
mkdir -p "$out/package"
cp "$out/wasm/causal-attention.js" web/causal-attention.d.ts README.md LICENSE "$out/package/"
node -e '
const p = require("./package.json");
for (const k of ["private", "scripts", "devDependencies"]) delete p[k];
require("fs").writeFileSync(process.argv[1], JSON.stringify(p, null, 2) + "\n");' "$out/package/package.json"
echo "build: $out/web/ is ready ($(du -sb "$out/web" | cut -f1) bytes)"
