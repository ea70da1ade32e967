/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_check - check an hpm virtual PMU output file.
 *
 *   vpmu_check FILE ASSERTION...
 *
 * Each line "F1 F2 ... Fn VALUE" defines key "F1.F2...Fn" = VALUE, e.g.
 * "thread 1 instructions 42" -> thread.1.instructions = 42,
 * "exit status 0" -> exit.status = 0, "exit signal" -> exit = signal.
 * ASSERTION is KEY=VALUE (string or number), KEY>=N, KEY<=N, or KEY (exists).
 * Always checked: the first line is "hpm-vpmu 1"; every event of
 * vpmu_events.h is present for every thread and in the totals, and each total
 * equals the sum over the threads; "threads N" matches.
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
            if (strcmp(line, "hpm-vpmu 1") != 0)
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
            snprintf(key, sizeof key, "thread.%llu.%s", t, names[e]);
            if (!parse_u64(lookup(key), &v)) {
                fail("missing", key, lookup(key));
                v = 0;
            }
            sum += v;
        }
        snprintf(key, sizeof key, "total.%s", names[e]);
        if (!parse_u64(lookup(key), &tot) || tot != sum)
            fail("total != sum of threads", key, lookup(key));
    }

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
