/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm.h - hpm's native counter API (libhpm).
 *
 * One API over every counter source. A source is a *component* (sim: the
 * virtual PMU, reached by client requests when the program runs under
 * `hpm run`/`hpm count`; perf: perf_event_open, hardware events where the
 * PMU has them and software events always; os: getrusage and /proc). A
 * component that cannot work here is listed as disabled with its reason;
 * it never stops the others from working.
 *
 * Events are named "COMPONENT::NAME" ("sim::INSTRUCTIONS",
 * "perf::TASK-CLOCK", "os::MINOR_FAULTS"), or by NAME alone, which means the
 * first enabled component (in hpm_component_info order) that has it. Names
 * are matched without regard to case.
 *
 * An event set holds events of one component; it counts for the thread that
 * starts it (or the thread or process it is attached to). At most one set
 * per component runs per thread at a time (HPM_ECONFLICT), except on the
 * virtual PMU (sim), whose sets share the UPC units' counters (component
 * info num_counters): there several sets run at once on a thread while
 * their events fit (HPM_ECOUNTERS otherwise), and one set may hold that many
 * events. Sets of other components hold up to 64 events. Only the first 64
 * positions of a set can overflow (the masks have 64 bits). Values are 64-bit counts since
 * the last start or reset; sets never report a disabled component's zeros.
 *
 * Every function returns HPM_OK (0), a non-negative result, or a negative
 * HPM_E* code; hpm_strerror() describes each. Thread-safe after hpm_init().
 */
#ifndef HPM_HPM_H
#define HPM_HPM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPM_API_VERSION 1

/* ------------------------------------------------------------ errors */

enum hpm_status {
    HPM_OK = 0,
    HPM_EINVAL = -1,       /* invalid argument */
    HPM_ENOMEM = -2,       /* out of memory */
    HPM_ESYS = -3,         /* a system call failed (errno says why) */
    HPM_ENOINIT = -4,      /* hpm_init() not called, or hpm_shutdown() since */
    HPM_ENOEVENT = -5,     /* no such event (or the end of an enumeration) */
    HPM_ENOCOMP = -6,      /* no such component, or it is disabled here */
    HPM_ECONFLICT = -7,    /* the events cannot be counted together (another
                              component's event, hardware constraints, or
                              another set of this component already running
                              on this thread) */
    HPM_ECOUNTERS = -8,    /* no counter left for this event (try multiplexing) */
    HPM_ENOSET = -9,       /* no such event set */
    HPM_ERUNNING = -10,    /* the set is running: stop it first */
    HPM_ENOTRUNNING = -11, /* the set is not running */
    HPM_EEXISTS = -12,     /* the event is already in the set */
    HPM_ENOTSUP = -13,     /* the component cannot do this (domain, attach,
                              overflow on this event, ...) */
    HPM_EPERM = -14,       /* the kernel refused (perf_event_paranoid, ptrace) */
    HPM_ENOREGION = -15,   /* region end without a matching begin */
    HPM_EBUG = -16,        /* internal error: a bug in hpm */
};
#define HPM_E_LAST HPM_EBUG

/* A sentence for any status code ("unknown error" for codes hpm never returns). */
const char *hpm_strerror(int status);

/* The host's clock `clock` (CLOCK_REALTIME, CLOCK_MONOTONIC,
 * CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID) in nanoseconds, 0 if
 * it cannot be read. Natively clock_gettime; under the virtual PMU the
 * tool reads it (HPM_VPMU_CLOCK): Valgrind gives a program no vDSO, so
 * each clock_gettime there is a system call through Valgrind's syscall
 * path (0.8 us), where a native program makes none. Needs no hpm_init. */
int64_t hpm_clock_ns(int clock);
/* CLOCK_MONOTONIC in cycles of the rate hpm_clock_set_mhz gave (1000 MHz
 * until then): hpm_clock_ns(CLOCK_MONOTONIC) * mhz / 1000, never backwards
 * in a thread while the rate stays. Under the virtual PMU, where
 * hpm_clock_ns reads CLOCK_MONOTONIC from the program's TSC, a reading
 * within the thread's window is the TSC's ticks scaled to cycles directly
 * (the same interpolation, in fewer instructions of the program). A new
 * rate holds in the calling thread at once, in the others from their next
 * window (at most 1 ms of ticks later); a rate outside (0, 10^6] MHz sets
 * 1000. */
