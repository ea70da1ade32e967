#!/usr/bin/env bash
# The main job on the bundled workload. Until the virtual PMU lands, the main
# job is the UPC demonstration: a synthetic event stream through the unit.
set -euo pipefail
BUILD=${1:-build}
"$BUILD/bin/hpm" upc-demo --cycles 2000000 --threshold 100000
