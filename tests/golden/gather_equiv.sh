#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# gather_equiv.sh BUILD GATHER_READS - a program's reads of its own counts
# (PAPI_read, accum, reset, start and stop: HPM_VPMU_READ_KINDS; READ and
# the regions gather the same way, and are not run here: the high-level
# API's output makes two runs differ) gather the UPCs' batch instead of feeding it where the
# units can tell no two batches from their sum (vpmu_node_flush_read); the
# program reads, and hpm reports, exactly what feeding at each read gives:
# gather_reads.c (one thread, then two) under hpm run and hpm count on bgp,
# with --hpm-gather-reads=yes and =no, prints the same values and reports
# the same simulated counts. So does the overflow check of a modeled kind
# (the cycles), which reads them the same way: the program's overflow phase
# prints each handler call's address. The option reaches the tool through
# VALGRIND_OPTS, padded to one length, so that both runs see the same
# environment.
set -euo pipefail
BUILD=$(cd "${1:?usage: gather_equiv.sh BUILD GATHER_READS}" && pwd)
PROG=${2:?usage: gather_equiv.sh BUILD GATHER_READS}
HPM=$BUILD/bin/hpm
WORK=$(mktemp -d /tmp/hpm-gather.XXXXXXXX)
trap 'rm -rf "$WORK"' EXIT
export LD_LIBRARY_PATH="$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

run() { # MODE THREADS GATHER OUT
  local args=()
  [ "$1" = count ] && args=(--machine bgp --csv -o "$WORK/report.csv")
  rm -rf "$WORK/d" && mkdir "$WORK/d"
  (cd "$WORK/d" && VALGRIND_OPTS="--hpm-gather-reads=$3" "$HPM" "$1" "${args[@]}" -- "$PROG" "$2" \
    >"$4.out" 2>"$4.err") || { echo "gather_equiv: $1 with $2 thread(s), gather $3, failed:"; tail -n 5 "$4.err"; exit 1; }
  if [ "$1" = count ]; then
    # the simulated counts only (the host's measurements differ run to run,
    # and so do the bytes the C library reads from /proc, which hold the
    # pid, and the notes that name it)
    grep -v ',measured$' "$WORK/report.csv" | grep -v -e '^#' -e '^note,' -e '^event,IO_[A-Z_]*READ_BYTES,' >"$4.sim"
  fi
}

# The program's start-up runs a few instructions more or fewer from run
# to run: it parses /proc/self/status (libpapi's os component), whose
# digits vary, and it registers with the live views beside whatever other
# hpm runs the machine has. Its reads repeat but for the cycles, whose
# timing model rounds each class's share of every instruction run since the
# process started. A pair that ran different start-ups (the report's
# INSTRUCTIONS differ, or under hpm run, where there is no report, any value
# read) runs again, up to five times: a difference that gathering makes
# repeats, and fails; one that repeats nowhere is the start-up's.
instructions() { grep -m1 '^event,INSTRUCTIONS,' "$1" | cut -d, -f7; }
fail=0
for mode in run count; do
  for threads in 1 2; do
    for attempt in 1 2 3 4 5; do
      run $mode $threads yes "$WORK/y"
      run $mode $threads "no " "$WORK/n"
      if [ $mode = run ]; then
        cmp -s "$WORK/y.out" "$WORK/n.out" && break
      else
        cmp -s "$WORK/y.sim" "$WORK/n.sim" && cmp -s "$WORK/y.out" "$WORK/n.out" && break
        [ "$(instructions "$WORK/y.sim")" = "$(instructions "$WORK/n.sim")" ] && break
      fi
      [ $attempt -lt 5 ] && echo "gather_equiv: $mode, $threads thread(s): the pair differs (start-up?), again"
    done
    reads=$(grep -c -E ' (ovf_)?(read|accum|stop|end) ' "$WORK/y.out" || true)
    # the overflow phase's handler calls (its cycles checked as reads are)
    ovfs=$(awk '$2 == "overflows" { n += $3 } END { print n + 0 }' "$WORK/y.out")
    if [ "$reads" -lt $((threads * 700)) ] || [ "$ovfs" -lt $((threads * 20)) ]; then
      echo "gather_equiv: $mode, $threads thread(s): only $reads values and $ovfs overflows printed"
      fail=1
    elif ! cmp -s "$WORK/y.out" "$WORK/n.out"; then
      echo "gather_equiv: $mode, $threads thread(s): the values read (or the overflows) differ"
      diff "$WORK/n.out" "$WORK/y.out" | head -n 10 || true
      fail=1
    else
      echo "gather_equiv: $mode, $threads thread(s): $reads reads and $ovfs overflows identical"
    fi
    if [ $mode = count ]; then
      if ! cmp -s "$WORK/y.sim" "$WORK/n.sim"; then
        echo "gather_equiv: count, $threads thread(s): the reported counts differ"
        diff "$WORK/n.sim" "$WORK/y.sim" | head -n 10 || true
        fail=1
      else
        echo "gather_equiv: count, $threads thread(s): $(grep -c '^event' "$WORK/y.sim") rows identical"
      fi
    fi
    # the reads must have counted something modeled: not all zeros
    if ! awk '$2 == "read" && $4 > 0 && $5 > 0 { ok = 1 } END { exit !ok }' "$WORK/y.out"; then
      echo "gather_equiv: $mode, $threads thread(s): no read saw instructions and L1D misses"
      fail=1
    fi
    rm -rf "$WORK/y".* "$WORK/n".*
  done
done
exit $fail
