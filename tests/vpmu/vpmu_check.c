/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_check - check an hpm virtual PMU output file.
 *
 *   vpmu_check FILE ASSERTION...
 *
 * Each line "F1 F2 ... Fn VALUE" defines key "F1.F2...Fn" = VALUE, e.g.
 * "raw thread 1 instructions 42" -> raw.thread.1.instructions = 42,
 * "thread 1 FP_OPS 7" -> thread.1.FP_OPS = 7 (read from the UPC),
 * "exit status 0" -> exit.status = 0, "exit signal" -> exit = signal.
 * ASSERTION is KEY=VALUE (string or number), KEY>=N, KEY<=N, or KEY (exists).
 * Always checked: the first line is "hpm-vpmu 2"; every raw event of
 * vpmu_events.h is present for every thread and in the totals, and each total
 * equals the sum over the threads; "threads N" matches; and the UPC path
 * agrees exactly with the raw counters: every per-thread UPC count of a core
 * event equals the thread's raw counter, and every node-wide "count" of a
 * core event equals the sum of the raw counters of the threads on that core.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vpmu_events.h"

#define MAXKEYS 20000

static char *keys[MAXKEYS];
static char *vals[MAXKEYS];
static int nkeys;
static int failures;

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p) {
        perror("malloc");
        exit(2);
    }
    return memcpy(p, s, n);
}

static const char *lookup(const char *k)
{
    int i;
    for (i = 0; i < nkeys; i++)
        if (strcmp(keys[i], k) == 0)
            return vals[i];
    return NULL;
}

static int parse_u64(const char *s, unsigned long long *v)
{
    char *end;
    if (!s || !*s)
        return 0;
    *v = strtoull(s, &end, 10);
    return *end == 0;
}

static void fail(const char *what, const char *a, const char *b)
{
    fprintf(stderr, "vpmu_check: FAIL %s %s %s\n", what, a ? a : "", b ? b : "(missing)");
    failures++;
}

/* Catalog kinds that are exact core events, with their raw names. */
static const struct {
    const char *kind, *raw;
} core_kinds[] = {
    {"INSTRUCTIONS", "instructions"}, {"LOADS", "loads"}, {"STORES", "stores"},
    {"LOAD_BYTES", "load_bytes"}, {"STORE_BYTES", "store_bytes"},
    {"INT_ADDSUB", "int_addsub"}, {"INT_MUL", "int_mul"}, {"INT_DIV", "int_div"},
    {"INT_LOGIC", "int_logic"}, {"BRANCHES", "branches"}, {"BR_COND", "br_cond"},
    {"BR_COND_TAKEN", "br_cond_taken"}, {"BR_COND_NOT_TAKEN", "br_cond_not_taken"},
    {"BR_DIRECT", "br_direct"}, {"BR_INDIRECT", "br_indirect"}, {"BR_CALLS", "br_call"},
    {"BR_CALLS_INDIRECT", "br_call_indirect"}, {"BR_RETURNS", "br_ret"},
    {"SYSCALLS", "syscalls"}, {"FP_INSTRUCTIONS", "fp_instructions"}, {"FP_OPS", "fp_ops"},
    {"FP_SP_SCALAR", "fp_sp_scalar"}, {"FP_SP_128", "fp_sp_128"},
    {"FP_SP_256", "fp_sp_256"}, {"FP_DP_SCALAR", "fp_dp_scalar"},
    {"FP_DP_128", "fp_dp_128"}, {"FP_DP_256", "fp_dp_256"}, {"FP_FMA", "fp_fma"},
    {"FP_DIV", "fp_div"}, {"FP_SQRT", "fp_sqrt"},
};

/* The node-wide count of kind on core c, if programmed ("count.CODE.PUc_KIND"). */
static const char *count_of(unsigned long long c, const char *kind)
{
    char suffix[128];
    size_t sl;
    int i;
    snprintf(suffix, sizeof suffix, ".PU%llu_%s", c, kind);
    sl = strlen(suffix);
    for (i = 0; i < nkeys; i++) {
        size_t kl = strlen(keys[i]);
        if (strncmp(keys[i], "count.", 6) == 0 && kl > sl && strcmp(keys[i] + kl - sl, suffix) == 0)
            return vals[i];
    }
    return NULL;
}

