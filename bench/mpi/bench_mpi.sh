#!/usr/bin/env bash
# The cost of libhpm-mpi (src/hpm_mpi) per message, with the library
# preloaded and recording (HPM_MPI_TORUS set, as hpm count sets it) over
# the same run without it: natively, the time per 8-byte message of a
# ping-pong between 2 ranks and of one rank sending to itself (median of
# REPS paired runs; the ping-pong shares 2 cores and is noisy); on the
# virtual PMU, the instructions per message (hpm count -e INSTRUCTIONS).
# Prints "ratio NAME VALUE".
#   bench_mpi.sh BUILD [REPS]
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
REPS=${2:-5}
PROG=$BUILD/bench/mpi/mpi_msgrate
LIB=$BUILD/lib/libhpm-mpi.so
if [ ! -x "$PROG" ] || [ ! -f "$LIB" ] || ! command -v mpirun >/dev/null; then
    echo "bench_mpi: no Open MPI or libhpm-mpi in $BUILD: skipped"
    exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --mca btl self,vader -np 2)
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-mpi.XXXXXX")
trap 'rm -rf "$work"' EXIT

for i in $(seq "$REPS"); do
    "${MPIRUN[@]}" "$PROG" 20000 >>"$work/plain"
    "${MPIRUN[@]}" -x LD_PRELOAD="$LIB" -x HPM_MPI_TORUS=2,1,1,XYZ,256 "$PROG" 20000 >>"$work/pmpi"
    mpirun -np 1 "$PROG" 200000 self >>"$work/plain1"
    mpirun -np 1 -x LD_PRELOAD="$LIB" -x HPM_MPI_TORUS=1,1,1,XYZ,256 "$PROG" 200000 self \
        >>"$work/pmpi1"
done
for m in pingpong self; do
    [ $m = self ] && sfx=1 || sfx=
    plain=$(median <"$work/plain$sfx")
    pmpi=$(median <"$work/pmpi$sfx")
    awk -v a="$pmpi" -v b="$plain" -v m=$m 'BEGIN {
        printf "native %s: %.1f ns per message without libhpm-mpi, %.1f ns with (%+.1f ns)\n",
               m, b * 1e9, a * 1e9, (a - b) * 1e9
        printf "ratio pmpi_per_message_native_%s %.3f\n", m, a / b }'
done

# Exact: instructions per message on the virtual PMU, one rank sending to
# itself (mpi_msgrate's "self": nothing to wait for, so the same count in
# every run; with two ranks, waiting polls a varying number of times), as
# the slope between runs of N and 2N messages (what the library costs once,
# its loading, MPI_Init and the exchange at MPI_Finalize, cancels out)
N=2000
count() { # round trips, extra mpirun args...: the rank's INSTRUCTIONS
    local n=$1
    shift
    rm -rf "$work/job"
    mpirun -np 1 "$@" "$BUILD/bin/hpm" count --mpi-dir "$work/job" -e INSTRUCTIONS \
        -- "$PROG" "$n" self >/dev/null 2>&1
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"][0]["count"])' \
        "$work/job/rank.0.json"
}
# (hpm count preloads libhpm-mpi into an MPI program; HPM_MPI_LIB=none runs
# the job without it)
p1=$(count $N -x HPM_MPI_LIB=none)
p2=$(count $((2 * N)) -x HPM_MPI_LIB=none)
w1=$(count $N)
w2=$(count $((2 * N)))
awk -v p1="$p1" -v p2="$p2" -v w1="$w1" -v w2="$w2" -v n="$N" 'BEGIN {
    m = n  # messages rank 0 sends (to itself) in the extra N
    printf "virtual PMU: %.1f instructions per message without libhpm-mpi, %.1f with " \
           "(%+.1f; once per run: %+d)\n", (p2 - p1) / m, (w2 - w1) / m,
           ((w2 - w1) - (p2 - p1)) / m, (w1 - p1) - ((w2 - w1) - (p2 - p1))
    printf "ratio pmpi_instructions_per_message %.4f\n", (w2 - w1) / (p2 - p1) }'
