/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_hl_internal.h - state shared by the high-level API (papi_hl.c) and its
 * report writer (papi_hl_output.c). Nothing here is part of libpapi's
 * interface: the objects are built with hidden visibility, and only what
 * carries HL_EXPORT (or is declared in papi.h) leaves the library.
 */
#ifndef HPM_PAPI_HL_INTERNAL_H
#define HPM_PAPI_HL_INTERNAL_H

#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* papi.h pushes default visibility for what it declares; the functions it
 * does not declare (PAPI 6's extra high-level calls, the Fortran bindings)
 * must say so themselves, and so must everything when the system papi.h,
 * which has no such pragma, is the one in use. */
#define HL_EXPORT __attribute__((visibility("default")))

/* PAPI 6 had five more high-level calls; PAPI 7's papi.h dropped them but
 * programs written for 6 still call them, so libpapi keeps them. */
HL_EXPORT int PAPI_hl_init(void);
HL_EXPORT int PAPI_hl_cleanup_thread(void);
HL_EXPORT int PAPI_hl_finalize(void);
HL_EXPORT int PAPI_hl_set_events(const char *events);
HL_EXPORT void PAPI_hl_print_output(void);

/* A thread's lock over its regions: one word, 0 free, 1 held, 2 held with a
 * waiter (the futex mutex of Drepper's "Futexes Are Tricky"). Taken at
 * every region end, inside the counted window of an enclosing region and,
 * on the virtual PMU, in the program's count: an atomic exchange each way
 * where a pthread mutex pair is some 50 instructions. Only the report
 * writer ever waits on it. */
typedef struct {
    int w;
} hl_lock_t;
static inline void hl_lock(hl_lock_t *l)
{
    int c = 0;
    if (__atomic_compare_exchange_n(&l->w, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    while (__atomic_exchange_n(&l->w, 2, __ATOMIC_ACQUIRE) != 0)
        syscall(SYS_futex, &l->w, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}
static inline void hl_unlock(hl_lock_t *l)
{
    if (__atomic_exchange_n(&l->w, 0, __ATOMIC_RELEASE) == 2)
        syscall(SYS_futex, &l->w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* One event the high-level API records, in the order the user listed it. */
struct hl_event {
    char *name;  /* as spelled in PAPI_EVENTS: the key in the report */
    int code;    /* PAPI event code */
    int group;   /* index into hpm_hl.groups */
    int slot;    /* position of its value in a thread's value array */
    int instant; /* 1: the value at the end is recorded, not the difference */
};

/* The events of one component: one event set per thread counts them. */
struct hl_group {
    int cidx;
    int first_slot; /* its values occupy [first_slot, first_slot + nevents) */
    int nevents;
    int *codes;         /* [nevents], in slot order */
    char cmp_name[128]; /* component name, for the report */
};

/* What PAPI_hl_read recorded: the k-th read of every instance, summed. */
struct hl_read {
    long long cycles, nsec;
    long long *value; /* [hpm_hl.nevents] */
};

/* A region as the report shows it: every instance with the same name and
 * the same enclosing region in one thread, summed. */
struct hl_region {
    unsigned id;
    int parent; /* id of the enclosing region, -1 at top level */
    char *name;
    long long count; /* completed instances */
    int counted;     /* every instance had the event sets counting */
    long long cycles, nsec;
    long long *value;      /* [hpm_hl.nevents]: delta events summed; instant events summed too
                              (the report shows their average) */
    long long *vmin, *vmax; /* [hpm_hl.nevents]: per-instance extremes (instant events) */
    int nreads;
    struct hl_read *reads; /* [nreads] */
};

/* An open region instance on a thread's stack. */
struct hl_frame {
    struct hl_region *r;
    long long cyc0, ns0;
    long long *v0; /* [hpm_hl.nslots] at the beginning; owned by the stack slot */
    int nreads;
    int counted; /* the event sets were counting at the beginning */
};

struct hl_thread {
    struct hl_thread *next;
    hl_lock_t lock;       /* its regions, against the report writer */
    unsigned long tid;    /* kernel thread id: the key in the report */
    int *es;              /* [hpm_hl.ngroups] event sets, PAPI_NULL where none */
    struct papi_own_reader *rd; /* [hpm_hl.ngroups] each running set's reader
                                   (papi_own_reader.h); none: PAPI_read */
    int active;           /* regions may be marked: the sets were started, or
                             could not be and only times are recorded */
    int counting;         /* the event sets are started */
    long long *now;       /* [hpm_hl.nslots] scratch */
    struct hl_frame *stack;
    int depth, cap_stack;
    struct hl_region **regions;
    int nregions, cap_regions;
    struct hl_region *last; /* the region most recently begun: the likely next one */
    unsigned next_id;
};

enum hl_state { HL_UNINIT, HL_READY, HL_FAILED, HL_FINALIZED };

struct hl_global {
    pthread_mutex_t lock; /* initialisation, the thread list, the report */
    int verbose;
    struct hl_event *events;
    int nevents;
    struct hl_group *groups;
    int ngroups;
    int nslots;
    int multiplex;
    char *requested; /* PAPI_hl_set_events' list, preferred to PAPI_EVENTS */
    struct hl_thread *threads;
    /* For the report, taken at initialisation so that writing it at exit
     * calls nothing in the library. */
    int lib_version;
    char cpu_info[128];
    int max_mhz, min_mhz;
    struct timespec start; /* older measurement directories are renamed */
    int written;           /* the report file exists (later writes overwrite it) */
    char report_path[4096];
};

extern struct hl_global hpm_hl;

/* papi_hl_msg.c: "PAPI-HL KIND: ..." on stderr; only errors unless
 * hpm_hl.verbose */
void hpm_hl_msg(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* papi_hl_output.c: write the report (caller holds hpm_hl.lock). Returns 0, or
 * -1 after saying why on stderr. */
int hpm_hl_write_output(void);
void hpm_hl_write_json(FILE *f);

#endif
