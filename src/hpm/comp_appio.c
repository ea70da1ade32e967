/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comp_appio.c - the appio component: PAPI's application I/O events
 * (PAPI's components/appio: "appio:::READ_BYTES", ...), read from the
 * virtual node's I/O unit (catalog unit "io", src/vpmu/vpmu_io.c), which
 * the tool counts from the program's system calls. PAPI's own appio wraps
 * the C library's read/write/open/... by symbol interposition; ours sees
 * the system calls themselves, so a read through readv, pread or fread
 * counts the same.
 *
 * Only under `hpm run` / `hpm count` (the virtual PMU), where the I/O
 * unit's codes are programmed; natively it is disabled with that reason.
 * Counts are the process's (node-wide UPC counts of the I/O kinds: one
 * process is one node), so any thread may read a set; a set's values are
 * differences of reads, as in sim.
 *
 * Events: every appio event our I/O unit counts exactly, plus the two
 * host-time ones PAPI's appio measures too (READ_USEC, WRITE_USEC: the
 * host's wall clock around the calls, as PAPI's are). Left out, since the
 * I/O unit does not count them: READ/WRITE_SHORT, _INTERRUPTED,
 * _WOULD_BLOCK, READ_EOF, the average block sizes, OPEN_FDS, SELECT_USEC,
 * the RECV_* group (the unit does not tell recv from read on a socket),
 * SOCK_*_ERR/_SHORT/_WOULD_BLOCK/_USEC, SEEK_ABS_STRIDE_SIZE, SEEK_USEC.
 * docs/events.md lists the mapping.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "catalog.h"
#include "hpm_client.h"
#include "hpm_internal.h"

/* An appio event: the sum of up to two I/O kinds, divided by div. */
struct appio_event {
    const char *name;
    const char *description;
    unsigned kind[2]; /* HPM_K_*; kind[1] == 0: none */
    unsigned div;
    int measured;
};

static const struct appio_event events[] = {
    {"READ_BYTES", "Bytes read (every read system call: read, readv, pread, recv, ...)",
     {HPM_K_IO_READ_BYTES, 0}, 1, 0},
    {"READ_CALLS", "Number of read calls (those the kernel failed included)",
     {HPM_K_IO_READS, HPM_K_IO_READ_ERRORS}, 1, 0},
    {"READ_ERR", "Number of read calls that resulted in an error", {HPM_K_IO_READ_ERRORS, 0}, 1,
     0},
    {"READ_USEC", "Real microseconds spent in reads (measured on the host)",
     {HPM_K_IO_READ_HOST_NS, 0}, 1000, 1},
    {"WRITE_BYTES", "Bytes written (every write system call: write, writev, pwrite, send, ...)",
     {HPM_K_IO_WRITE_BYTES, 0}, 1, 0},
    {"WRITE_CALLS", "Number of write calls (those the kernel failed included)",
     {HPM_K_IO_WRITES, HPM_K_IO_WRITE_ERRORS}, 1, 0},
    {"WRITE_ERR", "Number of write calls that resulted in an error", {HPM_K_IO_WRITE_ERRORS, 0},
     1, 0},
    {"WRITE_USEC", "Real microseconds spent in writes (measured on the host)",
     {HPM_K_IO_WRITE_HOST_NS, 0}, 1000, 1},
    {"OPEN_CALLS", "Number of open calls", {HPM_K_IO_OPENS, HPM_K_IO_OPEN_ERRORS}, 1, 0},
    {"OPEN_ERR", "Number of open calls that resulted in an error", {HPM_K_IO_OPEN_ERRORS, 0}, 1,
     0},
    {"SOCK_READ_BYTES", "Bytes read from sockets (read and recv calls)",
     {HPM_K_IO_SOCK_READ_BYTES, 0}, 1, 0},
    {"SOCK_READ_CALLS", "Number of read calls on sockets that succeeded",
     {HPM_K_IO_SOCK_READS, 0}, 1, 0},
    {"SOCK_WRITE_BYTES", "Bytes written to sockets (write and send calls)",
     {HPM_K_IO_SOCK_WRITE_BYTES, 0}, 1, 0},
    {"SOCK_WRITE_CALLS", "Number of write calls to sockets that succeeded",
     {HPM_K_IO_SOCK_WRITES, 0}, 1, 0},
    {"SEEK_CALLS", "Number of seek calls that succeeded", {HPM_K_IO_SEEKS, 0}, 1, 0},
};
#define N_EVENTS (sizeof events / sizeof events[0])

static struct {
    int n_codes;
    uint32_t codes[HPM_CAT_CODES];
    int16_t pos[HPM_K_COUNT]; /* position of a node kind's code in codes[], -1 */
} A;

