/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_sysinfo.c - hardware, executable, shared-library, memory and device
 * information.
 *
 * The hardware is what hpm_machine_info describes: under the virtual PMU
 * the machine model the counts come from (so clock rate, caches and TLBs
 * agree with the counts), natively this host. Executable and library
 * address ranges come from the dynamic linker's program headers
 * (dl_iterate_phdr), which also holds under Valgrind; the host's cpuid
 * numbers from src/machine's host reader (host.h); memory use from
 * /proc/self/status.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "host.h"
#include "papi_internal.h"

PAPI_hw_info_t papi_hw_info;
double papi_mhz_now = 1000.0; /* a clock rate the machine did not give: 1 GHz */
static unsigned memory_mb; /* the machine's memory (one NUMA node), for the device queries */

/* ------------------------------------------------------------ hardware */

/* Vendors by a case-insensitive substring of the vendor string, or of the
 * model name when the vendor string does not tell (a machine model such
 * as "bgp" names the machine, not its maker). */
static const struct {
    const char *match;
    int vendor;
    const char *name; /* vendor_string when found through the model name */
} vendors[] = {
    { "intel", PAPI_VENDOR_INTEL, "GenuineIntel" },
    { "amd", PAPI_VENDOR_AMD, "AuthenticAMD" },
    { "ibm", PAPI_VENDOR_IBM, "IBM" },
    { "bgp", PAPI_VENDOR_IBM, "IBM" }, /* Blue Gene/P */
    { "bgl", PAPI_VENDOR_IBM, "IBM" }, /* Blue Gene/L */
    { "blue gene", PAPI_VENDOR_IBM, "IBM" },
    { "power", PAPI_VENDOR_IBM, "IBM" },
    { "cray", PAPI_VENDOR_CRAY, "Cray" },
    { "sun", PAPI_VENDOR_SUN, "Sun" },
    { "freescale", PAPI_VENDOR_FREESCALE, "Freescale" },
    { "arm", PAPI_VENDOR_ARM, "ARM" },
    { "mips", PAPI_VENDOR_MIPS, "MIPS" },
};

static int vendor_index(const char *s)
{
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++)
        if (strcasestr(s, vendors[i].match))
            return (int)i;
    return -1;
}

/* cpuid family/model/stepping of this host, for the native case. */
static void host_cpuid(PAPI_hw_info_t *hw, const struct hpm_host *h)
{
    hw->cpuid_family = h->cpu.family;
    hw->cpuid_model = h->cpu.model_number;
    hw->cpuid_stepping = h->cpu.stepping;
    hw->model = hw->cpuid_model;
    hw->revision = (float)hw->cpuid_stepping;
}

static int mh_type(char t)
{
    int kind = t == 'I' ? PAPI_MH_TYPE_INST : t == 'D' ? PAPI_MH_TYPE_DATA : PAPI_MH_TYPE_UNIFIED;
    return kind | PAPI_MH_TYPE_WB | PAPI_MH_TYPE_LRU;
}

static void fill_memory_hierarchy(PAPI_mh_info_t *mh, const struct hpm_machine_info *m)
{
    memset(mh, 0, sizeof *mh);
    int per_level[PAPI_MAX_MEM_HIERARCHY_LEVELS] = { 0 };
    for (int i = 0; i < m->n_caches && i < HPM_MAX_CACHES; i++) {
        const struct hpm_cache_info *c = &m->caches[i];
        int lvl = c->level - 1;
        if (lvl < 0 || lvl >= PAPI_MAX_MEM_HIERARCHY_LEVELS || per_level[lvl] >= PAPI_MH_MAX_LEVELS)
            continue;
        PAPI_mh_cache_info_t *pc = &mh->level[lvl].cache[per_level[lvl]++];
        pc->type = mh_type(c->type);
        pc->size = c->size > INT_MAX ? INT_MAX : (int)c->size;
        pc->line_size = c->line_size;
        pc->num_lines = c->line_size > 0 ? (int)(c->size / (uint64_t)c->line_size) : 0;
        pc->associativity = c->associativity == 0 ? SHRT_MAX : c->associativity;
        if (lvl + 1 > mh->levels)
            mh->levels = lvl + 1;
    }
    int page = m->page_size > INT_MAX ? INT_MAX : (int)m->page_size;
    int t = 0;
    if (m->itlb_entries > 0)
        mh->level[0].tlb[t++] = (PAPI_mh_tlb_info_t){ PAPI_MH_TYPE_INST, m->itlb_entries, page, SHRT_MAX };
    if (m->dtlb_entries > 0)
        mh->level[0].tlb[t++] = (PAPI_mh_tlb_info_t){ PAPI_MH_TYPE_DATA, m->dtlb_entries, page, SHRT_MAX };
    if (t && mh->levels == 0)
        mh->levels = 1;
}

