/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_mpi.c - hpm count as a rank of an MPI job and the node's network
 * (count_internal.h: what the parts of hpm count share).
 */
#define _GNU_SOURCE /* wait4, syscall, mkdtemp */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "commands.h"
#include "count_perf.h"
#include "count_procs.h"
#include "baseline.h"
#include "count_report.h"
#include "install_dirs.h"
#include "machine_arg.h"
#include "machine_wire.h"
#include "interval.h"
#include "mpi_job.h"
#include "live.h"
#include "options.h"
#include "passes.h"
#include "profile_cmd.h"
#include "count_hook.h"
#include "latency.h"
#include "runner.h"
#include "vpmu_output.h"

#include "count_internal.h"

/* hpm count as a rank of an MPI job (mpi_job.h): 1 with e and the job's
 * folder (created), 0 when not in a job, -1 after printing why not. */
int count_mpi_rank_setup(const struct count_opts *o, struct mpi_rank_env *e, char *dir,
                          size_t len)
{
    char err[512];
    struct stat st;
    int in = mpi_rank_env_get(e, err, sizeof err);
    if (in < 0) {
        fprintf(stderr, "%s: %s\n", cmd_name, err);
        return -1;
    }
    if (!in) {
        if (o->mpi || o->mpi_dir || o->per_rank) {
            fprintf(stderr,
                    "%s: --mpi, --mpi-dir and --per-rank need hpm count to be a rank of an MPI "
                    "job, started by a launcher (mpirun -np N hpm count --mpi -- PROGRAM; no "
                    "OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID here)\n",
                    cmd_name);
            return -1;
        }
        return 0;
    }
    if (o->mpi) {
        int is = mpi_program_links_mpi(o->prog[0], err, sizeof err);
        if (is <= 0) {
            fprintf(stderr, "%s: --mpi: %s%s\n", cmd_name,
                    is < 0 ? err : o->prog[0],
                    is < 0 ? "" : " is not an MPI program (it does not link an MPI library); "
                                  "drop --mpi to count it on every rank anyway");
            return -1;
        }
    }
    if (o->mpi_dir)
        snprintf(dir, len, "%s", o->mpi_dir);
    else if (e->job[0])
        snprintf(dir, len, "hpm-mpi.%s", e->job);
    else {
        fprintf(stderr, "%s: rank %d: the launcher gives no job id; name the job's folder with "
                        "--mpi-dir DIR\n", cmd_name, e->rank);
        return -1;
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s: %s\n", cmd_name, dir, strerror(errno));
        return -1;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s: not a folder\n", cmd_name, dir);
        return -1;
    }
    return 1;
}

/* A machine with a network ([torus]): the ranks of an MPI job get
 * libhpm-mpi preloaded (LD_PRELOAD, which valgrind passes on to the
 * program) and the torus in HPM_MPI_TORUS; the torus must have one node per
 * rank. 0, or 2 after printing why not. Outside a job nothing changes. */
int count_mpi_net_setup(const struct count_opts *o, const struct hpm_machine *m)
{
    struct mpi_rank_env e;
    char err[512], path[4200], torus[128], *pre;
    const char *lib = getenv("HPM_MPI_LIB"), *old = getenv("LD_PRELOAD");
    uint32_t nodes = hpm_torus_nodes(&m->torus);
    if (mpi_rank_env_get(&e, err, sizeof err) != 1)
        return 0;
    if (nodes != (uint32_t)e.size) {
        if (o->machine && strchr(o->machine, '/'))
            snprintf(path, sizeof path, "%s", o->machine);
        else
            snprintf(path, sizeof path, "%s/%s.machine", machine_arg_dir(),
                     o->machine ? o->machine : HPM_DEFAULT_MACHINE);
        fprintf(stderr, "%s: %s:%u: [torus] %ux%ux%u has %u node%s, the MPI job has %d rank%s "
                        "(one rank per node)\n", cmd_name, path, m->torus.line, m->torus.x,
                m->torus.y, m->torus.z, nodes, nodes == 1 ? "" : "s", e.size,
                e.size == 1 ? "" : "s");
        return 2;
    }
#ifdef HPM_MPI_LIBRARY_FILE
    char libdir[PATH_MAX];
    if ((!lib || !*lib) &&
        hpm_part_dir(HPM_PART_MPI, HPM_MPI_LIBRARY_FILE, libdir, sizeof libdir) == 0) {
        snprintf(path, sizeof path, "%s/%s", libdir, HPM_MPI_LIBRARY_FILE);
        lib = path;
    }
#endif
    if (!lib || !*lib || access(lib, R_OK) != 0) {
        if (e.rank == 0)
            fprintf(stderr, "hpm: note: libhpm-mpi was not built (no MPI for C when hpm was "
                            "built): the network events stay 0\n");
        return 0;
    }
    snprintf(torus, sizeof torus, "%u,%u,%u,%s,%u", m->torus.x, m->torus.y, m->torus.z,
             m->torus.mapping, m->torus.packet_bytes);
    pre = malloc(strlen(lib) + (old ? strlen(old) : 0) + 2);
    if (!pre)
        return 2;
    sprintf(pre, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    if (setenv("HPM_MPI_TORUS", torus, 1) != 0 || setenv("LD_PRELOAD", pre, 1) != 0) {
        free(pre);
        return 2;
    }
    free(pre);
    return 0;
}
