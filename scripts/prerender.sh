#!/usr/bin/env bash
# Prerenders the release build in dist/ (see e2e/prerender.mjs and static/boot.js):
# every section in both languages as static HTML, and a first page that loads the app's
# WebAssembly only on first use. Run after `trunk build --release`; `make build`,
# `make serve` and `make test` do. Needs node, npm and /usr/bin/chromium (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
if [ ! -f "$dist/index.html" ] || ! ls "$dist"/*.wasm >/dev/null 2>&1; then
  echo "prerender: $dist/ has no release build; run \`trunk build --release\` first" >&2
  exit 1
fi
. scripts/lib.sh
npm_deps
serve_dir "$dist"
BASE_URL="http://127.0.0.1:$port/" node e2e/prerender.mjs "$dist"