void hpm_clock_set_mhz(double mhz);
int64_t hpm_clock_cycles(void);

/* ------------------------------------------------------------ life cycle */

/* Initialise libhpm and probe every component. Idempotent; returns the
 * number of enabled components (>= 0) or an error. */
int hpm_init(void);
/* Stop and destroy every set, shut the components down. */
void hpm_shutdown(void);
int hpm_is_initialized(void);

/* ------------------------------------------------------------ components */

/* Component flags. */
#define HPM_COMP_MODELED 0x01u   /* counts come from a model (the virtual PMU) */
#define HPM_COMP_OVERFLOW 0x02u  /* overflow interrupts from the counter source */
#define HPM_COMP_MULTIPLEX 0x04u /* can time-slice more events than counters */
#define HPM_COMP_ATTACH 0x08u    /* can count another thread or process */
#define HPM_COMP_INHERIT 0x10u   /* can include children created after start */
#define HPM_COMP_THREAD_BOUND 0x20u /* a running set counts its starting thread and
                                       only that thread may read, stop or reset it
                                       (sim): reads of one's own running set take
                                       no lock */
#define HPM_COMP_CPU 0x40u /* can count one CPU (every thread while it runs
                              there) instead of a thread: hpm_set_cpu (sim:
                              a modeled core) */

/* Counting domains. */
#define HPM_DOMAIN_USER 0x1u
#define HPM_DOMAIN_KERNEL 0x2u
#define HPM_DOMAIN_ALL (HPM_DOMAIN_USER | HPM_DOMAIN_KERNEL)

struct hpm_component_info {
    int id;                      /* index, 0 .. hpm_num_components()-1 */
    const char *name;            /* "sim", "perf", "os", "sde" */
    const char *description;
    int enabled;                 /* 1 when it can count here */
    const char *disabled_reason; /* why not, when enabled == 0; else NULL */
    int num_events;              /* events it offers here */
    int num_counters;            /* events one set can count at once without
                                    multiplexing (0: no limit); sim: the UPC
                                    units' counters, shared by the thread's
                                    running sets */
    unsigned domains;            /* HPM_DOMAIN_* it can honour */
    unsigned default_domain;
    unsigned flags;              /* HPM_COMP_* */
};

int hpm_num_components(void);
int hpm_component_info(int component, struct hpm_component_info *info);
/* Component id by name, or HPM_ENOCOMP. */
int hpm_component_find(const char *name);

/* ------------------------------------------------------------ events */

/* An event id: component in the top 8 bits, the component's own index in
 * the low 24. Never 0xffffffff. */
typedef uint32_t hpm_event_t;
#define HPM_EVENT_COMPONENT(e) ((int)((uint32_t)(e) >> 24))
#define HPM_EVENT_INDEX(e) ((uint32_t)(e) & 0xffffffu)
#define HPM_EVENT_MAKE(component, index) \
    ((hpm_event_t)(((uint32_t)(component) << 24) | ((uint32_t)(index) & 0xffffffu)))

#define HPM_NAME_MAX 128
#define HPM_DESCR_MAX 256

/* Event flags. */
#define HPM_EVENT_MODELED 0x01u   /* the value is modeled (virtual PMU), not measured */
#define HPM_EVENT_NODE_WIDE 0x02u /* counts the whole node, not the calling thread */
#define HPM_EVENT_INSTANT 0x04u   /* a level (e.g. resident memory), not a count:
                                     read gives the current value, not a delta */

struct hpm_event_info {
    hpm_event_t event;
    int component;
    char name[HPM_NAME_MAX];         /* full name: "sim::INSTRUCTIONS" */
    char description[HPM_DESCR_MAX];
    char units[16];                  /* "events", "cycles", "bytes", "ns", "pages" */
    unsigned flags;                  /* HPM_EVENT_* */
};

/* Resolve "COMPONENT::NAME" or "NAME". HPM_ENOEVENT if nothing has it,
 * HPM_ENOCOMP if only a disabled component would. */
