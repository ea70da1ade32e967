/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hpm_api - libhpm natively (no virtual PMU): every public function's
 * error paths, the os and perf software components, sets on several
 * threads, overflow (perf's own interrupt and the software timer), regions,
 * hpm_machine_info on the host. Passes with and without a hardware PMU:
 * where there is none, a set with perf hardware events must fail cleanly and
 * the component must say why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hpm/hpm.h"
#include "hpm_check.h"
#include "hpm_rc_check.h"
#include "hpm_test_work.h"


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

static void ignore_overflow(int set, void *pc, uint64_t mask, void *uc)
{
    (void)set;
    (void)pc;
    (void)mask;
    (void)uc;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Touch len bytes of fresh memory in small pages: one minor fault a page. */
static void touch_pages(size_t len)
{
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    size_t i;
    CHECK(p != MAP_FAILED);
    if (p == MAP_FAILED)
        return;
    (void)madvise(p, len, MADV_NOHUGEPAGE); /* a huge page would be one fault */
    for (i = 0; i < len; i += 4096)
        p[i] = 1;
    munmap(p, len);
}

/* Spin in hpm_work_branches until the thread has used ms of CPU time. */
static void burn_ms(double ms)
{
    double end = cpu_ms() + ms;
    while (cpu_ms() < end) /* a syscall every ~0.5 ms: the PCs fall in the loop */
        hpm_work_branches(1500000);
}

/* ------------------------------------------------------------ before init */

static void test_not_initialised(void)
{
    hpm_event_t e = 0;
    struct hpm_component_info ci;
    struct hpm_event_info ei;
    struct hpm_machine_info mi;
    int64_t v[4];
    unsigned d;
    uint64_t calls;
    int s;

    CHECK(!hpm_is_initialized());
    CHECK_RC(hpm_num_components(), HPM_ENOINIT);
    CHECK_RC(hpm_component_info(0, &ci), HPM_ENOINIT);
    CHECK_RC(hpm_component_find("perf"), HPM_ENOINIT);
    CHECK_RC(hpm_event_find("perf::TASK-CLOCK", &e), HPM_ENOINIT);
    CHECK_RC(hpm_event_info(e, &ei), HPM_ENOINIT);
    CHECK_RC(hpm_event_first(1, &e), HPM_ENOINIT);
    CHECK_RC(hpm_event_next(&e), HPM_ENOINIT);
    CHECK_RC(hpm_set_create(&s), HPM_ENOINIT);
    CHECK_RC(hpm_set_destroy(0), HPM_ENOINIT);
    CHECK_RC(hpm_set_add(0, e), HPM_ENOINIT);
    CHECK_RC(hpm_set_remove(0, e), HPM_ENOINIT);
    CHECK_RC(hpm_set_size(0), HPM_ENOINIT);
    CHECK_RC(hpm_set_events(0, &e, 1), HPM_ENOINIT);
    CHECK_RC(hpm_set_component(0), HPM_ENOINIT);
    CHECK_RC(hpm_set_state(0), HPM_ENOINIT);
    CHECK_RC(hpm_set_domain(0, HPM_DOMAIN_USER), HPM_ENOINIT);
    CHECK_RC(hpm_get_domain(0, &d), HPM_ENOINIT);
    CHECK_RC(hpm_set_attach(0, 0), HPM_ENOINIT);
    CHECK_RC(hpm_set_inherit(0, 1), HPM_ENOINIT);
    CHECK_RC(hpm_set_multiplex(0, 1), HPM_ENOINIT);
    CHECK_RC(hpm_start(0), HPM_ENOINIT);
    CHECK_RC(hpm_stop(0, v), HPM_ENOINIT);
    CHECK_RC(hpm_read(0, v), HPM_ENOINIT);
    CHECK_RC(hpm_accum(0, v), HPM_ENOINIT);
    CHECK_RC(hpm_reset(0), HPM_ENOINIT);
    CHECK_RC(hpm_region_events("perf::TASK-CLOCK"), HPM_ENOINIT);
    CHECK_RC(hpm_region_begin("r"), HPM_ENOINIT);
    CHECK_RC(hpm_region_end("r"), HPM_ENOINIT);
    CHECK_RC(hpm_region_read("r", v, 4, &calls), HPM_ENOINIT);
    CHECK_RC(hpm_region_report(stderr), HPM_ENOINIT);
    CHECK_RC(hpm_thread_register(), HPM_ENOINIT);
    CHECK_RC(hpm_thread_unregister(), HPM_ENOINIT);
    CHECK_RC(hpm_machine_info(&mi), HPM_ENOINIT);
    CHECK(hpm_thread_id() == (unsigned long)syscall(SYS_gettid));
    hpm_shutdown(); /* harmless */
}

static void test_strerror(void)
{
    int a, b;
    for (a = HPM_OK; a >= HPM_E_LAST; a--) {
        const char *s = hpm_strerror(a);
        CHECK(s && s[0] && strcmp(s, "unknown error") != 0);
        for (b = HPM_OK; b > a; b--)
            CHECK(strcmp(s, hpm_strerror(b)) != 0);
    }
    CHECK(strcmp(hpm_strerror(1), "unknown error") == 0);
    CHECK(strcmp(hpm_strerror(HPM_E_LAST - 1), "unknown error") == 0);
    CHECK(strcmp(hpm_strerror(-1000), "unknown error") == 0);
}

/* ------------------------------------------------------------ components */

static int hw_pmu; /* perf offers hardware events here */

static void test_components(void)
{
    struct hpm_component_info ci;
    int n, i, total;
    hpm_event_t e, e2;

    n = hpm_init();
    CHECK(n >= 2); /* perf (software) and os at least */
    CHECK_RC(hpm_init(), n); /* idempotent */
    CHECK(hpm_is_initialized());
    CHECK_RC(hpm_num_components(), 7); /* sim, perf, os, sde, appio, sysdetect, uncore */
    CHECK_RC(hpm_component_find("sim"), 0);
    CHECK_RC(hpm_component_find("PERF"), 1);
    CHECK_RC(hpm_component_find("os"), 2);
    CHECK_RC(hpm_component_find("sde"), 3);
    CHECK_RC(hpm_component_find("appio"), 4);
    CHECK_RC(hpm_component_find("sysdetect"), 5);
    CHECK_RC(hpm_component_find("perf_event_uncore"), 6);
    CHECK_RC(hpm_component_find("papi"), HPM_ENOCOMP);
    CHECK_RC(hpm_component_find(NULL), HPM_EINVAL);
    CHECK_RC(hpm_component_info(-1, &ci), HPM_ENOCOMP);
    CHECK_RC(hpm_component_info(7, &ci), HPM_ENOCOMP);
    CHECK_RC(hpm_component_info(0, NULL), HPM_EINVAL);
    for (i = 0; i < 7; i++) {
        CHECK_RC(hpm_component_info(i, &ci), HPM_OK);
        CHECK(ci.id == i && ci.name && ci.description && ci.description[0]);
        CHECK(ci.enabled ? ci.disabled_reason == NULL : ci.disabled_reason != NULL);
    }

    /* sim: natively disabled, with its reason */
    CHECK_RC(hpm_component_info(0, &ci), HPM_OK);
    CHECK(ci.id == 0 && strcmp(ci.name, "sim") == 0);
    CHECK(!ci.enabled && ci.disabled_reason && strstr(ci.disabled_reason, "hpm run"));
    CHECK(ci.num_events == 0);
    CHECK_RC(hpm_event_first(0, &e), HPM_ENOCOMP);
    CHECK_RC(hpm_event_find("sim::INSTRUCTIONS", &e), HPM_ENOCOMP);
    CHECK_RC(hpm_event_find("sim::PU0_INSTRUCTIONS", &e), HPM_ENOCOMP);
    CHECK_RC(hpm_event_find("sim::NO_SUCH_KIND", &e), HPM_ENOEVENT);
    CHECK_RC(hpm_event_info(HPM_EVENT_MAKE(0, 0), (struct hpm_event_info *)&ci), HPM_ENOCOMP);

    /* sde: this program links no libsde: disabled, with its reason; its
     * names resolve only with the prefix */
    CHECK_RC(hpm_component_info(3, &ci), HPM_OK);
    CHECK(strcmp(ci.name, "sde") == 0 && !ci.enabled && strstr(ci.disabled_reason, "libsde"));
    CHECK_RC(hpm_event_find("sde::Lib::Counter", &e), HPM_ENOEVENT);
    CHECK_RC(hpm_event_find("Lib::Counter", &e), HPM_ENOEVENT);

    /* appio: the virtual PMU's I/O unit: natively disabled, with its reason */
    CHECK_RC(hpm_component_info(4, &ci), HPM_OK);
    CHECK(strcmp(ci.name, "appio") == 0 && !ci.enabled && strstr(ci.disabled_reason, "hpm run"));
    CHECK_RC(hpm_event_find("appio::READ_BYTES", &e), HPM_ENOCOMP);

    /* perf: enabled for software events always */
    CHECK_RC(hpm_component_info(1, &ci), HPM_OK);
    CHECK(ci.enabled && ci.disabled_reason == NULL && strcmp(ci.name, "perf") == 0);
    CHECK(ci.flags & HPM_COMP_OVERFLOW);
    CHECK(ci.domains == HPM_DOMAIN_ALL && ci.default_domain == HPM_DOMAIN_USER);
    hw_pmu = hpm_event_find("perf::INSTRUCTIONS", &e) == HPM_OK;
    if (!hw_pmu) {
        /* no PMU: the hardware part is off, says why, and refuses cleanly */
        CHECK(ci.description && strstr(ci.description, "no hardware PMU"));
        CHECK(ci.num_counters == 0);
        CHECK_RC(hpm_event_find("perf::INSTRUCTIONS", &e), HPM_ENOCOMP);
        CHECK_RC(hpm_event_find("perf::PERF_COUNT_HW_CPU_CYCLES", &e), HPM_ENOCOMP);
        CHECK_RC(hpm_event_find("perf::BRANCH-MISSES", &e), HPM_ENOCOMP);
        CHECK_RC(hpm_event_find("INSTRUCTIONS", &e), HPM_ENOCOMP);
        CHECK_RC(hpm_event_find("perf::INST_RETIRED:ANY_P", &e), HPM_ENOEVENT);
    }
    printf("perf: %s\n", ci.description);
    for (total = 0, i = hpm_event_first(1, &e); i == HPM_OK; i = hpm_event_next(&e))
        total++;
    CHECK_RC(total, ci.num_events);
    CHECK(total >= 9);

    /* os */
    CHECK_RC(hpm_component_info(2, &ci), HPM_OK);
    CHECK(ci.enabled && ci.domains == HPM_DOMAIN_ALL && ci.num_counters == 0);
    for (total = 0, i = hpm_event_first(2, &e); i == HPM_OK; i = hpm_event_next(&e))
        total++;
    CHECK_RC(total, ci.num_events);
    CHECK(total >= 12);
    CHECK_RC(hpm_event_first(7, &e), HPM_ENOCOMP);
    CHECK_RC(hpm_event_first(-1, &e), HPM_ENOCOMP);
    CHECK_RC(hpm_event_first(1, NULL), HPM_EINVAL);
    CHECK_RC(hpm_event_next(NULL), HPM_EINVAL);

    /* names: both spellings, any case, bare names, unknowns */
    CHECK_RC(hpm_event_find("perf::TASK-CLOCK", &e), HPM_OK);
    CHECK_RC(hpm_event_find("perf::PERF_COUNT_SW_TASK_CLOCK", &e2), HPM_OK);
    CHECK(e == e2 && HPM_EVENT_COMPONENT(e) == 1);
    CHECK_RC(hpm_event_find("Perf::task-clock", &e2), HPM_OK);
    CHECK(e == e2);
    CHECK_RC(hpm_event_find("TASK-CLOCK", &e2), HPM_OK);
    CHECK(e == e2);
    CHECK_RC(hpm_event_find("perf::CS", &e2), HPM_OK);
    CHECK_RC(hpm_event_find("minor_faults", &e2), HPM_OK);
    CHECK(HPM_EVENT_COMPONENT(e2) == 2);
    CHECK_RC(hpm_event_find("os::THREAD_USER_TIME", &e2), HPM_OK);
    CHECK_RC(hpm_event_find("nosuch", &e), HPM_ENOEVENT);
    CHECK_RC(hpm_event_find("perf::NOSUCH", &e), HPM_ENOEVENT);
    CHECK_RC(hpm_event_find("os::TASK-CLOCK", &e), HPM_ENOEVENT);
    CHECK_RC(hpm_event_find("zz::TASK-CLOCK", &e), HPM_ENOEVENT);
    CHECK_RC(hpm_event_find("", &e), HPM_EINVAL);
    CHECK_RC(hpm_event_find(NULL, &e), HPM_EINVAL);
    CHECK_RC(hpm_event_find("perf::TASK-CLOCK", NULL), HPM_EINVAL);
    {
        char longname[300];
        memset(longname, 'A', sizeof longname - 1);
        longname[sizeof longname - 1] = 0;
        CHECK_RC(hpm_event_find(longname, &e), HPM_ENOEVENT);
    }
}

static void test_event_info(void)
{
    struct hpm_event_info ei;
    hpm_event_t e = ev("perf::TASK-CLOCK");
    CHECK_RC(hpm_event_info(e, &ei), HPM_OK);
    CHECK(strcmp(ei.name, "perf::TASK-CLOCK") == 0 && strcmp(ei.units, "ns") == 0);
    CHECK(ei.event == e && ei.component == 1 && ei.flags == 0 && ei.description[0]);
    e = ev("os::RESIDENT_MEMORY");
    CHECK_RC(hpm_event_info(e, &ei), HPM_OK);
    CHECK(ei.flags & HPM_EVENT_INSTANT);
    CHECK(strcmp(ei.units, "bytes") == 0);
    e = ev("os::MINOR_FAULTS");
    CHECK_RC(hpm_event_info(e, &ei), HPM_OK);
    CHECK(strstr(ei.description, "whole process") != NULL); /* says it is per process */
    CHECK_RC(hpm_event_info(e, NULL), HPM_EINVAL);
    CHECK_RC(hpm_event_info(HPM_EVENT_MAKE(9, 0), &ei), HPM_ENOCOMP);
    CHECK_RC(hpm_event_info(HPM_EVENT_MAKE(1, 0xfffff), &ei), HPM_ENOEVENT);
    CHECK_RC(hpm_event_info(HPM_EVENT_MAKE(2, 0xfffff), &ei), HPM_ENOEVENT);
}

/* ------------------------------------------------------------ sets */

static void test_set_errors(void)
{
    int s, s2, i;
    hpm_event_t tc = ev("perf::TASK-CLOCK"), pf = ev("perf::PAGE-FAULTS");
    hpm_event_t mf = ev("os::MINOR_FAULTS"), evs[4];
    int64_t v[4];
    unsigned d;

    CHECK_RC(hpm_set_create(NULL), HPM_EINVAL);
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    CHECK(s >= 0);
    for (i = 0; i < 3; i++) {
        static const int bad[] = {-1, 65536, 4000};
        CHECK_RC(hpm_set_destroy(bad[i]), HPM_ENOSET);
        CHECK_RC(hpm_set_add(bad[i], tc), HPM_ENOSET);
        CHECK_RC(hpm_set_remove(bad[i], tc), HPM_ENOSET);
        CHECK_RC(hpm_set_size(bad[i]), HPM_ENOSET);
        CHECK_RC(hpm_set_state(bad[i]), HPM_ENOSET);
        CHECK_RC(hpm_set_component(bad[i]), HPM_ENOSET);
        CHECK_RC(hpm_start(bad[i]), HPM_ENOSET);
        CHECK_RC(hpm_stop(bad[i], v), HPM_ENOSET);
        CHECK_RC(hpm_read(bad[i], v), HPM_ENOSET);
        CHECK_RC(hpm_accum(bad[i], v), HPM_ENOSET);
        CHECK_RC(hpm_reset(bad[i]), HPM_ENOSET);
        CHECK_RC(hpm_set_domain(bad[i], HPM_DOMAIN_USER), HPM_ENOSET);
        CHECK_RC(hpm_get_domain(bad[i], &d), HPM_ENOSET);
        CHECK_RC(hpm_set_attach(bad[i], 0), HPM_ENOSET);
        CHECK_RC(hpm_set_inherit(bad[i], 0), HPM_ENOSET);
        CHECK_RC(hpm_set_multiplex(bad[i], 0), HPM_ENOSET);
        CHECK_RC(hpm_set_events(bad[i], evs, 4), HPM_ENOSET);
    }
    /* empty */
    CHECK_RC(hpm_set_size(s), 0);
    CHECK_RC(hpm_set_component(s), HPM_ENOEVENT);
    CHECK_RC(hpm_set_state(s), HPM_SET_STOPPED);
    CHECK_RC(hpm_start(s), HPM_EINVAL);
    CHECK_RC(hpm_stop(s, v), HPM_ENOTRUNNING);
    CHECK_RC(hpm_get_domain(s, &d), HPM_OK);
    CHECK(d == HPM_DOMAIN_USER);
    CHECK_RC(hpm_get_domain(s, NULL), HPM_EINVAL);
    CHECK_RC(hpm_set_remove(s, tc), HPM_ENOEVENT);
    /* events of a disabled or unknown component, unknown indices */
    CHECK_RC(hpm_set_add(s, HPM_EVENT_MAKE(0, 0)), HPM_ENOCOMP);
    CHECK_RC(hpm_set_add(s, HPM_EVENT_MAKE(6, 0)), HPM_ENOCOMP);
    /* sysdetect (5) is enabled and has no events */
    CHECK_RC(hpm_set_add(s, HPM_EVENT_MAKE(5, 0)), HPM_ENOEVENT);
    CHECK_RC(hpm_set_add(s, HPM_EVENT_MAKE(1, 0xabcde)), HPM_ENOEVENT);
    CHECK_RC(hpm_set_size(s), 0);
    /* add, positions, conflicts */
    CHECK_RC(hpm_set_add(s, tc), 0);
    CHECK_RC(hpm_set_add(s, pf), 1);
    CHECK_RC(hpm_set_add(s, tc), HPM_EEXISTS);
    CHECK_RC(hpm_set_add(s, mf), HPM_ECONFLICT);
    CHECK_RC(hpm_set_size(s), 2);
    CHECK_RC(hpm_set_component(s), 1);
    CHECK_RC(hpm_set_events(s, evs, 4), 2);
    CHECK(evs[0] == tc && evs[1] == pf);
    CHECK_RC(hpm_set_events(s, evs, 1), 1);
    CHECK_RC(hpm_set_events(s, NULL, 4), HPM_EINVAL);
    CHECK_RC(hpm_set_events(s, evs, -1), HPM_EINVAL);
    /* remove moves later positions down */
    CHECK_RC(hpm_set_remove(s, tc), HPM_OK);
    CHECK_RC(hpm_set_events(s, evs, 4), 1);
    CHECK(evs[0] == pf);
    CHECK_RC(hpm_set_remove(s, pf), HPM_OK);
    CHECK_RC(hpm_set_component(s), HPM_ENOEVENT);
    /* emptied: another component may take it */
    CHECK_RC(hpm_set_add(s, mf), 0);
    CHECK_RC(hpm_set_component(s), 2);
    CHECK_RC(hpm_set_remove(s, mf), HPM_OK);
    CHECK_RC(hpm_set_add(s, tc), 0);

    /* running */
    CHECK_RC(hpm_read(s, NULL), HPM_EINVAL);
    CHECK_RC(hpm_accum(s, NULL), HPM_EINVAL);
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_set_state(s), HPM_SET_RUNNING);
    CHECK_RC(hpm_start(s), HPM_ERUNNING);
    CHECK_RC(hpm_set_add(s, pf), HPM_ERUNNING);
    CHECK_RC(hpm_set_remove(s, tc), HPM_ERUNNING);
    CHECK_RC(hpm_set_destroy(s), HPM_ERUNNING);
    CHECK_RC(hpm_set_domain(s, HPM_DOMAIN_USER), HPM_ERUNNING);
    CHECK_RC(hpm_set_attach(s, 0), HPM_ERUNNING);
    CHECK_RC(hpm_set_inherit(s, 1), HPM_ERUNNING);
    CHECK_RC(hpm_set_multiplex(s, 1), HPM_ERUNNING);
    /* a second perf set on this thread conflicts; an os set does not */
    CHECK_RC(hpm_set_create(&s2), HPM_OK);
    CHECK(s2 != s);
    CHECK_RC(hpm_set_add(s2, pf), 0);
    CHECK_RC(hpm_start(s2), HPM_ECONFLICT);
    CHECK_RC(hpm_set_state(s2), HPM_SET_STOPPED);
    CHECK_RC(hpm_set_remove(s2, pf), HPM_OK);
    CHECK_RC(hpm_set_add(s2, mf), 0);
    CHECK_RC(hpm_start(s2), HPM_OK);
    CHECK_RC(hpm_stop(s2, NULL), HPM_OK);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    CHECK_RC(hpm_stop(s, v), HPM_ENOTRUNNING);
    /* after the stop, the other perf set can run */
    CHECK_RC(hpm_set_remove(s2, mf), HPM_OK);
    CHECK_RC(hpm_set_add(s2, pf), 0);
    CHECK_RC(hpm_start(s2), HPM_OK);
    CHECK_RC(hpm_stop(s2, v), HPM_OK);
    CHECK_RC(hpm_set_destroy(s2), HPM_OK);
    CHECK_RC(hpm_set_destroy(s2), HPM_ENOSET);
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
}

static void test_perf_software(void)
{
    int s;
    int64_t a[3], b[3], c[3], acc[3] = {0, 0, 0};
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    CHECK_RC(hpm_set_add(s, ev("perf::TASK-CLOCK")), 0);
    CHECK_RC(hpm_set_add(s, ev("perf::PAGE-FAULTS")), 1);
    CHECK_RC(hpm_set_add(s, ev("perf::CONTEXT-SWITCHES")), 2);
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_read(s, a), HPM_OK);
    burn_ms(30);
    CHECK_RC(hpm_read(s, b), HPM_OK);
    /* task-clock grows with the busy loop: 30 ms of this thread's CPU */
    CHECK(b[0] - a[0] >= 25 * 1000000LL && b[0] - a[0] < 3000 * 1000000LL);
    /* page faults grow when new memory is touched */
    touch_pages(4 << 20);
    CHECK_RC(hpm_read(s, c), HPM_OK);
    CHECK(c[1] - b[1] >= 1000);
    CHECK_RC(hpm_accum(s, acc), HPM_OK);
    CHECK(acc[0] >= 25 * 1000000LL);
    CHECK_RC(hpm_read(s, a), HPM_OK);
    CHECK(a[0] < acc[0]); /* accum reset the counts */
    {
        /* through a pin, as libpapi calls them: perf reads, then resets */
        hpm_pin_t pin = NULL;
        CHECK_RC(hpm_set_pin(s, &pin), HPM_OK);
        burn_ms(10);
        CHECK_RC(hpm_read_reset_pinned(pin, b), HPM_OK);
        CHECK(b[0] >= 8 * 1000000LL);
        CHECK_RC(hpm_read_pinned(pin, c), HPM_OK);
        CHECK(c[0] >= 0 && c[0] < b[0]); /* counting again from the read */
        burn_ms(10);
        CHECK_RC(hpm_reset_pinned(pin), HPM_OK);
        CHECK_RC(hpm_read_pinned(pin, c), HPM_OK);
        CHECK(c[0] >= 0 && c[0] < 5 * 1000000LL);
        CHECK_RC(hpm_reset_pinned(NULL), HPM_EINVAL);
        CHECK_RC(hpm_read_reset_pinned(pin, NULL), HPM_EINVAL);
        {
            /* perf is not thread-bound: any thread may reset its sets */
            hpm_reader_t rr = NULL;
            hpm_resetter_t rs = NULL;
            void *cx = NULL;
            CHECK_RC(hpm_pinned_resetters(pin, &rr, &rs, &cx), HPM_EINVAL);
            CHECK_RC(hpm_pinned_resetters(pin, NULL, &rs, &cx), HPM_EINVAL);
        }
    }
    burn_ms(5);
    CHECK_RC(hpm_stop(s, b), HPM_OK);
    /* a stopped set keeps its counts; a reset zeroes them */
    CHECK_RC(hpm_read(s, c), HPM_OK);
    CHECK(memcmp(b, c, sizeof b) == 0 && c[0] >= 4 * 1000000LL);
    CHECK_RC(hpm_accum(s, acc), HPM_OK);
    CHECK_RC(hpm_read(s, c), HPM_OK);
    CHECK(c[0] == 0 && c[1] == 0);
    CHECK_RC(hpm_reset(s), HPM_OK);
    /* restart: counts start again from 0 */
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_reset(s), HPM_OK);
    CHECK_RC(hpm_read(s, a), HPM_OK);
    CHECK(a[0] >= 0 && a[0] < 5 * 1000000LL);
    CHECK_RC(hpm_stop(s, NULL), HPM_OK);

    /* multiplexed: every event its own group, the kernel may time-slice */
    CHECK_RC(hpm_set_multiplex(s, 1), HPM_OK);
    CHECK_RC(hpm_start(s), HPM_OK);
    burn_ms(10);
    CHECK_RC(hpm_stop(s, a), HPM_OK);
    CHECK(a[0] >= 8 * 1000000LL);
    CHECK_RC(hpm_set_multiplex(s, 0), HPM_OK);

    /* domains */
    CHECK_RC(hpm_set_domain(s, 0), HPM_EINVAL);
    CHECK_RC(hpm_set_domain(s, 8), HPM_EINVAL);
    {
        /* kernel counting: allowed for root or perf_event_paranoid < 2 */
        int rc = hpm_set_domain(s, HPM_DOMAIN_ALL);
        unsigned d = 0;
        CHECK(rc == HPM_OK || rc == HPM_EPERM);
        CHECK_RC(hpm_get_domain(s, &d), HPM_OK);
        CHECK(d == (rc == HPM_OK ? HPM_DOMAIN_ALL : HPM_DOMAIN_USER));
        CHECK_RC(hpm_set_domain(s, HPM_DOMAIN_USER), HPM_OK);
    }
    CHECK_RC(hpm_set_destroy(s), HPM_OK);

    /* hardware events: counted where there is a PMU, refused cleanly here */
    if (!hw_pmu) {
        hpm_event_t e;
        CHECK_RC(hpm_event_find("perf::CPU-CYCLES", &e), HPM_ENOCOMP);
        CHECK_RC(hpm_set_create(&s), HPM_OK);
        CHECK_RC(hpm_set_add(s, HPM_EVENT_MAKE(1, 0x101)), HPM_ENOEVENT);
        CHECK_RC(hpm_set_size(s), 0);
        CHECK_RC(hpm_set_destroy(s), HPM_OK);
    } else {
        int64_t v[2];
        CHECK_RC(hpm_set_create(&s), HPM_OK);
        CHECK_RC(hpm_set_add(s, ev("perf::INSTRUCTIONS")), 0);
        CHECK_RC(hpm_start(s), HPM_OK);
        hpm_work_branches(1000000);
        CHECK_RC(hpm_stop(s, v), HPM_OK);
        CHECK(v[0] >= 2000000);
        CHECK_RC(hpm_set_destroy(s), HPM_OK);
    }
}

