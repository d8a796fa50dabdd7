#!/usr/bin/env bash
# Checks that every C++ file under src/, tests/ and bench/ follows .clang-format (the lint step,
# `npm run lint`, runs it); with --fix, reformats them in place instead (`npm run format`).
# Debian's clang-format 14: other versions break some lines differently.
set -euo pipefail
cd "$(dirname "$0")/.."
format="$(command -v clang-format-14 || command -v clang-format)"
mapfile -t files < <(git ls-files -- 'src/*.cpp' 'src/*.hpp' 'tests/*.cpp' 'tests/*.hpp' \
  'bench/*.cpp' 'bench/*.hpp')
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
else
  "$format" --dry-run --Werror "${files[@]}"
fi
