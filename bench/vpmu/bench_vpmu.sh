#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench_vpmu.sh [BUILD] - speed of the virtual PMU against its Valgrind peers,
# and its counts against cachegrind's.
#
# Programs: the three demo kernels at a larger size, and Debian programs of
# different kinds we did not write, each on a generated input: python3
# (dictionaries, sort, json, re), sqlite3 (inserts in a transaction, two
# indexes, a join, a group by), GCC's cc1 -O2 on a preprocessed C file,
# bzip2 and xz compressing text. Absent ones are left out with a note;
# HPM_BENCH_PROGS="a b" picks some. Configurations (below, "Configurations")
# run paired: each rep runs every configuration of a program in turn, and a
# time is the median of $HPM_BENCH_REPS (3) reps. It prints a table of times
# and slowdowns, then the headline lines, ours over the peer (lower is
# better), per program and their geometric mean (no suffix):
#   ratio vpmu_cgeom_vs_cachegrind[_<prog>]  hpm on cachegrind's geometry and
#                                            events / cachegrind (goal <= 0.7)
#   ratio vpmu_full_vs_cachegrind[_<prog>]   hpm full bgp / cachegrind (<= 1.2)
#   ratio vpmu_core_vs_none[_<prog>]         hpm core events / none (<= 1.05)
#   goal <ratio> <= G over <progs>: met|missed (M[; above 1.15 times the
#     goal: <prog> R ...])  the goal, judged on the geometric mean M over
#                           the Debian programs timed (not the kernels)
#   ratio vpmu_full_vs_callgrind[_<prog>]    hpm full / callgrind
#   ratio vpmu_{cgeom,full,core}_vs_base     with HPM_BENCH_BASE_LIB
#   ratio vpmu_cgeom_floor_vs_cachegrind[_<prog>]  the floor build (helpers
#                                            return at entry) / cachegrind
#   ratio vpmu_cgeom_vs_floor[_<prog>]       cgeom / the floor: the models' share
# Then, informational, hpm's counts against cachegrind's on the same geometry
# (bench/vpmu/cachegrind.machine and --I1/--D1/--LL below):
#   compare <prog>_<what> hpm=X peer=Y diff=Z%
#
# A missed goal is a result, not a failure: the script fails only when a run
# fails twice or a tool is missing. Sizes: HPM_BENCH_VPMU_SMALL=1 runs smaller
# inputs (a smoke run). The whole run takes about 20 minutes on 2 shared
# cores, mostly in the full-model runs of python3 and cc1.
set -euo pipefail

BUILD=${1:-build}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/vpmu/inputs.sh
. "$HERE/inputs.sh"
REPS=${HPM_BENCH_REPS:-3}
HPM="$BUILD/bin/hpm"
# The cache geometry cachegrind gets, and cachegrind.machine describes for
# hpm: 32 KB 8-way L1s and an 8 MB 16-way last level, 64-byte lines. Left to
# itself cachegrind reads the host's caches, which in a VM can be odd (a
# 512 MB 2-way LL on the machine this was written on).
CG_GEOMETRY=("--I1=32768,8,64" "--D1=32768,8,64" "--LL=8388608,16,64")
CG_MACHINE="$HERE/cachegrind.machine"
CORE_EVENTS=INSTRUCTIONS,LOADS,STORES,BRANCHES,BR_COND,BR_COND_TAKEN,SYSCALLS

die() {
  echo "bench_vpmu: $*" >&2
  exit 1
}

command -v valgrind >/dev/null || die "valgrind not found (scripts/install-deps.sh installs it)"
for w in matmul cg stream; do
  [ -x "$BUILD/bin/hpm-$w" ] ||
    die "$BUILD/bin/hpm-$w missing: build the workloads (add_subdirectory(workloads))"
done
[ -x "$BUILD/lib/valgrind/hpm-amd64-linux" ] ||
  die "$BUILD/lib/valgrind/hpm-amd64-linux missing: the virtual PMU tool was not built"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench_vpmu.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# How hpm is driven. The front end (hpm count) is the product, so it is what
