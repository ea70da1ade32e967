# SPDX-License-Identifier: BSD-3-Clause
# tests/mpi: the MPI profile of the ring (mpi_ring.c, ring.F90: 5 messages
# of 1000 bytes per rank, one MPI_Allreduce of two 4-byte integers, one
# MPI_Pcontrol region around the loop) in the aggregate that rank 0's hpm
# count wrote (--json), worked out by hand, and the region's counts
# against the ranks' own results.
#   check_profile.py AGGREGATE.json JOB_DIR RANKS REGION
import json
import sys

agg = json.load(open(sys.argv[1]))
job, n, region = sys.argv[2], int(sys.argv[3]), sys.argv[4]
m = agg["mpi"]
assert m["size"] == n and m["ranks_counted"] == n, (m["size"], m["ranks_counted"])
calls = {"MPI_Init": 1, "MPI_Sendrecv_replace": 5, "MPI_Pcontrol": 2, "MPI_Allreduce": 1,
         "MPI_Finalize": 1}
sent = {"MPI_Sendrecv_replace": 5000, "MPI_Allreduce": 8}
prof = {p["name"]: p for p in m["profile"]}
assert sorted(prof) == sorted(calls), sorted(prof)
for name, c in calls.items():
    st = prof[name]["calls"]
    assert (st["sum"], st["min"], st["max"]) == (n * c, c, c), (name, st)
    b = prof[name]["bytes"]
    assert (b["sum"], b["min"], b["max"]) == (n * sent.get(name, 0), sent.get(name, 0),
                                              sent.get(name, 0)), (name, b)
    t = prof[name]["time_modeled_s"]
    assert t["min"] <= t["avg"] <= t["max"] and t["sum"] > 0, (name, t)
# the communication matrix: rank r sends 5 messages, 5000 bytes, to r + 1
for key, v in (("messages", 5), ("bytes", 5000)):
    want = [[v if c == (r + 1) % n else 0 for c in range(n)] for r in range(n)]
    assert m["matrix"][key] == want, (key, m["matrix"][key])
# the MPI_Pcontrol region: entered once on every rank, its counts those of
# the region in each rank's own result (the virtual PMU's), added up
regs = {g["name"]: g for g in m["regions"]}
assert list(regs) == [region], list(regs)
g = regs[region]
assert (g["entries"]["sum"], g["entries"]["min"], g["entries"]["max"]) == (n, 1, 1), g["entries"]
per = []
for r in range(n):
    d = json.load(open("%s/rank.%d.json" % (job, r)))
    per.append(sum(x["counts"]["INSTRUCTIONS"] for x in d["regions"] if x["name"] == region))
ins = next(e for e in g["events"] if e["name"] == "INSTRUCTIONS")
assert ins["sum"] == sum(per) and ins["min"] == min(per) and ins["max"] == max(per), (ins, per)
# rank r's loop runs (r + 1) * 2,000,000 iterations of at least 2 instructions
assert all(per[r] >= (r + 1) * 4000000 for r in range(n)), per
assert ins["max_rank"] == n - 1 and ins["min_rank"] == 0, ins
