/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_notes.c - the notes of a virtual-PMU run's report: how the program
 * ended, its images, its process tree (started, killed, run natively), the
 * UPC's health, what hpm could not wait for (run_internal.h); the
 * threads' order and the lines they shared are count_order.c's.
 */
#define _GNU_SOURCE /* strsignal */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/count_procs.h"
#include "live.h"
#include "util/runner.h"
#include "run/run_internal.h"

/* The note on what the live views of the killed processes showed last
 * (count_tree_take_views): each row's value at the view's last
 * publication. Not added to any total: the process counted on after it,
 * up to the signal. 1 when written, 0 when no killed process left a view. */
static int killed_views_note(const struct count_tree *t, const struct count_row *rows,
                             unsigned n_rows, char *buf, size_t len)
{
    size_t at = 0;
    unsigned k, i, j, n = 0;
    uint64_t every = 0;
    for (k = 0; k < t->n; k++)
        if (t->procs[k].view) {
            every = t->procs[k].view->interval_ms; /* the run's --hpm-live-ms */
            n++;
        }
    if (!n)
        return 0;
    at += (size_t)snprintf(buf, len,
                           "what the live view%s of the killed process%s showed last (counts "
                           "up to %s last publication, made every %" PRIu64 " ms of host "
                           "time; not in the totals):",
                           n == 1 ? "" : "s", n == 1 ? "" : "es", n == 1 ? "its" : "their",
                           every);
    for (k = 0; k < t->n && at < len; k++) {
        const struct hpm_live *v = t->procs[k].view;
        if (!v)
            continue;
        at += (size_t)snprintf(buf + at, len - at, " pid %" PRIu64, t->procs[k].pid);
        for (i = 0; i < n_rows && at < len; i++) {
            uint64_t sum = 0;
            int have = 1, h;
            for (j = 0; j < rows[i].n_codes; j++) {
                sum += hpm_live_value(v, (unsigned)rows[i].codes[j], &h);
                have &= h;
            }
            if (have)
                at += (size_t)snprintf(buf + at, len - at, " %s %" PRIu64, rows[i].name, sum);
            else
                at += (size_t)snprintf(buf + at, len - at, " %s -", rows[i].name);
        }
        if (at < len && --n)
            at += (size_t)snprintf(buf + at, len - at, ";");
    }
    if (at >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
    return 1;
}

/* How the program ended, on how many cores, through which images. */
static void program_notes(struct count_report *r, struct count_notes *nb, unsigned cores,
                          const struct count_tree *tree, const struct vpmu_output *out,
                          const struct runner_result *res)
{
    unsigned execs;
    if (out->exit_kind == VPMU_EXIT_SLOTS)
        r->notes[r->n_notes++] = count_slots_note(out, nb->exit, sizeof nb->exit);
    /* valgrind re-raises the program's fatal signal on itself */
    if (!count_report_exit(r, res->status, nb->sig, sizeof nb->sig)) {
        if (out->exit_kind == VPMU_EXIT_STATUS && (out->exit_value & 0xff) != r->exit_status) {
            snprintf(nb->exit, sizeof nb->exit,
                     "valgrind exited with status %d, the program with %d", r->exit_status,
                     out->exit_value);
            r->notes[r->n_notes++] = nb->exit;
        }
    }
    if (out->cores != cores) {
        snprintf(nb->core, sizeof nb->core, "the tool modeled %u cores, the machine has %u",
                 out->cores, cores);
        r->notes[r->n_notes++] = nb->core;
    }
    execs = count_proc_execs(&tree->procs[0]);
    if (execs) {
        /* the chain of images of the program's own process */
        size_t at = 0;
        unsigned k;
        at += (size_t)snprintf(nb->exec + at, sizeof nb->exec - at,
                               "the program exec'd %u time%s (", execs, execs == 1 ? "" : "s");
        for (k = 0; k < tree->procs[0].n_commands && at < sizeof nb->exec; k++)
            at += (size_t)snprintf(nb->exec + at, sizeof nb->exec - at, "%s%s",
                                   k ? " -> " : "", tree->procs[0].commands[k]);
        if (at < sizeof nb->exec)
            snprintf(nb->exec + at, sizeof nb->exec - at,
                     "); the counts before and after each exec are summed");
        r->notes[r->n_notes++] = nb->exec;
    }
    if (!tree->procs[0].complete) {
        if (tree->procs[0].native)
            snprintf(nb->lost, sizeof nb->lost,
                     "the program exec'd %s, which ran natively (--trace-children-skip): counts "
                     "up to the exec",
                     tree->procs[0].native);
        else
            snprintf(nb->lost, sizeof nb->lost,
                     "the program's last image (after its exec) wrote no counts; counts up to "
                     "the exec");
        r->notes[r->n_notes++] = nb->lost;
    }
}

/* The processes killed before they wrote their counts (SIGKILL leaves a
 * process's tool no time to write: its parent's wait, or hpm's for an
 * orphan, saw it; count_procs.h), and what their views showed last. */
static void killed_notes(struct count_report *r, struct count_notes *nb,
                         const struct count_tree *tree, const struct runner_result *res,
                         const struct count_row *rows, unsigned n_rows)
{
    size_t at = 0;
    unsigned k, named = 0;
    at += (size_t)snprintf(nb->killed + at, sizeof nb->killed - at,
                           "%u process%s killed before writing %s counts (", tree->killed,
                           tree->killed == 1 ? " was" : "es were",
                           tree->killed == 1 ? "its" : "their");
    for (k = 0; k < tree->n && at < sizeof nb->killed; k++)
        if (tree->procs[k].killed_signal)
            at += (size_t)snprintf(nb->killed + at, sizeof nb->killed - at,
                                   "%spid %" PRIu64 " by signal %d (%s)", named++ ? ", " : "",
                                   tree->procs[k].pid, tree->procs[k].killed_signal,
                                   strsignal(tree->procs[k].killed_signal));
    if (res->killed_unlisted && at < sizeof nb->killed)
        at += (size_t)snprintf(nb->killed + at, sizeof nb->killed - at,
                               "%s%u more not in the table (out of memory)", named ? ", " : "",
                               res->killed_unlisted);
    if (at < sizeof nb->killed)
        snprintf(nb->killed + at, sizeof nb->killed - at,
                 "): %s counts are lost, the totals are without them",
                 tree->killed == 1 ? "its" : "their");
    r->notes[r->n_notes++] = nb->killed;
    if (killed_views_note(tree, rows, n_rows, nb->view, sizeof nb->view) &&
        r->n_notes < COUNT_MAX_NOTES)
        r->notes[r->n_notes++] = nb->view;
}

/* The process tree: the processes the program started (or left out), the
 * killed ones, the programs run natively. */
static void tree_notes(struct count_report *r, struct count_notes *nb,
                       const struct count_opts *o, struct count_tree *tree,
                       const struct runner_result *res, const struct count_row *rows,
                       unsigned n_rows)
{
    /* --no-children: the program's own forks, also of children still
     * running (which have no file yet) */
    if (tree->procs[0].out.forks > tree->skipped)
        tree->skipped = (unsigned)(tree->procs[0].out.forks > UINT_MAX ? UINT_MAX
                                                                     : tree->procs[0].out.forks);
    if (tree->n > 1 || (o->no_children && tree->skipped)) {
        unsigned missing = 0, k;
        for (k = 1; k < tree->n; k++)
            missing += !tree->procs[k].complete;
        if (o->no_children)
            snprintf(nb->fork, sizeof nb->fork,
                     "the program started %u more process%s; --no-children: their counts are "
                     "not included",
                     tree->skipped, tree->skipped == 1 ? "" : "es");
        else
            snprintf(nb->fork, sizeof nb->fork,
                     "counts are the sum over %u processes, the program and the %u it started "
                     "(table below; --no-children counts the program alone)%s",
                     tree->n, tree->n - 1,
                     missing ? "; some ended without writing their final counts" : "");
        r->notes[r->n_notes++] = nb->fork;
    }
    if (tree->killed || res->killed_unlisted)
        killed_notes(r, nb, tree, res, rows, n_rows);
    if (tree->native_procs) {
        size_t at = 0;
        unsigned k;
        at += (size_t)snprintf(nb->native + at, sizeof nb->native - at,
                               "--trace-children-skip: %u program%s ran natively, not counted "
                               "and not in the process table (",
                               tree->native_procs, tree->native_procs == 1 ? "" : "s");
        for (k = 0; k < tree->n_native && at < sizeof nb->native; k++)
            at += (size_t)snprintf(nb->native + at, sizeof nb->native - at, "%s%s x%u",
                                   k ? ", " : "", tree->native[k].path, tree->native[k].n);
        if (at < sizeof nb->native)
            snprintf(nb->native + at, sizeof nb->native - at, ")");
        r->notes[r->n_notes++] = nb->native;
    }
}

void count_add_notes(struct count_report *r, struct count_notes *nb, const struct count_opts *o,
                     unsigned cores, struct count_tree *tree, const struct vpmu_output *out,
                     const struct runner_result *res, const struct count_row *rows,
                     unsigned n_rows, const char *lat_note)
{
    program_notes(r, nb, cores, tree, out, res);
    tree_notes(r, nb, o, tree, res, rows, n_rows);
    if (count_upc_write_note(out, nb->upc, sizeof nb->upc))
        r->notes[r->n_notes++] = nb->upc;
    count_order_notes(r, nb, out);
    if (vpmu_output_saturated_note(out, nb->sat, sizeof nb->sat))
        r->notes[r->n_notes++] = nb->sat;
    if (vpmu_output_mpx_idle_note(out, nb->mpx_idle, sizeof nb->mpx_idle) &&
        r->n_notes < COUNT_MAX_NOTES)
        r->notes[r->n_notes++] = nb->mpx_idle;
    if (res->tree_left) {
        snprintf(nb->left, sizeof nb->left,
                 "hpm stopped waiting for the program's children (a signal); those still "
                 "running are not counted");
        r->notes[r->n_notes++] = nb->left;
    }
    if (lat_note && r->n_notes < COUNT_MAX_NOTES)
        r->notes[r->n_notes++] = lat_note;
    count_add_user_notes(r, o);
}
