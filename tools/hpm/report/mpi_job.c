/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_job.c - ranks of an MPI job and their result files (mpi_job.h). The
 * result files are hpm count's JSON reports with an "mpi_rank" object; they
 * are read by the report's reader (count_report_read.h), which trusts
 * nothing (a rank may have died half-way, a file may come from another
 * build or be edited by hand). */
#define _GNU_SOURCE /* strdup, O_CLOEXEC */
#include "report/mpi_job.h"

#include "report/count_report_read.h"
#include "fileio.h"
#include "util/elf_facts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog.h"
#include "json.h"

/* ------------------------------------------------------------ environment */

/* A decimal in [0, max]: 0, or -1. */
static int env_number(const char *s, long max, long *v)
{
    char *end;
    long x;
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    errno = 0;
    x = strtol(s, &end, 10);
    if (errno || *end || x > max)
        return -1;
    *v = x;
    return 0;
}

int mpi_rank_env_get(struct mpi_rank_env *e, char *err, size_t errlen)
{
    /* launcher by launcher: the rank's variable, the size's, the job's */
    static const char *const vars[][3] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL},
        {"PMI_RANK", "PMI_SIZE", NULL},
        {"SLURM_PROCID", "SLURM_NTASKS", NULL},
    };
    unsigned i;
    long rank, size;
    const char *job;
    memset(e, 0, sizeof *e);
    e->rank = e->size = -1;
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i][0]))
            break;
    if (i == sizeof vars / sizeof vars[0])
        return 0;
    if (env_number(getenv(vars[i][0]), MPI_JOB_MAX_RANKS - 1, &rank) != 0 ||
        env_number(getenv(vars[i][1]), MPI_JOB_MAX_RANKS, &size) != 0 || size < 1 ||
        rank >= size) {
        snprintf(err, errlen, "%s=%s and %s=%s do not name a rank of a job (at most %d ranks)",
                 vars[i][0], getenv(vars[i][0]), vars[i][1],
                 getenv(vars[i][1]) ? getenv(vars[i][1]) : "(unset)", MPI_JOB_MAX_RANKS);
        return -1;
    }
    e->rank = (int)rank;
    e->size = (int)size;
    e->rank_var = vars[i][0];
    /* the job: Open MPI's jobid, PMIx's namespace, Slurm's job and step */
    if ((job = getenv("OMPI_MCA_ess_base_jobid")) || (job = getenv("PMIX_NAMESPACE")))
        snprintf(e->job, sizeof e->job, "%s", job);
    else if ((job = getenv("SLURM_JOB_ID")))
        snprintf(e->job, sizeof e->job, "%s.%s", job,
                 getenv("SLURM_STEP_ID") ? getenv("SLURM_STEP_ID") : "0");
    /* only characters safe in a file name */
    for (i = 0; e->job[i]; i++)
        if (!(e->job[i] >= '0' && e->job[i] <= '9') && !(e->job[i] >= 'a' && e->job[i] <= 'z') &&
            !(e->job[i] >= 'A' && e->job[i] <= 'Z') && e->job[i] != '.' && e->job[i] != '-' &&
            e->job[i] != '_')
            e->job[i] = '_';
    if (gethostname(e->host, sizeof e->host - 1) != 0)
        snprintf(e->host, sizeof e->host, "?");
    return 1;
}

int mpi_program_links_mpi(const char *path, char *err, size_t errlen)
{
    static const char *const mpi[] = {"libmpi.", "libmpi_", "libmpich", NULL};
    return program_needs_library(path, mpi, err, errlen);
}

/* ------------------------------------------------------------ one result */

void mpi_rank_result_free(struct mpi_rank_result *r)
{
    free(r->path);
    vpmu_output_free(&r->out);
    r->path = NULL;
}

/* A rank's result: a report with "mpi_rank" (count_report_read.h), its
 * counts by code, or why it has none. */
