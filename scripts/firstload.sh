#!/usr/bin/env bash
# The first page of the prerendered release build, in Chromium (e2e/firstload.mjs):
# fails if it downloads more than 350 KiB gzip or any WebAssembly before first use, or
# if the first use does not start the app; prints first-render and first-use times.
#   bash scripts/firstload.sh [HELLO_DIST]   (HELLO_DIST: a built benches/hello/, to compare)
#   DIST=/tmp/other-dist bash scripts/firstload.sh   checks another build than dist/
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${DIST:-dist}
grep -q data-lockstep-boot "$dist/index.html" 2>/dev/null || {
  echo "firstload: $dist/ is not a prerendered release build; run \`make build\` first" >&2; exit 1; }
. scripts/lib.sh
npm_deps
serve_dir "$dist"
if [ -n "${1:-}" ]; then
  hello_port=$(free_port)
  node e2e/serve.mjs "$1" "$hello_port" >/dev/null &
  hello=$!
  trap 'kill "$server" "$hello" 2>/dev/null || true' EXIT
  sleep 0.5
  export HELLO_URL="http://127.0.0.1:$hello_port/"
fi
BASE_URL="http://127.0.0.1:$port/" node e2e/firstload.mjs
