#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench_profile.sh [BUILD] [REPS] - the cost of exact attribution (hpm
# profile) and how it compares with the peer that attributes the same kind
# of events per instruction, callgrind with its cache and branch simulation.
# CPU time (user + system, children included) of paired runs, median of
# REPS (3). Programs: the matmul demo and Debian programs we did not write
# (python3, sqlite3, GCC's cc1, bzip2, xz), where installed
# (HPM_BENCH_PROGS picks some). Prints, ours over the peer
# (lower is better), per program and as the geometric mean:
#   ratio profile_vs_count[_<prog>]      hpm profile / hpm count, same
#                                        machine (bgp) and events (all)
#   ratio profile_cgeom_vs_callgrind[_<prog>]  hpm profile with cachegrind's
#                                        geometry and events (bench/vpmu/
#                                        cachegrind.machine) / callgrind
#                                        --cache-sim=yes --branch-sim=yes
#   goal profile_cgeom_vs_callgrind <= 0.5 over <progs>: met|missed (M...)
#                                        judged on the Debian programs timed
# CMD_<prog> are read through a nameref (run), which shellcheck does not follow.
# shellcheck disable=SC2034
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
REPS=${2:-${HPM_BENCH_REPS:-3}}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HPM="$BUILD/bin/hpm"
CG_MACHINE="$HERE/../vpmu/cachegrind.machine"
# shellcheck source=bench/vpmu/inputs.sh
. "$HERE/../vpmu/inputs.sh"
CG_EVENTS=INSTRUCTIONS,L1I_MISSES,LOADS,STORES,L1D_READ_MISSES,L1D_WRITE_MISSES,MEM_ACCESSES,BR_COND,BR_COND_MISPREDICTS,BR_INDIRECT,BR_INDIRECT_MISPREDICTS
CG_GEOMETRY=("--I1=32768,8,64" "--D1=32768,8,64" "--LL=8388608,16,64")
[ -x "$BUILD/lib/valgrind/hpm-amd64-linux" ] || { echo "bench_profile: no virtual PMU built" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench_profile.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
export PYTHONHASHSEED=0

PROGS=(matmul)
CMD_matmul=("$BUILD/bin/hpm-matmul" 250)
if [ -x /usr/bin/python3 ]; then
  PROGS+=(python3)
  CMD_python3=(/usr/bin/python3 -c "import json
d = {str(i * 7919 % 100003): i for i in range(20000)}
s = sorted(d.items(), key=lambda kv: kv[1] % 1013)
print(len(json.dumps(s)))")
fi
if [ -x /usr/bin/sqlite3 ]; then
  PROGS+=(sqlite3)
  CMD_sqlite3=(/usr/bin/sqlite3 :memory: "CREATE TABLE a(id INTEGER PRIMARY KEY, k TEXT);
BEGIN; INSERT INTO a SELECT value, printf('k%06d', value * 7919 % 100003) FROM generate_series(1, 20000); COMMIT;
CREATE INDEX ak ON a(k); SELECT count(*), max(k) FROM a WHERE k > 'k05';")
fi
if [ -x /usr/bin/bzip2 ]; then
  PROGS+=(bzip2)
  awk 'BEGIN { s = 7; for (i = 0; i < 12000; i++) { s = (s * 1103515245 + 12345) % 2147483648; print i, s % 1000, "lorem ipsum" } }' > bz.in
  CMD_bzip2=(/usr/bin/bzip2 -9 -c bz.in)
fi

# The compiler and the second compressor on bench_vpmu.sh's inputs
# (bench/vpmu/inputs.sh; its smoke run's text size): GCC's cc1 -O2 on a
# preprocessed workload, xz -9 on 128 KiB of text.
if CC1=$(bench_cc1 cc1.i); then
  PROGS+=(cc1)
  CMD_cc1=("$CC1" -quiet -O2 cc1.i -o /dev/null)
else
  echo "bench_profile: note: gcc's cc1 not found, cc1 is left out" >&2
fi
if [ -x /usr/bin/xz ]; then
  PROGS+=(xz)
  bench_text xz.in 131072
  CMD_xz=(/usr/bin/xz -9 -c xz.in)
fi
# HPM_BENCH_PROGS="a b" picks some.
if [ -n "${HPM_BENCH_PROGS:-}" ]; then
  picked=()
  for p in "${PROGS[@]}"; do
    case " $HPM_BENCH_PROGS " in *" $p "*) picked+=("$p") ;; esac
  done
  PROGS=("${picked[@]}")
  [ ${#PROGS[@]} -gt 0 ] || { echo "bench_profile: note: none of HPM_BENCH_PROGS is here" >&2; exit 0; }
fi

run() { # PROG CONFIG
  local -n c_="CMD_$1"
  case $2 in
  count) "$HPM" count --machine bgp -o /dev/null -- "${c_[@]}" ;;
  profile) "$HPM" profile --machine bgp -o "$TMP/p.out" -- "${c_[@]}" ;;
  cgeom) "$HPM" profile --machine "$CG_MACHINE" -e "$CG_EVENTS" -o "$TMP/p.out" -- "${c_[@]}" ;;
  callgrind) valgrind -q --tool=callgrind --cache-sim=yes --branch-sim=yes "${CG_GEOMETRY[@]}" \
    --callgrind-out-file="$TMP/cg.out" "${c_[@]}" ;;
  esac
}
cpu_ms() { # NOW = CPU ms of this shell's children so far (no subshell:
  # a subshell's children would start at 0)
  times > "$TMP/times"
  NOW=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
    printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$TMP/times")
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

CONFIGS=(count profile cgeom callgrind)
declare -A T
for p in "${PROGS[@]}"; do
  declare -A S=()
  for ((r = 0; r < REPS; r++)); do
    for c in "${CONFIGS[@]}"; do
      cpu_ms
      t0=$NOW
      run "$p" "$c" > /dev/null 2> "$TMP/err" || { echo "bench_profile: $p under $c failed: $(tail -2 "$TMP/err")" >&2; exit 1; }
      cpu_ms
      S[$c]+="$((NOW - t0)) "
    done
  done
  for c in "${CONFIGS[@]}"; do
    T[$p,$c]=$(tr ' ' '\n' <<< "${S[$c]}" | grep . | median)
  done
  printf 'bench_profile: %-8s count %6d ms  profile %6d ms  profile(cg) %6d ms  callgrind %6d ms\n' \
    "$p" "${T[$p,count]}" "${T[$p,profile]}" "${T[$p,cgeom]}" "${T[$p,callgrind]}"
done
geo() { awk '{ s += log($1); n++ } END { if (n) printf "%.3f\n", exp(s / n) }'; }
a="" b=""
for p in "${PROGS[@]}"; do
  r1=$(awk -v x="${T[$p,profile]}" -v y="${T[$p,count]}" 'BEGIN { printf "%.3f", x / y }')
  r2=$(awk -v x="${T[$p,cgeom]}" -v y="${T[$p,callgrind]}" 'BEGIN { printf "%.3f", x / y }')
  echo "ratio profile_vs_count_$p $r1"
  echo "ratio profile_cgeom_vs_callgrind_$p $r2"
  a+="$r1"$'\n' b+="$r2"$'\n'
done
echo "ratio profile_vs_count $(printf '%s' "$a" | geo)"
echo "ratio profile_cgeom_vs_callgrind $(printf '%s' "$b" | geo)"
# The goal (profile_cgeom_vs_callgrind <= 0.5), judged over the Debian
# programs timed (bench/vpmu/inputs.sh)
bench_goal_line profile_cgeom_vs_callgrind cgeom callgrind 0.5
