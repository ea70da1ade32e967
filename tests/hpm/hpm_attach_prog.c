/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm_attach_prog.c - libhpm's sim component attached to another process
 * under the virtual PMU (its live view), run as `hpm run -- hpm_attach_prog`:
 *
 *   a forked child stops itself (SIGSTOP), runs an exactly known number of
 *   instructions, stops itself again and exits; the parent attaches a set
 *   to it, starts while it is stopped, and reads it at the second stop and
 *   after its exit: the child's instructions exactly (plus the few of the
 *   code around the loop), its modeled cycles (the set asked the child to
 *   start its on-demand models), and the same final counts after it exited.
 *   Refusals: the calling process itself, a process not under hpm (pid 1),
 *   a pid that does not exist.
 *
 *   inherit: a set counting this thread and the children it forks after the
 *   start (their live views): a child forked before the start runs the same
 *   loop and is not counted, one forked after it is, exactly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hpm/hpm.h"
#include "hpm_check.h"
#include "hpm_rc_check.h"

#define LOOPS 20 /* million instructions */

/* Exactly 1000000 instructions: 1 + 2 * 499999 + the call's frame (as
 * PAPI's instructions_million, validation_tests/instructions_testcode.c). */
static __attribute__((noinline)) void million(void)
{
    __asm__ volatile("xor %%ecx,%%ecx\n\tmov $499999,%%ecx\n1:\n\tdec %%ecx\n\tjnz 1b\n"
                     :
                     :
                     : "cc", "ecx");
}

static hpm_event_t ev(const char *name)
{
    hpm_event_t e = 0xffffffffu;
    CHECK_RC(hpm_event_find(name, &e), HPM_OK);
    return e;
}

static int wait_stopped(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, WUNTRACED) < 0)
        if (errno != EINTR)
            return -1;
    return WIFSTOPPED(st) ? 0 : -1;
}

/* A child that runs the loop, after stopping itself first when asked. */
static pid_t loop_child(int stop_first)
{
    pid_t pid = fork();
    int i;
    if (pid == 0) {
        if (stop_first)
            kill(getpid(), SIGSTOP);
        for (i = 0; i < LOOPS; i++)
            million();
        _exit(0);
    }
    return pid;
}

static void check_inherit(void)
{
    int64_t v[1];
    int s, st;
    pid_t before, after;
    before = loop_child(1);
    CHECK(before > 0 && wait_stopped(before) == 0);
    CHECK_RC(hpm_set_create(&s), HPM_OK);
    CHECK(hpm_set_add(s, ev("sim::INSTRUCTIONS")) == 0);
    CHECK_RC(hpm_set_inherit(s, 1), HPM_OK);
    CHECK_RC(hpm_set_attach(s, before), HPM_ENOTSUP); /* not both */
    CHECK_RC(hpm_start(s), HPM_OK);
    after = loop_child(0);
    CHECK(after > 0);
    kill(before, SIGCONT);
    CHECK(waitpid(after, &st, 0) == after && WIFEXITED(st));
    CHECK(waitpid(before, &st, 0) == before && WIFEXITED(st));
    CHECK_RC(hpm_stop(s, v), HPM_OK);
    printf("inherit: INSTRUCTIONS %" PRId64 " (this thread and the child forked after the "
           "start)\n",
           v[0]);
    /* the later child's loop and its exit, and this thread's fork and waits;
     * not the earlier child's loop */
    CHECK(v[0] >= LOOPS * 1000000LL && v[0] < LOOPS * 1000000LL + 1000000);
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
}

int main(void)
{
    struct hpm_component_info ci = {0};
    int64_t v[2], fin[2];
    int s, st, i;
    pid_t child;

    if (hpm_init() < 0 || hpm_component_info(0, &ci) != HPM_OK || !ci.enabled) {
        fprintf(stderr, "sim component disabled: %s\n",
                ci.disabled_reason ? ci.disabled_reason : "?");
        return 77;
    }
    CHECK(ci.flags & HPM_COMP_ATTACH);
    child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        kill(getpid(), SIGSTOP);
        for (i = 0; i < LOOPS; i++)
            million();
        kill(getpid(), SIGSTOP);
        _exit(0);
    }
    CHECK(wait_stopped(child) == 0);

    CHECK_RC(hpm_set_create(&s), HPM_OK);
    CHECK(hpm_set_add(s, ev("sim::INSTRUCTIONS")) == 0);
    CHECK(hpm_set_add(s, ev("sim::CYCLES")) == 1);
    /* refusals first: the set stays unattached after each */
    CHECK_RC(hpm_set_attach(s, getpid()), HPM_ENOTSUP);
    CHECK_RC(hpm_set_attach(s, 1), HPM_ENOTSUP); /* init: not under hpm */
    CHECK_RC(hpm_set_attach(s, 0x3ffffff0), HPM_EINVAL);
    CHECK_RC(hpm_set_attach(s, child), HPM_OK);
    CHECK_RC(hpm_start(s), HPM_OK);
    CHECK_RC(hpm_thread_running(0), 0); /* an attached set takes no counters here */
    kill(child, SIGCONT);
    CHECK(wait_stopped(child) == 0);
    CHECK_RC(hpm_read(s, v), HPM_OK);
    printf("at the child's stop: INSTRUCTIONS %" PRId64 ", CYCLES %" PRId64 "\n", v[0], v[1]);
    /* its loop, the call frames and the code between the two kill()s */
    CHECK(v[0] >= LOOPS * 1000000LL && v[0] < LOOPS * 1000000LL + 5000);
    /* the models started within a timeslice of the child running again */
    CHECK(v[1] >= LOOPS * 1000000LL / 2);
    kill(child, SIGCONT);
    CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* the child is gone: its final publication is still mapped */
    CHECK_RC(hpm_stop(s, fin), HPM_OK);
    printf("after the child's exit: INSTRUCTIONS %" PRId64 ", CYCLES %" PRId64 "\n", fin[0],
           fin[1]);
    CHECK(fin[0] >= v[0] && fin[0] < v[0] + 200000);
    CHECK(fin[1] >= v[1]);
    CHECK_RC(hpm_set_destroy(s), HPM_OK);
    check_inherit();
    hpm_shutdown();
    if (failures) {
        fprintf(stderr, "hpm_attach_prog: %d failure(s)\n", failures);
        return 1;
    }
    printf("hpm_attach_prog: ok\n");
    return 0;
}
