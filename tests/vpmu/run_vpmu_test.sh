#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run one program under valgrind --tool=hpm and check the output file.
#
#   run_vpmu_test.sh VALGRIND VALGRIND_LIB CHECKER OUTFILE EXPECT PROG -- ASSERTION...
#
# EXPECT: "ok" (program must exit 0) or "signal" (program must die of a
# signal). Extra tool options can be given in VPMU_TOOL_OPTS.
set -u
vg=$1 lib=$2 check=$3 out=$4 expect=$5 prog=$6
shift 6
[ "${1:-}" = "--" ] && shift
rm -f "$out"
VALGRIND_LIB=$lib "$vg" -q --tool=hpm --hpm-out="$out" ${VPMU_TOOL_OPTS:-} "$prog"
rc=$?
case $expect in
ok)     [ $rc -eq 0 ] || { echo "program failed: rc=$rc" >&2; exit 1; } ;;
signal) [ $rc -gt 128 ] || { echo "expected death by signal, rc=$rc" >&2; exit 1; } ;;
*)      echo "bad EXPECT $expect" >&2; exit 2 ;;
esac
[ -s "$out" ] || { echo "no output file $out" >&2; exit 1; }
exec "$check" "$out" "$@"
