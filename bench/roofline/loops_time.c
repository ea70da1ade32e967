/* SPDX-License-Identifier: BSD-3-Clause */
/* hpm-bench-loops-time PROFILE: the seconds (CPU time of this process) that
 * finding a profile's loops takes (sorting its costs, hpm_profile_finish,
 * and hpm_loops_find), and how many; for bench_roofline.sh. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fileio.h"
#include "loops.h"
#include "profile.h"

static int any(const char *head, size_t n)
{
    (void)head;
    (void)n;
    return 1;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct hpm_profile p;
    struct hpm_loops ls;
    char *text, err[256];
    size_t len;
    double t0, t1;
    if (argc != 2) {
        fprintf(stderr, "usage: hpm-bench-loops-time PROFILE\n");
        return 2;
    }
    if (hpm_file_read(argv[1], (size_t)4 << 30, any, "a profile", &text, &len, err, sizeof err)) {
        fprintf(stderr, "hpm-bench-loops-time: %s\n", err);
        return 1;
    }
    hpm_profile_init(&p);
    if (hpm_prof_read_callgrind(&p, text, len, err, sizeof err) != 0) {
        fprintf(stderr, "hpm-bench-loops-time: %s\n", err);
        return 1;
    }
    free(text);
    t0 = cpu_s();
    hpm_profile_finish(&p);
    if (hpm_loops_find(&p, &ls, err, sizeof err) != 0) {
        fprintf(stderr, "hpm-bench-loops-time: %s\n", err);
        return 1;
    }
    t1 = cpu_s();
    printf("%.6f %zu\n", t1 - t0, ls.n);
    hpm_loops_free(&ls);
    hpm_profile_free(&p);
    return 0;
}
