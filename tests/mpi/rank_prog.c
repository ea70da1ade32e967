/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/mpi: a program that is not an MPI program, run by mpirun on every
 * rank. It reads its rank from Open MPI's environment, runs r + 1 rounds of
 * a fixed loop, and the rank named by argv[1] (if any) is killed with
 * SIGKILL half-way by a child it starts: from outside, so that the
 * simulator dies with nothing written (a signal a program raises on itself
 * Valgrind delivers through its exit path, which writes the counts). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "kill_from_outside.h"

static volatile unsigned long sink;

int main(int argc, char **argv)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    int rank = r ? atoi(r) : 0, i;
    for (i = 0; i < (rank + 1) * 100000; i++)
        sink += (unsigned long)i;
    if (argc > 1 && atoi(argv[1]) == rank)
        kill_from_outside();
    return 0;
}
