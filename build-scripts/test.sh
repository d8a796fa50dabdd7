#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what is missing, builds, then runs the native
# tests (Catch2 through ctest), the same under ASan + UBSan (the asan preset, with timeouts ten
# times Release's: a loaded 2-core machine once took 60 s for an 18 s case), each libFuzzer
# target for FUZZ_SECONDS (30 s), the mutation check (tests/mutation/run.sh: one more build of
# the tests; CA_MUTATION=0 skips it), the JS tests (the WASM module in Node and the page in
# headless Chromium), the JS linter and formatter check (eslint, prettier: a few seconds) and
# the budgets. Every stage runs even when one before it failed. The last line counts tests:
# ctest's cases, node's tests and each mutation, plus one for each other stage, as
# "N passed, N failed"; the exit code is 1 when anything failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${CA_BUILD:-$root/build}"
log="$out/test-logs"
mkdir -p "$log"
passed=0
failed=0
failures=()
start=$SECONDS

# count NAME PASSED FAILED: adds a stage's counts; a stage that reported none failed.
count() {
  if [ -z "$2$3" ] || [ "$(($2 + $3))" = 0 ]; then
    failed=$((failed + 1))
    failures+=("$1 (no tests ran)")
    return
  fi
  passed=$((passed + $2))
  failed=$((failed + $3))
  if [ "$3" != 0 ]; then failures+=("$1 ($3 failed)"); fi
}
# stage NAME COMMAND...: runs it with its output shown and kept in $log/NAME.log.
stage() {
  local name="$1" t=$SECONDS
  shift
  echo "== $name"
  "$@" 2>&1 | tee "$log/$name.log"
  local rc="${PIPESTATUS[0]}"
  echo "== $name: exit $rc, $((SECONDS - t)) s"
  return "$rc"
}
# ctest's "N tests failed out of M" as counts.
ctest_counts() {
  local line
  line="$(grep -Eo '[0-9]+ tests failed out of [0-9]+' "$log/$1.log" | tail -1)"
  if [ -z "$line" ]; then
    count "$1" 0 0
  else
    local f="${line%% *}" total="${line##* }"
    count "$1" $((total - f)) "$f"
  fi
}
whole() { if [ "$2" = 0 ]; then count "$1" 1 0; else count "$1" 0 1; fi; }

stage setup build-scripts/setup.sh
whole setup $?
stage build build-scripts/build.sh
whole build $?

stage ctest ctest --test-dir "$out/native" --output-on-failure -j"$(nproc)"
ctest_counts ctest

# Sanitizers: the core, the CLI and every Catch2 test with ASan + UBSan (leaks included).
asan() {
  cmake --preset asan -B "$out/asan" -DCA_TEST_TIMEOUT=900 >/dev/null &&
    cmake --build "$out/asan" -j"$(nproc)" --target ca_tests causal-attention &&
    ASAN_OPTIONS=detect_leaks=1 ctest --test-dir "$out/asan" --output-on-failure -j"$(nproc)"
}
stage asan asan
ctest_counts asan

stage fuzz build-scripts/fuzz.sh "$out/fuzz"
whole fuzz $?

if [ "${CA_MUTATION:-1}" = 1 ]; then
  stage mutation tests/mutation/run.sh "$out/mutation"
  rc=$?
  count mutation "$(grep -c '^mutation caught' "$log/mutation.log")" \
    "$(grep -c '^mutation NOT caught\|^mutation: ' "$log/mutation.log")"
  if [ "$rc" != 0 ] && ! grep -q '^mutation NOT caught\|^mutation: ' "$log/mutation.log"; then
    count mutation 0 1  # it failed before checking any mutation (e.g. the build)
  fi
fi

stage node node --test --test-concurrency=1 --test-reporter=tap tests/js/
count node "$(grep -Eo '^# pass [0-9]+' "$log/node.log" | awk '{print $3}')" \
  "$(grep -Eo '^# fail [0-9]+' "$log/node.log" | awk '{print $3}')"

stage lint npm run --silent lint
whole lint $?
stage budgets build-scripts/budgets.sh
whole budgets $?

echo "test: $((SECONDS - start)) s; logs in $log"
for f in "${failures[@]}"; do echo "FAILED: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
