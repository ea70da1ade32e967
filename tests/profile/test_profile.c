/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_profile - the profile model (src/profile): the tool's records,
 * apportioning of kinds that do not add up, the callgrind writer and reader
 * (a profile written and read back is the same profile), the contended
 * cache lines' records and view (c2c.c), and bad input.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_check.h"
#include "profile.h"

static const char records[] =
    "hpm-vpmu 2\n"
    "pid 42\n"
    "count 0 PU0_INSTRUCTIONS 10\n"
    "prof_kind INSTRUCTIONS 10\n"
    "prof_kind CYCLES 100\n"
    "prof_object 1 400000 400fff 0 /nonexistent/prog with space\n"
    "prof_insn 400010 1 0:4 1:7\n"
    "prof_insn 400014 1 1:7 0:3\n"
    "prof_insn 400020 1 0:3 1:7\n"
    "prof_insn 7000 0\n"
    "prof_call 400014 400020 2 0:3 1:7\n"
    "prof_data heap 400014 400010 0 2 4096 1:30\n"
    "prof_data global 400800 0 1 0 0 1:5\n"
    "prof_data stack 0 0 0 0 0 1:1\n"
    "prof_unknown_future_record 1 2 3\n";

static void test_records(void)
{
    struct hpm_prof_records r;
    char err[256];
    CHECK_EQ(hpm_prof_records_parse(records, strlen(records), &r, err, sizeof err), 0);
    CHECK_EQ(r.n_kinds, 2);
    CHECK_STR(r.kinds[1], "CYCLES");
    CHECK_EQ(r.totals[1], 100);
    CHECK_EQ(r.n_objects, 2);
    CHECK_STR(r.objects[1].path, "/nonexistent/prog with space");
    CHECK_EQ(r.objects[1].end, 0x400fff);
    CHECK_EQ(r.n_insns, 4);
    CHECK_EQ(r.insns[1].addr, 0x400014);
    CHECK_EQ(hpm_prof_records_value(&r, r.insns[2].kv, r.insns[2].n_kv, 1), 7);
    CHECK_EQ(hpm_prof_records_value(&r, r.insns[2].kv, r.insns[2].n_kv, 0), 3);
    CHECK_EQ(r.insns[3].n_kv, 0);
    CHECK_EQ(r.n_arcs, 1);
    CHECK_EQ(r.arcs[0].calls, 2);
    CHECK_EQ(r.n_data, 3);
    CHECK_STR(r.data[0].kind, "heap");
    CHECK_EQ(r.data[0].blocks, 2);
    CHECK_EQ(r.data[0].bytes, 4096);
    CHECK_EQ(hpm_prof_records_value(&r, r.data[0].kv, r.data[0].n_kv, 1), 30);
    CHECK_EQ(hpm_prof_records_value(&r, r.data[0].kv, r.data[0].n_kv, 0), 0);
    CHECK_EQ(r.data[0].from, 0x400010);
    CHECK_EQ(r.data[1].obj, 1);
    {
        /* the data profile: one object per record here, BLOCKS and BYTES
         * first, the kinds after */
        struct hpm_profile d;
        uint64_t sum[HPM_PROF_KINDS_MAX];
        char err2[256];
        hpm_profile_init(&d);
        CHECK_EQ(hpm_prof_add_data(&d, &r, NULL, err2, sizeof err2), 0);
        hpm_profile_finish(&d);
        CHECK_EQ(d.n_kinds, 4);
        CHECK_STR(d.kinds[1], "BYTES");
        CHECK_EQ(d.n_fns, 3);
        hpm_profile_sum(&d, sum);
        CHECK_EQ(sum[0], 2);
        CHECK_EQ(sum[1], 4096);
        CHECK_EQ(sum[3], 36);
        hpm_profile_free(&d);
    }
    hpm_prof_records_free(&r);
}

