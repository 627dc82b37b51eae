#!/usr/bin/env bash
# Trunk with the toolchain the shipped modules are built with: `bash scripts/trunk.sh build
# --release` is what `make build` runs. It is the pinned nightly (scripts/lib.sh), for
# two things stable Rust cannot do:
#   - std, core and alloc built with the modules (`-Zbuild-std`), for size and with their
#     code as much under LTO as ours;
#   - `-Cpanic=immediate-abort`: a panic traps at once, without std's panic machinery,
#     its messages or their source locations. The page shows its error panel from the trap
#     (src/ui/panic.rs), and the engine's worker reports it as the request's error.
# Together they take about 30 KB gzip off the page's module and 40 KB off the engine's
# (BENCHMARKS.md). The builds go to target/ship (or $CARGO_TARGET_DIR), apart from
# stable's in target/. The browser tests, clippy and `trunk serve` use stable Rust.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
export PATH="$HOME/.cargo/bin:$PATH"
ship_env
exec trunk "$@"
