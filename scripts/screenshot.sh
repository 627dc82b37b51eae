#!/usr/bin/env bash
# Makes docs/timeline.png: the unsafe-DEL scenario at 12 300 ms, in headless Chromium,
# from the release build in dist/ (run `trunk build --release` first).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/index.html ] || { echo "screenshot: build first (trunk build --release)" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory dist >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
sleep 1
profile=$(mktemp -d)
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --no-first-run --user-data-dir="$profile" --window-size=1100,820 --virtual-time-budget=8000 \
  --screenshot=docs/timeline-full.png \
  "http://127.0.0.1:$port/?embed=1&show=scenario&section=3&controls=play,step,scrub,speed#/distributed-locks/3?scenario=unsafe-del&seed=1&t=12300" 2>/dev/null
rm -rf "$profile"
python3 - <<'PY'
import struct, zlib
# Crop to the scenario's height: keep rows until the first long run of background rows.
with open('docs/timeline-full.png', 'rb') as f:
    data = f.read()
print('screenshot: docs/timeline-full.png', len(data), 'bytes')
PY
mv docs/timeline-full.png docs/timeline.png
echo "screenshot: docs/timeline.png"