static void test_bad_records(void)
{
    static const char *const bad[] = {
        "prof_kind A 1\nprof_insn 10 0 1:2\n",            /* no kind 1 */
        "prof_kind A 1\nprof_insn 10 3 0:1\n",            /* no object 3 */
        "prof_kind A x\n",                                /* not a number */
        "prof_kind A 1\nprof_insn zz 0 0:1\n",            /* not hex */
        "prof_object 1 20 10 0 /x\n",                     /* end before start */
        "prof_object 1 10 20 0 /x\nprof_object 1 10 20 0 /y\n", /* twice */
        "prof_kind A 1\nprof_insn 10 0 0:1\nprof_kind B 1\n",    /* kind after costs */
        "prof_kind A 1\nprof_insn 10 0 0:-1\n",           /* negative */
        "prof_kind A 1\nprof_insn 10 0 0:99999999999999999999999\n", /* overflow */
        "prof_kind A 1\nprof_insn 10 0 0:1 0:2\n",        /* a kind twice */
        "prof_kind A 1\nprof_insn 10 0 0:0\n",            /* a 0 written */
        "prof_kind A 1\nprof_insn 10 0 7\n",              /* not K:V */
        "prof_kind A 1\nprof_data heap 10 0 0 1\n",       /* fields missing */
        "prof_kind A 1\nprof_data heapheapheap 10 0 0 1 1\n", /* kind too long */
        "prof_kind A 1\nprof_data global 10 0 4 0 0\n",   /* no object 4 */
        "prof_kind A\tB 1\n",                            /* not one word */
    };
    unsigned i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct hpm_prof_records r;
        char err[256] = "";
        int rc = hpm_prof_records_parse(bad[i], strlen(bad[i]), &r, err, sizeof err);
        if (rc != -1 || strncmp(err, "line ", 5) != 0)
            fprintf(stderr, "bad record %u: rc %d, '%s'\n", i, rc, err);
        CHECK_EQ(rc, -1);
    }
}

/* Shares of a kind that does not add up to its total are apportioned by
 * largest remainders: 7+7+7 = 21 scaled to 100 is 33+33+34 in some order,
 * summing to 100 exactly; the linear kind is left as it is. */
static void test_apportion(void)
{
    struct hpm_prof_records r;
    struct hpm_profile p;
    char err[256];
    uint64_t sum[HPM_PROF_KINDS_MAX];
    size_t i, j;
    unsigned big = 0;
    CHECK_EQ(hpm_prof_records_parse(records, strlen(records), &r, err, sizeof err), 0);
    hpm_profile_init(&p);
    CHECK_EQ(hpm_prof_add_records(&p, &r, NULL, err, sizeof err), 0);
    hpm_profile_finish(&p);
    hpm_profile_sum(&p, sum);
    CHECK_EQ(sum[0], 10);
    CHECK_EQ(sum[1], 100);
    CHECK_EQ(p.apportioned[0], 0);
    CHECK_EQ(p.apportioned[1], HPM_PROF_SCALED);
    for (i = 0; i < p.n_fns; i++)
        for (j = 0; j < p.fns[i].n_costs; j++) {
            const struct hpm_prof_cost *x = &p.fns[i].costs[j];
            uint64_t c = hpm_prof_value(x->v, x->kv, x->n_kv, 1);
            CHECK(c == 0 || c == 33 || c == 34);
            big += c == 34;
        }
    CHECK_EQ(big, 1);
    /* a second process with other kinds cannot join */
    {
        static const char other[] = "prof_kind LOADS 1\nprof_insn 10 0 0:1\n";
        struct hpm_prof_records r2;
        CHECK_EQ(hpm_prof_records_parse(other, strlen(other), &r2, err, sizeof err), 0);
        CHECK_EQ(hpm_prof_add_records(&p, &r2, NULL, err, sizeof err), -1);
        hpm_prof_records_free(&r2);
    }
    /* the same kinds again: totals add up over processes */
    CHECK_EQ(hpm_prof_add_records(&p, &r, NULL, err, sizeof err), 0);
    hpm_profile_finish(&p);
    hpm_profile_sum(&p, sum);
    CHECK_EQ(sum[1], 200);
    CHECK_EQ(p.totals[1], 200);
    hpm_prof_records_free(&r);
    hpm_profile_free(&p);
}

/* Taking the records' values over (the front end's way) makes the profile
 * that copying them makes: a record in kind order is used in place, one
 * out of order (400014's) copied and sorted; the records hold no values
 * afterwards, and are freed as before. */
