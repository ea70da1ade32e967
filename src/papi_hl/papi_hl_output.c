/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_hl_output.c - the high-level API's report, in PAPI 7's layout.
 *
 * Where: PAPI_OUTPUT_DIRECTORY (default: the current directory) gets a
 * folder papi_hl_output, and in it one file per process, rank_NNNNNN.json,
 * NNNNNN being the MPI rank where a launcher says it (OMPI_COMM_WORLD_RANK,
 * ALPS_APP_PE, PMI_RANK, SLURM_PROCID) and the process id otherwise. A
 * papi_hl_output left by an earlier run is renamed
 * papi_hl_output-YYYYMMDD-HHMMSS (its own time), never overwritten; one
 * written since this process started (another rank, a child) is shared.
 * PAPI_REPORT=1 also prints the report to stdout.
 *
 * What (every value a JSON string, as PAPI writes them, so that PAPI's own
 * papi_hl_output_writer reads it):
 *   { "papi_version", "cpu_info", "max_cpu_rate_mhz", "min_cpu_rate_mhz",
 *     "event_definitions": { EVENT: { "component", "type": delta|instant } },
 *     "threads": { TID: { "regions": { ID: {
 *         "name", "parent_region_id" (-1 at top level), "region_count",
 *         "cycles", "real_time_nsec", EVENT... } } } } }
 * A region is every instance with that name and that parent in the thread,
 * summed. An event's value is the sum of its per-instance differences; an
 * instant event's is its value where the region ran once and
 * {"min","avg","max"} over the instances otherwise. Where PAPI_hl_read was
 * called, cycles, real_time_nsec and the events become
 * {"region_value", "read_1", "read_2", ...} (the k-th read of every
 * instance, summed). Events appear only in regions whose every instance
 * had the counters running.
 */
#include "papi.h"
#include "papi_hl_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"

/* "KEY":"VALUE" with the indentation and separator of the report. */
static void json_kv(FILE *f, int indent, const char *key, long long v, int last)
{
    fprintf(f, "%*s", indent, "");
    hpm_json_string(f, key);
    fprintf(f, ":\"%lld\"%s\n", v, last ? "" : ",");
}

/* One measured quantity of a region: plain, or with its reads. */
static void json_metric(FILE *f, int indent, const char *key, long long total,
                        const struct hl_region *r, long long (*read_of)(const struct hl_read *, int),
                        int arg, int last)
{
    if (r->nreads == 0) {
        json_kv(f, indent, key, total, last);
        return;
    }
    fprintf(f, "%*s", indent, "");
    hpm_json_string(f, key);
    fprintf(f, ":{\n");
    json_kv(f, indent + 2, "region_value", total, 0);
    for (int k = 0; k < r->nreads; k++) {
        char name[32];
        snprintf(name, sizeof name, "read_%d", k + 1);
        json_kv(f, indent + 2, name, read_of(&r->reads[k], arg), k == r->nreads - 1);
    }
    fprintf(f, "%*s}%s\n", indent, "", last ? "" : ",");
}

static long long read_cycles(const struct hl_read *rd, int e)
{
    (void)e;
    return rd->cycles;
}

static long long read_nsec(const struct hl_read *rd, int e)
{
    (void)e;
    return rd->nsec;
}

static long long read_event(const struct hl_read *rd, int e)
{
    return rd->value[e];
}

static void json_region(FILE *f, const struct hl_region *r, int last)
{
    const int in = 8;
    int events = r->counted ? hpm_hl.nevents : 0;

    fprintf(f, "      \"%u\":{\n", r->id);
    fprintf(f, "%*s\"name\":", in, "");
    hpm_json_string(f, r->name);
    fprintf(f, ",\n");
    json_kv(f, in, "parent_region_id", r->parent, 0);
    json_kv(f, in, "region_count", r->count, 0);
    json_metric(f, in, "cycles", r->cycles, r, read_cycles, 0, 0);
    json_metric(f, in, "real_time_nsec", r->nsec, r, read_nsec, 0, events == 0);
    for (int e = 0; e < events; e++) {
        const struct hl_event *ev = &hpm_hl.events[e];
        int lastv = e == events - 1;
        if (ev->instant && r->count > 1 && r->nreads == 0) {
            fprintf(f, "%*s", in, "");
            hpm_json_string(f, ev->name);
            fprintf(f, ":{\n");
            json_kv(f, in + 2, "min", r->vmin[e], 0);
            json_kv(f, in + 2, "avg", r->value[e] / r->count, 0);
            json_kv(f, in + 2, "max", r->vmax[e], 1);
            fprintf(f, "%*s}%s\n", in, "", lastv ? "" : ",");
        } else {
            long long v = ev->instant ? r->value[e] / r->count : r->value[e];
            json_metric(f, in, ev->name, v, r, read_event, e, lastv);
        }
    }
    fprintf(f, "      }%s\n", last ? "" : ",");
}