void papi_sysinfo_init(void)
{
    PAPI_hw_info_t *hw = &papi_hw_info;
    memset(hw, 0, sizeof *hw);
    struct hpm_machine_info m;
    memset(&m, 0, sizeof m);
    if (hpm_machine_info(&m) != HPM_OK) {
        m.cores = hpm_host()->cpus > 0 ? (int)hpm_host()->cpus : 1;
        m.threads_per_core = 1;
        m.sockets = 1;
        papi_copy(m.name, sizeof m.name, "unknown");
    }
    int threads = m.threads_per_core > 0 ? m.threads_per_core : 1;
    int sockets = m.sockets > 0 ? m.sockets : 1;
    int cores = m.cores > 0 ? m.cores : 1;
    /* hpm counts cores per node; PAPI wants cores per socket */
    hw->threads = threads;
    hw->sockets = sockets;
    hw->cores = cores / sockets > 0 ? cores / sockets : 1;
    hw->nnodes = 1;
    hw->totalcpus = hw->cores * sockets * threads;
    hw->ncpu = hw->totalcpus;
    papi_copy(hw->vendor_string, sizeof hw->vendor_string, m.vendor[0] ? m.vendor : "unknown");
    papi_copy(hw->model_string, sizeof hw->model_string, m.name[0] ? m.name : "unknown");
    int v = vendor_index(hw->vendor_string);
    if (v < 0 && (v = vendor_index(hw->model_string)) >= 0)
        papi_copy(hw->vendor_string, sizeof hw->vendor_string, vendors[v].name);
    hw->vendor = v >= 0 ? vendors[v].vendor : PAPI_VENDOR_UNKNOWN;
    if (!m.modeled)
        host_cpuid(hw, hpm_host());
    papi_mhz_now = m.mhz > 0 ? m.mhz : 1000.0;
    hpm_clock_set_mhz(papi_mhz_now); /* PAPI_get_real_cyc's rate */
    memory_mb = (unsigned)(m.memory_bytes >> 20);
    int mhz = (int)(papi_mhz() + 0.5);
    hw->cpu_max_mhz = mhz;
    hw->cpu_min_mhz = mhz;
    hw->mhz = (float)papi_mhz();
    hw->clock_mhz = mhz;
    fill_memory_hierarchy(&hw->mem_hierarchy, &m);
    if (m.modeled) {
        /* the program runs on a modeled machine: say so */
        hw->virtualized = 1;
        papi_copy(hw->virtual_vendor_string, sizeof hw->virtual_vendor_string, "hpm virtual PMU");
        papi_copy(hw->virtual_vendor_version, sizeof hw->virtual_vendor_version, m.name);
    }
}

const PAPI_hw_info_t *PAPI_get_hardware_info(void)
{
    return papi_inited() ? &papi_hw_info : NULL;
}

/* ------------------------------------------------------------ executable and libraries */

static PAPI_exe_info_t exe_info;
static PAPI_shlib_info_t shlib_info;
static PAPI_address_map_t *shlib_maps;
static int shlib_cap;

/* Text, data and bss ranges of one loaded object from its PT_LOAD
 * segments: executable -> text, writable -> data, the writable segment's
 * memory beyond its file contents -> bss. */
static void ranges_of(const struct dl_phdr_info *info, PAPI_address_map_t *map)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        char *start = (char *)(info->dlpi_addr + ph->p_vaddr);
        if ((ph->p_flags & PF_X) && !map->text_start) {
            map->text_start = start;
            map->text_end = start + ph->p_memsz;
        } else if ((ph->p_flags & PF_W) && !map->data_start) {
            map->data_start = start;
            map->data_end = start + ph->p_filesz;
            map->bss_start = start + ph->p_filesz;
            map->bss_end = start + ph->p_memsz;
        }
    }
}

static int exe_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    /* the first object is the program itself */
    ranges_of(info, &((PAPI_exe_info_t *)arg)->address_info);
    return 1;
}

