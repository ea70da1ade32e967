/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpapi's error paths and native counting, run without the virtual PMU:
 * PAPI's documented error codes for calls before init, bad handles, calls
 * in the wrong state, unknown names, unavailable presets and conflicting
 * events; every PAPI_strerror text; and a software event (perf or os)
 * that must grow while the program works.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_check.h"
#include "papi.h"

static volatile double sink;

static void burn(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void test_before_init(void)
{
    int set = PAPI_NULL, code;
    long long v[1];
    CHECK_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
    CHECK_EQ(PAPI_create_eventset(&set), PAPI_ENOINIT);
    CHECK_EQ(PAPI_start(0), PAPI_ENOINIT);
    CHECK_EQ(PAPI_read(0, v), PAPI_ENOINIT);
    CHECK_EQ(PAPI_event_name_to_code("PAPI_TOT_INS", &code), PAPI_ENOINIT);
    CHECK(PAPI_get_hardware_info() == NULL);
    CHECK_EQ(PAPI_num_components(), 0);
    /* a version of another major release is refused */
    CHECK_EQ(PAPI_library_init(PAPI_VERSION_NUMBER(6, 0, 0, 0)), PAPI_EINVAL);
    CHECK_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
}

static void test_strerror(void)
{
    for (int code = 0; code > -PAPI_NUM_ERRORS; code--) {
        const char *s = PAPI_strerror(code);
        CHECK(s != NULL && s[0] != '\0');
        /* every error has its own sentence (ECMP and ESBSTR are one code) */
        for (int other = code + 1; other <= 0 && s; other++)
            CHECK(strcmp(s, PAPI_strerror(other)) != 0);
    }
    CHECK(PAPI_strerror(1) == NULL);
    CHECK(PAPI_strerror(-PAPI_NUM_ERRORS) == NULL);
    CHECK(PAPI_strerror(PAPI_ESBSTR) == PAPI_strerror(PAPI_ECMP));
}

static void test_bad_handles(void)
{
    long long v[4] = { 0 };
    int st, n = 4, ev[4];
    const int bad[] = { -5, PAPI_NULL, 12345, 1 << 20 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int h = bad[i];
        CHECK_EQ(PAPI_start(h), PAPI_ENOEVST);
        CHECK_EQ(PAPI_stop(h, v), PAPI_ENOEVST);
        CHECK_EQ(PAPI_read(h, v), PAPI_ENOEVST);
        CHECK_EQ(PAPI_accum(h, v), PAPI_ENOEVST);
        CHECK_EQ(PAPI_reset(h), PAPI_ENOEVST);
        CHECK_EQ(PAPI_add_event(h, PAPI_TOT_INS), PAPI_ENOEVST);
        CHECK_EQ(PAPI_add_named_event(h, "PAPI_TOT_INS"), PAPI_ENOEVST);
        CHECK_EQ(PAPI_remove_event(h, PAPI_TOT_INS), PAPI_ENOEVST);
        CHECK_EQ(PAPI_cleanup_eventset(h), PAPI_ENOEVST);
        CHECK_EQ(PAPI_state(h, &st), PAPI_ENOEVST);
        CHECK_EQ(PAPI_num_events(h), PAPI_ENOEVST);
        CHECK_EQ(PAPI_list_events(h, ev, &n), PAPI_ENOEVST);
        CHECK_EQ(PAPI_set_multiplex(h), PAPI_ENOEVST);
        CHECK_EQ(PAPI_assign_eventset_component(h, 0), PAPI_ENOEVST);
        int copy = h;
        CHECK_EQ(PAPI_destroy_eventset(&copy), PAPI_ENOEVST);
    }
    CHECK_EQ(PAPI_destroy_eventset(NULL), PAPI_EINVAL);
    CHECK_EQ(PAPI_create_eventset(NULL), PAPI_EINVAL);
    int notnull = 3;
    CHECK_EQ(PAPI_create_eventset(&notnull), PAPI_EINVAL); /* must start as PAPI_NULL */
}

static void test_names(void)
{
    int code = 0;
    char name[PAPI_MAX_STR_LEN];
    CHECK_EQ(PAPI_event_name_to_code("NO_SUCH_EVENT_ANYWHERE", &code), PAPI_ENOEVNT);
    CHECK_EQ(PAPI_event_name_to_code("sim::NO_SUCH_KIND", &code), PAPI_ENOEVNT);
    CHECK_EQ(PAPI_event_name_to_code(NULL, &code), PAPI_EINVAL);
    CHECK_EQ(PAPI_query_named_event("NO_SUCH_EVENT_ANYWHERE"), PAPI_ENOEVNT);
    /* every preset name converts, available or not, and back */
    CHECK_EQ(PAPI_event_name_to_code("PAPI_BR_PRC", &code), PAPI_OK);
    CHECK_EQ(code, PAPI_BR_PRC);
    CHECK_EQ(PAPI_event_code_to_name(PAPI_FP_OPS, name), PAPI_OK);
    CHECK(strcmp(name, "PAPI_FP_OPS") == 0);
    CHECK_EQ(PAPI_event_code_to_name(PAPI_END, name), PAPI_ENOTPRESET);
    CHECK_EQ(PAPI_event_code_to_name(PAPI_NATIVE_MASK | 0x3fffff, name), PAPI_ENOEVNT);
    CHECK_EQ(PAPI_event_code_to_name(PAPI_TOT_CYC, NULL), PAPI_EINVAL);
    /* event info for a preset: described even where unavailable */
    PAPI_event_info_t info;
    CHECK_EQ(PAPI_get_event_info(PAPI_L1_DCM, &info), PAPI_OK);
    CHECK(strcmp(info.symbol, "PAPI_L1_DCM") == 0);
    CHECK_EQ(PAPI_get_event_info(PAPI_NATIVE_MASK | 0x3fffff, &info), PAPI_ENOEVNT);
    /* enumeration of presets: first, then all 108 */
    int e = PAPI_PRESET_MASK, n = 1;
    CHECK_EQ(PAPI_enum_event(&e, PAPI_ENUM_FIRST), PAPI_OK);
    while (PAPI_enum_event(&e, PAPI_ENUM_EVENTS) == PAPI_OK)
        n++;
    CHECK_EQ(n, PAPI_END_idx);
    CHECK_EQ(PAPI_enum_cmp_event(&e, PAPI_ENUM_FIRST, 999), PAPI_ENOCMP);
}

/* Without the virtual PMU the sim component is disabled: its presets are
 * not available and cannot be added. */
static void test_presets_native(void)
{
    int sim = PAPI_get_component_index("sim");
    if (sim < 0)
        return;
    const PAPI_component_info_t *ci = PAPI_get_component_info(sim);
    CHECK(ci != NULL);
    if (!ci || !ci->disabled) {
        printf("sim is enabled here: skipping the native preset checks\n");
        return;
    }
    CHECK(ci->disabled_reason[0] != '\0');
    /* presets with no counterpart outside the virtual PMU */
    const int sim_only[] = { PAPI_FP_OPS, PAPI_BR_PRC, PAPI_L2_TCM, PAPI_TLB_DM };
    int set = PAPI_NULL;
    CHECK_EQ(PAPI_create_eventset(&set), PAPI_OK);
    for (size_t i = 0; i < sizeof sim_only / sizeof sim_only[0]; i++) {
        CHECK_EQ(PAPI_query_event(sim_only[i]), PAPI_ENOEVNT);
        CHECK_EQ(PAPI_add_event(set, sim_only[i]), PAPI_ENOEVNT);
    }
    CHECK_EQ(PAPI_add_named_event(set, "sim::INSTRUCTIONS"), PAPI_ENOEVNT);
    CHECK_EQ(PAPI_num_events(set), 0);
    CHECK_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
}

/* A software event of this host: perf's task clock, else the os
 * component's thread CPU time. Returns its code, or 0 if neither exists. */
static int software_event(void)
{
    const char *names[] = { "perf::TASK-CLOCK", "os::THREAD_USER_TIME", "os::USER_TIME" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int code;
        if (PAPI_event_name_to_code(names[i], &code) == PAPI_OK) {
            printf("software event: %s\n", names[i]);
            return code;
        }
    }
    return 0;
}

static void test_states(void)
{
    int code = software_event();
    if (!code) {
        printf("no perf or os software event here: skipping the state checks\n");
        return;
    }
    int set = PAPI_NULL, st, n;
    long long v[2] = { 0, 0 }, acc[1] = { 0 };
    CHECK_EQ(PAPI_create_eventset(&set), PAPI_OK);
    CHECK_EQ(PAPI_start(set), PAPI_EINVAL); /* empty */
    CHECK_EQ(PAPI_stop(set, v), PAPI_ENOTRUN);
    CHECK_EQ(PAPI_remove_event(set, code), PAPI_EINVAL); /* not a member */
    CHECK_EQ(PAPI_add_event(set, code), PAPI_OK);
    CHECK_EQ(PAPI_add_event(set, code), PAPI_ECNFLCT); /* twice */
    CHECK_EQ(PAPI_add_event(set, 0x12345678), PAPI_ENOEVNT);
    CHECK_EQ(PAPI_num_events(set), 1);
    n = 2;
    int list[2] = { 0, 0 };
    CHECK_EQ(PAPI_list_events(set, list, &n), PAPI_OK);
    CHECK_EQ(n, 1);
    CHECK_EQ(list[0], code);
    CHECK_EQ(PAPI_get_eventset_component(set), PAPI_get_event_component(code));
    CHECK_EQ(PAPI_state(set, &st), PAPI_OK);
    CHECK_EQ(st, PAPI_STOPPED);

    CHECK_EQ(PAPI_start(set), PAPI_OK);
    CHECK_EQ(PAPI_state(set, &st), PAPI_OK);
    CHECK(st & PAPI_RUNNING);
    CHECK_EQ(PAPI_start(set), PAPI_EISRUN);
    CHECK_EQ(PAPI_add_named_event(set, "PAPI_TOT_INS"), PAPI_EISRUN);
    CHECK_EQ(PAPI_remove_event(set, code), PAPI_EISRUN);
    CHECK_EQ(PAPI_cleanup_eventset(set), PAPI_EISRUN);
    int copy = set;
    CHECK_EQ(PAPI_destroy_eventset(&copy), PAPI_EISRUN);
    CHECK_EQ(PAPI_read(set, NULL), PAPI_EINVAL);

    /* the software event grows while this thread works */
    burn(20000000);
    CHECK_EQ(PAPI_read(set, v), PAPI_OK);
    CHECK(v[0] > 0);
    burn(20000000);
    CHECK_EQ(PAPI_read(set, v + 1), PAPI_OK);
    CHECK(v[1] > v[0]);
    CHECK_EQ(PAPI_accum(set, acc), PAPI_OK);
    CHECK(acc[0] >= v[1]);
    CHECK_EQ(PAPI_reset(set), PAPI_OK);
    CHECK_EQ(PAPI_stop(set, v), PAPI_OK);
    CHECK(v[0] < acc[0]); /* reset zeroed it */
    long long after = -1;
    CHECK_EQ(PAPI_read(set, &after), PAPI_OK); /* stopped: the stop values */
    CHECK_EQ(after, v[0]);
    CHECK_EQ(PAPI_stop(set, v), PAPI_ENOTRUN);

    /* restarting counts from zero again */
    CHECK_EQ(PAPI_start(set), PAPI_OK);
    CHECK_EQ(PAPI_stop(set, v), PAPI_OK);
    CHECK(v[0] < acc[0]);

    /* overflow needs a member and a handler */
    CHECK_EQ(PAPI_overflow(set, PAPI_TOT_INS, 1000, 0, NULL), PAPI_ENOEVNT);
    CHECK_EQ(PAPI_overflow(set, code, -1, 0, NULL), PAPI_EINVAL);
    CHECK_EQ(PAPI_overflow(set, code, 1000, 0, NULL), PAPI_EINVAL);

    CHECK_EQ(PAPI_destroy_eventset(&set), PAPI_EINVAL); /* not empty */
    CHECK_EQ(PAPI_cleanup_eventset(set), PAPI_OK);
    CHECK_EQ(PAPI_num_events(set), 0);
    CHECK_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
    CHECK_EQ(set, PAPI_NULL);
}

/* Natively the cpuid numbers are /proc/cpuinfo's "cpu family", "model" and
 * "stepping" of the first processor (as PAPI's own), found here by sscanf
 * and not through the reader's key match: "model name" is not "model". */
static void check_cpuid(const PAPI_hw_info_t *hw)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    int family = -1, model = -1, stepping = -1, v;
    if (!f || hw->virtualized) {
        if (f)
            fclose(f);
        return;
    }
    while (fgets(line, sizeof line, f) && (family < 0 || model < 0 || stepping < 0)) {
        if (family < 0 && sscanf(line, "cpu family : %d", &v) == 1)
            family = v;
        else if (model < 0 && sscanf(line, "model : %d", &v) == 1)
            model = v;
        else if (stepping < 0 && sscanf(line, "stepping : %d", &v) == 1)
            stepping = v;
    }
    fclose(f);
    if (family >= 0)
        CHECK_EQ(hw->cpuid_family, family);
    if (model >= 0) {
        CHECK_EQ(hw->cpuid_model, model);
        CHECK_EQ(hw->model, model);
    }
    if (stepping >= 0) {
        CHECK_EQ(hw->cpuid_stepping, stepping);
        CHECK(hw->revision == (float)stepping);
    }
}

