#!/usr/bin/env bash
# Runs the cargo-fuzz targets, one after the other, each for SECONDS (default 60).
#   bash scripts/fuzz.sh [SECONDS] [target...]      (default: every target below)
#   bash scripts/fuzz.sh 20                          the smoke run of `make test`
#   nice -n 15 bash scripts/fuzz.sh 900 eval_scripts a long run of one target
#
# Each target starts from its committed seeds (fuzz/corpus/<target>/seed*), copied into a
# working corpus outside the repository, so the entries libFuzzer generates are never
# committed. FUZZ_WORK=<dir> keeps the working corpora in <dir>/<target> between runs
# (they grow there); by default a temporary directory is used and removed.
# Prints per target the executions, the final corpus and the exit status; a crash,
# timeout (> 5 s for one input) or out-of-memory (> 512 MB RSS; the store caps a script at
# 16-64 MB and the keyspace at 64 MB, so more is a leak; AddressSanitizer's quarantine of
# freed memory is held to 64 MB here, as its default 256 MB alone took a 20 s run of
# store_lines to 528-535 MB, to 199 MB at 16 MB) fails the script, and the
# input that caused it is saved in fuzz/artifacts/<target>/ (reproduce it with
# `cargo +nightly-2026-05-20 fuzz run <target> fuzz/artifacts/<target>/<file>`).
# Needs the pinned nightly toolchain (scripts/lib.sh) and cargo-fuzz: scripts/setup-fuzz.sh installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
export PATH="$HOME/.cargo/bin:$PATH"

ALL_TARGETS=(store_lines eval_scripts scenario_loader pack_loader)
# The RSS limit is for what the targets allocate, not for ASan's own bookkeeping.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=64"
SECONDS_PER_TARGET=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
if ! [[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]] || [ "$SECONDS_PER_TARGET" -lt 1 ]; then
  echo "fuzz: SECONDS must be a positive whole number, not \`$SECONDS_PER_TARGET\`" >&2
  exit 2
fi
for t in "${targets[@]}"; do
  if [ ! -f "fuzz/fuzz_targets/$t.rs" ]; then
    echo "fuzz: no target \`$t\` (targets: ${ALL_TARGETS[*]})" >&2
    exit 2
  fi
done
if ! cargo +"$NIGHTLY" fuzz --version >/dev/null 2>&1; then
  echo "fuzz: needs a nightly toolchain and cargo-fuzz: run bash scripts/setup-fuzz.sh" >&2
  exit 2
fi

if [ -n "${FUZZ_WORK:-}" ]; then
  work=$FUZZ_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/lockstep-fuzz.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

start=$SECONDS
# Build every requested target first, so a compile error stops the run before any fuzzing
# and the per-target times below are fuzzing only.
if [ ${#targets[@]} -eq ${#ALL_TARGETS[@]} ]; then
  printf '==> fuzz: building every target\n'
  cargo +"$NIGHTLY" fuzz build
else
  for t in "${targets[@]}"; do
    printf '==> fuzz: building %s\n' "$t"
    cargo +"$NIGHTLY" fuzz build "$t"
  done
fi

failed=()
rows=()
for t in "${targets[@]}"; do
  corpus="$work/$t"
  log="$work/$t.log"
  mkdir -p "$corpus"
  cp -n fuzz/corpus/"$t"/seed* "$corpus"/ 2>/dev/null || true
  printf '==> fuzz: %s for %ss (log: %s)\n' "$t" "$SECONDS_PER_TARGET" "$log"
  status=0
  cargo +"$NIGHTLY" fuzz run "$t" "$corpus" -- \
    -max_total_time="$SECONDS_PER_TARGET" \
    -timeout=5 \
    -rss_limit_mb=512 \
    -print_final_stats=1 \
    >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  files=$(find "$corpus" -type f | wc -l)
  kb=$(( ($(find "$corpus" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}') + 1023) / 1024 ))
  rows+=("$(printf '%-16s %12s %8s %9s %8s %6s' "$t" "${execs:-?}" "$files" "${kb} KB" "${rss:-?} MB" "$status")")
  if [ "$status" -ne 0 ]; then
    failed+=("$t")
    echo "fuzz: $t FAILED (exit status $status); the end of its log:" >&2
    tail -n 40 "$log" >&2
    grep -h 'Test unit written to' "$log" >&2 || true
  fi
done

printf '\n%-16s %12s %8s %9s %8s %6s\n' target executions corpus size peak status
printf '%s\n' "${rows[@]}"
printf 'fuzz: %ss in all (%ss per target, builds included)\n' "$((SECONDS - start))" "$SECONDS_PER_TARGET"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
