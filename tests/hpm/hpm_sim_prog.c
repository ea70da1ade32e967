/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm_sim_prog - libhpm on the virtual PMU. Run under `hpm run -- hpm_sim_prog
 * CHECK`; exits 0 when the check passes, 1 when it fails, 77 (skipped) when
 * not under the tool.
 *
 * The workloads are assembly (hpm_test_work.h) with known counts. A set's
 * value also holds the few instructions of libhpm between the tool read at
 * start and the one at stop (the tail of hpm_start, the head of hpm_stop).
 * That constant is measured with an empty start/stop pair on the same set
 * and subtracted: the code between the reads is the same every time (one
 * thread, uncontended locks), so the remainder must be exact.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "hpm/hpm.h"
#include "hpm_client.h"
#include "hpm_check.h"
#include "hpm_rc_check.h"
#include "hpm_test_work.h"

#define CHECK_I64(a, want)                                                                 \
    do {                                                                                   \
        int64_t a_ = (a), w_ = (want);                                                     \
        if (a_ != w_) {                                                                    \
            fprintf(stderr, "%s:%d: %s = %" PRId64 ", expected %s = %" PRId64 "\n",        \
                    __FILE__, __LINE__, #a, a_, #want, w_);                                \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

static char *self_path;

#define HPM_MAX_WIDE 1024 /* values of the widest set (the UPC's event space) */

static hpm_event_t ev(const char *name)
{
    hpm_event_t e = 0xffffffffu;
    int rc = hpm_event_find(name, &e);
    if (rc != HPM_OK) {
        fprintf(stderr, "event %s: %s\n", name, hpm_strerror(rc));
        failures++;
    }
    return e;
}

/* A set of the named events (comma-separated). */
static int make_set(const char *names)
{
    char buf[512], *save = NULL, *tok;
    int s = -1;
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    snprintf(buf, sizeof buf, "%s", names);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        CHECK(hpm_set_add(s, ev(tok)) >= 0);
    return s;
}

/* ------------------------------------------------------------ checks */

static int check_components(void)
{
    struct hpm_component_info ci;
    struct hpm_event_info ei;
    hpm_event_t e;
    int s, n = 0, rc;

    CHECK_RC(hpm_component_info(0, &ci), HPM_OK);
    CHECK(ci.enabled && ci.disabled_reason == NULL && strcmp(ci.name, "sim") == 0);
    CHECK(ci.flags & HPM_COMP_MODELED);
    /* the UPC units' counters, 256 per unit: enough for every programmed
     * code (233 of them under hpm run) */
    CHECK(ci.num_counters >= 256 && ci.num_counters % 256 == 0 &&
          ci.domains == HPM_DOMAIN_ALL && ci.default_domain == HPM_DOMAIN_USER);
    for (rc = hpm_event_first(0, &e); rc == HPM_OK; rc = hpm_event_next(&e)) {
        CHECK_RC(hpm_event_info(e, &ei), HPM_OK);
        CHECK(ei.flags & HPM_EVENT_MODELED);
        CHECK(strncmp(ei.name, "sim::", 5) == 0);
        n++;
    }
    CHECK_RC(rc, HPM_ENOEVENT);
    CHECK_RC(n, ci.num_events);
    /* hpm run programs every event of bgp: 56 kinds + 233 UPC codes */
    CHECK(n > 200);
    /* a bare name finds sim first */
    CHECK_RC(hpm_event_find("INSTRUCTIONS", &e), HPM_OK);
    CHECK(HPM_EVENT_COMPONENT(e) == 0);
    CHECK_RC(hpm_event_info(ev("sim::INSTRUCTIONS"), &ei), HPM_OK);
    CHECK(ei.flags == HPM_EVENT_MODELED && strcmp(ei.units, "events") == 0);
    CHECK(strstr(ei.description, "instructions completed") != NULL);
    CHECK_RC(hpm_event_info(ev("sim::CYCLES"), &ei), HPM_OK);
    CHECK(strcmp(ei.units, "cycles") == 0);
    CHECK_RC(hpm_event_info(ev("sim::pu0_instructions"), &ei), HPM_OK);
    CHECK(ei.flags == (HPM_EVENT_MODELED | HPM_EVENT_NODE_WIDE));
    CHECK(strcmp(ei.name, "sim::PU0_INSTRUCTIONS") == 0);
    CHECK_RC(hpm_event_info(ev("sim::DDR_READ_BYTES"), &ei), HPM_OK);
    CHECK(ei.flags == (HPM_EVENT_MODELED | HPM_EVENT_NODE_WIDE) && strcmp(ei.units, "bytes") == 0);
    CHECK_RC(hpm_event_find("sim::PU9_INSTRUCTIONS", &e), HPM_ENOCOMP); /* bgp has 4 cores */
    CHECK_RC(hpm_event_find("sim::NO_SUCH", &e), HPM_ENOEVENT);

    /* the virtual PMU sees no kernel code: a user-mode kind has no kernel
     * count (its user + kernel count is its user count) */
    s = make_set("sim::INSTRUCTIONS");
    CHECK_RC(hpm_set_domain(s, HPM_DOMAIN_KERNEL), HPM_ENOTSUP);
    CHECK_RC(hpm_set_domain(s, HPM_DOMAIN_ALL), HPM_OK);
    CHECK_RC(hpm_set_domain(s, HPM_DOMAIN_USER), HPM_OK);
    CHECK_RC(hpm_set_attach(s, getpid()), HPM_ENOTSUP);
    CHECK_RC(hpm_set_inherit(s, 1), HPM_OK); /* children under hpm: their live views */
    CHECK_RC(hpm_set_inherit(s, 0), HPM_OK);
    CHECK_RC(hpm_set_multiplex(s, 1), HPM_OK); /* accepted: counts everything */
    CHECK_RC(hpm_set_add(s, ev("perf::TASK-CLOCK")), HPM_ECONFLICT);
    {
        /* sim sets share the thread's counters: both run (check_two_sets) */
        int s2 = make_set("sim::CYCLES");
        CHECK_RC(hpm_start(s), HPM_OK);
        CHECK_RC(hpm_start(s2), HPM_OK);
        CHECK_RC(hpm_thread_running(0), 2);
        CHECK_RC(hpm_stop(s, NULL), HPM_OK);
        CHECK_RC(hpm_thread_running(0), 1);
        CHECK_RC(hpm_stop(s2, NULL), HPM_OK);
        CHECK_RC(hpm_thread_running(0), 0);
        CHECK_RC(hpm_set_destroy(s2), HPM_OK);
    }
    /* an empty domain is the component's default */
    {
        int s3;
        unsigned d = 0;
        CHECK_RC(hpm_set_create(&s3), HPM_OK);
        CHECK_RC(hpm_set_domain(s3, HPM_DOMAIN_KERNEL), HPM_OK);
        CHECK_RC(hpm_set_add(s3, ev("sim::INSTRUCTIONS")), HPM_ENOTSUP);
        CHECK_RC(hpm_set_add(s3, ev("sim::KERNEL_SYSCALLS")), 0); /* kernel work */
        CHECK_RC(hpm_set_remove(s3, ev("sim::KERNEL_SYSCALLS")), HPM_OK);
        CHECK_RC(hpm_set_domain(s3, HPM_DOMAIN_USER), HPM_OK);
        CHECK_RC(hpm_set_add(s3, ev("sim::INSTRUCTIONS")), 0);
        CHECK_RC(hpm_get_domain(s3, &d), HPM_OK);
        CHECK(d == HPM_DOMAIN_USER);
        CHECK_RC(hpm_set_destroy(s3), HPM_OK);
    }
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
    /* perf and os work beside sim */
    CHECK_RC(hpm_component_info(1, &ci), HPM_OK);
    CHECK(ci.enabled);
    CHECK_RC(hpm_component_info(2, &ci), HPM_OK);
    CHECK(ci.enabled);
    return 0;
}

/* A set of every sim event but BR_COND, up to want - 1 of them, then
 * BR_COND: its position (returned in *pos) is beyond 64 for want > 65. */
static int make_wide_set(int want, int *pos)
{
    hpm_event_t e, br = ev("sim::BR_COND");
    int s = -1, rc, n = 0;
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    for (rc = hpm_event_first(0, &e); rc == HPM_OK && n < want - 1; rc = hpm_event_next(&e))
        if (e != br) {
            CHECK_RC(hpm_set_add(s, e), n);
            n++;
        }
    *pos = hpm_set_add(s, br);
    CHECK_RC(*pos, n);
    return s;
}

static volatile int64_t wide_calls;
static volatile uint64_t wide_masks;

static void wide_overflow(int set, void *pc, uint64_t mask, void *uc)
{
    (void)set, (void)pc, (void)uc;
    wide_calls++;
    wide_masks |= mask;
}

/* A set wider than 64 events (200) counts every position: BR_COND, added
 * last, is exact; a set may hold as many events as the units' counters, and
 * no more. */
static int check_wide(void)
{
    struct hpm_component_info ci;
    int64_t *c = calloc(HPM_MAX_WIDE, sizeof *c), *v = calloc(HPM_MAX_WIDE, sizeof *v);
    int s, pos, i;
    uint64_t n = 100000;
    CHECK_RC(hpm_component_info(0, &ci), HPM_OK);
    CHECK(ci.num_events > 200 && ci.num_counters >= 200);
    printf("sim: %d events, %d counters\n", ci.num_events, ci.num_counters);
    s = make_wide_set(200, &pos);
    CHECK_RC(hpm_set_size(s), 200);
    CHECK_RC(pos, 199);
    if (pos != 199) {
        free(c);
        free(v);
        return 1; /* the set could not be made: nothing to count */
    }
    /* the constant of a start/stop pair (see the top of the file) */
    for (i = 0; i < 3; i++) {
        CHECK_RC(hpm_start(s), HPM_OK);
        CHECK_RC(hpm_stop(s, c), HPM_OK);
    }
    CHECK_RC(hpm_start(s), HPM_OK);
    hpm_work_branches(n);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    printf("200 events: BR_COND at position %d = %" PRId64 " (n + %" PRId64 ")\n", pos,
           v[pos], c[pos]);
    CHECK_I64(v[pos], (int64_t)n + c[pos]);
    /* read of the running set: the same position, through hpm_read */
    CHECK_RC(hpm_start(s), HPM_OK);
    hpm_work_branches(n);
    CHECK_RC(hpm_read(s, v), HPM_OK);
    /* + the tail of hpm_start and the head of hpm_read, which loop over the
     * 200 positions: about as many as a start/stop pair */
    CHECK(v[pos] >= (int64_t)n && v[pos] <= (int64_t)n + 2 * c[pos]);
    CHECK_RC(hpm_stop(s, NULL), HPM_OK);
    /* any position overflows: BR_COND at 199 is mask bit 199 % 64, one
     * call per threshold passed; position 135 shares that bit and cannot
     * have a threshold beside it */
    {
        hpm_event_t *evs = calloc(HPM_MAX_WIDE, sizeof *evs);
        CHECK_RC(hpm_set_events(s, evs, HPM_MAX_WIDE), 200);
        CHECK_RC(hpm_set_overflow(s, ev("sim::BR_COND"), 1000, 0, wide_overflow), HPM_OK);
        CHECK_RC(hpm_set_overflow(s, evs[135], 1000, 0, wide_overflow), HPM_ECONFLICT);
        CHECK_RC(hpm_set_overflow(s, evs[136], 1000000000, 0, wide_overflow), HPM_OK);
        CHECK_RC(hpm_set_overflow(s, evs[136], 0, 0, wide_overflow), HPM_OK);
        wide_calls = 0;
        wide_masks = 0;
        CHECK_RC(hpm_start(s), HPM_OK);
        hpm_work_branches(n);
        CHECK_RC(hpm_stop(s, v), HPM_OK);
        printf("200 events: BR_COND at position 199 overflowed %" PRId64 " times (count %" PRId64
               "), mask bits %#" PRIx64 "\n",
               (int64_t)wide_calls, v[pos], (uint64_t)wide_masks);
        CHECK_I64(wide_calls, v[pos] / 1000);
        CHECK(wide_masks == 1ull << (199 % 64));
        CHECK_RC(hpm_set_overflow(s, ev("sim::BR_COND"), 0, 0, wide_overflow), HPM_OK);
        free(evs);
    }
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
    if (ci.num_events > ci.num_counters) {
        /* one event more than the units' counters does not fit */
        int full = make_wide_set(ci.num_counters, &pos);
        hpm_event_t e;
        int rc, refused = 0;
        for (rc = hpm_event_first(0, &e); rc == HPM_OK; rc = hpm_event_next(&e))
            if ((rc = hpm_set_add(full, e)) != HPM_EEXISTS) {
                refused = rc == HPM_ECOUNTERS;
                break;
            }
        CHECK(refused);
        CHECK_RC(hpm_set_size(full), ci.num_counters);
        CHECK_RC(hpm_set_destroy(full), HPM_OK);
    }
    free(c);
    free(v);
    return 0;
}

/* Two sim sets running at once on one thread both count; together they may
 * take at most the units' counters. */
static int check_two_sets(void)
{
    struct hpm_component_info ci;
    int a = make_set("sim::BR_COND,sim::INSTRUCTIONS");
    int b = make_set("sim::FP_OPS,sim::BR_COND");
    int64_t va[2], vb[2];
    uint64_t nb = 200000, na = 300000;
    CHECK_RC(hpm_component_info(0, &ci), HPM_OK);
    CHECK_RC(hpm_start(a), HPM_OK);
    CHECK_RC(hpm_start(b), HPM_OK);
    CHECK_RC(hpm_set_state(a), HPM_SET_RUNNING);
    CHECK_RC(hpm_set_state(b), HPM_SET_RUNNING);
    hpm_work_branches(nb);
    hpm_work_adds(na);
    CHECK_RC(hpm_stop(b, vb), HPM_OK);
    hpm_work_branches(nb);
    CHECK_RC(hpm_stop(a, va), HPM_OK);
    printf("set a: BR_COND %" PRId64 ", INSTRUCTIONS %" PRId64 "; set b: FP_OPS %" PRId64
           ", BR_COND %" PRId64 "\n", va[0], va[1], vb[0], vb[1]);
    /* libhpm does no floating point: b's FP_OPS are exactly the adds */
    CHECK_I64(vb[0], (int64_t)na);
    /* b saw the first branch loop and the adds' loop, a both branch loops
     * too (plus the few branches of libhpm's calls between the reads) */
    CHECK(vb[1] >= (int64_t)(nb + na) && vb[1] < (int64_t)(nb + na) + 500);
    CHECK(va[0] >= (int64_t)(2 * nb + na) && va[0] < (int64_t)(2 * nb + na) + 1000);
    CHECK(va[1] > va[0]);
    if (ci.num_events >= ci.num_counters) {
        /* a set of all the counters does not fit beside a running one */
        int pos, full = make_wide_set(ci.num_counters, &pos);
        CHECK_RC(hpm_start(a), HPM_OK);
        CHECK_RC(hpm_start(full), HPM_ECOUNTERS);
        CHECK_RC(hpm_stop(a, NULL), HPM_OK);
        CHECK_RC(hpm_start(full), HPM_OK);
        CHECK_RC(hpm_stop(full, NULL), HPM_OK);
        CHECK_RC(hpm_set_destroy(full), HPM_OK);
    }
    CHECK_RC(hpm_set_destroy(a), HPM_OK);
    CHECK_RC(hpm_set_destroy(b), HPM_OK);
    return 0;
}

/* hpm_read_direct: only for the calling thread's own running set; its
 * function reads what hpm_read reads (the kinds-only path and the general
 * one, with a node-wide code), and none is handed out after the stop. */
/* counts read into the program's initialized data: a page of its file,
 * where the tool's answer from the translation cannot write (Valgrind's
 * scheduler answers the request) */
static int64_t read_into_file[2] = {-1, -1};

static int check_read_direct(void)
{
    int a = make_set("sim::INSTRUCTIONS,sim::BR_COND");
    int b = make_set("sim::BR_COND,sim::PU0_BR_COND");
    int sets[2] = {a, b}, k;
    hpm_reader_t fn = NULL;
    void *ctx = NULL;
    uint64_t nb = 100000;
    CHECK_RC(hpm_read_direct(a, &fn, &ctx), HPM_EINVAL); /* not running */
    CHECK_RC(hpm_read_direct(a, NULL, &ctx), HPM_EINVAL);
    {
        /* hpm_read's first call binds its symbol (the dynamic linker's
         * instructions would land between the reads compared below) */
        int64_t w[2];
        (void)hpm_read(a, w);
    }
    for (k = 0; k < 2; k++) {
        int s = sets[k];
        int64_t v1[2], v2[2], v3[2], v4[2];
        CHECK_RC(hpm_start(s), HPM_OK);
        CHECK_RC(hpm_read_direct(s, NULL, &ctx), HPM_EINVAL);
        CHECK_RC(hpm_read_direct(s, &fn, NULL), HPM_EINVAL);
        CHECK_RC(hpm_read_direct(s, &fn, &ctx), HPM_OK);
        hpm_work_branches(nb);
        CHECK_RC(fn(ctx, v1), HPM_OK);
        CHECK_RC(hpm_read(s, v2), HPM_OK);
        hpm_work_branches(nb);
        CHECK_RC(fn(ctx, v3), HPM_OK);
        /* the same counts whichever way the tool answers */
        hpm_work_branches(nb);
        CHECK_RC(fn(ctx, read_into_file), HPM_OK);
        hpm_work_branches(nb);
        CHECK_RC(fn(ctx, v4), HPM_OK);
        printf("read_direct set %d: %" PRId64 " %" PRId64 " | %" PRId64 " %" PRId64
               " | %" PRId64 " %" PRId64 "\n", k, v1[0], v1[1], v2[0], v2[1], v3[0], v3[1]);
        /* the loop's branches, then the few of hpm_read between the reads */
        CHECK(v1[1] >= (int64_t)nb && v1[1] < (int64_t)nb + 200);
        CHECK(v2[0] >= v1[0] && v2[1] >= v1[1] && v2[1] < v1[1] + 50);
        CHECK(v3[1] >= v2[1] + (int64_t)nb && v3[1] < v2[1] + (int64_t)nb + 50);
        if (k == 1) /* this thread runs on core 0: PU0_BR_COND is its BR_COND too */
            CHECK(v1[1] >= v1[0] && v3[1] >= v3[0]);
        CHECK(read_into_file[1] >= v3[1] + (int64_t)nb &&
              read_into_file[1] < v3[1] + (int64_t)nb + 50);
        CHECK(v4[1] >= read_into_file[1] + (int64_t)nb &&
              v4[1] < read_into_file[1] + (int64_t)nb + 50);
        CHECK(read_into_file[0] >= v3[0] && v4[0] >= read_into_file[0]);
        CHECK_RC(hpm_stop(s, NULL), HPM_OK);
        CHECK_RC(hpm_read_direct(s, &fn, &ctx), HPM_EINVAL); /* stopped */
        CHECK_RC(hpm_set_destroy(s), HPM_OK);
    }
    return 0;
}

/* hpm_read_direct_sums_ll: its arguments checked; its sums are the sums of
 * hpm_read's counts, whether the tool sums them (a set of the thread's
 * kinds) or the component does (a node-wide code in the set). */
static int check_read_direct_sums(void)
{
    int a = make_set("sim::INSTRUCTIONS,sim::BR_COND");
    int b = make_set("sim::BR_COND,sim::PU0_BR_COND");
    int sets[2] = {a, b}, k;
    const struct hpm_sum_term t[3] = {{0, 0, 1}, {1, 0, -1}, {1, 1, 2}};
    const struct hpm_sum_term far_pos[1] = {{2, 0, 1}}, no_out1[2] = {{0, 0, 1}, {1, 0, 1}};
    const struct hpm_sum_term wide[1] = {{0, 0, 1000}};
    hpm_reader_ll_t fn = NULL;
    void *ctx = NULL;
    uint64_t nb = 100000;
    CHECK_RC(hpm_read_direct_sums_ll(a, t, 3, 2, &fn, &ctx), HPM_EINVAL); /* not running */
    for (k = 0; k < 2; k++) {
        int s = sets[k];
        int64_t before[2], after[2];
        long long v[2] = {-1, -1};
        CHECK_RC(hpm_start(s), HPM_OK);
        CHECK_RC(hpm_read_direct_sums_ll(s, far_pos, 1, 1, &fn, &ctx), HPM_EINVAL);
        CHECK_RC(hpm_read_direct_sums_ll(s, no_out1, 2, 2, &fn, &ctx), HPM_EINVAL);
        CHECK_RC(hpm_read_direct_sums_ll(s, t, 3, 4, &fn, &ctx), HPM_EINVAL);
        CHECK_RC(hpm_read_direct_sums_ll(s, t, 0, 0, &fn, &ctx), HPM_EINVAL);
        CHECK_RC(hpm_read_direct_sums_ll(s, t, 3, 2, NULL, &ctx), HPM_EINVAL);
        CHECK_RC(hpm_read_direct_sums_ll(s, wide, 1, 1, &fn, &ctx), HPM_ENOTSUP);
        CHECK_RC(hpm_read_direct_sums_ll(s, t, 3, 2, &fn, &ctx), HPM_OK);
        hpm_work_branches(nb);
        CHECK_RC(hpm_read(s, before), HPM_OK);
        CHECK_RC(fn(ctx, v), HPM_OK);
        CHECK_RC(hpm_read(s, after), HPM_OK);
        printf("read_direct_sums set %d: %lld %lld between %" PRId64 " %" PRId64 " and %" PRId64
               " %" PRId64 "\n", k, v[0], v[1], before[0], before[1], after[0], after[1]);
        /* twice the branches, between the reads around it; the difference
         * of the set's two counts as they were read */
        CHECK(v[1] % 2 == 0 && v[1] / 2 >= before[1] && v[1] / 2 <= after[1]);
        CHECK(v[1] / 2 >= (long long)nb);
        if (k == 0)
            CHECK(v[0] > before[0] - before[1] - 100 && v[0] < after[0] - before[1] + 100);
        CHECK_RC(hpm_stop(s, NULL), HPM_OK);
        CHECK_RC(hpm_read_direct_sums_ll(s, t, 3, 2, &fn, &ctx), HPM_EINVAL); /* stopped */
        CHECK_RC(hpm_set_destroy(s), HPM_OK);
    }
    return 0;
}

/* One run of set a accumulating k times (hpm_accum; pinned 1: with
 * hpm_read_reset_pinned summed here; 2: with the read_reset that
 * hpm_pinned_resetters resolves) inside set b, started before a and
 * stopped after it: b's count less everything a gave. */
static int64_t accum_gap(int a, int b, int k, int pinned)
{
    int64_t sum[1] = {0}, v[1], last[1], whole[1];
    hpm_pin_t pin = NULL;
    hpm_reader_t read_reset = NULL;
    hpm_resetter_t reset = NULL;
    void *ctx = NULL;
    CHECK_RC(hpm_set_pin(a, &pin), HPM_OK);
    CHECK_RC(hpm_pinned_resetters(pin, &read_reset, &reset, &ctx), HPM_EINVAL); /* stopped */
    CHECK_RC(hpm_start(b), HPM_OK);
    CHECK_RC(hpm_start(a), HPM_OK);
    if (pinned == 2) {
        CHECK_RC(hpm_pinned_resetters(pin, &read_reset, &reset, &ctx), HPM_OK);
        CHECK(read_reset != NULL && reset != NULL && ctx != NULL);
    }
    for (int i = 0; i < k; i++) {
        hpm_work_adds(1000);
        if (pinned == 2) {
            CHECK_RC(read_reset(ctx, v), HPM_OK);
            sum[0] += v[0];
        } else if (pinned) {
            CHECK_RC(hpm_read_reset_pinned(pin, v), HPM_OK);
            sum[0] += v[0];
        } else {
            CHECK_RC(hpm_accum(a, sum), HPM_OK);
        }
    }
    CHECK_RC(hpm_stop(a, last), HPM_OK);
    CHECK_RC(hpm_stop(b, whole), HPM_OK);
    CHECK(sum[0] + last[0] >= 1000 * k);
    return whole[0] - (sum[0] + last[0]);
}

/* hpm_accum and hpm_read_reset_pinned restart the counts from the reading
 * that gave them, so what a accumulates adds up to all it counted: b less
 * a is the same after 1 and after 11 accumulations (a read, then a reset,
 * lost the instructions between the two at each). hpm_reset_pinned
 * restarts the counts of a running set and clears a stopped one's. */
static int check_accum(void)
{
    int a = make_set("sim::INSTRUCTIONS"), b = make_set("sim::INSTRUCTIONS");
    int64_t v[1];
    hpm_pin_t pin = NULL;
    static const char *const how[] = {"hpm_accum", "hpm_read_reset_pinned",
                                      "hpm_pinned_resetters' read_reset"};
    hpm_reader_t read_reset;
    hpm_resetter_t reset;
    void *ctx;
    for (int pinned = 0; pinned < 3; pinned++) {
        int64_t warm = accum_gap(a, b, 1, pinned); /* binds the calls' symbols */
        int64_t one = accum_gap(a, b, 1, pinned), eleven = accum_gap(a, b, 11, pinned);
        printf("%s: b - a after 1 accumulation %" PRId64 ", after 11 %" PRId64 "\n",
               how[pinned], one, eleven);
        CHECK(warm >= 0);
        CHECK_I64(eleven, one);
    }
    CHECK_RC(hpm_set_pin(a, &pin), HPM_OK);
    CHECK_RC(hpm_start(a), HPM_OK);
    hpm_work_adds(100000);
    CHECK_RC(hpm_reset_pinned(pin), HPM_OK);
    CHECK_RC(hpm_read_pinned(pin, v), HPM_OK);
    printf("after hpm_reset_pinned: %" PRId64 "\n", v[0]);
    CHECK(v[0] >= 0 && v[0] < 1000);
    /* the resolved reset restarts the counts as hpm_reset_pinned does */
    CHECK_RC(hpm_pinned_resetters(pin, &read_reset, &reset, &ctx), HPM_OK);
    hpm_work_adds(100000);
    CHECK_RC(reset(ctx), HPM_OK);
    CHECK_RC(hpm_read_pinned(pin, v), HPM_OK);
    printf("after the resolved reset: %" PRId64 "\n", v[0]);
    CHECK(v[0] >= 0 && v[0] < 1000);
    CHECK_RC(hpm_stop(a, v), HPM_OK);
    CHECK(v[0] > 0);
    CHECK_RC(hpm_reset_pinned(pin), HPM_OK);
    CHECK_RC(hpm_read(a, v), HPM_OK);
    CHECK_I64(v[0], 0);
    CHECK_RC(hpm_set_destroy(a), HPM_OK);
    CHECK_RC(hpm_set_destroy(b), HPM_OK);
    return 0;
}

/* BR_COND of n loop iterations, through start/stop and through reads. */
static int check_branch(void)
{
    static const uint64_t sizes[] = {1, 1000, 100000, 1000003};
    int s = make_set("sim::BR_COND,sim::INSTRUCTIONS,sim::BR_COND_TAKEN,sim::BRANCHES");
    int64_t c[4], v[4], a[4], b[4], base_read;
    unsigned i;

    /* the first pair also resolves lazily bound symbols and registers the
     * thread: measure the constant on the second and third */
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_stop(s, c), HPM_OK);
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_stop(s, c), HPM_OK);
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    CHECK(memcmp(c, v, sizeof c) == 0);
    printf("constant of a start/stop pair: %" PRId64 " conditional branches, %" PRId64
           " instructions\n", c[0], c[1]);
    CHECK(c[0] >= 0 && c[0] < 100 && c[1] > 0 && c[1] < 2000);
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t n = sizes[i];
        CHECK_RC(hpm_start(s), HPM_OK);
        hpm_work_branches(n);
        CHECK_RC(hpm_stop(s, v), HPM_OK);
        printf("n=%" PRIu64 ": BR_COND %" PRId64 " = n + %" PRId64 ", INSTRUCTIONS %" PRId64
               " = 2n+1 + %" PRId64 "\n", n, v[0], v[0] - (int64_t)n, v[1],
               v[1] - (int64_t)(2 * n + 1));
        CHECK_I64(v[0], (int64_t)n + c[0]);
        CHECK_I64(v[2], (int64_t)n - 1 + c[2]);
        CHECK_I64(v[3], (int64_t)n + c[3] + 2); /* + the call and the return */
        /* + the call's argument set-up: a register move or two */
        CHECK(v[1] - c[1] >= (int64_t)(2 * n + 1) && v[1] - c[1] <= (int64_t)(2 * n + 1) + 4);
    }
    /* reads of a running set: deltas, with the constant of a read pair */
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_read(s, a), HPM_OK);
    CHECK_RC(hpm_read(s, b), HPM_OK);
    base_read = b[0] - a[0];
    CHECK_RC(hpm_read(s, a), HPM_OK);
    hpm_work_branches(50000);
    CHECK_RC(hpm_read(s, b), HPM_OK);
    CHECK_I64(b[0] - a[0], 50000 + base_read);
    /* reset: from 0 again; accum adds and resets */
    CHECK_RC(hpm_reset(s), HPM_OK);
    hpm_work_branches(7000);
    CHECK_RC(hpm_read(s, a), HPM_OK);
    memset(v, 0, sizeof v);
    v[0] = 5;
    CHECK_RC(hpm_accum(s, v), HPM_OK);
    CHECK_RC(hpm_read(s, b), HPM_OK);
    printf("after reset: %" PRId64 "; accum %" PRId64 ", then %" PRId64 "\n", a[0], v[0], b[0]);
    CHECK(a[0] >= 7000 && a[0] < 7000 + 100);
    CHECK(v[0] >= 5 + a[0] && v[0] < 5 + a[0] + 300); /* + what ran after the read */
    CHECK(b[0] < 100);
    CHECK_RC(hpm_stop(s, NULL), HPM_OK);
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
    return 0;
}

