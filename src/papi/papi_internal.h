/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_internal.h - shared state of libpapi's source files.
 *
 * libpapi is a thin layer: every counter, component and thread question is
 * answered by libhpm (include/hpm/hpm.h). What this layer adds is PAPI's
 * vocabulary: integer event codes, presets built from native events,
 * PAPI's error codes and event-set rules, and the system-information calls.
 *
 * Everything here is internal: the library is built with hidden visibility
 * and a version script, so only PAPI_* (and the Fortran names of
 * src/papi_hl) leave the shared object.
 */
#ifndef HPM_PAPI_INTERNAL_H
#define HPM_PAPI_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "hpm/hpm.h"
#include "papi.h"

/* ------------------------------------------------------------ errors */

/* Which call an hpm status came from: the same hpm code means different
 * things to PAPI depending on the operation (HPM_ECONFLICT while adding is
 * PAPI_ECNFLCT, while starting it is "another set is running": PAPI_EISRUN). */
enum papi_op {
    OP_ANY = 0,
    OP_ADD,
    OP_START,
    OP_STOP,
    OP_READ,
    OP_OPTION,
    OP_OVERFLOW,
    OP_NAME,
};

/* Map an hpm status (<= 0) to a PAPI one through the table in papi_common.c. */
int papi_from_hpm(int hpm_status, enum papi_op op);

/* Every public entry returns through this: it records the thread's last
 * error for PAPI_perror and honours PAPI_set_debug (print, or print and
 * exit). Returns its argument. */
int papi_ret(int status);

/* ------------------------------------------------------------ library state */

struct papi_component {
    struct hpm_component_info hpm;
    PAPI_component_info_t info; /* what PAPI_get_component_info returns */
    int user_disabled;          /* PAPI_disable_component before init */
    int default_domain;         /* PAPI_DOM_* for new sets */
    int default_granularity;
};

struct papi_library {
    int init_level; /* PAPI_*_INITED bits; 0 = not initialised */
    int debug;      /* PAPI_QUIET / PAPI_VERB_ECONT / PAPI_VERB_ESTOP */
    int ncomp;
    struct papi_component *comp;
    int default_mpx_ns;
    unsigned long (*thread_id_fn)(void);
    pid_t pid;      /* process that initialised the library (fork detection) */
    unsigned generation; /* bumped by every PAPI_shutdown: what was made
                            before (papi_rate.c's hidden set) is gone */
};

extern struct papi_library papi_lib;
/* Guards the event-set table and the thread registry.
 *
 * Lock order (the whole library's is in src/hpm/hpm_internal.h): papi_mutex,
 * then a set's papi_eventset.mu (taken while papi_mutex is held, during the
 * handle lookup, and kept for the call), then libhpm's locks (every hpm_*
 * call). Nothing takes papi_mutex while it holds a set's mutex. */
extern pthread_mutex_t papi_mutex;

static inline int papi_inited(void) { return papi_lib.init_level != 0; }

/* A component usable here: exists, enabled by hpm, not disabled by the user. */
int papi_component_usable(int cidx);

/* ------------------------------------------------------------ event codes */

/* A native code is PAPI_NATIVE_MASK | hpm event id. hpm ids keep the
 * component in bits 24..31; PAPI's bit 30 is the native flag, so the
 * component ids this layer can represent are 0..63 (hpm has three). */
static inline int papi_native_code(hpm_event_t e) { return (int)((uint32_t)e | 0x40000000u); }
static inline hpm_event_t papi_code_native(int code) { return (hpm_event_t)((uint32_t)code & 0xBFFFFFFFu); }
static inline int papi_code_is_preset(int code)
{
    return IS_PRESET(code) && (code & PAPI_PRESET_AND_MASK) < PAPI_END_idx;
}

/* Derivation kinds, as PAPI names them in PAPI_event_info_t.derived. */
enum papi_derived {
    NOT_DERIVED = 0,
    DERIVED_ADD,
    DERIVED_SUB,
    DERIVED_POSTFIX,
};
extern const char *const papi_derived_names[];

/* ------------------------------------------------------------ presets */

