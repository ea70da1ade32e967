/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The perf_event_uncore component on the virtual PMU (run under `hpm
 * run --`): the node-wide units as an uncore, found by PAPI's name.
 *   - its set runs beside the thread's sim set (another component), and
 *     counts the node's I/O exactly: 10 writes of 100 bytes to a pipe;
 *   - its counts are the node's, not a thread's: another thread reads the
 *     running set, and sees a write made by a third thread;
 *   - PAPI_CPU_ATTACH is accepted (every CPU sees the one node).
 * Exits 77 when not under the virtual PMU.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hpm_check.h"
#include "papi.h"

static int pipefd[2], uset = PAPI_NULL;

static void writes(int n)
{
    char buf[100], in[100];
    memset(buf, 'x', sizeof buf);
    for (int i = 0; i < n; i++) {
        CHECK_EQ(write(pipefd[1], buf, sizeof buf), sizeof buf);
        CHECK_EQ(read(pipefd[0], in, sizeof in), sizeof in);
    }
}

static void *writer(void *arg)
{
    (void)arg;
    writes(1);
    return NULL;
}

static void *reader(void *arg)
{
    long long *v = arg;
    CHECK_EQ(PAPI_read(uset, v), PAPI_OK);
    return NULL;
}

int main(void)
{
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init failed\n");
        return 1;
    }
    const PAPI_component_info_t *sim = PAPI_get_component_info(0);
    if (!sim || sim->disabled) {
        printf("SKIP: component 0 (sim) is disabled: not under hpm run\n");
        return 77;
    }
    CHECK_EQ(pipe(pipefd), 0);
    int cidx = PAPI_get_component_index("perf_event_uncore");
    CHECK(cidx > 0);
    const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
    CHECK(ci != NULL && !ci->disabled && ci->num_native_events > 0);

    CHECK_EQ(PAPI_create_eventset(&uset), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(uset, "perf_event_uncore:::IO_WRITE_BYTES"), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(uset, "perf_event_uncore:::IO_WRITES"), PAPI_OK);
    int code = 0;
    CHECK_EQ(PAPI_event_name_to_code("perf_event_uncore:::IO_WRITES", &code), PAPI_OK);
    CHECK_EQ(PAPI_get_event_component(code), cidx);
    int sset = PAPI_NULL;
    CHECK_EQ(PAPI_create_eventset(&sset), PAPI_OK);
    CHECK_EQ(PAPI_add_event(sset, PAPI_TOT_INS), PAPI_OK);

    /* beside the thread's sim set; exact I/O counts */
    long long u[2], s[1];
    CHECK_EQ(PAPI_start(sset), PAPI_OK);
    CHECK_EQ(PAPI_start(uset), PAPI_OK);
    writes(10);
    CHECK_EQ(PAPI_stop(uset, u), PAPI_OK);
    CHECK_EQ(PAPI_stop(sset, s), PAPI_OK);
    printf("papi_uncore: IO_WRITE_BYTES %lld, IO_WRITES %lld; PAPI_TOT_INS %lld\n", u[0], u[1],
           s[0]);
    CHECK_EQ(u[0], 1000);
    CHECK_EQ(u[1], 10);
    CHECK(s[0] > 0);

    /* the node's counts: another thread's write, read by a third thread */
    pthread_t t;
    long long r[2] = {-1, -1};
    CHECK_EQ(PAPI_start(uset), PAPI_OK);
    CHECK_EQ(pthread_create(&t, NULL, writer, NULL), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(pthread_create(&t, NULL, reader, r), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(PAPI_stop(uset, u), PAPI_OK);
    printf("papi_uncore: another thread's write: read by a third %lld %lld\n", r[0], r[1]);
    CHECK_EQ(r[0], 100);
    CHECK_EQ(r[1], 1);
    CHECK_EQ(u[0], 100);

    /* attached to a CPU: the same node */
    CHECK_EQ(PAPI_cleanup_eventset(uset), PAPI_OK);
    CHECK_EQ(PAPI_assign_eventset_component(uset, cidx), PAPI_OK);
    PAPI_option_t o;
    memset(&o, 0, sizeof o);
    o.cpu.eventset = uset;
    o.cpu.cpu_num = 0;
    CHECK_EQ(PAPI_set_opt(PAPI_CPU_ATTACH, &o), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(uset, "perf_event_uncore:::IO_WRITE_BYTES"), PAPI_OK);
    CHECK_EQ(PAPI_start(uset), PAPI_OK);
    writes(3);
    CHECK_EQ(PAPI_stop(uset, u), PAPI_OK);
    CHECK_EQ(u[0], 300);

    PAPI_shutdown();
    if (failures) {
        fprintf(stderr, "papi_uncore: %d failures\n", failures);
        return 1;
    }
    printf("papi_uncore: ok\n");
    return 0;
}