/* FP_OPS of n scalar adds: libhpm itself does no floating point. */
static int check_fp(void)
{
    static const uint64_t sizes[] = {1, 100000, 2500000};
    int s = make_set("sim::FP_OPS,sim::FP_DP_SCALAR,sim::FP_INSTRUCTIONS,sim::FP_DP_128");
    int64_t c[4], v[4];
    unsigned i;
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_stop(s, c), HPM_OK);
    CHECK_I64(c[0], 0);
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t n = sizes[i];
        CHECK_RC(hpm_start(s), HPM_OK);
        hpm_work_adds(n);
        CHECK_RC(hpm_stop(s, v), HPM_OK);
        printf("n=%" PRIu64 ": FP_OPS %" PRId64 "\n", n, v[0]);
        CHECK_I64(v[0], (int64_t)n);
        CHECK_I64(v[1], (int64_t)n);
        CHECK_I64(v[2], (int64_t)n);
        CHECK_I64(v[3], 0);
    }
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
    return 0;
}

/* Two threads with different work, each counting itself. */
struct worker {
    uint64_t adds, branches;
    int64_t v[3], c[3];
    int rc;
    pthread_barrier_t *go;
};

static void *worker_main(void *p)
{
    struct worker *w = p;
    int s = make_set("sim::FP_OPS,sim::BR_COND,sim::INSTRUCTIONS");
    /* this thread's constant, after a first pair that registers the thread */
    w->rc = hpm_start(s);
    w->rc |= hpm_stop(s, w->c);
    w->rc |= hpm_start(s);
    w->rc |= hpm_stop(s, w->c);
    pthread_barrier_wait(w->go); /* both run at once: the tool interleaves them */
    w->rc |= hpm_start(s);
    hpm_work_adds(w->adds);
    hpm_work_branches(w->branches);
    w->rc |= hpm_stop(s, w->v);
    w->rc |= hpm_set_destroy(s);
    return NULL;
}