int hpm_event_find(const char *name, hpm_event_t *event);
int hpm_event_info(hpm_event_t event, struct hpm_event_info *info);
/* Enumerate a component's events: first, then next until HPM_ENOEVENT. */
int hpm_event_first(int component, hpm_event_t *event);
int hpm_event_next(hpm_event_t *event);

/* ------------------------------------------------------------ event sets */

enum hpm_set_state { HPM_SET_STOPPED = 0, HPM_SET_RUNNING = 1 };

int hpm_set_create(int *set);                 /* *set receives a handle >= 0 */
int hpm_set_destroy(int set);                 /* stopped sets only */
/* Add an event: returns its position (>= 0) in the set's value array.
 * The first event fixes the set's component. */
int hpm_set_add(int set, hpm_event_t event);
int hpm_set_remove(int set, hpm_event_t event); /* later positions move down */
int hpm_set_size(int set);                    /* number of events */
int hpm_set_events(int set, hpm_event_t *events, int max); /* returns the number */
int hpm_set_component(int set);               /* component id, HPM_ENOEVENT if empty */
int hpm_set_state(int set);                   /* enum hpm_set_state */

/* Options; stopped sets only. */
int hpm_set_domain(int set, unsigned domain);   /* HPM_DOMAIN_*; default: component's */
int hpm_get_domain(int set, unsigned *domain);
int hpm_set_attach(int set, pid_t tid);         /* count tid instead of the caller; 0 detaches */
int hpm_set_inherit(int set, int on);           /* include children created after start */
int hpm_set_cpu(int set, int cpu);              /* count CPU cpu (HPM_COMP_CPU) instead of
                                                   the caller; -1 detaches */
int hpm_set_multiplex(int set, int on);         /* allow more events than counters,
                                                   time-sliced and scaled */

int hpm_start(int set);
/* How many sets of component run on the calling thread now (attached sets,
 * which count another thread, are not included). */
int hpm_thread_running(int component);
int hpm_stop(int set, int64_t *values);  /* values may be NULL */
int hpm_read(int set, int64_t *values);  /* counts since start or reset */
/* A running set that the calling thread started on a thread-bound
 * component (sim) can be read without hpm_read's look-up: *fn(*ctx, values)
 * reads as hpm_read(set, values) does, on this thread, until the set
 * stops (PAPI_read's fast path: on the virtual PMU a read's instructions
 * are added to the program's count). HPM_EINVAL when the set is not such a
 * set (read it with hpm_read). */
typedef int (*hpm_reader_t)(void *ctx, int64_t *values);
int hpm_read_direct(int set, hpm_reader_t *fn, void **ctx);
/* The same reader for a caller whose counts are long long (PAPI's values):
 * *fn writes long long, so the caller copies nothing. HPM_EINVAL also when
 * the set's component has no such reader (read with hpm_read_direct's). */
typedef int (*hpm_reader_ll_t)(void *ctx, long long *values);
int hpm_read_direct_ll(int set, hpm_reader_ll_t *fn, void **ctx);
/* The same reader writing nout linear sums of the set's counts instead of
 * the counts (PAPI's derived events): values[j] = the sum of coef * count
 * at pos over the terms whose out is j, wrapping modulo 2^64, for j below
 * nout (each j has a term). The reader keeps the terms until the set
 * changes; one read of the sums replaces the read and the program's own
 * sums (sim: the tool sums them in the read's request). HPM_EINVAL when the
 * set is not hpm_read_direct's, or a term is out of range or too many
 * (HPM_SUM_TERMS_MAX); HPM_ENOTSUP when its component cannot sum them. */
#define HPM_SUM_TERMS_MAX 256
struct hpm_sum_term {
    int pos, out;
    int64_t coef;
};
int hpm_read_direct_sums_ll(int set, const struct hpm_sum_term *terms, int nterms, int nout,
                            hpm_reader_ll_t *fn, void **ctx);