const PAPI_exe_info_t *PAPI_get_executable_info(void)
{
    if (!papi_inited())
        return NULL;
    PAPI_exe_info_t *e = &exe_info;
    memset(e, 0, sizeof *e);
    ssize_t n = readlink("/proc/self/exe", e->fullname, sizeof e->fullname - 1);
    if (n <= 0)
        return NULL;
    e->fullname[n] = '\0';
    const char *base = strrchr(e->fullname, '/');
    papi_copy(e->address_info.name, sizeof e->address_info.name, base ? base + 1 : e->fullname);
    dl_iterate_phdr(exe_cb, e);
    return e;
}

static int shlib_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0; /* the program, or an unnamed object */
    if (shlib_info.count == shlib_cap) {
        int ncap = shlib_cap ? 2 * shlib_cap : 32;
        PAPI_address_map_t *m = realloc(shlib_maps, (size_t)ncap * sizeof *m);
        if (!m)
            return 1;
        shlib_maps = m;
        shlib_cap = ncap;
    }
    PAPI_address_map_t *map = &shlib_maps[shlib_info.count];
    memset(map, 0, sizeof *map);
    papi_copy(map->name, sizeof map->name, info->dlpi_name);
    ranges_of(info, map);
    if (!map->text_start)
        return 0; /* nothing executable: not a library in PAPI's sense */
    shlib_info.count++;
    return 0;
}

/* Rebuilt at every call, so libraries loaded with dlopen show up. */
const PAPI_shlib_info_t *PAPI_get_shared_lib_info(void)
{
    if (!papi_inited())
        return NULL;
    pthread_mutex_lock(&papi_mutex);
    shlib_info.count = 0;
    dl_iterate_phdr(shlib_cb, NULL);
    shlib_info.map = shlib_maps;
    pthread_mutex_unlock(&papi_mutex);
    return &shlib_info;
}

/* Called with papi_mutex held. */
void papi_sysinfo_shutdown(void)
{
    free(shlib_maps);
    shlib_maps = NULL;
    shlib_cap = 0;
    shlib_info.count = 0;
    shlib_info.map = NULL;
}

/* ------------------------------------------------------------ dynamic memory */

int PAPI_get_dmem_info(PAPI_dmem_info_t *d)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!d)
        return papi_ret(PAPI_EINVAL);
    static const struct {
        const char *key; /* /proc/self/status line, values in kB */
        size_t off;
    } fields[] = {
        { "VmPeak:", offsetof(PAPI_dmem_info_t, peak) },
        { "VmSize:", offsetof(PAPI_dmem_info_t, size) },
        { "VmRSS:", offsetof(PAPI_dmem_info_t, resident) },
        { "VmHWM:", offsetof(PAPI_dmem_info_t, high_water_mark) },
        { "RssFile:", offsetof(PAPI_dmem_info_t, shared) },
        { "VmExe:", offsetof(PAPI_dmem_info_t, text) },
        { "VmLib:", offsetof(PAPI_dmem_info_t, library) },
        { "VmData:", offsetof(PAPI_dmem_info_t, heap) },
        { "VmLck:", offsetof(PAPI_dmem_info_t, locked) },
        { "VmStk:", offsetof(PAPI_dmem_info_t, stack) },
        { "VmPTE:", offsetof(PAPI_dmem_info_t, pte) },
    };
    /* PAPI marks what the system does not tell with PAPI_EINVAL */
    long long *all = (long long *)d;
    for (size_t i = 0; i < sizeof *d / sizeof *all; i++)
        all[i] = PAPI_EINVAL;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return papi_ret(PAPI_ESYS);
    char line[256];
    while (fgets(line, sizeof line, f))
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
            size_t n = strlen(fields[i].key);
            if (strncmp(line, fields[i].key, n) == 0)
                *(long long *)((char *)d + fields[i].off) = atoll(line + n);
        }
    fclose(f);
    d->pagesize = sysconf(_SC_PAGESIZE);
    return PAPI_OK;
}

/* ------------------------------------------------------------ devices */

/* Device types in PAPI's order (PAPI_DEV_TYPE_ID__*): hpm's CPU (modeled
 * or real), and the GPUs PAPI's sysdetect also lists, none here, as its
 * own lists them on a machine without them (a count of 0 and why).
 * Enumeration is a cursor over the types the modifier asks for that wraps:
 * after the last one it answers PAPI_EINVAL once (the end, not an error:
 * nothing is printed) and starts over, so programs can loop more than once. */
