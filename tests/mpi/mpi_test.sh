#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Tests of MPI jobs: hpm count as the ranks of `mpirun`, the aggregate, hpm
# merge. One scenario per CTest test.
#
#   mpi_test.sh HPM SRCDIR WORKDIR SCENARIO [MPI_RING RANK_PROG]
#
# merge*: hand-written rank results (tests/mpi/results) with known counts,
# no MPI needed. The others run Open MPI's mpirun (as root where the tests
# run as root: Open MPI's own variables allow it; --oversubscribe: more
# ranks than cores) with hpm count on the virtual PMU.
set -u
hpm=$1 src=$2 work=$3 scenario=$4
ring=${5:-} rankprog=${6:-}
py=${PYTHON:-python3}
dir=$work/$scenario
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
ulimit -c 0 2>/dev/null

. "$src/../common/scenario.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shared memory between the ranks only (no network probing), and keep
# every rank running when one fails, so that its results stay
mpirun_() {
    mpirun --oversubscribe --mca btl self,vader --mca orte_abort_on_non_zero_status 0 "$@"
}

# jq-like checks: py_check FILE EXPR... (each EXPR a Python expression over d)
py_check() {
    f=$1
    shift
    "$py" - "$f" "$@" <<'EOF' || fail "JSON check failed on $f"
import json, sys
d = json.load(open(sys.argv[1]))
for e in sys.argv[2:]:
    if not eval(e):
        sys.exit("not true: " + e)
EOF
}

# the value column of a CSV row: csv_val SECTION NAME REGION
csv_val() {
    awk -F, -v s="$1" -v n="$2" -v r="$3" '
        $1 == s && $2 == n && $3 == r { print $7; f = 1; exit }
        END { if (!f) print "MISSING" }' out
}

expect_eq() {
    [ "$2" = "$3" ] || fail "$1 = $2, expected $3"
}

# three_ranks DIR COUNT: a job of three ranks in DIR, each rank.1.json's
# with COUNT instructions
three_ranks() {
    mkdir "$1"
    for r in 0 1 2; do
        sed -e "s/\"count\":300/\"count\":$2/" -e "s/\"rank\":1/\"rank\":$r/" \
            -e 's/"size":4/"size":3/' "$src/results/rank.1.json" >"$1/rank.$r.json"
    done
}

case $scenario in
merge)
    # four ranks, INSTRUCTIONS 100 300 200 400, DDR_READ_BYTES 64 128 0 64
    run merge --json --per-rank "$src/results"
    expect_rc 0
    cp out merged.json
    py_check merged.json 'd["mpi"]["size"] == 4' 'd["mpi"]["ranks_counted"] == 4' \
        'd["mpi"]["missing"] == []' \
        '[e["count"] for e in d["events"]] == [1000, 256]' \
        'd["mpi"]["events"][0] == {"name":"INSTRUCTIONS","sum":1000,"min":100,"min_rank":0,"avg":250,"max":400,"max_rank":3,"imbalance":1.6}' \
        'd["mpi"]["events"][1] == {"name":"DDR_READ_BYTES","sum":256,"min":0,"min_rank":2,"avg":64,"max":128,"max_rank":1,"imbalance":2}' \
        '[r["counts"]["INSTRUCTIONS"] for r in d["mpi"]["ranks"]] == [100, 300, 200, 400]' \
        '[r["host"] for r in d["mpi"]["ranks"]] == ["node0", "node0", "node1", "node1"]' \
        'd["exit"]["status"] == 3'
    run merge --csv "$src/results/rank.3.json" "$src/results/rank.1.json" \
        "$src/results/rank.0.json" "$src/results/rank.2.json"
    expect_rc 0
    expect_eq "csv sum" "$(csv_val mpi INSTRUCTIONS sum)" 1000
    expect_eq "csv min" "$(csv_val mpi INSTRUCTIONS min)" 100
    expect_eq "csv avg" "$(csv_val mpi INSTRUCTIONS avg)" 250
    expect_eq "csv max rank" "$(csv_val mpi INSTRUCTIONS max_rank)" 3
    expect_eq "csv imbalance" "$(csv_val mpi INSTRUCTIONS imbalance)" 1.6
    run merge "$src/results"
    expect_rc 0
    expect_out "MPI job of 4 ranks: 4 with counts"
    expect_out "INSTRUCTIONS  *1000  *100  *250.00  *400  *3  *1.6000"
    ;;