int mpi_rank_result_parse(struct mpi_rank_result *r, const char *buf, size_t len, char *err,
                          size_t errlen)
{
    struct count_report_doc rep;
    unsigned i;
    memset(r, 0, sizeof *r);
    if (count_report_read(&rep, buf, len, err, errlen) != 0)
        goto bad;
    if (!rep.r.rank) {
        snprintf(err, errlen, "not an MPI rank's result (no \"mpi_rank\" object; hpm count "
                              "writes one when it runs as a rank of a job)");
        goto bad;
    }
    r->rank = rep.rank.rank;
    r->size = rep.rank.size;
    memcpy(r->job, rep.rank.job, sizeof r->job);
    memcpy(r->host, rep.rank.host, sizeof r->host);
    memcpy(r->why, rep.why, sizeof r->why);
    r->exit_signal = rep.r.exit_signal;
    r->exit_status = rep.r.exit_status;
    if (!rep.have_exit) {
        snprintf(err, errlen, "no \"exit\" object");
        goto bad;
    }
    if (!rep.have_events) {
        if (!rep.why[0]) {
            snprintf(err, errlen, "\"why\" must be a string of at most %zu bytes",
                     sizeof r->why - 1);
            goto bad;
        }
        count_report_doc_free(&rep);
        return 0;
    }
    if (!rep.have_machine || !rep.out.cores) {
        snprintf(err, errlen, "no \"machine\" object with its \"cores\"");
        goto bad;
    }
    for (i = 0; i < (rep.r.measured ? rep.r.n_measured : rep.r.n_rows); i++)
        if (!rep.events[i].have_codes) {
            snprintf(err, errlen, "event %u: no \"codes\" array", i + 1);
            goto bad;
        }
    /* the counts and the command move to the result; the rank's threads,
     * regions and units stay out of the job's sum */
    r->out = rep.out;
    r->out.thr = NULL;
    r->out.reg = NULL;
    r->out.upc = NULL;
    r->out.n_thr = r->out.cap_thr = r->out.n_reg = r->out.cap_reg = 0;
    r->out.n_upc = r->out.cap_upc = 0;
    rep.out.command = NULL;
    r->have_counts = 1;
    count_report_doc_free(&rep);
    return 0;
bad:
    count_report_doc_free(&rep);
    return -1;
}

/* ------------------------------------------------------------ a job */

int mpi_rank_path(const char *dir, int rank, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s/rank.%d.json", dir, rank);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
    /* far more than any rank's report */
    return hpm_file_read(path, (size_t)256 << 20, NULL, "a rank's JSON report", buf, len, err,
                         errlen);
}

