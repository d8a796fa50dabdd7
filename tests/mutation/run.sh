#!/usr/bin/env bash
# The mutation check: each mutation below changes how a kernel rounds while staying within a
# tolerance of PyTorch, and the Catch2 tests must fail for every one of them. It applies each,
# one at a time, to a copy of the working tree (tracked files, uncommitted edits included),
# rebuilds only what changed and runs ca_tests. Exit 0 only when every mutation is caught.
# A mutation whose pattern is no longer in the source fails loudly: adapt the pattern.
# Usage: tests/mutation/run.sh [build-directory]   (cost: one build of the tests, then ~1 s each)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${1:-${CA_BUILD:-$root/build}/mutation}"
src="$work/src-copy"
rm -rf "$src"
mkdir -p "$src"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | grep -zv '^node_modules' |
  xargs -0 cp --parents -t "$src" 2>/dev/null || true)
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
build() { cmake --build "$work/build" -j2 --target ca_tests >/dev/null; }
build
tests="$work/build/tests/ca_tests"
"$tests" >/dev/null || { echo "mutation: the unmutated tests fail; nothing to check"; exit 1; }

# name | file | regex to find | replacement (Python re syntax)
mutations=(
  "matmul sums its products in reverse order (the kernels' tail tiles, which every golden case with d_out below the vector width runs)|src/core/kernels_tile.hpp|for \(int l = 0; l < klim; \+\+l\) acc \+= a\[l\]|for (int l = klim - 1; l >= 0; --l) acc += a[l]"
  "softmax divides by the sum (/= sum) instead of multiplying by 1/sum|src/core/attention.cpp|1\.0f / (reduce::vec_sum\(w, n, width\));\n(.*)w\[j\] \*= inverse;|\1;\n\2w[j] /= inverse;"
  "softmax adds its exponentials in order, not in reduce_all's 8 lanes|src/core/reduce.cpp|if \(width < 8\) \{|if (true) {"
  "row sums and tensor.sum() take the 4-accumulator path at any length, not SumKernel's 8 lanes|src/core/reduce.cpp|if \(n >= 8\) \{|if (false) {"
  "exp is libm's, not SLEEF's (the vectorised exp then fails its self-check)|src/core/sleef.cpp|float expf_u10\(float x\) \{\n|float expf_u10(float x) {\n  return std::exp(x);\n"
  "scores are scaled by * (1/divisor) instead of / divisor|src/core/attention.cpp|= scores\.row\(i\) / divisor;|= scores.row(i) * (1.0f / divisor);"
  "the causal path's scores, in place, are scaled by * (1/divisor) instead of / divisor|src/core/attention.cpp|w\[j\] /= divisor;|w[j] *= 1.0f / divisor;"
  "a causal row with a NaN or inf runs only its visible cells (its masked cells stay unwritten, not NaN)|src/core/attention.cpp|const int n = full_rows\[i\] \? T : i \+ 1;|const int n = i + 1;"
  "dropout compares its double draws with p in float32 (draws within 2^-25 of p change)|src/core/generator.cpp|v = uniform_double\(gen\) < p \?|v = static_cast<float>(uniform_double(gen)) < static_cast<float>(p) ?"
)
failed=0
for m in "${mutations[@]}"; do
  IFS='|' read -r name file pattern replacement <<<"$m"
  cp "$src/$file" "$work/original"
  if ! python3 - "$src/$file" "$pattern" "$replacement" <<'PY'
import re, sys
path, pattern, replacement = sys.argv[1:]
text = open(path).read()
new, n = re.subn(pattern, replacement, text)
if n != 1:
    sys.exit(f"mutation: pattern {pattern!r} found {n} times in {path} (expected once)")
open(path, "w").write(new)
PY
  then
    failed=1
    continue
  fi
  build
  if "$tests" >"$work/last.log" 2>&1; then
    echo "mutation NOT caught: $name"
    failed=1
  else
    echo "mutation caught: $name ($(grep -Eo '[0-9]+ failed' "$work/last.log" | tail -1) assertions)"
  fi
  cp "$work/original" "$src/$file"
done
build
exit $failed
