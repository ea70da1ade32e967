#!/usr/bin/env bash
# An MPI job as hpm count runs it, with libhpm-mpi (the network, the MPI
# profile, the aggregate combined at MPI_Finalize) against without it
# (HPM_MPI_LIB=none: the same job, each rank's result only):
#   - the job's run time, tests/mpi's ring (20 messages of 1000 bytes per
#     rank) on 4 ranks of bgp, the median of REPS pairs' ratios (goal <=
#     1.05), and its guest instructions summed over the ranks (exact, but
#     for how long waiting ranks poll);
#   - the combine at MPI_Finalize, rank 0's own host time (measured by the
#     library, in the aggregate) over the job's run time (goal <= 0.01);
#   - how the combine's time and rank 0's memory grow with the ranks: at 2,
#     4 and 8 ranks, and the formula fitted to them up to 100,000 ranks.
# Prints "ratio NAME VALUE".
#   bench_mpi_job.sh BUILD [REPS]
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
REPS=${2:-5}
HPM=$BUILD/bin/hpm
RING=$BUILD/bin/mpi_ring
if [ ! -x "$RING" ] || [ ! -f "$BUILD/lib/libhpm-mpi.so" ] || ! command -v mpirun >/dev/null; then
    echo "bench_mpi_job: no Open MPI, libhpm-mpi or tests/mpi's ring in $BUILD: skipped"
    exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-mpi-job.XXXXXX")
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# job RANKS [VAR=VALUE...]: the job's wall seconds; its aggregate in $work/agg.json
job() {
    local n=$1 t0 t1
    shift
    rm -rf "$work/job"
    t0=$(date +%s.%N)
    env "$@" mpirun --oversubscribe --mca btl self,vader -np "$n" "$HPM" count --mpi \
        --mpi-dir "$work/job" --json -e INSTRUCTIONS,CYCLES -- "$RING" 1000 20 \
        >"$work/agg.json" 2>"$work/err"
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
combine() { # the aggregate's combine: seconds and bytes at rank 0
    python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["mpi"]["combined"]
print(c["rank0_host_s"], c["rank0_bytes"])' "$work/agg.json"
}

instructions() { # the job's instructions, its ranks' whole processes (their results)
    python3 -c 'import glob, json, sys
print(sum(json.load(open(f))["events"][0]["count"] for f in glob.glob(sys.argv[1] + "/rank.*.json")))' \
        "$work/job"
}
# paired runs, each pair's ratio: the machine's load drifts between pairs
for i in $(seq "$REPS"); do
    t0=$(job 4 HPM_MPI_LIB=none)
    i0=$(instructions)
    t1=$(job 4)
    i1=$(instructions)
    echo "$t0 $t1 $i0 $i1" >>"$work/pairs"
    echo "$t1 $(combine)" >>"$work/combine4"
done
awk '{ printf "pair: %.2f s without libhpm-mpi, %.2f s with; instructions %d and %d\n",
              $1, $2, $3, $4 }' "$work/pairs"
awk '{ print $2 / $1 }' "$work/pairs" | median | awk '{
    printf "ratio mpi_job_with_libhpm_mpi %.3f\n", $1 }'
awk '{ print $4 / $3 }' "$work/pairs" | median | awk '{
    printf "ratio mpi_job_instructions_with_libhpm_mpi %.4f\n", $1 }'
awk '{ r = $2 / $1; print r }' "$work/combine4" | median | awk '{
    printf "ratio mpi_combine_over_job %.5f\n", $1 }'

# growth: the combine at 2, 4 and 8 ranks (one run each)
for n in 2 4 8; do
    t=$(job "$n")
    read -r s b < <(combine)
    echo "$n $s $b $t" >>"$work/growth"
    printf "%d ranks: combine %.6f s and %d bytes at rank 0, job %.1f s\n" "$n" "$s" "$b" "$t"
done
# memory: a + c * P^2 (the matrix, 16 bytes a pair and its JSON, gathered up
# to 1024 ranks), fitted to 2 and 8 ranks and checked at 4; beyond 1024
# ranks no matrix. Time: here P ranks share 2 cores, so every step of a
# collective waits for P/2 processes' turns and the time grows as P (a + b *
# P, fitted the same way); on a core per rank the reduction takes log2(P)
# steps, each costing what the 2-rank job's one step did.
awk '{ p[NR] = $1; s[NR] = $2; m[NR] = $3 }
END {
    c = (m[3] - m[1]) / (p[3] ^ 2 - p[1] ^ 2); a = m[1] - c * p[1] ^ 2
    printf "rank 0 memory ~ %.0f + %.1f * P^2 bytes up to 1024 ranks (at 4: %.0f predicted, %d measured; at 1024: %.1f MB); beyond, %.0f bytes\n",
           a, c, a + c * 16, m[2], (a + c * 1024 ^ 2) / 1e6, a
    b = (s[3] - s[1]) / (p[3] - p[1]); t0 = s[1] - b * p[1]
    printf "combine time on 2 cores ~ %.4f + %.4f * P s (at 4: %.4f predicted, %.4f measured)\n",
           t0, b, t0 + 4 * b, s[2]
    printf "combine time on a core per rank ~ %.4f * log2(P) s (at 100,000 ranks: %.2f s, the matrix left out)\n",
           s[1], s[1] * log(100000) / log(2)
    printf "ratio mpi_combine_time_8_over_2_ranks %.3f\n", s[3] / s[1]
    printf "ratio mpi_combine_bytes_8_over_2_ranks %.3f\n", m[3] / m[1]
}' "$work/growth"
