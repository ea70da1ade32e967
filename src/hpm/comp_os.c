/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comp_os.c - the os component: what the kernel already counts for a
 * process, from getrusage() and /proc/self/{stat,status,io}.
 *
 * Most events are per process (all threads; the descriptions say so); the
 * THREAD_* events are the calling thread's (RUSAGE_THREAD), which is why a
 * running os set belongs to the thread that started it. Levels (resident
 * memory, threads) are HPM_EVENT_INSTANT: read gives the current value.
 * The kernel does not split these counts by mode, and each event names what
 * it counts (user time and system time are separate events): a set's domain
 * does not filter them. Any domain is accepted, as PAPI's non-CPU components
 * do, so that a layer applying its default domain (PAPI_DOM_USER) to every
 * set can still count os events; the component info says HPM_DOMAIN_ALL.
 *
 * Reads are async-signal-safe (getrusage, open/read/close, parse.h), so
 * software overflow can read an os set from its timer signal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "hpm_internal.h"
#include "parse.h"

enum os_src {
    SRC_RU_SELF, /* getrusage(RUSAGE_SELF) */
    SRC_RU_THREAD,
    SRC_STATUS, /* /proc/self/status, "Key: value kB" */
    SRC_IO,     /* /proc/self/io, "key: value" */
    SRC_STAT,   /* /proc/self/stat, field number */
    SRC_COUNT
};

enum ru_field { RU_UTIME, RU_STIME, RU_MINFLT, RU_MAJFLT, RU_NVCSW, RU_NIVCSW };

struct os_event {
    const char *name;
    const char *description;
    const char *units;
    uint8_t src;
    uint8_t field;   /* enum ru_field, or the stat field number */
    const char *key; /* status / io key */
    unsigned flags;  /* HPM_EVENT_* */
};

