#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml), release builds only: the page's and the engine's
# wasm modules, what every learner downloads, through binaryen's `wasm-opt -O2`. binaryen
# 132 is npm's build, pinned in editor/package.json and run by Node: nothing is downloaded
# at build time, and Debian's binaryen 108, which broke the app, is never used.
# Measured (BENCHMARKS.md): -O2 leaves the smallest gzip, about 1 % under rustc's own (-Oz
# and -Os leave more: they order the code so that it compresses worse). The authoring
# module is left as rustc made it: -O2 made it larger. The features are those rustc 1.95
# emits for wasm32-unknown-unknown; wasm-opt stops on anything else.
set -euo pipefail
stage=${TRUNK_STAGING_DIR:?wasm-opt.sh is run by trunk build (Trunk.toml hooks)}
[ "${TRUNK_PROFILE:-release}" = release ] || exit 0
opt=editor/node_modules/binaryen/bin/wasm-opt
[ -f "$opt" ] || { echo "wasm-opt: $opt is missing: run scripts/setup.sh" >&2; exit 1; }
features=(--enable-bulk-memory --enable-sign-ext --enable-mutable-globals
  --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue)
# Trunk starts its hooks together, and lesson-text.sh reads the page's module meanwhile:
# each module is written beside itself, then renamed over it in one step.
for wasm in "$stage"/app-*_bg.wasm "$stage"/engine_bg.wasm; do
  node "$opt" -O2 "${features[@]}" "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
done
