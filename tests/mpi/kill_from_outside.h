/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/mpi: the calling process killed with SIGKILL by a child it starts:
 * from outside, so that the simulator dies with nothing written (a signal a
 * program raises on itself Valgrind delivers through its exit path, which
 * writes the counts). Does not return. */
#ifndef HPM_TESTS_MPI_KILL_FROM_OUTSIDE_H
#define HPM_TESTS_MPI_KILL_FROM_OUTSIDE_H

#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static void kill_from_outside(void)
{
    pid_t child = fork();
    if (child == 0) {
        kill(getppid(), SIGKILL);
        _exit(0);
    }
    if (child > 0)
        for (;;)
            pause();
    abort();
}

#endif
