#!/usr/bin/env bash
# The comparison of issue 9: the book's CausalAttention and MultiHeadAttention forward (eval)
# on the native core, the WASM module in Node, Debian's PyTorch (reference BLAS) and the same
# PyTorch on OpenBLAS, one thread each. Prints a Markdown table. Options go to compare.py
# (--rows causal, --runs 3, --seconds 1, --rounds 3, --pair-rounds 7 (the core's and
# PyTorch-OpenBLAS's processes, taking turns), --sides native,wasm,torch,openblas, --output FILE).
# A run of every row and side also writes docs/performance-tables.md (dated, with the CPU and
# the load average), which docs/performance.md links to: timings are never copied by hand.
# OpenBLAS is unpacked under the build directory (apt-get download + dpkg -x), never
# installed: the golden files depend on the reference BLAS the system keeps.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${CA_BUILD:-$root/build}"

if [ ! -d "$out/native" ] || [ ! -d "$out/wasm" ]; then
  CA_BUILD="$out" "$root/build-scripts/build.sh"
fi
cmake --build "$out/native" --target ca_compare >/dev/null
(export NODE_PATH=/usr/share/nodejs EM_CLOSURE_COMPILER="$root/node_modules/.bin/google-closure-compiler"
 cmake --build "$out/wasm" --target causal-attention-bench >/dev/null)

blas="$out/openblas/usr/lib/x86_64-linux-gnu/openblas-pthread"
if [ ! -e "$blas/libblas.so.3" ]; then
  echo "compare: unpacking libopenblas0-pthread into $out/openblas" >&2
  tmp="$(mktemp -d)"
  chmod 755 "$tmp"  # apt's download user must be able to write there
  (cd "$tmp" && apt-get download libopenblas0-pthread >/dev/null)
  dpkg -x "$tmp"/libopenblas0-pthread_*.deb "$out/openblas"
  rm -rf "$tmp"
fi

exec /usr/bin/python3 "$root/bench/compare.py" --build "$out" --openblas "$blas" "$@"
