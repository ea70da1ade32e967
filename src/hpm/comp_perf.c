/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comp_perf.c - the perf component: Linux perf_event_open.
 *
 * Events:
 *   - software events, always (a table: TASK-CLOCK, CPU-CLOCK, PAGE-FAULTS,
 *     ...), each also under its perf_event.h name (PERF_COUNT_SW_TASK_CLOCK,
 *     as PAPI's perf component and libpfm4's "perf" PMU spell it);
 *   - hardware events where the PMU has them: the kernel's generic events
 *     (INSTRUCTIONS, CPU-CYCLES, ...; each probed) and every event of the
 *     core PMUs libpfm4 detects ("perf::skl::INST_RETIRED:ANY_P"), encoded
 *     by pfm_get_os_event_encoding; any other libpfm4 string is encoded on
 *     lookup and remembered.
 * The PMU is detected honestly: when PERF_COUNT_HW_INSTRUCTIONS cannot be
 * opened, no hardware event is offered, the component's description says
 * why, and looking a hardware event up gives HPM_ENOCOMP; the component
 * stays enabled for its software events.
 *
 * A set is one perf counter group read with PERF_FORMAT_GROUP and
 * TOTAL_TIME_ENABLED/RUNNING, or, multiplexed (hpm_set_multiplex), one group
 * per event so that the kernel time-slices them; values are scaled by
 * enabled/running whenever the kernel did not run a group all the time.
 * The fds are opened when the set starts, for the starting thread (or the
 * attached one), and kept for the next start by the same thread.
 * Overflow: sample_period = threshold and O_ASYNC with F_SETSIG
 * (hpm_overflow_signal()) and F_SETOWN_EX to the counting thread; the
 * signal's si_fd says which event.
 *
 * Under the virtual PMU a set of TASK-CLOCK alone is counted from the
 * thread's CPU clock instead (clock_served, below): no system call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hpm_client.h"
#include "hpm_internal.h"

struct perf_ev {
    const char *name;  /* "TASK-CLOCK" */
    const char *alias; /* "PERF_COUNT_SW_TASK_CLOCK" */
    const char *alias2;
    uint32_t type;
    uint64_t config;
    const char *units;
    const char *description;
};

static const struct perf_ev sw_events[] = {
    {"TASK-CLOCK", "PERF_COUNT_SW_TASK_CLOCK", NULL, PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_TASK_CLOCK, "ns", "CPU time the counted thread ran"},
    {"CPU-CLOCK", "PERF_COUNT_SW_CPU_CLOCK", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
     "ns", "CPU clock while the counted thread ran (high-resolution timer)"},
    {"PAGE-FAULTS", "PERF_COUNT_SW_PAGE_FAULTS", "FAULTS", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_PAGE_FAULTS, "events", "page faults"},
    {"MINOR-FAULTS", "PERF_COUNT_SW_PAGE_FAULTS_MIN", NULL, PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_PAGE_FAULTS_MIN, "events", "page faults served without I/O"},
    {"MAJOR-FAULTS", "PERF_COUNT_SW_PAGE_FAULTS_MAJ", NULL, PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_PAGE_FAULTS_MAJ, "events", "page faults that needed I/O"},
    {"CONTEXT-SWITCHES", "PERF_COUNT_SW_CONTEXT_SWITCHES", "CS", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CONTEXT_SWITCHES, "events", "context switches"},
    {"CPU-MIGRATIONS", "PERF_COUNT_SW_CPU_MIGRATIONS", "MIGRATIONS", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CPU_MIGRATIONS, "events", "moves of the counted thread to another CPU"},
    {"ALIGNMENT-FAULTS", "PERF_COUNT_SW_ALIGNMENT_FAULTS", NULL, PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_ALIGNMENT_FAULTS, "events", "unaligned accesses the kernel fixed up"},
    {"EMULATION-FAULTS", "PERF_COUNT_SW_EMULATION_FAULTS", NULL, PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_EMULATION_FAULTS, "events", "instructions the kernel emulated"},
};
#define N_SW ((uint32_t)(sizeof sw_events / sizeof sw_events[0]))

