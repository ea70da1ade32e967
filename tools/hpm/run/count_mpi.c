/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_mpi.c - hpm count as a rank of an MPI job and the node's network
 * (run_internal.h: what the parts of run/ share).
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
#include "report/mpi_report.h"
#include "report/count_report.h"
#include "util/install_dirs.h"
#include "util/machine_arg.h"
#include "machine_wire.h"
#include "fileio.h"
#include "report/mpi_combined.h"
#include "report/mpi_job.h"
#include "live.h"
#include "run/run_internal.h"


/* hpm count as a rank of an MPI job (mpi_job.h): 1 with e and the job's
 * folder (created), 0 when not in a job, -1 after printing why not. */
int count_mpi_rank_setup(const struct count_opts *o, struct mpi_rank_env *e, char *dir,
                          size_t len)
{
    char err[512], found[4096];
    struct stat st;
    int tries, in = mpi_rank_env_get(e, err, sizeof err);
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
    if (o->mpi && count_search_program(o->prog[0], found, sizeof found) == 0) {
        /* as the shell finds it (PATH); one not found is said later, as
         * for any run */
        int is = mpi_program_links_mpi(found, err, sizeof err);
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
    /* Another rank may remove the folder it made between this rank's
     * mkdir and stat: a rank that refuses to run removes the folder it
     * made for the run (count_plan.c), empty. Made again then. */
    for (tries = 0;; tries++) {
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "%s: %s: %s\n", cmd_name, dir, strerror(errno));
            return -1;
        }
        if (stat(dir, &st) == 0)
            break;
        if (errno != ENOENT || tries == 100) {
            fprintf(stderr, "%s: %s: not a folder\n", cmd_name, dir);
            return -1;
        }
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s: not a folder\n", cmd_name, dir);
        return -1;
    }
    return 1;
}

/* The machine file hpm count loaded, as its errors name it. */
static void machine_path(const struct count_opts *o, char *path, size_t len)
{
    if (o->machine && strchr(o->machine, '/'))
        snprintf(path, len, "%s", o->machine);
    else
        snprintf(path, len, "%s/%s.machine", machine_arg_dir(),
                 o->machine ? o->machine : HPM_DEFAULT_MACHINE);
}

/* A rank's share of its node's cores: the node's cores shared out evenly
 * between its ranks, rank r being local rank r mod N of node r / N. 0, or
 * 2 after printing why not. */
static int node_cores(struct count_opts *o, const struct hpm_machine *m,
                      const struct mpi_rank_env *e, unsigned rpn)
{
    unsigned cores = (unsigned)m->hier.cores;
    if (rpn > cores || cores % rpn) {
        fprintf(stderr, "%s: --ranks-per-node %u: a node of machine %s has %u core%s, shared "
                        "out evenly between its ranks (ranks per node: a divisor of %u)\n",
                cmd_name, rpn, m->name, cores, cores == 1 ? "" : "s", cores);
        return 2;
    }
    if (rpn > 1) {
        o->core_count = cores / rpn;
        o->first_core = (unsigned)e->rank % rpn * o->core_count;
    }
    return 0;
}

/* The job's torus: --torus, or the machine's own, or, when the machine's
 * [torus] gives no shape, the one hpm_torus_shape picks for the job's
 * nodes. It must have one node per node of the job. 0, or 2 after printing
 * why not. */
