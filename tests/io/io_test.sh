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
#   profile  the same parts under `hpm profile`: every exact I/O and kernel
#            kind is per instruction (not apportioned, not unattributed:
#            only the host-measured ones are), the signals on the
#            instruction they arrived at, not in (unattributed)
set -u
hpm=$1 prog=$2 mode=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/hpm-io.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL io.$mode: $*" >&2; exit 1; }

arg=""
[ "$mode" = hostile ] && arg=hostile
if [ "$mode" = profile ]; then
  "$hpm" profile -o "$work/p.out" -- "$prog" "$work" >"$work/stdout" 2>"$work/stderr" ||
    { cat "$work/stderr" >&2; fail "hpm profile failed"; }
  grep -q "^io_prog: ok" "$work/stdout" || fail "io_prog did not say ok under hpm profile"
  msg=$(grep "^hpm: profile of" "$work/stderr") || fail "no profile message: $(cat "$work/stderr")"
  apportioned=$(echo "$msg" | sed -n 's/.*apportioned to add up to their totals:\([^;]*\).*/\1/p')
  unattributed=$(echo "$msg" | sed -n 's/.*not per instruction, in (unattributed):\([^;]*\).*/\1/p')
  for k in $apportioned; do
    case $k in IO_* | KERNEL_*) fail "$k apportioned: $msg" ;; esac
  done
  [ -n "$unattributed" ] || fail "the host-measured kinds are not named: $msg"
  for k in $unattributed; do
    case $k in *HOST*) ;; *) fail "$k not per instruction: $msg" ;; esac
  done
  if command -v callgrind_annotate >/dev/null; then
    callgrind_annotate --show=KERNEL_SIGNALS --sort=KERNEL_SIGNALS "$work/p.out" >"$work/ann" 2>&1 ||
      fail "callgrind_annotate: $(cat "$work/ann")"
    top=$(grep -A2 "file:function" "$work/ann" | tail -1)
    case $top in
    *unattributed* | "") fail "KERNEL_SIGNALS' top function: $top" ;;
    esac
    n=$(echo "$top" | awk '{ gsub(",", "", $1); print $1 }')
    [ "$n" -ge 5 ] || fail "KERNEL_SIGNALS' top function has $n, io_prog raised 5: $top"
  fi
  echo "io.profile: ok"
  exit 0
fi
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