static const struct perf_ev hw_events[] = {
    {"CPU-CYCLES", "PERF_COUNT_HW_CPU_CYCLES", "CYCLES", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_CPU_CYCLES, "cycles", "core cycles (generic hardware event)"},
    {"INSTRUCTIONS", "PERF_COUNT_HW_INSTRUCTIONS", NULL, PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_INSTRUCTIONS, "events", "instructions retired (generic hardware event)"},
    {"CACHE-REFERENCES", "PERF_COUNT_HW_CACHE_REFERENCES", NULL, PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_CACHE_REFERENCES, "events", "last-level cache accesses (generic)"},
    {"CACHE-MISSES", "PERF_COUNT_HW_CACHE_MISSES", NULL, PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_CACHE_MISSES, "events", "last-level cache misses (generic)"},
    {"BRANCH-INSTRUCTIONS", "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "BRANCHES",
     PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "events",
     "branch instructions retired (generic)"},
    {"BRANCH-MISSES", "PERF_COUNT_HW_BRANCH_MISSES", NULL, PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BRANCH_MISSES, "events", "mispredicted branches (generic)"},
    {"BUS-CYCLES", "PERF_COUNT_HW_BUS_CYCLES", NULL, PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BUS_CYCLES, "cycles", "bus cycles (generic)"},
    {"STALLED-CYCLES-FRONTEND", "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", "IDLE-CYCLES-FRONTEND",
     PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles",
     "cycles the front end issued nothing (generic)"},
    {"STALLED-CYCLES-BACKEND", "PERF_COUNT_HW_STALLED_CYCLES_BACKEND", "IDLE-CYCLES-BACKEND",
     PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles",
     "cycles the back end retired nothing (generic)"},
    {"REF-CPU-CYCLES", "PERF_COUNT_HW_REF_CPU_CYCLES", "REF-CYCLES", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_REF_CPU_CYCLES, "cycles", "reference cycles, not scaled by frequency"},
};
#define N_HW ((uint32_t)(sizeof hw_events / sizeof hw_events[0]))

/* Index space: software 0.., generic hardware HW_BASE.., libpfm4 PFM_BASE.. */
#define HW_BASE 0x100u
#define PFM_BASE 0x10000u

#define NO_PMU_REASON "no hardware PMU: perf_event hardware events are not supported here"

/* A libpfm4 event, encoded once. */
struct pfm_ev {
    char *name; /* "skl::INST_RETIRED:ANY_P" */
    char *description;
    uint32_t type;
    uint64_t config, config1, config2;
};

static struct {
    int sw_ok[N_SW];
    int hw_ok[N_HW];
    int hw;       /* the hardware part works */
    int pfm_init; /* pfm_initialize succeeded */
    int num_counters;
    int clock; /* the tool reads the thread's CPU clock (HPM_VPMU_CLOCK) */
    char description[256];
    pthread_mutex_t lock; /* pfm table, libpfm4 calls */
    struct pfm_ev *pfm;
    uint32_t n_pfm, cap_pfm;
} P = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Incremented in the child of every fork: a run by the clock (below)
 * started before it counted a thread of the parent. */
static unsigned fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void count_fork(void)
{
    fork_gen++;
}

static void register_fork(void)
{
    (void)pthread_atfork(NULL, NULL, count_fork);
}

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group, unsigned long fl)
{
    return syscall(SYS_perf_event_open, a, pid, cpu, group, fl);
}

static int errno_status(int e)
{
    switch (e) {
    case EACCES:
    case EPERM:
        return HPM_EPERM;
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
        return HPM_ENOTSUP;
    case ENOSPC:
        return HPM_ECOUNTERS;
    case ESRCH:
        return HPM_EINVAL;
    case ENOMEM:
        return HPM_ENOMEM;
    default:
        return HPM_ESYS;
    }
}

/* Open one counting event on the calling thread (user mode) and close it. */
static int probe(uint32_t type, uint64_t config, int *err)
{
    struct perf_event_attr a;
    long fd;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        *err = errno;
        return 0;
    }
    close((int)fd);
    return 1;
}

/* ------------------------------------------------------------ libpfm4 */