/* The rank.*.json files of a folder, appended to *list. */
static int list_dir(const char *dir, char ***list, unsigned *n, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        char **nl, *p;
        if (strncmp(de->d_name, "rank.", 5) != 0 || l < 10 || strcmp(de->d_name + l - 5, ".json"))
            continue;
        nl = realloc(*list, (*n + 1) * sizeof *nl);
        p = malloc(strlen(dir) + l + 2);
        if (!nl || !p) {
            free(p);
            if (nl)
                *list = nl;
            closedir(d);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        *list = nl;
        sprintf(p, "%s/%s", dir, de->d_name);
        (*list)[(*n)++] = p;
    }
    closedir(d);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void mpi_job_free(struct mpi_job *j)
{
    unsigned i;
    for (i = 0; i < j->n_res; i++)
        mpi_rank_result_free(&j->res[i]);
    free(j->res);
    free(j->by_rank);
    vpmu_output_free(&j->total);
    memset(j, 0, sizeof *j);
}

int mpi_job_load(struct mpi_job *j, char *const *paths, unsigned n, char *err, size_t errlen)
{
    char **files = NULL, e2[300];
    unsigned nf = 0, i;
    int rc = -1;
    memset(j, 0, sizeof *j);
    for (i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            unsigned before = nf;
            if (list_dir(paths[i], &files, &nf, err, errlen))
                goto out;
            if (nf == before) {
                snprintf(err, errlen, "%s: no rank result files (rank.R.json) in this folder",
                         paths[i]);
                goto out;
            }
            qsort(files + before, nf - before, sizeof *files, cmp_str);
            continue;
        }
        char **nl = realloc(files, (nf + 1) * sizeof *nl);
        if (!nl || !(nl[nf] = strdup(paths[i]))) {
            if (nl)
                files = nl;
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        files = nl;
        nf++;
    }
    if (!nf) {
        snprintf(err, errlen, "no result files");
        goto out;
    }
    j->res = calloc(nf, sizeof *j->res);
    if (!j->res) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (i = 0; i < nf; i++) {
        struct mpi_rank_result *r = &j->res[i];
        char *buf = NULL;
        size_t len = 0;
        if (read_file(files[i], &buf, &len, err, errlen))
            goto out;
        if (mpi_rank_result_parse(r, buf, len, e2, sizeof e2) != 0) {
            free(buf);
            j->n_res = i + 1;
            snprintf(err, errlen, "%s: %s", files[i], e2);
            goto out;
        }
        free(buf);
        j->n_res = i + 1;
        r->path = files[i];
        files[i] = NULL;
        if (i == 0) {
            j->size = (unsigned)r->size;
            j->by_rank = calloc(j->size, sizeof *j->by_rank);
            if (!j->by_rank) {
                snprintf(err, errlen, "out of memory");
                goto out;
            }
        } else if ((unsigned)r->size != j->size || strcmp(r->job, j->res[0].job) != 0) {
            snprintf(err, errlen, "%s: rank %d of job '%s' of %d ranks, but %s is of job '%s' "
                                  "of %u ranks: results of one job only",
                     r->path, r->rank, r->job, r->size, j->res[0].path, j->res[0].job, j->size);
            goto out;
        }
        if (j->by_rank[r->rank]) {
            snprintf(err, errlen, "rank %d twice: %s and %s", r->rank, j->by_rank[r->rank]->path,
                     r->path);
            goto out;
        }
        j->by_rank[r->rank] = r;
    }
    /* the sum over the ranks with counts, in rank order */
    for (i = 0; i < j->size; i++) {
        struct mpi_rank_result *r = j->by_rank[i];
        if (!r || !r->have_counts)
            continue;
        if (j->counted == 0) {
            snprintf(j->total.machine, sizeof j->total.machine, "%s", r->out.machine);
            j->total.cores = r->out.cores;
            j->total.frequency_hz = r->out.frequency_hz;
            memcpy(j->total.level, r->out.level, sizeof j->total.level);
            memcpy(j->total.models, r->out.models, sizeof j->total.models);
            j->total.upcs = r->out.upcs;
            j->total.have_threads = 1;
            j->total.exit_kind = VPMU_EXIT_STATUS;
            if (r->out.command && !(j->total.command = strdup(r->out.command))) {
                snprintf(err, errlen, "out of memory");
                goto out;
            }
        } else {
            unsigned c;
            for (c = 0; c < HPM_CAT_SPECS; c++)
                if (r->out.have_count[c] != j->total.have_count[c]) {
                    char name[HPM_CAT_NAME_MAX];
                    hpm_catalog_code_name(c, name, sizeof name);
                    snprintf(err, errlen, "%s counted %s but rank %d did%s: every rank must "
                                          "count the same events",
                             r->path, name, j->by_rank[0] ? j->by_rank[0]->rank : 0,
                             r->out.have_count[c] ? " not" : "");
                    goto out;
                }
        }
        if (vpmu_output_add(&j->total, &r->out, e2, sizeof e2) != 0) {
            snprintf(err, errlen, "%s: %s", r->path, e2);
            goto out;
        }
        j->counted++;
    }
    if (!j->counted) {
        snprintf(err, errlen, "no rank of the job has counts (%u rank%s, %u result file%s)",
                 j->size, j->size == 1 ? "" : "s", j->n_res, j->n_res == 1 ? "" : "s");
        goto out;
    }
    rc = 0;
out:
    for (i = 0; i < nf; i++)
        free(files[i]);
    free(files);
    return rc;
}

/* ------------------------------------------------------------ ranks at run time */

/* DIR/.done.JOB.R: rank R of job JOB has its result in place. Per job, so
 * that results an earlier job left in a reused folder never complete this
 * job's set. */
static int done_path(const char *dir, const char *job, int rank, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s/.done.%s.%d", dir, job[0] ? job : "job", rank);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int mpi_job_elect_aggregator(const struct mpi_rank_env *e, const char *dir)
{
    char path[4200];
    struct stat st;
    int r, fd;
    if (done_path(dir, e->job, e->rank, path, sizeof path) != 0)
        return 0;
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return 0;
    close(fd);
    for (r = 0; r < e->size; r++) {
        if (done_path(dir, e->job, r, path, sizeof path) != 0 || stat(path, &st) != 0)
            return 0; /* a rank is still running, or lost */
    }
    /* every result is there (each renamed into place complete); of the
     * ranks that see this, the one that creates the marker writes */
    if (snprintf(path, sizeof path, "%s/.aggregate.%s", dir, e->job[0] ? e->job : "job") >=
        (int)sizeof path)
        return 0;
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return 0;
    close(fd);
    /* the markers have served: a rank still looking finds the set
     * incomplete, and the marker above stops any other from writing */
    for (r = 0; r < e->size; r++)
        if (done_path(dir, e->job, r, path, sizeof path) == 0)
            unlink(path);
    return 1;
}

int mpi_rank_write_lost(const char *cmd, const char *dir, const struct mpi_rank_env *e,
                        int exit_signal, int exit_status, const char *why)
{
    char path[4200], tmp[4300];
    FILE *f;
    int fd;
    if (mpi_rank_path(dir, e->rank, path, sizeof path) != 0 ||
        snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        fprintf(stderr, "%s: %s: path too long\n", cmd, dir);
        return -1;
    }
    fd = mkstemp(tmp);
    if (fd < 0 || !(f = fdopen(fd, "w"))) {
        fprintf(stderr, "%s: %s: %s\n", cmd, tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        return -1;
    }
    fprintf(f, "{\n  \"source\":\"modeled\",\n  \"mpi_rank\":{\"rank\":%d,\"size\":%d,\"job\":",
            e->rank, e->size);
    hpm_json_string(f, e->job);
    fputs(",\"host\":", f);
    hpm_json_string(f, e->host);
    fputs("},\n  \"exit\":{", f);
    if (exit_signal > 0)
        fprintf(f, "\"signal\":%d", exit_signal);
    else
        fprintf(f, "\"status\":%d", exit_status);
    fputs("},\n  \"why\":", f);
    hpm_json_string(f, why);
    fputs("\n}\n", f);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "%s: %s: %s\n", cmd, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