# is timed when it exists; its own start-up (parsing the machine, exec'ing
# valgrind) is part of the cost a user pays. Before it exists, the core-event
# runs call the tool directly (the full one on the tool's built-in machine:
# only the front end encodes machine files for it).
if "$HPM" count --help >/dev/null 2>&1; then
  HAVE_COUNT=1
else
  HAVE_COUNT=0
  DIRECT_FULL=""
  # (captured first: grep -q would close the pipe early, and pipefail would
  # take valgrind's SIGPIPE for an answer)
  tool_help=$(VALGRIND_LIB="$BUILD/lib/valgrind" valgrind --tool=hpm --help 2>&1 || true)
  if [[ $tool_help == *--hpm-events* ]]; then
    # codes of core 0 (catalog order): INSTRUCTIONS 0, LOADS 2, STORES 3,
    # BRANCHES 10, BR_COND 11, BR_COND_TAKEN 12, SYSCALLS 23
    DIRECT_CORE=("--hpm-events=0,2,3,10,11,12,23")
    # every event on the tool's built-in machine (a one-core node, not bgp)
    DIRECT_FULL=1
    echo "bench_vpmu: note: '$HPM count' not available: hpm runs the tool directly;" \
      "'full' is its default machine, not bgp; no host run, no count comparison"
  else
    DIRECT_CORE=(--hpm-level=core)
    echo "bench_vpmu: note: '$HPM count' not available: hpm runs the tool directly;" \
      "no full-model runs, no count comparison"
  fi
fi

# ---------------------------------------------------------------- workloads
# Larger than the demo's defaults, so that each run lasts a second or more
# under tool none and Valgrind's start-up (~0.35 s) does not dominate; small
# enough that the whole benchmark stays within about 15 minutes on 2 cores.
if [ "${HPM_BENCH_VPMU_SMALL:-0}" = 1 ]; then
  SZ_MATMUL=200 SZ_CG=300 SZ_STREAM=1000000 XZ_BYTES=131072 PY_N=20000 SQL_N=5000
else
  SZ_MATMUL=300 SZ_CG=500 SZ_STREAM=3000000 XZ_BYTES=262144 PY_N=30000 SQL_N=20000