merge_saturated)
    # three ranks of 9e18 instructions: the sum passes 2^64 - 1, and the
    # report says so (JSON integers stop at 2^63 - 1, so no rank alone can)
    three_ranks sat 9000000000000000000
    run merge sat
    expect_rc 0
    expect_out "the sum of PU0_INSTRUCTIONS exceeds 2^64-1: shown at 18446744073709551615"
    run merge --json sat
    expect_rc 0
    grep -q 'exceeds 2^64-1' out || fail "the JSON report lacks the note"
    # three ranks of 2^63-1: the average is 2^63-1 exactly, never above the
    # max (a double rounds it up to 2^63)
    three_ranks max 9223372036854775807
    run merge max
    expect_rc 0
    expect_out "INSTRUCTIONS .* 9223372036854775807.00  *9223372036854775807 "
    run merge --json max
    expect_rc 0
    grep -q '"avg":9223372036854775807,' out || fail "the JSON average is not 2^63-1: $(grep -o '"avg":[^,]*' out)"
    run merge --csv max
    expect_rc 0
    expect_eq "csv avg" "$(csv_val mpi INSTRUCTIONS avg)" 9223372036854775807
    ;;
merge_missing)
    # rank 1 died without counts, rank 2's file is gone: the others are kept
    run merge --json "$src/results/rank.0.json" "$src/results/lost.json" \
        "$src/results/rank.3.json"
    expect_rc 0
    cp out merged.json
    py_check merged.json 'd["mpi"]["ranks_counted"] == 2' \
        '[m["rank"] for m in d["mpi"]["missing"]] == [1, 2]' \
        '"killed by signal 9" in d["mpi"]["missing"][0]["reason"]' \
        '"no result file" in d["mpi"]["missing"][1]["reason"]' \
        'd["events"][0]["count"] == 500' \
        'd["mpi"]["events"][0]["min"] == 100 and d["mpi"]["events"][0]["max"] == 400' \
        'd["mpi"]["events"][0]["avg"] == 250' 'd["exit"]["signal"] == 9'
    run merge "$src/results/rank.0.json" "$src/results/lost.json"
    expect_rc 0
    expect_out "missing   rank 1: killed by signal 9"
    expect_out "missing   rank 2: no result file"
    ;;
merge_errors)
    run merge
    expect_rc 2
    expect_err "no result files"
    run merge "$src/results/rank.0.json" "$src/results/rank.0.json"
    expect_rc 1
    expect_err "rank 0 twice"
    sed 's/"job":"t1"/"job":"t2"/' "$src/results/rank.1.json" >other.json
    run merge "$src/results/rank.0.json" other.json
    expect_rc 1
    expect_err "results of one job only"
    printf '{"mpi_rank":{"rank":4,"size":4},"exit":{"status":0}}' >bad.json
    run merge bad.json
    expect_rc 1
    expect_err "bad.json: \"rank\" must be an integer in \[0, 3\]"
    printf '{"events":[]}' >norank.json
    run merge norank.json
    expect_rc 1
    expect_err "not an MPI rank's result"
    printf '{"mpi_rank":' >trunc.json
    run merge trunc.json
    expect_rc 1
    expect_err "trunc.json: line 1"
    sed 's/"code":0,/"code":56,/' "$src/results/rank.1.json" >core.json
    run merge core.json
    expect_rc 1
    expect_err "code 56 is no event of a 1-core machine"
    run merge "$src/results/lost.json"
    expect_rc 1
    expect_err "no rank of the job has counts"
    mkdir empty
    run merge empty
    expect_rc 1
    expect_err "no rank result files"
    run merge --json --csv "$src/results"
    expect_rc 2
    ;;