static int pfm_add(const char *name, const char *desc, const struct perf_event_attr *a,
                   uint32_t *index)
{
    struct pfm_ev *e;
    if (P.n_pfm == P.cap_pfm) {
        uint32_t cap = P.cap_pfm ? P.cap_pfm * 2 : 256;
        struct pfm_ev *n;
        if (cap > 0xffffffu - PFM_BASE)
            return HPM_ENOMEM;
        n = realloc(P.pfm, cap * sizeof *n);
        if (!n)
            return HPM_ENOMEM;
        P.pfm = n;
        P.cap_pfm = cap;
    }
    e = &P.pfm[P.n_pfm];
    e->name = strdup(name);
    e->description = strdup(desc ? desc : "");
    if (!e->name || !e->description) {
        free(e->name);
        free(e->description);
        return HPM_ENOMEM;
    }
    e->type = a->type;
    e->config = a->config;
    e->config1 = a->config1;
    e->config2 = a->config2;
    *index = PFM_BASE + P.n_pfm++;
    return HPM_OK;
}

/* Encode a libpfm4 event string; 0 on success. */
static int pfm_encode(const char *name, struct perf_event_attr *a)
{
    pfm_perf_encode_arg_t arg;
    memset(a, 0, sizeof *a);
    memset(&arg, 0, sizeof arg);
    arg.attr = a;
    arg.size = sizeof arg;
    a->size = sizeof *a;
    return pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) ==
                   PFM_SUCCESS
               ? 0
               : -1;
}

/* Every event of the core PMUs libpfm4 detects on this host (not its
 * "perf" pseudo PMUs: the tables above are those). */
static void pfm_enumerate(void)
{
    int pmu;
    for (pmu = PFM_PMU_NONE + 1; pmu < PFM_PMU_MAX; pmu++) {
        pfm_pmu_info_t pi;
        int idx;
        memset(&pi, 0, sizeof pi);
        pi.size = sizeof pi;
        if (pfm_get_pmu_info((pfm_pmu_t)pmu, &pi) != PFM_SUCCESS || !pi.is_present)
            continue;
        if (pmu == PFM_PMU_PERF_EVENT || pmu == PFM_PMU_PERF_EVENT_RAW ||
            pi.type != PFM_PMU_TYPE_CORE)
            continue;
        if (pi.is_dfl || P.num_counters == 0)
            P.num_counters = pi.num_cntrs + pi.num_fixed_cntrs;
        for (idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
            pfm_event_info_t ei;
            struct perf_event_attr a;
            char full[HPM_NAME_MAX];
            uint32_t index;
            memset(&ei, 0, sizeof ei);
            ei.size = sizeof ei;
            if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT, &ei) != PFM_SUCCESS)
                continue;
            if (snprintf(full, sizeof full, "%s::%s", pi.name, ei.name) >= (int)sizeof full - 8)
                continue; /* "perf::" must still fit HPM_NAME_MAX */
            if (pfm_encode(full, &a) != 0)
                continue; /* needs a umask it has no default for */
            if (pfm_add(full, ei.desc, &a, &index) != HPM_OK)
                return;
        }
    }
}

/* ------------------------------------------------------------ component */

static int perf_init(struct hpm_component_info *info, char *reason, size_t len)
{
    uint32_t i;
    int err = 0, n = 0, any_sw = 0;
    FILE *f;
    int paranoid = -100;

    info->description = "Linux perf_event";
    (void)pthread_once(&fork_once, register_fork);
    P.clock = HPM_VPMU_IS_RUNNING() >= 8;
    memset(P.sw_ok, 0, sizeof P.sw_ok);
    memset(P.hw_ok, 0, sizeof P.hw_ok);
    P.hw = 0;
    P.num_counters = 0;
    f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1)
            paranoid = -100;
        fclose(f);
    }
    for (i = 0; i < N_SW; i++)
        any_sw |= P.sw_ok[i] = probe(sw_events[i].type, sw_events[i].config, &err);
    if (!any_sw) {
        if (err == ENOSYS)
            snprintf(reason, len, "perf_event_open is not available (kernel without perf events)");
        else if ((err == EACCES || err == EPERM) && paranoid != -100)
            snprintf(reason, len, "perf_event_open: %s (perf_event_paranoid is %d)",
                     strerror(err), paranoid);
        else
            snprintf(reason, len, "perf_event_open: %s", strerror(err));
        return errno_status(err);
    }
    for (i = 0; i < N_SW; i++)
        n += P.sw_ok[i];

    err = 0;
    P.hw = probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, &err);
    if (P.hw) {
        for (i = 0; i < N_HW; i++)
            n += P.hw_ok[i] = probe(hw_events[i].type, hw_events[i].config, &err);
        pthread_mutex_lock(&P.lock);
        if (!P.pfm_init)
            P.pfm_init = pfm_initialize() == PFM_SUCCESS;
        if (P.pfm_init && P.n_pfm == 0)
            pfm_enumerate();
        n += (int)P.n_pfm;
        pthread_mutex_unlock(&P.lock);
        snprintf(P.description, sizeof P.description,
                 "Linux perf_event: hardware events (generic and libpfm4 names) and software "
                 "events");
    } else {
        snprintf(P.description, sizeof P.description,
                 "Linux perf_event: software events only; hardware events disabled: "
                 NO_PMU_REASON " (perf_event_open: %s)",
                 strerror(err));
    }
    info->description = P.description;
    info->num_events = n;
    info->num_counters = P.hw ? P.num_counters : 0;
    info->domains = HPM_DOMAIN_ALL;
    info->default_domain = HPM_DOMAIN_USER;
    info->flags = HPM_COMP_OVERFLOW | HPM_COMP_MULTIPLEX | HPM_COMP_ATTACH | HPM_COMP_INHERIT;
    return HPM_OK;
}