static const struct dev_type {
    int id;
    int vendor;
    const char *name, *status;
} dev_types[] = {
    { PAPI_DEV_TYPE_ID__CPU, 0, NULL, "Device Initialized" },
    { PAPI_DEV_TYPE_ID__CUDA, PAPI_VENDOR_UNKNOWN, "NVIDIA",
      "CUDA not configured, no CUDA device available" },
    { PAPI_DEV_TYPE_ID__ROCM, PAPI_VENDOR_AMD, "AMD/ATI",
      "ROCm not configured, no ROCm device available" },
};
#define N_DEV_TYPES (int)(sizeof dev_types / sizeof dev_types[0])
static int dev_cursor;

int PAPI_enum_dev_type(int enum_modifier, void **handle)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!handle)
        return papi_ret(PAPI_EINVAL);
    while (dev_cursor < N_DEV_TYPES) {
        const struct dev_type *t = &dev_types[dev_cursor++];
        if (enum_modifier & (1 << t->id)) {
            *handle = (void *)t;
            return PAPI_OK;
        }
    }
    dev_cursor = 0;
    return PAPI_EINVAL;
}

static const struct dev_type *dev_type_of(const void *handle)
{
    for (int i = 0; i < N_DEV_TYPES; i++)
        if (handle == &dev_types[i])
            return &dev_types[i];
    return NULL;
}

int PAPI_get_dev_type_attr(void *handle, PAPI_dev_type_attr_e attr, void *value)
{
    const struct dev_type *t = dev_type_of(handle);
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!t || !value)
        return papi_ret(PAPI_EINVAL);
    int cpu = t->id == PAPI_DEV_TYPE_ID__CPU;
    switch (attr) {
    case PAPI_DEV_TYPE_ATTR__INT_PAPI_ID:
        *(int *)value = t->id;
        return PAPI_OK;
    case PAPI_DEV_TYPE_ATTR__INT_VENDOR_ID:
        *(int *)value = cpu ? papi_hw_info.vendor : t->vendor;
        return PAPI_OK;
    case PAPI_DEV_TYPE_ATTR__CHAR_NAME:
        *(const char **)value = cpu ? papi_hw_info.vendor_string : t->name;
        return PAPI_OK;
    case PAPI_DEV_TYPE_ATTR__INT_COUNT:
        *(int *)value = cpu ? 1 : 0;
        return PAPI_OK;
    case PAPI_DEV_TYPE_ATTR__CHAR_STATUS:
        *(const char **)value = t->status;
        return PAPI_OK;
    }
    return papi_ret(PAPI_EINVAL);
}

/* A cache of the hierarchy: level (1..3) and kind ('I', 'D', 'U'). */
static const PAPI_mh_cache_info_t *cache_of(int level, int kind)
{
    static const PAPI_mh_cache_info_t none;
    const PAPI_mh_info_t *mh = &papi_hw_info.mem_hierarchy;
    if (level < 1 || level > mh->levels)
        return &none;
    for (int i = 0; i < PAPI_MH_MAX_LEVELS; i++) {
        const PAPI_mh_cache_info_t *c = &mh->level[level - 1].cache[i];
        if (PAPI_MH_CACHE_TYPE(c->type) == kind)
            return c;
    }
    return &none;
}

