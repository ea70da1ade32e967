/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm_internal.h - state shared by the files of libhpm's core: the component
 * table, event sets, the thread registry. Not installed.
 *
 * Locking. The one order of the library's locks, outermost first; a thread
 * holding one of them may take only those below it:
 *
 *   1. libpapi's papi_mutex (its set table), then a PAPI set's mutex
 *      (src/papi/papi_internal.h: the same scheme one layer up; libpapi
 *      calls libhpm with its set's mutex held, never the other way round)
 *   2. region.c's cfg_lock (region configuration)
 *   3. g_hpm.lock (a plain mutex): the set table, the thread list, the
 *      region configuration, init/shutdown
 *   4. a set's recursive mutex hpm_set.mu, taken while g_hpm.lock is held
 *      during the handle lookup (so a set cannot be destroyed under a caller)
 *      and kept for the operation, after g_hpm.lock is released
 *   5. leaves, which call nothing that locks: hpm_thread.rmu, overflow.c's
 *      install_lock, the components' own locks (comp_perf.c's P.lock)
 *
 * So no code may take g_hpm.lock while it holds a set's mutex: whatever an
 * operation on a set needs from the registry (the calling thread's record,
 * hpm__self()) is fetched before set_get(). The thread-exit destructor and
 * hpm__thread_stop_sets lock a set without g_hpm.lock: allowed (a lock may
 * be taken without the ones above it), and the set cannot go away there (a
 * running set cannot be destroyed; only its owner or hpm_shutdown stops it).
 * hpm__self_if_any() and the fast path of hpm__self() take no lock (the
 * record is the thread's own; hpm_shutdown's epoch is read atomically).
 *
 * The overflow signal handler takes no lock: it reaches the sets of its own
 * thread through hpm_thread.per[].running, and the owner blocks the signal while
 * it changes a set that has overflow; calls made from the user's handler
 * (hpm__tls.in_handler) skip the set lock for the same reason.
 */
#ifndef HPM_INTERNAL_H
#define HPM_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "component.h"
#include "hpm/hpm.h"

#define HPM_EXPORT __attribute__((visibility("default")))

/* Components in the table (component.h's list, counted) */
#define HPM_COMP_COUNT_ONE(c) +1
#define HPM_NCOMP (0 HPM_COMPONENTS(HPM_COMP_COUNT_ONE))
#define HPM_MAX_SETS 65536 /* handles 0 .. HPM_MAX_SETS-1 */
#define HPM_SET_CHUNK 256  /* the set table grows by chunks that never move */
/* Events of one set: the core's arrays hold up to the UPC's whole event
 * space (sim sets may use every counter of the units, component info
 * num_counters); the other components hold up to HPM_COMP_MAX_EVENTS. Any
 * position can overflow; an overflow mask has HPM_OVF_BITS bits, and
 * position i is bit HPM_OVF_BIT(i): of the positions that share a bit at
 * most one has a threshold (hpm_set_overflow: HPM_ECONFLICT), as a PMU's
 * overflow status register has one bit per counter. */
#define HPM_SET_MAX_EVENTS 1024
#define HPM_COMP_MAX_EVENTS 64
#define HPM_OVF_BITS 64
#define HPM_OVF_BIT(i) ((unsigned)(i) % HPM_OVF_BITS)
#define HPM_REGION_MAX_EVENTS 64 /* region events (one internal set per component) */

struct hpm_thread;

struct hpm_ovf {
    int64_t threshold; /* 0: none */
    unsigned flags;    /* HPM_OVERFLOW_* */
    int native_cfg;    /* the component said it can deliver it (set_overflow) */
    int native;        /* ... and does, this run (arming may still fail) */
    int64_t deadline;  /* next count that fires (software and count-checked) */
};

