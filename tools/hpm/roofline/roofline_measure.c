/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roofline_measure.c - the model's own ceilings, measured as the Empirical
 * Roofline Toolkit measures a machine's: hpm-roofline-kernels
 * (workloads/roofline) under hpm profile on the machine; its functions
 * peak_scalar, peak_128 and peak_256 and bw_L1 ... bw_DDR give the achieved
 * peak per width and bytes a second per level. The result is kept in
 * $XDG_CACHE_HOME/hpm/roofline (or ~/.cache/hpm/roofline;
 * HPM_ROOFLINE_CACHE names another folder, "off" none), keyed by the
 * machine model, hpm's version and the kernels' file (roofline.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "util/install_dirs.h"
#include "roofline/roofline.h"
#include "util/runner.h"

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The cache file of the measured ceilings, or 0 when there is none. */
static int cache_path(const struct hpm_machine *m, const char *kernels, char *buf, size_t len)
{
    const char *env = getenv("HPM_ROOFLINE_CACHE"), *base;
    char dir[2048];
    struct stat st;
    uint64_t h = 0xcbf29ce484222325ull;
    if (env && strcmp(env, "off") == 0)
        return 0;
    if (stat(kernels, &st) != 0)
        return 0;
    h = fnv1a(h, m, sizeof *m);
    h = fnv1a(h, HPM_VERSION_STRING, strlen(HPM_VERSION_STRING));
    h = fnv1a(h, &st.st_size, sizeof st.st_size);
    h = fnv1a(h, &st.st_mtime, sizeof st.st_mtime);
    if (env && *env == '/')
        snprintf(dir, sizeof dir, "%s", env);
    else if ((base = getenv("XDG_CACHE_HOME")) && *base == '/')
        snprintf(dir, sizeof dir, "%s/hpm/roofline", base);
    else if ((base = getenv("HOME")) && *base == '/')
        snprintf(dir, sizeof dir, "%s/.cache/hpm/roofline", base);
    else
        return 0;
    snprintf(buf, len, "%s/%016" PRIx64, dir, h);
    return 1;
}

static const char *const me_keys[3 + LV_N] = {"peak_scalar", "peak_128", "peak_256",
                                               "bw_L1",       "bw_L2",    "bw_L3", "bw_DDR"};

static int cache_read(const char *path, struct measured *me)
{
    char line[128];
    unsigned got = 0, k;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f;
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 4096 ||
        !(f = fdopen(fd, "r"))) {
        close(fd);
        return -1;
    }
    memset(me, 0, sizeof *me);
    while (fgets(line, sizeof line, f)) {
        char name[32];
        double v;
        if (sscanf(line, "%31s %lf", name, &v) != 2 || !(v >= 0) || v > 1e18)
            continue;
        for (k = 0; k < 3 + LV_N; k++)
            if (strcmp(name, me_keys[k]) == 0) {
                if (k < 3)
                    me->peak[k] = v;
                else
                    me->bw[k - 3] = v;
                got |= 1u << k;
            }
    }
    fclose(f);
    me->have = got == (1u << (3 + LV_N)) - 1;
    return me->have ? 0 : -1;
}

static void cache_write(const char *path, const struct measured *me)
{
    char tmp[2300];
    unsigned k;
    FILE *f;
    int fd;
    {
        /* the cache's folders, private */
        char dir[2300], *slash;
        snprintf(dir, sizeof dir, "%s", path);
        if ((slash = strrchr(dir, '/')) && slash > dir) {
            *slash = 0;
            (void)runner_mkdirs(dir, 0700);
        }
    }
    snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || !(f = fdopen(fd, "w"))) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (k = 0; k < 3 + LV_N; k++)
        fprintf(f, "%s %.9g\n", me_keys[k], k < 3 ? me->peak[k] : me->bw[k - 3]);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        unlink(tmp);
}

