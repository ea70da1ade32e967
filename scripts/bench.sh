#!/usr/bin/env bash
# Runs every benchmark built into $BUILD/bin (bench_*). Each prints its
# headline comparisons as lines "ratio NAME VALUE" (ours over the peer).
set -euo pipefail
BUILD=${1:-build}
status=0
for b in "$BUILD"/bin/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" || status=1
done
exit $status