static void test_components_and_info(void)
{
    int n = PAPI_num_components();
    CHECK(n >= 1);
    for (int i = 0; i < n; i++) {
        const PAPI_component_info_t *c = PAPI_get_component_info(i);
        CHECK(c != NULL && c->name[0] != '\0');
        if (c)
            CHECK_EQ(PAPI_get_component_index(c->name), i);
    }
    CHECK(PAPI_get_component_info(n) == NULL);
    CHECK_EQ(PAPI_get_component_index("no-such-component"), PAPI_ENOCMP);
    CHECK_EQ(PAPI_disable_component(0), PAPI_ENOINIT); /* only before init */

    const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
    CHECK(hw != NULL);
    if (hw) {
        CHECK(hw->totalcpus >= 1 && hw->cpu_max_mhz > 0);
        CHECK(hw->model_string[0] != '\0');
        check_cpuid(hw);
    }
    const PAPI_exe_info_t *exe = PAPI_get_executable_info();
    CHECK(exe != NULL);
    if (exe) {
        CHECK(strstr(exe->fullname, "test_papi_api") != NULL);
        CHECK((char *)exe->address_info.text_start <= (char *)test_components_and_info &&
              (char *)test_components_and_info < (char *)exe->address_info.text_end);
    }
    const PAPI_shlib_info_t *sh = PAPI_get_shared_lib_info();
    CHECK(sh != NULL && sh->count > 0);
    PAPI_dmem_info_t dm;
    CHECK_EQ(PAPI_get_dmem_info(&dm), PAPI_OK);
    CHECK(dm.size > 0 && dm.resident > 0 && dm.pagesize > 0);
    CHECK_EQ(PAPI_get_dmem_info(NULL), PAPI_EINVAL);

    PAPI_option_t opt;
    memset(&opt, 0, sizeof opt);
    CHECK_EQ(PAPI_get_opt(PAPI_HWINFO, &opt), PAPI_OK);
    CHECK(opt.hw_info == hw);
    CHECK(PAPI_get_opt(PAPI_CLOCKRATE, NULL) > 0);
    CHECK_EQ(PAPI_get_opt(PAPI_DEFGRN, NULL), PAPI_GRN_THR);
    CHECK_EQ(PAPI_get_opt(12345, &opt), PAPI_EINVAL);
    CHECK_EQ(PAPI_set_opt(PAPI_CLOCKRATE, &opt), PAPI_EINVAL); /* read-only */
    CHECK_EQ(PAPI_set_granularity(PAPI_GRN_SYS_CPU), PAPI_EINVAL);
    CHECK_EQ(PAPI_set_domain(0x100), PAPI_EINVAL);
    CHECK_EQ(PAPI_set_debug(99), PAPI_EINVAL);

    /* timers move forward */
    long long r0 = PAPI_get_real_usec(), c0 = PAPI_get_real_cyc(), v0 = PAPI_get_virt_usec();
    burn(5000000);
    CHECK(PAPI_get_real_usec() > r0);
    CHECK(PAPI_get_real_cyc() > c0);
    CHECK(PAPI_get_virt_usec() > v0);
}