static int thread_has_data(const struct hl_thread *t)
{
    for (int i = 0; i < t->nregions; i++)
        if (t->regions[i]->count > 0)
            return 1;
    return 0;
}

static void json_thread(FILE *f, struct hl_thread *t, int last)
{
    int nlast = -1;

    hl_lock(&t->lock);
    for (int i = 0; i < t->nregions; i++)
        if (t->regions[i]->count > 0)
            nlast = i;
    fprintf(f, "  \"%lu\":{\n    \"regions\":{\n", t->tid);
    for (int i = 0; i < t->nregions; i++)
        if (t->regions[i]->count > 0)
            json_region(f, t->regions[i], i == nlast);
    fprintf(f, "    }\n  }%s\n", last ? "" : ",");
    hl_unlock(&t->lock);
}

void hpm_hl_write_json(FILE *f)
{
    struct hl_thread **ts = NULL;
    int nt = 0;

    /* Threads in the order they first marked a region (the list is newest
     * first); those that completed none are left out. */
    for (struct hl_thread *t = hpm_hl.threads; t; t = t->next)
        nt++;
    ts = calloc((size_t)(nt ? nt : 1), sizeof *ts);
    int k = 0;
    for (struct hl_thread *t = hpm_hl.threads; t && ts; t = t->next)
        if (thread_has_data(t))
            ts[k++] = t;

    int v = hpm_hl.lib_version;
    fprintf(f, "{\n");
    fprintf(f, "\"papi_version\":\"%d.%d.%d.%d\",\n", PAPI_VERSION_MAJOR(v),
            PAPI_VERSION_MINOR(v), PAPI_VERSION_REVISION(v), PAPI_VERSION_INCREMENT(v));
    fprintf(f, "\"cpu_info\":");
    hpm_json_string(f, hpm_hl.cpu_info);
    fprintf(f, ",\n\"max_cpu_rate_mhz\":\"%d\",\n", hpm_hl.max_mhz);
    fprintf(f, "\"min_cpu_rate_mhz\":\"%d\",\n", hpm_hl.min_mhz);
    fprintf(f, "\"event_definitions\":{\n");
    for (int e = 0; e < hpm_hl.nevents; e++) {
        const struct hl_event *ev = &hpm_hl.events[e];
        fprintf(f, "  ");
        hpm_json_string(f, ev->name);
        fprintf(f, ":{\n    \"component\":");
        hpm_json_string(f, hpm_hl.groups[ev->group].cmp_name);
        fprintf(f, ",\n    \"type\":\"%s\"\n  }%s\n", ev->instant ? "instant" : "delta",
                e == hpm_hl.nevents - 1 ? "" : ",");
    }
    fprintf(f, "},\n\"threads\":{\n");
    for (int i = k - 1; i >= 0; i--)
        json_thread(f, ts[i], i == 0);
    fprintf(f, "}\n}\n");
    free(ts);
}

/* ------------------------------------------------------------ where */

static int hl_rank(int *known)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "ALPS_APP_PE", "PMI_RANK",
                                       "SLURM_PROCID"};

    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        long r;
        if (!v || !*v)
            continue;
        errno = 0;
        r = strtol(v, &end, 10);
        if (errno == 0 && *end == '\0' && r >= 0 && r <= INT_MAX) {
            *known = 1;
            return (int)r;
        }
    }
    *known = 0;
    return (int)getpid();
}

