#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Tests of MPI jobs: hpm count as the ranks of `mpirun`, the aggregate, hpm
# merge. One scenario per CTest test.
#
#   mpi_test.sh HPM SRCDIR WORKDIR SCENARIO [MPI_RING RANK_PROG [FORTRAN_RINGS...]]
#
# merge*: hand-written rank results (tests/mpi/results) with known counts,
# no MPI needed. The others run Open MPI's mpirun (as root where the tests
# run as root: Open MPI's own variables allow it; --oversubscribe: more
# ranks than cores) with hpm count on the virtual PMU.
set -u
hpm=$1 src=$2 work=$3 scenario=$4
ring=${5:-} rankprog=${6:-}
shift 4
[ $# -ge 2 ] && shift 2
fortran_rings="$*"
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

# The aggregate (out) of 3 ranks in job/ names rank 1, killed (SIGKILL)
# with nothing written, and holds the py_check expressions given.
expect_rank1_killed() {
    [ -f job/rank.0.json ] && [ -f job/rank.1.json ] && [ -f job/rank.2.json ] ||
        fail "rank results missing: $(ls job)"
    cp out agg.json
    py_check agg.json 'd["mpi"]["size"] == 3' 'd["mpi"]["ranks_counted"] == 2' \
        '[m["rank"] for m in d["mpi"]["missing"]] == [1]' \
        '"killed by signal 9" in d["mpi"]["missing"][0]["reason"]' "$@"
    py_check job/rank.1.json 'd["exit"]["signal"] == 9' '"events" not in d'
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
    # an MPI program on 3 ranks (2 cores), every rank with a folder of its
    # own (no shared folder): the aggregate is rank 0's, combined over MPI
    # at MPI_Finalize (each rank from its start to MPI_Finalize), and each
    # folder holds its own rank's result only
    mpirun_ -np 3 sh -c 'exec "$0" count --mpi --mpi-dir "own.$OMPI_COMM_WORLD_RANK" \
        --per-rank --json -e INSTRUCTIONS,LOADS -- "$1" 512' "$hpm" "$ring" >out 2>err
    rc=$?
    expect_rc 0
    for r in 0 1 2; do
        [ "$(ls -A own.$r)" = "rank.$r.json" ] || fail "own.$r holds $(ls -A own.$r)"
    done
    cp out agg.json
    # the aggregate's statistics are its per-rank table's; rank r runs r+1
    # rounds of its loop. Which rank counts most is not fixed: a rank that
    # waits in MPI_Allreduce polls, and how long it polls depends on the
    # scheduler (3 ranks on 2 cores; CI once saw rank 1 load 0.67 M more
    # than rank 2)
    "$py" - agg.json <<'EOF' || fail "the aggregate's statistics are not its ranks'"
import json, sys
agg = json.load(open(sys.argv[1]))
m = agg["mpi"]
assert m["size"] == 3 and m["ranks_counted"] == 3 and m["missing"] == [], m["size"]
assert m["combined"]["over"] == "MPI at MPI_Finalize", m["combined"]
for i, name in enumerate(["INSTRUCTIONS", "LOADS"]):
    per = [x["counts"][name] for x in m["ranks"]]
    st = m["events"][i]
    assert st["name"] == name and agg["events"][i]["count"] == sum(per) == st["sum"], (name, per, st)
    assert st["min"] == min(per) and st["min_rank"] == per.index(min(per)), (per, st)
    assert st["max"] == max(per) and st["max_rank"] == per.index(max(per)), (per, st)
    assert abs(st["avg"] - sum(per) / 3) < 1e-6 * st["avg"], st
    assert abs(st["imbalance"] - max(per) / (sum(per) / 3)) < 1e-6, st
    win = m["mpi_window"]["events"][i]
    assert win["name"] == name and 0 < win["sum"] < st["sum"], (win, st)
    # the loop alone: rank 2 runs 4,000,000 more iterations than rank 0, of
    # at least 2 instructions each, more than rank 0 polls
    assert name != "INSTRUCTIONS" or per[2] - per[0] >= 4000000, per
# the MPI profile over the job is its per-rank table's
for p in m["profile"]:
    for metric in ("calls", "bytes", "time_modeled_s", "time_host_s"):
        per = [x["profile"][p["name"]][metric] for x in m["ranks"]]
        st = p[metric]
        assert abs(st["sum"] - sum(per)) <= 1e-6 * max(1, sum(per)), (p["name"], metric, per, st)
        assert st["max"] == max(per) and st["max_rank"] == per.index(max(per)), (p["name"], st)
        assert st["min"] == min(per) and st["min_rank"] == per.index(min(per)), (p["name"], st)
EOF
    # each rank's whole process (its result) counts at least what it had
    # counted at MPI_Finalize; hpm merge of the three folders adds those up
    "$py" - agg.json <<'EOF' || fail "a rank's result counts less than the aggregate's rank"
import json
agg = json.load(open("agg.json"))
for r in range(3):
    d = json.load(open("own.%d/rank.%d.json" % (r, r)))
    assert d["mpi_rank"]["rank"] == r and d["mpi_rank"]["size"] == 3 and d["exit"]["status"] == 0
    c = {e["name"]: e["count"] for e in d["events"]}
    for name, v in agg["mpi"]["ranks"][r]["counts"].items():
        assert c[name] >= v, (r, name, c[name], v)
EOF
    run merge --json own.0 own.1 own.2
    expect_rc 0
    cp out merged.json
    py_check merged.json 'd["mpi"]["ranks_counted"] == 3' \
        'd["events"][0]["count"] == sum(json.load(open("own.%d/rank.%d.json" % (r, r)))["events"][0]["count"] for r in range(3))'
    # a rank is not a run to gate: each refuses (exit 2; mpirun, told not
    # to abort, exits 0) before the program runs, never skipping the gate.
    # Each rank keeps its own error and status: mpirun's forwarding of a
    # rank that exits at once lost one rank's message in a loaded run.
    mpirun_ -np 2 sh -c '"$0" count --mpi-dir gated -e INSTRUCTIONS --baseline nosuch \
        --limit INSTRUCTIONS:+1% -- "$1" 16 2>"gate_err.$OMPI_COMM_WORLD_RANK"
        echo $? >"gate_rc.$OMPI_COMM_WORLD_RANK"' "$hpm" "$ring" >out 2>err
    for r in 0 1; do
        grep -q 'not a rank of an MPI job' "gate_err.$r" ||
            fail "rank $r did not refuse a gate: $(cat "gate_err.$r" 2>&1)"
        [ "$(cat "gate_rc.$r" 2>&1)" = 2 ] || fail "rank $r's refusal exited $(cat "gate_rc.$r" 2>&1)"
    done
    [ -z "$(ls gated/rank.* 2>/dev/null)" ] || fail "a gated rank ran: $(ls gated)"
    ;;
killed_mpi)
    # the ring on 3 ranks, rank 1 killed (SIGKILL from outside) before
    # MPI_Finalize: no combine at MPI_Finalize; mpirun ends the job, the
    # other ranks write what they counted (SIGTERM: the counts up to that
    # point; 15 s of grace before mpirun's SIGKILL, which mpirun waits out
    # in full) and the last of them writes the aggregate from the job's
    # folder, naming rank 1
    mpirun --oversubscribe --mca btl self,vader --mca odls_base_sigkill_timeout 15 -np 3 \
        "$hpm" count --mpi --mpi-dir job --json -e INSTRUCTIONS -- "$ring" 100 1 1 >out 2>err
    rc=$?
    expect_rank1_killed '"combined" not in d["mpi"]'
    ;;
killed)
    # rank 1 is killed (SIGKILL) before it writes anything: its hpm writes a
    # result without counts, the others' are kept and the aggregate names it
    mpirun_ -np 3 "$hpm" count --mpi-dir job --json -e INSTRUCTIONS -- "$rankprog" 1 \
        >out 2>err
    rc=$?
    expect_rank1_killed 'd["exit"]["signal"] == 9'
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
fortran)
    # mpi_ring.c and its Fortran twins (mpif.h, use mpi, use mpi_f08): 5
    # messages of 1000 bytes (4 packets of 256) around 4 ranks on bgp, no
    # machine file: its torus takes the shape of 4 nodes, 2x2x1 (a node per
    # rank). Routes (X first, a ring of 2 is a tie: plus):
    #   0->1 X+ (1 hop)   1->2 X+ to 0, Y+ to 2 (2)   2->3 X+ (1)   3->0 X+ to 2, Y+ to 0 (2)
    # so nodes 0 and 2 send and receive on X+ and Y+, nodes 1 and 3 on X+ only
    ev=TORUS_XP_PACKETS_SENT,TORUS_YP_PACKETS_SENT,TORUS_XP_PACKETS_RECV,TORUS_YP_PACKETS_RECV
    ev=$ev,TORUS_XM_PACKETS_SENT,TORUS_YM_PACKETS_SENT,TORUS_BYTES_RECV,TORUS_HOPS,COLL_OPS
    ev=$ev,COLL_BYTES,INSTRUCTIONS,CYCLES
    [ -n "$fortran_rings" ] || fail "no Fortran rings given"
    # --mpi finds the program on PATH, as the shell does
    bindir=$dir/bin
    mkdir -p "$bindir" && cp "$ring" "$bindir/mpi_ring_c" || exit 1
    for prog in mpi_ring_c $fortran_rings; do
        name=$(basename "$prog")
        PATH=$bindir:$PATH mpirun_ -np 4 "$hpm" count --mpi --mpi-dir "j.$name" --json \
            -e "$ev" -- "$prog" 1000 5 >"out.$name" 2>"err.$name"
        rc=$?
        cp "out.$name" out
        cp "err.$name" err
        expect_rc 0
        "$py" - "j.$name" <<'EOF' || fail "$name: network counts differ from the hand-worked ones"
