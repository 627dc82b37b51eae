#!/usr/bin/env bash
# The engine's workers for the browser tests' page, built as the app ships them: the
# engine's module (src/bin/engine.rs) and the authoring module (src/bin/authoring.rs, the
# pack requests' worker) as no-modules wasm-bindgen glue and wasm, beside
# static/engine-worker.js, in target/web-engine/. wasm-bindgen-test-runner serves the
# crate's directory behind its own files, so the tests' page starts the worker at
# /target/web-engine/engine-worker.js (tests/web_common: `fresh`), and the labs' sandboxes
# take the engine from there too: the tests run the path learners get.
# Built with the tests' features (the lesson's text inside; `authoring` in both, so the two
# share the tests' build of the library), in the tests' debug profile; with `--release`,
# in the release profile, for tests/bench_ui.rs (BENCHMARKS.md), as the app ships it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
profile=debug release=()
[ "${1:-}" = --release ] && profile=release release=(--release)
cargo build "${release[@]}" --target wasm32-unknown-unknown --bin engine --bin authoring
target_dir=$(cargo metadata --format-version 1 --no-deps | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')
out=target/web-engine
mkdir -p "$out"
for module in engine authoring; do
  wasm-bindgen --target no-modules --no-typescript --out-dir "$out" --out-name "$module" \
    "$target_dir/wasm32-unknown-unknown/$profile/$module.wasm"
done
cp static/engine-worker.js "$out/engine-worker.js"
