#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): bundles the labs' code editor (editor/index.js,
# prism-code-editor from editor/package-lock.json) into the build's editor.js, which
# static/editor-load.js imports when a lab first comes near: a module, since its
# libraries are evaluated a task at a time (editor/pause/). Its stylesheets go in as text,
# which the editor puts in the page once. Nothing is fetched here: scripts/setup.sh
# installed editor/'s packages (npm ci).
set -euo pipefail
stage=${TRUNK_STAGING_DIR:?editor.sh is run by trunk build (Trunk.toml hooks)}
esbuild=editor/node_modules/.bin/esbuild
[ -x "$esbuild" ] || { echo "editor: $esbuild is missing: run scripts/setup.sh" >&2; exit 1; }
minify=--minify
[ "${TRUNK_PROFILE:-release}" = release ] || minify=
"$esbuild" editor/index.js --bundle $minify --format=esm --target=es2022 --loader:.css=text \
  --legal-comments=none --log-level=warning --outfile="$stage/editor.js"
