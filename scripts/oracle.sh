#!/usr/bin/env bash
# Differential test of the store against replies recorded from a real redis-server. Needs
# nothing outside the repository: the cases are tests/oracle/ (ours) and tests/oracle/shared/
# (the course's sample), the comparison is the `oracle` test (tests/oracle.rs).
#
#   scripts/oracle.sh           replay every case through the store's REPL and compare; if
#                               redis-server is installed, also re-check every .expected
#                               against a live server (so the recorded files are proven, not
#                               hand-edited)
#   scripts/oracle.sh --record  (re)record tests/oracle/*.expected from a live redis-server
#
# The server is started on 127.0.0.1 at a free high port with no persistence and stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

RECORD=0
case "${1:-}" in
  --record) RECORD=1 ;;
  "") ;;
  *) echo "usage: scripts/oracle.sh [--record]" >&2; exit 2 ;;
esac

oracle() { cargo test --quiet --test oracle -- "$@"; }

REDIS_PID=""
stop_redis() {
  if [ -n "$REDIS_PID" ]; then
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
    REDIS_PID=""
  fi
}
trap stop_redis EXIT

# Starts redis-server on a free port; sets PORT.
start_redis() {
  local tries=0
  while :; do
    PORT=$(( 20000 + (RANDOM % 20000) ))
    if ! redis-cli -p "$PORT" ping >/dev/null 2>&1; then
      redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no \
        --enable-debug-command yes --daemonize no --logfile "" >/dev/null 2>&1 &
      REDIS_PID=$!
      for _ in $(seq 1 50); do
        if redis-cli -p "$PORT" ping >/dev/null 2>&1; then return 0; fi
        sleep 0.1
      done
      stop_redis
    fi
    tries=$((tries + 1))
    if [ "$tries" -ge 5 ]; then echo "oracle: could not start redis-server" >&2; exit 1; fi
  done
}

if [ "$RECORD" -eq 1 ]; then
  command -v redis-server >/dev/null || { echo "oracle: --record needs redis-server" >&2; exit 1; }
  start_redis
  echo "oracle: recording tests/oracle from redis-server $(redis-server --version | awk '{print $3}') on port $PORT"
  oracle --record "$PORT"
  exit 0
fi

status=0
echo "oracle: every case (tests/oracle, tests/oracle/shared) through the store's REPL"
oracle || status=1

if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
  start_redis
  echo "oracle: re-checking the recorded replies against a live redis-server (port $PORT)"
  oracle --live "$PORT" || status=1
  stop_redis
else
  echo "oracle: redis-server not installed; skipped re-checking the recorded replies"
fi
exit "$status"
