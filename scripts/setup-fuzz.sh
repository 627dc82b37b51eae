#!/usr/bin/env bash
# Idempotent set-up for fuzzing (scripts/fuzz.sh): installs only what is missing, and does
# nothing when everything is there.
#   - a nightly Rust toolchain (cargo-fuzz needs -Zsanitizer), minimal profile;
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

# 1. A nightly toolchain.
if ! rustup toolchain list | grep -q '^nightly-'; then
  log "installing the nightly toolchain (minimal profile)"
  rustup toolchain install nightly --profile minimal
fi

# 2. cargo-fuzz at the pinned version (it runs under any toolchain; it is a cargo subcommand).
if ! { cargo fuzz --version 2>/dev/null | grep -qx "cargo-fuzz $CARGO_FUZZ_VERSION"; }; then
  log "installing cargo-fuzz $CARGO_FUZZ_VERSION (about 2 minutes)"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --force
fi

log "ready ($(rustc +nightly --version), $(cargo fuzz --version))"