static void check_upc_against_raw(unsigned long long nthreads)
{
    unsigned long long t, c, v, r, core[64], per_core[64];
    char key[256], rkey[256];
    size_t k;
    for (t = 1; t <= nthreads && t < 64; t++) {
        snprintf(key, sizeof key, "thread.%llu.core", t);
        if (!parse_u64(lookup(key), &core[t]) || core[t] >= 64) {
            fail("missing", key, lookup(key));
            core[t] = 0;
        }
    }
    for (k = 0; k < sizeof core_kinds / sizeof core_kinds[0]; k++) {
        memset(per_core, 0, sizeof per_core);
        for (t = 1; t <= nthreads && t < 64; t++) {
            snprintf(rkey, sizeof rkey, "raw.thread.%llu.%s", t, core_kinds[k].raw);
            if (!parse_u64(lookup(rkey), &r))
                continue;
            per_core[core[t]] += r;
            snprintf(key, sizeof key, "thread.%llu.%s", t, core_kinds[k].kind);
            if (lookup(key) && (!parse_u64(lookup(key), &v) || v != r))
                fail("UPC per-thread count != raw", key, lookup(key));
        }
        for (c = 0; c < 64; c++) {
            const char *s = count_of(c, core_kinds[k].kind);
            if (s && (!parse_u64(s, &v) || v != per_core[c])) {
                snprintf(key, sizeof key, "PU%llu_%s (raw sum %llu)", c, core_kinds[k].kind,
                         per_core[c]);
                fail("UPC node count != raw sum", key, s);
            }
        }
    }
}

int main(int argc, char **argv)
{
    static const char *const names[VPMU_EV_COUNT] = VPMU_EVENT_NAME_INIT;
    char line[1024], key[1024];
    FILE *f;
    int i, e, first = 1;
    unsigned long long nthreads = 0, t;

    if (argc < 2) {
        fprintf(stderr, "usage: vpmu_check FILE [KEY[=|>=|<=]VALUE]...\n");
        return 2;
    }
    f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        char *last, *p;
        line[strcspn(line, "\n")] = 0;
        if (first) {
            if (strcmp(line, "hpm-vpmu 2") != 0)
                fail("header", line, "");
            first = 0;
        }
        last = strrchr(line, ' ');
        if (!last || nkeys == MAXKEYS)
            continue;
        *last = 0;
        snprintf(key, sizeof key, "%s", line);
        for (p = key; *p; p++)
            if (*p == ' ')
                *p = '.';
        keys[nkeys] = xstrdup(key);
        vals[nkeys] = xstrdup(last + 1);
        nkeys++;
    }
    fclose(f);
    if (first)
        fail("empty file", argv[1], "");

    /* structural checks */
    if (!parse_u64(lookup("threads"), &nthreads) || nthreads == 0)
        fail("threads", "", lookup("threads"));
    for (e = 0; e < VPMU_EV_COUNT; e++) {
        unsigned long long sum = 0, v, tot;
        for (t = 1; t <= nthreads; t++) {
            snprintf(key, sizeof key, "raw.thread.%llu.%s", t, names[e]);
            if (!parse_u64(lookup(key), &v)) {
                fail("missing", key, lookup(key));
                v = 0;
            }
            sum += v;
        }
        snprintf(key, sizeof key, "raw.total.%s", names[e]);
        if (!parse_u64(lookup(key), &tot) || tot != sum)
            fail("total != sum of threads", key, lookup(key));
    }

    if (!getenv("VPMU_NO_RAW_CHECK"))
        check_upc_against_raw(nthreads);

    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *op = strpbrk(a, "<>=");
        const char *v;
        unsigned long long x, y;
        size_t kl = op ? (size_t)(op - a) : strlen(a);
        snprintf(key, sizeof key, "%.*s", (int)kl, a);
        v = lookup(key);
        if (!op) {
            if (!v)
                fail("missing", key, v);
            continue;
        }
        if (op[0] == '=') {
            if (!v || strcmp(v, op + 1) != 0)
                fail(a, "got", v);
        } else if ((op[0] == '>' || op[0] == '<') && op[1] == '=') {
            if (!parse_u64(v, &x) || !parse_u64(op + 2, &y) ||
                (op[0] == '>' ? !(x >= y) : !(x <= y)))
                fail(a, "got", v);
        } else {
            fail("bad assertion", a, "");
        }
    }
    if (failures)
        return 1;
    printf("vpmu_check: %s ok (%d assertions)\n", argv[1], argc - 2);
    return 0;
}
