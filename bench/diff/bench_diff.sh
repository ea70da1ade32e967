#!/usr/bin/env bash
# hpm diff and the baseline gate (docs/ci.md), on a real program:
#   ratio diff_vs_cg_diff_annotate    hpm diff of two profiles of python3
#                                     (hpm profile) over cg_diff + cg_annotate
#                                     of cachegrind files of the same two runs
#   ratio gate_vs_count               hpm count --baseline (the whole run with
#                                     the check) over a plain hpm count
# CPU seconds (user + system of the command and its children), median of
# REPS runs each. Two slightly different runs: a script that does one more
# iteration in its second version.
#   bench_diff.sh BUILD [REPS]
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
REPS=${2:-5}
HPM=$BUILD/bin/hpm
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "bench_diff: $PY missing; skipped"; exit 0; }
command -v cg_diff >/dev/null && command -v cg_annotate >/dev/null ||
    { echo "bench_diff: cg_diff or cg_annotate missing; skipped"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hpm-bench-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
script() { echo "d = {}
for i in range($1):
    d[str(i)] = sorted(str(i * 7919 % 1000))
print(len(d))"; }
script 20000 >a.py
script 21000 >b.py
cpu() { # command... : user + system CPU seconds of it and its children
    local t0 t1 me=$BASHPID
    t0=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$me/stat")
    "$@" >/dev/null 2>&1
    t1=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$me/stat")
    awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f\n", (b - a) / hz }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

"$HPM" profile -e INSTRUCTIONS,L1D_MISSES -o a.prof -- "$PY" a.py >/dev/null 2>&1
"$HPM" profile -e INSTRUCTIONS,L1D_MISSES -o b.prof -- "$PY" b.py >/dev/null 2>&1
valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=a.cg "$PY" a.py >/dev/null 2>&1
valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=b.cg "$PY" b.py >/dev/null 2>&1
# ten of each per measurement: the CPU clock ticks in 10 ms
peer() { for _ in 1 2 3 4 5 6 7 8 9 10; do cg_diff a.cg b.cg >d.cg && cg_annotate d.cg >/dev/null; done; }
ours() { for _ in 1 2 3 4 5 6 7 8 9 10; do "$HPM" diff a.prof b.prof >/dev/null; done; }
"$HPM" count -e INSTRUCTIONS,CYCLES --save-baseline "$work/base" -- "$PY" a.py >/dev/null 2>&1
plain() { "$HPM" count -e INSTRUCTIONS,CYCLES -- "$PY" a.py; }
gated() { "$HPM" count -e INSTRUCTIONS,CYCLES --baseline "$work/base" -- "$PY" a.py; }

declare -a D P C G
for ((i = 0; i < REPS; i++)); do
    D+=("$(cpu ours)")
    P+=("$(cpu peer)")
    C+=("$(cpu plain)")
    G+=("$(cpu gated)")
done
d=$(printf '%s\n' "${D[@]}" | median)
p=$(printf '%s\n' "${P[@]}" | median)
c=$(printf '%s\n' "${C[@]}" | median)
g=$(printf '%s\n' "${G[@]}" | median)
echo "hpm diff x10 $d s, cg_diff + cg_annotate x10 $p s (python3 profiles: $(wc -c <a.prof) and $(wc -c <a.cg) bytes)"
echo "hpm count $c s, with --baseline $g s"
awk -v d="$d" -v p="$p" 'BEGIN { printf "ratio diff_vs_cg_diff_annotate %.3f\n", (p > 0 ? d / p : 0) }'
awk -v c="$c" -v g="$g" 'BEGIN { printf "ratio gate_vs_count %.3f\n", (c > 0 ? g / c : 0) }'
