#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): puts the lesson's text beside the page's module.
# The page's module is built without the `inline-text` feature: it names the parts of the
# text it was built with, `lesson-text-<FNV-1a hash>.txt` (what every language reads) and
# `lesson-text-<lang>-<hash>.txt` (each language's words; src/text.rs), which build.rs
# wrote into its OUT_DIR. This copies them into the build and names them in index.html
# (<meta name="lockstep-text">, separated by spaces) so that static/boot.js can fetch
# them beside the wasm.
set -euo pipefail
stage=${TRUNK_STAGING_DIR:?lesson-text.sh is run by trunk build (Trunk.toml hooks)}
profile=${TRUNK_PROFILE:-release}
pattern='lesson-text-([a-z]{2,3}-)?[0-9a-f]{16}\.txt'
wasm=$(ls "$stage"/app-*_bg.wasm 2>/dev/null | head -1)
[ -n "$wasm" ] || { echo "lesson-text: no app-*_bg.wasm in $stage" >&2; exit 1; }
names=$(grep -aoE "$pattern" "$wasm" | sort -u | tr '\n' ' ' | sed 's/ $//' || true)
[ -n "$names" ] || { echo "lesson-text: $wasm names no lesson-text-<hash>.txt" >&2; exit 1; }
target=${CARGO_TARGET_DIR:-target}
for name in $names; do
  src=$(ls -t "$target"/wasm32-unknown-unknown/"$profile"/build/lockstep-*/out/"$name" 2>/dev/null | head -1 || true)
  [ -n "$src" ] || { echo "lesson-text: $name is not under $target/wasm32-unknown-unknown/$profile/build/" >&2; exit 1; }
  cp "$src" "$stage/$name"
done
# The engine's and the authoring modules (built without `inline-text` too) must read the
# same parts.
for other in engine authoring; do
  [ -f "$stage/${other}_bg.wasm" ] || continue
  theirs=$(grep -aoE "$pattern" "$stage/${other}_bg.wasm" | sort -u | tr '\n' ' ' | sed 's/ $//' || true)
  [ -z "$theirs" ] || [ "$theirs" = "$names" ] || {
    echo "lesson-text: the $other module names $theirs, the page's $names" >&2; exit 1; }
done
grep -q 'name="lockstep-text"' "$stage/index.html" ||
  sed -i "s|</head>|<meta name=\"lockstep-text\" content=\"$names\"></head>|" "$stage/index.html"
grep -q "content=\"$names\"" "$stage/index.html" || { echo "lesson-text: could not name $names in index.html" >&2; exit 1; }
