#!/usr/bin/env bash
# Every figure in BENCHMARKS.md, measured in one go on this machine (about 15 minutes
# on two cores, builds included). Prints each figure with the command that made it; the
# full output of each step is kept in $OUT (default: target/bench-all/).
#   bash scripts/bench-all.sh
# Needs what `make test` needs (scripts/setup.sh) plus redis-benchmark (redis-tools,
# installed with redis-server on Debian). Numbers move with machine load: run it on a
# quiet machine and compare runs, not single figures.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
OUT=${OUT:-target/bench-all}
mkdir -p "$OUT"
step() { printf '\n==> %s\n' "$*"; }
timed() { # timed NAME CMD...: runs CMD, keeps its output, prints the wall time
  local name=$1; shift
  local t0=$SECONDS
  "$@" >"$OUT/$name.log" 2>&1 || { echo "bench-all: $name failed; see $OUT/$name.log" >&2; tail -20 "$OUT/$name.log" >&2; exit 1; }
  printf '%s: %s s\n' "$name" "$((SECONDS - t0))"
}

echo "bench-all: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(rustc --version)"

step "store (cargo bench --bench store)"
timed store cargo bench --bench store
grep -E 'x$|ops/s' "$OUT/store.log" || cat "$OUT/store.log"

step "real redis-server 7 for comparison (redis-benchmark -P 16 -c 4)"
if command -v redis-benchmark >/dev/null && command -v redis-server >/dev/null; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$OUT/redis-server.log" 2>&1 &
  rpid=$!
  trap 'kill $rpid 2>/dev/null || true' EXIT
  for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  release='if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end'
  sha=$(redis-cli -p "$port" script load "$release")
  redis-cli -p "$port" set lock:k held >/dev/null
  redis-benchmark -p "$port" -P 16 -c 4 -n 1000000 -q set lock:k tok NX PX 30000 | tr '\r' '\n' | grep -E 'requests per second' | tail -1 | sed 's/^/SET NX PX (key held): /'
  redis-benchmark -p "$port" -P 16 -c 4 -n 1000000 -q get lock:k | tr '\r' '\n' | grep -E 'requests per second' | tail -1 | sed 's/^/GET: /'
  redis-benchmark -p "$port" -P 16 -c 4 -n 1000000 -q evalsha "$sha" 1 lock:k wrong | tr '\r' '\n' | grep -E 'requests per second' | tail -1 | sed 's/^/EVALSHA release (wrong token): /'
  kill $rpid 2>/dev/null || true
  trap - EXIT
else
  echo "redis-benchmark not found: skipped"
fi

step "simulator (cargo bench --bench sim)"
timed sim cargo bench --bench sim
grep -E '/s' "$OUT/sim.log" || cat "$OUT/sim.log"

step "determinism, 1 000 seeds x every built-in, each run twice"
timed determinism env LOCKSTEP_SEEDS=1000 cargo test --release --test sim_determinism

step "safety, 100 000 random scenarios"
timed safety env LOCKSTEP_SAFETY_SEEDS=100000 cargo test --release --test sim_safety

step "wasm against native (explore redlock-contention)"
timed sim_wasm_native cargo test --release --test sim_wasm -- --nocapture
grep -E 'trials/s|hash' "$OUT/sim_wasm_native.log" || true
timed sim_wasm_browser cargo test --release --target wasm32-unknown-unknown --test sim_wasm -- --nocapture
grep -E 'trials/s|hash' "$OUT/sim_wasm_browser.log" || true

step "timeline in headless Chromium (bench_ui)"
timed bench_ui cargo test --release --target wasm32-unknown-unknown --test bench_ui -- --nocapture
grep -E 'bench_ui:' "$OUT/bench_ui.log"

step "release bundle (scripts/trunk.sh build --release, scripts/prerender.sh)"
timed trunk bash scripts/trunk.sh build --release
timed prerender bash scripts/prerender.sh dist
bash scripts/bundle-size.sh dist

step "first page against a bare yew hello world (scripts/firstload.sh, Chromium)"
timed hello bash scripts/trunk.sh build --release --dist target/hello-dist benches/hello/index.html
timed firstload bash scripts/firstload.sh target/hello-dist
grep -E '^firstload:|budget|app, loaded' "$OUT/firstload.log"

printf '\nbench-all: done; logs in %s\n' "$OUT"
