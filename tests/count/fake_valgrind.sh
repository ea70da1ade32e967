#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A stand-in for `valgrind --tool=hpm` in tests of hpm count's runner (exit
# status, signals, temporary files, -o), so they run where the real tool is
# not built (sanitizer builds) and do not depend on its counts. It accepts the
# tool's options, runs the program, and writes a format-2 output file whose
# counts are 1000 + code, naming each code as an INSTRUCTIONS code (tests use
# -e INSTRUCTIONS). Like valgrind it runs in the process hpm started, so $$ is
# the pid that %p names, and it dies of the signal that killed the program.
#   FAKE_FORK=1       also write a second process's file (a forked child)
#   FAKE_CHILD_COMMAND=TEXT  that child's command line (default: its pid)
#   FAKE_NO_OUTPUT=1  write nothing (valgrind could not start the program)
#   FAKE_READY=FILE   create FILE once the program runs (for signal tests)
#   FAKE_RM_DIR=1     remove the output folder instead of writing (a folder
#                     lost to another process: hpm must report, not abort)
out= events=
while [ $# -gt 0 ]; do
    case $1 in
    -q | --vgdb=no | --tool=hpm | --hpm-machine=* | --hpm-start=* | --trace-children=* | --max-threads=* | --hpm-children=* | --trace-children-skip=* | --fair-sched=* | --hpm-interleave=* | --hpm-interleave-from=* | --hpm-coherence=* | --hpm-debug-dir=* | --hpm-debug-copies=*) shift ;;
    --hpm-out=*) out=${1#--hpm-out=}; shift ;;
    --hpm-events=*) events=${1#--hpm-events=}; shift ;;
    -*) echo "fake valgrind: unknown option $1" >&2; exit 1 ;;
    *) break ;;
    esac
done
[ -n "${VALGRIND_LIB:-}" ] || { echo "fake valgrind: no VALGRIND_LIB" >&2; exit 1; }
[ -n "$out" ] || exit 1
file=$(printf '%s' "$out" | sed -e "s/%p/$$/g" -e 's/%%/%/g')

got=
trap 'got=TERM; kill -TERM $child 2>/dev/null' TERM
trap 'got=INT; kill -INT $child 2>/dev/null' INT
trap 'got=HUP; kill -HUP $child 2>/dev/null' HUP
"$@" &
child=$!
[ -n "${FAKE_READY:-}" ] && : >"$FAKE_READY"
wait $child
st=$?
# a trapped signal interrupts wait; wait again for the program's own status
[ -n "$got" ] && { wait $child; st=$?; }

[ "${FAKE_NO_OUTPUT:-0}" = 1 ] && exit $st
[ "${FAKE_RM_DIR:-0}" = 1 ] && { rm -rf "$(dirname "$file")"; exit $st; }
write() { # PID COMMAND
    echo "hpm-vpmu 2"
    echo "command $2"
    echo "pid $1"
    echo "machine bgp"
    echo "cores 4"
    echo "frequency_hz 850000000"
    echo "level insn"
    echo "models none"
    echo "upcs 1"
    if [ $st -gt 128 ]; then echo "exit signal $((st - 128))"; else echo "exit status $st"; fi
    echo "threads 1"
    echo "thread 1 core 0"
    old=$IFS
    IFS=,
    for c in $events; do
        echo "count $c PU$((c / 56))_INSTRUCTIONS $((1000 + c))"
    done
    IFS=$old
}
write $$ $$ >"$file"
if [ "${FAKE_FORK:-0}" = 1 ]; then
    write 1 "${FAKE_CHILD_COMMAND:-1}" >"$(printf '%s' "$out" | sed -e "s/%p/1/g" -e 's/%%/%/g')"
fi
if [ $st -gt 128 ]; then
    trap - TERM INT HUP
    kill -$((st - 128)) $$
fi
exit $st
