#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# golden.sh - every count of the virtual PMU against counts committed in the
# repository (tests/golden/expected/*.counts), so that a change made for
# speed (src/model, src/vpmu) is known to change no count at all.
#
#   golden.sh check BUILD [NAME...]       compare (the CTest test golden.counts)
#   golden.sh regen BUILD [NAME...]       rewrite expected/ (two runs each,
#                                         refused when they differ)
#   golden.sh gate BUILD                  hpm's own gate (hpm count --baseline
#                                         --limit '*:~0%') on the demo workloads
#                                         and bzip2 on bgp against the baselines
#                                         committed in baselines/ (golden.gate)
#   golden.sh save-baselines BUILD        rewrite baselines/ (--save-baseline)
#
# Each case runs `hpm count --csv` with every event the machine provides
# (hpm count's default) on one program and one machine, keeps the rows that
# the simulator produces (the "host" rows measure the simulator process and
# are dropped) and compares them byte for byte: node totals, per core, per
# thread and per region. Cases: the demo workloads (matmul, cg, stream), the
# validation kernels (workloads/validate) on machines bgp, bgl and
# bench/vpmu/cachegrind.machine (LRU, cachegrind's geometry); bzip2 and gzip
# on a generated input, single-threaded Debian programs we did not write, on
# the same three machines. All runs are single-threaded and deterministic
# (docs/vpmu.md, "Determinism").
#
# What the client sees must be the same on every run and in every checkout,
# since the stack layout (and so L1D misses) depends on it: the programs run
# with an empty environment but PATH, from a scratch folder of fixed-length
# name in /tmp that holds the programs and their input (relative names in
# argv), and Valgrind's lib folder is reached through a link in that folder
# (Valgrind puts its path into the client's LD_PRELOAD).
#
# The totals include the dynamic loader's and the C library's start-up, so
# they follow the system's libraries: after an upgrade of libc6, libbz2 or
# gzip, regenerate with the tool built from main (regen BUILD_OF_MAIN), then
# check the branch. When to regenerate otherwise: after a change that is
# meant to change counts (the models' rules, the catalog, the workloads'
# code, the machine files), never for a speed change. `bash tests/golden/golden.sh regen build`, look at the
# diff of expected/, and commit it with the reason.
set -euo pipefail

mode=${1:?usage: golden.sh check|regen BUILD [NAME...]}
BUILD=$(cd "${2:?usage: golden.sh check|regen BUILD [NAME...]}" && pwd)
shift 2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
EXPECTED=$HERE/expected
HPM=$BUILD/bin/hpm
LIB=$BUILD/lib/valgrind

[ -x "$HPM" ] || { echo "golden: $HPM missing" >&2; exit 2; }
[ -x "$LIB/hpm-amd64-linux" ] || { echo "golden: the virtual PMU tool is not built" >&2; exit 2; }

# Fixed-length scratch folder: /tmp/hpm-golden.XXXXXXXX (mktemp fills the Xs).
WORK=$(mktemp -d /tmp/hpm-golden.XXXXXXXX)
trap 'rm -rf "$WORK"' EXIT
ln -s "$LIB" "$WORK/lib"
for p in hpm-matmul hpm-cg hpm-stream hpm-validate-kernels; do
  [ -x "$BUILD/bin/$p" ] || { echo "golden: $BUILD/bin/$p missing" >&2; exit 2; }
  cp "$BUILD/bin/$p" "$WORK/$p"
done
cp "$ROOT/bench/vpmu/cachegrind.machine" "$WORK/cachegrind.machine"
# input of the compressors: fixed-seed text, 48 KiB
awk 'BEGIN { s = 4242; w = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
  for (i = 0; len < 49152; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    line = i " " substr(w, 1 + s % 40, 12) " " s % 977 "\n";
    len += length(line); printf "%s", line } }' >"$WORK/input.txt"

# The dynamic loader finds every library in LD_LIBRARY_PATH before it reads
# /etc/ld.so.cache, whose size and order change whenever any package with a
# library is installed: without it, the loader's instructions and accesses
# (and so every total) change with the system's package set.
LIBDIR=/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

MACHINES=(bgp bgl cachegrind)
# case name -> command line (relative to $WORK)
declare -A CMD=(
  [matmul]="./hpm-matmul 64"
  [cg]="./hpm-cg 48"
  [stream]="./hpm-stream 40000"
  [kernels]="./hpm-validate-kernels all"
)
if [ -x /usr/bin/bzip2 ]; then CMD[bzip2]="/usr/bin/bzip2 -9 -c input.txt"; fi
if [ -x /usr/bin/gzip ]; then CMD[gzip]="/usr/bin/gzip -9 -c input.txt"; fi

machine_arg() { # machine name -> --machine argument
  if [ "$1" = cachegrind ]; then echo ./cachegrind.machine; else echo "$1"; fi
}