static void test_perf_attach_inherit(void)
{
    int s, status;
    int64_t v[1];
    pid_t child;
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    CHECK_RC(hpm_set_attach(s, -1), HPM_EINVAL);
    CHECK_RC(hpm_set_add(s, ev("perf::TASK-CLOCK")), 0);
    /* no such thread */
    CHECK(hpm_set_attach(s, 0x3ffffff0) < 0);
    /* attached to this very thread: counts it, takes no thread slot */
    CHECK_RC(hpm_set_attach(s, (pid_t)syscall(SYS_gettid)), HPM_OK);
    CHECK_RC(hpm_start(s), HPM_OK);
    burn_ms(10);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    CHECK(v[0] >= 8 * 1000000LL);
    CHECK_RC(hpm_set_attach(s, 0), HPM_OK);
    /* inherit: a child's time is added when it exits */
    CHECK_RC(hpm_set_inherit(s, 1), HPM_OK);
    CHECK_RC(hpm_start(s), HPM_OK);
    child = fork();
    if (child == 0) {
        burn_ms(40);
        _exit(0);
    }
    CHECK(child > 0);
    waitpid(child, &status, 0);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    CHECK(v[0] >= 35 * 1000000LL);
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
}

static void test_os(void)
{
    int s, i;
    int64_t a[7], b[7];
    FILE *f;
    char buf[4096];
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    CHECK_RC(hpm_set_add(s, ev("os::MINOR_FAULTS")), 0);
    CHECK_RC(hpm_set_add(s, ev("os::WRITE_CHARS")), 1);
    CHECK_RC(hpm_set_add(s, ev("os::WRITE_SYSCALLS")), 2);
    CHECK_RC(hpm_set_add(s, ev("os::RESIDENT_MEMORY")), 3);
    CHECK_RC(hpm_set_add(s, ev("os::THREAD_USER_TIME")), 4);
    CHECK_RC(hpm_set_add(s, ev("os::THREADS")), 5);
    CHECK_RC(hpm_set_add(s, ev("os::THREAD_SYSTEM_TIME")), 6);
    /* the counts are not split by mode: a domain is accepted, not a filter */
    CHECK_RC(hpm_set_domain(s, HPM_DOMAIN_USER), HPM_OK);
    CHECK_RC(hpm_set_domain(s, HPM_DOMAIN_ALL), HPM_OK);
    CHECK_RC(hpm_set_attach(s, 1), HPM_ENOTSUP);
    CHECK_RC(hpm_set_inherit(s, 1), HPM_ENOTSUP);
    CHECK_RC(hpm_set_multiplex(s, 1), HPM_OK); /* no counter limit: nothing to do */
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_read(s, a), HPM_OK);
    f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        memset(buf, 'x', sizeof buf);
        for (i = 0; i < 25; i++)
            (void)!write(fileno(f), buf, sizeof buf);
        fclose(f);
    }
    touch_pages(4 << 20);
    burn_ms(20);
    CHECK_RC(hpm_read(s, b), HPM_OK);
    CHECK(b[0] - a[0] >= 1000);                /* 4 MB touched: 1024 pages */
    CHECK(b[1] - a[1] >= 25 * 4096);           /* written bytes */
    CHECK(b[2] - a[2] >= 25);                  /* write calls */
    CHECK(a[3] > 0 && b[3] > 4096);            /* a level, not a delta */
    /* this thread's CPU time: rusage splits it into user and system time by
     * tick samples, so only the sum is sure */
    CHECK(b[4] + b[6] >= 18 * 1000000LL);
    CHECK(a[5] >= 1 && b[5] >= 1);
    CHECK_RC(hpm_stop(s, b), HPM_OK);
    CHECK_RC(hpm_set_overflow(s, ev("os::RESIDENT_MEMORY"), 1000, 0, ignore_overflow),
             HPM_ENOTSUP);
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
}