/* roofline.h */
int roofline_measure(const char *machine, const struct hpm_machine *m, struct measured *me)
{
    char progs[2048], kernels[2100], cache[2200] = "", dir[4096];
    char path[4200], err[256], sizes[LV_N][32], reps[LV_N][32], *args[4 + 3 * LV_N];
    char *text = NULL;
    size_t len = 0, f;
    uint64_t largest = m->hier.l1d.size, sz[LV_N] = {0};
    struct hpm_profile p;
    int na = 0, rc, kx[K_N];
    unsigned l;
    memset(me, 0, sizeof *me);
    hpm_part_dir(HPM_PART_PROGRAMS, "hpm-roofline-kernels", progs, sizeof progs);
    snprintf(kernels, sizeof kernels, "%s/hpm-roofline-kernels", progs);
    if (access(kernels, X_OK) != 0) {
        fprintf(stderr, "hpm roofline: note: no %s (built with hpm: workloads/roofline): the "
                        "model's ceilings are not measured\n", kernels);
        return 1;
    }
    if (cache_path(m, kernels, cache, sizeof cache) && cache_read(cache, me) == 0)
        return 0;
    /* working sets: half the L1; twice the L1 (the L2 streams it: a
     * prefetch buffer smaller than the L1 too); half the L3; four times
     * the largest cache. About 4 MiB read at each level. */
    sz[LV_L1] = m->hier.l1d.size / 2;
    if (m->hier.l2.size)
        sz[LV_L2] = m->hier.l2.size > 2 * m->hier.l1d.size ? m->hier.l2.size / 2
                                                           : 2 * m->hier.l1d.size;
    if (m->hier.l3.size)
        sz[LV_L3] = m->hier.l3.size / 2;
    if (m->hier.l2.size > largest)
        largest = m->hier.l2.size;
    if (m->hier.l3.size > largest)
        largest = m->hier.l3.size;
    sz[LV_DDR] = 4 * largest;
    args[na++] = kernels;
    args[na++] = "measure";
    args[na++] = "100000";
    for (l = 0; l < LV_N; l++) {
        uint64_t r = sz[l] ? ((uint64_t)4 << 20) / sz[l] : 0;
        if (!sz[l])
            continue;
        snprintf(sizes[l], sizeof sizes[l], "%" PRIu64, sz[l]);
        snprintf(reps[l], sizeof reps[l], "%" PRIu64, r ? r : 1);
        args[na++] = (char *)roofline_level_name[l];
        args[na++] = sizes[l];
        args[na++] = reps[l];
    }
    if (runner_tmpdir("hpm-roofline-kernels", dir, sizeof dir) != 0) {
        fprintf(stderr, "hpm roofline: note: cannot make a temporary folder (%s): the model's "
                        "ceilings are not measured\n", strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/kernels", dir);
    rc = roofline_run_profile(machine, path, args, na);
    if (rc == 0 && hpm_file_read(path, (size_t)1 << 30, hpm_prof_callgrind_head, "a profile", &text, &len,
                                 err, sizeof err) == 0) {
        hpm_profile_init(&p);
        if (hpm_prof_read_callgrind(&p, text, len, err, sizeof err) == 0 &&
            roofline_kinds_of(&p, "the kernels' profile", kx) == 0) {
            hpm_profile_finish(&p);
            for (f = 0; f < p.n_fns; f++) {
                const char *name = p.strs[p.fns[f].name];
                struct item it;
                uint64_t *v;
                unsigned k;
                double t;
                for (k = 0; k < 3 + LV_N && strcmp(name, me_keys[k]) != 0; k++)
                    ;
                if (k == 3 + LV_N || !(v = roofline_fn_self(&p, f)))
                    continue;
                memset(&it, 0, sizeof it);
                roofline_item_fill(&it, v, kx, m, &(struct ceilings){0}, NULL);
                free(v);
                t = it.cycles / (double)m->frequency_hz;
                if (t <= 0)
                    continue;
                if (k < 3)
                    me->peak[k] = it.flops / t;
                else
                    me->bw[k - 3] = it.bytes[k - 3] / t;
            }
            me->have = me->peak[0] > 0 && me->peak[1] > 0 && me->bw[LV_L1] > 0;
        }
        hpm_profile_free(&p);
    }
    free(text);
    runner_rmdir(dir); /* the profile and its data objects with it */
    if (!me->have) {
        fprintf(stderr, "hpm roofline: note: the model's ceilings could not be measured\n");
        return 1;
    }
    if (cache[0])
        cache_write(cache, me);
    return 0;
}