/* Start and stop without the set table's look-up and lock, for a caller
 * that keeps the set alive and makes no two calls on it at once for as long
 * as it uses the pin (libpapi: each PAPI set owns its hpm set and holds its
 * own lock over every call; PAPI_start and PAPI_stop on the virtual PMU add
 * their instructions to the program's count). hpm_set_pin resolves the
 * handle once; the pin is valid until the set is destroyed.
 * hpm_start_pinned is hpm_start, and with `alone` also refuses
 * (HPM_ECONFLICT) while the calling thread runs another set of the
 * component (PAPI's rule; hpm_thread_running without its own call), except
 * for a set attached to a process or a CPU, which counts no thread of ours;
 * hpm_stop_pinned is hpm_stop. A stopped set is on no thread's lists and
 * a running one is changed only by its owner, so neither takes the set's
 * lock where the calling thread is the one that may change it. */
struct hpm_set;
typedef struct hpm_set *hpm_pin_t;
int hpm_set_pin(int set, hpm_pin_t *pin);
int hpm_start_pinned(hpm_pin_t pin, int alone);
int hpm_stop_pinned(hpm_pin_t pin, int64_t *values);
/* hpm_read of a pinned set (one any thread may read: perf's): without the
 * table's lock, and without the set's where the caller started it. */
int hpm_read_pinned(hpm_pin_t pin, int64_t *values);
/* The reader of a pinned set that the calling thread started and runs, on
 * any component, for a caller that alone starts, reads, stops and destroys
 * the set (the high-level API's own sets): *fn(*ctx, values) reads as
 * hpm_read_pinned does, and *fn_ll (NULL where the component has none)
 * writes long long, until the set stops. HPM_EINVAL when the calling thread
 * does not run the set. */
int hpm_pinned_reader(hpm_pin_t pin, hpm_reader_t *fn, hpm_reader_ll_t *fn_ll, void **ctx);
/* values[i] += counts, and the counts start again: from that same reading
 * where the component can (sim: nothing between the read and the reset is
 * lost), else by a reset after the read */
int hpm_accum(int set, int64_t *values);
int hpm_reset(int set);
/* hpm_reset of a pinned set, and the counts themselves (values[i] =, not
 * +=) with the reset of hpm_accum: both as hpm_read_pinned, without the
 * table's lock and without the set's where the caller started it. */
int hpm_reset_pinned(hpm_pin_t pin);
int hpm_read_reset_pinned(hpm_pin_t pin, int64_t *values);
/* What those two do to a pinned set that the calling thread started and
 * runs on a thread-bound component (sim), without overflow, resolved once
 * for a caller that alone starts, resets and stops the set (PAPI_accum and
 * PAPI_reset of a program's own running set: on the virtual PMU their
 * instructions are added to the program's count): *read_reset(*ctx,
 * values) is hpm_read_reset_pinned and *reset(*ctx) hpm_reset_pinned,
 * until the set stops. No other thread may reset such a set. HPM_EINVAL
 * for any other set (call the two above), with nothing written. */
typedef int (*hpm_resetter_t)(void *ctx);
int hpm_pinned_resetters(hpm_pin_t pin, hpm_reader_t *read_reset, hpm_resetter_t *reset,
                         void **ctx);

/* ------------------------------------------------------------ overflow */

/* Called in signal context on the thread whose counter overflowed. pc is the
 * interrupted instruction address; overflow_mask has bit i % 64 set for each
 * set position i that passed its threshold (any position may overflow; of
 * the positions that share a bit only one may have a threshold at a time:
 * hpm_set_overflow, and an hpm_set_remove that would make two share one,
 * give HPM_ECONFLICT). */
typedef void (*hpm_overflow_handler)(int set, void *pc, uint64_t overflow_mask, void *ucontext);

#define HPM_OVERFLOW_FORCE_SOFTWARE 0x1u /* check on a profiling timer, not the counter */

/* Call handler each time event's count grows by threshold (> 0); threshold 0
 * removes it. Stopped sets only; the event must be in the set. The signal
 * used is hpm_overflow_signal(). */
int hpm_set_overflow(int set, hpm_event_t event, int64_t threshold, unsigned flags,
                     hpm_overflow_handler handler);
int hpm_overflow_signal(void);

/* ------------------------------------------------------------ regions */

/* Named, nestable regions per thread. Each region accumulates, per thread,
 * the counts of the region events between begin and end, and how often it
 * was entered. The region events are those of hpm_region_events(), else of
 * the environment variable HPM_REGION_EVENTS (comma-separated names), else a
 * default set. Under the virtual PMU the region is also passed to the tool,
 * so `hpm count` reports it too. */