/* ------------------------------------------------------------ threads */

struct thr_arg {
    int set;
    double ms;
    int64_t value, value2;
    int rc_start, rc_read_other;
    pthread_barrier_t *started, *read_done;
};

static void *thr_main(void *p)
{
    struct thr_arg *a = p;
    a->rc_start = hpm_start(a->set);
    pthread_barrier_wait(a->started);
    pthread_barrier_wait(a->read_done); /* the main thread reads meanwhile */
    burn_ms(a->ms);
    {
        int64_t v[2] = {0, 0};
        a->rc_start |= hpm_stop(a->set, v);
        a->value = v[0];
        a->value2 = v[1];
    }
    return NULL;
}

static unsigned long my_id(void)
{
    return 4242;
}

static void test_threads(void)
{
    pthread_t t1, t2;
    pthread_barrier_t started, read_done;
    struct thr_arg a1, a2;
    int64_t v[2];
    int os_set;

    CHECK_RC(hpm_thread_init(NULL), HPM_EINVAL);
    CHECK_RC(hpm_thread_register(), HPM_OK);
    pthread_barrier_init(&started, NULL, 3);
    pthread_barrier_init(&read_done, NULL, 3);
    memset(&a1, 0, sizeof a1);
    memset(&a2, 0, sizeof a2);
    a1.ms = 10;
    a2.ms = 60;
    a1.started = a2.started = &started;
    a1.read_done = a2.read_done = &read_done;
    CHECK_RC(hpm_set_create(&a1.set), HPM_OK);
    CHECK_RC(hpm_set_create(&a2.set), HPM_OK);
    CHECK_RC(hpm_set_add(a1.set, ev("perf::TASK-CLOCK")), 0);
    CHECK_RC(hpm_set_add(a2.set, ev("os::THREAD_USER_TIME")), 0);
    CHECK_RC(hpm_set_add(a2.set, ev("os::THREAD_SYSTEM_TIME")), 1);
    CHECK_RC(hpm_set_create(&os_set), HPM_OK);
    pthread_create(&t1, NULL, thr_main, &a1);
    pthread_create(&t2, NULL, thr_main, &a2);
    pthread_barrier_wait(&started);
    /* perf reads any thread's fds; an os set reads its own thread's rusage */
    CHECK_RC(hpm_read(a1.set, v), HPM_OK);
    CHECK_RC(hpm_read(a2.set, v), HPM_EINVAL);
    CHECK_RC(hpm_stop(a2.set, v), HPM_EINVAL);
    CHECK_RC(hpm_reset(a2.set), HPM_EINVAL);
    /* the main thread's slots are its own */
    CHECK_RC(hpm_set_add(os_set, ev("os::THREAD_USER_TIME")), 0);
    CHECK_RC(hpm_start(os_set), HPM_OK);
    pthread_barrier_wait(&read_done);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    CHECK_RC(a1.rc_start, HPM_OK);
    CHECK_RC(a2.rc_start, HPM_OK);
    /* each set counted its own thread */
    CHECK(a1.value >= 9 * 1000000LL && a1.value < 50 * 1000000LL);
    CHECK(a2.value + a2.value2 >= 55 * 1000000LL); /* user + system: see test_os */
    CHECK_RC(hpm_stop(os_set, v), HPM_OK);
    CHECK(v[0] < 50 * 1000000LL);
    CHECK_RC(hpm_set_destroy(a1.set), HPM_OK);
    CHECK_RC(hpm_set_destroy(a2.set), HPM_OK);
    CHECK_RC(hpm_set_destroy(os_set), HPM_OK);
    pthread_barrier_destroy(&started);
    pthread_barrier_destroy(&read_done);

    CHECK_RC(hpm_thread_init(my_id), HPM_OK);
    CHECK(hpm_thread_id() == 4242);
    CHECK_RC(hpm_thread_unregister(), HPM_OK);
    CHECK_RC(hpm_thread_unregister(), HPM_OK);
    CHECK_RC(hpm_thread_register(), HPM_OK);
}

