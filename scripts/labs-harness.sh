#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): the copy of labs/harness.js a browser fetches
# when a lab first runs, without its comments and spaces (esbuild, whitespace and syntax
# only: every name stays, so a learner's `console.log(redis.set)` and the errors read as
# in Node, where labs/node-host.mjs runs the file as written). 22 KB gzip become 13.
# The sandbox counts the harness's lines when it builds its worker, so the learner's
# line numbers do not depend on them.
set -euo pipefail
stage=${TRUNK_STAGING_DIR:?labs-harness.sh is run by trunk build (Trunk.toml hooks)}
[ "${TRUNK_PROFILE:-release}" = release ] || exit 0
esbuild=editor/node_modules/.bin/esbuild
[ -x "$esbuild" ] || { echo "labs-harness: $esbuild is missing: run scripts/setup.sh" >&2; exit 1; }
"$esbuild" labs/harness.js --minify-whitespace --minify-syntax --legal-comments=none \
  --log-level=warning --outfile="$stage/labs/harness.js" --allow-overwrite