static void perf_shutdown(void)
{
    uint32_t i;
    pthread_mutex_lock(&P.lock);
    for (i = 0; i < P.n_pfm; i++) {
        free(P.pfm[i].name);
        free(P.pfm[i].description);
    }
    free(P.pfm);
    P.pfm = NULL;
    P.n_pfm = P.cap_pfm = 0;
    /* pfm_terminate() would forget the PMUs; a later hpm_init() keeps them */
    pthread_mutex_unlock(&P.lock);
}

/* The attribute of an event index (type/config); 0 on success. */
static int ev_attr(uint32_t index, struct perf_event_attr *a)
{
    int rc = 0;
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    if (index < N_SW && P.sw_ok[index]) {
        a->type = sw_events[index].type;
        a->config = sw_events[index].config;
    } else if (index >= HW_BASE && index < HW_BASE + N_HW && P.hw && P.hw_ok[index - HW_BASE]) {
        a->type = hw_events[index - HW_BASE].type;
        a->config = hw_events[index - HW_BASE].config;
    } else {
        pthread_mutex_lock(&P.lock);
        if (index >= PFM_BASE && index - PFM_BASE < P.n_pfm) {
            const struct pfm_ev *e = &P.pfm[index - PFM_BASE];
            a->type = e->type;
            a->config = e->config;
            a->config1 = e->config1;
            a->config2 = e->config2;
        } else {
            rc = -1;
        }
        pthread_mutex_unlock(&P.lock);
    }
    return rc;
}

static int offered(uint32_t i)
{
    struct perf_event_attr a;
    return ev_attr(i, &a) == 0;
}

static int perf_event_next(uint32_t *index)
{
    uint32_t i = *index + 1;
    for (; i < N_SW; i++)
        if (offered(i)) {
            *index = i;
            return HPM_OK;
        }
    if (i < HW_BASE)
        i = HW_BASE;
    for (; i < HW_BASE + N_HW; i++)
        if (offered(i)) {
            *index = i;
            return HPM_OK;
        }
    if (i < PFM_BASE)
        i = PFM_BASE;
    if (offered(i)) {
        *index = i;
        return HPM_OK;
    }
    return HPM_ENOEVENT;
}

static int perf_event_first(uint32_t *index)
{
    uint32_t i;
    for (i = 0; i < N_SW; i++)
        if (offered(i)) {
            *index = i;
            return HPM_OK;
        }
    *index = N_SW - 1;
    return perf_event_next(index);
}

static int table_match(const struct perf_ev *e, const char *name)
{
    return hpm__strcaseeq(name, e->name) || hpm__strcaseeq(name, e->alias) ||
           (e->alias2 && hpm__strcaseeq(name, e->alias2));
}

