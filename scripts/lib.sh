# Shared by the scripts that source it (e2e, prerender, setup, setup-fuzz, fuzz, trunk,
# test-all; needs `set -euo pipefail`).

# e2e/'s npm packages: `npm ci` only when node_modules is missing or the lock file
# changed since the last install.
npm_deps() {
  for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool is missing (Debian: apt-get install nodejs npm)" >&2; return 1; }
  done
  export CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
  [ -x "$CHROMIUM" ] || { echo "no Chromium at $CHROMIUM (Debian: apt-get install chromium)" >&2; return 1; }
  npm_ci e2e
}

# npm_ci DIR: `npm ci` in DIR only when its node_modules is missing or its lock file
# changed since the last install (every version pinned there, nothing else fetched).
npm_ci() {
  local dir=$1 stamp want
  stamp=$dir/node_modules/.lockstep-lock.sha256
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ ! -d "$dir/node_modules" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "installing $dir/'s npm packages (npm ci)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
}

# free_port: prints a free loopback port.
free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# serve_dir DIR: serves DIR on a free loopback port; sets $port and $server and stops
# the server however the calling script ends.
serve_dir() {
  port=$(free_port)
  node e2e/serve.mjs "$1" "$port" >/dev/null &
  server=$!
  trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
  local _
  for _ in $(seq 50); do
    if node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "http://127.0.0.1:$port/"; then
      return 0
    fi
    sleep 0.1
  done
  echo "the static server on port $port did not start" >&2
  return 1
}

# The nightly toolchain, pinned: the shipped modules are built with it (scripts/trunk.sh:
# std built for size, panics that abort at once), and cargo-fuzz runs under it.
NIGHTLY=nightly-2026-05-20

# ship_env: cargo's environment for building the wasm modules as they ship (scripts/trunk.sh
# says why), into $CARGO_TARGET_DIR (default target/ship).
ship_env() {
  rustup run "$NIGHTLY" rustc --print sysroot >/dev/null 2>&1 || {
    echo "the toolchain $NIGHTLY is missing: run bash scripts/setup.sh" >&2; return 1; }
  export RUSTUP_TOOLCHAIN=$NIGHTLY
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/ship}
  export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none"
}
