#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rep_ir.sh CALLGRIND_OUT - how much of callgrind's Ir is REP string iterations.
#
# Prints one line: "IR REP_IR REP_LOOPS REP_SITES LOCK_IR REPCC_LOOPS"
#   IR          callgrind's total Ir (the sum of the self costs)
#   REP_IR      Ir at REP/REPE/REPNE-prefixed string instructions: their runs
#   REP_LOOPS   how many times those instructions jumped back to themselves
#   REP_SITES   how many such instructions ran
#   LOCK_IR     Ir at LOCK-prefixed read-modify-write instructions other than
#               CMPXCHG, and at XCHG with a memory operand
#   REPCC_LOOPS the REP_LOOPS of REPE/REPNE CMPS/SCAS alone
# REP_LOOPS is what callgrind (and cachegrind) count as instructions beyond
# the one that hpm counts for each completed REP instruction: hpm's
# INSTRUCTIONS = IR - REP_LOOPS, up to start-up effects. The other columns
# account for cachegrind's Bc, which counts every guarded exit VEX emits:
# one per REP run (the RCX == 0 test), one more per REPE/REPNE iteration
# (the condition test), and one per locked read-modify-write (VEX performs
# it as a compare-and-swap with a retry exit; CMPXCHG's failure is its
# result, not a retry, so it has none). hpm counts none of them as
# conditional branches (src/vpmu/vpmu_instrument.c, rule 3).
#
# Why it works. VEX runs a REP string instruction as one superblock run per
# iteration: "if RCX == 0 leave to the next instruction; RCX -= 1; one
# iteration; jump back to itself" (REPE/REPNE also leave on the condition).
# Callgrind counts one Ir per run, so an instruction of K iterations costs
# K + 1 Ir for MOVS/STOS (the last run only finds RCX == 0) and K for
# CMPS/SCAS that stop on the condition, and it jumps back to itself K or
# K - 1 times: one Ir per run that looped, the completion being the one run
# that did not; hpm counts the instruction once, when it leaves
# (docs/vpmu.md, "Known limits").
#
# Input: callgrind --dump-instr=yes --collect-jumps=yes --compress-pos=no
# --compress-strings=no. Positions are addresses relative to each object's
# load base, as objdump prints them for the object file, so the REP sites
# are found by disassembling every object named in an "ob=" line. The loops
# are the jump records of a site to itself: "jcnd=F/E ADDR" (of E runs, F
# jumped) or "jump=F ADDR", each followed by the source line "ADDR" (records
# with F = 0 are not written). The cost line after a "calls=" line is the
# inclusive cost of a call, not a self cost, and is skipped.
set -euo pipefail
f=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rep_ir.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

awk -v dir="$tmp" '
  /^ob=/ { ob = substr($0, 4); next }
  /^calls=/ { skip = 1; next }
  /^jcnd=/ { split(substr($1, 6), fe, "/"); jf = fe[1]; jt = $2; jpend = 1; next }
  /^jump=/ { jf = substr($1, 6); jt = $2; jpend = 1; next }
  /^0x/ {
    if (jpend) { jpend = 0; if (jt == $1) loops[ob "\t" $1] += jf; next }
    if (skip) { skip = 0; next }
    if (NF >= 3) { c[ob "\t" $1] += $3; tot += $3 }
    next }
  END {
    for (k in c) print k "\t" c[k] "\t" (loops[k] + 0) > (dir "/costs")
    printf "%d\n", tot > (dir "/total") }' "$f"

# REP string instructions of every object that ran ("???" and the like,
# which are not files, have none we could read), marked S (MOVS/STOS/LODS,
# which leave only when RCX runs out) or C (REPE/REPNE CMPS/SCAS, which
# also leave on their condition); and the locked read-modify-write
# instructions, marked L (see the LOCK_IR column above).
cut -f1 "$tmp/costs" | sort -u | while IFS= read -r ob; do
  [ -f "$ob" ] || continue
  objdump -d --no-show-raw-insn "$ob" 2>/dev/null |
    awk -v ob="$ob" '
      { a = $1; sub(":", "", a) }
      $2 ~ /^(rep|repz|repe|repnz|repne)$/ && $3 ~ /^(movs|stos|lods|ins|outs)/ {
        printf "%s\t0x%s\tS\n", ob, a }
      $2 ~ /^(rep|repz|repe|repnz|repne)$/ && $3 ~ /^(cmps|scas)/ { printf "%s\t0x%s\tC\n", ob, a }
      ($2 == "lock" && $3 !~ /^cmpxchg/) || ($2 ~ /^xchg/ && $0 ~ /\(/) {
        printf "%s\t0x%s\tL\n", ob, a }'
done >"$tmp/sites"

awk -F'\t' -v tot="$(cat "$tmp/total")" '
  NR == FNR { kind[$1 "\t" $2] = $3; next }
  ($1 "\t" $2) in kind {
    k = kind[$1 "\t" $2]
    if (k == "L") { lock += $3; next }
    s += $3; l += $4; n++
    if (k == "C") cl += $4 }
  END { printf "%d %d %d %d %d %d\n", tot, s, l, n, lock, cl }' "$tmp/sites" "$tmp/costs"