fi
# Compressor input: fixed-seed text, exactly XZ_BYTES long (inputs.sh)
XZ_IN="$TMP/xz.in"
bench_text "$XZ_IN" "$XZ_BYTES"
# bzip2: the same text (a separate file, so that its size can differ)
BZ_IN="$TMP/bz.in"
cp "$XZ_IN" "$BZ_IN"
# The interpreter: dictionaries, sorting, JSON and regular expressions (hash
# seed fixed, as the cross-check does, so that runs are the same work).
PY_SCRIPT="import json, re
n = $PY_N
d = {str(i * 7919 % 100003): i for i in range(n)}
s = sorted(d.items(), key=lambda kv: kv[1] % 1013)
doc = json.dumps([{'k': k, 'v': v, 't': 'x%dy' % v} for k, v in s[: n // 4]])
back = json.loads(doc)
pat = re.compile(r'x(\\d+)y')
tot = sum(int(m.group(1)) for r in back for m in [pat.match(r['t'])] if m)
print(len(s), len(doc), tot)"
# The database: inserts in one transaction, an index, a join and a group by.
SQL="CREATE TABLE a(id INTEGER PRIMARY KEY, k TEXT, v INTEGER);
CREATE TABLE b(id INTEGER PRIMARY KEY, aid INTEGER, w REAL);
BEGIN;
INSERT INTO a SELECT value, printf('k%06d', value * 7919 % 100003), value % 977 FROM generate_series(1, $SQL_N);
INSERT INTO b SELECT value, value * 31 % $SQL_N + 1, value * 0.5 FROM generate_series(1, $SQL_N);
COMMIT;
CREATE INDEX ak ON a(k);
CREATE INDEX ba ON b(aid);
SELECT count(*), sum(b.w) FROM a JOIN b ON b.aid = a.id WHERE a.k > 'k05';
SELECT v % 13, count(*), max(k) FROM a GROUP BY 1 ORDER BY 2 DESC LIMIT 3;"
# The compiler: GCC's cc1 at -O2 on a preprocessed C file (a workload's
# source with its system headers, preprocessed here).
CC1_IN="$TMP/cc1.i"
CC1=$(bench_cc1 "$CC1_IN") || CC1=""

# CMD_<prog>: the command line of each program (read through namerefs,
# which shellcheck does not follow). HPM_BENCH_PROGS="a b" picks some.
PROGS=(matmul cg stream)
# shellcheck disable=SC2034
CMD_matmul=("$BUILD/bin/hpm-matmul" "$SZ_MATMUL")
# shellcheck disable=SC2034
CMD_cg=("$BUILD/bin/hpm-cg" "$SZ_CG")
# shellcheck disable=SC2034
CMD_stream=("$BUILD/bin/hpm-stream" "$SZ_STREAM")
debian() { # NAME BINARY ARGS...: a Debian program, if installed
  local name=$1 bin=$2
  shift 2
  if [ -x "$bin" ]; then
    PROGS+=("$name")
    declare -g -a "CMD_$name"
    local -n cmd_="CMD_$name"
    cmd_=("$bin" "$@")
  else
    echo "bench_vpmu: note: $bin not installed, $name is left out" >&2
  fi
}
debian python3 /usr/bin/python3 -c "$PY_SCRIPT"
debian sqlite3 /usr/bin/sqlite3 :memory: "$SQL"
if [ -n "$CC1" ]; then
  debian cc1 "$CC1" -quiet -O2 "$CC1_IN" -o /dev/null
else
  echo "bench_vpmu: note: gcc's cc1 not found, cc1 is left out" >&2
fi
debian bzip2 /usr/bin/bzip2 -9 -c "$BZ_IN"
debian xz /usr/bin/xz -9 -c "$XZ_IN"
if [ -n "${HPM_BENCH_PROGS:-}" ]; then
  read -r -a want <<<"$HPM_BENCH_PROGS"
  keep=()
  for p in "${PROGS[@]}"; do
    for w in "${want[@]}"; do [ "$p" = "$w" ] && keep+=("$p"); done
  done
  PROGS=("${keep[@]}")
fi
export PYTHONHASHSEED=0

# ---------------------------------------------------------------- timing
# Configurations. Each rep runs every configuration of a program once, one
# after the other (paired: a burst of load on the shared machine hits ours
# and the peer alike), and a configuration's time is the median of its reps.
#   native      the program alone
#   none        valgrind --tool=none: the floor of any Valgrind tool
#   core        hpm, core events only (no models run)
#   full        hpm, the default event set on machine bgp (every model runs)
#   cgeom       hpm on cachegrind.machine with cachegrind's events (Ir, I1mr,
#               Dr, Dw, D1mr, D1mw, LL misses, Bc, Bcm, Bi, Bim)
#   cachegrind  --cache-sim=yes --branch-sim=yes with the geometry above
#   callgrind   --cache-sim=yes --branch-sim=yes
#   fullhost    hpm full on machine host (HPM_BENCH_HOST=1 adds it)
#   floor       cgeom with the floor build (target hpm_vpmu_floor: every model
#               helper returns at its entry): the same translations and
#               calls without the models' work, so cgeom - floor is what the
#               models cost and floor / cachegrind the least cgeom can be
#               with a helper call per access (HPM_BENCH_FLOOR=0 leaves it
#               out)
# HPM_BENCH_BASE_LIB=DIR adds core_base, full_base, cgeom_base: the same
# runs with the tool in DIR (a copy of an older build/lib/valgrind), to
# measure a change against its parent in one run.
CG_EVENTS=INSTRUCTIONS,L1I_MISSES,LOADS,STORES,L1D_READ_MISSES,L1D_WRITE_MISSES,MEM_ACCESSES,BR_COND,BR_COND_MISPREDICTS,BR_INDIRECT,BR_INDIRECT_MISPREDICTS
CONFIGS=(native none core full cgeom cachegrind callgrind)
[ "${HPM_BENCH_FLOOR:-1}" = 1 ] && CONFIGS+=(floor)
[ "${HPM_BENCH_HOST:-0}" = 1 ] && CONFIGS+=(fullhost)
[ -n "${HPM_BENCH_BASE_LIB:-}" ] && CONFIGS+=(core_base full_base cgeom_base)
if [ -n "${HPM_BENCH_CONFIGS:-}" ]; then read -r -a CONFIGS <<<"$HPM_BENCH_CONFIGS"; fi
FLOOR_LIB="$BUILD/bench/vpmu_floor/valgrind"
if [[ " ${CONFIGS[*]} " == *" floor "* ]]; then
  # built here, not by `make`: nothing else runs it
  if ! cmake --build "$BUILD" --target hpm_vpmu_floor >"$TMP/floor.log" 2>&1 ||
    [ ! -x "$FLOOR_LIB/hpm-amd64-linux" ]; then
    echo "bench_vpmu: note: the floor build failed, floor is left out:" \
      "$(tail -n 3 "$TMP/floor.log" | tr '\n' ' ')" >&2
    keep=()
    for c in "${CONFIGS[@]}"; do [ "$c" = floor ] || keep+=("$c"); done
    CONFIGS=("${keep[@]}")
  fi
fi
[ "$HAVE_COUNT" = 1 ] || die "'$HPM count' not available"

# run_config PROG CONFIG: one run, output discarded
run_config() {
  local -n c_="CMD_$1"
  local lib=() cfg=$2
  case $cfg in *_base) lib=(env HPM_VALGRIND_LIB="$HPM_BENCH_BASE_LIB") cfg=${cfg%_base} ;; esac
  case $cfg in
  native) "${c_[@]}" ;;
  none) valgrind -q --tool=none "${c_[@]}" ;;
  core) "${lib[@]}" "$HPM" count -e "$CORE_EVENTS" -o /dev/null -- "${c_[@]}" ;;
  full) "${lib[@]}" "$HPM" count --machine bgp -o /dev/null -- "${c_[@]}" ;;
  cgeom) "${lib[@]}" "$HPM" count --machine "$CG_MACHINE" -e "$CG_EVENTS" -o /dev/null -- "${c_[@]}" ;;
  fullhost) "$HPM" count --machine host -o /dev/null -- "${c_[@]}" ;;
  floor)
    HPM_VALGRIND_LIB="$FLOOR_LIB" "$HPM" count --machine "$CG_MACHINE" -e "$CG_EVENTS" \
      -o /dev/null -- "${c_[@]}" ;;
  cachegrind)
    # the file is kept for the count comparison; writing it costs nothing
    valgrind -q --tool=cachegrind --cache-sim=yes --branch-sim=yes \
      "${CG_GEOMETRY[@]}" --cachegrind-out-file="$TMP/cg.$1" "${c_[@]}" ;;
  callgrind)
    valgrind -q --tool=callgrind --cache-sim=yes --branch-sim=yes \
      --callgrind-out-file=/dev/null "${c_[@]}" ;;
  *) die "unknown configuration $cfg" ;;
  esac
}

