/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the loop finder (src/profile/loops.c) on hand-built
 * control-flow graphs, written as callgrind files: a nest whose inner
 * header is inlined from another file, a loop with several latches, an
 * irreducible cycle, a branch to itself named twice, sibling loops, and
 * a nest thousands of loops deep. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_check.h"
#include "loops.h"

#define HEAD "# callgrind format\nversion: 1\npositions: instr line\n"

static int load(struct hpm_profile *p, struct hpm_loops *ls, const char *text)
{
    char err[256];
    hpm_profile_init(p);
    if (hpm_prof_read_callgrind(p, text, strlen(text), err, sizeof err) != 0) {
        fprintf(stderr, "callgrind: %s\n", err);
        return -1;
    }
    hpm_profile_finish(p);
    if (hpm_loops_find(p, ls, err, sizeof err) != 0) {
        fprintf(stderr, "loops: %s\n", err);
        hpm_profile_free(p);
        return -1;
    }
    return 0;
}

static const struct hpm_loop *loop_at(const struct hpm_loops *ls, uint64_t header)
{
    size_t i;
    for (i = 0; i < ls->n; i++)
        if (ls->loops[i].header == header)
            return &ls->loops[i];
    return NULL;
}

static void check_name(const struct hpm_profile *p, const struct hpm_loop *l, const char *want)
{
    char name[256];
    hpm_loop_name(p, l, name, sizeof name);
    CHECK_STR(name, want);
}

/* f: 0x10 once, an outer loop at 0x14 (10 executions: 1 entry, 9 back
 * from 0x24), an inner loop at 0x18 inlined from b.c (40: 10 entries, 30
 * back from 0x20) whose body calls g 40 times; 0x20 is a.c's line 9, so
 * the outer loop's lines in a.c (its header's file) reach 9 through an
 * instruction the inner loop holds. */
static void test_nest_across_files(void)
{
    static const char cg[] = HEAD "events: INSTRUCTIONS L1D_MISSES\n"
                                  "fl=(1) a.c\n"
                                  "fn=(1) f\n"
                                  "0x10 1 1\n"
                                  "0x14 2 10\n"
                                  "fi=(2) b.c\n"
                                  "0x18 3 40 2\n"
                                  "0x1c 4 40 5\n"
                                  "cfn=(2) g\n"
                                  "calls=40 0x100 20\n"
                                  "0x1c 4 400 7\n"
                                  "fi=(1)\n"
                                  "0x20 9 40\n"
                                  "jcnd=30/40 0x18 3\n"
                                  "0x20 9\n"
                                  "0x24 6 10\n"
                                  "jcnd=9/10 0x14 2\n"
                                  "0x24 6\n"
                                  "0x28 7 1\n"
                                  "fn=(2)\n"
                                  "0x100 20 400 7\n";
    struct hpm_profile p;
    struct hpm_loops ls;
    const struct hpm_loop *o, *in;
    if (load(&p, &ls, cg) != 0) {
        failures++;
        return;
    }
    CHECK_EQ(ls.n, 2);
    o = loop_at(&ls, 0x14);
    in = loop_at(&ls, 0x18);
    CHECK(o == &ls.loops[0] && in == &ls.loops[1]); /* outer first */
    if (!o || !in)
        goto out;
    CHECK_EQ(o->parent, -1);
    CHECK_EQ(o->depth, 1);
    CHECK_EQ(in->parent, 0);
    CHECK_EQ(in->depth, 2);
    CHECK_EQ(o->n_insns, 5);
    CHECK_EQ(in->n_insns, 3);
    CHECK_EQ(o->lo, 0x14);
    CHECK_EQ(o->hi, 0x24);
    CHECK_EQ(in->lo, 0x18);
    CHECK_EQ(in->hi, 0x20);
    CHECK_EQ(o->entries, 1);
    CHECK_EQ(o->header_execs, 10);
    CHECK_EQ(o->back_taken, 9);
    CHECK_EQ(o->n_latches, 1);
    CHECK_EQ(in->entries, 10);
    CHECK_EQ(in->header_execs, 40);
    CHECK_EQ(in->back_taken, 30);
    CHECK(hpm_loop_trip(in) == 4.0);
    check_name(&p, o, "f a.c:2-9");
    check_name(&p, in, "f b.c:3-4");
    /* self: less the inner loop; inclusive: the body and the calls */
    CHECK_EQ(in->self[0], 120);
    CHECK_EQ(in->incl[0], 120 + 400);
    CHECK_EQ(in->self[1], 7);
    CHECK_EQ(in->incl[1], 7 + 7);
    CHECK_EQ(o->self[0], 20);
    CHECK_EQ(o->incl[0], 20 + 120 + 400);
out:
    hpm_loops_free(&ls);
    hpm_profile_free(&p);
}