static int job_torus(const struct count_opts *o, struct hpm_machine *m, unsigned nodes,
                     const struct mpi_rank_env *e, unsigned rpn)
{
    char path[4200], what[4400], tail;
    unsigned x, y, z;
    if (o->torus) {
        if (sscanf(o->torus, "%ux%ux%u%c", &x, &y, &z, &tail) != 3) {
            fprintf(stderr, "%s: --torus %s: expected XxYxZ, nodes per dimension (4x4x2)\n",
                    cmd_name, o->torus);
            return 2;
        }
        m->torus.x = x;
        m->torus.y = y;
        m->torus.z = z;
        m->torus.job_shape = 0;
        if (hpm_torus_check(&m->torus) != 0) {
            fprintf(stderr, "%s: --torus %s: every dimension at least 1, at most %u nodes\n",
                    cmd_name, o->torus, HPM_TORUS_MAX_NODES);
            return 2;
        }
        snprintf(what, sizeof what, "--torus");
    } else if (m->torus.job_shape) {
        if (hpm_torus_shape(&m->torus, nodes) != 0)
            return 2; /* nodes <= MPI_JOB_MAX_RANKS */
        m->torus.job_shape = 0;
        return 0;
    } else {
        machine_path(o, path, sizeof path);
        snprintf(what, sizeof what, "%s:%u: [torus]", path, m->torus.line);
    }
    if (hpm_torus_nodes(&m->torus) == nodes)
        return 0;
    fprintf(stderr, "%s: %s %ux%ux%u has %u node%s, the MPI job has %d rank%s on %u node%s (%u "
                    "rank%s per node); give --torus, or a [torus] without x, y and z for a "
                    "shape picked for the job\n",
            cmd_name, what, m->torus.x, m->torus.y, m->torus.z, hpm_torus_nodes(&m->torus),
            hpm_torus_nodes(&m->torus) == 1 ? "" : "s", e->size, e->size == 1 ? "" : "s", nodes,
            nodes == 1 ? "" : "s", rpn, rpn == 1 ? "" : "s");
    return 2;
}

/* The ranks of an MPI job get libhpm-mpi preloaded (LD_PRELOAD, which
 * valgrind passes on to the program) and, on a machine with a network, the
 * torus and ranks per node in HPM_MPI_TORUS. 0, or 2. */
