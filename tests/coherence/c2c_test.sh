#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# c2c_test.sh BUILD PROG: hpm profile's shared cache lines (PROFILE.c2c and
# .c2c.json) for false_sharing.c on bgp (coherence = wti): adjacent counters
# of one line are that line, false sharing, each thread's own bytes, the
# variable named; the heap block's line (freed before the end) named by its
# allocation site; one shared counter true sharing; padded counters no line
# of theirs; the lines repeat bit for bit from run to run.
set -euo pipefail
BUILD=$1 PROG=$2 N=2000
HPM=$BUILD/bin/hpm
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "c2c: FAIL: $*" >&2; exit 1; }

profile() { # MODE NAME: profile of PROG MODE N in WORK/NAME
  (cd "$WORK" && "$HPM" profile --machine bgp -o "$WORK/$2" -- "$PROG" "$1" "$N" \
    >"$WORK/$2.out" 2>"$WORK/$2.err") || { cat "$WORK/$2.err" >&2; fail "hpm profile $1"; }
}

# check.py JSON MODE: the line of the counters, as MODE makes it
cat >"$WORK/check.py" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))["c2c"]
mode, n = sys.argv[2], int(sys.argv[3])
lines = doc["lines"]
assert doc["source"] == "modeled"
def fail(msg):
    print("c2c: FAIL: %s: %s" % (mode, msg), file=sys.stderr)
    sys.exit(1)
def ranges(core, key):
    return [tuple(r) for r in core[key]]
if mode == "padded":
    mine = [l for l in lines if l["object"]["name"] == "shared" and l["coherence_misses"] > 100]
    if mine:
        fail("the padded counters' lines are listed: %s" % mine)
    print("c2c: padded: no line of shared with more than 100 coherence misses (%d lines listed)" % len(lines))
    sys.exit(0)
top = lines[0]  # the most coherence misses first
o = top["object"]
if top["coherence_misses"] < 2 * n - 10:
    fail("top line %s has %d coherence misses, not about %d" % (top["address"], top["coherence_misses"], 2 * n))
busy = [c for c in top["cores"] if c["coherence_misses"] >= n - 5]
if len(busy) != 2:
    fail("not two cores with about %d misses each: %s" % (n, top["cores"]))
if any(len(c["threads"]) != 1 for c in busy) or busy[0]["threads"] == busy[1]["threads"]:
    fail("the two cores' threads: %s" % busy)
if sum(c["coherence_misses"] for c in top["cores"]) != top["coherence_misses"] or \
   sum(c["invalidations"] for c in top["cores"]) != top["invalidations"]:
    fail("the cores' shares do not add up to the line's")
a, b = ranges(busy[0], "written"), ranges(busy[1], "written")
if mode in ("false", "heap"):
    if top["sharing"] != "false" or top["true_sharing_misses"] > 5:
        fail("sharing %s, %d true-sharing misses" % (top["sharing"], top["true_sharing_misses"]))
    if sorted([a, b]) != [[(0, 7)], [(8, 15)]]:
        fail("written bytes %s and %s, not 0-7 and 8-15" % (a, b))
    want = ("global", "shared") if mode == "false" else ("heap", None)
    if o["kind"] != want[0] or (want[1] and o["name"] != want[1]) or o.get("offset") != 0:
        fail("object %s, not %s at offset 0" % (o, want))
    if mode == "heap" and not o["name"].startswith("heap block from main"):
        fail("heap object %s not named by its allocation site in main" % o)
else:  # true
    if top["sharing"] != "true" or top["true_sharing_misses"] < 2 * n - 10:
        fail("sharing %s, %d true-sharing misses" % (top["sharing"], top["true_sharing_misses"]))
    if a != [(0, 7)] or b != [(0, 7)] or o["name"] != "shared":
        fail("written bytes %s and %s of %s, not 0-7 of shared for both" % (a, b, o))
print("c2c: %s: line %s of %s %s: %d coherence misses (%d true sharing), %s sharing, written %s and %s"
      % (mode, top["address"], o["kind"], o["name"], top["coherence_misses"],
         top["true_sharing_misses"], top["sharing"], a, b))
EOF

for mode in false heap true padded; do
  profile "$mode" "$mode"
  [ -s "$WORK/$mode.c2c" ] && [ -s "$WORK/$mode.c2c.json" ] || fail "$mode: no PROFILE.c2c(.json)"
  grep -q "shared cache lines in $WORK/$mode.c2c" "$WORK/$mode.err" || fail "$mode: the summary does not name the c2c view"
  "$PY" "$WORK/check.py" "$WORK/$mode.c2c.json" "$mode" "$N"
done
# the text view says the same as the JSON of the top line
grep -A1 -m1 '^line ' "$WORK/false.c2c" | grep -q "object global: shared + 0" || fail "text view: object"
grep -m1 '^line ' "$WORK/false.c2c" | grep -q "FALSE sharing" || fail "text view: verdict"
grep -m1 '^line ' "$WORK/true.c2c" | grep -q "TRUE sharing" || fail "text view: true verdict"

# bit for bit from run to run: every line of the view. The threads hand
# over through pipes, whose reads the tool keeps in modeled time (a write
# wakes the one reader at the writer's clock), so no return is the host's.
profile false again
for f in false again; do
  "$PY" - "$WORK/$f.c2c.json" >"$WORK/$f.n" <<'EOT' || fail "$f: the c2c JSON does not parse"
import json, sys
lines = json.load(open(sys.argv[1]))["c2c"]["lines"]
for l in lines:
    l.pop("pid", None)
    print(json.dumps(l, sort_keys=True))
EOT
done
grep -q '"name": "shared"' "$WORK/false.n" || fail "no line of shared to compare"
cmp -s "$WORK/false.n" "$WORK/again.n" || { diff "$WORK/false.n" "$WORK/again.n" | head >&2; fail "two runs differ"; }

# a node without coherence keeps no lines: no view, no mention
(cd "$WORK" && "$HPM" profile --machine bgl -o "$WORK/bgl" -- "$PROG" false 50 >/dev/null 2>"$WORK/bgl.err") ||
  { cat "$WORK/bgl.err" >&2; fail "hpm profile on bgl"; }
[ ! -e "$WORK/bgl.c2c" ] || fail "bgl (not coherent) wrote a c2c view"
echo "c2c: ok"
