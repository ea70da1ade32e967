/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comp_sim.c - the sim component: the virtual PMU, reached by client
 * requests (src/vpmu_iface/hpm_client.h) when the program runs under
 * `hpm run` or `hpm count`. Natively each request is a few no-op
 * instructions that return 0, so this component disables itself and costs
 * nothing.
 *
 * Events (only those the tool has programmed, HPM_VPMU_EVENTS):
 *   - one per per-core catalog kind, named by the kind ("INSTRUCTIONS",
 *     "L1D_MISSES"): the calling thread's own count (HPM_VPMU_READ_KINDS);
 *   - one per programmed UPC code ("PU0_INSTRUCTIONS", "L3_READS"): the
 *     node-wide count of that UPC counter (HPM_VPMU_READ_EVENTS, node scope;
 *     HPM_EVENT_NODE_WIDE).
 * All are modeled (HPM_EVENT_MODELED). The counts are cumulative in the
 * tool; a set's values are differences of reads, so any number of sets (and
 * libpapi above) read side by side and nothing ever resets the tool.
 *
 * Counters: the tool puts every programmed code on a UPC counter of its own
 * (src/vpmu/vpmu_node.c), adding a unit of 256 counters whenever a code's
 * one counter (code mod 256, include/hpm/upc.h) is taken in every unit so
 * far. num_counters is what those units provide; the running sets of a
 * thread share them (HPM_CI_SHARED_COUNTERS: several sets run at once while
 * their events fit), and a set may hold as many events.
 *
 * Domain: the simulator runs user code only; the kernel's work for the
 * program is what the kernel unit counts (system calls, signals) and what
 * the host measures (time in system calls, faults, context switches):
 * kernel-mode kinds, the ones hpm count reports in its kernel column
 * (unit kernel or source host, kernel_mode()). A set in the user domain
 * counts the user-mode kinds and reads 0 for the kernel-mode ones (they
 * happen in kernel mode only); one in the kernel domain counts the
 * kernel-mode kinds and refuses the others (HPM_ENOTSUP: the kernel's own
 * instructions, cycles and accesses are not simulated, there is no count
 * to give, and a 0 would be a wrong one); user + kernel counts every
 * kind.
 *
 * Attach (hpm_set_attach): another process under the virtual PMU, read
 * through its live view (src/live, src/vpmu_iface/vpmu_live.h) without
 * disturbing it: a per-core kind is the process's count (every thread, the
 * sum over its cores), PU<n>_/node codes its UPC count. The view is mapped
 * when the set is programmed and kept, so a process that exits still gives
 * its final counts; after an exec the old image's final counts are carried
 * and the new image's view is followed. A process is read as it last
 * published (every --hpm-live-ms, default 100 ms, and just before it stops
 * itself), so an attached set is exact at the points where the process
 * stops (SIGSTOP, exit), which is where PAPI's attach protocol reads it.
 * Modeled kinds need the target's models: a set asks a process whose models
 * wait (hpm run's on-demand) to start them (the view's want_models word);
 * they count from when the process next runs. A pid that is not a process
 * under hpm is refused (HPM_ENOTSUP; HPM_EINVAL when there is no such
 * process).
 *
 * CPU (hpm_set_cpu, PAPI_CPU_ATTACH): a modeled core. A per-core kind is
 * that core's node-wide UPC count (PU<n>_<KIND>: every thread of the
 * process while the core runs it), so a set of each core counts the
 * process's work core by core; node codes stay node-wide. The cores are
 * those the tool programmed codes for (the machine's).
 *
 * Inherit (hpm_set_inherit, PAPI_INHERIT): the calling thread's counts plus
 * those of the processes this one forks after the set starts, each under
 * the tool with a live view of its own: read from their views (running) or
 * their kept final views (hpm-live.PID.exited, which the tool leaves for a
 * parent under hpm). Children only, not their own children; children that
 * existed at the start are left out.
 *
 * Overflow: HPM_VPMU_OVERFLOW arms the tool for the calling thread's count of
 * a per-core kind; it sends hpm_overflow_signal() without saying which kind,
 * so the core finds the position from the counts (HPM_CI_OVF_BY_COUNT). The
 * thread's counts stay frozen while the handler runs (HPM_CI_OVF_FROZEN).
 * Node-wide events, kinds beyond the tool's HPM_VPMU_OVERFLOW_MAX and a tool
 * that refuses fall back to the core's software timer.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "catalog.h"
#include "hpm_client.h"
#include "hpm_internal.h"
#include "live.h"
#include "machine.h"

/* Counters of one UPC unit, the bank width of its 1024 inputs. */
#define HPM_UPC_BANK_COUNTERS 256

/* Index space: per-thread kinds 0..HPM_K_CORE_COUNT-1, node-wide UPC codes
 * CODE_BASE + spec (a code, + 1024 * its counting mode: docs/events.md,
 * Counting modes; a mode event counts node-wide only, as the tool
 * programmed it: hpm run -e PU0_STALL_MEM_CYCLES:edge-rise). */
#define CODE_BASE 0x1000u

static struct {
    long version;
    int n_codes;
    uint32_t codes[HPM_CAT_CODES];    /* programmed codes, counting order */
    int16_t pos_of_code[HPM_CAT_SPECS]; /* position in codes[] by spec, -1 if not programmed */
    uint8_t kind_on[HPM_K_CORE_COUNT];  /* the kind is programmed on some core */
    int cores;                          /* modeled cores with a programmed code */
    char description[160];
} S;

/* The UPC units the tool needs for the programmed codes: code c can only be
 * counted on counter c mod 256 of a unit, so as many units as the most
 * codes that want one counter (at least one unit). */
static int units_needed(void)
{
    uint16_t per_counter[HPM_UPC_BANK_COUNTERS] = {0};
    int i, most = 1;
    for (i = 0; i < S.n_codes; i++) {
        int c = (int)(S.codes[i] % HPM_UPC_BANK_COUNTERS);
        if (++per_counter[c] > most)
            most = per_counter[c];
    }
    return most;
}

static pid_t my_pid; /* the tool's signals come from it (getpid is a system call) */

static void my_pid_refresh(void)
{
    my_pid = getpid();
}

static void my_pid_track(void)
{
    (void)pthread_atfork(NULL, NULL, my_pid_refresh);
}

static int sim_init(struct hpm_component_info *info, char *reason, size_t len)
{
    uint64_t kinds[HPM_K_CORE_COUNT];
    long n, r;
    int i, n_events = 0;

    memset(&S, 0, sizeof S);
    memset(S.pos_of_code, 0xff, sizeof S.pos_of_code);
    info->description = "the hpm virtual PMU (modeled counts, under `hpm run`)";
    info->domains = info->default_domain = HPM_DOMAIN_USER;
    info->flags = HPM_COMP_MODELED | HPM_COMP_OVERFLOW;
    S.version = HPM_VPMU_IS_RUNNING();
    if (S.version <= 0) {
        snprintf(reason, len,
                 "not running under the hpm virtual PMU (run the program with "
                 "`hpm run -- PROGRAM`)");
        return HPM_ENOCOMP;
    }
    if (S.version < 3) {
        snprintf(reason, len,
                 "the hpm virtual PMU speaks interface version %ld; libhpm needs 3 or later",
                 S.version);
        return HPM_ENOCOMP;
    }
    {
        static pthread_once_t once = PTHREAD_ONCE_INIT;
        my_pid_refresh();
        (void)pthread_once(&once, my_pid_track);
    }
    n = HPM_VPMU_EVENTS(S.codes, HPM_CAT_CODES);
    if (n < 0) {
        snprintf(reason, len, "the virtual PMU did not list its events (error %ld)", n);
        return HPM_ESYS;
    }
    S.n_codes = (int)n;
    for (i = 0; i < S.n_codes; i++) {
        unsigned kind;
        int core;
        unsigned mode;
        if (hpm_catalog_spec_decode(S.codes[i], &kind, &core, &mode) != 0)
            continue;
        S.pos_of_code[S.codes[i]] = (int16_t)i;
        n_events++;
        if (core >= S.cores)
            S.cores = core + 1;
        if (core >= 0 && kind < HPM_K_CORE_COUNT && mode == HPM_CAT_LEVEL_HIGH &&
            !S.kind_on[kind]) {
            S.kind_on[kind] = 1;
            n_events++;
        }
    }
    r = HPM_VPMU_READ_KINDS(kinds, HPM_K_CORE_COUNT);
    if (r != HPM_K_CORE_COUNT) {
        snprintf(reason, len, "the virtual PMU cannot read per-thread counts (error %ld)", r);
        return HPM_ESYS;
    }
    snprintf(S.description, sizeof S.description,
             "the hpm virtual PMU (modeled counts; %d UPC events programmed)", S.n_codes);
    info->description = S.description;
    info->num_events = n_events;
    info->num_counters = units_needed() * HPM_UPC_BANK_COUNTERS;
    info->domains = HPM_DOMAIN_ALL;
    info->default_domain = HPM_DOMAIN_USER;
    /* MULTIPLEX: a multiplexed set is accepted and counts every event all
     * the time (reads of the tool's totals, nothing to time-slice) */
    info->flags = HPM_COMP_MODELED | HPM_COMP_OVERFLOW | HPM_COMP_MULTIPLEX | HPM_COMP_ATTACH |
                  HPM_COMP_INHERIT | HPM_COMP_CPU;
    return HPM_OK;
}

/* ------------------------------------------------------------ events */

static int offered(uint32_t i)
{
    if (i < HPM_K_CORE_COUNT)
        return S.kind_on[i];
    return i >= CODE_BASE && i < CODE_BASE + HPM_CAT_SPECS && S.pos_of_code[i - CODE_BASE] >= 0;
}

static int sim_event_next(uint32_t *index)
{
    uint32_t i = *index + 1;
    for (; i < HPM_K_CORE_COUNT; i++)
        if (offered(i)) {
            *index = i;
            return HPM_OK;
        }
    if (i < CODE_BASE)
        i = CODE_BASE;
    for (; i < CODE_BASE + HPM_CAT_SPECS; i++)
        if (offered(i)) {
            *index = i;
            return HPM_OK;
        }
    return HPM_ENOEVENT;
}

static int sim_event_first(uint32_t *index)
{
    if (offered(0)) {
        *index = 0;
        return HPM_OK;
    }
    *index = 0;
    return sim_event_next(index);
}

/* Names go through the catalog's one parser: a bare per-core kind is the
 * calling thread's count (docs/events.md's rule for a thread's
 * measurement), PU<n>_<KIND> and node kinds are node-wide UPC codes. */
static int sim_event_lookup(const char *name, uint32_t *index)
{
    struct hpm_cat_name nm;
    int enabled = S.version >= 3, code;
    if (hpm_catalog_parse(name, &nm) != 0)
        return HPM_ENOEVENT;
    if (nm.scope == HPM_CAT_SCOPE_KIND) {
        if (nm.mode != HPM_CAT_LEVEL_HIGH)
            return HPM_ENOEVENT; /* a thread's counts are of kinds: no modes */
        if (!enabled || !S.kind_on[nm.kind])
            return HPM_ENOCOMP; /* a sim event, not counted here */
        *index = nm.kind;
        return HPM_OK;
    }
    code = hpm_catalog_code(nm.kind, nm.core);
    if (code < 0)
        return HPM_ENOEVENT;
    code = (int)hpm_catalog_spec((unsigned)code, nm.mode);
    if (!enabled || S.pos_of_code[code] < 0)
        return HPM_ENOCOMP;
    *index = CODE_BASE + (uint32_t)code;
    return HPM_OK;
}

static int sim_event_describe(uint32_t index, struct hpm_event_info *info)
{
    const struct hpm_cat_kind_info *ki;
    unsigned kind;
    int core;
    if (!offered(index))
        return HPM_ENOEVENT;
    if (index < HPM_K_CORE_COUNT) {
        ki = hpm_catalog_kind(index);
        hpm__copy(info->name, sizeof info->name, ki->name);
        snprintf(info->description, sizeof info->description, "%s (the calling thread's count)",
                 ki->description);
        hpm__copy(info->units, sizeof info->units, ki->units);
        info->flags = HPM_EVENT_MODELED;
        return HPM_OK;
    }
    if (hpm_catalog_code_name(index - CODE_BASE, info->name, sizeof info->name) < 0 ||
        hpm_catalog_spec_decode(index - CODE_BASE, &kind, &core, NULL) != 0)
        return HPM_ENOEVENT;
    ki = hpm_catalog_kind(kind);
    if (core >= 0)
        snprintf(info->description, sizeof info->description,
                 "%s (core %d, node-wide: every thread on that core)", ki->description, core);
    else
        snprintf(info->description, sizeof info->description, "%s (node-wide)",
                 ki->description);
    hpm__copy(info->units, sizeof info->units, hpm_catalog_spec_units(index - CODE_BASE));
    info->flags = HPM_EVENT_MODELED | HPM_EVENT_NODE_WIDE;
    return HPM_OK;
}

/* Is event index i a kernel-mode kind (the kernel's work for the program:
 * hpm count's kernel column)? */
static int kernel_mode(uint32_t i)
{
    unsigned kind = i;
    int core;
    const struct hpm_cat_kind_info *k;
    if (i >= CODE_BASE && hpm_catalog_spec_decode(i - CODE_BASE, &kind, &core, NULL) != 0)
        return 0;
    k = hpm_catalog_kind(kind);
    return k && (k->unit == HPM_UNIT_KERNEL || k->source == HPM_SRC_HOST);
}

/* ------------------------------------------------------------ sets */

#define SIM_MAX_CHILDREN 64 /* children an inheriting set follows */

struct sim_set {
    /* what start, stop and read test, first and together (one line of the
     * 64-byte aligned state libhpm allocates: on the virtual PMU each is a
     * modeled data access of the program) */
    int n;
    int kinds_only; /* this thread's kinds only: read_kinds (set by update) */
    int sel;        /* kinds_only, read in one HPM_VPMU_READ_SEL (interface 11) */
    int n_thr, n_armed; /* positions with a threshold, and armed now: start
                           and stop skip their loops over the set without */
    int need_kinds, need_node;
    uint32_t idx[HPM_SET_MAX_EVENTS];
    uint64_t base[HPM_SET_MAX_EVENTS];
    int64_t thr[HPM_SET_MAX_EVENTS]; /* native overflow threshold, 0: none */
    uint8_t armed[HPM_SET_MAX_EVENTS];
    int64_t scratch[HPM_SET_MAX_EVENTS]; /* sim_read_ll of a set read_kinds cannot read */
    /* hpm_read_direct_sums_ll's sums: each term packed as the tool takes
     * it (HPM_VPMU_SUM_TERM), summed by the tool where sum_sel */
    int n_sum, n_sum_out, sum_sel;
    uint32_t sum_term[HPM_SUM_TERMS_MAX];
    /* attached: the other process's live view */
    pid_t attach;
    struct hpm_live_reader lr;
    struct hpm_live *snap;            /* a snapshot buffer (16 KiB: not on the stack) */
    uint64_t carry[HPM_SET_MAX_EVENTS]; /* final counts of images it exec'd from */
    /* inherit: the children's views */
    int inherit;
    unsigned n_old, n_kids;
    pid_t old[SIM_MAX_CHILDREN];                        /* children before the start */
    struct { pid_t pid; struct hpm_live_reader lr; } kid[SIM_MAX_CHILDREN];
    /* positions outside the set's domain (read as 0); last: the fields
     * start and stop use keep their short offsets */
    int n_off;
    uint8_t off[HPM_SET_MAX_EVENTS];
};

/* The cache, TLB, predictor and timing models the event needs (a counting
 * mode the timing model's cycles), as HPM_NEED_* bits. Under `hpm run`
 * (--hpm-model=on-demand) those run only once a program asks for such an
 * event: adding one to a set asks for its models (HPM_VPMU_MODEL_NEEDS; a
 * tool before interface 4 runs its models from the start and answers
 * EINVAL, one before the mask starts them all). */
static unsigned models_needed(uint32_t i)
{
    const struct hpm_cat_kind_info *k;
    if (i >= CODE_BASE)
        return hpm_catalog_spec_needs(i - CODE_BASE) & HPM_NEED_MODELS;
    k = hpm_catalog_kind(i);
    return k ? k->needs & HPM_NEED_MODELS : 0;
}

static int sim_set_init(void *st)
{
    memset(st, 0, sizeof(struct sim_set));
    return HPM_OK;
}

/* ------------------------------------------------------------ attached sets */

static void forget_kids(struct sim_set *s)
{
    unsigned i;
    for (i = 0; i < s->n_kids; i++)
        hpm_live_close(&s->kid[i].lr);
    s->n_kids = s->n_old = 0;
}

static void detach(struct sim_set *s)
{
    forget_kids(s);
    hpm_live_close(&s->lr);
    free(s->snap);
    s->snap = NULL;
    s->attach = 0;
}

/* The process's count of event index i in a snapshot; -1 when the process
 * does not count it. */
static int view_value(const struct hpm_live *v, uint32_t i, uint64_t *out)
{
    int have;
    *out = 0;
    if (i < HPM_K_CORE_COUNT) {
        unsigned c, cores = v->cores > HPM_CAT_MAX_CORES ? HPM_CAT_MAX_CORES : v->cores, n = 0;
        for (c = 0; c < cores; c++) {
            int code = hpm_catalog_code(i, (int)c);
            uint64_t x = code < 0 ? 0 : hpm_live_value(v, (unsigned)code, &have);
            if (code >= 0 && have) {
                *out += x;
                n++;
            }
        }
        return n ? 0 : -1;
    }
    *out = hpm_live_value(v, i - CODE_BASE, &have);
    return have ? 0 : -1;
}

/* Open pid's view (waiting a little for a process that runs the tool and
 * has not published yet) and check that it counts every event. */
static int attach_open(struct sim_set *s, pid_t pid, const uint32_t *events, int n)
{
    char err[256];
    int i, models = 0;
    uint64_t x;
    if (pid == getpid())
        return HPM_ENOTSUP; /* its own counts are an unattached set's, exact */
    if (!s->snap && !(s->snap = malloc(sizeof *s->snap)))
        return HPM_ENOMEM;
    if (hpm_live_open_wait(&s->lr, pid, 2000, err, sizeof err) != 0) {
        if (kill(pid, 0) != 0 && errno == ESRCH)
            return HPM_EINVAL; /* no such process */
        return HPM_ENOTSUP; /* not under hpm: another simulator, or none */
    }
    if (hpm_live_snapshot(&s->lr, s->snap) != 0)
        return HPM_ESYS;
    for (i = 0; i < n; i++) {
        if (view_value(s->snap, events[i], &x) != 0)
            return HPM_ENOEVENT; /* that process does not count it */
        models |= models_needed(events[i]) != 0;
    }
    if (models && s->snap->models_waiting && hpm_live_request_models(&s->lr) != 0)
        return HPM_ESYS;
    s->attach = pid;
    return HPM_OK;
}

/* The children that publish a view now: the pids and whether exited. */
static unsigned kids_now(pid_t *pids, int *exited)
{
    return hpm_live_children(getpid(), pids, exited, SIM_MAX_CHILDREN);
}

/* Start of an inheriting set: the children that exist now are not its. */
static void kids_start(struct sim_set *s)
{
    int exited[SIM_MAX_CHILDREN];
    forget_kids(s);
    s->n_old = kids_now(s->old, exited);
    memset(s->carry, 0, sizeof s->carry);
}

/* Adds every new child's counts (its view mapped and kept, so a child that
 * exits later still gives its final counts) to v. */
static int kids_add(struct sim_set *s, uint64_t *v)
{
    pid_t pids[SIM_MAX_CHILDREN];
    int exited[SIM_MAX_CHILDREN], i;
    unsigned n = kids_now(pids, exited), k, j;
    for (k = 0; k < n; k++) {
        int known = 0;
        for (j = 0; j < s->n_old && !known; j++)
            known = s->old[j] == pids[k];
        for (j = 0; j < s->n_kids && !known; j++)
            known = s->kid[j].pid == pids[k];
        if (known || s->n_kids >= SIM_MAX_CHILDREN)
            continue;
        {
            char err[256];
            if (hpm_live_open_child(&s->kid[s->n_kids].lr, pids[k], exited[k], err,
                                    sizeof err) == 0)
                s->kid[s->n_kids++].pid = pids[k];
        }
    }
    for (i = 0; i < s->n; i++)
        v[i] += s->carry[i];
    for (j = 0; j < s->n_kids; j++) {
        if (hpm_live_snapshot(&s->kid[j].lr, s->snap) != 0)
            return HPM_ESYS;
        for (i = 0; i < s->n; i++) {
            uint64_t x;
            (void)view_value(s->snap, s->idx[i], &x);
            if (s->snap->state == HPM_LIVE_EXEC)
                continue; /* the image's counts; see below */
            v[i] += x;
        }
        if (s->snap->state == HPM_LIVE_EXEC) {
            /* the child exec'd: keep its final counts, follow its new image
             * (found again as a new child at the next read) */
            for (i = 0; i < s->n; i++) {
                uint64_t x;
                (void)view_value(s->snap, s->idx[i], &x);
                s->carry[i] += x;
                v[i] += x;
            }
            hpm_live_close(&s->kid[j].lr);
            s->kid[j] = s->kid[--s->n_kids];
            j--;
        }
    }
    return HPM_OK;
}

/* Cumulative counts of an attached set: the last publication of the
 * process, plus what the images it exec'd from counted. */
static int attached_raw(struct sim_set *s, uint64_t *v)
{
    int i;
    if (hpm_live_snapshot(&s->lr, s->snap) != 0)
        return HPM_ESYS;
    if (s->snap->state == HPM_LIVE_EXEC) {
        /* the image was replaced: keep its final counts, follow the new one */
        struct hpm_live_reader next;
        char err[256];
        if (hpm_live_open_wait(&next, s->attach, 2000, err, sizeof err) == 0) {
            for (i = 0; i < s->n; i++) {
                uint64_t x;
                (void)view_value(s->snap, s->idx[i], &x);
                s->carry[i] += x;
            }
            hpm_live_close(&s->lr);
            s->lr = next;
            if (hpm_live_snapshot(&s->lr, s->snap) != 0)
                return HPM_ESYS;
        }
    }
    for (i = 0; i < s->n; i++) {
        uint64_t x;
        (void)view_value(s->snap, s->idx[i], &x);
        v[i] = s->carry[i] + x;
    }
    return HPM_OK;
}

static int sim_set_update(void *st, const uint32_t *events, int n, const struct hpm_set_opts *o)
{
    struct sim_set *s = st;
    int i, rc;
    unsigned models;
    if ((o->inherit && o->attach) || (o->cpu && (o->attach || o->inherit)))
        return HPM_ENOTSUP;
    for (i = 0; i < n; i++)
        if (!(o->domain & HPM_DOMAIN_USER) && !kernel_mode(events[i]))
            return HPM_ENOTSUP; /* no kernel-mode count of a user-mode kind */
    if (o->cpu > S.cores)
        return HPM_EINVAL; /* no such modeled core */
    detach(s);
    s->kinds_only = s->sel = 0;
    s->n_sum = s->n_sum_out = s->sum_sel = 0; /* the sums' positions may have moved */
    s->inherit = o->inherit;
    if (o->inherit && !(s->snap = malloc(sizeof *s->snap)))
        return HPM_ENOMEM;
    memset(s->carry, 0, sizeof s->carry);
    if (o->attach && n > 0 && (rc = attach_open(s, o->attach, events, n)) != HPM_OK) {
        detach(s);
        return rc;
    }
    if (o->attach && n == 0) {
        /* nothing to count yet: only check that the process is under hpm */
        rc = attach_open(s, o->attach, events, 0);
        detach(s);
        if (rc != HPM_OK)
            return rc;
    }
    s->need_kinds = s->need_node = 0;
    s->n_off = 0;
    for (i = 0; i < n; i++) {
        /* a kernel-mode kind in a user-only set: 0 */
        s->off[i] = !(o->domain & HPM_DOMAIN_KERNEL) && kernel_mode(events[i]);
        s->n_off += s->off[i];
        if (!offered(events[i]))
            return HPM_ENOEVENT;
        if ((models = models_needed(events[i])) != 0 && !o->attach)
            (void)HPM_VPMU_MODEL_NEEDS(models); /* hpm run starts them on demand */
        s->idx[i] = events[i];
        if (o->cpu && events[i] < HPM_K_CORE_COUNT) {
            /* a CPU's set: the kind on that core, node-wide (every thread
             * of the process while the core runs it) */
            int code = hpm_catalog_code(events[i], o->cpu - 1);
            if (code < 0 || S.pos_of_code[code] < 0)
                return HPM_ENOEVENT;
            s->idx[i] = CODE_BASE + (uint32_t)code;
        }
        s->thr[i] = 0;
        s->armed[i] = 0;
        if (s->idx[i] < HPM_K_CORE_COUNT)
            s->need_kinds = 1;
        else
            s->need_node = 1;
    }
    s->n = n;
    s->n_thr = s->n_armed = 0;
    s->kinds_only = s->need_kinds && !s->need_node && !s->attach && !s->inherit;
    s->sel = s->kinds_only && S.version >= 11 && n <= HPM_VPMU_SEL_MAX;
    return HPM_OK;
}

static int raw_all(const struct sim_set *s, uint64_t *v);

/* Cumulative counts of every position, those outside the set's domain 0.
 * Async-signal-safe (client requests and the stack). */
static int raw(const struct sim_set *s, uint64_t *v)
{
    int i, rc = raw_all(s, v);
    for (i = 0; s->n_off && i < s->n; i++)
        if (s->off[i])
            v[i] = 0;
    return rc;
}

static int raw_all(const struct sim_set *s, uint64_t *v)
{
    uint64_t kinds[HPM_K_CORE_COUNT], node[HPM_CAT_CODES];
    int i;
    if (s->attach)
        return attached_raw((struct sim_set *)s, v);
    if (s->need_kinds && HPM_VPMU_READ_KINDS(kinds, HPM_K_CORE_COUNT) != HPM_K_CORE_COUNT)
        return HPM_ESYS;
    if (s->need_node && HPM_VPMU_READ_EVENTS(node, S.n_codes, HPM_VPMU_SCOPE_NODE) != S.n_codes)
        return HPM_ESYS;
    for (i = 0; i < s->n; i++)
        v[i] = s->idx[i] < HPM_K_CORE_COUNT ? kinds[s->idx[i]]
                                              : node[S.pos_of_code[s->idx[i] - CODE_BASE]];
    if (s->inherit)
        return kids_add((struct sim_set *)s, v);
    return HPM_OK;
}

static int sim_set_overflow(void *st, int pos, int64_t threshold)
{
    struct sim_set *s = st;
    if (pos < 0 || pos >= s->n)
        return HPM_EINVAL;
    s->n_thr -= s->thr[pos] > 0;
    s->thr[pos] = 0;
    if (threshold > 0 && s->idx[pos] >= HPM_K_CORE_COUNT)
        return HPM_ENOTSUP; /* the tool interrupts on per-thread kinds only */
    s->thr[pos] = threshold;
    s->n_thr += threshold > 0;
    return HPM_OK;
}

/* Arm the tool for every native position; failures go to *failed. */
static void arm(struct sim_set *s, uint64_t *failed)
{
    int i;
    if (!s->n_thr && !s->n_armed)
        return;
    for (i = 0; i < s->n; i++)
        if (s->thr[i] > 0) {
            /* the interrupts come as upcalls (overflow.c), not signals:
             * for this thread, every arming (a forked child's tool state
             * starts without it) */
            (void)hpm__ovf_upcall_register();
            break;
        }
    s->n_armed = 0;
    for (i = 0; i < s->n; i++) {
        s->armed[i] = 0;
        if (s->thr[i] <= 0)
            continue;
        /* the tool's thresholds counted from our base, as ours are */
        if (HPM_VPMU_OVERFLOW_FROM(s->idx[i], (uint64_t)s->thr[i], hpm_overflow_signal(),
                                   s->base[i] + (uint64_t)s->thr[i]) == 0) {
            s->armed[i] = 1;
            s->n_armed++;
        } else if (failed)
            *failed |= 1ull << HPM_OVF_BIT(i);
    }
}

static void disarm(struct sim_set *s)
{
    int i;
    for (i = 0; s->n_armed && i < s->n; i++)
        if (s->armed[i]) {
            (void)HPM_VPMU_OVERFLOW(s->idx[i], 0, hpm_overflow_signal());
            s->armed[i] = 0;
        }
    s->n_armed = 0;
}

/* The base of a set of this thread's kinds only: one request and one loop,
 * in a frame without raw's buffer for every node code (PAPI_start's
 * instructions are added to the program's count). */
static __attribute__((noinline)) int base_kinds(struct sim_set *s)
{
    uint64_t kinds[HPM_K_CORE_COUNT];
    int i;
    if (s->sel) /* the tool writes the bases: no loop here */
        return HPM_VPMU_READ_SEL(NULL, s->idx, s->base, s->n, HPM_VPMU_SEL_BASE) == s->n ? HPM_OK
                                                                                     : HPM_ESYS;
    if (HPM_VPMU_READ_KINDS(kinds, HPM_K_CORE_COUNT) != HPM_K_CORE_COUNT)
        return HPM_ESYS;
    for (i = 0; i < s->n; i++)
        s->base[i] = kinds[s->idx[i]];
    return HPM_OK;
}

/* sim_start of any set but one of the thread's kinds with nothing to arm */
static __attribute__((noinline)) int start_general(struct sim_set *s, uint64_t *native_failed)
{
    /* the base first: the tool counts its thresholds from it (the count
     * at which the first passes), so its signals and our deadlines agree */
    int rc;
    if (s->kinds_only) {
        rc = base_kinds(s);
    } else {
        if (s->inherit)
            kids_start(s);
        rc = raw(s, s->base);
    }
    if (rc == HPM_OK)
        arm(s, native_failed);
    return rc;
}

static int sim_start(void *st, uint64_t *native_failed)
{
    struct sim_set *s = st;
    /* two tail calls: the common case (nothing to arm) has no frame */
    /* one branch for the three tests (on the virtual PMU each conditional
     * branch of the program is modeled) */
    if ((((unsigned)s->kinds_only ^ 1u) | (unsigned)s->n_thr | (unsigned)s->n_armed) == 0)
        return base_kinds(s);
    return start_general(s, native_failed);
}

/* sim_reset of any set but one of the thread's kinds with nothing armed */
static __attribute__((noinline)) int reset_general(struct sim_set *s)
{
    uint64_t failed = 0;
    int i, any = 0, rc;
    /* what is armed, before the base read: after it every instruction of
     * the library is counted */
    for (i = 0; i < s->n; i++)
        any |= s->armed[i];
    rc = raw(s, s->base);
    if (rc == HPM_OK && any) {
        /* re-arming restarts the tool's schedule from the new base */
        for (i = 0; i < s->n; i++)
            if (s->armed[i] &&
                HPM_VPMU_OVERFLOW_FROM(s->idx[i], (uint64_t)s->thr[i], hpm_overflow_signal(),
                                       s->base[i] + (uint64_t)s->thr[i]) != 0)
                failed |= 1ull << HPM_OVF_BIT(i);
    }
    (void)failed; /* it was armed a moment ago: the tool has no reason to refuse */
    return rc;
}

static int sim_reset(void *st)
{
    struct sim_set *s = st;
    /* two tail calls: the common case (nothing to re-arm) has no frame */
    if (s->kinds_only && !s->n_armed)
        return base_kinds(s);
    return reset_general(s);
}

/* sim_read of a set of this thread's kinds only (no node-wide code, not
 * attached, not inheriting) where the tool cannot select them (sel: an
 * older tool, a set over HPM_VPMU_SEL_MAX) or a threshold is armed: one
 * request and one loop, in a frame without raw's buffer for every node
 * code (a read's instructions are added to the program's count). Written
 * for int64_t (read) and long long (read_ll: PAPI's values, no copy
 * after). */
#define SIM_READ_KINDS(name, T)                                                   \
    static __attribute__((noinline)) int name(const struct sim_set *s, T *values) \
    {                                                                             \
        uint64_t kinds[HPM_K_CORE_COUNT];                                         \
        int i;                                                                    \
        if (HPM_VPMU_READ_KINDS(kinds, HPM_K_CORE_COUNT) != HPM_K_CORE_COUNT)     \
            return HPM_ESYS;                                                      \
        for (i = 0; i < s->n; i++)                                                \
            values[i] = (T)(kinds[s->idx[i]] - s->base[i]);                       \
        return HPM_OK;                                                            \
    }
SIM_READ_KINDS(read_kinds, int64_t)
SIM_READ_KINDS(read_kinds_ll, long long)

/* sim_read of any other set (attached, inheriting, node-wide codes) */
static __attribute__((noinline)) int read_general(struct sim_set *s, int64_t *values)
{
    /* the cumulative counts go straight into values: no copy of up to
     * HPM_SET_MAX_EVENTS counts (8 KiB) on the stack of a call the overflow
     * handler makes too */
    uint64_t *v = (uint64_t *)values;
    int i, rc = raw(s, v);
    if (rc != HPM_OK)
        return rc;
    for (i = 0; i < s->n; i++)
        values[i] = (int64_t)(v[i] - s->base[i]);
    return HPM_OK;
}

/* 1 when the tool wrote the set's counts into values itself: it
 * subtracts the bases and writes the set's counts alone (one branch for
 * the two tests); where it cannot answer from the translation (values in a
 * file's pages: Valgrind's scheduler answers) the result is the same. */
static inline int read_sel(const struct sim_set *s, int64_t *values)
{
    return (((unsigned)s->sel ^ 1u) | (unsigned)s->n_armed) == 0 &&
           HPM_VPMU_READ_SEL(values, s->idx, s->base, s->n, HPM_VPMU_SEL_DIFF) == s->n;
}

static int sim_read(void *st, int64_t *values)
{
    struct sim_set *s = st;
    /* else two tail calls: no register saved */
    if (read_sel(s, values))
        return HPM_OK;
    if (s->kinds_only)
        return read_kinds(s, values);
    return read_general(s, values);
}

_Static_assert(sizeof(long long) == sizeof(int64_t), "the tool writes PAPI's long long counts");

static int sim_read_ll(void *st, long long *values)
{
    struct sim_set *s = st;
    int rc, i;
    /* the tool writes the set's counts into PAPI's values itself (the
     * same 64 bits a long long holds) */
    if (read_sel(s, (int64_t *)(void *)values))
        return HPM_OK;
    if (s->kinds_only)
        return read_kinds_ll(s, values);
    rc = read_general(s, s->scratch);
    for (i = 0; rc == HPM_OK && i < s->n; i++)
        values[i] = s->scratch[i];
    return rc;
}

_Static_assert(HPM_SUM_TERMS_MAX <= HPM_VPMU_SEL_MAX, "a set's sums are one request's terms");

/* hpm_read_direct_sums_ll: the terms as the tool takes them. A coefficient
 * or a position beyond a term's 8 bits is refused (libpapi sums such a
 * set itself). */
static int sim_sums_set(void *st, const struct hpm_sum_term *terms, int nterms, int nout)
{
    struct sim_set *s = st;
    int i, in_reach = 1;
    s->n_sum = s->n_sum_out = s->sum_sel = 0;
    for (i = 0; i < nterms; i++) {
        if (terms[i].coef < INT8_MIN || terms[i].coef > INT8_MAX || terms[i].pos > 0xff)
            return HPM_ENOTSUP;
        in_reach &= terms[i].pos < nterms; /* the tool's rule: a base's index below n */
        s->sum_term[i] = HPM_VPMU_SUM_TERM(s->idx[terms[i].pos] & 0xff, terms[i].pos,
                                           terms[i].out, terms[i].coef);
    }
    s->n_sum = nterms;
    s->n_sum_out = nout;
    /* the tool sums a set of the thread's kinds (their codes are the
     * terms' kinds) from interface 12 */
    s->sum_sel = s->sel && S.version >= 12 && in_reach;
    return HPM_OK;
}

/* sim_read_sums_ll where the tool does not sum: the counts, then the sums */
static __attribute__((noinline)) int read_sums_here(struct sim_set *s, long long *values)
{
    int i, rc = sim_read(s, s->scratch);
    uint64_t *v = (uint64_t *)(void *)values;
    if (rc != HPM_OK)
        return rc;
    for (i = 0; i < s->n_sum_out; i++)
        v[i] = 0;
    for (i = 0; i < s->n_sum; i++) {
        uint32_t t = s->sum_term[i];
        v[(t >> 16) & 0xff] += (uint64_t)(int64_t)(int8_t)(t >> 24) *
                               (uint64_t)s->scratch[(t >> 8) & 0xff];
    }
    return HPM_OK;
}

static int sim_read_sums_ll(void *st, long long *values)
{
    struct sim_set *s = st;
    /* one branch, as read_sel; else a tail call */
    if ((((unsigned)s->sum_sel ^ 1u) | (unsigned)s->n_armed) == 0 &&
        HPM_VPMU_READ_SEL(values, s->sum_term, s->base, s->n_sum, HPM_VPMU_SEL_SUM) == s->n_sum)
        return HPM_OK;
    return read_sums_here(s, values);
}

/* sim_read_reset of a set of this thread's kinds only: one request, each
 * reading both the value and the next base. */
static __attribute__((noinline)) int read_reset_kinds(struct sim_set *s, int64_t *values)
{
    uint64_t kinds[HPM_K_CORE_COUNT];
    int i;
    if (HPM_VPMU_READ_KINDS(kinds, HPM_K_CORE_COUNT) != HPM_K_CORE_COUNT)
        return HPM_ESYS;
    for (i = 0; i < s->n; i++) {
        uint64_t k = kinds[s->idx[i]];
        values[i] = (int64_t)(k - s->base[i]);
        s->base[i] = k;
    }
    return HPM_OK;
}

static int sim_read_reset(void *st, int64_t *values)
{
    struct sim_set *s = st;
    int rc;
    /* the tool reads and rebases in one request (PAPI_accum's values are
     * the library's own buffer; a caller's in a file's pages takes the
     * scheduler's way, to the same result) */
    if (s->sel && !s->n_armed &&
        HPM_VPMU_READ_SEL(values, s->idx, s->base, s->n, HPM_VPMU_SEL_DIFF_BASE) == s->n)
        return HPM_OK;
    if (s->kinds_only && !s->n_armed)
        return read_reset_kinds(s, values);
    rc = sim_read(st, values);
    return rc == HPM_OK ? sim_reset(st) : rc;
}

/* sim_stop of a set with thresholds armed, or not of the thread's kinds */
static __attribute__((noinline)) int stop_general(struct sim_set *s, int64_t *values)
{
    int rc = sim_read(s, values);
    disarm(s);
    return rc;
}

static int sim_stop(void *st, int64_t *values)
{
    struct sim_set *s = st;
    /* nothing armed: the read is the stop (tail calls, no frame); values
     * are libhpm's own (the stopped set's), in memory the tool can answer
     * into from the translation: the tool subtracts the bases itself */
    if ((((unsigned)s->sel ^ 1u) | (unsigned)s->n_armed) == 0) /* one branch */
        return HPM_VPMU_READ_SEL(values, s->idx, s->base, s->n, HPM_VPMU_SEL_DIFF) == s->n
                   ? HPM_OK
                   : read_kinds(s, values);
    if (s->kinds_only && !s->n_armed)
        return read_kinds(s, values);
    return stop_general(s, values);
}

/* The tool queues its overflow signal from the process itself (SI_QUEUE),
 * or enters the upcall (HPM_SI_UPCALL), with the address of the first
 * threshold's instruction; the others of a burst it gives on request. */
static int sim_overflow_where(void *st, const siginfo_t *si, uint64_t *addrs, int want)
{
    long n;
    (void)st;
    if (!si || want < 1 ||
        (si->si_code != HPM_SI_UPCALL && (si->si_code != SI_QUEUE || si->si_pid != my_pid)))
        return 0;
    if (want > 1 && (n = HPM_VPMU_OVERFLOW_WHERE(addrs, (size_t)want)) > 0)
        return (int)n;
    addrs[0] = (uint64_t)(uintptr_t)si->si_ptr;
    return 1;
}

static void sim_cleanup(void *st)
{
    detach(st); /* an attached set's view; the tool keeps no per-set state */
}

/* ------------------------------------------------------------ machine */

static void add_cache(struct hpm_machine_info *mi, int level, char type,
                      const struct hpm_cache_params *p, int shared)
{
    struct hpm_cache_info *c;
    if (p->size == 0 || mi->n_caches >= HPM_MAX_CACHES)
        return;
    c = &mi->caches[mi->n_caches++];
    c->level = level;
    c->type = type;
    c->size = p->size;
    c->line_size = (int)p->line;
    c->associativity = (int)p->assoc;
    c->shared = shared;
}

/* hpm_machine_info under the virtual PMU: the model the tool runs
 * (HPM_VPMU_MACHINE), not the host. */
static int sim_machine_info(struct hpm_machine_info *mi)
{
    struct hpm_machine m;
    const struct hpm_hier_params *h = &m.hier;
    long r;
    if (S.version < 3)
        return HPM_ENOCOMP;
    r = HPM_VPMU_MACHINE(&m, sizeof m);
    if (r != (long)sizeof m && r != 0)
        return HPM_ESYS;
    mi->modeled = 1;
    hpm__copy(mi->name, sizeof mi->name, m.name);
    hpm__copy(mi->vendor, sizeof mi->vendor, "hpm virtual PMU (machine model)");
    mi->cores = (int)h->cores;
    mi->threads_per_core = 1;
    mi->sockets = 1;
    mi->mhz = (double)m.frequency_hz / 1e6;
    mi->memory_bytes = m.memory_bytes;
    /* first levels are per core in every model; L2/L3 say */
    add_cache(mi, 1, 'I', &h->l1i, h->cores == 1);
    add_cache(mi, 1, 'D', &h->l1d, h->cores == 1);
    add_cache(mi, 2, 'U', &h->l2, h->l2.shared || h->cores == 1);
    add_cache(mi, 3, 'U', &h->l3, h->l3.shared || h->cores == 1);
    mi->itlb_entries = (int)m.itlb.entries;
    mi->dtlb_entries = (int)m.dtlb.entries;
    mi->page_size = m.dtlb.page_size;
    return HPM_OK;
}

/* Region begin/end forwarded to the tool, so hpm count reports them too
 * (an older tool that libhpm cannot count with still takes them). */
static int sim_region(const char *name, int begin)
{
    if (S.version < 1)
        return HPM_ENOCOMP;
    return (begin ? HPM_VPMU_REGION_BEGIN(name) : HPM_VPMU_REGION_END(name)) == 0 ? HPM_OK
                                                                                  : HPM_EINVAL;
}

/* Gates: the tool's (HPM_VPMU_GATE, interface 5). A trigger's event must
 * be a per-thread kind the tool counts exactly. */
static int sim_gate(int which, const void *code, uint32_t index, uint64_t n)
{
    static const int req[] = {HPM_VPMU_GATE_CLEAR, HPM_VPMU_GATE_START_AT,
                              HPM_VPMU_GATE_STOP_AT, HPM_VPMU_GATE_ONLY, HPM_VPMU_GATE_TRIGGER};
    long r;
    if (S.version < 5)
        return HPM_ENOTSUP;
    if (which == HPM_GATE_TRIGGER && index >= HPM_K_CORE_COUNT)
        return HPM_EINVAL;
    r = HPM_VPMU_GATE(req[which], which == HPM_GATE_TRIGGER ? (uintptr_t)index : (uintptr_t)code,
                      n);
    return r == HPM_VPMU_OK ? HPM_OK : HPM_EINVAL;
}

const struct hpm_component hpm_comp_sim = {
    .name = "sim",
    .ci_flags = HPM_CI_THREAD_BOUND | HPM_CI_OVF_BY_COUNT | HPM_CI_SHARED_COUNTERS |
                HPM_CI_FORK_LOCAL |
                HPM_CI_OVF_FROZEN,
    .set_size = sizeof(struct sim_set),
    .init = sim_init,
    .shutdown = NULL,
    .event_first = sim_event_first,
    .event_next = sim_event_next,
    .event_lookup = sim_event_lookup,
    .event_describe = sim_event_describe,
    .set_init = sim_set_init,
    .set_update = sim_set_update,
    .set_overflow = sim_set_overflow,
    .start = sim_start,
    .stop = sim_stop,
    .read = sim_read,
    .read_ll = sim_read_ll,
    .sums_set = sim_sums_set,
    .read_sums_ll = sim_read_sums_ll,
    .reset = sim_reset,
    .read_reset = sim_read_reset,
    .overflow_dispatch = NULL,
    .overflow_where = sim_overflow_where,
    .cleanup = sim_cleanup,
    .region = sim_region,
    .machine_info = sim_machine_info,
    .gate = sim_gate,
};