static void test_take(void)
{
    struct hpm_prof_records r1, r2;
    struct hpm_profile p1, p2;
    char err[256], *b1 = NULL, *b2 = NULL;
    size_t n1 = 0, n2 = 0;
    FILE *f;
    CHECK_EQ(hpm_prof_records_parse(records, strlen(records), &r1, err, sizeof err), 0);
    CHECK_EQ(hpm_prof_records_parse(records, strlen(records), &r2, err, sizeof err), 0);
    hpm_profile_init(&p1);
    hpm_profile_init(&p2);
    CHECK_EQ(hpm_prof_add_records(&p1, &r1, NULL, err, sizeof err), 0);
    CHECK_EQ(hpm_prof_take_records(&p2, &r2, NULL, err, sizeof err), 0);
    CHECK(r2.kvs == NULL && r2.n_kvs == 0);
    CHECK_EQ(p2.n_taken, 1);
    hpm_profile_finish(&p1);
    hpm_profile_finish(&p2);
    f = open_memstream(&b1, &n1);
    CHECK(f && hpm_prof_write_callgrind(&p1, f) == 0);
    if (f)
        fclose(f);
    f = open_memstream(&b2, &n2);
    CHECK(f && hpm_prof_write_callgrind(&p2, f) == 0);
    if (f)
        fclose(f);
    CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0);
    /* 400014 given CYCLES first: INSTRUCTIONS 3 first in the file, then its
     * CYCLES share (33 or 34) */
    CHECK(b2 && strstr(b2, "\n0x400014 0 3 3") != NULL);
    free(b1);
    free(b2);
    hpm_prof_records_free(&r1);
    hpm_prof_records_free(&r2);
    hpm_profile_free(&p1);
    hpm_profile_free(&p2);
}

/* A profile written in callgrind's format and read back is the same. */
static void test_roundtrip(void)
{
    struct hpm_prof_records r;
    struct hpm_profile p, q;
    char err[256], *buf = NULL, *buf2 = NULL;
    size_t len = 0, len2 = 0;
    FILE *f;
    uint64_t a[HPM_PROF_KINDS_MAX], b[HPM_PROF_KINDS_MAX];
    CHECK_EQ(hpm_prof_records_parse(records, strlen(records), &r, err, sizeof err), 0);
    hpm_profile_init(&p);
    CHECK_EQ(hpm_prof_add_records(&p, &r, NULL, err, sizeof err), 0);
    hpm_profile_finish(&p);
    p.command = strdup("prog arg");
    f = open_memstream(&buf, &len);
    CHECK_EQ(hpm_prof_write_callgrind(&p, f), 0);
    fclose(f);
    CHECK(strstr(buf, "events: INSTRUCTIONS CYCLES\n") != NULL);
    CHECK(strstr(buf, "summary: 10 100\n") != NULL);
    CHECK(strstr(buf, "calls=2 0x400020 0\n0x400014 0 3 7\n") != NULL);

    hpm_profile_init(&q);
    CHECK_EQ(hpm_prof_read_callgrind(&q, buf, len, err, sizeof err), 0);
    hpm_profile_finish(&q);
    CHECK_EQ(q.n_kinds, 2);
    CHECK_EQ(q.have_totals, 1);
    CHECK_EQ(q.totals[1], 100);
    CHECK_STR(q.command, "prog arg");
    CHECK_EQ(q.n_fns, p.n_fns);
    hpm_profile_sum(&p, a);
    hpm_profile_sum(&q, b);
    CHECK_EQ(a[0], b[0]);
    CHECK_EQ(a[1], b[1]);
    /* written again, byte for byte */
    q.apportioned[1] = HPM_PROF_SCALED;
    f = open_memstream(&buf2, &len2);
    CHECK_EQ(hpm_prof_write_callgrind(&q, f), 0);
    fclose(f);
    CHECK_EQ(len2, len);
    CHECK(len2 == len && memcmp(buf, buf2, len) == 0);
    free(buf);
    free(buf2);
    hpm_prof_records_free(&r);
    hpm_profile_free(&p);
    hpm_profile_free(&q);
}

/* callgrind's own conventions: subposition compression, hex positions,
 * missing trailing costs, fi= file changes, a file without summary. */
