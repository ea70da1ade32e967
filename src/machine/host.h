/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * host.h - this host's processors, caches and memory, read in one place.
 *
 * hpm_host_read reads what Linux states: CPU_ROOT/online, each
 * CPU_ROOT/cpu0/cache/indexN and CPU_ROOT/cpu0/cpufreq/cpuinfo_max_freq
 * (CPU_ROOT: /sys/devices/system/cpu), /proc/cpuinfo, and sysconf's
 * memory and page size. Everything hpm says about the host is made from
 * it, read once per process (hpm_host): the `host` machine
 * (hpm_machine_from_sysfs, its caches rounded to what the models
 * simulate), libhpm's hpm_machine_info natively (the caches as sysfs gives
 * them) and libpapi's cpuid numbers. A file that is missing or does not
 * parse is said by a zero or a flag, never an error.
 *
 * (hwloc, Debian's libhwloc, reads the same and more, but its first
 * topology load in a process took 11 to 24 ms, which every
 * PAPI_library_init would pay; this reads the few files hpm needs in about
 * 0.4 ms. docs/papi.md, "Designs measured and rejected".)
 *
 * Hosted (libc). The parsers take a buffer and its length (no NUL needed)
 * and never allocate, so fuzz/hpm feeds them anything.
 */
#ifndef HPM_HOST_H
#define HPM_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What /proc/cpuinfo says about the host (first processor's lines). */
struct hpm_cpuinfo {
    char model[64];  /* "model name" (x86), else "Model"/"cpu model" */
    char vendor[64]; /* "vendor_id", else "CPU implementer" */
    double mhz;      /* "cpu MHz", 0 if absent */
    int processors;  /* "processor" lines */
    int siblings;    /* "siblings" of the first processor, 0 if absent */
    int cores;       /* "cpu cores" of the first processor, 0 if absent */
    int sockets;     /* distinct "physical id" values, 0 if absent */
    int family;      /* "cpu family", 0 if absent */
    int model_number; /* "model" (not "model name"), 0 if absent */
    int stepping;    /* "stepping", 0 if absent */
};
void hpm_host_parse_cpuinfo(const char *buf, size_t len, struct hpm_cpuinfo *ci);

/* A sysfs CPU list ("0-3,8,10-11\n"): the number of CPUs, or -1. */
int hpm_host_parse_cpulist(const char *buf, size_t len);

/* A sysfs size ("32K", "8192K", "1M", "512"): bytes, or -1 on garbage. */
int hpm_host_parse_size(const char *buf, size_t len, uint64_t *out);

/* A decimal unsigned number, surrounding blanks allowed: 0 or -1. */
int hpm_host_parse_u64(const char *buf, size_t len, uint64_t *out);

/* Which files of a cache index said something (hpm_host_cache.has). */
enum {
    HPM_HOST_CACHE_SIZE = 1,
    HPM_HOST_CACHE_WAYS = 2,
    HPM_HOST_CACHE_LINE = 4,
    HPM_HOST_CACHE_SHARED = 8,
};

/* One cpu0/cache/indexN whose `level` parses. */
struct hpm_host_cache {
    unsigned index;      /* N */
    unsigned has;        /* HPM_HOST_CACHE_* */
    uint64_t level;
    char type;           /* 'D', 'I', else 'U' (Unified, or no type file) */
    uint64_t size;       /* bytes (HPM_HOST_CACHE_SIZE) */
    uint64_t ways;       /* 0: fully associative (HPM_HOST_CACHE_WAYS) */
    uint64_t line;       /* coherency_line_size (HPM_HOST_CACHE_LINE) */
    int shared_cpus;     /* CPUs in shared_cpu_list (HPM_HOST_CACHE_SHARED) */
};

#define HPM_HOST_MAX_CACHES 32 /* indexes 0..31 are looked at */

struct hpm_host {
    uint32_t cpus;          /* online CPUs (CPU_ROOT/online, else sysconf); 0 if neither says */
    struct hpm_cpuinfo cpu; /* /proc/cpuinfo */
    double mhz;             /* cpuinfo's "cpu MHz", else cpufreq's maximum; 0 if neither */
    uint64_t memory_bytes;  /* physical pages x page size, 0 if unknown */
    uint64_t page_size;     /* sysconf, 4096 if unknown */
    unsigned n_caches;
    struct hpm_host_cache caches[HPM_HOST_MAX_CACHES]; /* ascending index */
};

/* Read the host (cpu_root NULL: /sys/devices/system/cpu; /proc/cpuinfo and
 * sysconf always describe this machine). Returns 0; never fails for want
 * of files. */
int hpm_host_read(struct hpm_host *h, const char *cpu_root);

/* This host, read once per process (hpm_host_read(.., NULL) at the first
 * call, thread-safe): libhpm's hpm_machine_info, libpapi's cpuid numbers
 * and the `host` machine share the one reading. Never NULL. */
const struct hpm_host *hpm_host(void);

#ifdef __cplusplus
}
#endif
#endif