static int check_threads(void)
{
    pthread_t t[2];
    pthread_barrier_t go;
    struct worker w[2] = {{.adds = 300000, .branches = 1000}, {.adds = 1000, .branches = 700000}};
    int main_set = make_set("sim::FP_OPS");
    int64_t mv[1];
    int i;
    pthread_barrier_init(&go, NULL, 2);
    CHECK_RC(hpm_start(main_set), HPM_OK);
    w[0].go = w[1].go = &go;
    for (i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker_main, &w[i]);
    for (i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK_RC(hpm_stop(main_set, mv), HPM_OK);
    CHECK_I64(mv[0], 0); /* the main thread did no floating point */
    for (i = 0; i < 2; i++) {
        CHECK_RC(w[i].rc, HPM_OK);
        printf("thread %d: FP_OPS %" PRId64 " BR_COND %" PRId64 "\n", i, w[i].v[0], w[i].v[1]);
        CHECK_I64(w[i].v[0], (int64_t)w[i].adds);
        /* each loop: n branches; the other thread's are not counted */
        CHECK_I64(w[i].v[1] - w[i].c[1], (int64_t)(w[i].adds + w[i].branches));
    }
    CHECK_RC(hpm_set_destroy(main_set), HPM_OK);
    pthread_barrier_destroy(&go);
    return 0;
}

/* hpm_clock_ns(CLOCK_MONOTONIC), and hpm_clock_cycles at a rate, against
 * the tool's own reads of the clock (HPM_VPMU_CLOCK) around them: where
 * the tool syncs the program's clock to the TSC (HPM_VPMU_CLOCK_SYNC) the
 * reads between syncs are interpolated
 * from the program's rdtsc, and must still lie between the clock's values
 * before and after them (2 us of slack: the sync pair's skew and the
 * rate's error over one window) and never go back; in a second thread
 * too, whose first read makes its own sync. */
#define CLOCK_READS 100000
#define CLOCK_SLACK_NS 2000

/* hpm_clock_cycles' rate in the check (hpm_clock_set_mhz): BG/P's */
#define CLOCK_MHZ 850

static void *clock_reads(void *p)
{
    int *bad = p;
    int64_t prev = 0, prev_cyc = 0;
    for (int i = 0; i < CLOCK_READS; i++) {
        long before = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
        int64_t ns = hpm_clock_ns(CLOCK_MONOTONIC);
        int64_t cyc = hpm_clock_cycles();
        long after = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
        if (ns < before - CLOCK_SLACK_NS || ns > after + CLOCK_SLACK_NS || ns < prev) {
            if (bad[0]++ < 5)
                fprintf(stderr, "read %d: %ld <= %" PRId64 " <= %ld, previous %" PRId64 "\n", i,
                        before, ns, after, prev);
        }
        /* the cycles: the same clock at the rate, as far off as the
         * nanoseconds may be, never back */
        if (cyc < (before - CLOCK_SLACK_NS) * CLOCK_MHZ / 1000 ||
            cyc > (after + CLOCK_SLACK_NS) * CLOCK_MHZ / 1000 || cyc < prev_cyc) {
            if (bad[0]++ < 5)
                fprintf(stderr, "read %d: cycles %ld <= %" PRId64 " <= %ld, previous %" PRId64 "\n",
                        i, before * CLOCK_MHZ / 1000, cyc, after * CLOCK_MHZ / 1000, prev_cyc);
        }
        prev = ns;
        prev_cyc = cyc;
    }
    return NULL;
}

static int check_clock(void)
{
    uint64_t sync[4] = {0};
    long before = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
    long rc = HPM_VPMU_CLOCK_SYNC(sync);
    long after = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
    int bad[2] = {0, 0};
    pthread_t t;
    CHECK(rc == 0 || rc == HPM_VPMU_EINVAL);
    printf("clock: %s\n", rc == 0 ? "CLOCK_MONOTONIC from the TSC" : "requests (no TSC clock)");
    if (rc == 0) {
        CHECK(sync[1] >= (uint64_t)before && sync[1] <= (uint64_t)after);
        CHECK(sync[2] > 0 && sync[3] > 0);
        /* 1 ms of ticks is 1 ms again at the rate given */
        CHECK(sync[3] * sync[2] >> 32 >= 999000 && sync[3] * sync[2] >> 32 <= 1000000);
    }
    /* at 1000 MHz (until a rate is set) a cycle is a nanosecond */
    before = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
    int64_t cyc = hpm_clock_cycles();
    after = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
    CHECK(cyc >= before - CLOCK_SLACK_NS && cyc <= after + CLOCK_SLACK_NS);
    /* a lower rate holds at once in this thread, though its readings went
     * higher before */
    hpm_clock_set_mhz(CLOCK_MHZ);
    CHECK(pthread_create(&t, NULL, clock_reads, &bad[1]) == 0);
    clock_reads(&bad[0]);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_I64(bad[0], 0);
    CHECK_I64(bad[1], 0);
    /* no rate, or one beyond 1 THz: 1000 MHz again */
    for (int k = 0; k < 2; k++) {
        hpm_clock_set_mhz(k ? 2e6 : 0);
        before = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
        cyc = hpm_clock_cycles();
        after = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
        CHECK(cyc >= before - CLOCK_SLACK_NS && cyc <= after + CLOCK_SLACK_NS);
    }
    return 0;
}

/* The thread's BR_MISPREDICTS and CYCLES over n conditional branches
 * (the loop's exit mispredicts once a predictor runs). */
static void mispredicts_cycles(uint64_t n, uint64_t *mis, uint64_t *cyc)
{
    uint64_t k0[HPM_K_CORE_COUNT], k1[HPM_K_CORE_COUNT];
    CHECK(HPM_VPMU_READ_KINDS(k0, HPM_K_CORE_COUNT) == HPM_K_CORE_COUNT);
    hpm_work_branches(n);
    CHECK(HPM_VPMU_READ_KINDS(k1, HPM_K_CORE_COUNT) == HPM_K_CORE_COUNT);
    *mis = k1[HPM_K_BR_MISPREDICTS] - k0[HPM_K_BR_MISPREDICTS];
    *cyc = k1[HPM_K_CYCLES] - k0[HPM_K_CYCLES];
}

/* Under hpm run each event added asks for the models it needs, and only
 * those: a cache event starts the caches, not the predictor; a
 * misprediction event the predictor; cycles the timing model. */
static int check_models(void)
{
    uint64_t mis, cyc;
    int m = make_set("sim::L1D_READ_MISSES"), b, c;
    mispredicts_cycles(1000, &mis, &cyc);
    printf("the caches asked for: mispredicts %" PRIu64 ", cycles %" PRIu64 "\n", mis, cyc);
    CHECK_I64((int64_t)mis, 0);
    CHECK_I64((int64_t)cyc, 0);
    b = make_set("sim::BR_MISPREDICTS");
    mispredicts_cycles(1000, &mis, &cyc);
    printf("the predictor asked for: mispredicts %" PRIu64 ", cycles %" PRIu64 "\n", mis, cyc);
    CHECK(mis >= 1 && mis < 100);
    CHECK_I64((int64_t)cyc, 0);
    c = make_set("sim::CYCLES");
    mispredicts_cycles(1000, &mis, &cyc);
    printf("cycles asked for: mispredicts %" PRIu64 ", cycles %" PRIu64 "\n", mis, cyc);
    CHECK(mis >= 1 && cyc >= 1000);
    CHECK_RC(hpm_set_destroy(m), HPM_OK);
    CHECK_RC(hpm_set_destroy(b), HPM_OK);
    CHECK_RC(hpm_set_destroy(c), HPM_OK);
    return 0;
}

/* Node-wide events count every thread of a core (threads map to cores in
 * creation order: the main thread core 0, the next core 1). */
static void *node_worker(void *p)
{
    hpm_work_adds(*(uint64_t *)p);
    return NULL;
}

static int check_node(void)
{
    int s = make_set("sim::PU1_FP_OPS,sim::PU0_FP_OPS,sim::FP_OPS");
    uint64_t n = 123457;
    int64_t v[3];
    pthread_t t;
    CHECK_RC(hpm_start(s), HPM_OK);
    pthread_create(&t, NULL, node_worker, &n);
    pthread_join(t, NULL);
    hpm_work_adds(1000);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    printf("node: PU1_FP_OPS %" PRId64 " PU0_FP_OPS %" PRId64 " FP_OPS %" PRId64 "\n", v[0],
           v[1], v[2]);
    CHECK_I64(v[0], (int64_t)n); /* the other thread's adds, read from here */
    CHECK_I64(v[1], 1000);
    CHECK_I64(v[2], 1000); /* this thread's own */
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
    return 0;
}

static int check_regions(void)
{
    int64_t v[3], e[3];
    uint64_t calls = 0;
    FILE *f;
    char json[4096];
    size_t n;
    int i;
    CHECK_RC(hpm_region_events("sim::FP_OPS,sim::BR_COND,sim::INSTRUCTIONS"), HPM_OK);
    /* the constant of an empty region, after one that starts the thread's
     * region sets and resolves lazily bound symbols */
    CHECK_RC(hpm_region_begin("warm-up"), HPM_OK);
    CHECK_RC(hpm_region_end("warm-up"), HPM_OK);
    CHECK_RC(hpm_region_begin("empty"), HPM_OK);
    CHECK_RC(hpm_region_end("empty"), HPM_OK);
    CHECK_RC(hpm_region_read("empty", e, 3, &calls), 3);
    CHECK(calls == 1 && e[0] == 0 && e[1] < 200);
    CHECK_RC(hpm_region_begin("outer"), HPM_OK);
    hpm_work_adds(5000);
    for (i = 0; i < 2; i++) {
        CHECK_RC(hpm_region_begin("inner"), HPM_OK);
        hpm_work_adds(20000);
        CHECK_RC(hpm_region_end("inner"), HPM_OK);
    }
    CHECK_RC(hpm_region_end("outer"), HPM_OK);
    CHECK_RC(hpm_region_read("inner", v, 3, &calls), 3);
    printf("inner: calls %" PRIu64 " FP_OPS %" PRId64 " BR_COND %" PRId64 " (empty region %" PRId64
           ")\n", calls, v[0], v[1], e[1]);
    CHECK(calls == 2);
    CHECK_I64(v[0], 40000);
    CHECK_I64(v[1], 40000 + 2 * e[1]);
    CHECK_RC(hpm_region_read("outer", v, 3, &calls), 3);
    CHECK(calls == 1);
    CHECK_I64(v[0], 45000);
    CHECK(v[1] > 45000);
    /* the report */
    f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        CHECK_RC(hpm_region_report(f), HPM_OK);
        rewind(f);
        n = fread(json, 1, sizeof json - 1, f);
        json[n] = 0;
        fclose(f);
        CHECK(strstr(json, "{\"name\": \"inner\", \"calls\": 2, \"counts\": "
                           "{\"sim::FP_OPS\": 40000, ") != NULL);
        CHECK(strstr(json, "{\"name\": \"outer\", \"calls\": 1, \"counts\": "
                           "{\"sim::FP_OPS\": 45000, ") != NULL);
        if (failures)
            fputs(json, stderr);
    }
    return 0;
}