import json, sys
P, B = 5 * 4, 5 * 1000
want = {0: (1, 1, 1), 1: (1, 0, 2), 2: (1, 1, 1), 3: (1, 0, 2)}  # X+, Y+, hops per packet
for r in range(4):
    c = {e["name"]: e["count"] for e in json.load(open("%s/rank.%d.json" % (sys.argv[1], r)))["events"]}
    x, y, hops = want[r]
    exp = {"TORUS_XP_PACKETS_SENT": x * P, "TORUS_YP_PACKETS_SENT": y * P,
           "TORUS_XP_PACKETS_RECV": x * P, "TORUS_YP_PACKETS_RECV": y * P,
           "TORUS_XM_PACKETS_SENT": 0, "TORUS_YM_PACKETS_SENT": 0,
           "TORUS_BYTES_RECV": (x + y) * B, "TORUS_HOPS": hops * P,
           "COLL_OPS": 1, "COLL_BYTES": 8}  # one MPI_Allreduce of two 4-byte integers
    bad = {k: (c.get(k), v) for k, v in exp.items() if c.get(k) != v}
    assert not bad, (r, bad)
EOF
        # the MPI profile: the same calls, bytes and matrix in C and Fortran
        # (names as the standard writes them); the C ring's region is "loop",
        # the Fortran one's "pcontrol" (MPI_PCONTROL has no name in Fortran)
        region=pcontrol
        [ "$name" = mpi_ring_c ] && region=loop
        "$py" "$src/check_profile.py" "out.$name" "j.$name" 4 "$region" ||
            fail "$name: the MPI profile differs from the hand-worked one"
    done
    # the C ring's matrix as a heatmap: gnuplot draws it
    run plot out.mpi_ring_c --matrix -o matrix.png
    expect_rc 0
    [ "$(head -c 8 matrix.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "hpm plot --matrix wrote no PNG"
    ;;
ranks_per_node)
    # the ring of scenario fortran (5 messages of 1000 bytes, 20 packets) on
    # bgp with 2 ranks per node: nodes 0 (ranks 0, 1) and 1 (ranks 2, 3) of
    # a 2x1x1 torus. 0->1 and 2->3 go through memory; 1->2 and 3->0 cross
    # the X+ link (a ring of 2: plus), 1 hop each. Each node's network
    # counts are its first rank's (ranks 0 and 2): X+ 20 packets sent and
    # received, 20 hops, 5000 bytes; one collective operation of 8 bytes.
    # Each rank runs on its own 2 of the node's 4 cores.
    ev=TORUS_XP_PACKETS_SENT,TORUS_XP_PACKETS_RECV,TORUS_YP_PACKETS_SENT,TORUS_BYTES_RECV
    ev=$ev,TORUS_HOPS,COLL_OPS,COLL_BYTES,INSTRUCTIONS,CYCLES
    set -- "$ring" $fortran_rings
    for prog in "$ring" "$4"; do
        name=$(basename "$prog")
        # the Fortran ring names the shape bgp would pick itself, 2x1x1
        shape=
        [ "$prog" = "$ring" ] || shape="--torus 2x1x1"
        # shellcheck disable=SC2086 # $shape is two words or none
        mpirun_ -np 4 "$hpm" count --mpi --ranks-per-node 2 $shape --mpi-dir "j.$name" --json \
            --per-rank -e "$ev" -- "$prog" 1000 5 >out 2>err
        rc=$?
        expect_rc 0
        cp out "agg.$name"
        region=pcontrol
        [ "$prog" = "$ring" ] && region=loop
        "$py" "$src/check_profile.py" out "j.$name" 4 "$region" ||
            fail "$name: the MPI profile at 2 ranks per node differs from the hand-worked one"
        # the per-node table: each node's counts the sum of its two ranks'
        "$py" - out <<'EOF' || fail "$name: the per-node table is not the sum of its ranks"