#define PROC " of the whole process (all threads)"
static const struct os_event os_events[] = {
    {"USER_TIME", "CPU time in user mode" PROC ", getrusage RUSAGE_SELF", "ns", SRC_RU_SELF,
     RU_UTIME, NULL, 0},
    {"SYSTEM_TIME", "CPU time in the kernel" PROC ", getrusage RUSAGE_SELF", "ns", SRC_RU_SELF,
     RU_STIME, NULL, 0},
    {"MINOR_FAULTS", "page faults served without I/O" PROC, "events", SRC_RU_SELF, RU_MINFLT,
     NULL, 0},
    {"MAJOR_FAULTS", "page faults that needed I/O" PROC, "events", SRC_RU_SELF, RU_MAJFLT, NULL,
     0},
    {"VOLUNTARY_CONTEXT_SWITCHES", "context switches because a thread waited" PROC, "events",
     SRC_RU_SELF, RU_NVCSW, NULL, 0},
    {"INVOLUNTARY_CONTEXT_SWITCHES", "context switches because a thread was preempted" PROC,
     "events", SRC_RU_SELF, RU_NIVCSW, NULL, 0},
    {"THREAD_USER_TIME", "CPU time in user mode of the calling thread (RUSAGE_THREAD)", "ns",
     SRC_RU_THREAD, RU_UTIME, NULL, 0},
    {"THREAD_SYSTEM_TIME", "CPU time in the kernel of the calling thread (RUSAGE_THREAD)", "ns",
     SRC_RU_THREAD, RU_STIME, NULL, 0},
    {"THREAD_MINOR_FAULTS", "page faults served without I/O, calling thread", "events",
     SRC_RU_THREAD, RU_MINFLT, NULL, 0},
    {"THREAD_MAJOR_FAULTS", "page faults that needed I/O, calling thread", "events",
     SRC_RU_THREAD, RU_MAJFLT, NULL, 0},
    {"THREAD_VOLUNTARY_CONTEXT_SWITCHES", "voluntary context switches of the calling thread",
     "events", SRC_RU_THREAD, RU_NVCSW, NULL, 0},
    {"THREAD_INVOLUNTARY_CONTEXT_SWITCHES", "involuntary context switches of the calling thread",
     "events", SRC_RU_THREAD, RU_NIVCSW, NULL, 0},
    {"READ_CHARS", "bytes passed to read-like system calls" PROC " (/proc/self/io rchar)",
     "bytes", SRC_IO, 0, "rchar", 0},
    {"WRITE_CHARS", "bytes passed to write-like system calls" PROC " (/proc/self/io wchar)",
     "bytes", SRC_IO, 0, "wchar", 0},
    {"READ_SYSCALLS", "read-like system calls" PROC " (/proc/self/io syscr)", "events", SRC_IO,
     0, "syscr", 0},
    {"WRITE_SYSCALLS", "write-like system calls" PROC " (/proc/self/io syscw)", "events", SRC_IO,
     0, "syscw", 0},
    {"READ_BYTES", "bytes fetched from storage" PROC " (/proc/self/io read_bytes)", "bytes",
     SRC_IO, 0, "read_bytes", 0},
    {"WRITE_BYTES", "bytes sent to storage" PROC " (/proc/self/io write_bytes)", "bytes", SRC_IO,
     0, "write_bytes", 0},
    {"RESIDENT_MEMORY", "resident set size" PROC " now (/proc/self/status VmRSS; a level)",
     "bytes", SRC_STATUS, 0, "VmRSS", HPM_EVENT_INSTANT},
    {"PEAK_RESIDENT_MEMORY", "peak resident set size" PROC " (/proc/self/status VmHWM; a level)",
     "bytes", SRC_STATUS, 0, "VmHWM", HPM_EVENT_INSTANT},
    {"VIRTUAL_MEMORY", "virtual memory size" PROC " now (/proc/self/status VmSize; a level)",
     "bytes", SRC_STATUS, 0, "VmSize", HPM_EVENT_INSTANT},
    {"THREADS", "threads of the process now (/proc/self/stat num_threads; a level)", "threads",
     SRC_STAT, 20, NULL, HPM_EVENT_INSTANT},
};
#undef PROC
#define OS_NEV ((int)(sizeof os_events / sizeof os_events[0]))
_Static_assert(OS_NEV <= 64, "avail[] holds 64 events");

static const char *const src_path[SRC_COUNT] = {
    [SRC_STATUS] = "/proc/self/status",
    [SRC_IO] = "/proc/self/io",
    [SRC_STAT] = "/proc/self/stat",
};

static int src_ok[SRC_COUNT]; /* the source can be read here (init) */
static int avail[64];          /* the event is offered here (init) */

/* ------------------------------------------------------------ reading */

#define NPROC (SRC_COUNT - SRC_STATUS)
struct os_snap {
    struct rusage ru[2];   /* SRC_RU_SELF, SRC_RU_THREAD */
    char buf[NPROC][4096]; /* the /proc files, by src - SRC_STATUS */
    size_t len[NPROC];
};

static int read_file(const char *path, char *buf, size_t cap, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t r;
    size_t n = 0;
    if (fd < 0)
        return -1;
    while (n < cap && (r = read(fd, buf + n, cap - n)) > 0)
        n += (size_t)r;
    close(fd);
    *len = n;
    return n > 0 ? 0 : -1;
}

static int snap(unsigned srcs, struct os_snap *s)
{
    int i;
    if ((srcs & (1u << SRC_RU_SELF)) && getrusage(RUSAGE_SELF, &s->ru[0]) != 0)
        return HPM_ESYS;
    if ((srcs & (1u << SRC_RU_THREAD)) && getrusage(RUSAGE_THREAD, &s->ru[1]) != 0)
        return HPM_ESYS;
    for (i = SRC_STATUS; i < SRC_COUNT; i++)
        if ((srcs & (1u << i)) && read_file(src_path[i], s->buf[i - SRC_STATUS],
                                            sizeof s->buf[0], &s->len[i - SRC_STATUS]))
            return HPM_ESYS;
    return HPM_OK;
}