/* One header, two back edges (a `continue` and the loop's end): one loop
 * with both latches; then an irreducible cycle (entered at 0x64 and at
 * 0x68), which has no back edge and is no loop. */
static void test_latches_and_irreducible(void)
{
    static const char cg[] = HEAD "events: INSTRUCTIONS\n"
                                  "fl=(1) c.c\n"
                                  "fn=(1) two_latches\n"
                                  "0x40 1 12\n"
                                  "0x44 2 12\n"
                                  "jcnd=4/12 0x4c 4\n"
                                  "0x44 2\n"
                                  "0x48 3 8\n"
                                  "jcnd=6/8 0x40 1\n"
                                  "0x48 3\n"
                                  "0x4c 4 6\n"
                                  "jcnd=4/6 0x40 1\n"
                                  "0x4c 4\n"
                                  "0x50 5 2\n"
                                  "fn=(2) irreducible\n"
                                  "0x60 10 2\n"
                                  "jcnd=1/2 0x68 12\n"
                                  "0x60 10\n"
                                  "0x64 11 6\n"
                                  "0x68 12 7\n"
                                  "0x6c 13 7\n"
                                  "jcnd=5/7 0x64 11\n"
                                  "0x6c 13\n";
    struct hpm_profile p;
    struct hpm_loops ls;
    const struct hpm_loop *l;
    if (load(&p, &ls, cg) != 0) {
        failures++;
        return;
    }
    CHECK_EQ(ls.n, 1);
    l = loop_at(&ls, 0x40);
    if (l) {
        CHECK_EQ(l->n_latches, 2);
        CHECK_EQ(l->back_taken, 6 + 4);
        CHECK_EQ(l->entries, 2);
        CHECK_EQ(l->n_insns, 4);
        CHECK(hpm_loop_trip(l) == 6.0);
        check_name(&p, l, "two_latches c.c:1-4");
    }
    hpm_loops_free(&ls);
    hpm_profile_free(&p);
}

/* A branch to itself (x86's rep prefix) that the file names twice, as a
 * jump= and a jcnd= line: one latch, its flow counted once (36 + 12
 * entries = the 48 executions); then two sibling loops under one. */
