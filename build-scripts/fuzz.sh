#!/usr/bin/env bash
# Builds the libFuzzer targets (the "fuzz" preset: clang, ASan + UBSan) and runs each from its
# seed corpus in tests/fuzz/corpus/ for a bounded time, FUZZ_SECONDS (default 30) each. Fails on
# any crash, sanitizer report, leak or input slower than 10 s. New inputs go to a scratch copy;
# prints executions and coverage per target. Usage: build-scripts/fuzz.sh [build-directory]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${1:-${CA_BUILD:-$root/build}/fuzz}"
seconds="${FUZZ_SECONDS:-30}"
cmake --preset fuzz -B "$out" >/dev/null
cmake --build "$out" -j"$(nproc)" --target fuzz_config fuzz_roundtrip fuzz_shortest
for target in config roundtrip shortest; do
  scratch="$out/corpus-$target"
  rm -rf "$scratch"
  mkdir -p "$scratch"
  log="$out/fuzz_$target.log"
  # -max_len: 4 KB of configuration; -timeout: seconds per input; leaks are on by default.
  if ! "$out/tests/fuzz/fuzz_$target" "$scratch" "tests/fuzz/corpus/$target" -max_total_time="$seconds" \
      -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: fuzz_$target failed (log: $log)"
    exit 1
  fi
  stats="$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')"
  cov="$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)"
  echo "fuzz: fuzz_$target: $stats executions in ${seconds} s, $cov, corpus $(ls "$scratch" | wc -l) new + $(ls "tests/fuzz/corpus/$target" | wc -l) seeds"
done