/* ------------------------------------------------------------ overflow */

static volatile int calls_bit[2], in_work, out_of_work;

static void on_overflow(int set, void *pc, uint64_t mask, void *uc)
{
    (void)set;
    (void)uc;
    if (mask & 1)
        calls_bit[0]++;
    if (mask & 2)
        calls_bit[1]++;
    if (hpm_work_in_branches(pc))
        in_work++;
    else
        out_of_work++;
}

static volatile int ninth;
static void on_overflow9(int set, void *pc, uint64_t mask, void *uc)
{
    (void)set;
    (void)uc;
    if (mask & (1u << 8))
        ninth++;
    if (hpm_work_in_branches(pc))
        in_work++;
    else
        out_of_work++;
}

/* count/threshold calls, within [lo_slack, hi_slack] of it */
static void expect_calls(const char *what, int got, int64_t count, int64_t thr, int lo, int hi)
{
    int64_t want = count / thr;
    printf("%s: %d calls for %" PRId64 " / %" PRId64 " = %" PRId64 "\n", what, got, count, thr,
           want);
    CHECK(got >= want - lo && got <= want + hi);
}

/* Overflow calls per set, for two sets running at once. */
static volatile int calls_of_set[2];
static int two_set_handles[2];

static void on_overflow_two(int set, void *pc, uint64_t mask, void *uc)
{
    (void)pc, (void)mask, (void)uc;
    calls_of_set[set == two_set_handles[1]]++;
}

