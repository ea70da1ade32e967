#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench_record.sh [BUILD] [REPS] - the cost of the memory samples' data
# source, weight and data object: hpm record with them (the default)
# against hpm record --no-data-src (samples of IP, address, thread, time
# and call chain only), the same program, machine (bgp) and sampled events
# (LOADS every 1000th, L1D_MISSES every 100th). CPU time (user + system,
# children included) of paired runs, median of REPS (3). Programs: the
# matmul demo, and Debian's sqlite3 where installed. Prints, ours over the
# peer (lower is better; the goal is at most 1.05):
#   ratio record_data_src_vs_without[_<prog>]   per program and the
#                                               geometric mean
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
REPS=${2:-${HPM_BENCH_REPS:-3}}
HPM="$BUILD/bin/hpm"
[ -x "$BUILD/lib/valgrind/hpm-amd64-linux" ] || { echo "bench_record: no virtual PMU built" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench_record.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"

PROGS=(matmul)
CMD_matmul=("$BUILD/bin/hpm-matmul" 250)
if [ -x /usr/bin/sqlite3 ]; then
  PROGS+=(sqlite3)
  CMD_sqlite3=(/usr/bin/sqlite3 :memory: "CREATE TABLE a(id INTEGER PRIMARY KEY, k TEXT);
BEGIN; INSERT INTO a SELECT value, printf('k%06d', value * 7919 % 100003) FROM generate_series(1, 20000); COMMIT;
CREATE INDEX ak ON a(k); SELECT count(*), max(k) FROM a WHERE k > 'k05';")
fi

run() { # PROG CONFIG
  local -n c_="CMD_$1"
  case $2 in
  src) "$HPM" record --machine bgp -e LOADS:1000,L1D_MISSES:100 -o "$TMP/r.data" -- "${c_[@]}" ;;
  nosrc) "$HPM" record --machine bgp -e LOADS:1000,L1D_MISSES:100 --no-data-src \
    -o "$TMP/r.data" -- "${c_[@]}" ;;
  esac
}
cpu_ms() { # NOW = CPU ms of this shell's children so far (no subshell)
  times > "$TMP/times"
  NOW=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$TMP/times")
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

CONFIGS=(src nosrc)
declare -A T
for p in "${PROGS[@]}"; do
  declare -A S=()
  for ((r = 0; r < REPS; r++)); do
    for c in "${CONFIGS[@]}"; do
      cpu_ms
      t0=$NOW
      run "$p" "$c" > /dev/null 2> "$TMP/err" || { echo "bench_record: $p ($c) failed: $(tail -2 "$TMP/err")" >&2; exit 1; }
      cpu_ms
      S[$c]+="$((NOW - t0)) "
    done
  done
  for c in "${CONFIGS[@]}"; do
    T[$p,$c]=$(tr ' ' '\n' <<< "${S[$c]}" | grep . | median)
  done
  printf 'bench_record: %-8s with data source %6d ms  without %6d ms\n' "$p" "${T[$p,src]}" \
    "${T[$p,nosrc]}"
done
geo() { awk '{ s += log($1); n++ } END { if (n) printf "%.3f\n", exp(s / n) }'; }
a=""
for p in "${PROGS[@]}"; do
  r=$(awk -v x="${T[$p,src]}" -v y="${T[$p,nosrc]}" 'BEGIN { printf "%.3f", x / y }')
  echo "ratio record_data_src_vs_without_$p $r"
  a+="$r"$'\n'
done
echo "ratio record_data_src_vs_without $(printf '%s' "$a" | geo)"