not_a_rank)
    # --mpi outside a launcher, and --mpi with a program that is not an MPI program
    run count --mpi -e INSTRUCTIONS -- "$rankprog"
    expect_rc 2
    expect_err "need hpm count to be a rank of an MPI job"
    OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 "$hpm" count --mpi -e INSTRUCTIONS \
        -- "$rankprog" >out 2>err
    rc=$?
    expect_rc 2
    expect_err "is not an MPI program"
    OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=2 "$hpm" count -e INSTRUCTIONS \
        -- "$rankprog" >out 2>err
    rc=$?
    expect_rc 2
    expect_err "do not name a rank of a job"
    ! ls -d hpm-mpi.* >/dev/null 2>&1 || fail "left a job folder: $(ls)"
    ;;
ring)
    # an MPI program on 3 ranks (2 cores): one result per rank and the
    # aggregate, in a folder that holds results of an earlier job (ranks 1
    # and 2 of another job: they must not complete this one's set)
    mkdir job && cp "$src/results/rank.1.json" "$src/results/rank.2.json" job/ || exit 1
    mpirun_ -np 3 "$hpm" count --mpi --mpi-dir job --per-rank --json -e INSTRUCTIONS,LOADS \
        -- "$ring" 512 >out 2>err
    rc=$?
    expect_rc 0
    [ -f job/rank.0.json ] && [ -f job/rank.1.json ] && [ -f job/rank.2.json ] ||
        fail "rank results missing: $(ls job)"
    cp out agg.json
    # the aggregate is the ranks' results added up; rank r runs r+1 rounds
    # of its loop. Which rank counts most is not fixed: a rank that waits in
    # MPI_Allreduce polls, and how long it polls depends on the scheduler
    # (3 ranks on 2 cores; CI once saw rank 1 load 0.67 M more than rank 2)
    "$py" - agg.json job <<'EOF' || fail "aggregate does not match the ranks' results"
import json, sys
agg = json.load(open(sys.argv[1]))
ranks = [json.load(open("%s/rank.%d.json" % (sys.argv[2], r))) for r in range(3)]
for i, name in enumerate(["INSTRUCTIONS", "LOADS"]):
    per = [next(e["count"] for e in r["events"] if e["name"] == name) for r in ranks]
    st = agg["mpi"]["events"][i]
    assert st["name"] == name and agg["events"][i]["count"] == sum(per) == st["sum"], (name, per, st)
    assert st["min"] == min(per) and st["min_rank"] == per.index(min(per)), (per, st)
    assert st["max"] == max(per) and st["max_rank"] == per.index(max(per)), (per, st)
    assert abs(st["avg"] - sum(per) / 3) < 1e-6 * st["avg"], st
    assert abs(st["imbalance"] - max(per) / (sum(per) / 3)) < 1e-6, st
    assert [x["counts"][name] for x in agg["mpi"]["ranks"]] == per
    if name == "INSTRUCTIONS":
        # the loop alone: rank 2 runs 4,000,000 more iterations than rank 0,
        # of at least 2 instructions each, more than rank 0 polls
        assert per[2] - per[0] >= 4000000, per
for r in range(3):
    assert ranks[r]["mpi_rank"]["rank"] == r and ranks[r]["mpi_rank"]["size"] == 3
    assert ranks[r]["exit"]["status"] == 0
EOF
    [ -z "$(ls job/.done.* 2>/dev/null)" ] || fail "done marks left: $(ls -a job)"
    [ "$(ls job/.aggregate.* | wc -l)" -eq 1 ] || fail "not one aggregate mark: $(ls -a job)"
    # hpm merge of the same files gives the same aggregate
    run merge --json --per-rank job
    expect_rc 0
    cmp -s out agg.json || fail "hpm merge differs from the job's own aggregate"
    # a rank is not a run to gate: each refuses (exit 2; mpirun, told not
    # to abort, exits 0) before the program runs, never skipping the gate
    mpirun_ -np 2 "$hpm" count --mpi-dir gated -e INSTRUCTIONS --baseline nosuch \
        --limit INSTRUCTIONS:+1% -- "$ring" 16 >out 2>err
    [ "$(grep -c 'not a rank of an MPI job' err)" = 2 ] ||
        fail "the ranks did not refuse a gate: $(grep -c 'not a rank' err)"
    [ -z "$(ls gated/rank.* 2>/dev/null)" ] || fail "a gated rank ran: $(ls gated)"
    ;;