/* Two sim sets running at once, each with overflow on the same kind: the
 * tool arms one threshold per kind and thread, so the second must not take
 * the first one's arm (nor its stop disarm the other): each set gets the
 * calls of its own threshold. */
static int check_overflow_two_sets(void)
{
    int a = make_set("sim::BR_COND"), b = make_set("sim::INSTRUCTIONS,sim::BR_COND");
    hpm_event_t br = ev("sim::BR_COND");
    int64_t va[1], vb[2];
    two_set_handles[0] = a;
    two_set_handles[1] = b;
    CHECK_RC(hpm_set_overflow(a, br, 50000, 0, on_overflow_two), HPM_OK);
    CHECK_RC(hpm_set_overflow(b, br, 200000, 0, on_overflow_two), HPM_OK);
    calls_of_set[0] = calls_of_set[1] = 0;
    CHECK_RC(hpm_start(a), HPM_OK);
    CHECK_RC(hpm_start(b), HPM_OK);
    hpm_work_branches(2000000);
    CHECK_RC(hpm_stop(b, vb), HPM_OK);
    /* a alone again: its arm must have survived b's stop */
    hpm_work_branches(1000000);
    CHECK_RC(hpm_stop(a, va), HPM_OK);
    expect_calls("BR_COND, set a (tool)", calls_of_set[0], va[0], 50000, 2, 0);
    expect_calls("BR_COND, set b (beside a)", calls_of_set[1], vb[1], 200000, 2, 0);
    /* and b alone gets the tool's interrupt again */
    calls_of_set[0] = calls_of_set[1] = 0;
    CHECK_RC(hpm_start(b), HPM_OK);
    hpm_work_branches(2000000);
    CHECK_RC(hpm_stop(b, vb), HPM_OK);
    expect_calls("BR_COND, set b alone", calls_of_set[1], vb[1], 200000, 2, 0);
    CHECK(calls_of_set[0] == 0);
    CHECK_RC(hpm_set_destroy(a), HPM_OK);
    CHECK_RC(hpm_set_destroy(b), HPM_OK);
    return 0;
}