static int perf_event_lookup(const char *name, uint32_t *index)
{
    uint32_t i;
    struct perf_event_attr a;
    int rc = HPM_ENOEVENT;
    for (i = 0; i < N_SW; i++)
        if (table_match(&sw_events[i], name)) {
            if (!P.sw_ok[i])
                return HPM_ENOCOMP;
            *index = i;
            return HPM_OK;
        }
    for (i = 0; i < N_HW; i++)
        if (table_match(&hw_events[i], name)) {
            if (!P.hw)
                return HPM_ENOCOMP; /* the hardware part is disabled here */
            if (!P.hw_ok[i])
                return HPM_ENOEVENT;
            *index = HW_BASE + i;
            return HPM_OK;
        }
    if (!P.hw)
        return HPM_ENOEVENT;
    pthread_mutex_lock(&P.lock);
    for (i = 0; i < P.n_pfm; i++) {
        const char *n = P.pfm[i].name, *bare = strstr(n, "::");
        if (hpm__strcaseeq(name, n) || (bare && hpm__strcaseeq(name, bare + 2))) {
            *index = PFM_BASE + i;
            rc = HPM_OK;
            break;
        }
    }
    /* a string with umasks or modifiers: encode it and remember it */
    if (rc != HPM_OK && P.pfm_init && strlen(name) < HPM_NAME_MAX - 8 && pfm_encode(name, &a) == 0)
        rc = pfm_add(name, "libpfm4 event", &a, index);
    pthread_mutex_unlock(&P.lock);
    return rc;
}

static int perf_event_describe(uint32_t index, struct hpm_event_info *info)
{
    const struct perf_ev *e = NULL;
    if (index < N_SW && P.sw_ok[index])
        e = &sw_events[index];
    else if (index >= HW_BASE && index < HW_BASE + N_HW && P.hw && P.hw_ok[index - HW_BASE])
        e = &hw_events[index - HW_BASE];
    if (e) {
        hpm__copy(info->name, sizeof info->name, e->name);
        hpm__copy(info->description, sizeof info->description, e->description);
        hpm__copy(info->units, sizeof info->units, e->units);
        info->flags = 0;
        return HPM_OK;
    }
    pthread_mutex_lock(&P.lock);
    if (index >= PFM_BASE && index - PFM_BASE < P.n_pfm) {
        hpm__copy(info->name, sizeof info->name, P.pfm[index - PFM_BASE].name);
        hpm__copy(info->description, sizeof info->description,
                  P.pfm[index - PFM_BASE].description);
        hpm__copy(info->units, sizeof info->units, "events");
        info->flags = 0;
        pthread_mutex_unlock(&P.lock);
        return HPM_OK;
    }
    pthread_mutex_unlock(&P.lock);
    return HPM_ENOEVENT;
}

/* ------------------------------------------------------------ sets */

struct perf_set {
    int n;
    struct perf_event_attr attr[HPM_COMP_MAX_EVENTS]; /* type/config of each event */
    int64_t period[HPM_COMP_MAX_EVENTS];              /* overflow threshold, 0: none */
    struct hpm_set_opts opts;
    int hw;          /* the set has hardware events */
    int fd[HPM_COMP_MAX_EVENTS];
    int leader[HPM_COMP_MAX_EVENTS]; /* position of each event's group leader */
    int open;        /* fds are open ... */
    pid_t open_tid;  /* ... for this thread (opts.attach or the starter) */
    int open_dirty;  /* the configuration changed since they were opened */
    uint64_t base_v[HPM_COMP_MAX_EVENTS], base_e[HPM_COMP_MAX_EVENTS], base_r[HPM_COMP_MAX_EVENTS];
    /* counted from the thread's CPU clock (clock_served) */
    int by_clock;                         /* this run is */
    const struct hpm_thread *clock_owner; /* the counted thread */
    int64_t clock_base;                   /* its clock at the start or reset */
    unsigned clock_gen;                   /* fork_gen then */
};

static void close_all(struct perf_set *s)
{
    int i;
    for (i = 0; i < HPM_COMP_MAX_EVENTS; i++) {
        if (s->fd[i] >= 0)
            close(s->fd[i]);
        s->fd[i] = -1;
    }
    s->open = 0;
}

static int perf_set_init(void *st)
{
    struct perf_set *s = st;
    int i;
    memset(s, 0, sizeof *s);
    for (i = 0; i < HPM_COMP_MAX_EVENTS; i++)
        s->fd[i] = -1;
    return HPM_OK;
}

/* Several groups: multiplexing, or inherit (the kernel cannot read an
 * inherited group as one). */
static int separate_groups(const struct perf_set *s)
{
    return s->opts.multiplex || s->opts.inherit;
}

/* Open every event for pid (0: the calling thread). The events stay
 * disabled until the leaders are enabled. */