killed)
    # rank 1 is killed (SIGKILL) before it writes anything: its hpm writes a
    # result without counts, the others' are kept and the aggregate names it
    mpirun_ -np 3 "$hpm" count --mpi-dir job --json -e INSTRUCTIONS -- "$rankprog" 1 \
        >out 2>err
    rc=$?
    [ -f job/rank.0.json ] && [ -f job/rank.1.json ] && [ -f job/rank.2.json ] ||
        fail "rank results missing: $(ls job)"
    cp out agg.json
    py_check agg.json 'd["mpi"]["size"] == 3' 'd["mpi"]["ranks_counted"] == 2' \
        '[m["rank"] for m in d["mpi"]["missing"]] == [1]' \
        '"killed by signal 9" in d["mpi"]["missing"][0]["reason"]' \
        'd["exit"]["signal"] == 9'
    py_check job/rank.1.json 'd["exit"]["signal"] == 9' '"events" not in d'
    # rank 2 counts more than rank 0 (3 rounds against 1)
    "$py" - agg.json job <<'EOF' || fail "aggregate does not match ranks 0 and 2"
import json, sys
agg = json.load(open(sys.argv[1]))
per = [json.load(open("%s/rank.%d.json" % (sys.argv[2], r)))["events"][0]["count"] for r in (0, 2)]
assert agg["events"][0]["count"] == sum(per), (agg["events"][0], per)
assert agg["mpi"]["events"][0]["max_rank"] == 2 and per[1] - per[0] >= 200000, per
EOF
    # a rank whose hpm died too leaves no file: hpm merge names it
    rm job/rank.2.json
    run merge job
    expect_rc 0
    expect_out "missing   rank 1: killed by signal 9"
    expect_out "missing   rank 2: no result file"
    ;;
torus)
    # The network unit: a ring exchange of K = 5 messages of B = 1000 bytes
    # (4 packets of 256 each) on 8 ranks of a 2x2x2 torus (torus8.machine),
    # libhpm-mpi preloaded by hpm count. Per-link counts worked out by hand
    # (tests/net/test_torus.c draws the routes): rank r -> r + 1 goes X+
    # first, then Y+, then Z+ (a ring of 2 is a tie: plus).
    ev=TORUS_XP_PACKETS_SENT,TORUS_XM_PACKETS_SENT,TORUS_YP_PACKETS_SENT,TORUS_YM_PACKETS_SENT
    ev=$ev,TORUS_ZP_PACKETS_SENT,TORUS_ZM_PACKETS_SENT,TORUS_XP_PACKETS_RECV,TORUS_XM_PACKETS_RECV
    ev=$ev,TORUS_YP_PACKETS_RECV,TORUS_YM_PACKETS_RECV,TORUS_ZP_PACKETS_RECV,TORUS_ZM_PACKETS_RECV
    ev=$ev,TORUS_XP_BYTES_SENT,TORUS_XM_BYTES_SENT,TORUS_YP_BYTES_SENT,TORUS_YM_BYTES_SENT
    ev=$ev,TORUS_ZP_BYTES_SENT,TORUS_ZM_BYTES_SENT,TORUS_BYTES_RECV,TORUS_HOPS,COLL_OPS,COLL_BYTES
    mpirun_ -np 8 "$hpm" count --mpi --machine "$src/torus8.machine" --mpi-dir job --json \
        -e "$ev" -- "$ring" 1000 5 >out 2>err
    rc=$?
    expect_rc 0
    cp out agg.json
    "$py" - job <<'EOF' || fail "network counts differ from the hand-worked ones"
