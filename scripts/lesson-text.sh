#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): puts the lesson's text beside the page's module.
# The page's module is built without the `inline-text` feature: it names the text it was
# built with, `lesson-text-<FNV-1a hash>.txt` (src/text.rs), which build.rs wrote into
# its OUT_DIR. This copies that file into the build and names it in index.html
# (<meta name="lockstep-text">) so that static/boot.js can fetch it beside the wasm.
set -euo pipefail
stage=${TRUNK_STAGING_DIR:?lesson-text.sh is run by trunk build (Trunk.toml hooks)}
profile=${TRUNK_PROFILE:-release}
wasm=$(ls "$stage"/app-*_bg.wasm 2>/dev/null | head -1)
[ -n "$wasm" ] || { echo "lesson-text: no app-*_bg.wasm in $stage" >&2; exit 1; }
name=$(grep -aoE 'lesson-text-[0-9a-f]{16}\.txt' "$wasm" | head -1 || true)
[ -n "$name" ] || { echo "lesson-text: $wasm names no lesson-text-<hash>.txt" >&2; exit 1; }
target=${CARGO_TARGET_DIR:-target}
src=$(ls -t "$target"/wasm32-unknown-unknown/"$profile"/build/lockstep-*/out/"$name" 2>/dev/null | head -1 || true)
[ -n "$src" ] || { echo "lesson-text: $name is not under $target/wasm32-unknown-unknown/$profile/build/" >&2; exit 1; }
cp "$src" "$stage/$name"
# The engine's, the authoring and the lab panel's modules (built without `inline-text`
# too) must read the same text.
for other in engine authoring lab; do
  [ -f "$stage/${other}_bg.wasm" ] || continue
  theirs=$(grep -aoE 'lesson-text-[0-9a-f]{16}\.txt' "$stage/${other}_bg.wasm" | head -1 || true)
  [ -z "$theirs" ] || [ "$theirs" = "$name" ] || {
    echo "lesson-text: the $other module names $theirs, the page's $name" >&2; exit 1; }
done
grep -q 'name="lockstep-text"' "$stage/index.html" ||
  sed -i "s|</head>|<meta name=\"lockstep-text\" content=\"$name\"></head>|" "$stage/index.html"
grep -q "content=\"$name\"" "$stage/index.html" || { echo "lesson-text: could not name $name in index.html" >&2; exit 1; }
