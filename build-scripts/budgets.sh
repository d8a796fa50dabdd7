#!/usr/bin/env bash
# Prints the budgets of issue #3 for the built page: its gzip size (asserted: at most 72,000
# bytes, else exit 1), the time from navigation to all tables rendered, the time of a recompute
# after an edit and of a bare api.run({}) in headless Chromium (reported, never asserted), and
# the core's benchmark. Measures build/, or $CA_BUILD like build.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export CA_BUILD="${CA_BUILD:-$root/build}"
exec node build-scripts/budgets.js "$@"
