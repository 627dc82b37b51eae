#!/usr/bin/env bash
# Idempotent set-up for fuzzing (scripts/fuzz.sh): installs only what is missing, and does
# nothing when everything is there.
#   - the pinned nightly Rust toolchain (scripts/lib.sh; cargo-fuzz needs -Zsanitizer);
#   - cargo-fuzz, pinned: the version below is the one the targets were written and run with.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION=0.13.2
log() { printf 'setup-fuzz: %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }
export PATH="$HOME/.cargo/bin:$PATH"

if ! have cargo || ! have rustup; then
  echo "setup-fuzz: Rust (cargo and rustup) is required: install it from https://rustup.rs, then run this again." >&2
  exit 1
fi

# 1. The pinned nightly toolchain.
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
if ! rustup run "$NIGHTLY" rustc --version >/dev/null 2>&1; then
  log "installing the toolchain $NIGHTLY (minimal profile)"
  rustup toolchain install "$NIGHTLY" --profile minimal
fi

# 2. cargo-fuzz at the pinned version (it runs under any toolchain; it is a cargo subcommand).
if ! { cargo fuzz --version 2>/dev/null | grep -qx "cargo-fuzz $CARGO_FUZZ_VERSION"; }; then
  log "installing cargo-fuzz $CARGO_FUZZ_VERSION (about 2 minutes)"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --force
fi

log "ready ($(rustc +"$NIGHTLY" --version), $(cargo fuzz --version))"