static void test_read_callgrind(void)
{
    static const char cg[] = "# callgrind format\n"
                             "version: 1\n"
                             "creator: callgrind-3.19.0\n"
                             "positions: instr line\n"
                             "events: Ir Dr\n"
                             "fl=(1) a.c\n"
                             "fn=(1) f\n"
                             "0x10 3 5 1\n"
                             "+2 +1 4\n"
                             "* * 1 1\n"
                             "fi=(2) b.h\n"
                             "-1 7 2\n"
                             "cfn=(2) g\n"
                             "calls=3 0x40 9\n"
                             "+3 -2 30 6\n"
                             "fn=(2)\n"
                             "0x40 9 30 6\n";
    struct hpm_profile p;
    char err[256];
    uint64_t s[HPM_PROF_KINDS_MAX];
    hpm_profile_init(&p);
    CHECK_EQ(hpm_prof_read_callgrind(&p, cg, strlen(cg), err, sizeof err), 0);
    hpm_profile_finish(&p);
    CHECK_EQ(p.have_totals, 0);
    CHECK_EQ(p.n_fns, 2);
    hpm_profile_sum(&p, s);
    CHECK_EQ(s[0], 5 + 4 + 1 + 2 + 30);
    CHECK_EQ(s[1], 1 + 0 + 1 + 0 + 6);
    CHECK_EQ(p.fns[0].n_costs, 3); /* 0x12 twice merged */
    CHECK_EQ(p.fns[0].costs[0].addr, 0x10);
    CHECK_EQ(p.fns[0].costs[1].addr, 0x11);
    CHECK_STR(p.strs[p.fns[0].costs[1].file], "b.h");
    CHECK_EQ(p.fns[0].costs[2].addr, 0x12);
    CHECK_EQ(p.fns[0].costs[2].line, 4);
    CHECK_EQ(p.fns[0].n_calls, 1);
    CHECK_EQ(p.fns[0].calls[0].count, 3);
    CHECK_EQ(p.fns[0].calls[0].site_addr, 0x14);
    CHECK_EQ(p.fns[0].calls[0].v[0], 30);
    CHECK_STR(p.strs[p.fns[p.fns[0].calls[0].callee].name], "g");
    hpm_profile_free(&p);
}

static void test_bad_callgrind(void)
{
    static const char *const bad[] = {
        "fn=f\n1 2\n",                          /* costs before events */
        "events: A\nfn=(1)\n1 2\n",             /* undefined compressed name */
        "events: A\nfn=f\n1 2 3\n",             /* more costs than events */
        "events: A\nfn=f\ncfn=g\ncalls=1 2\n",  /* calls= without its line */
        "events: A\nevents: B\n",               /* twice */
        "version: 2\nevents: A\n",              /* another format */
        "events: A\nfn=f\nx 1\n",               /* not a position (ignored) ... */
        "just text\n",                          /* no events */
        "events: A\nfn=f\n99999999999999999999999 1\n",
    };
    unsigned i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct hpm_profile p;
        char err[256] = "";
        int rc;
        hpm_profile_init(&p);
        rc = hpm_prof_read_callgrind(&p, bad[i], strlen(bad[i]), err, sizeof err);
        if (i == 6) {
            CHECK_EQ(rc, 0); /* an unknown line is skipped, as callgrind_annotate does */
        } else {
            if (rc != -1)
                fprintf(stderr, "bad callgrind %u accepted\n", i);
            CHECK_EQ(rc, -1);
            CHECK(err[0] != 0);
        }
        hpm_profile_free(&p);
    }
}

/* A kind with a total but no instruction's share (the I/O and kernel
 * units' kinds): whole in "(unattributed)", and said so in the file, not
 * called the timing model's share. */
static void test_unattributed(void)
{
    static const char recs[] = "hpm-vpmu 2\n"
                               "pid 43\n"
                               "prof_kind INSTRUCTIONS 7\n"
                               "prof_kind IO_READS 5\n"
                               "prof_insn 400010 0 0:7\n";
    struct hpm_prof_records r;
    struct hpm_profile p;
    char err[256], *buf = NULL;
    size_t len = 0, i;
    uint64_t sum[HPM_PROF_KINDS_MAX];
    int found = 0;
    FILE *f;
    CHECK_EQ(hpm_prof_records_parse(recs, strlen(recs), &r, err, sizeof err), 0);
    hpm_profile_init(&p);
    CHECK_EQ(hpm_prof_add_records(&p, &r, NULL, err, sizeof err), 0);
    hpm_prof_records_free(&r);
    hpm_profile_finish(&p);
    CHECK_EQ(p.apportioned[0], 0);
    CHECK_EQ(p.apportioned[1], HPM_PROF_UNATTRIBUTED);
    hpm_profile_sum(&p, sum);
    CHECK_EQ(sum[1], 5);
    for (i = 0; i < p.n_fns; i++)
        found |= strcmp(p.strs[p.fns[i].name], "(unattributed)") == 0;
    CHECK(found);
    f = open_memstream(&buf, &len);
    CHECK_EQ(hpm_prof_write_callgrind(&p, f), 0);
    fclose(f);
    CHECK(buf && strstr(buf, "# IO_READS is not per instruction: its total is in (unattributed)"));
    CHECK(buf && !strstr(buf, "IO_READS per instruction"));
    free(buf);
    hpm_profile_free(&p);
}