static int64_t tv_ns(const struct timeval *tv)
{
    return (int64_t)tv->tv_sec * 1000000000 + (int64_t)tv->tv_usec * 1000;
}

static int value(const struct os_snap *s, const struct os_event *e, int64_t *out)
{
    uint64_t v = 0;
    const struct rusage *ru;
    switch (e->src) {
    case SRC_RU_SELF:
    case SRC_RU_THREAD:
        ru = &s->ru[e->src == SRC_RU_THREAD];
        switch (e->field) {
        case RU_UTIME: *out = tv_ns(&ru->ru_utime); return HPM_OK;
        case RU_STIME: *out = tv_ns(&ru->ru_stime); return HPM_OK;
        case RU_MINFLT: *out = ru->ru_minflt; return HPM_OK;
        case RU_MAJFLT: *out = ru->ru_majflt; return HPM_OK;
        case RU_NVCSW: *out = ru->ru_nvcsw; return HPM_OK;
        default: *out = ru->ru_nivcsw; return HPM_OK;
        }
    case SRC_STATUS:
    case SRC_IO:
        if (hpm_parse_kv(s->buf[e->src - SRC_STATUS], s->len[e->src - SRC_STATUS], e->key,
                         &v) != 0)
            return HPM_ESYS;
        break;
    default:
        if (hpm_parse_stat_field(s->buf[e->src - SRC_STATUS], s->len[e->src - SRC_STATUS],
                                 e->field, &v) != 0)
            return HPM_ESYS;
        break;
    }
    *out = (int64_t)v;
    return HPM_OK;
}

/* ------------------------------------------------------------ component */

static int os_init(struct hpm_component_info *info, char *reason, size_t len)
{
    struct os_snap *s;
    struct rusage ru;
    int i, n = 0;
    static struct os_snap probe; /* init runs under g_hpm.lock: one at a time */
    s = &probe;
    memset(src_ok, 0, sizeof src_ok);
    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        snprintf(reason, len, "getrusage: %s", strerror(errno));
        return HPM_ESYS;
    }
    src_ok[SRC_RU_SELF] = 1;
    src_ok[SRC_RU_THREAD] = getrusage(RUSAGE_THREAD, &ru) == 0;
    for (i = SRC_STATUS; i < SRC_COUNT; i++)
        src_ok[i] = read_file(src_path[i], s->buf[i - SRC_STATUS], sizeof s->buf[0],
                              &s->len[i - SRC_STATUS]) == 0;
    /* an event is offered when its source reads and has its field (a kernel
     * without I/O accounting has no /proc/self/io) */
    for (i = 0; i < OS_NEV; i++) {
        int64_t v;
        avail[i] = src_ok[os_events[i].src] &&
                   (os_events[i].src <= SRC_RU_THREAD || value(s, &os_events[i], &v) == HPM_OK);
        n += avail[i];
    }
    info->description = "operating system counters: getrusage and /proc/self "
                        "(process-wide unless named THREAD_)";
    info->num_events = n;
    info->num_counters = 0;
    info->domains = HPM_DOMAIN_ALL;
    info->default_domain = HPM_DOMAIN_ALL;
    info->flags = 0;
    return HPM_OK;
}

static int offered(uint32_t i)
{
    return i < (uint32_t)OS_NEV && avail[i];
}

static int os_event_first(uint32_t *index)
{
    uint32_t i;
    for (i = 0; i < (uint32_t)OS_NEV; i++)
        if (offered(i)) {
            *index = i;
            return HPM_OK;
        }
    return HPM_ENOEVENT;
}

static int os_event_next(uint32_t *index)
{
    uint32_t i;
    for (i = *index + 1; i < (uint32_t)OS_NEV; i++)
        if (offered(i)) {
            *index = i;
            return HPM_OK;
        }
    return HPM_ENOEVENT;
}