static int open_all(struct perf_set *s, pid_t pid, int for_overflow)
{
    int i, sep = separate_groups(s);
    close_all(s);
    for (i = 0; i < s->n; i++) {
        struct perf_event_attr a = s->attr[i];
        int lead = sep ? i : 0;
        long fd;
        a.size = sizeof a;
        a.disabled = lead == i;
        a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                        PERF_FORMAT_TOTAL_TIME_RUNNING;
        a.exclude_user = !(s->opts.domain & HPM_DOMAIN_USER);
        a.exclude_kernel = !(s->opts.domain & HPM_DOMAIN_KERNEL);
        a.exclude_hv = 1;
        a.inherit = s->opts.inherit != 0;
        if (for_overflow && s->period[i] > 0) {
            a.sample_period = (uint64_t)s->period[i];
            a.sample_type = PERF_SAMPLE_IP;
            a.wakeup_events = 1;
        }
        fd = perf_open(&a, pid, -1, lead == i ? -1 : s->fd[lead], PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            close_all(s);
            return e == EINVAL && i > 0 && !sep ? HPM_ECONFLICT : errno_status(e);
        }
        s->fd[i] = (int)fd;
        s->leader[i] = lead;
    }
    return HPM_OK;
}

/* Route overflow signals of the sampling events to the calling thread. */
static int arm_async(struct perf_set *s)
{
    int i;
    for (i = 0; i < s->n; i++) {
        struct f_owner_ex own;
        if (s->period[i] <= 0)
            continue;
        own.type = F_OWNER_TID;
        own.pid = hpm__gettid();
        if (fcntl(s->fd[i], F_SETOWN_EX, &own) != 0 ||
            fcntl(s->fd[i], F_SETSIG, hpm_overflow_signal()) != 0 ||
            fcntl(s->fd[i], F_SETFL, fcntl(s->fd[i], F_GETFL) | O_ASYNC) != 0)
            return HPM_ESYS;
    }
    return HPM_OK;
}

/* Raw cumulative value, enabled and running time of every position.
 * Async-signal-safe. */
static int read_raw(const struct perf_set *s, uint64_t *v, uint64_t *ena, uint64_t *run)
{
    uint64_t buf[3 + HPM_COMP_MAX_EVENTS];
    int i, j;
    for (i = 0; i < s->n; i++) {
        ssize_t want, got;
        int members = 0;
        if (s->leader[i] != i)
            continue;
        for (j = i; j < s->n; j++)
            members += s->leader[j] == i;
        want = (ssize_t)((3 + (size_t)members) * sizeof(uint64_t));
        got = read(s->fd[i], buf, sizeof buf);
        if (got < want || buf[0] != (uint64_t)members)
            return got < 0 ? HPM_ESYS : HPM_EBUG;
        for (j = i, members = 0; j < s->n; j++)
            if (s->leader[j] == i) {
                v[j] = buf[3 + members++];
                ena[j] = buf[1];
                run[j] = buf[2];
            }
    }
    return HPM_OK;
}

static int enable(const struct perf_set *s, unsigned long req)
{
    int i;
    for (i = 0; i < s->n; i++)
        if (s->leader[i] == i && ioctl(s->fd[i], req, PERF_IOC_FLAG_GROUP) != 0)
            return HPM_ESYS;
    return HPM_OK;
}

/* ------------------------------------------------------------ TASK-CLOCK by the clock
 *
 * Under the virtual PMU every perf_event call of the program is a system
 * call through Valgrind's syscall path (about 6 us for a read). A set of
 * TASK-CLOCK alone, started for the calling thread, is counted there from
 * the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), read by the tool
 * (HPM_VPMU_CLOCK, answered in the request's fast path): the quantity the
 * kernel's task clock counts, the CPU time of the thread. Under Valgrind
 * that is the host thread that runs the program's thread, so it includes
 * the simulator's own work for it (translation, the models), as perf's
 * task-clock of a program under Valgrind does. Another thread of the
 * process reads the kernel's CPU clock of the counted thread (a system
 * call, as perf's read is). Overflow, attach and inherit need the kernel's
 * counter: such sets use perf_event. A multiplexed set is served too (a
 * software counter never waits for a counter slot: the kernel does not
 * scale it). */

