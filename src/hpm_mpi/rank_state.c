/* SPDX-License-Identifier: BSD-3-Clause */
/* rank_state.c - this rank's counts and profile (hpm_mpi.h's hpm_mpi_me),
 * in a file that calls nothing: hpm_mpi.c fills it, combine.c reads it at
 * MPI_Finalize, and hpm_mpi.c calls combine.c. */
#include "hpm_mpi.h"

struct hpm_mpi_rank hpm_mpi_me;