struct hpm_set {
    /* What PAPI_start and PAPI_stop of a pinned set read and write
     * (hpm_start_pinned, hpm_stop_pinned), first and together: two 32-byte
     * lines at the start of a 64-byte aligned block (hpm__set_new). On the
     * virtual PMU each of the program's data accesses is modeled, and one
     * to the line of the access before it is the cheapest kind. */
    int state;                             /* enum hpm_set_state */
    int comp;                              /* -1 while empty */
    int n;
    int n_ovf;                             /* positions with a threshold */
    int frozen_rc;                         /* the last stop could not read them */
    int comp_counters;                     /* comp's num_counters, copied as comp_shared */
    unsigned char foreign;                 /* opts.attach or opts.cpu: counts no
                                              thread of ours (one test where
                                              PAPI_start and PAPI_stop pass) */
    unsigned char holds_slot;              /* occupies owner->per[comp].running, or
                                              (HPM_CI_SHARED_COUNTERS) is on
                                              owner->per[comp].shared */
    /* comp's, copied when the set takes it (constant after hpm_init): its
     * sets share its counters (HPM_CI_SHARED_COUNTERS, num_counters > 0)
     * and it is enabled */
    unsigned char comp_shared;
    const struct hpm_component *c;
    void *cst;                             /* component state (c->set_size bytes) */
    struct hpm_thread *owner;              /* running: the thread that started it */
    struct hpm_set *next_shared;           /* the next set of owner->per[comp].shared */
    /* of the n_ovf positions, those checked on the timer and those found
     * from the counts in this run: 0 whenever n_ovf is (no run counts a
     * position without a threshold, n_ovf does not change while the set
     * runs, and every stop clears them) */
    int n_sw;
    int n_by_count;
    int handle;                            /* -1 for the internal sets of regions */
    pthread_mutex_t mu;                    /* recursive */
    hpm_event_t events[HPM_SET_MAX_EVENTS];
    unsigned ev_flags[HPM_SET_MAX_EVENTS]; /* HPM_EVENT_* */
    /* counts at the last stop; 32-byte aligned: copied two at a time
     * (hpm_stop_pinned), a pair never straddles a line */
    int64_t frozen[HPM_SET_MAX_EVENTS] __attribute__((aligned(32)));
    struct hpm_set_opts opts;
    int domain_explicit;                   /* hpm_set_domain was called */
    hpm_overflow_handler handler;
    struct hpm_ovf ovf[HPM_SET_MAX_EVENTS];
    int ovf_demoted;                       /* this run checks its thresholds in
                                              software: another running set of
                                              the thread holds native ones */
};

/* Region bookkeeping of one thread (region.c). */
struct hpm_region_rec;
struct hpm_region_frame;

struct hpm_thread {
    unsigned long id; /* hpm_thread_id() when registered */
    pid_t tid;
    int alive;
    /* per component, the three together (one 32-byte line: a start or
     * stop reads all three of its component's, each a modeled data access
     * on the virtual PMU) */
    struct __attribute__((aligned(32))) hpm_thread_comp {
        _Atomic(struct hpm_set *) running;
        /* HPM_CI_SHARED_COUNTERS components: every running set of the
         * thread, linked by next_shared, and the counters they take
         * together. Changed only by the thread itself (its sets are
         * thread-bound), one atomic pointer store at a time, so its
         * overflow handler always sees a whole list. */
        _Atomic(struct hpm_set *) shared;
        int counters_used;
    } per[HPM_NCOMP];
    /* software overflow timer (overflow.c) */
    int n_sw_sets;
    int timer_made;
    timer_t timer;
    /* regions (region.c); rmu guards recs against hpm_region_report */
    pthread_mutex_t rmu;
    struct hpm_region_rec *recs;
    struct hpm_region_frame *stack;
    int depth, stack_cap;
    struct hpm_set *rsets[HPM_NCOMP];
    struct hpm_thread *next;
};

struct hpm_comp_slot {
    struct hpm_component vec;      /* the table's entry, empty slots filled */
    const struct hpm_component *c; /* &vec: what the core calls */
    struct hpm_component_info info;
    char reason[256];
};

struct hpm_global {
    pthread_mutex_t lock;
    int initialized;
    unsigned epoch; /* bumped by every hpm_shutdown: stale thread pointers */
    struct hpm_comp_slot comp[HPM_NCOMP];
    struct hpm_set **chunks[HPM_MAX_SETS / HPM_SET_CHUNK];
    int n_chunks;
    struct hpm_thread *threads;
    unsigned long (*id_fn)(void);
    /* regions */
    int region_started; /* a region was begun: the event list is fixed */
    int region_n;
    hpm_event_t region_events[HPM_REGION_MAX_EVENTS];
    int region_configured;
};

extern struct hpm_global g_hpm;

/* The files of libhpm call each other without a cycle
 * (tests/common/no_cycles.sh), from the top down:
 *   core.c                      life cycle, threads (calls the ones below)
 *   region.c                    regions
 *   set.c                       sets
 *   events.c, machine_info.c    names, ids, machine, gates
 *   comp_*.c                    the components, reached through the table
 *   overflow.c                  the overflow signal and software timer
 *   state.c                     g_hpm, the calling thread's record
 *   util.c, parse.c             leaves */

/* state.c */
int hpm__check_init(void);
int hpm__comp_enabled(int comp);
/* The calling thread's record, created if needed (NULL: out of memory). */
struct hpm_thread *hpm__self(void);
/* The calling thread's state that the fast paths read, in one block: its
 * record (self; an epoch other than g_hpm.epoch means hpm_shutdown freed
 * it) and whether the overflow handler runs on it (in_handler, overflow.c).
 * One block: one offset to load for all three, in one cache line, where
 * each load of the program is a data access of the virtual PMU's models.
 * initial-exec: the signal handler reads it, and a dynamic TLS access
 * could allocate there. */
