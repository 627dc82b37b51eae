#!/usr/bin/env bash
# End-to-end accessibility audit of the release build in Debian's Chromium:
# axe-core (WCAG 2.0/2.1 A and AA) on every page, a keyboard-only walk, reduced motion,
# and docs/timeline.png. Builds nothing: run `trunk build --release` first.
# Needs node + npm (Debian: `apt-get install nodejs npm`) and /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'e2e: %s\n' "$*"; }

if [ ! -f dist/index.html ] || ! ls dist/*.wasm >/dev/null 2>&1; then
  echo "e2e: dist/ has no release build; run \`trunk build --release\` (or \`make build\`) first" >&2
  exit 1
fi
for tool in node npm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "e2e: $tool is missing (Debian: apt-get install nodejs npm)" >&2; exit 1; }
done
export CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "e2e: no Chromium at $CHROMIUM (Debian: apt-get install chromium)" >&2; exit 1; }

# npm deps: `npm ci` only when node_modules is missing or the lock file changed since.
stamp=e2e/node_modules/.lockstep-lock.sha256
want=$(sha256sum e2e/package-lock.json | cut -d' ' -f1)
if [ ! -d e2e/node_modules ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "installing npm packages (npm ci)"
  (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
fi

# Serve dist/ on a free loopback port; stop the server however this script ends.
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
node e2e/serve.mjs dist "$port" >/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
up=0
for _ in $(seq 50); do
  if node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "http://127.0.0.1:$port/"; then
    up=1; break
  fi
  sleep 0.1
done
[ "$up" = 1 ] || { echo "e2e: the static server on port $port did not start" >&2; exit 1; }
log "serving dist/ on http://127.0.0.1:$port/"

BASE_URL="http://127.0.0.1:$port/" node e2e/audit.mjs "$@"