static int clock_served(const struct perf_set *s)
{
    return P.clock && s->n == 1 && s->attr[0].type == PERF_TYPE_SOFTWARE &&
           s->attr[0].config == PERF_COUNT_SW_TASK_CLOCK && !s->opts.attach &&
           !s->opts.inherit && s->period[0] == 0;
}

/* The kernel's CPU clock of thread tid, the id glibc's
 * pthread_getcpuclockid makes: the complemented tid above
 * CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED. */
static clockid_t thread_cpu_clock(pid_t tid)
{
    return (clockid_t)((~(unsigned)tid << 3) | 6u);
}

/* The counted thread's CPU clock now. In the child of a fork the thread
 * that forked is the child's one thread: a run it started counts it from
 * the fork (its clock starts at 0 there), as a counter opened in the child
 * would; the parent's other threads are not the child's (HPM_EINVAL). */
static int clock_now(struct perf_set *s, int64_t *ns)
{
    const struct hpm_thread *self = hpm__self_if_any();
    struct timespec ts;
    long v;
    if (s->clock_gen != fork_gen) {
        if (s->clock_owner != self)
            return HPM_EINVAL;
        s->clock_base = 0;
        s->clock_gen = fork_gen;
    }
    if (s->clock_owner == self) {
        v = HPM_VPMU_CLOCK(CLOCK_THREAD_CPUTIME_ID);
        if (v < 0)
            return HPM_ESYS;
        *ns = v;
        return HPM_OK;
    }
    if (clock_gettime(thread_cpu_clock(s->clock_owner->tid), &ts) != 0)
        return HPM_EINVAL; /* no such thread here */
    *ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return HPM_OK;
}

static int clock_start(struct perf_set *s)
{
    s->clock_gen = fork_gen;
    return clock_now(s, &s->clock_base);
}

static int clock_read(struct perf_set *s, int64_t *values)
{
    int64_t now;
    int rc = clock_now(s, &now);
    if (rc == HPM_OK)
        values[0] = now - s->clock_base;
    return rc;
}

/* Can the kernel schedule the group at all? Hardware groups larger than the
 * PMU open fine and then never run. */
static int schedulable(struct perf_set *s)
{
    uint64_t v[HPM_COMP_MAX_EVENTS], e[HPM_COMP_MAX_EVENTS], r[HPM_COMP_MAX_EVENTS];
    volatile unsigned spin;
    int i, rc = enable(s, PERF_EVENT_IOC_ENABLE);
    for (spin = 0; spin < 20000 && rc == HPM_OK; spin++)
        ;
    enable(s, PERF_EVENT_IOC_DISABLE);
    if (rc == HPM_OK)
        rc = read_raw(s, v, e, r);
    for (i = 0; i < s->n && rc == HPM_OK; i++)
        if (e[i] > 0 && r[i] == 0)
            rc = HPM_ECOUNTERS;
    return rc;
}

static int perf_set_update(void *st, const uint32_t *events, int n, const struct hpm_set_opts *o)
{
    struct perf_set *s = st;
    int i, rc;
    close_all(s);
    s->n = 0;
    s->hw = 0;
    for (i = 0; i < n; i++) {
        if (ev_attr(events[i], &s->attr[i]) != 0)
            return HPM_ENOEVENT;
        s->period[i] = 0;
        if (s->attr[i].type != PERF_TYPE_SOFTWARE)
            s->hw = 1;
    }
    s->n = n;
    s->opts = *o;
    if (n == 0)
        return HPM_OK;
    /* check now what the kernel will say at start: domain (paranoid),
     * attach permission, grouping, counters */
    rc = open_all(s, o->attach, 0);
    if (rc == HPM_OK && s->hw && !separate_groups(s) && !o->attach)
        rc = schedulable(s);
    close_all(s);
    return rc;
}

static int perf_set_overflow(void *st, int pos, int64_t threshold)
{
    struct perf_set *s = st;
    if (pos < 0 || pos >= s->n)
        return HPM_EINVAL;
    s->period[pos] = threshold;
    s->open_dirty = 1;
    return HPM_OK;
}

static int perf_reset(void *st)
{
    struct perf_set *s = st;
    if (s->by_clock)
        return clock_now(s, &s->clock_base);
    return read_raw(s, s->base_v, s->base_e, s->base_r);
}

