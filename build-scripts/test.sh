#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what is missing, builds, then runs the native
# tests (Catch2 through ctest), the same under ASan + UBSan (the asan preset), each libFuzzer
# target for FUZZ_SECONDS (30 s), the mutation check (tests/mutation/run.sh: one more build of
# the tests; CA_MUTATION=0 skips it), the JS tests (the WASM module in Node and the page in
# headless Chromium), the JS linter and formatter check (eslint, prettier: a few seconds) and
# prints the budgets.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
build-scripts/setup.sh
build-scripts/build.sh
out="${CA_BUILD:-$root/build}"
ctest --test-dir "$out/native" --output-on-failure -j"$(nproc)"
# Sanitizers: the core, the CLI and every Catch2 test with ASan + UBSan (leaks included).
cmake --preset asan -B "$out/asan" >/dev/null
cmake --build "$out/asan" -j"$(nproc)" --target ca_tests causal-attention
ctest --test-dir "$out/asan" --output-on-failure -j"$(nproc)"
build-scripts/fuzz.sh "$out/fuzz"
if [ "${CA_MUTATION:-1}" = 1 ]; then tests/mutation/run.sh "$out/mutation"; fi
node --test --test-concurrency=1 tests/js/
npm run --silent lint
build-scripts/budgets.sh