/* mkdir -p: every missing component of path. */
static int mkdir_p(const char *path)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);

    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

static int older_than_start(const struct stat *st)
{
    if (st->st_mtim.tv_sec != hpm_hl.start.tv_sec)
        return st->st_mtim.tv_sec < hpm_hl.start.tv_sec;
    return st->st_mtim.tv_nsec < hpm_hl.start.tv_nsec;
}

/* Give an earlier run's papi_hl_output its time as a suffix. */
static void hl_keep_old(const char *dir, const struct stat *st)
{
    char stamp[32], to[PATH_MAX + 64]; /* room for the suffix */
    struct tm tm;
    time_t when = st->st_mtim.tv_sec;

    localtime_r(&when, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int n = 0; n < 1000; n++) {
        struct stat ts;
        int len = n == 0 ? snprintf(to, sizeof to, "%s-%s", dir, stamp)
                         : snprintf(to, sizeof to, "%s-%s_%d", dir, stamp, n);
        if (len < 0 || (size_t)len >= sizeof to)
            return;
        if (stat(to, &ts) == 0)
            continue;
        if (rename(dir, to) != 0 && errno != ENOENT)
            hpm_hl_msg("Warning", "Cannot rename old measurement directory %s (%s).", dir,
                       strerror(errno));
        /* ENOENT: another process of the same job moved it first. */
        return;
    }
}

static int hl_report_path(void)
{
    char cwd[PATH_MAX], dir[PATH_MAX];
    const char *base = getenv("PAPI_OUTPUT_DIRECTORY");
    struct stat st;
    int known, rank = hl_rank(&known);

    if (!base || !*base)
        base = getcwd(cwd, sizeof cwd) ? cwd : ".";
    if (mkdir_p(base) != 0) {
        hpm_hl_msg("Error", "Cannot create measurement directory %s.", base);
        return -1;
    }
    if ((size_t)snprintf(dir, sizeof dir, "%s/papi_hl_output", base) >= sizeof dir)
        return -1;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            hpm_hl_msg("Error", "Name conflict with measurement directory and existing file.");
            return -1;
        }
        /* Under MPI only rank 0 moves an old run away, so that the ranks of
         * this run end up in one folder. */
        if ((!known || rank == 0) && older_than_start(&st))
            hl_keep_old(dir, &st);
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        hpm_hl_msg("Error", "Cannot create measurement directory %s.", dir);
        return -1;
    }
    if ((size_t)snprintf(hpm_hl.report_path, sizeof hpm_hl.report_path, "%s/rank_%06d.json",
                         dir, rank) >= sizeof hpm_hl.report_path)
        return -1;
    return 0;
}

int hpm_hl_write_output(void)
{
    const char *rep = getenv("PAPI_REPORT");
    int any = 0;
    FILE *f;

    for (struct hl_thread *t = hpm_hl.threads; t && !any; t = t->next) {
        hl_lock(&t->lock);
        any = thread_has_data(t);
        hl_unlock(&t->lock);
    }
    if (!any) {
        hpm_hl_msg("Info", "No events were recorded.");
        return 0;
    }
    /* The first report of this process chooses the file; later ones (an
     * explicit PAPI_hl_print_output, then the one at exit) replace it. */
    if (!hpm_hl.written && hl_report_path() != 0)
        return -1;
    if (!(f = fopen(hpm_hl.report_path, "w"))) {
        hpm_hl_msg("Error", "Cannot create output file: %s (%s)", hpm_hl.report_path,
                   strerror(errno));
        return -1;
    }
    hpm_hl_write_json(f);
    if (fclose(f) != 0) {
        hpm_hl_msg("Error", "Cannot write output file: %s (%s)", hpm_hl.report_path,
                   strerror(errno));
        return -1;
    }
    hpm_hl.written = 1;
    hpm_hl_msg("Info", "Output written to %s", hpm_hl.report_path);
    if (rep && *rep && strcmp(rep, "0") != 0) {
        fflush(stdout);
        printf("PAPI-HL Output:\n");
        hpm_hl_write_json(stdout);
        fflush(stdout);
    }
    return 0;
}