static void test_threads_and_locks(void)
{
    CHECK_EQ(PAPI_lock(PAPI_NUM_LOCK), PAPI_EINVAL);
    CHECK_EQ(PAPI_lock(PAPI_USR1_LOCK), PAPI_OK);
    CHECK_EQ(PAPI_unlock(PAPI_USR1_LOCK), PAPI_OK);
    void *p = NULL;
    int x;
    CHECK_EQ(PAPI_set_thr_specific(PAPI_USR1_TLS, &x), PAPI_OK);
    CHECK_EQ(PAPI_get_thr_specific(PAPI_USR1_TLS, &p), PAPI_OK);
    CHECK(p == &x);
    CHECK_EQ(PAPI_set_thr_specific(PAPI_NUM_TLS, &x), PAPI_EINVAL);
    int n = 0;
    CHECK_EQ(PAPI_list_threads(NULL, &n), PAPI_OK);
    CHECK(n >= 1);
}

/* A set that never had an event has no native arrays yet: resetting,
 * accumulating and reading it must not touch them (UBSan's null pointer to
 * memset, in the ASan+UBSan build). */
static void test_empty_set(void)
{
    int set = PAPI_NULL, st = 0;
    long long v[1] = {7};
    CHECK_EQ(PAPI_create_eventset(&set), PAPI_OK);
    CHECK_EQ(PAPI_reset(set), PAPI_OK);
    CHECK_EQ(PAPI_accum(set, v), PAPI_OK);
    CHECK_EQ(v[0], 7);
    CHECK_EQ(PAPI_read(set, v), PAPI_OK);
    CHECK_EQ(v[0], 7);
    CHECK_EQ(PAPI_start(set), PAPI_EINVAL);
    CHECK_EQ(PAPI_stop(set, v), PAPI_ENOTRUN);
    CHECK_EQ(PAPI_state(set, &st), PAPI_OK);
    CHECK_EQ(st, PAPI_STOPPED);
    CHECK_EQ(PAPI_cleanup_eventset(set), PAPI_OK);
    CHECK_EQ(PAPI_reset(set), PAPI_OK);
    CHECK_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
}

int main(void)
{
    test_before_init();
    test_strerror();
    CHECK_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    CHECK_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT); /* again: fine */
    CHECK(PAPI_is_initialized() & PAPI_LOW_LEVEL_INITED);
    test_bad_handles();
    test_empty_set();
    test_names();
    test_presets_native();
    test_states();
    test_components_and_info();
    test_threads_and_locks();
    PAPI_shutdown();
    CHECK_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
    /* and once more from the start */
    CHECK_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
    PAPI_shutdown();
    if (failures)
        fprintf(stderr, "test_papi_api: %d failures\n", failures);
    else
        printf("test_papi_api: ok\n");
    return failures ? 1 : 0;
}