# HPM_BENCH_CLOCK=cpu times the CPU (user + system) of each run and its
# children instead of the wall clock: on a machine shared with other jobs
# the wall clock of a run also counts the others' time slices.
CLOCK=${HPM_BENCH_CLOCK:-wall}
clock_now() { # NOW = the clock in ms
  if [ "$CLOCK" = cpu ]; then
    # `times` in this shell (a redirect, not a subshell, whose children's
    # times would start at 0): line 2 is the children's user and system
    times >"$TMP/times"
    NOW=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
      printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$TMP/times")
  else
    NOW=$(($(date +%s%N) / 1000000))
  fi
}

declare -A T # T[prog,config] = ms (median); absent = not measured
for p in "${PROGS[@]}"; do
  declare -A S=() # S[config] = "ms ms ..."
  echo "bench_vpmu: timing $p, $REPS paired reps of: ${CONFIGS[*]}" >&2
  for ((r = 0; r < REPS; r++)); do
    for c in "${CONFIGS[@]}"; do
      clock_now
      t0=$NOW
      if ! run_config "$p" "$c" >/dev/null 2>"$TMP/stderr"; then
        # once more (and timed again): on a shared machine another user's
        # clean-up of /tmp can take a run's output file away
        echo "bench_vpmu: note: $p under $c failed, once more:" \
          "$(tail -n 2 "$TMP/stderr" | tr '\n' ' ')" >&2
        clock_now
      t0=$NOW
        if ! run_config "$p" "$c" >/dev/null 2>"$TMP/stderr"; then
          echo "bench_vpmu: failed: $p under $c" >&2
          tail -n 20 "$TMP/stderr" >&2
          exit 1
        fi
      fi
      clock_now
      t1=$NOW
      S[$c]+="$((t1 - t0)) "
    done
  done
  for c in "${CONFIGS[@]}"; do
    # shellcheck disable=SC2086 # a list of numbers
    T[$p,$c]=$(printf '%s\n' ${S[$c]} | sort -n | awk '{ v[NR] = $1 }
      END { print (NR % 2 ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)) }')
  done
  for c in "${CONFIGS[@]}"; do printf ' %s=%sms' "$c" "${T[$p,$c]}"; done >&2
  echo >&2
  unset S