import json, sys
P, B = 5 * 4, 5 * 1000  # packets and bytes of one rank's K messages
# per node: links sent on (X+, Y+, Z+), links received on, hops per packet
#   0->1 2->3 4->5 6->7: X+ (1 hop)
#   1->2: 1 X+ 0 Y+ 2     5->6: 5 X+ 4 Y+ 6      (2 hops)
#   3->4: 3 X+ 2 Y+ 0 Z+ 4   7->0: 7 X+ 6 Y+ 4 Z+ 0   (3 hops)
want = {
    0: ((1, 1, 1), (1, 1, 1), 1), 1: ((1, 0, 0), (1, 0, 0), 2),
    2: ((1, 1, 0), (1, 1, 0), 1), 3: ((1, 0, 0), (1, 0, 0), 3),
    4: ((1, 1, 1), (1, 1, 1), 1), 5: ((1, 0, 0), (1, 0, 0), 2),
    6: ((1, 1, 0), (1, 1, 0), 1), 7: ((1, 0, 0), (1, 0, 0), 3),
}
for r in range(8):
    d = json.load(open("%s/rank.%d.json" % (sys.argv[1], r)))
    c = {e["name"]: e["count"] for e in d["events"]}
    s, rv, hops = want[r]
    exp = {}
    for i, a in enumerate("XYZ"):
        exp["TORUS_%sP_PACKETS_SENT" % a] = s[i] * P
        exp["TORUS_%sM_PACKETS_SENT" % a] = 0
        exp["TORUS_%sP_PACKETS_RECV" % a] = rv[i] * P
        exp["TORUS_%sM_PACKETS_RECV" % a] = 0
        exp["TORUS_%sP_BYTES_SENT" % a] = s[i] * B
        exp["TORUS_%sM_BYTES_SENT" % a] = 0
    exp["TORUS_BYTES_RECV"] = sum(rv) * B
    exp["TORUS_HOPS"] = hops * P
    exp["COLL_OPS"] = 1  # the ring's one MPI_Allreduce of two ints
    exp["COLL_BYTES"] = 8
    bad = {k: (c.get(k), v) for k, v in exp.items() if c.get(k) != v}
    assert not bad, (r, bad)
EOF
    py_check agg.json 'd["mpi"]["events"][0]["sum"] == 8 * 20' \
        'd["events"][18]["name"] == "TORUS_BYTES_RECV" and d["events"][18]["count"] == 14 * 5000'
    # not one node per rank: the machine file's line of [torus] x
    mpirun_ -np 3 "$hpm" count --machine "$src/torus8.machine" --mpi-dir bad \
        -e TORUS_HOPS -- "$ring" >out 2>err
    grep -q "torus8.machine:7: \[torus\] 2x2x2 has 8 nodes, the MPI job has 3 ranks" err ||
        fail "no error naming the machine file's line for a torus of the wrong size"
    [ ! -e bad ] || fail "a torus of the wrong size left the job folder"
    # a machine without a network has no network events
    run count -e TORUS_HOPS -- "$ring"
    expect_rc 2
    expect_err "it has no network"
    ;;
papi_net)
    # PAPI's view of the same ring (papi_net.c; counts as in scenario torus):
    # X+ packets sent 20 on every node, hops 20 40 20 60 20 40 20 60
    mpirun_ -np 8 "$hpm" run --machine "$src/torus8.machine" -- "$ring" >out 2>err
    rc=$?
    expect_rc 0
    for want in "0 20 20" "1 20 40" "2 20 20" "3 20 60" "4 20 20" "5 20 40" "6 20 20" \
        "7 20 60"; do
        grep -qx "rank $want" out || fail "no line 'rank $want'"
    done
    ! grep -q "hwloc" err || fail "hwloc's warning under Valgrind was not silenced"
    ;;
*)
    echo "unknown scenario $scenario" >&2
    exit 2
    ;;
esac
exit 0