struct hpm_tls {
    struct hpm_thread *self;
    unsigned epoch;
    int in_handler;
};
extern __thread struct hpm_tls hpm__tls __attribute__((tls_model("initial-exec")));
/* Without creating it (signal context; inline: hpm_read's fast path, whose
 * instructions are added to the program's count on the virtual PMU). */
static inline struct hpm_thread *hpm__self_if_any(void)
{
    /* read once (the atomic load would make it read again); NULL where
     * the thread has none, whatever the epochs; no branch */
    struct hpm_thread *t = hpm__tls.self;
    return hpm__tls.epoch == __atomic_load_n(&g_hpm.epoch, __ATOMIC_ACQUIRE) ? t : NULL;
}
/* The calling thread no longer has a record (the record itself stays). */
void hpm__self_forget(void);
/* Its destructor (core.c's) stops a thread's sets at its exit. */
extern pthread_key_t hpm__exit_key;

/* set.c */
struct hpm_set *hpm__set_new(int handle);
void hpm__set_free(struct hpm_set *s);
int hpm__set_add(struct hpm_set *s, hpm_event_t e);
/* self: the calling thread's record (hpm__self(), made before s->mu was
 * taken); NULL when it could not be made. */
int hpm__set_start(struct hpm_set *s, struct hpm_thread *self, int take_slot);
int hpm__set_stop(struct hpm_set *s, int64_t *values);
/* In a child of fork(): the calling thread's running sets count from here. */
void hpm__sets_fork_child(struct hpm_thread *t);
/* ... and so do the running sets attached to a CPU (hpm_set_cpu: on no
 * thread's list), of components whose counts start over in a child. */
void hpm__cpu_sets_fork_child(void);
/* Overflow calls a stopping set is owed: thresholds its final counts passed
 * that no signal reported yet (components with HPM_CI_OVF_FROZEN, where the
 * signal comes at the next superblock boundary, after the stop's own read;
 * software positions, whose timer checks them only now and then). */
struct hpm_ovf_owed {
    hpm_overflow_handler handler;
    int handle;
    int n;                       /* 0: nothing owed */
    int64_t calls[HPM_OVF_BITS]; /* by mask bit */
};
void hpm__ovf_owed_collect(struct hpm_set *s, const int64_t *final, struct hpm_ovf_owed *owed);
/* A counter of component comp changed to value on the calling thread,
 * outside any signal (comp_sde.c: libsde's call): its running sets' handlers
 * get the positions whose native threshold that passed
 * (hpm_component.overflow_changed). */
void hpm__ovf_changed(const struct hpm_component *comp, uint32_t index, long long value);
void hpm__ovf_owed_deliver(struct hpm_ovf_owed *owed);
int hpm__set_read(struct hpm_set *s, int64_t *values);
void hpm__sets_destroy_all(void);
/* A thread is going away: stop what it runs (values are frozen; its region
 * sets are region.c's, hpm__regions_thread_exit). */
void hpm__thread_stop_sets(struct hpm_thread *t);

/* overflow.c */
int hpm__overflow_install(void);
/* Count one more/less running set with software-checked positions on the
 * calling thread (starts/stops its timer). */
int hpm__sw_timer_get(struct hpm_thread *t);
void hpm__sw_timer_put(struct hpm_thread *t);
void hpm__timer_delete(struct hpm_thread *t);
/* The virtual PMU's overflow upcall (overflow.c): si_code of the siginfo
 * the handlers get (no kernel signal has it); registering the calling
 * thread's entry with the tool returns 1 when it took it. */
#define HPM_SI_UPCALL (-0x4850)
int hpm__ovf_upcall_register(void);
/* Block/unblock the overflow signal (and the virtual PMU's upcall) on the
 * calling thread. */
void hpm__ovf_block(sigset_t *old);
void hpm__ovf_unblock(const sigset_t *old);
/* Software overflow tick in microseconds of thread CPU time. */
long hpm__sw_period_us(void);

/* region.c */
void hpm__regions_thread_exit(struct hpm_thread *t); /* stop its region sets */
void hpm__regions_free_thread(struct hpm_thread *t); /* ... and free its records */
void hpm__regions_reset(void);

/* util.c: helpers shared by every file */
void hpm__copy(char *dst, size_t len, const char *src);
int hpm__strcaseeq(const char *a, const char *b);
pid_t hpm__gettid(void);

#endif