/* ------------------------------------------------------------ overflow */

static volatile int ovf_calls, ovf_in_work, ovf_bad_set;
static volatile uint64_t ovf_mask_seen;
static int ovf_expect_set;

static void on_overflow(int set, void *pc, uint64_t mask, void *uc)
{
    (void)uc;
    ovf_calls++;
    ovf_mask_seen |= mask;
    if (set != ovf_expect_set)
        ovf_bad_set++;
    if (hpm_work_in_branches(pc))
        ovf_in_work++;
}

static void run_overflow(const char *event, int64_t threshold_ns, unsigned flags, double ms,
                         int slack, const char *what)
{
    int s;
    int64_t v[2];
    hpm_event_t e = ev(event);
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    CHECK_RC(hpm_set_add(s, e), 0);
    ovf_expect_set = s;
    ovf_calls = ovf_in_work = ovf_bad_set = 0;
    ovf_mask_seen = 0;
    CHECK_RC(hpm_set_overflow(s, e, threshold_ns, flags, on_overflow), HPM_OK);
    CHECK_RC(hpm_start(s), HPM_OK);
    burn_ms(ms);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    printf("overflow %s: %d calls for %.0f ms / %.0f ms thresholds, %d in the loop\n", what,
           ovf_calls, v[0] / 1e6, threshold_ns / 1e6, ovf_in_work);
    {
        /* count/threshold, less the last few the final check did not see */
        int expect = (int)(v[0] / threshold_ns);
        CHECK(ovf_calls >= expect - slack && ovf_calls <= expect + 1);
    }
    CHECK(ovf_mask_seen == 1 && ovf_bad_set == 0);
    /* PCs in the loop's function (a tick's several calls share one PC, and a
     * loaded machine delivers some at the clock_gettime call instead) */
    CHECK(ovf_in_work >= ovf_calls / 2);
    CHECK_RC(hpm_set_overflow(s, e, 0, 0, NULL), HPM_OK);
    ovf_calls = 0;
    CHECK_RC(hpm_start(s), HPM_OK);
    burn_ms(10);
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    CHECK_RC(ovf_calls, 0);
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
}

