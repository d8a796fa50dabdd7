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

# The page: web/ is written for readers, build/web gets it minified, with the module (and the
# book's run, computed by the module, inside app.js: the page paints it before loading the wasm).
rm -rf "$out/web"
mkdir -p "$out/web"
cp "$out/wasm/causal-attention.js" "$out/wasm/causal-attention-wasm.js" \
  "$out/wasm/causal-attention-wasm-data.js" "$out/wasm/causal-attention-later.js" "$out/web/"
node src/wasm/pack.js --page web "$out/web" "$out/web/causal-attention.js"

# The npm package (build-scripts/package.js): the module, its ESM and browser entries, types,
# README, LICENSE and a package.json without the dev tools. Pack it with
# `npm pack ./build/package` (the "./" matters: without it npm reads a GitHub shorthand).
rm -rf "$out/package"
node build-scripts/package.js "$out/wasm/causal-attention.js" "$out/package"
echo "build: $out/web/ is ready ($(du -sb "$out/web" | cut -f1) bytes)"