static int check_overflow(void)
{
    int s = make_set("sim::INSTRUCTIONS,sim::BR_COND");
    hpm_event_t ins = ev("sim::INSTRUCTIONS"), br = ev("sim::BR_COND");
    int64_t v[2];

    /* the tool's interrupt: each threshold passed signals at the next
     * superblock; delivery waits for the scheduler, so the last one may
     * still be pending when the loop ends */
    CHECK_RC(hpm_set_overflow(s, ins, 200000, 0, on_overflow), HPM_OK);
    CHECK_RC(hpm_set_overflow(s, br, 50000, 0, on_overflow), HPM_OK);
    calls_bit[0] = calls_bit[1] = in_work = out_of_work = 0;
    CHECK_RC(hpm_start(s), HPM_OK);
    hpm_work_branches(2000000);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    expect_calls("INSTRUCTIONS, tool", calls_bit[0], v[0], 200000, 2, 0);
    expect_calls("BR_COND, tool", calls_bit[1], v[1], 50000, 2, 0);
    printf("PCs: %d in the loop, %d elsewhere\n", in_work, out_of_work);
    CHECK(out_of_work <= 2 && in_work >= 1);

    /* the software timer: one check per tick of the thread's CPU time, so
     * thresholds far apart compared with a tick */
    CHECK_RC(hpm_set_overflow(s, br, 0, 0, NULL), HPM_OK);
    CHECK_RC(hpm_set_overflow(s, ins, 4000000, HPM_OVERFLOW_FORCE_SOFTWARE, on_overflow),
             HPM_OK);
    calls_bit[0] = calls_bit[1] = in_work = out_of_work = 0;
    CHECK_RC(hpm_start(s), HPM_OK);
    hpm_work_branches(30000000);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    expect_calls("INSTRUCTIONS, software", calls_bit[0], v[0], 4000000, 3, 0);
    CHECK(calls_bit[1] == 0);
    printf("PCs: %d in the loop, %d elsewhere\n", in_work, out_of_work);
    CHECK(out_of_work <= 2);

    /* the tool arms at most HPM_VPMU_OVERFLOW_MAX (8) kinds per thread: the
     * ninth position falls back to the software timer at start */
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
    {
        static const char *const kinds[9] = {
            "sim::BR_COND",    "sim::BRANCHES",     "sim::BR_COND_TAKEN",
            "sim::BR_DIRECT",  "sim::BR_CALLS",     "sim::BR_RETURNS",
            "sim::LOADS",      "sim::STORES",       "sim::INSTRUCTIONS"};
        int64_t v9[9];
        int i;
        CHECK_RC(hpm_set_create(&s), HPM_OK);
        for (i = 0; i < 9; i++) {
            CHECK_RC(hpm_set_add(s, ev(kinds[i])), i);
            CHECK_RC(hpm_set_overflow(s, ev(kinds[i]), i == 8 ? 4000000 : 1000000000, 0,
                                      on_overflow9),
                     HPM_OK);
        }
        ninth = in_work = out_of_work = 0;
        CHECK_RC(hpm_start(s), HPM_OK);
        hpm_work_branches(30000000);
        CHECK_RC(hpm_stop(s, v9), HPM_OK);
        expect_calls("INSTRUCTIONS as the ninth kind, software", ninth, v9[8], 4000000, 3, 0);
        CHECK(out_of_work <= 2);
    }

    /* node-wide events have no tool interrupt: software without asking */
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
    s = make_set("sim::PU0_INSTRUCTIONS");
    CHECK_RC(hpm_set_overflow(s, ev("sim::PU0_INSTRUCTIONS"), 4000000, 0, on_overflow), HPM_OK);
    calls_bit[0] = in_work = out_of_work = 0;
    CHECK_RC(hpm_start(s), HPM_OK);
    hpm_work_branches(30000000);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    expect_calls("PU0_INSTRUCTIONS, software", calls_bit[0], v[0], 4000000, 3, 0);
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
    return 0;
}

