#!/usr/bin/env bash
# End-to-end accessibility audit of the release build in Debian's Chromium:
# axe-core (WCAG 2.0/2.1 A and AA) on every page, a keyboard-only walk, reduced motion,
# and docs/timeline.png; `--lab` and `--explore` run e2e/lab.mjs and e2e/explore.mjs instead. Builds nothing: run `trunk build --release` first.
# `--lms` runs e2e/lms.mjs: the LMS packages (SCORM 1.2, SCORM 2004, cmi5) that
# `lockstep package` makes from dist/ (or the zips in $PACKAGES), each played by a test
# platform, and a SCORM 2004 package of the example lesson pack (nb, section 2) in
# $PACKAGES/choices/.
# Needs node + npm (Debian: `apt-get install nodejs npm`) and /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'e2e: %s\n' "$*"; }

if [ "${1:-}" = "--lms" ]; then
  # e2e/lms.mjs serves each package itself (under /scorm12/, /scorm2004/, /cmi5/). The
  # zips in $PACKAGES if set (e.g. `make package`'s packages/), else this dist/'s, made in
  # a directory of their own.
  . scripts/lib.sh
  npm_deps
  if [ -z "${PACKAGES:-}" ]; then
    if [ ! -f dist/index.html ] || ! ls dist/*.wasm >/dev/null 2>&1; then
      echo "e2e: dist/ has no release build; run \`make build\` first (or set PACKAGES)" >&2
      exit 1
    fi
    PACKAGES=$(mktemp -d)
    # With a rule (half the quick check, and §3's lab), so that passing is tested too.
    # The debug build `cargo test` made already: packaging is copying and zipping, and a
    # fresh clone would otherwise build the whole crate again with the release profile.
    cargo run --quiet --bin lockstep -- package dist --out "$PACKAGES" --pass-quiz 50 --pass-labs safe-release
    # An instructor's choices (the `choices` check): the example pack, in Norwegian, only
    # its section 2, no rule. A $PACKAGES given from outside without choices/ skips that check.
    cargo run --quiet --bin lockstep -- package dist --out "$PACKAGES/choices" --format scorm2004 --pack packs/example --lang nb --sections 2
  fi
  log "the packages in $PACKAGES: $(cd "$PACKAGES" && echo ./*.zip)"
  PACKAGES="$PACKAGES" SHOTS="${SHOTS:-$PACKAGES}" node e2e/lms.mjs
  exit
fi

if [ ! -f dist/index.html ] || ! ls dist/*.wasm >/dev/null 2>&1; then
  echo "e2e: dist/ has no release build; run \`trunk build --release\` (or \`make build\`) first" >&2
  exit 1
fi
. scripts/lib.sh
npm_deps
serve_dir dist
log "serving dist/ on http://127.0.0.1:$port/"

if [ "${1:-}" = "--lab" ]; then
  # e2e/lab.mjs: the safe-release lab used as a learner would, at desktop and phone width.
  BASE_URL="http://127.0.0.1:$port/" SHOTS="${SHOTS:-$(mktemp -d)}" node e2e/lab.mjs
  exit
fi
if [ "${1:-}" = "--explore" ]; then
  # e2e/explore.mjs: "Can this break?" in the engine's worker, no long task, Cancel.
  BASE_URL="http://127.0.0.1:$port/" node e2e/explore.mjs
  exit
fi
BASE_URL="http://127.0.0.1:$port/" node e2e/audit.mjs "$@"