done

# ---------------------------------------------------------------- report
fmt_cell() { # ms native_ms -> "1.234s  12.3x" ("1.234s       -" without a native time)
  awk -v t="$1" -v n="$2" 'BEGIN { printf "%7.3fs ", t / 1000
    if (n > 0) printf "%6.1fx", t / n; else printf "%7s", "-" }'
}
echo
printf '%-8s' "program"
for c in "${CONFIGS[@]}"; do printf ' %15s' "$c"; done
echo
for p in "${PROGS[@]}"; do
  printf '%-8s' "$p"
  for c in "${CONFIGS[@]}"; do
    if [ -n "${T[$p,$c]:-}" ] && [ -n "${T[$p,native]:-}" ]; then
      printf ' %15s' "$(fmt_cell "${T[$p,$c]}" "${T[$p,native]}")"
    elif [ -n "${T[$p,$c]:-}" ]; then
      printf ' %15s' "$(fmt_cell "${T[$p,$c]}" 0)"
    else
      printf ' %15s' "-"
    fi
  done
  echo
done
echo "($CLOCK-clock seconds, median of $REPS paired reps; slowdown over native)"
echo

# ratio lines: per program, then the geometric mean over the programs
ratio_lines() { # NAME OURS PEER
  local name=$1 ours=$2 peer=$3 p all=""
  for p in "${PROGS[@]}"; do
    if [ -z "${T[$p,$ours]:-}" ] || [ -z "${T[$p,$peer]:-}" ]; then continue; fi
    all+="${T[$p,$ours]} ${T[$p,$peer]} "
    awk -v a="${T[$p,$ours]}" -v b="${T[$p,$peer]}" -v n="${name}_$p" \
      'BEGIN { printf "ratio %s %.3f\n", n, (b > 0 ? a / b : 0) }'
  done
  [ -n "$all" ] || return 0
  echo "$all" | awk -v n="$name" '{
    s = 0; k = 0
    for (i = 1; i < NF; i += 2) if ($(i + 1) > 0 && $i > 0) { s += log($i / $(i + 1)); k++ }
    if (k) printf "ratio %s %.3f\n", n, exp(s / k) }'
}
# the speed goals: cachegrind's geometry <= 0.7 of cachegrind, the full
# bgp model <= 1.2, core events <= 1.05 of --tool=none
ratio_lines vpmu_cgeom_vs_cachegrind cgeom cachegrind
ratio_lines vpmu_full_vs_cachegrind full cachegrind
ratio_lines vpmu_core_vs_none core none
bench_goal_line vpmu_cgeom_vs_cachegrind cgeom cachegrind 0.7
bench_goal_line vpmu_full_vs_cachegrind full cachegrind 1.2
bench_goal_line vpmu_core_vs_none core none 1.05
ratio_lines vpmu_full_vs_callgrind full callgrind
ratio_lines vpmu_fullhost_vs_cachegrind fullhost cachegrind
ratio_lines vpmu_cgeom_vs_base cgeom cgeom_base
# informational: the least cgeom can cost with a helper call per access
# (the models' work taken out), and cgeom over it
ratio_lines vpmu_cgeom_floor_vs_cachegrind floor cachegrind
ratio_lines vpmu_cgeom_vs_floor cgeom floor
ratio_lines vpmu_full_vs_base full full_base
ratio_lines vpmu_core_vs_base core core_base