# keep_rows: the rows that the simulator produces. The "host" section is
# the host's measurement of the simulator process, as are the I/O and
# kernel units' rows whose source is "measured" (host clocks, getrusage),
# and some "info" rows name this checkout or this host (machine_file,
# host_pmu*): left out.
keep_rows() {
  awk -F, '$1 == "host" { next }
    $NF == "measured" { next }
    $1 == "info" && $2 !~ /^(program|machine|cores|level|models|upcs|threads|exit_status)$/ { next }
    { print }'
}

# run_case PROG MACHINE OUT: the simulator's rows of hpm count --csv
run_case() {
  local prog=$1 m=$2 out=$3
  # shellcheck disable=SC2086 # CMD values are word lists
  if ! (cd "$WORK" && env -i PATH=/usr/bin:/bin HPM_VALGRIND_LIB="$WORK/lib" \
    LD_LIBRARY_PATH="$LIBDIR" \
    "$HPM" count --machine "$(machine_arg "$m")" --csv -o "$WORK/out.csv" -- ${CMD[$prog]} \
    >/dev/null 2>"$WORK/err"); then
    echo "golden: hpm count failed: $prog on $m" >&2
    tail -n 20 "$WORK/err" >&2
    return 1
  fi
  keep_rows <"$WORK/out.csv" >"$out"
}

# gate_case PROG ARGS...: hpm count of PROG on bgp against (or saving) its
# baseline, every modeled event exact (docs/ci.md is the recipe users follow)
gate_case() {
  local prog=$1
  shift
  # shellcheck disable=SC2086 # CMD values are word lists
  (cd "$WORK" && env -i PATH=/usr/bin:/bin HPM_VALGRIND_LIB="$WORK/lib" \
    LD_LIBRARY_PATH="$LIBDIR" \
    "$HPM" count --machine bgp -o "$WORK/out.txt" "$@" -- ${CMD[$prog]} >/dev/null 2>"$WORK/err")
}
if [ "$mode" = gate ] || [ "$mode" = save-baselines ]; then
  fails=0 n=0
  for prog in matmul cg stream bzip2; do
    [ -n "${CMD[$prog]:-}" ] || { echo "golden: note: $prog not installed, left out" >&2; continue; }
    n=$((n + 1))
    if [ "$mode" = save-baselines ]; then
      rm -rf "$HERE/baselines/$prog"
      gate_case "$prog" --save-baseline "$HERE/baselines/$prog" || { cat "$WORK/err" >&2; exit 2; }
      echo "golden: saved baseline $prog"
    elif gate_case "$prog" --baseline "$HERE/baselines/$prog" --limit '*:~0%'; then
      echo "golden: gate ok $prog ($(grep -c 'within' "$WORK/err") gate)"
    else
      echo "golden: gate FAIL $prog: a count changed (update baselines/ in the same commit, saying why):"
      grep -v "^hpm: counting on the virtual PMU\|^hpm: note" "$WORK/err" | head -20
      fails=$((fails + 1))
    fi
  done
  [ "$fails" = 0 ] || { echo "golden: the gate failed on $fails of $n programs"; exit 1; }
  exit 0
fi

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for p in matmul cg stream kernels bzip2 gzip; do
    [ -n "${CMD[$p]:-}" ] || { echo "golden: note: $p not installed, left out" >&2; continue; }
    for m in "${MACHINES[@]}"; do names+=("$p.$m"); done
  done
fi

fails=0
for n in "${names[@]}"; do
  prog=${n%%.*} m=${n#*.}
  exp=$EXPECTED/$n.counts
  case $mode in
  regen)
    mkdir -p "$EXPECTED"
    run_case "$prog" "$m" "$WORK/a" || exit 2
    run_case "$prog" "$m" "$WORK/b" || exit 2
    if ! cmp -s "$WORK/a" "$WORK/b"; then
      echo "golden: $n is not deterministic (two runs differ); not written" >&2
      diff "$WORK/a" "$WORK/b" | head -10 >&2
      exit 1
    fi
    cp "$WORK/a" "$exp"
    echo "golden: wrote $n ($(grep -c '^event,' "$exp") event rows)"
    ;;
  check)
    if [ ! -f "$exp" ]; then
      echo "golden: $n has no expected counts (regen)" >&2
      fails=$((fails + 1))
      continue
    fi
    run_case "$prog" "$m" "$WORK/got" || { fails=$((fails + 1)); continue; }
    if cmp -s "$exp" "$WORK/got"; then
      echo "golden: ok $n ($(grep -c . "$exp") rows)"
    else
      echo "golden: FAIL $n: counts differ from $exp (expected < > got):"
      diff "$exp" "$WORK/got" | head -20 || true
      fails=$((fails + 1))
    fi
    ;;
  *)
    echo "golden: unknown mode $mode" >&2
    exit 2
    ;;
  esac
done
if [ "$mode" = check ]; then
  [ "$fails" = 0 ] || { echo "golden: $fails of ${#names[@]} cases differ"; exit 1; }
  echo "golden: all ${#names[@]} cases identical"
fi