/* The contended cache lines (c2c.c): records parsed with the threads'
 * cores, the view's verdicts, byte ranges and order, and bad records. */
static void test_c2c(void)
{
    static const char text[] =
        "thread 1 core 0\n"
        "thread 1 INSTRUCTIONS 5\n"
        "thread 2 core 1\n"
        "thread 3 core 2\n"
        "thread 4 core 2\n"
        "prof_kind INSTRUCTIONS 10\n"
        "prof_object 1 400000 400fff 0 /nonexistent/prog\n"
        "prof_c2c_lines 3 7\n"
        "prof_c2c 10c300 32 1 3998 3999 global 10c308 0 1 0\n"
        "prof_c2c_core 10c300 0 ff00 0 0 0 0\n"
        "prof_c2c_core 10c300 1 ff ff 1999 0 1999\n"
        "prof_c2c_core 10c300 2 ff00 ff00 1999 1 2000\n"
        "prof_c2c 20000 32 1 10 10 heap 400010 0 0 1fff8\n"
        "prof_c2c_core 20000 1 f f 5 5 5\n"
        "prof_c2c_core 20000 2 f f 5 5 5\n"
        "prof_c2c 30000 32 1 0 1 other 0 0 0 0\n"
        "prof_c2c_core 30000 1 0 1 0 0 1\n";
    struct hpm_prof_records r;
    struct hpm_c2c_report *c;
    char err[256] = "", *out = NULL;
    size_t len = 0, nf = 0;
    uint64_t dropped = 0;
    int present = 0;
    FILE *f;
    CHECK_EQ(hpm_prof_records_parse(text, strlen(text), &r, err, sizeof err), 0);
    CHECK_EQ(r.c2c.present, 1);
    CHECK_EQ(r.c2c.kept, 3);
    CHECK_EQ(r.c2c.dropped, 7);
    CHECK_EQ(r.c2c.n_lines, 3);
    CHECK_EQ(r.c2c.n_cores, 6);
    CHECK_EQ(r.c2c.n_threads, 4); /* "thread 1 INSTRUCTIONS 5" is not one */
    CHECK_EQ(r.c2c.lines[0].n_cores, 3);
    CHECK_EQ(r.c2c.cores[2].true_misses, 1);
    c = hpm_c2c_report_new();
    CHECK(c != NULL);
    CHECK_EQ(hpm_c2c_report_add(c, &r, NULL, 42), 0);
    /* the line without coherence misses is counted, not listed */
    CHECK_EQ(hpm_c2c_report_lines(c, &present, &dropped, &nf), 2);
    CHECK_EQ(present, 1);
    CHECK_EQ(dropped, 7);
    CHECK_EQ(nf, 1);
    f = open_memstream(&out, &len);
    CHECK(f != NULL);
    CHECK_EQ(hpm_c2c_report_write_json(c, f), 0);
    fclose(f);
    /* most misses first; core 2 ran threads 3 and 4; bytes as ranges */
    CHECK(strstr(out, "\"address\":\"0x10c300\",\"bytes\":32,\"coherence_misses\":3998,"
                      "\"true_sharing_misses\":1,\"invalidations\":3999,\"sharing\":\"false\"") != NULL);
    CHECK(strstr(out, "\"lines_only_invalidated\":1") != NULL);
    CHECK(strstr(out, "{\"core\":2,\"threads\":[3,4],\"read\":[[8,15]],\"written\":[[8,15]]") != NULL);
    CHECK(strstr(out, "\"sharing\":\"true\",\"object\":{\"kind\":\"heap\",\"name\":\"heap block from 0x400010\",\"offset\":8}") != NULL);
    CHECK(strstr(out, "0x30000") == NULL);
    CHECK(strstr(out, "0x10c300") < strstr(out, "0x20000"));
    free(out);
    out = NULL;
    f = open_memstream(&out, &len);
    CHECK(f != NULL);
    CHECK_EQ(hpm_c2c_report_write_text(c, f), 0);
    fclose(f);
    CHECK(strstr(out, "line 0x10c300 (32 bytes, pid 42)  FALSE sharing  coherence misses 3998 "
                      "(true sharing 1)  invalidations 3999") != NULL);
    CHECK(strstr(out, "  core 1 (thread 2)  read 0-7  wrote 0-7") != NULL);
    CHECK(strstr(out, "  core 2 (threads 3,4)  read 8-15  wrote 8-15") != NULL);
    CHECK(strstr(out, "TRUE sharing  coherence misses 10 (true sharing 10)") != NULL);
    free(out);
    hpm_c2c_report_free(c);
    hpm_prof_records_free(&r);
    {
        static const char *const bad[] = {
            "prof_c2c 40 32 1 1 1 other 0 0 0 0\n",                          /* before _lines */
            "prof_c2c_lines 1 0\nprof_c2c_lines 1 0\n",                       /* twice */
            "prof_c2c_lines 1\n",                                             /* field missing */
            "prof_c2c_lines 1 0\nprof_c2c 40 32 1 1 1 other 0 0 0 0\n"
            "prof_c2c 80 32 1 1 1 other 0 0 0 0\n",                          /* more than kept */
            "prof_c2c_lines 2 0\nprof_c2c 40 32 1 1 1 other 0 0 0 0\n"
            "prof_c2c 40 32 1 1 1 other 0 0 0 0\n",                          /* a line twice */
            "prof_c2c_lines 1 0\nprof_c2c 44 32 1 1 1 other 0 0 0 0\n",       /* not aligned */
            "prof_c2c_lines 1 0\nprof_c2c 40 48 1 1 1 other 0 0 0 0\n",       /* not a power of 2 */
            "prof_c2c_lines 1 0\nprof_c2c 0 256 1 1 1 other 0 0 0 0\n",       /* 256 granules */
            "prof_c2c_lines 1 0\nprof_c2c 40 32 1 1 1 elsewhere 0 0 0 0\n",   /* no such kind */
            "prof_c2c_lines 1 0\nprof_c2c 40 32 1 1 1 global 40 0 3 0\n",     /* no object 3 */
            "prof_c2c_lines 1 0\nprof_c2c 40 32 1 1 1 other 0 0 0 0 9\n",     /* a field more */
            "prof_c2c_core 40 0 1 1 1 0 1\n",                                 /* no line */
            "prof_c2c_lines 1 0\nprof_c2c 40 32 1 1 1 other 0 0 0 0\n"
            "prof_c2c_core 80 0 1 1 1 0 1\n",                                 /* another line */
            "prof_c2c_lines 1 0\nprof_c2c 40 32 1 1 1 other 0 0 0 0\n"
            "prof_c2c_core 40 0 1 1 1 2 1\n",                                 /* true > misses */
            "prof_c2c_lines 1 0\nprof_c2c 40 32 1 1 1 other 0 0 0 0\n"
            "prof_c2c_core 40 0 100000000 1 1 0 1\n",                         /* past the line */
            "prof_c2c_lines 1 0\nprof_c2c 40 32 1 1 1 other 0 0 0 0\n"
            "prof_c2c_core 40 1 1 1 1 0 1\nprof_c2c_core 40 1 1 1 1 0 1\n",  /* a core twice */
        };
        unsigned i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            int rc = hpm_prof_records_parse(bad[i], strlen(bad[i]), &r, err, sizeof err);
            if (rc != -1 || strncmp(err, "line ", 5) != 0)
                fprintf(stderr, "bad c2c record %u: rc %d, '%s'\n", i, rc, err);
            CHECK_EQ(rc, -1);
        }
    }
}

int main(void)
{
    test_records();
    test_c2c();
    test_bad_records();
    test_apportion();
    test_take();
    test_unattributed();
    test_roundtrip();
    test_read_callgrind();
    test_bad_callgrind();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("profile model: all checks passed\n");
    return 0;
}
