#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# io_test.sh HPM IO_PROG MODE - the I/O and kernel units under `hpm count`
# (every event the machine provides, so the units' codes are programmed).
#
#   exact    io_prog's parts (file, pipe, sockets, terminal, signals) must
#            be counted exactly (io_prog checks the deltas itself); then the
#            report: the system call classes add up to KERNEL_SYSCALLS, which
#            equals the core unit's SYSCALLS; host-measured rows say
#            "measured", the exact ones do not
#   hostile  bad descriptors and buffers, a huge count: counted, no crash
set -u
hpm=$1 prog=$2 mode=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/hpm-io.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL io.$mode: $*" >&2; exit 1; }

arg=""
[ "$mode" = hostile ] && arg=hostile
"$hpm" count --csv -o "$work/out.csv" -- "$prog" "$work" $arg >"$work/stdout" 2>"$work/stderr"
rc=$?
cat "$work/stdout"
[ $rc = 0 ] || { cat "$work/stderr" >&2; fail "hpm count exited $rc"; }
grep -q "^io_prog: ok" "$work/stdout" || fail "io_prog did not say ok"
[ -s "$work/out.csv" ] || fail "no report"

# total of a node event in the report
total() { awk -F, -v n="$1" '$1 == "event" && $2 == n && $6 == "" { print $7; exit }' "$work/out.csv"; }
source_of() { awk -F, -v n="$1" '$1 == "event" && $2 == n && $6 == "" { print $8; exit }' "$work/out.csv"; }

all=$(total KERNEL_SYSCALLS)
sum=0
for c in IO MEMORY PROCESS SIGNAL TIME SYNC OTHER; do
  v=$(total "KERNEL_SYSCALLS_$c")
  [ -n "$v" ] || fail "no KERNEL_SYSCALLS_$c row"
  sum=$((sum + v))
done
[ -n "$all" ] && [ "$all" -gt 0 ] || fail "KERNEL_SYSCALLS missing or 0"
[ "$sum" = "$all" ] || fail "the classes sum to $sum, KERNEL_SYSCALLS is $all"
sys=$(total SYSCALLS)
[ "$sys" = "$all" ] || fail "SYSCALLS (core unit) is $sys, KERNEL_SYSCALLS $all"
echo "io.$mode: $all system calls, classes add up, SYSCALLS agrees"

[ "$(source_of IO_HOST_NS)" = measured ] || fail "IO_HOST_NS not labelled measured"
# host time: every I/O call is a system call
io_ns=$(total IO_HOST_NS) sys_ns=$(total KERNEL_HOST_SYSCALL_NS)
[ "$io_ns" -gt 0 ] && [ "$sys_ns" -ge "$io_ns" ] ||
  fail "host times: IO_HOST_NS $io_ns, KERNEL_HOST_SYSCALL_NS $sys_ns"
[ "$(source_of KERNEL_HOST_MINOR_FAULTS)" = measured ] || fail "page faults not labelled measured"
[ "$(source_of IO_READ_BYTES)" = modeled ] || fail "IO_READ_BYTES labelled $(source_of IO_READ_BYTES)"
if [ "$mode" = exact ]; then
  s=$(total KERNEL_SIGNALS)
  [ "$s" -ge 5 ] || fail "KERNEL_SIGNALS $s < the 5 raised"
fi
echo "io.$mode: ok"
