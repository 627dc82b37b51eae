#!/usr/bin/env bash
# Prints the release bundle's size: every file the first page loads, raw and gzip -9.
# Fails if the gzip total is over the budget (bytes), default 350 KB.
set -euo pipefail
dist=${1:-dist}
budget=${BUNDLE_BUDGET_BYTES:-358400}
[ -f "$dist/index.html" ] || { echo "bundle-size: no $dist/index.html (run trunk build --release first)" >&2; exit 1; }
total_raw=0; total_gz=0
printf '%-48s %10s %10s\n' "file" "bytes" "gzip"
while IFS= read -r f; do
  raw=$(stat -c %s "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
  printf '%-48s %10d %10d\n' "${f#"$dist"/}" "$raw" "$gz"
done < <(find "$dist" -maxdepth 1 -type f \( -name '*.html' -o -name '*.js' -o -name '*.wasm' -o -name '*.css' \) | sort)
printf '%-48s %10d %10d\n' "total" "$total_raw" "$total_gz"
if [ "$total_gz" -gt "$budget" ]; then
  echo "bundle-size: FAIL: $total_gz bytes gzip is over the budget of $budget" >&2; exit 1
fi
echo "bundle-size: OK: $total_gz bytes gzip (budget $budget)"
