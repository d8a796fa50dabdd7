#!/usr/bin/env bash
# Builds the native CLI and tests (build/native), the WebAssembly module (build/wasm), and
# assembles the self-contained page directory build/web/ (copy it anywhere, or open
# build/web/index.html from disk).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten finds acorn there
export EM_CLOSURE_COMPILER="$root/node_modules/.bin/google-closure-compiler"
jobs="$(nproc)"

cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$jobs"
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j"$jobs"

rm -rf build/web
mkdir -p build/web
cp web/index.html web/style.css web/app.js build/wasm/causal-attention.js build/web/
echo "build: build/web/ is ready ($(du -sb build/web | cut -f1) bytes)"
