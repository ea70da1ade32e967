#!/usr/bin/env bash
# The main job on the bundled workloads: count each demo program (workloads/:
# dense matrix multiply, sparse conjugate gradient, STREAM) under the virtual
# PMU with the default event set on the Blue Gene/P model, and print the
# reports; then where the events of one of them happen (hpm profile, read
# back with hpm annotate); then a short run of the UPC demonstration (a
# synthetic event stream through the counter unit).
set -euo pipefail
BUILD=${1:-build}
HPM="$BUILD/bin/hpm"

# No stand-in output when the front end is missing: say what is wrong.
if ! "$HPM" count --help >/dev/null 2>&1; then
  echo "demo: '$HPM count' is not available in this build; the demo needs it" >&2
  exit 1
fi
for w in matmul cg stream; do
  if [ ! -x "$BUILD/bin/hpm-$w" ]; then
    echo "demo: $BUILD/bin/hpm-$w missing (workloads/ not built?)" >&2
    exit 1
  fi
done

for w in matmul cg stream; do
  echo "== hpm count --machine bgp -- hpm-$w"
  "$HPM" count --machine bgp -- "$BUILD/bin/hpm-$w"
  echo
done

# where they happen: a profile in callgrind's format, in a scratch folder
# that goes when the demo ends
prof=$(mktemp -d "${TMPDIR:-/tmp}/hpm-demo.XXXXXX")
trap 'rm -rf "$prof"' EXIT
echo "== hpm profile -e INSTRUCTIONS,CYCLES,LOADS,STORES,L1D_MISSES -o PROFILE -- hpm-cg"
"$HPM" profile --machine bgp -e INSTRUCTIONS,CYCLES,LOADS,STORES,L1D_MISSES \
  -o "$prof/callgrind.out.hpm" -- "$BUILD/bin/hpm-cg" >/dev/null
echo "== hpm annotate --sort=L1D_MISSES --top=5 --source=no PROFILE"
"$HPM" annotate --sort=L1D_MISSES --top=5 --source=no "$prof/callgrind.out.hpm"
echo

echo "== hpm upc-demo"
"$HPM" upc-demo --cycles 200000 --threshold 10000