import json, sys
m = json.load(open(sys.argv[1]))["mpi"]
assert m["combined"]["ranks_per_node"] == 2 and len(m["nodes"]) == 2, m["combined"]
for node in m["nodes"]:
    assert node["ranks"] == [2 * node["node"], 2 * node["node"] + 1], node
    for name, v in node["counts"].items():
        assert v == sum(m["ranks"][r]["counts"][name] for r in node["ranks"]), (node, name)
    assert node["counts"]["TORUS_HOPS"] == 20 and node["counts"]["COLL_OPS"] == 1, node
EOF
        "$py" - "j.$name" <<'EOF' || fail "$name: counts at 2 ranks per node differ from the hand-worked ones"
import json, sys
for r in range(4):
    d = json.load(open("%s/rank.%d.json" % (sys.argv[1], r)))
    c = {e["name"]: e["count"] for e in d["events"]}
    first = r % 2 == 0
    exp = {"TORUS_XP_PACKETS_SENT": 20, "TORUS_XP_PACKETS_RECV": 20, "TORUS_YP_PACKETS_SENT": 0,
           "TORUS_BYTES_RECV": 5000, "TORUS_HOPS": 20, "COLL_OPS": 1, "COLL_BYTES": 8}
    bad = {k: (c.get(k), v if first else 0) for k, v in exp.items() if c.get(k) != (v if first else 0)}
    assert not bad, (r, bad)
    # its own cores: 0 and 1 for the node's first rank, 2 and 3 for the second
    ins = next(e for e in d["events"] if e["name"] == "INSTRUCTIONS")
    cores = {x["code"] // 56 for x in ins["codes"] if x["count"]}
    assert cores and cores <= ({0, 1} if first else {2, 3}), (r, cores)
EOF
    done
    # more ranks per node than a bgp node has cores, or a torus of the wrong size
    mpirun_ -np 4 "$hpm" count --ranks-per-node 8 --mpi-dir bad -e INSTRUCTIONS -- "$ring" \
        >out 2>err
    expect_err "ranks-per-node 8: a node of machine bgp has 4 cores"
    mpirun_ -np 4 "$hpm" count --ranks-per-node 2 --torus 2x2x1 --mpi-dir bad \
        -e TORUS_HOPS -- "$ring" >out 2>err
    expect_err "torus 2x2x1 has 4 nodes, the MPI job has 4 ranks on 2 nodes (2 ranks per node)"
    [ ! -e bad ] || fail "a refused job left its folder"
    run count --ranks-per-node 2 -e INSTRUCTIONS -- "$ring"
    expect_rc 2
    expect_err "need hpm count to be a rank of an MPI job"
    ;;
hpcc)
    # Debian's hpcc (HPC Challenge: HPL, PTRANS, DGEMM, STREAM,
    # RandomAccess, FFT; C, MPI and BLAS), found on PATH, with a small input
    # (N = 100, NB = 20, a 2x2 process grid) on 4 ranks, 2 per node: it runs
    # to its end, and the aggregate, combined over MPI, is of 4 ranks on 2
    # nodes, its matrix the profile's point-to-point sends
    cp "$src/hpccinf.txt" hpccinf.txt || exit 1
    mpirun_ -np 4 "$hpm" count --mpi --ranks-per-node 2 --json -e INSTRUCTIONS,CYCLES,TORUS_HOPS \
        -- hpcc >out 2>err
    rc=$?
    expect_rc 0
    grep -q "End of HPC Challenge tests" hpccoutf.txt || fail "hpcc did not run to its end"
    grep -q "PASSED" hpccoutf.txt || fail "HPL's residual check did not pass"
    cp out agg.json
    "$py" - agg.json <<'EOF' || fail "hpcc's aggregate is not of 4 ranks with its sends"
import json, sys
m = json.load(open(sys.argv[1]))["mpi"]
assert m["size"] == 4 and m["ranks_counted"] == 4 and m["combined"]["ranks_per_node"] == 2, m
prof = {p["name"]: p for p in m["profile"]}
for name in ("MPI_Init", "MPI_Finalize", "MPI_Allreduce", "MPI_Bcast", "MPI_Barrier"):
    assert prof[name]["calls"]["min"] >= 1, (name, prof.get(name))
sends = [p for n, p in prof.items() if n in ("MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend",
         "MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Sendrecv",
         "MPI_Sendrecv_replace")]
msgs = sum(map(sum, m["matrix"]["messages"]))
assert msgs > 0 and msgs == sum(p["calls"]["sum"] for p in sends), (msgs, sorted(prof))
assert sum(map(sum, m["matrix"]["bytes"])) == sum(p["bytes"]["sum"] for p in sends)
EOF
    ;;
*)
    echo "unknown scenario $scenario" >&2
    exit 2
    ;;
esac
exit 0
