# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# inputs.sh - sourced by bench/vpmu/bench_vpmu.sh, bench/vpmu/crosscheck.sh
# and bench/profile/bench_profile.sh: the inputs of the Debian programs they
# time, and how a speed goal is judged, written once.

# The speed goals are for the geometric mean over these programs (those
# timed), with none above 1.15 times the goal (docs/vpmu.md, "Costs").
# shellcheck disable=SC2034 # read by the scripts that source this one
BENCH_GOAL_PROGS="python3 sqlite3 cc1 bzip2 xz"

# bench_text FILE BYTES: fixed-seed text, compressible but not trivially
# (about 20:1), exactly BYTES long (awk cuts the last line itself: a
# `| head -c` would end awk with SIGPIPE, which pipefail reports).
bench_text() {
  awk -v n="$2" 'BEGIN {
    s = 12345; w = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
    for (i = 0; len < n; i++) {
      s = (s * 1103515245 + 12345) % 2147483648;
      line = i " " substr(w, 1 + s % 40, 12) "\n";
      if (len + length(line) > n) line = substr(line, 1, n - len);
      len += length(line); printf "%s", line } }' >"$1"
}

# bench_cc1 FILE: GCC's cc1 (printed) and its input, a workload's source
# with its system headers preprocessed into FILE; fails without them.
bench_cc1() {
  local here cc1
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  cc1=$(gcc -print-prog-name=cc1 2>/dev/null) && [ -x "$cc1" ] || return 1
  gcc -E -P "$here/../../workloads/cg.c" -I "$here/../../workloads" -o "$1" 2>/dev/null || return 1
  echo "$cc1"
}

# bench_goal_line NAME OURS PEER GOAL: one line from the caller's times T
# (an associative array of CPU or wall ms by "PROG,CONFIG"),
#   goal NAME <= GOAL over PROGS: met|missed (M[; above 1.15 times the goal: PROG R ...])
# M the geometric mean of OURS / PEER over the programs of
# BENCH_GOAL_PROGS that have both times; nothing when none has.
bench_goal_line() {
  local name=$1 ours=$2 peer=$3 goal=$4 p all=""
  for p in $BENCH_GOAL_PROGS; do
    if [ -n "${T[$p,$ours]:-}" ] && [ -n "${T[$p,$peer]:-}" ]; then
      all+="$p ${T[$p,$ours]} ${T[$p,$peer]} "
    fi
  done
  [ -n "$all" ] || return 0
  echo "$all" | awk -v n="$name" -v g="$goal" '{
    s = 0; k = 0; names = ""; over = ""
    for (i = 1; i + 2 <= NF; i += 3) if ($(i + 1) > 0 && $(i + 2) > 0) {
      r = $(i + 1) / $(i + 2); s += log(r); k++; names = names " " $i
      if (r > 1.15 * g) over = over sprintf(" %s %.2f", $i, r) }
    if (!k) exit
    m = exp(s / k)
    printf "goal %s <= %s over%s: %s (%.3f%s)\n", n, g, names,
      (m <= g && over == "") ? "met" : "missed", m,
      over == "" ? "" : "; above 1.15 times the goal:" over }'
}
