#!/usr/bin/env bash
# The cost of the live view (docs/vpmu.md, Live counters): wall time of a
# program under the tool with the view published every 100 ms (the
# default), every 1 ms, and every 100 ms with a reader polling it every
# 10 ms (hpm stat -I 10), each over the same run without a view
# (--hpm-live=no), median of paired runs. Prints "ratio NAME VALUE".
#   bench_live.sh BUILD [REPS]
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
REPS=${2:-3}
VG=${HPM_VALGRIND:-valgrind}
export VALGRIND_LIB=$BUILD/lib/valgrind
PROG=("$BUILD/bin/hpm-stream")

secs() { # command... : wall seconds
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' 
}
run_tool() { "$VG" -q --tool=hpm --hpm-out=/dev/null "$@" "${PROG[@]}"; }
with_reader() {
    run_tool &
    local p=$!
    sleep 0.2
    "$BUILD/bin/hpm" stat -p $p -I 10 >/dev/null 2>&1 || true
    wait $p
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

declare -a base fast dflt read
for ((i = 0; i < REPS; i++)); do
    base+=("$(secs run_tool --hpm-live=no)")
    dflt+=("$(secs run_tool)")
    fast+=("$(secs run_tool --hpm-live-ms=1)")
    read+=("$(secs with_reader)")
done
b=$(printf '%s\n' "${base[@]}" | median)
for name in dflt fast read; do
    declare -n arr=$name
    m=$(printf '%s\n' "${arr[@]}" | median)
    case $name in
    dflt) label=live_view_100ms_over_none ;;
    fast) label=live_view_1ms_over_none ;;
    read) label=live_view_with_reader_over_none ;;
    esac
    awk -v l="$label" -v m="$m" -v b="$b" 'BEGIN { printf "ratio %s %.3f\n", l, m / b }' 
done
echo "(hpm-stream under the tool's default machine, every model running; base ${b} s, median of $REPS)"
