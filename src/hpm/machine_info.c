/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * machine_info.c - hpm_machine_info: the machine of the first enabled
 * component that counts on one of its own (its machine_info slot: sim's
 * machine model under the virtual PMU, modeled = 1), else this host from
 * /proc/cpuinfo, sysconf and /sys/devices/system/cpu/cpu0/cache
 * (modeled = 0). The host's caches are reported as sysfs gives them, not
 * rounded to what the models could simulate (hpm_machine_from_sysfs does
 * that for `--machine host`).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpm_internal.h"
#include "parse.h"

/* Read a small file into buf (NUL-terminated); its length or -1. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t r;
    size_t n = 0;
    if (fd < 0)
        return -1;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

static int sys_u64(const char *dir, const char *file, uint64_t *v, int size)
{
    char path[256], buf[64];
    ssize_t n;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    n = slurp(path, buf, sizeof buf);
    if (n <= 0)
        return -1;
    return size ? hpm_parse_size(buf, (size_t)n, v) : hpm_parse_u64(buf, (size_t)n, v);
}

static void host_caches(struct hpm_machine_info *mi, int ncpu)
{
    int i;
    for (i = 0; i < 16 && mi->n_caches < HPM_MAX_CACHES; i++) {
        char dir[128], buf[64];
        uint64_t level, size, ways = 0, line = 0;
        struct hpm_cache_info *c;
        ssize_t n;
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d", i);
        if (sys_u64(dir, "level", &level, 0) != 0 || sys_u64(dir, "size", &size, 1) != 0)
            continue;
        (void)sys_u64(dir, "ways_of_associativity", &ways, 0);
        (void)sys_u64(dir, "coherency_line_size", &line, 0);
        c = &mi->caches[mi->n_caches++];
        c->level = (int)level;
        c->size = size;
        c->line_size = (int)line;
        c->associativity = (int)ways;
        snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/type");
        n = slurp(dir, buf, sizeof buf);
        c->type = n > 0 && buf[0] == 'D' ? 'D' : n > 0 && buf[0] == 'I' ? 'I' : 'U';
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        n = slurp(dir, buf, sizeof buf);
        c->shared = n > 0 && hpm_parse_cpulist(buf, (size_t)n) >= ncpu && ncpu > 1;
    }
}

static void from_host(struct hpm_machine_info *mi)
{
    struct hpm_cpuinfo ci;
    size_t cap = 1 << 22; /* cpuinfo of a few hundred CPUs */
    char *buf = malloc(cap);
    ssize_t n = buf ? slurp("/proc/cpuinfo", buf, cap) : -1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    uint64_t khz;

    hpm_parse_cpuinfo(n > 0 ? buf : "", n > 0 ? (size_t)n : 0, &ci);
    free(buf);
    if (ncpu < 1)
        ncpu = ci.processors > 0 ? ci.processors : 1;
    mi->modeled = 0;
    hpm__copy(mi->name, sizeof mi->name, ci.model[0] ? ci.model : "unknown CPU");
    hpm__copy(mi->vendor, sizeof mi->vendor, ci.vendor[0] ? ci.vendor : "unknown");
    mi->threads_per_core =
        ci.siblings > 0 && ci.cores > 0 && ci.siblings >= ci.cores ? ci.siblings / ci.cores : 1;
    mi->cores = (int)ncpu / mi->threads_per_core;
    if (mi->cores < 1)
        mi->cores = 1;
    mi->sockets = ci.sockets > 0 ? ci.sockets : 1;
    mi->mhz = ci.mhz;
    if (mi->mhz <= 0 &&
        sys_u64("/sys/devices/system/cpu/cpu0/cpufreq", "cpuinfo_max_freq", &khz, 0) == 0)
        mi->mhz = (double)khz / 1000.0;
    mi->memory_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    host_caches(mi, (int)ncpu);
    mi->itlb_entries = mi->dtlb_entries = 0; /* not in sysfs */
    mi->page_size = page > 0 ? (uint64_t)page : 4096;
}

HPM_EXPORT int hpm_machine_info(struct hpm_machine_info *info)
{
    int k, rc;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!info)
        return HPM_EINVAL;
    for (k = 0; k < HPM_NCOMP; k++) {
        if (!hpm__comp_enabled(k))
            continue;
        memset(info, 0, sizeof *info);
        rc = g_hpm.comp[k].c->machine_info(info);
        if (rc != HPM_ENOTSUP)
            return rc; /* an error too: then the host is not the machine counted */
    }
    memset(info, 0, sizeof *info);
    from_host(info);
    return HPM_OK;
}

/* ------------------------------------------------------------------ gates */

HPM_EXPORT int hpm_gate(int which, const void *code, hpm_event_t event, uint64_t n)
{
    int k, rc;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (which < HPM_GATE_CLEAR || which > HPM_GATE_TRIGGER)
        return HPM_EINVAL;
    if (which == HPM_GATE_TRIGGER) {
        /* the trigger's event says which component counts it */
        k = HPM_EVENT_COMPONENT(event);
        if (k < 0 || k >= HPM_NCOMP || n == 0)
            return HPM_EINVAL;
        if (!hpm__comp_enabled(k))
            return HPM_ENOCOMP;
        return g_hpm.comp[k].c->gate(which, NULL, HPM_EVENT_INDEX(event), n);
    }
    if (which != HPM_GATE_CLEAR && !code)
        return HPM_EINVAL;
    for (k = 0; k < HPM_NCOMP; k++) {
        if (!hpm__comp_enabled(k))
            continue;
        rc = g_hpm.comp[k].c->gate(which, code, 0, 0);
        if (rc != HPM_ENOTSUP)
            return rc;
    }
    return HPM_ENOTSUP;
}