static int appio_init(struct hpm_component_info *info, char *reason, size_t len)
{
    long n;
    unsigned i, k;
    memset(&A, 0, sizeof A);
    memset(A.pos, 0xff, sizeof A.pos);
    info->description = "application I/O (PAPI's appio events), from the virtual PMU's I/O unit "
                        "(under `hpm run`)";
    info->num_counters = 0;
    info->domains = info->default_domain = HPM_DOMAIN_USER;
    info->flags = HPM_COMP_MODELED;
    if (!HPM_VPMU_IS_RUNNING()) {
        snprintf(reason, len, "reads the I/O unit of the hpm virtual PMU: the program must run "
                              "under `hpm run` or `hpm count`");
        return HPM_ENOCOMP;
    }
    n = HPM_VPMU_EVENTS(A.codes, HPM_CAT_CODES);
    if (n < 0 || n > HPM_CAT_CODES)
        n = 0;
    A.n_codes = (int)n;
    for (i = 0; i < (unsigned)A.n_codes; i++) {
        unsigned kind;
        int core;
        if (hpm_catalog_decode(A.codes[i], &kind, &core) == 0 && core < 0)
            A.pos[kind] = (int16_t)i;
    }
    for (i = 0; i < N_EVENTS; i++)
        for (k = 0; k < 2; k++)
            if (events[i].kind[k] && A.pos[events[i].kind[k]] < 0) {
                snprintf(reason, len, "the virtual PMU does not count %s (hpm run -e ... left "
                                      "out the I/O unit)",
                         hpm_catalog_kind(events[i].kind[k])->name);
                return HPM_ENOCOMP;
            }
    info->num_events = (int)N_EVENTS;
    return HPM_OK;
}

static int appio_event_first(uint32_t *index)
{
    *index = 0;
    return HPM_OK;
}

static int appio_event_next(uint32_t *index)
{
    if (*index + 1 >= N_EVENTS)
        return HPM_ENOEVENT;
    ++*index;
    return HPM_OK;
}

static int appio_event_lookup(const char *name, uint32_t *index)
{
    unsigned i;
    for (i = 0; i < N_EVENTS; i++)
        if (strcasecmp(name, events[i].name) == 0) {
            *index = i;
            return HPM_OK;
        }
    return HPM_ENOEVENT;
}

static int appio_event_describe(uint32_t index, struct hpm_event_info *info)
{
    if (index >= N_EVENTS)
        return HPM_ENOEVENT;
    hpm__copy(info->name, sizeof info->name, events[index].name);
    hpm__copy(info->description, sizeof info->description, events[index].description);
    hpm__copy(info->units, sizeof info->units,
              events[index].div == 1000 ? "usec"
              : strstr(events[index].name, "BYTES") ? "bytes"
                                                     : "events");
    /* exact counts of the virtual node (node-wide: the process's); the
     * usec ones are the host's measurement */
    info->flags = HPM_EVENT_NODE_WIDE | (events[index].measured ? 0 : HPM_EVENT_MODELED);
    return HPM_OK;
}

/* ------------------------------------------------------------ sets */

struct appio_set {
    int n;
    uint32_t ev[HPM_COMP_MAX_EVENTS];
    uint64_t base[HPM_COMP_MAX_EVENTS];
};

static int appio_set_init(void *st)
{
    memset(st, 0, sizeof(struct appio_set));
    return HPM_OK;
}

static int appio_set_update(void *st, const uint32_t *ev, int n, const struct hpm_set_opts *o)
{
    struct appio_set *s = st;
    int i;
    if (o->attach || o->inherit)
        return HPM_ENOTSUP; /* this process's I/O only */
    if (!(o->domain & HPM_DOMAIN_USER))
        return HPM_ENOTSUP;
    for (i = 0; i < n; i++) {
        if (ev[i] >= N_EVENTS)
            return HPM_EINVAL;
        s->ev[i] = ev[i];
    }
    s->n = n;
    return HPM_OK;
}

/* The cumulative value of every event of the set. */
static int appio_now(const struct appio_set *s, uint64_t *v)
{
    uint64_t node[HPM_CAT_CODES];
    int i, k;
    if (HPM_VPMU_READ_EVENTS(node, A.n_codes, HPM_VPMU_SCOPE_NODE) != A.n_codes)
        return HPM_ESYS; /* never a made-up 0 */
    for (i = 0; i < s->n; i++) {
        const struct appio_event *e = &events[s->ev[i]];
        uint64_t sum = 0;
        for (k = 0; k < 2; k++)
            if (e->kind[k])
                sum += node[A.pos[e->kind[k]]];
        v[i] = sum;
    }
    return HPM_OK;
}

static int appio_reset(void *st)
{
    struct appio_set *s = st;
    return appio_now(s, s->base);
}

static int appio_start(void *st, uint64_t *native_failed)
{
    (void)native_failed; /* overflow is the core's software check */
    return appio_reset(st);
}

static int appio_read(void *st, int64_t *values)
{
    struct appio_set *s = st;
    uint64_t now[HPM_COMP_MAX_EVENTS];
    int i, rc = appio_now(s, now);
    if (rc != HPM_OK)
        return rc;
    /* the usec events: the difference of the ns totals, then divided, so
     * that reads add up to the total */
    for (i = 0; i < s->n; i++)
        values[i] = (int64_t)((now[i] - s->base[i]) / events[s->ev[i]].div);
    return HPM_OK;
}

static int appio_stop(void *st, int64_t *values)
{
    return appio_read(st, values);
}

static void appio_cleanup(void *st)
{
    (void)st;
}

const struct hpm_component hpm_comp_appio = {
    .name = "appio",
    .ci_flags = HPM_CI_FORK_LOCAL, /* the tool of a forked child counts its own I/O */
    .set_size = sizeof(struct appio_set),
    .init = appio_init,
    .shutdown = NULL,
    .event_first = appio_event_first,
    .event_next = appio_event_next,
    .event_lookup = appio_event_lookup,
    .event_describe = appio_event_describe,
    .set_init = appio_set_init,
    .set_update = appio_set_update,
    .set_overflow = NULL,
    .start = appio_start,
    .stop = appio_stop,
    .read = appio_read,
    .reset = appio_reset,
    .overflow_dispatch = NULL,
    .cleanup = appio_cleanup,
};
