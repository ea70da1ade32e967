#!/usr/bin/env bash
# Concurrent hpm runs (docs/robustness.md): the same set of runs, each a
# process tree of real programs (a shell running bzip2 and sqlite3, or
# hpm's STREAM where those are absent) under `hpm count`, all started at
# once sharing TMPDIR and /dev/shm, against the same runs one after
# another. Wall seconds, median of REPS paired rounds. Prints
#   ratio concurrent_vs_serial_wall VALUE   (concurrent / serial; 2 cores: goal <= 0.56)
# and the throughput of each way in runs per minute.
#   bench_concurrency.sh BUILD [RUNS] [REPS]
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${2:-8}
REPS=${3:-3}
HPM=$BUILD/bin/hpm
work=$(mktemp -d "${TMPDIR:-/tmp}/hpm-bench-conc.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work

seq 1 15000 | sed 's/$/ the quick brown fox jumps over the lazy dog/' >"$work/text"
if [ -x /usr/bin/bzip2 ] && [ -x /usr/bin/sqlite3 ]; then
    TREE="/usr/bin/bzip2 -9 -c $work/text >/dev/null & /usr/bin/sqlite3 :memory: \
'create table t(a); with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000) insert into t select x from c; select sum(a) from t;' >/dev/null; wait"
    echo "tree: sh running /usr/bin/bzip2 -9 and /usr/bin/sqlite3 at once"
else
    TREE="$BUILD/bin/hpm-stream >/dev/null & $BUILD/bin/hpm-stream >/dev/null; wait"
    echo "tree: sh running two hpm-stream (bzip2 or sqlite3 absent)"
fi
one() { "$HPM" count -e INSTRUCTIONS,L1D_MISSES -o "$work/r.$1.txt" -- sh -c "$TREE" >/dev/null 2>&1; }
now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

declare -a ser con
for ((r = 0; r < REPS; r++)); do
    t0=$(now)
    for ((i = 0; i < RUNS; i++)); do one "s$i"; done
    t1=$(now)
    pids=()
    for ((i = 0; i < RUNS; i++)); do one "c$i" & pids+=($!); done
    for p in "${pids[@]}"; do wait "$p"; done
    t2=$(now)
    ser+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    con+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')")
    # the same counts either way: concurrency changes no count
    for ((i = 0; i < RUNS; i++)); do
        a=$(awk '$1 == "INSTRUCTIONS" { print $2 }' "$work/r.s$i.txt")
        b=$(awk '$1 == "INSTRUCTIONS" { print $2 }' "$work/r.c$i.txt")
        [ "$a" = "$b" ] || echo "note: run $i INSTRUCTIONS differ: serial $a, concurrent $b"
    done
done
s=$(printf '%s\n' "${ser[@]}" | median)
c=$(printf '%s\n' "${con[@]}" | median)
echo "runs $RUNS per round, $REPS rounds, $(nproc) cores"
awk -v s="$s" -v c="$c" -v n="$RUNS" 'BEGIN {
    printf "serial %.2f s (%.1f runs/min), concurrent %.2f s (%.1f runs/min), throughput x%.2f\n",
        s, 60 * n / s, c, 60 * n / c, s / c
    printf "ratio concurrent_vs_serial_wall %.3f\n", c / s }'
[ -z "$(ls -A "$work" | grep '^hpm-count')" ] || echo "note: folders left in TMPDIR: $(ls "$work" | grep '^hpm-count')"
