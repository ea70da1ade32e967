# SPDX-License-Identifier: BSD-3-Clause
# lib.sh: what the coherence tests share (sourced after HPM, WORK and fail
# are set).

# value KIND CSV: the node total of KIND (the row of no core; a node kind's
# carries its code)
value() { awk -F, -v k="$1" '$1 == "event" && $2 == k && $3 == "" && $4 == "" && $5 == "" { print $7; exit }' "$2"; }
# count NAME ARGS...: hpm count --csv on bgp into $WORK/NAME.csv
count() {
  local name=$1
  shift
  "$HPM" count --machine bgp --csv -o "$WORK/$name.csv" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
    { cat "$WORK/$name.err" >&2; fail "hpm count $*"; }
}
# modeled CSV: its modeled rows (what must repeat bit for bit)
modeled() { grep ',modeled' "$1" | grep -v '^info'; }