static int perf_start(void *st, uint64_t *native_failed)
{
    struct perf_set *s = st;
    pid_t target;
    int rc, i, ovf = 0;
    (void)native_failed;
    /* the starting thread's record: hpm_start made it */
    s->clock_owner = hpm__self_if_any();
    s->by_clock = s->clock_owner && clock_served(s);
    if (s->by_clock)
        return clock_start(s);
    target = s->opts.attach ? s->opts.attach : hpm__gettid();
    for (i = 0; i < s->n; i++)
        ovf |= s->period[i] > 0;
    if (!s->open || s->open_tid != target || s->open_dirty) {
        rc = open_all(s, s->opts.attach, 1);
        if (rc != HPM_OK)
            return rc;
        s->open = 1;
        s->open_tid = target;
        s->open_dirty = 0;
        if (ovf && (rc = arm_async(s)) != HPM_OK) {
            close_all(s);
            return rc;
        }
    }
    rc = perf_reset(s);
    if (rc == HPM_OK)
        rc = enable(s, PERF_EVENT_IOC_ENABLE);
    return rc;
}

static int perf_read(void *st, int64_t *values)
{
    struct perf_set *s = st;
    uint64_t v[HPM_COMP_MAX_EVENTS], e[HPM_COMP_MAX_EVENTS], r[HPM_COMP_MAX_EVENTS];
    int i, rc;
    if (s->by_clock)
        return clock_read(s, values);
    rc = read_raw(s, v, e, r);
    if (rc != HPM_OK)
        return rc;
    for (i = 0; i < s->n; i++) {
        uint64_t dv = v[i] - s->base_v[i], de = e[i] - s->base_e[i], dr = r[i] - s->base_r[i];
        if (dr == de || de == 0) {
            values[i] = (int64_t)dv;
        } else if (dr == 0) {
            /* never ran: a multiplexed group waiting for its turn has no
             * estimate yet; a whole set that never ran has no counts */
            if (!s->opts.multiplex)
                return HPM_ECOUNTERS;
            values[i] = 0;
        } else {
            /* the kernel time-sliced the group: scale to the enabled time */
            values[i] = (int64_t)((long double)dv * (long double)de / (long double)dr);
        }
    }
    return HPM_OK;
}

/* perf_read for PAPI's long long values (hpm_pinned_reader: the
 * high-level API's regions read their TASK-CLOCK set at every begin and
 * end): the clock's count written in place, any other set copied. */
static int perf_read_ll(void *st, long long *values)
{
    struct perf_set *s = st;
    int64_t now, w[HPM_COMP_MAX_EVENTS];
    int i, rc;
    if (s->by_clock) {
        rc = clock_now(s, &now);
        if (rc == HPM_OK)
            values[0] = now - s->clock_base;
        return rc;
    }
    rc = perf_read(s, w);
    for (i = 0; rc == HPM_OK && i < s->n; i++)
        values[i] = w[i];
    return rc;
}

static int perf_stop(void *st, int64_t *values)
{
    struct perf_set *s = st;
    int rc = perf_read(s, values), rc2;
    if (s->by_clock)
        return rc; /* nothing to disable */
    rc2 = enable(s, PERF_EVENT_IOC_DISABLE);
    return rc != HPM_OK ? rc : rc2;
}

static uint64_t perf_overflow_dispatch(void *st, const siginfo_t *si)
{
    struct perf_set *s = st;
    uint64_t mask = 0;
    int i;
    if (si->si_code != POLL_IN && si->si_code != POLL_HUP)
        return 0;
    for (i = 0; i < s->n; i++)
        if (s->period[i] > 0 && s->fd[i] == si->si_fd)
            mask |= 1ull << i;
    return mask;
}

static void perf_cleanup(void *st)
{
    close_all(st);
}

const struct hpm_component hpm_comp_perf = {
    .name = "perf",
    .ci_flags = 0,
    .set_size = sizeof(struct perf_set),
    .init = perf_init,
    .shutdown = perf_shutdown,
    .event_first = perf_event_first,
    .event_next = perf_event_next,
    .event_lookup = perf_event_lookup,
    .event_describe = perf_event_describe,
    .set_init = perf_set_init,
    .set_update = perf_set_update,
    .set_overflow = perf_set_overflow,
    .start = perf_start,
    .stop = perf_stop,
    .read = perf_read,
    .read_ll = perf_read_ll,
    .reset = perf_reset,
    .overflow_dispatch = perf_overflow_dispatch,
    .cleanup = perf_cleanup,
};
