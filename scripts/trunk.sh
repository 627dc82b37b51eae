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
# (BENCHMARKS.md). The builds go to target/ship, apart from stable's in target/. The
# browser tests, clippy and `trunk serve` use the stable toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
export PATH="$HOME/.cargo/bin:$PATH"
rustup run "$NIGHTLY" rustc --print sysroot >/dev/null 2>&1 || {
  echo "trunk.sh: the toolchain $NIGHTLY is missing: run bash scripts/setup.sh" >&2; exit 1; }
export RUSTUP_TOOLCHAIN=$NIGHTLY
export CARGO_TARGET_DIR=${LOCKSTEP_SHIP_TARGET:-target/ship}
export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none"
exec trunk "$@"
