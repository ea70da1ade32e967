/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/mpi: ping-pong between ranks 0 and 1, N round trips (argv[1],
 * default 20000) of 8-byte messages (MPI_Send, MPI_Recv), after 1000 of
 * warm-up. Rank 0 prints the seconds per message (MPI_Wtime). With
 * argv[2] = "self", every rank sends its N messages to itself (MPI_Send of
 * a buffered 8 bytes, then MPI_Recv): no waiting on another process, so
 * the instructions per message are the same in every run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 20000, i;
    double buf = 0, t0 = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 2 && strcmp(argv[2], "self") == 0) {
        double r = 0;
        t0 = MPI_Wtime();
        for (i = 0; i < n; i++) {
            MPI_Request req;
            MPI_Isend(&buf, 1, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD, &req);
            MPI_Recv(&r, 1, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        if (rank == 0)
            printf("%.9f\n", (MPI_Wtime() - t0) / n);
        MPI_Finalize();
        return 0;
    }
    for (i = -1000; i < n; i++) {
        if (i == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        if (rank == 0) {
            MPI_Send(&buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("%.9f\n", (MPI_Wtime() - t0) / (2.0 * n));
    MPI_Finalize();
    return 0;
}