static int check_machine(void)
{
    struct hpm_machine_info mi;
    int i, l1d = 0, l3 = 0;
    CHECK_RC(hpm_machine_info(&mi), HPM_OK);
    printf("machine %s: %d cores, %.0f MHz, %d caches\n", mi.name, mi.cores, mi.mhz, mi.n_caches);
    CHECK(mi.modeled == 1);
    CHECK(strcmp(mi.name, "bgp") == 0);
    CHECK(mi.cores == 4 && mi.threads_per_core == 1 && mi.sockets == 1);
    CHECK(mi.mhz == 850.0);
    CHECK(mi.memory_bytes == 2ull << 30);
    CHECK(mi.itlb_entries == 64 && mi.dtlb_entries == 64 && mi.page_size == 4096);
    for (i = 0; i < mi.n_caches; i++) {
        const struct hpm_cache_info *c = &mi.caches[i];
        if (c->level == 1 && c->type == 'D') {
            l1d = 1;
            CHECK(c->size == 32768 && c->line_size == 32 && c->associativity == 64 && !c->shared);
        }
        if (c->level == 3) {
            l3 = 1;
            CHECK(c->size == 8 << 20 && c->line_size == 128 && c->associativity == 8 && c->shared);
        }
    }
    CHECK(l1d && l3 && mi.n_caches == 4);
    return 0;
}

