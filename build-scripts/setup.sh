#!/usr/bin/env bash
# Installs what building and testing need, when missing: Debian packages (as root, or with
# sudo) and the npm tools pinned in package-lock.json. Idempotent; safe to run every time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

packages=(
  cmake g++ make pkg-config          # the native build
  libeigen3-dev                      # the core
  libcli11-dev                       # the CLI
  catch2 nlohmann-json3-dev          # native tests (they read the golden files with nlohmann)
  libbenchmark-dev                   # benchmarks
  clang libclang-rt-14-dev           # the asan preset and the libFuzzer targets (fuzz.sh)
  clang-format                       # the lint step checks the C++ against .clang-format
  emscripten                         # the WebAssembly build (pulls binaryen, clang, lld)
  chromium                           # browser tests, driven by playwright-core
  python3                            # serve.sh's static server
  hugo jekyll                        # the blog snippets (docs/embed) built in tests
  python3-torch                      # the torch-literal export test reads it back with torch
)
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm tools (closure compiler, playwright-core, axe-core): reinstalled only when the lock changes.
cd "$root"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
fi