static void test_overflow(void)
{
    int s;
    hpm_event_t tc = ev("perf::TASK-CLOCK"), pf = ev("perf::PAGE-FAULTS");
    CHECK(hpm_overflow_signal() >= SIGRTMIN && hpm_overflow_signal() <= SIGRTMAX);
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    CHECK_RC(hpm_set_add(s, tc), 0);
    CHECK_RC(hpm_set_overflow(s, tc, -1, 0, on_overflow), HPM_EINVAL);
    CHECK_RC(hpm_set_overflow(s, tc, 100, 0, NULL), HPM_EINVAL);
    CHECK_RC(hpm_set_overflow(s, tc, 100, 0x80, on_overflow), HPM_EINVAL);
    CHECK_RC(hpm_set_overflow(s, pf, 100, 0, on_overflow), HPM_ENOEVENT);
    CHECK_RC(hpm_set_overflow(99999, tc, 100, 0, on_overflow), HPM_ENOSET);
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_set_overflow(s, tc, 100, 0, on_overflow), HPM_ERUNNING);
    CHECK_RC(hpm_stop(s, NULL), HPM_OK);
    /* overflow goes to the counting thread: not with attach or inherit */
    CHECK_RC(hpm_set_overflow(s, tc, 1000000, 0, on_overflow), HPM_OK);
    CHECK_RC(hpm_set_attach(s, (pid_t)syscall(SYS_gettid)), HPM_ENOTSUP);
    CHECK_RC(hpm_set_inherit(s, 1), HPM_ENOTSUP);
    CHECK_RC(hpm_set_destroy(s), HPM_OK);

    /* perf's own interrupt: sample_period on task-clock (the kernel may
     * throttle or merge a few on a busy machine) */
    run_overflow("perf::TASK-CLOCK", 5 * 1000000LL, 0, 200, 20, "perf native");
    /* the software timer, forced: a check per tick of this thread's CPU
     * time, and a loaded machine gives a thread long slices between ticks */
    run_overflow("perf::TASK-CLOCK", 5 * 1000000LL, HPM_OVERFLOW_FORCE_SOFTWARE, 300, 12,
                 "perf software");
    /* os has no interrupt: software automatically. rusage splits run time
     * into user and system time by tick samples, so the user time a check
     * reads may lag by a few ticks: thresholds longer than that */
    run_overflow("os::THREAD_USER_TIME", 20 * 1000000LL, 0, 400, 4, "os software");
}