static void test_self_loop_and_siblings(void)
{
    static const char cg[] = HEAD "events: INSTRUCTIONS\n"
                                  "fl=(1) d.c\n"
                                  "fn=(1) rep\n"
                                  "0x80 1 48\n"
                                  "jump=20 0x80 1\n"
                                  "0x80 1\n"
                                  "jcnd=16/28 0x80 1\n"
                                  "0x80 1\n"
                                  "0x84 2 12\n"
                                  "fn=(2) siblings\n"
                                  "0x90 1 3\n"
                                  "0x94 2 6\n"
                                  "jcnd=3/6 0x94 2\n"
                                  "0x94 2\n"
                                  "0x98 3 9\n"
                                  "jcnd=6/9 0x98 3\n"
                                  "0x98 3\n"
                                  "0x9c 4 3\n"
                                  "jcnd=2/3 0x90 1\n"
                                  "0x9c 4\n"
                                  "0xa0 5 1\n";
    struct hpm_profile p;
    struct hpm_loops ls;
    const struct hpm_loop *l, *a, *b, *o;
    if (load(&p, &ls, cg) != 0) {
        failures++;
        return;
    }
    CHECK_EQ(ls.n, 4);
    l = loop_at(&ls, 0x80);
    if (l) {
        CHECK_EQ(l->n_latches, 1);
        CHECK_EQ(l->back_taken, 36);
        CHECK_EQ(l->entries, 12);
        CHECK_EQ(l->n_insns, 1);
    }
    o = loop_at(&ls, 0x90);
    a = loop_at(&ls, 0x94);
    b = loop_at(&ls, 0x98);
    CHECK(o && a && b);
    if (o && a && b) {
        CHECK_EQ(o->n_insns, 4);
        CHECK_EQ(a->parent, o - ls.loops);
        CHECK_EQ(b->parent, o - ls.loops);
        CHECK(a < b); /* equal bodies: by header */
        CHECK_EQ(a->entries, 3);
        CHECK_EQ(b->entries, 3);
        CHECK_EQ(o->entries, 1);
        CHECK_EQ(o->incl[0], 3 + 6 + 9 + 3);
        CHECK_EQ(o->self[0], 3 + 3);
    }
    hpm_loops_free(&ls);
    hpm_profile_free(&p);
}

/* N loops nested in one function: headers 0..N-1, one body instruction,
 * then the latches from the innermost out, each falling through to the
 * next one out. */
static char *deep_nest(unsigned n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    unsigned i, j;
    uint64_t body = 0x1000 + 4 * (uint64_t)n;
    if (!f)
        return NULL;
    fprintf(f, HEAD "events: INSTRUCTIONS\nfl=(1) deep.c\nfn=(1) deep\n");
    for (i = 0; i < n; i++)
        fprintf(f, "0x%x %u %u\n", 0x1000 + 4 * i, i + 1, n + 1);
    fprintf(f, "0x%" PRIx64 " %u %u\n", body, n + 1, n + 1);
    for (j = 0; j < n; j++) {
        uint64_t s = body + 4 * (uint64_t)(j + 1);
        fprintf(f, "0x%" PRIx64 " %u %u\n", s, n + 2 + j, n + 1 - j);
        fprintf(f, "jcnd=1/%u 0x%x %u\n0x%" PRIx64 " %u\n", n + 1 - j,
                0x1000 + 4 * (n - 1 - j), n - j, s, n + 2 + j);
    }
    fclose(f);
    return text;
}

static void test_deep_nest(void)
{
    enum { N = 20000 };
    char *text = deep_nest(N);
    struct hpm_profile p;
    struct hpm_loops ls;
    size_t i, bad = 0;
    CHECK(text != NULL);
    if (!text || load(&p, &ls, text) != 0) {
        failures++;
        free(text);
        return;
    }
    CHECK_EQ(ls.n, N);
    for (i = 0; i < ls.n && i < N; i++) {
        const struct hpm_loop *l = &ls.loops[i];
        /* loop i is headed at header i, holds i's header to its latch */
        bad += l->header != 0x1000 + 4 * i || l->depth != i + 1 ||
               l->parent != (long)i - 1 || l->n_insns != 2 * (N - i) + 1 ||
               l->n_latches != 1 || l->back_taken != 1 || l->first_line != i + 1 ||
               l->last_line != 2 * N + 1 - i;
    }
    CHECKF(bad == 0, "%zu of %d loops wrong", bad, N);
    hpm_loops_free(&ls);
    hpm_profile_free(&p);
    free(text);
}

int main(void)
{
    test_nest_across_files();
    test_latches_and_irreducible();
    test_self_loop_and_siblings();
    test_deep_nest();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("loop finder: all checks passed\n");
    return 0;
}
