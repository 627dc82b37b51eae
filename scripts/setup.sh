#!/usr/bin/env bash
# Idempotent set-up for Lockstep: installs only what is missing.
# Run by `make serve` and `make test`; safe to run any number of times.
# Versions are pinned on purpose: see ARCHITECTURE.md ("Toolchain").
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14          # 0.22.x needs rustc >= 1.96.1
log() { printf 'setup: %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
# A tool's whole output, read to its end before anything looks at it: under pipefail,
# `tool --version | head -1` can fail when the tool writes after head has closed the
# pipe (geckodriver then panics on the broken pipe, and was reinstalled on every run).
says() { "$@" 2>/dev/null || true; }
export PATH="$HOME/.cargo/bin:$PATH"

if ! have cargo || ! have rustup; then
  echo "setup: Rust (cargo and rustup) is required: install it from https://rustup.rs, then run this again." >&2
  exit 1
fi

# 1. The wasm target.
if ! grep -qx wasm32-unknown-unknown <<<"$(says rustup target list --installed)"; then
  log "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# The pinned nightly toolchain with std's source: the shipped modules are built with it
# (scripts/trunk.sh), and cargo-fuzz runs under it.
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
if ! grep -qx rust-src <<<"$(says rustup +"$NIGHTLY" component list --installed)"; then
  log "installing the toolchain $NIGHTLY with rust-src (minimal profile, about a minute)"
  rustup toolchain install "$NIGHTLY" --profile minimal --component rust-src
fi

# 2. wasm-bindgen CLI at exactly the version in Cargo.lock (the runner and the
#    bindings must agree). `--locked` fails on this registry snapshot, so it is left off.
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
if [ -z "$WB_VERSION" ]; then echo "setup: could not read the wasm-bindgen version from Cargo.lock" >&2; exit 1; fi
if ! grep -q " $WB_VERSION\$" <<<"$(says wasm-bindgen --version)"; then
  log "installing wasm-bindgen-cli $WB_VERSION (about 4 minutes)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi

# 3. Trunk (0.21.14 only compiles with --locked).
if ! grep -q " $TRUNK_VERSION\$" <<<"$(says trunk --version)"; then
  log "installing trunk $TRUNK_VERSION (about 8 minutes)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --force
fi

# 4. geckodriver (crates.io) drives headless Firefox for the second browser run.
GECKODRIVER_VERSION=0.37.1
if [[ "$(says geckodriver --version)" != "geckodriver $GECKODRIVER_VERSION"* ]]; then
  log "installing geckodriver $GECKODRIVER_VERSION (about 2 minutes)"
  cargo install geckodriver --version "$GECKODRIVER_VERSION" --locked --force
fi

# 5. System packages: two headless browsers for wasm-bindgen-test (Chromium and
#    Firefox ESR), redis-server for the differential oracle.
need_pkgs=()
have chromium || need_pkgs+=(chromium)
have chromedriver || need_pkgs+=(chromium-driver)
have firefox-esr || need_pkgs+=(firefox-esr)
have node || need_pkgs+=(nodejs)   # scripts/e2e.sh (Playwright + axe-core) needs Node >= 18
# nodesource's nodejs ships npm and conflicts with Debian's npm package: only when missing.
have npm || need_pkgs+=(npm)
have redis-server || need_pkgs+=(redis-server)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  if have apt-get; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    log "installing ${need_pkgs[*]} with apt-get"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
  else
    echo "setup: please install these with your package manager, then run this again: ${need_pkgs[*]}" >&2
    echo "setup: (chromium + its chromedriver of the same version; redis-server 7.x)" >&2
    exit 1
  fi
fi
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 18 ]; then
  echo "setup: scripts/e2e.sh needs Node.js >= 18 (found $(node --version))" >&2
  exit 1
fi

# 6. The labs' live mode (`lockstep lab run … --redis`): node-redis 4.7.1, pinned in
#    live/package-lock.json (npm ci only when that lock file changed).
npm_ci live
# The labs' code editor (prism-code-editor and esbuild, pinned in editor/package-lock.json),
# bundled into the build by Trunk's hook (scripts/editor.sh).
npm_ci editor

# 7. Fuzzing: cargo-fuzz (its own idempotent script).
bash scripts/setup-fuzz.sh

log "ready (wasm-bindgen $WB_VERSION, trunk $TRUNK_VERSION, $(chromium --version 2>/dev/null | head -1), $(firefox-esr --version 2>/dev/null | head -1), geckodriver $GECKODRIVER_VERSION, node $(node --version), $(redis-server --version 2>/dev/null | awk '{print $3}'))"
