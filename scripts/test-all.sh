#!/usr/bin/env bash
# Every check, in order from cheapest to dearest; stops at the first failure.
# Called by `make test` (after scripts/setup.sh) and so by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
# Each step's time is printed when the next begins, and all of them at the end, so that
# a slow step shows (the suite must stay well under 30 minutes).
times=()
step_name=''
step_start=$SECONDS
end_step() {
  [ -n "$step_name" ] || return 0
  times+=("$(printf '%5ds  %s' "$((SECONDS - step_start))" "${step_name:0:90}")")
  printf '    (%ss)\n' "$((SECONDS - step_start))"
}
step() {
  end_step
  step_name=$*
  step_start=$SECONDS
  printf '\n==> %s\n' "$*"
}
start=$SECONDS

step "format (cargo fmt --check)"
cargo fmt --all -- --check

step "lint, native (clippy -D warnings)"
cargo clippy --all-targets -- -D warnings

step "lint, wasm32 (clippy -D warnings)"
cargo clippy --lib --bins --test 'web_*' --test bench_ui --target wasm32-unknown-unknown -- -D warnings

step "lint, the page and the lab panel as the app builds them: without the engine (clippy -D warnings)"
cargo clippy --no-default-features --lib --bin app --target wasm32-unknown-unknown -- -D warnings

step "lint, the engine's module as the app builds it: without packs or Markdown (clippy -D warnings)"
cargo clippy --no-default-features --features page-engine --lib --bin engine --target wasm32-unknown-unknown -- -D warnings

step "native tests (the labs' tests run learners' files in Node.js, and live on redis-servers they start)"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
npm_ci live
cargo test

step "the labs' JavaScript harness on its own (node labs/selftest.mjs)"
node labs/selftest.mjs

step "the labs' redis client against real node-redis v4 (the recorded client oracle)"
node tests/client-oracle/replay.mjs

step "the JavaScript we ship on the real stack: each lab's solution, the lesson's code, §8's node-redlock (Node.js, node-redis v4, redlock 5, redis-server)"
npm_ci tests/real-stack
node tests/real-stack/run.mjs

# wasm-bindgen-test-runner gives a whole test file 20 s by default, then reports "might
# have timed out": web_scenario's debug-build "Can this break?" runs (200 trials each)
# passed that on a quiet machine and failed on a busy one. A ceiling, not a speed check.
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-300}

step "the engine's worker for the browser tests' page (scripts/web-engine.sh)"
bash scripts/web-engine.sh

step "browser tests (wasm-bindgen-test, headless Chromium; every engine job in the engine's worker)"
cargo test --target wasm32-unknown-unknown --test 'web_*'

step "browser tests again (wasm-bindgen-test, headless Firefox ESR)"
env -u CHROMEDRIVER GECKODRIVER="$(command -v geckodriver)" \
  cargo test --target wasm32-unknown-unknown --test 'web_*'

step "the labs' sandbox on its own, driven message by message as the Node host is (node labs/browsertest.mjs, Chromium and Firefox)"
node labs/browsertest.mjs
node labs/browsertest.mjs --firefox

if [ -x scripts/oracle.sh ]; then
  step "differential tests against the Redis oracle"
  bash scripts/oracle.sh
fi

step "release build (scripts/trunk.sh build --release), prerendered (scripts/prerender.sh), precompressed (scripts/precompress.mjs)"
bash scripts/trunk.sh build --release
bash scripts/prerender.sh dist
node scripts/precompress.mjs dist

step "the labs' sandbox as the build ships it, its harness and page without comments (node dist/labs/browsertest.mjs, Chromium)"
node dist/labs/browsertest.mjs

step "release bundle size"
bash scripts/bundle-size.sh dist

step "the first page and its first use (Chromium)"
bash scripts/firstload.sh

step "a learner's walk through a lab: broken, fixed, 200 attacked trials, a loop stopped (Chromium)"
bash scripts/e2e.sh --lab

step "\"Can this break?\" in the engine's worker: where each run is made, Cancel, and the main thread's longest tasks reported (Chromium)"
bash scripts/e2e.sh --explore

# The fuzz smoke run (20 s per cargo-fuzz target, after its build) goes on beside the
# browser walks below, which mostly wait on pages: it overlaps them instead of adding
# four or five minutes (a fresh clone builds the targets from nothing). Its output is
# printed, and its status checked, after them. The walks above it report speeds (trials
# per second, long tasks), so they run before it, on cores the fuzz build does not share:
# beside it, the lab walk read 122 / 137 trials/s, alone 204 / 232.
fuzz_log=$(mktemp "${TMPDIR:-/tmp}/lockstep-fuzz-log.XXXXXX")
bash scripts/fuzz.sh 20 >"$fuzz_log" 2>&1 &
fuzz_pid=$!
# A failed step below ends the suite: the fuzz run ends with it.
trap 'if kill -0 "$fuzz_pid" 2>/dev/null; then pkill -TERM -P "$fuzz_pid"; kill "$fuzz_pid"; fi 2>/dev/null; rm -f "$fuzz_log"' EXIT

step "end-to-end accessibility audit (axe-core + keyboard walk, Chromium)"
bash scripts/e2e.sh --no-screenshot

step "the LMS packages (SCORM 1.2, SCORM 2004, cmi5) imported, launched and used in a test platform: scorm-again's runtime, an LRS (Chromium)"
bash scripts/e2e.sh --lms

step "fuzz smoke run (20 s per cargo-fuzz target), run beside the browser walks above: its output"
fuzz_status=0
wait "$fuzz_pid" || fuzz_status=$?
cat "$fuzz_log"
[ "$fuzz_status" -eq 0 ] || { echo "fuzz smoke run failed (exit status $fuzz_status)" >&2; exit "$fuzz_status"; }

end_step
printf '\nEach step:\n'
printf '%s\n' "${times[@]}"
printf '\nAll checks passed in %ss.\n' "$((SECONDS - start))"