/* Static description of one preset (all 108, available or not). */
struct papi_preset_desc {
    const char *symbol;      /* "PAPI_TOT_INS" */
    const char *short_descr;
    const char *long_descr;
    unsigned categories;     /* PAPI_PRESET_BIT_* */
};
extern const struct papi_preset_desc papi_preset_descs[PAPI_END_idx];

/* How hpm counts a preset: one row of papi_presets.c's table. A preset may
 * have several rows; the first whose natives resolve to one usable
 * component wins. tests/papi_api/test_papi_presets.c checks every row. */
struct papi_preset_def {
    int idx;                   /* PAPI_xxx_idx */
    enum papi_derived derived;
    const char *natives;       /* comma-separated; order = N0, N1, ... */
    const char *postfix;       /* DERIVED_POSTFIX only */
    const char *needs;         /* comma-separated natives that must exist (not counted) */
    const char *note;
};
extern const struct papi_preset_def papi_preset_defs[];
extern const size_t papi_preset_ndefs;

/* A preset as resolved on this machine at PAPI_library_init. */
struct papi_preset {
    int available;
    int cidx;
    int nterms;
    hpm_event_t term[PAPI_MAX_INFO_TERMS];
    enum papi_derived derived;
    const char *postfix; /* DERIVED_POSTFIX: "N0|N1|-|" */
    const char *note;
};
extern struct papi_preset papi_presets[PAPI_END_idx];

void papi_presets_resolve(void);
int papi_preset_count(int cidx); /* available presets whose natives are in cidx */

/* A DERIVED_POSTFIX program compiled by src/formula, once, when its event
 * is added to a set; one that does not compile evaluates to 0. NULL: out of
 * memory. Free with free(). */
struct hpm_formula;
struct hpm_formula *papi_postfix_compile(const char *postfix);

/* Evaluate a derived value from its terms' counts; formula is the event's
 * compiled postfix program (DERIVED_POSTFIX only). */
long long papi_derive(enum papi_derived kind, const struct hpm_formula *formula,
                      const long long *terms, int n);
/* Whether the value papi_derive gives is constant + the sum of coef[k] *
 * terms[k] (mod 2^64) for all terms: NOT_DERIVED, DERIVED_ADD,
 * DERIVED_SUB, and a postfix program of sums, differences and products
 * with numbers. 1 and the coefficients if so, else 0. */
int papi_derive_linear(enum papi_derived kind, const struct hpm_formula *formula, int n,
                       int64_t *coef, int64_t *constant);

/* ------------------------------------------------------------ event sets */

struct papi_event {
    int code;                          /* what the caller added */
    int nterms;
    int pos[PAPI_MAX_INFO_TERMS];      /* positions in the set's native list */
    enum papi_derived derived;
    struct hpm_formula *formula;       /* DERIVED_POSTFIX: compiled at add (owned) */
    /* papi_derive_linear's answer, at add: a read is the sum, with no
     * copy of the terms and no program to run */
    int linear;
    int64_t constant, coef[PAPI_MAX_INFO_TERMS];
    int threshold;                     /* overflow threshold, 0 = none */
};

/* A set's lock: one word, 0 free, 1 held, 2 held with a waiter (the
 * futex mutex of Drepper's "Futexes Are Tricky"). Taking and releasing a
 * free one is an atomic exchange each: on the virtual PMU PAPI_start and
 * PAPI_stop take it inside the counted window, where a pthread mutex's
 * 50-odd instructions a pair were added to the program's count. */