static int preload(const struct hpm_machine *m, const struct mpi_rank_env *e, unsigned rpn)
{
    char torus[160], *pre;
    const char *lib = getenv("HPM_MPI_LIB"), *old = getenv("LD_PRELOAD");
    if (lib && strcmp(lib, "none") == 0)
        return 0; /* HPM_MPI_LIB=none: the job without it (what bench/mpi compares) */
#ifdef HPM_MPI_LIBRARY_FILE
    char libdir[PATH_MAX], path[PATH_MAX + 64]; /* lib may point here */
    if ((!lib || !*lib) &&
        hpm_part_dir(HPM_PART_MPI, HPM_MPI_LIBRARY_FILE, libdir, sizeof libdir) == 0) {
        snprintf(path, sizeof path, "%s/%s", libdir, HPM_MPI_LIBRARY_FILE);
        lib = path;
    }
#endif
    if (!lib || !*lib || access(lib, R_OK) != 0) {
        if (e->rank == 0)
            fprintf(stderr, "hpm: note: libhpm-mpi was not built (no MPI for C when hpm was "
                            "built): no MPI profile, and the network events stay 0\n");
        return 0;
    }
    snprintf(torus, sizeof torus, "%u,%u,%u,%s,%u,%u", m->torus.x, m->torus.y, m->torus.z,
             m->torus.mapping, m->torus.packet_bytes, rpn);
    if (!m->torus.x)
        unsetenv("HPM_MPI_TORUS");
    else if (setenv("HPM_MPI_TORUS", torus, 1) != 0)
        return 2;
    pre = malloc(strlen(lib) + (old ? strlen(old) : 0) + 2);
    if (!pre)
        return 2;
    sprintf(pre, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    if (setenv("LD_PRELOAD", pre, 1) != 0) {
        free(pre);
        return 2;
    }
    free(pre);
    return 0;
}

/* A rank of an MPI job: its share of the node (--ranks-per-node) and, on
 * a machine with a network ([torus], or --torus), the job's torus and
 * libhpm-mpi. 0, or 2 after printing why not. Outside a job nothing
 * changes (--ranks-per-node and --torus are refused). */
int count_mpi_node_setup(struct count_opts *o, struct hpm_machine *m)
{
    struct mpi_rank_env e;
    char err[512], found[4096];
    unsigned rpn = o->ranks_per_node > 0 ? (unsigned)o->ranks_per_node : 1, nodes;
    int rc;
    if (mpi_rank_env_get(&e, err, sizeof err) != 1) {
        if (o->ranks_per_node || o->torus) {
            fprintf(stderr, "%s: --ranks-per-node and --torus need hpm count to be a rank of an "
                            "MPI job (mpirun -np N hpm count --ranks-per-node 2 -- PROGRAM)\n",
                    cmd_name);
            return 2;
        }
        return 0;
    }
    if ((rc = node_cores(o, m, &e, rpn)) != 0)
        return rc;
    nodes = ((unsigned)e.size + rpn - 1) / rpn;
    if ((o->torus || m->torus.x || m->torus.job_shape) &&
        (rc = job_torus(o, m, nodes, &e, rpn)) != 0)
        return rc;
    /* a program that is no MPI program has no MPI calls (and needs no libmpi) */
    if (count_search_program(o->prog[0], found, sizeof found) != 0 ||
        mpi_program_links_mpi(found, err, sizeof err) != 1)
        return 0;
    return preload(m, &e, rpn);
}

/* What libhpm-mpi combines at MPI_Finalize for the report: the rows' codes
 * (HPM_MPI_ROWS) and whether to gather per-rank tables (HPM_MPI_PER_RANK);
 * the tool writes its result to DIR/mpi.json. 0, or -1. */
int count_mpi_combine_setup(struct count_opts *o, const struct count_row *rows, unsigned n,
                            const char *dir, char *out, size_t outlen)
{
    char *env = malloc((size_t)n * HPM_CAT_MAX_CORES * 12 + 1), *p = env;
    unsigned i, k;
    if (!env)
        return -1;
    *p = 0;
    for (i = 0; i < n; i++)
        for (k = 0; k < rows[i].n_codes; k++)
            p += sprintf(p, "%s%d", k ? "," : i ? ";" : "", rows[i].codes[k]);
    if (setenv("HPM_MPI_ROWS", env, 1) != 0 ||
        (o->per_rank ? setenv("HPM_MPI_PER_RANK", "1", 1) : unsetenv("HPM_MPI_PER_RANK")) != 0 ||
        snprintf(out, outlen, "%s/mpi.json", dir) >= (int)outlen) {
        free(env);
        return -1;
    }
    free(env);
    o->mpi_out = out;
    return 0;
}

/* After a rank's run: what libhpm-mpi's combine left (DIR/mpi.json).
 * Rank 0 writes the job's aggregate from it (rows, its own machine and
 * exit). 1 when the job was combined over MPI (this rank took part: the
 * aggregate is rank 0's), 0 when not (the job's folder decides, as for a
 * program without MPI), -1 after printing why the aggregate failed. */
int count_mpi_combined(const struct count_opts *o, const struct count_report *r,
                       const char *dir)
{
    char path[4200], err[300], *buf = NULL;
    size_t len = 0;
    struct mpi_combined c;
    int rc;
    if (snprintf(path, sizeof path, "%s/mpi.json", dir) >= (int)sizeof path ||
        access(path, R_OK) != 0 ||
        hpm_file_read(path, (size_t)1 << 30, NULL, "libhpm-mpi's combined results", &buf, &len,
                      err, sizeof err) != 0)
        return 0;
    if (len > 12 && strncmp(buf, "{\"combined\":", 12) == 0) {
        free(buf);
        return 1; /* another rank's part: rank 0 writes the aggregate */
    }
    rc = mpi_combined_parse(&c, buf, len, err, sizeof err);
    free(buf);
    if (rc != 0) {
        fprintf(stderr, "%s: libhpm-mpi's combined results: %s\n", cmd_name, err);
        mpi_combined_free(&c);
        return -1;
    }
    rc = mpi_combined_report(cmd_name, &c, r->out, r->exit_signal, r->exit_status,
                             (struct count_row *)r->rows, r->n_rows, o->fmt, o->output,
                             o->per_rank) == 0
             ? 1
             : -1;
    mpi_combined_free(&c);
    return rc;
}
