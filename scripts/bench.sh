#!/usr/bin/env bash
# Runs every benchmark: the programs built into $BUILD/bin (bench_*) and the
# scripts bench/*/bench_*.sh (given $BUILD as argument), for benchmarks that
# time other programs (bench/vpmu times the virtual PMU under Valgrind). Each
# prints its headline comparisons as lines "ratio NAME VALUE" (ours over the
# peer). A failing benchmark does not stop the others; the exit status says
# whether any failed.
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
status=0
for b in "$BUILD"/bin/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" || status=1
done
for s in "$ROOT"/bench/*/bench_*.sh; do
  [ -f "$s" ] || continue
  echo "== ${s#"$ROOT"/}"
  bash "$s" "$BUILD" || status=1
done
exit $status