typedef struct {
    int w;
} papi_lock_t;
void papi_lock_wait(papi_lock_t *l);
void papi_lock_wake(papi_lock_t *l);
static inline void papi_lock(papi_lock_t *l)
{
    int c = 0;
    if (!__atomic_compare_exchange_n(&l->w, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        papi_lock_wait(l);
}
static inline void papi_unlock(papi_lock_t *l)
{
    if (__atomic_exchange_n(&l->w, 0, __ATOMIC_RELEASE) == 2)
        papi_lock_wake(l);
}

/* Set structures are never freed: a destroyed set is kept for the next
 * PAPI_create_eventset (its lock stays valid), so a handle can be looked
 * up without papi_mutex: take the set's lock, then check that the handle
 * still names it (papi_eventset_get). */
struct papi_eventset {
    papi_lock_t mu; /* held by every call on the set (never nested) */
    /* What PAPI_start, PAPI_stop and PAPI_read of the thread's own set
     * read and write, first and together: the first 96 bytes of a 64-byte
     * aligned block (PAPI_create_eventset), in three 32-byte lines, where
     * on the virtual PMU an access to the line of the access before it is
     * the cheapest the models make. */
    int handle;
    int running;
    int nev;
    int nnat;
    /* every event is its own native, in order (no derived preset, no
     * shared native): a read is the natives as they are (set at start;
     * the events of a running set do not change) */
    unsigned char direct;
    /* direct and own_ok are known, and the set has events and a pin
     * (PAPI_start computes them once after any change of the events,
     * component or attachment: each change clears this) */
    unsigned char shape_known;
    unsigned char own_ok; /* a started set goes on own_running (thread-bound, not
                             attached to a thread or a CPU) */
    unsigned char reader_tried;    /* since the start (resolved at the first read) */
    unsigned char resetters_tried; /* since the start (resolved at the first accum
                                      or reset) */
    /* The four PAPI_start clears, in one line. This thread's own running
     * set (papi_eventset.c, own_running): read by reader(reader_ctx, ...)
     * without libhpm's look-up (hpm_read_direct); a direct set whose
     * component writes long long itself (hpm_read_direct_ll): read
     * straight into the caller's values; PAPI_accum and PAPI_reset through
     * read_reset(resetters_ctx, ...) and reset(resetters_ctx) without
     * libhpm's look-up (hpm_pinned_resetters; NULL where it has none) */
    hpm_reader_t reader __attribute__((aligned(32)));
    hpm_reader_ll_t reader_ll;
    hpm_reader_t read_reset;
    hpm_resetter_t reset;
    /* hpm_set, pinned at its first start (NULL until then, and again when
     * hpm_set is replaced): PAPI_start and PAPI_stop without libhpm's
     * look-up, under this set's lock */
    hpm_pin_t pin;
    int64_t *stopped;   /* native counts frozen at the last stop (libhpm writes
                           them: its type) */
    int64_t *scratch;   /* nnat native counts */
    void *reader_ctx;
    void *resetters_ctx;
    int hpm_set;       /* libhpm's set; -1 when none */
    int cidx;          /* component, -1 until assigned */
    int multiplex;
    int domain;        /* PAPI_DOM_* */
    int domain_set;    /* set by the program (else the component's default) */
    int granularity;
    int attached;
    unsigned long attach_tid;
    int cpu_attached;  /* PAPI_CPU_ATTACH: counts CPU cpu_num, not a thread */
    unsigned int cpu_num;
    int inherit;
    int cap_ev;
    struct papi_event *ev;
    int cap_nat;
    hpm_event_t *nat;
    int *nat_ref;       /* how many PAPI events use each native */
    PAPI_overflow_handler_t overflow_handler;
    int overflowing;    /* number of events with a threshold */
    struct papi_eventset *next_free; /* kept for reuse after its destroy */
};

/* Look a handle up and lock the set; NULL when invalid. Release it with
 * papi_eventset_put. */
struct papi_eventset *papi_eventset_get(int handle);
void papi_eventset_put(struct papi_eventset *es);
void papi_eventsets_destroy_all(void);

/* ------------------------------------------------------------ threads */

struct papi_thread;
/* The calling thread's record (created on first use), or NULL (no memory). */
struct papi_thread *papi_thread_self(void);
void papi_threads_shutdown(void);

/* ------------------------------------------------------------ system info */

void papi_sysinfo_init(void);     /* hardware info, from hpm's machine model */
void papi_sysinfo_shutdown(void); /* frees the shared-library list */
extern PAPI_hw_info_t papi_hw_info;
/* The modeled or measured clock in MHz, never 0. Inline: PAPI_get_real_cyc
 * runs it, under the models, twice per iteration of the tools' timing
 * loops (Debian's papi_cost, papi_multiplex_cost). */
extern double papi_mhz_now; /* papi_sysinfo.c: 1000 until the machine is read */
static inline double papi_mhz(void)
{
    return papi_mhz_now;
}

/* Small helpers (papi_common.c). */
void papi_copy(char *dst, size_t size, const char *src);

#endif /* HPM_PAPI_INTERNAL_H */