int hpm_region_events(const char *comma_separated_names);
int hpm_region_begin(const char *name);
int hpm_region_end(const char *name); /* must name the innermost open region */
/* Counts of region name on the calling thread: up to max values (in
 * hpm_region_events order), the number of completed entries in *calls.
 * Returns the number of values. */
int hpm_region_read(const char *name, int64_t *values, int max, uint64_t *calls);
/* Every region of every thread, as JSON. */
int hpm_region_report(FILE *out);

/* ------------------------------------------------------------ threads */

/* Threads are known automatically; these exist for callers that want to
 * name threads with their own ids (PAPI_thread_init) or free per-thread
 * state early. */
int hpm_thread_init(unsigned long (*id_fn)(void));
unsigned long hpm_thread_id(void);
int hpm_thread_register(void);
int hpm_thread_unregister(void);

/* ------------------------------------------------------------ the machine */

#define HPM_MAX_CACHES 8

struct hpm_cache_info {
    int level;     /* 1, 2, 3 */
    char type;     /* 'I', 'D' or 'U' (unified) */
    uint64_t size; /* bytes */
    int line_size;
    int associativity; /* 0: fully associative */
    int shared;    /* shared by every core of the node */
};

struct hpm_machine_info {
    int modeled;           /* 1: the virtual PMU's machine model; 0: this host */
    char name[64];         /* machine model name, or the host's CPU model */
    char vendor[64];
    int cores;             /* cores per node */
    int threads_per_core;
    int sockets;
    double mhz;
    uint64_t memory_bytes;
    int n_caches;
    struct hpm_cache_info caches[HPM_MAX_CACHES];
    int itlb_entries, dtlb_entries;
    uint64_t page_size;
};

int hpm_machine_info(struct hpm_machine_info *info);

/* Gate the counting by where the program is (seed 004's start at an
 * address and trigger events), for every set; on the virtual PMU
 * (docs/vpmu.md, Gating), HPM_ENOTSUP elsewhere:
 *   HPM_GATE_START_AT  counting stops now, starts whenever code is reached
 *   HPM_GATE_STOP_AT   counting stops whenever code is reached
 *   HPM_GATE_ONLY      counts only while the function at code (its first
 *                      instruction) and what it calls run
 *   HPM_GATE_TRIGGER   counting stops now and starts after n more of event
 *                      (an exact per-thread event such as sim::INSTRUCTIONS)
 *   HPM_GATE_CLEAR     no gates; counting stays as it is */
enum hpm_gate {
    HPM_GATE_CLEAR = 0,
    HPM_GATE_START_AT = 1,
    HPM_GATE_STOP_AT = 2,
    HPM_GATE_ONLY = 3,
    HPM_GATE_TRIGGER = 4
};
int hpm_gate(int which, const void *code, hpm_event_t event, uint64_t n);

/* ------------------------------------------------ encoding (seed 004) */

/* The PM API's encoder on a machine's counter unit (src/encode; the machine
 * file's [counters], machines/README.md; NULL: the virtual PMU's, 256
 * counters a unit, counter c taking the catalog codes c + 256 k, as many
 * units as the events need). hpm_encode_events places the catalog events
 * names[0..n) (PU<n>_KIND or node kinds: one code each) in one
 * configuration where it can: unit, counter and block (k) per event, -1
 * for one it cannot place; pass: the event's pass when they take several
 * (*n_passes, 0 when some fit no configuration). HPM_OK when all fit one
 * configuration, HPM_ECOUNTERS when they take passes, HPM_ENOEVENT for a
 * name that is not one event (out[i].code -1), HPM_EINVAL for a machine
 * file that cannot be read. hpm_decode_counter is the decoder: the event
 * counter (of the unit) counts with block selected. */
struct hpm_encoded_event {
    int code;
    int unit, counter, block;
    int pass;
};
int hpm_encode_events(const char *machine_file, const char *const *names, int n,
                      struct hpm_encoded_event *out, int *n_passes);
int hpm_decode_counter(const char *machine_file, int counter, int block, char *name,
                       size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HPM_HPM_H */
