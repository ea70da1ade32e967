/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_own_reader.h - libpapi's one hook for the high-level API
 * (src/papi_hl), which otherwise uses PAPI's public API alone. Its region
 * sets are started, read, stopped and destroyed by their own thread and by
 * nothing else, so every region begin and end can read them through the
 * component's reader, without PAPI_read's look-up and lock, and take its
 * cycles and nanoseconds from one clock reading (on the virtual PMU each
 * instruction of a region call is added to the program's count, and costs
 * host time in the models). Inside libpapi only: libpapi.map exports
 * PAPI's names alone.
 */
#ifndef HPM_PAPI_OWN_READER_H
#define HPM_PAPI_OWN_READER_H

#include <stdint.h>

struct papi_own_reader {
    int (*read_ll)(void *ctx, long long *values); /* the events' values; NULL where */
    int (*read)(void *ctx, int64_t *values);      /* the component writes int64_t only */
    void *ctx;
    /* libpapi's generation when resolved: PAPI_shutdown moves *gen and
     * destroys every set, so a reader whose generation is not *gen's
     * must not be called (papi_own_reader_ok) */
    const unsigned *gen;
    unsigned generation;
};

/* The reader of EventSet: running, started by the calling thread, its
 * events its natives in order. Valid until the set stops and while
 * papi_own_reader_ok; a reader's negative return is libhpm's status (read
 * with PAPI_read then, for PAPI's). PAPI_EINVAL for any other set (read
 * it with PAPI_read). */
int papi_own_reader(int EventSet, struct papi_own_reader *r);

static inline int papi_own_reader_ok(const struct papi_own_reader *r)
{
    return r->gen && __atomic_load_n(r->gen, __ATOMIC_ACQUIRE) == r->generation;
}

/* PAPI_get_real_cyc's cycles at the monotonic time ns, a value of
 * PAPI_get_real_nsec: both from one reading. */
long long papi_real_cyc_at(long long ns);

#endif