/* hpm run follows exec: the new program finds the virtual PMU too */
static int check_exec(void)
{
    char *args[] = {self_path, "machine", NULL};
    fflush(stdout);
    hpm_shutdown();
    execv(self_path, args);
    perror("execv");
    return 1;
}

static const struct {
    const char *name;
    int (*fn)(void);
} checks[] = {
    {"components", check_components},
    {"branch", check_branch},
    {"fp", check_fp},
    {"wide", check_wide},
    {"two_sets", check_two_sets},
    {"threads", check_threads},
    {"node", check_node},
    {"regions", check_regions},
    {"overflow", check_overflow},
    {"overflow_two_sets", check_overflow_two_sets},
    {"machine", check_machine},
    {"exec", check_exec},
    {"read_direct", check_read_direct},
    {"read_direct_sums", check_read_direct_sums},
    {"accum", check_accum},
    {"clock", check_clock},
    {"models", check_models},
};

int main(int argc, char **argv)
{
    struct hpm_component_info ci = {0};
    unsigned i;
    int rc;
    self_path = argv[0];
    if (argc != 2) {
        fprintf(stderr, "usage: hpm run -- %s CHECK\n", argv[0]);
        return 2;
    }
    if (hpm_init() < 0 || hpm_component_info(0, &ci) != HPM_OK || !ci.enabled) {
        fprintf(stderr, "sim component disabled: %s\n",
                ci.disabled_reason ? ci.disabled_reason : "?");
        return 77;
    }
    for (i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (strcmp(argv[1], checks[i].name) == 0) {
            rc = checks[i].fn();
            hpm_shutdown();
            if (rc || failures) {
                fprintf(stderr, "hpm_sim_prog %s: %d failure(s)\n", argv[1], failures);
                return 1;
            }
            printf("hpm_sim_prog %s: ok\n", argv[1]);
            return 0;
        }
    fprintf(stderr, "unknown check %s\n", argv[1]);
    return 2;
}