# ---------------------------------------------------------------- counts
# hpm on cachegrind.machine against the kept cachegrind file: instructions
# (Ir), conditional branches (Bc), L1 data misses (D1mr + D1mw) and
# last-level misses, instruction and data (ILmr + DLmr + DLmw, hpm's
# MEM_ACCESSES: requests served by memory).
[ -n "${T[${PROGS[0]},cachegrind]:-}" ] || exit 0
echo
# cg_field FILE NAME: a total from cachegrind's "events:" and "summary:" lines
cg_field() {
  awk -v want="$2" '
    /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
    /^summary:/ { split(want, w, "+"); s = 0
                  for (j in w) s += $(col[w[j]] + 1); print s }' "$1"
}
# hpm_field FILE EVENT: the total of EVENT in hpm count --csv output, whose
# rows are section,name,region,thread,core,code,value,source; the total is
# the "event" row without a core (the rows after it split it per core).
hpm_field() {
  awk -F, -v want="$2" '
    $1 == "event" && toupper($2) == want && $5 == "" { print $7; exit }' "$1"
}
compare_line() { # NAME HPM PEER
  awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN {
    printf "compare %s hpm=%s peer=%s diff=%+.3f%%\n", n, a, b, (b > 0 ? 100 * (a - b) / b : 0) }'
}
for p in "${PROGS[@]}"; do
  declare -n cmd="CMD_$p"
  [ -n "${T[$p,cachegrind]:-}" ] || continue
  if ! "$HPM" count --machine "$CG_MACHINE" -e INSTRUCTIONS,BR_COND,L1D_MISSES,MEM_ACCESSES --csv \
    -o "$TMP/hpm.$p.csv" -- "${cmd[@]}" >/dev/null 2>"$TMP/stderr"; then
    echo "bench_vpmu: failed: hpm count --machine $CG_MACHINE ... -- ${cmd[*]}" >&2
    tail -n 20 "$TMP/stderr" >&2
    exit 1
  fi
  unset -n cmd
  for what in "instructions INSTRUCTIONS Ir" "br_cond BR_COND Bc" \
    "l1d_misses L1D_MISSES D1mr+D1mw" "ll_misses MEM_ACCESSES ILmr+DLmr+DLmw"; do
    read -r label event cgname <<<"$what"
    ours=$(hpm_field "$TMP/hpm.$p.csv" "$event")
    peer=$(cg_field "$TMP/cg.$p" "$cgname")
    [ -n "$ours" ] || die "no $event in the output of hpm count --csv"
    [ -n "$peer" ] || die "no $cgname in cachegrind's output"
    compare_line "${p}_$label" "$ours" "$peer"
  done
done
