/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/mpi: an MPI program for hpm count under mpirun. Every rank passes
 * a message of ARGV[1] bytes (default 1024) around the ring ARGV[2] times
 * (default 1: rank r sends to r + 1 and receives from r - 1); rank r then
 * runs r + 1 rounds of a fixed loop inside the MPI_Pcontrol region "loop",
 * so the ranks' counts differ, and all
 * take part in one MPI_Allreduce of two ints (one collective operation of
 * 8 bytes). The rank named by ARGV[3] (if any) is then killed from outside
 * before MPI_Finalize (kill_from_outside.h). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "kill_from_outside.h"

static volatile unsigned long sink;

int main(int argc, char **argv)
{
    int rank, size, bytes = argc > 1 ? atoi(argv[1]) : 1024, k = argc > 2 ? atoi(argv[2]) : 1, i;
    char *buf;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    buf = calloc((size_t)(bytes > 0 ? bytes : 1), 1);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < k; i++)
        MPI_Sendrecv_replace(buf, bytes, MPI_CHAR, (rank + 1) % size, 0, (rank + size - 1) % size,
                             0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Pcontrol(1, "loop");
    for (i = 0; i < (rank + 1) * 2000000; i++)
        sink += (unsigned long)i;
    MPI_Pcontrol(-1, "loop");
    {
        int in[2] = {rank, 1}, out[2];
        MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (out[1] != size)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(buf);
    if (argc > 3 && atoi(argv[3]) == rank)
        kill_from_outside();
    MPI_Finalize();
    return 0;
}
