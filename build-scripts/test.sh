#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what is missing, builds, then runs the native
# tests (Catch2 through ctest), the JS tests (the WASM module in Node and the page in headless
# Chromium), the JS linter and formatter check (eslint, prettier: a few seconds) and prints the
# budgets.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
build-scripts/setup.sh
build-scripts/build.sh
ctest --test-dir "${CA_BUILD:-$root/build}/native" --output-on-failure -j"$(nproc)"
node --test --test-concurrency=1 tests/js/
npm run --silent lint
build-scripts/budgets.sh