static int os_event_lookup(const char *name, uint32_t *index)
{
    uint32_t i;
    for (i = 0; i < (uint32_t)OS_NEV; i++)
        if (hpm__strcaseeq(name, os_events[i].name)) {
            if (!offered(i))
                return HPM_ENOCOMP;
            *index = i;
            return HPM_OK;
        }
    return HPM_ENOEVENT;
}

static int os_event_describe(uint32_t index, struct hpm_event_info *info)
{
    if (index >= (uint32_t)OS_NEV)
        return HPM_ENOEVENT;
    hpm__copy(info->name, sizeof info->name, os_events[index].name);
    hpm__copy(info->description, sizeof info->description, os_events[index].description);
    hpm__copy(info->units, sizeof info->units, os_events[index].units);
    info->flags = os_events[index].flags;
    return HPM_OK;
}

/* ------------------------------------------------------------ sets */

struct os_set {
    int n;
    uint8_t ev[HPM_COMP_MAX_EVENTS];
    unsigned srcs;
    int64_t base[HPM_COMP_MAX_EVENTS];
};

static int os_set_init(void *st)
{
    memset(st, 0, sizeof(struct os_set));
    return HPM_OK;
}

static int os_set_update(void *st, const uint32_t *events, int n, const struct hpm_set_opts *o)
{
    struct os_set *s = st;
    int i;
    if (o->attach || o->inherit)
        return HPM_ENOTSUP; /* the domain is not a filter here (above) */
    s->srcs = 0;
    for (i = 0; i < n; i++) {
        if (events[i] >= (uint32_t)OS_NEV)
            return HPM_ENOEVENT;
        s->ev[i] = (uint8_t)events[i];
        s->srcs |= 1u << os_events[events[i]].src;
    }
    s->n = n;
    return HPM_OK;
}

/* Current raw values of every event of the set. */
static int raw(const struct os_set *s, int64_t *v)
{
    struct os_snap snapshot; /* on the stack: the signal handler calls this too */
    int i, rc = snap(s->srcs, &snapshot);
    if (rc != HPM_OK)
        return rc;
    for (i = 0; i < s->n; i++) {
        rc = value(&snapshot, &os_events[s->ev[i]], &v[i]);
        if (rc != HPM_OK)
            return rc;
    }
    return HPM_OK;
}

static int os_reset(void *st)
{
    struct os_set *s = st;
    return raw(s, s->base);
}

static int os_start(void *st, uint64_t *native_failed)
{
    (void)native_failed; /* os has no overflow of its own */
    return os_reset(st);
}

static int os_read(void *st, int64_t *values)
{
    struct os_set *s = st;
    int64_t v[HPM_COMP_MAX_EVENTS];
    int i, rc = raw(s, v);
    if (rc != HPM_OK)
        return rc;
    for (i = 0; i < s->n; i++)
        values[i] = (os_events[s->ev[i]].flags & HPM_EVENT_INSTANT) ? v[i] : v[i] - s->base[i];
    return HPM_OK;
}

static int os_stop(void *st, int64_t *values)
{
    return os_read(st, values);
}

static void os_cleanup(void *st)
{
    (void)st;
}

const struct hpm_component hpm_comp_os = {
    .name = "os",
    .ci_flags = HPM_CI_THREAD_BOUND | HPM_CI_FORK_LOCAL,
    .set_size = sizeof(struct os_set),
    .init = os_init,
    .shutdown = NULL,
    .event_first = os_event_first,
    .event_next = os_event_next,
    .event_lookup = os_event_lookup,
    .event_describe = os_event_describe,
    .set_init = os_set_init,
    .set_update = os_set_update,
    .set_overflow = NULL,
    .start = os_start,
    .stop = os_stop,
    .read = os_read,
    .reset = os_reset,
    .overflow_dispatch = NULL,
    .cleanup = os_cleanup,
};
