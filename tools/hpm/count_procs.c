/* SPDX-License-Identifier: BSD-3-Clause */
/* count_procs.c - the process tree of one hpm count run (count_procs.h). */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include "count_procs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "live.h"
#include "fileio.h"
#include "vpmu_format.h"
#include "vpmufile.h"

/* dst = an empty output with src's description (machine, command, pid,
 * exit), ready for vpmu_output_add. */
static int init_like(struct vpmu_output *dst, const struct vpmu_output *src)
{
    *dst = *src;
    memset(dst->count, 0, sizeof dst->count);
    memset(dst->have_count, 0, sizeof dst->have_count);
    dst->n_counts = 0;
    dst->thr = NULL;
    dst->reg = NULL;
    dst->upc = NULL;
    dst->n_thr = dst->n_reg = dst->n_upc = 0;
    dst->cap_thr = dst->cap_reg = dst->cap_upc = 0;
    dst->threads = 0;
    dst->upc_writes = 0;
    dst->forks = 0;
    dst->interleave_switches = 0;
    dst->shared_lines = dst->shared_dropped = dst->shared_written = 0;
    dst->coh_time = 0;
    dst->coh_time_logged = dst->coh_time_misses = dst->coh_time_host = 0;
    dst->n_shared = 0;
    dst->command = NULL;
    if (src->command && !(dst->command = strdup(src->command)))
        return -1;
    return 0;
}

static void free_proc(struct count_proc *p)
{
    unsigned i;
    for (i = 0; i < p->n_commands; i++)
        free(p->commands[i]);
    free(p->commands);
    free(p->native);
    free(p->view);
    vpmu_output_free(&p->out);
}

/* ------------------------------------------------------------------------
 * The tool's process-tree records (vpmu_format.h: reaped, exec_native),
 * which the output parser skips
 * ---------------------------------------------------------------------- */

struct reaped {
    uint64_t pid, reaper; /* reaper 0: hpm (an orphan of the tree) */
    int sig;
};

struct tree_extra {
    struct reaped *reaped;
    size_t n_reaped, cap_reaped;
};

/* Scans one file for the records; *native gets an exec_native's program
 * (a segment's). 0, or -1 out of memory. */
static int scan_extra(const char *path, uint64_t pid, struct tree_extra *x, char **native)
{
    struct hpm_file_map m;
    struct vpmu_recs it;
    struct vpmu_rec r;
    char err[8];
    int rc = 0;
    if (hpm_file_map(path, (size_t)1 << 34, NULL, NULL, &m, err, sizeof err) != 0)
        return 0; /* vpmu_output_load says what is wrong with it */
    vpmu_recs_begin(&it, m.data, m.len);
    while (rc == 0 && vpmu_recs_next(&it, &r) > 0) {
        if (vpmu_rec_is(&r, VPMU_REC_REAPED)) {
            /* reaped PID signal N */
            const char *q = r.rest, *f;
            size_t n;
            uint64_t rp, sig;
            if (!vpmu_field(&q, r.end, &f, &n) || vpmu_number(f, n, 10, &rp) != 0 ||
                !vpmu_field(&q, r.end, &f, &n) || !vpmu_word_is(f, n, VPMU_EXIT_WORD_SIGNAL) ||
                !vpmu_field(&q, r.end, &f, &n) || vpmu_number(f, n, 10, &sig) != 0 ||
                vpmu_field(&q, r.end, &f, &n) || rp == 0 || sig == 0 || sig >= 128)
                continue;
            if (x->n_reaped == x->cap_reaped) {
                size_t nc = x->cap_reaped ? 2 * x->cap_reaped : 8;
                struct reaped *nr = realloc(x->reaped, nc * sizeof *nr);
                if (!nr) {
                    rc = -1;
                    break;
                }
                x->reaped = nr;
                x->cap_reaped = nc;
            }
            x->reaped[x->n_reaped].pid = rp;
            x->reaped[x->n_reaped].reaper = pid;
            x->reaped[x->n_reaped].sig = (int)sig;
            x->n_reaped++;
        } else if (vpmu_rec_is(&r, VPMU_REC_EXEC_NATIVE) && r.rest + 1 < r.end &&
                   r.rest[0] == ' ') {
            /* the program's path: the rest of the line after one space */
            free(*native);
            if (!(*native = strndup(r.rest + 1, (size_t)(r.end - r.rest - 1))))
                rc = -1;
        }
    }
    hpm_file_unmap(&m);
    return rc;
}

