/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loops.h - loops as cost centers: the natural loops of a profile's
 * executed code, found on its control-flow graph with exact counts.
 *
 * The graph of a function: its executed instructions; the edges its
 * direct branches took (hpm profile writes them as callgrind's jump= and
 * jcnd= lines, as callgrind --collect-jumps=yes does), and the
 * fall-through edges, each instruction's executions less what its
 * branches took (none after a return or an indirect jump: BR_RETURNS,
 * BR_INDIRECT); what enters an instruction from outside the function (a
 * call, a return to it, a jump from elsewhere) is an edge from the entry.
 * A back edge goes to an instruction that dominates its source: that is
 * the loop's header, the source a latch, and the body every instruction
 * that reaches a latch without passing the header (the natural loop of
 * the textbooks; irreducible cycles have no back edge and are no loop).
 * Loops with one header are one loop; a loop whose header is in another's
 * body is nested in it. Every cost of an instruction goes to the
 * innermost loop holding it (self); a loop's inclusive cost is its body's
 * and what the calls made from its body cost.
 *
 * Counts, all exact: the header's executions (its INSTRUCTIONS, or
 * callgrind's Ir), the back edges taken, the entries (what reaches the
 * header from outside the body), and the trip count, the header's
 * executions per entry (as LLVM counts a loop's trip count: a loop
 * tested at its top runs its test once more than its body).
 */
#ifndef HPM_LOOPS_H
#define HPM_LOOPS_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct hpm_loop {
    size_t fn;              /* index in the profile's fns */
    uint64_t header;        /* its first instruction */
    uint64_t lo, hi;        /* the body's lowest and highest instruction */
    size_t n_insns;         /* the body's instructions */
    unsigned file;          /* string id: the header's source file */
    unsigned first_line, last_line; /* the body's lines in that file (0: none) */
    long parent;            /* enclosing loop (index), or -1 */
    unsigned depth;         /* 1: outermost */
    size_t n_latches;
    uint64_t header_execs;  /* 0 without an instruction count */
    uint64_t back_taken;    /* back edges taken */
    uint64_t entries;
    uint64_t *self, *incl;  /* n_kinds values each */
};

struct hpm_loops {
    struct hpm_loop *loops; /* by function, then header */
    size_t n;
    unsigned n_kinds;
    int have_insns;         /* the profile has an instruction count */
    uint64_t *vals;
};

/* Finds p's loops (p finished: hpm_profile_finish), outer loops before
 * the loops they hold. 0, or -1 with a message (out of memory; a profile
 * without instruction addresses or instruction counts). */
int hpm_loops_find(const struct hpm_profile *p, struct hpm_loops *out, char *err, size_t errlen);
void hpm_loops_free(struct hpm_loops *l);

/* The trip count (header executions per entry); 0 when not known. */
double hpm_loop_trip(const struct hpm_loop *l);

/* A loop's name: its function and source line range ("work loop.c:4-7"),
 * or its addresses without lines. */
void hpm_loop_name(const struct hpm_profile *p, const struct hpm_loop *l, char *buf, size_t n);

/* The instruction-count kind of p: INSTRUCTIONS, or callgrind's Ir; -1. */
int hpm_loops_insn_kind(const struct hpm_profile *p);

#endif