/* ------------------------------------------------------------ regions */

static void test_regions(void)
{
    int64_t v[4], w[4];
    uint64_t calls;
    char longname[200];
    FILE *f;
    char json[8192];
    size_t n;

    CHECK_RC(hpm_region_events(NULL), HPM_EINVAL);
    CHECK_RC(hpm_region_events(""), HPM_EINVAL);
    CHECK_RC(hpm_region_events(" , "), HPM_EINVAL);
    CHECK_RC(hpm_region_events("perf::TASK-CLOCK,nosuch"), HPM_ENOEVENT);
    CHECK_RC(hpm_region_events("sim::CYCLES"), HPM_ENOCOMP);
    CHECK_RC(hpm_region_events("perf::TASK-CLOCK, perf::task-clock"), HPM_EEXISTS);
    CHECK_RC(hpm_region_events(" perf::TASK-CLOCK , os::THREAD_MINOR_FAULTS,os::THREADS"),
             HPM_OK);
    CHECK_RC(hpm_region_end("none"), HPM_ENOREGION);
    CHECK_RC(hpm_region_end(NULL), HPM_EINVAL);
    CHECK_RC(hpm_region_begin(NULL), HPM_EINVAL);
    CHECK_RC(hpm_region_begin(""), HPM_EINVAL);
    memset(longname, 'r', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    CHECK_RC(hpm_region_begin(longname), HPM_EINVAL);
    CHECK_RC(hpm_region_read("outer", v, 4, &calls), HPM_ENOREGION);

    CHECK_RC(hpm_region_begin("outer"), HPM_OK);
    /* the list is fixed now */
    CHECK_RC(hpm_region_events("perf::TASK-CLOCK"), HPM_ERUNNING);
    CHECK_RC(hpm_region_events("perf::TASK-CLOCK,os::THREAD_MINOR_FAULTS,os::THREADS"), HPM_OK);
    burn_ms(5);
    CHECK_RC(hpm_region_begin("inner \"quoted\""), HPM_OK);
    burn_ms(20);
    CHECK_RC(hpm_region_end("outer"), HPM_ENOREGION); /* not the innermost */
    CHECK_RC(hpm_region_end("inner \"quoted\""), HPM_OK);
    CHECK_RC(hpm_region_begin("inner \"quoted\""), HPM_OK);
    CHECK_RC(hpm_region_end("inner \"quoted\""), HPM_OK);
    CHECK_RC(hpm_region_end("outer"), HPM_OK);
    CHECK_RC(hpm_region_end("outer"), HPM_ENOREGION);

    CHECK_RC(hpm_region_read("outer", v, 4, &calls), 3);
    CHECK(calls == 1);
    CHECK_RC(hpm_region_read("inner \"quoted\"", w, 4, &calls), 3);
    CHECK(calls == 2);
    CHECK(w[0] >= 18 * 1000000LL && v[0] >= w[0] + 4 * 1000000LL);
    CHECK(v[2] >= 1); /* THREADS: a level */
    CHECK_RC(hpm_region_read("outer", v, 0, NULL), 3);
    CHECK_RC(hpm_region_read("outer", v, 1, NULL), 1);
    CHECK_RC(hpm_region_read("outer", NULL, 1, NULL), HPM_EINVAL);
    CHECK_RC(hpm_region_read(NULL, v, 1, NULL), HPM_EINVAL);

    CHECK_RC(hpm_region_report(NULL), HPM_EINVAL);
    f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_RC(hpm_region_report(f), HPM_OK);
    rewind(f);
    n = fread(json, 1, sizeof json - 1, f);
    json[n] = 0;
    fclose(f);
    CHECK(strstr(json, "\"events\": [\"perf::TASK-CLOCK\", \"os::THREAD_MINOR_FAULTS\"") != NULL);
    CHECK(strstr(json, "{\"name\": \"outer\", \"calls\": 1, \"counts\": {\"perf::TASK-CLOCK\": ") !=
          NULL);
    CHECK(strstr(json, "\"name\": \"inner \\\"quoted\\\"\", \"calls\": 2") != NULL);

    /* a name with bytes that are not UTF-8: the report stays valid JSON,
     * the bytes written as the Latin-1 characters of their values */
    CHECK_RC(hpm_region_begin("bad\xff\xfe"), HPM_OK);
    CHECK_RC(hpm_region_end("bad\xff\xfe"), HPM_OK);
    f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_RC(hpm_region_report(f), HPM_OK);
    rewind(f);
    n = fread(json, 1, sizeof json - 1, f);
    json[n] = 0;
    fclose(f);
    CHECK(strstr(json, "\"name\": \"bad\\u00ff\\u00fe\"") != NULL);
    CHECK(strchr(json, '\xff') == NULL);
}

static void test_region_env(void)
{
    int64_t v[2];
    uint64_t calls = 0;
    /* a fresh start: the list comes from HPM_REGION_EVENTS */
    hpm_shutdown();
    setenv("HPM_REGION_EVENTS", "os::THREAD_USER_TIME,os::THREAD_SYSTEM_TIME", 1);
    CHECK(hpm_init() >= 2);
    CHECK_RC(hpm_region_begin("e"), HPM_OK);
    burn_ms(30);
    CHECK_RC(hpm_region_end("e"), HPM_OK);
    CHECK_RC(hpm_region_read("e", v, 2, &calls), 2);
    /* user + system: rusage splits run time between them by tick samples */
    CHECK(calls == 1 && v[0] + v[1] >= 28 * 1000000LL);
    hpm_shutdown();
    setenv("HPM_REGION_EVENTS", "nosuch::EVENT", 1);
    CHECK(hpm_init() >= 2);
    CHECK_RC(hpm_region_begin("e"), HPM_ENOEVENT);
    unsetenv("HPM_REGION_EVENTS");
    hpm_shutdown();
    CHECK(hpm_init() >= 2);
}

/* ------------------------------------------------------------ machine */

static void test_machine(void)
{
    struct hpm_machine_info mi;
    int i;
    CHECK_RC(hpm_machine_info(NULL), HPM_EINVAL);
    CHECK_RC(hpm_machine_info(&mi), HPM_OK);
    CHECK(mi.modeled == 0);
    CHECK(mi.name[0] && mi.vendor[0]);
    CHECK(mi.cores >= 1 && mi.threads_per_core >= 1 && mi.sockets >= 1);
    CHECK(mi.page_size >= 4096 && mi.memory_bytes > 0);
    CHECK(mi.n_caches >= 0 && mi.n_caches <= HPM_MAX_CACHES);
    for (i = 0; i < mi.n_caches; i++)
        CHECK(mi.caches[i].level >= 1 && mi.caches[i].size > 0 &&
              strchr("IDU", mi.caches[i].type));
    printf("host: %s (%s), %d cores x %d threads, %d sockets, %.0f MHz, %d caches\n", mi.name,
           mi.vendor, mi.cores, mi.threads_per_core, mi.sockets, mi.mhz, mi.n_caches);
}

static void test_shutdown(void)
{
    int s;
    int64_t v[1];
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    CHECK_RC(hpm_set_add(s, ev("perf::TASK-CLOCK")), 0);
    CHECK_RC(hpm_start(s), HPM_OK);
    hpm_shutdown(); /* stops and destroys it */
    CHECK(!hpm_is_initialized());
    CHECK_RC(hpm_read(s, v), HPM_ENOINIT);
    CHECK(hpm_init() >= 2);
    CHECK_RC(hpm_read(s, v), HPM_ENOSET); /* never zeros for a set that is gone */
    hpm_shutdown();
}

int main(void)
{
    test_not_initialised();
    test_strerror();
    test_components();
    test_event_info();
    test_set_errors();
    test_perf_software();
    test_perf_attach_inherit();
    test_os();
    test_threads();
    test_overflow();
    test_regions();
    test_region_env();
    test_machine();
    test_shutdown();
    if (failures) {
        fprintf(stderr, "test_hpm_api: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_hpm_api: ok\n");
    return 0;
}
