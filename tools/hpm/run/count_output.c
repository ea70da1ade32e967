/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_output.c - the report written (-o atomically, --keep-output) and --from-output
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
#include "report/count_report.h"
#include "machine_wire.h"
#include "report/interval.h"
#include "live.h"
#include "run/run_internal.h"
#include "util/runner.h"
#include "report/vpmu_output.h"



/* ------------------------------------------------------------ report output */

struct report_job {
    const struct count_opts *o;
    const struct count_report *r;
};

int count_report_to(FILE *f, void *ctx)
{
    const struct report_job *j = ctx;
    return j->o->fmt == FMT_JSON  ? count_report_json(f, j->r)
           : j->o->fmt == FMT_CSV ? count_report_csv(f, j->r)
                                  : count_report_text(f, j->r);
}

int count_write_report(const struct count_opts *o, const struct count_report *r)
{
    struct report_job j = {o, r};
    return runner_write_output(cmd_name, o->output, count_report_to, &j);
}

int count_keep_output_to(FILE *f, void *ctx)
{
    return vpmu_output_write(ctx, f);
}

int count_output_dir_ok(const char *path)
{
    return runner_output_ok(cmd_name, path);
}

/* The note for a program that wrote UPC registers itself, or NULL. */
const char *count_upc_write_note(const struct vpmu_output *out, char *buf, size_t len)
{
    if (!out->upc_writes)
        return NULL;
    snprintf(buf, len,
             "the program wrote UPC registers itself (%" PRIu64 " HPM_VPMU_UPC_WRITE request%s): "
             "the counts are what the units held, not necessarily the events named here",
             out->upc_writes, out->upc_writes == 1 ? "" : "s");
    return buf;
}

const char *count_slots_note(const struct vpmu_output *out, char *buf, size_t len)
{
    snprintf(buf, len,
             "the program started a thread while it ran %d, the most the simulator's thread "
             "slots hold (--max-threads=%d): the simulator stopped it there; counts up to that "
             "point (a larger --max-threads runs it on)",
             out->exit_value - 1, out->exit_value);
    return buf;
}

/* The user's --note texts, after hpm's own notes. */
void count_add_user_notes(struct count_report *r, const struct count_opts *o)
{
    for (unsigned i = 0; i < o->notes.n && r->n_notes < COUNT_MAX_NOTES; i++)
        r->notes[r->n_notes++] = o->notes.v[i];
}

int count_report_output(const struct count_opts *o, const struct vpmu_output *out,
                        const char *what)
{
    struct count_row *rows = calloc(MAX_ROWS, sizeof *rows);
    struct count_report r;
    static struct count_notes nb; /* outlives the report */
    char upc_note[200], idle_note[1024], slots_note[320];
    unsigned n = 0;
    int rc;
    if (!rows) {
        fprintf(stderr, "%s: out of memory\n", cmd_name);
        return 1;
    }
    if (o->events.n) {
        /* the file's cores; every feature, since the file holds what was counted */
        unsigned cores = out->cores > HPM_CAT_MAX_CORES ? HPM_CAT_MAX_CORES : out->cores;
        rc = count_build_rows(o, out->machine, cores, ~0u, rows, &n, NULL);
        if (rc == 0 && count_check_counts(out, rows, &n, what) != 0)
            rc = 2;
        if (rc) {
            free(rows);
            return rc;
        }
    } else {
        n = count_rows_from_output(out, rows, MAX_ROWS);
    }
    memset(&r, 0, sizeof r);
    r.out = out;
    r.rows = rows;
    r.n_rows = n;
    if (count_upc_write_note(out, upc_note, sizeof upc_note))
        r.notes[r.n_notes++] = upc_note;
    if (vpmu_output_mpx_idle_note(out, idle_note, sizeof idle_note))
        r.notes[r.n_notes++] = idle_note;
    count_order_notes(&r, &nb, out);
    r.per_core = o->per_core;
    r.per_thread = o->per_thread;
    r.machine_source = NULL;
    if (out->exit_kind == VPMU_EXIT_SIGNAL) {
        r.exit_signal = out->exit_value;
        r.exit_code = out->exit_value > 0 ? 128 + out->exit_value : 128;
        r.notes[r.n_notes++] = "program killed by a signal; counts up to that point";
    } else if (out->exit_kind == VPMU_EXIT_SLOTS) {
        /* ended by the simulator as a panic would: Valgrind's status */
        r.exit_status = 1;
        r.exit_code = 1;
        r.notes[r.n_notes++] = count_slots_note(out, slots_note, sizeof slots_note);
    } else {
        r.exit_status = out->exit_value;
        r.exit_code = out->exit_value & 0xff;
    }
    count_add_user_notes(&r, o);
    rc = count_write_report(o, &r) == 0 ? r.exit_code : 1;
    free(rows);
    return rc;
}

/* Report an existing tool output file (--from-output). */
int count_from_output(const struct count_opts *o)
{
    struct vpmu_output out;
    char err[512];
    int rc;
    if (vpmu_output_load(&out, o->from_output, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", cmd_name, err);
        vpmu_output_free(&out);
        return 1;
    }
    rc = count_report_output(o, &out, o->from_output);
    vpmu_output_free(&out);
    return rc;
}

void count_interval_tick(void *ctx, pid_t child)
{
    struct interval_watch *w = ctx;
    struct hpm_live s;
    char err[256];
    if (w->failed)
        return;
    if (!w->lr.open && hpm_live_open(&w->lr, child, err, sizeof err) != 0)
        return; /* not published yet */
    if (hpm_live_snapshot(&w->lr, &s) != 0)
        return;
    if (!w->ready) {
        enum hpm_iv_format f = w->o->fmt == FMT_JSON  ? HPM_IV_JSON
                               : w->o->fmt == FMT_CSV ? HPM_IV_CSV
                                                      : HPM_IV_TEXT;
        if (hpm_interval_init(&w->iv, &s, w->o->events.v, w->o->events.n, f, stderr,
                              cmd_name) != 0) {
            w->failed = 1;
            return;
        }
        hpm_interval_start(&w->iv, NULL);
        w->ready = 1;
    }
    hpm_interval_step(&w->iv, &s);
    if (s.state == HPM_LIVE_EXEC) {
        /* the image was replaced: the next view counts from zero */
        hpm_live_close(&w->lr);
        hpm_interval_start(&w->iv, NULL);
    }
}
