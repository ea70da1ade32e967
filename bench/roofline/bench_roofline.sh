#!/usr/bin/env bash
# hpm roofline and loops, on real programs (Debian's python3 and sqlite3 by
# full path, where installed) and the bundled STREAM:
#   ratio roofline_vs_profile_PROG   hpm roofline -- PROG (its profile, the loops,
#                                    the table; the model's ceilings from the
#                                    cache, measured once before) over hpm
#                                    profile -- PROG alone
#   ratio loops_vs_profile_PROG      finding the loops of PROG's profile
#                                    (hpm-bench-loops-time: sorting and
#                                    hpm_loops_find) over hpm profile -- PROG
# CPU seconds (user + system of the command and its children), median of
# REPS runs.
#   bench_roofline.sh BUILD [REPS]
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
REPS=${2:-3}
HPM=$BUILD/bin/hpm
LT=$BUILD/bin/hpm-bench-loops-time
[ -x "$LT" ] || { echo "bench_roofline: $LT missing; skipped"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hpm-bench-roofline.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export HPM_ROOFLINE_CACHE="$work/cache"
cpu() { # command... : user + system CPU seconds of it and its children
    local t0 t1 me=$BASHPID
    t0=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$me/stat")
    "$@" >/dev/null 2>&1
    t1=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$me/stat")
    awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f\n", (b - a) / hz }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

cat >work.py <<'PY'
d = {}
for i in range(20000):
    d[str(i)] = sorted(str(i * 7919 % 1000))
print(len(d))
PY
cat >work.sql <<'SQL'
create table t(a integer, b text);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000)
insert into t select x, hex(x * 7919) from c;
create index i on t(b);
select count(*), sum(a) from t where b like '1%';
SQL
progs=(stream)
cmd_stream=("$BUILD/bin/hpm-stream" 200000)
if [ -x /usr/bin/python3 ]; then progs+=(python3); cmd_python3=(/usr/bin/python3 work.py); fi
if [ -x /usr/bin/sqlite3 ]; then progs+=(sqlite3); cmd_sqlite3=(/usr/bin/sqlite3 -init work.sql :memory: .quit); fi

"$HPM" roofline -- "$BUILD/bin/hpm-stream" 1000 >/dev/null 2>&1 # the model's ceilings, cached
for p in "${progs[@]}"; do
    declare -n cmd="cmd_$p"
    declare -a P=() R=() L=()
    for ((i = 0; i < REPS; i++)); do
        P+=("$(cpu "$HPM" profile -o "$p.prof" -- "${cmd[@]}")")
        R+=("$(cpu "$HPM" roofline -- "${cmd[@]}")")
        L+=("$("$LT" "$p.prof" | awk '{ print $1 }')")
    done
    pt=$(printf '%s\n' "${P[@]}" | median)
    rt=$(printf '%s\n' "${R[@]}" | median)
    lt=$(printf '%s\n' "${L[@]}" | median)
    n=$("$LT" "$p.prof" | awk '{ print $2 }')
    echo "$p: hpm profile $pt s, hpm roofline $rt s, finding its $n loops $lt s ($(wc -c <"$p.prof") bytes of profile)"
    awk -v a="$rt" -v b="$pt" -v n="$p" 'BEGIN { if (b > 0) printf "ratio roofline_vs_profile_%s %.3f\n", n, a / b }'
    awk -v a="$lt" -v b="$pt" -v n="$p" 'BEGIN { if (b > 0) printf "ratio loops_vs_profile_%s %.4f\n", n, a / b }'
    unset -n cmd
done