static int cmp_proc_pid(const void *a, const void *b)
{
    const struct count_proc *x = a, *y = b;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* A program that ran natively, once more. */
static int native_add(struct count_tree *t, const char *path)
{
    unsigned i;
    struct count_native *nn;
    t->native_procs++;
    for (i = 0; i < t->n_native; i++)
        if (strcmp(t->native[i].path, path) == 0) {
            t->native[i].n++;
            return 0;
        }
    nn = realloc(t->native, (t->n_native + 1) * sizeof *nn);
    if (!nn)
        return -1;
    t->native = nn;
    if (!(nn[t->n_native].path = strdup(path)))
        return -1;
    nn[t->n_native++].n = 1;
    return 0;
}

/* Loads files[0..n) (one process: its segments in order, then maybe its
 * final file) into p. */
static int load_proc(struct count_proc *p, const struct vpmu_file *files, unsigned n, char *err,
                     size_t errlen)
{
    struct vpmu_output *parts = calloc(n, sizeof *parts);
    const struct vpmu_output *last;
    char perr[512];
    unsigned i;
    int rc = -1;
    memset(p, 0, sizeof *p);
    p->pid = files[0].pid;
    p->complete = files[n - 1].seq == VPMU_FILE_FINAL;
    p->commands = calloc(n, sizeof *p->commands);
    if (!parts || !p->commands) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (i = 0; i < n; i++) {
        if (vpmu_output_load(&parts[i], files[i].path, perr, sizeof perr) != 0) {
            snprintf(err, errlen, "%s: %s", files[i].path, perr);
            goto out;
        }
        if ((parts[i].exit_kind == VPMU_EXIT_EXEC) != (files[i].seq != VPMU_FILE_FINAL)) {
            snprintf(err, errlen, "%s: %s", files[i].path,
                     files[i].seq != VPMU_FILE_FINAL ? "an exec segment without 'exit exec'"
                                                : "'exit exec' in a final file");
            goto out;
        }
        p->commands[i] = strdup(parts[i].command ? parts[i].command : "?");
        if (!p->commands[i]) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        p->n_commands++;
    }
    /* the last part describes the process: the image it ended in, its exit */
    last = &parts[n - 1];
    if (init_like(&p->out, last) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (i = 0; i < n; i++)
        if (parts[i].have_ppid) {
            p->ppid = parts[i].ppid;
            break;
        }
    for (i = 0; i < n; i++)
        if (vpmu_output_add(&p->out, &parts[i], perr, sizeof perr) != 0) {
            snprintf(err, errlen, "%s: %s", files[i].path, perr);
            goto out;
        }
    rc = 0;
out:
    if (parts)
        for (i = 0; i < n; i++)
            vpmu_output_free(&parts[i]);
    free(parts);
    return rc;
}

int count_tree_load(struct count_tree *t, const char *dir, uint64_t main_pid, int children,
                    const struct runner_killed *reaped, unsigned n_reaped, char *err,
                    size_t errlen)
{
    struct vpmu_file *files = NULL;
    struct tree_extra x = {NULL, 0, 0};
    size_t n = 0, i, j, k;
    int rc = -1, have_main = 0;
    memset(t, 0, sizeof *t);
    if (vpmu_files_list(dir, &files, &n) != 0) {
        snprintf(err, errlen, "%s: cannot read the folder", dir);
        return -1;
    }
    for (i = 0; i < n; i++)
        have_main |= files[i].pid == main_pid;
    if (!have_main) {
        rc = 1;
        goto done;
    }
    if (children) {
        for (i = 0; i < n; i++) {
            char *native = NULL;
            if (scan_extra(files[i].path, files[i].pid, &x, &native) != 0)
                goto oom;
            free(native);
        }
        /* the orphans hpm reaped: their parents' tools did not see them */
        if (n_reaped) {
            struct reaped *nr = realloc(x.reaped, (x.n_reaped + n_reaped) * sizeof *nr);
            if (!nr)
                goto oom;
            x.reaped = nr;
            for (k = 0; k < n_reaped; k++) {
                nr[x.n_reaped].pid = (uint64_t)reaped[k].pid;
                nr[x.n_reaped].reaper = 0;
                nr[x.n_reaped].sig = reaped[k].sig;
                x.n_reaped++;
            }
        }
    }
    /* room for the killed children that left no file */
    t->procs = calloc(n + x.n_reaped, sizeof *t->procs);
    if (!t->procs)
        goto oom;
    /* the program first, then the others in pid order */
    for (i = 0; i < n; i = j) {
        struct count_proc p;
        for (j = i; j < n && files[j].pid == files[i].pid; j++)
            ;
        if (files[i].pid != main_pid && !children) {
            t->skipped++;
            continue;
        }
        if (load_proc(&p, files + i, (unsigned)(j - i), err, errlen) != 0) {
            free_proc(&p);
            goto done;
        }
        /* an exec that ran its program natively: the last segment says */
        if (!p.complete && scan_extra(files[j - 1].path, p.pid, &(struct tree_extra){NULL, 0, 0},
                                      &p.native) != 0) {
            free_proc(&p);
            goto oom;
        }
        if (p.native && p.pid != main_pid && children) {
            /* not counted, as --trace-children-skip asks: left out whole */
            int r = native_add(t, p.native);
            free_proc(&p);
            if (r != 0)
                goto oom;
            continue;
        }
        if (p.pid == main_pid && t->n) {
            memmove(t->procs + 1, t->procs, t->n * sizeof *t->procs);
            t->procs[0] = p;
        } else {
            t->procs[t->n] = p;
        }
        t->n++;
    }
    /* children killed before they wrote counts (their parent reaped them):
     * in the table with none */
    for (k = 0; k < x.n_reaped && t->n; k++) {
        const struct reaped *rp = &x.reaped[k];
        struct count_proc *p = NULL, *parent = NULL;
        unsigned m;
        int native = 0;
        for (i = 0; i < n; i++)
            if (files[i].pid == rp->pid && files[i].seq == VPMU_FILE_FINAL)
                break;
        if (i < n || rp->pid == main_pid)
            continue; /* it wrote its counts (a signal the tool saw) */
        for (m = 0; m < t->n; m++) {
            if (t->procs[m].pid == rp->pid)
                p = &t->procs[m];
            if (rp->reaper && t->procs[m].pid == rp->reaper)
                parent = &t->procs[m];
        }
        /* files but no process: it ran its exec'd program natively */
        for (i = 0; i < n && !native; i++)
            native = files[i].pid == rp->pid && !p;
        if (native)
            continue;
        if (!p) {
            if (!parent)
                parent = &t->procs[0];
            p = &t->procs[t->n];
            memset(p, 0, sizeof *p);
            if (init_like(&p->out, &parent->out) != 0)
                goto oom;
            free(p->out.command);
            p->out.command = NULL;
            p->out.pid = rp->pid;
            p->pid = rp->pid;
            p->ppid = rp->reaper; /* an orphan's parent: its view may say (0: unknown) */
            t->n++;
        }
        if (!p->killed_signal)
            t->killed++;
        p->killed_signal = rp->sig;
        p->out.exit_kind = VPMU_EXIT_SIGNAL;
        p->out.exit_value = rp->sig;
    }
    if (t->n > 2)
        qsort(t->procs + 1, t->n - 1, sizeof *t->procs, cmp_proc_pid);
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
done:
    vpmu_files_free(files, n);
    free(x.reaped);
    if (rc != 0)
        count_tree_free(t);
    return rc;
}

int count_tree_total(const struct count_tree *t, struct vpmu_output *total, char *err,
                     size_t errlen)
{
    unsigned i;
    memset(total, 0, sizeof *total);
    if (t->n == 0 || init_like(total, &t->procs[0].out) != 0) {
        snprintf(err, errlen, t->n ? "out of memory" : "no process");
        return -1;
    }
    for (i = 0; i < t->n; i++)
        if (vpmu_output_add(total, &t->procs[i].out, err, errlen) != 0)
            return -1;
    return 0;
}

unsigned count_tree_take_views(struct count_tree *t, long long since,
                               const struct runner_killed *reaped, unsigned n_reaped)
{
    unsigned i, k, taken = 0;
    for (i = 0; i < t->n; i++) {
        struct count_proc *p = &t->procs[i];
        const struct hpm_live *had = NULL;
        struct hpm_live *v;
        if (!p->killed_signal || p->view || p->pid == 0 || p->pid > INT32_MAX)
            continue;
        for (k = 0; k < n_reaped; k++)
            if ((uint64_t)reaped[k].pid == p->pid)
                had = reaped[k].view;
        if (!(v = malloc(sizeof *v)))
            break;
        if (had)
            memcpy(v, had, sizeof *v);
        else if (hpm_live_take_stale((pid_t)p->pid, since, v) != 0) {
            free(v);
            continue;
        }
        p->view = v;
        taken++;
        if (!p->ppid)
            p->ppid = v->ppid;
        if (v->command[0]) {
            /* the image it was killed in: after the images of its exec
             * segments, or the only one it had */
            char **nc = realloc(p->commands, (p->n_commands + 1) * sizeof *nc);
            if (!nc)
                continue;
            p->commands = nc;
            if (!(nc[p->n_commands] = strdup(v->command)))
                continue;
            p->n_commands++;
            p->command_from_view = 1;
        }
    }
    return taken;
}

unsigned count_tree_execs(const struct count_tree *t)
{
    unsigned i, n = 0;
    for (i = 0; i < t->n; i++)
        n += count_proc_execs(&t->procs[i]);
    return n;
}

void count_tree_free(struct count_tree *t)
{
    unsigned i;
    for (i = 0; i < t->n; i++)
        free_proc(&t->procs[i]);
    free(t->procs);
    for (i = 0; i < t->n_native; i++)
        free(t->native[i].path);
    free(t->native);
    memset(t, 0, sizeof *t);
}