/* CPU attributes as data: which cache and which field, or a hw_info field. */
enum dev_field { F_SIZE, F_LINE, F_LINES, F_ASSOC, F_HW };
static const struct {
    PAPI_dev_attr_e attr;
    int level, kind;
    enum dev_field field;
    size_t hw_off; /* F_HW: offset of an int in PAPI_hw_info_t */
} cpu_attrs[] = {
    { PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE, 1, PAPI_MH_TYPE_INST, F_SIZE, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_SIZE, 1, PAPI_MH_TYPE_DATA, F_SIZE, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_SIZE, 2, PAPI_MH_TYPE_UNIFIED, F_SIZE, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_SIZE, 3, PAPI_MH_TYPE_UNIFIED, F_SIZE, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_LINE_SIZE, 1, PAPI_MH_TYPE_INST, F_LINE, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_LINE_SIZE, 1, PAPI_MH_TYPE_DATA, F_LINE, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_LINE_SIZE, 2, PAPI_MH_TYPE_UNIFIED, F_LINE, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_LINE_SIZE, 3, PAPI_MH_TYPE_UNIFIED, F_LINE, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_LINE_COUNT, 1, PAPI_MH_TYPE_INST, F_LINES, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_LINE_COUNT, 1, PAPI_MH_TYPE_DATA, F_LINES, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_LINE_COUNT, 2, PAPI_MH_TYPE_UNIFIED, F_LINES, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_LINE_COUNT, 3, PAPI_MH_TYPE_UNIFIED, F_LINES, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_ASSOC, 1, PAPI_MH_TYPE_INST, F_ASSOC, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_ASSOC, 1, PAPI_MH_TYPE_DATA, F_ASSOC, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_ASSOC, 2, PAPI_MH_TYPE_UNIFIED, F_ASSOC, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_ASSOC, 3, PAPI_MH_TYPE_UNIFIED, F_ASSOC, 0 },
    { PAPI_DEV_ATTR__CPU_UINT_SOCKET_COUNT, 0, 0, F_HW, offsetof(PAPI_hw_info_t, sockets) },
    { PAPI_DEV_ATTR__CPU_UINT_NUMA_COUNT, 0, 0, F_HW, offsetof(PAPI_hw_info_t, nnodes) },
    { PAPI_DEV_ATTR__CPU_UINT_CORE_COUNT, 0, 0, F_HW, offsetof(PAPI_hw_info_t, cores) },
    { PAPI_DEV_ATTR__CPU_UINT_THREAD_COUNT, 0, 0, F_HW, offsetof(PAPI_hw_info_t, totalcpus) },
    { PAPI_DEV_ATTR__CPU_UINT_FAMILY, 0, 0, F_HW, offsetof(PAPI_hw_info_t, cpuid_family) },
    { PAPI_DEV_ATTR__CPU_UINT_MODEL, 0, 0, F_HW, offsetof(PAPI_hw_info_t, cpuid_model) },
    { PAPI_DEV_ATTR__CPU_UINT_STEPPING, 0, 0, F_HW, offsetof(PAPI_hw_info_t, cpuid_stepping) },
    { PAPI_DEV_ATTR__CPU_UINT_THR_PER_NUMA, 0, 0, F_HW, offsetof(PAPI_hw_info_t, ncpu) },
};

int PAPI_get_dev_attr(void *handle, int id, PAPI_dev_attr_e attr, void *value)
{
    const struct dev_type *t = dev_type_of(handle);
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!t || t->id != PAPI_DEV_TYPE_ID__CPU || id < 0 || !value)
        return papi_ret(PAPI_EINVAL);
    /* id is a thread for the affinity, a NUMA node for its memory, else
     * the CPU device (one) */
    if (attr == PAPI_DEV_ATTR__CPU_UINT_THR_NUMA_AFFINITY) {
        if (id >= papi_hw_info.totalcpus)
            return papi_ret(PAPI_EINVAL);
        *(unsigned *)value = 0; /* one NUMA node */
        return PAPI_OK;
    }
    if (attr == PAPI_DEV_ATTR__CPU_UINT_NUMA_MEM_SIZE) {
        if (id >= papi_hw_info.nnodes)
            return papi_ret(PAPI_EINVAL);
        *(unsigned *)value = memory_mb; /* MB, as PAPI's sysdetect */
        return PAPI_OK;
    }
    if (id != 0)
        return papi_ret(PAPI_EINVAL);
    if (attr == PAPI_DEV_ATTR__CPU_CHAR_NAME) {
        *(const char **)value = papi_hw_info.model_string;
        return PAPI_OK;
    }
    for (size_t i = 0; i < sizeof cpu_attrs / sizeof cpu_attrs[0]; i++) {
        if (cpu_attrs[i].attr != attr)
            continue;
        unsigned v = 0;
        if (cpu_attrs[i].field == F_HW) {
            v = (unsigned)*(const int *)((const char *)&papi_hw_info + cpu_attrs[i].hw_off);
        } else {
            const PAPI_mh_cache_info_t *c = cache_of(cpu_attrs[i].level, cpu_attrs[i].kind);
            const int by_field[] = { c->size, c->line_size, c->num_lines, c->associativity };
            v = (unsigned)by_field[cpu_attrs[i].field];
        }
        *(unsigned *)value = v;
        return PAPI_OK;
    }
    return papi_ret(PAPI_ENOSUPP);
}
