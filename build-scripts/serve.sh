#!/usr/bin/env bash
# Builds the demo and serves build/web/ on 127.0.0.1 (PORT, default 8000).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/build-scripts/setup.sh"
"$root/build-scripts/build.sh"
port="${PORT:-8000}"
echo
echo "Serving the demo at http://127.0.0.1:${port}/  (Ctrl-C stops it)"
exec python3 -m http.server --bind 127.0.0.1 "$port" --directory "${CA_BUILD:-$root/build}/web"
