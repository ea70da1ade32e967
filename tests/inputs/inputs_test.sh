#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Hostile inputs (tests/inputs/CMakeLists.txt).
#   inputs_test.sh HPM WORKDIR SCENARIO
set -u
hpm=$1 work=$2 scenario=$3
dir=$work/$scenario
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$(dirname "$0")/../common/scenario.sh"

# within HPM CMD...: run hpm with a time limit and a memory limit (1 GiB of
# address space under ASan is too little: the limit is only set natively)
within() {
    timeout 20 "$hpm" "$@" >out 2>err
    rc=$?
    [ $rc -eq 124 ] && fail "hpm $* hung"
    [ $rc -ge 128 ] && fail "hpm $* died of signal $((rc - 128))"
    return 0
}

case $scenario in
files)
    mkfifo fifo
    truncate -s 100G sparse
    echo "no profile at all" >text
    for cmd in "report --folded" annotate; do
        within $cmd /dev/zero
        expect_rc 1
        expect_err "cannot read /dev/zero: not a regular file"
        within $cmd fifo
        expect_rc 1
        expect_err "cannot read fifo: not a regular file"
        within $cmd sparse
        expect_rc 1
        expect_err "sparse: .*more than"
        within $cmd text
        expect_rc 1
        expect_err "text: not a"
    done
    within count --from-output /dev/zero
    [ $rc -ne 0 ] || fail "count --from-output /dev/zero succeeded"
    expect_err "/dev/zero: not a regular file"
    within count --from-output sparse
    [ $rc -ne 0 ] || fail "count --from-output of a sparse file succeeded"
    within count --from-output text
    expect_err "text: not an output file of the virtual PMU"
    within count --machine ./fifo -- true
    expect_rc 2
    expect_err "fifo: not a regular file"
    within count --machine /dev/zero -- true
    expect_rc 2
    within diff fifo text
    expect_rc 2
    expect_err "fifo: not a regular file"
    # hpm record writes perf.data, whose header is rewritten at its end:
    # a FIFO (or a device) is refused before the run
    within record -e INSTRUCTIONS:1000 -o fifo -- true
    expect_rc 2
    expect_err "cannot write the recording to fifo: not a regular file"
    # a profile whose source file names are a device, a FIFO and a huge
    # sparse file: annotated without source, with a note, promptly
    cat >p.prof <<EOT
# callgrind format
version: 1
creator: hand
events: INSTRUCTIONS
fl=/dev/zero
fn=a
1 100
fl=$dir/fifo
fn=b
1 50
fl=$dir/sparse
fn=c
1 25
EOT
    within annotate p.prof
    expect_rc 0
    expect_out "source not shown: /dev/zero: not a regular file"
    expect_out "source not shown: $dir/fifo: not a regular file"
    expect_out "source not shown: $dir/sparse: .*more than"
    ;;
plot)
    # names reach gnuplot only when they cannot end its command: a newline
    # in a series file's name, in -o, or in an event name would make the
    # rest a gnuplot command, and gnuplot's system() a shell command
    printf 'time_s,event,delta,rate_per_s,total\n0.1,INSTRUCTIONS,100,1000,100\n0.2,INSTRUCTIONS,100,1000,200\n' >s.csv
    within plot s.csv -o ok.svg
    expect_rc 0
    xmllint --noout ok.svg || fail "ok.svg is not well-formed"
    bad=$(printf 's\nsystem "touch PWNED"\n.csv')
    cp s.csv "$bad"
    within plot "$bad" -o x.svg
    expect_rc 2
    expect_err "control characters"
    within plot s.csv -o "$(printf 'x\nsystem "touch PWNED"\n.svg')"
    expect_rc 2
    printf '0.1,INS\rsystem("touch PWNED"),100,1000,100\n' >ev.csv
    within plot ev.csv -o y.svg
    expect_rc 2
    expect_err "an event name with control characters"
    [ -e PWNED ] && fail "a name made gnuplot run a command"
    mkfifo fifo
    within plot fifo -o z.svg
    expect_rc 1
    expect_err "fifo: not a regular file"
    ;;
*)
    echo "unknown scenario $scenario" >&2
    exit 2
    ;;
esac
echo "ok $scenario"
