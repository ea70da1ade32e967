# SPDX-License-Identifier: BSD-3-Clause
# Helpers of the shell scenario tests (tests/count, tests/validate), sourced
# after they set $hpm and $scenario and cd into the scenario's folder.

# fail MESSAGE: report, with what the last run printed, and exit 1
fail() {
    echo "FAIL $scenario: $*" >&2
    for f in out err; do
        [ -f $f ] && { echo "--- $f" >&2; head -c 6000 $f >&2; }
    done
    exit 1
}

# run hpm ARGS...: stdout in out, stderr in err, status in rc
run() {
    "$hpm" "$@" >out 2>err
    rc=$?
}

expect_rc() {
    [ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"
}

expect_out() {
    grep -q -- "$1" out || fail "stdout lacks '$1'"
}

expect_err() {
    grep -q -- "$1" err || fail "stderr lacks '$1'"
}
