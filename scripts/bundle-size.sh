#!/usr/bin/env bash
# Prints the release bundle's size: every file the first page loads, raw and gzip -9.
# Two limits, in gzip bytes:
#   BUNDLE_TARGET_BYTES (default 358400 = 350 KiB): the product target; reported.
#   BUNDLE_MAX_BYTES (default 1000000 bytes): a regression guard; exceeding it fails.
# (The target is not met yet: see BENCHMARKS.md, "Release bundle".)
set -euo pipefail
dist=${1:-dist}
target=${BUNDLE_TARGET_BYTES:-358400}
max=${BUNDLE_MAX_BYTES:-1000000}
[ -f "$dist/index.html" ] || { echo "bundle-size: no $dist/index.html (run trunk build --release first)" >&2; exit 1; }
total_raw=0; total_gz=0
printf '%-48s %10s %10s\n' "file" "bytes" "gzip"
while IFS= read -r f; do
  raw=$(stat -c %s "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
  printf '%-48s %10d %10d\n' "${f#"$dist"/}" "$raw" "$gz"
done < <(find "$dist" -maxdepth 1 -type f \( -name '*.html' -o -name '*.js' -o -name '*.wasm' -o -name '*.css' \) ! -name 'embed-example.html' | sort)
printf '%-48s %10d %10d\n' "total" "$total_raw" "$total_gz"
if [ "$total_gz" -gt "$target" ]; then
  echo "bundle-size: over the ${target}-byte target by $((total_gz - target)) bytes gzip"
else
  echo "bundle-size: within the ${target}-byte target"
fi
if [ "$total_gz" -gt "$max" ]; then
  echo "bundle-size: FAIL: $total_gz bytes gzip is over the regression guard of $max" >&2; exit 1
fi
echo "bundle-size: OK: $total_gz bytes gzip (guard $max)"
