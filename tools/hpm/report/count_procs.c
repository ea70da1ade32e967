/* SPDX-License-Identifier: BSD-3-Clause */
/* count_procs.c - the process tree of one hpm count run (count_procs.h). */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include "report/count_procs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "live.h"
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
    dst->interleave_switches = dst->interleave_host = 0;
    dst->shared_lines = dst->shared_dropped = dst->shared_written = 0;
    dst->coh_time = 0;
    dst->coh_time_logged = dst->coh_time_misses = dst->coh_time_host = 0;
    dst->n_shared = 0;
    dst->n_host_timed = 0;
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
 * which the counts' handler skips
 * ---------------------------------------------------------------------- */

struct count_reaped {
    uint64_t pid, reaper; /* reaper 0: hpm (an orphan of the tree) */
    int sig;
};

/* reaped PID signal N: a child its tool saw killed. 0, or -1 out of memory. */
static int rec_reaped(struct count_tree_reader *x, uint64_t pid, const struct vpmu_rec *r)
{
    const char *q = r->rest, *f;
    size_t n;
    uint64_t rp, sig;
    struct count_reaped *nr;
    if (!vpmu_field(&q, r->end, &f, &n) || vpmu_number(f, n, 10, &rp) != 0 ||
        !vpmu_field(&q, r->end, &f, &n) || !vpmu_word_is(f, n, VPMU_EXIT_WORD_SIGNAL) ||
        !vpmu_field(&q, r->end, &f, &n) || vpmu_number(f, n, 10, &sig) != 0 ||
        vpmu_field(&q, r->end, &f, &n) || rp == 0 || sig == 0 || sig >= 128)
        return 0;
    if (!(nr = realloc(x->reaped, (x->n_reaped + 1) * sizeof *nr)))
        return -1;
    x->reaped = nr;
    nr[x->n_reaped].pid = rp;
    nr[x->n_reaped].reaper = pid;
    nr[x->n_reaped++].sig = (int)sig;
    return 0;
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

/* One process from its files' parts (its segments in order, then maybe
 * its final file). */
static int load_proc(struct count_proc *p, const struct count_tree_part *parts, unsigned n,
                     char *err, size_t errlen)
{
    unsigned i;
    memset(p, 0, sizeof *p);
    p->pid = parts[0].f->pid;
    p->complete = parts[n - 1].f->seq == VPMU_FILE_FINAL;
    if (!(p->commands = calloc(n, sizeof *p->commands)))
        goto oom;
    for (i = 0; i < n; i++) {
        const struct vpmu_file *f = parts[i].f;
        if ((parts[i].out.exit_kind == VPMU_EXIT_EXEC) != (f->seq != VPMU_FILE_FINAL)) {
            snprintf(err, errlen, "%s: %s", f->path,
                     f->seq != VPMU_FILE_FINAL ? "an exec segment without 'exit exec'"
                                               : "'exit exec' in a final file");
            return -1;
        }
        if (!(p->commands[i] = strdup(parts[i].out.command ? parts[i].out.command : "?")))
            goto oom;
        p->n_commands++;
    }
    /* the last part describes the process: the image it ended in, its exit */
    if (init_like(&p->out, &parts[n - 1].out) != 0)
        goto oom;
    for (i = 0; i < n; i++)
        if (parts[i].out.have_ppid) {
            p->ppid = parts[i].out.ppid;
            break;
        }
    for (i = 0; i < n; i++) {
        char why[256];
        if (vpmu_output_add(&p->out, &parts[i].out, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s", parts[i].f->path, why);
            return -1;
        }
    }
    /* an exec that ran its program natively: the last segment says */
    if (!p->complete && parts[n - 1].native && !(p->native = strdup(parts[n - 1].native)))
        goto oom;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

static void parts_free(struct count_tree_reader *x)
{
    size_t i;
    for (i = 0; i < x->n_parts; i++) {
        vpmu_output_free(&x->parts[i].out);
        free(x->parts[i].native);
    }
    x->n_parts = 0;
}

/* The process whose files were read last, into the tree: the program
 * first, then the others as they come. */
static int proc_done(struct count_tree_reader *x)
{
    struct count_tree *t = x->t;
    struct count_proc p, *np;
    int rc = -1;
    if (!x->n_parts)
        return 0;
    if (load_proc(&p, x->parts, (unsigned)x->n_parts, x->err, sizeof x->err) != 0)
        goto out;
    if (p.native && p.pid != x->main_pid && x->children) {
        /* not counted, as --trace-children-skip asks: left out whole */
        rc = native_add(t, p.native);
        free_proc(&p);
        if (rc)
            snprintf(x->err, sizeof x->err, "out of memory");
        goto out;
    }
    if (!(np = realloc(t->procs, (t->n + 1) * sizeof *np))) {
        snprintf(x->err, sizeof x->err, "out of memory");
        goto out;
    }
    t->procs = np;
    if (p.pid == x->main_pid && t->n) {
        memmove(t->procs + 1, t->procs, t->n * sizeof *t->procs);
        t->procs[0] = p;
    } else {
        t->procs[t->n] = p;
    }
    t->n++;
    rc = 0;
out:
    if (rc)
        free_proc(&p);
    parts_free(x);
    return rc;
}

/* ------------------------------------------------------------ the handler */

static int tree_failed(struct count_tree_reader *x, const struct vpmu_file *f)
{
    snprintf(x->err, sizeof x->err, "%s: %s", f->path, x->perr);
    x->failed = 1;
    return -1;
}

static int tree_begin(void *ctx, const struct vpmu_file *f, const char *buf, size_t len, int nul)
{
    struct count_tree_reader *x = ctx;
    struct count_tree_part *np;
    if (x->n_parts && x->parts[0].f->pid != f->pid && proc_done(x) != 0) {
        x->failed = 1;
        return -1;
    }
    if (!(np = realloc(x->parts, (x->n_parts + 1) * sizeof *np))) {
        snprintf(x->perr, sizeof x->perr, "out of memory");
        return tree_failed(x, f);
    }
    x->parts = np;
    np[x->n_parts].f = f;
    np[x->n_parts].native = NULL;
    vpmu_output_reader_init(&x->rd, &np[x->n_parts].out, x->perr, sizeof x->perr, &x->rtool);
    x->n_parts++;
    if (x->rtool.file_begin(x->rtool.ctx, f, buf, len, nul) != 0)
        return tree_failed(x, f);
    return 0;
}

static int tree_record(void *ctx, const struct vpmu_file *f, const struct vpmu_rec *r)
{
    struct count_tree_reader *x = ctx;
    struct count_tree_part *part = &x->parts[x->n_parts - 1];
    if (x->rtool.record(x->rtool.ctx, f, r) != 0)
        return tree_failed(x, f);
    if (vpmu_rec_is(r, VPMU_REC_REAPED) && x->children && rec_reaped(x, f->pid, r) != 0) {
        snprintf(x->perr, sizeof x->perr, "out of memory");
        return tree_failed(x, f);
    }
    if (vpmu_rec_is(r, VPMU_REC_EXEC_NATIVE) && r->rest + 1 < r->end && r->rest[0] == ' ') {
        /* the program's path: the rest of the line after one space */
        free(part->native);
        if (!(part->native = strndup(r->rest + 1, (size_t)(r->end - r->rest - 1)))) {
            snprintf(x->perr, sizeof x->perr, "out of memory");
            return tree_failed(x, f);
        }
    }
    return 0;
}

static int tree_end(void *ctx, const struct vpmu_file *f)
{
    struct count_tree_reader *x = ctx;
    return x->rtool.file_end(x->rtool.ctx, f) != 0 ? tree_failed(x, f) : 0;
}

void count_tree_reader_init(struct count_tree_reader *x, struct count_tree *t, uint64_t main_pid,
                            int children)
{
    memset(x, 0, sizeof *x);
    memset(t, 0, sizeof *t);
    x->t = t;
    x->main_pid = main_pid;
    x->children = children;
    x->tool.file_begin = tree_begin;
    x->tool.record = tree_record;
    x->tool.file_end = tree_end;
    x->tool.ctx = x;
}

void count_tree_reader_free(struct count_tree_reader *x)
{
    parts_free(x);
    free(x->parts);
    free(x->reaped);
    x->parts = NULL;
    x->reaped = NULL;
}

/* A killed child that left no final file (its parent, or hpm, reaped it):
 * in the table with no counts. 0, or -1 out of memory. */
static int killed_add(struct count_tree *t, const struct vpmu_session *s,
                      const struct count_reaped *rp, uint64_t main_pid)
{
    struct count_proc *p = NULL, *parent = NULL, *np;
    unsigned m;
    size_t i;
    for (i = 0; i < s->n_files; i++)
        if (s->files[i].pid == rp->pid && s->files[i].seq == VPMU_FILE_FINAL)
            return 0; /* it wrote its counts (a signal the tool saw) */
    if (rp->pid == main_pid)
        return 0;
    for (m = 0; m < t->n; m++) {
        if (t->procs[m].pid == rp->pid)
            p = &t->procs[m];
        if (rp->reaper && t->procs[m].pid == rp->reaper)
            parent = &t->procs[m];
    }
    /* files but no process: it ran its exec'd program natively */
    if (!p && vpmu_session_has_pid(s, rp->pid))
        return 0;
    if (!p) {
        size_t at = parent ? (size_t)(parent - t->procs) : 0;
        if (!(np = realloc(t->procs, (t->n + 1) * sizeof *np)))
            return -1;
        t->procs = np;
        p = &np[t->n];
        memset(p, 0, sizeof *p);
        if (init_like(&p->out, &np[at].out) != 0)
            return -1;
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
    return 0;
}

int count_tree_finish(struct count_tree_reader *x, const struct vpmu_session *s,
                      const struct runner_killed *reaped, unsigned n_reaped, char *err,
                      size_t errlen)
{
    struct count_tree *t = x->t;
    size_t i, k;
    if (x->failed || proc_done(x) != 0) {
        snprintf(err, errlen, "%s", x->err);
        return -1;
    }
    for (i = 0; i < s->n_files && !x->children; i++)
        if (s->files[i].pid != x->main_pid && (i == 0 || s->files[i - 1].pid != s->files[i].pid))
            t->skipped++;
    /* the orphans hpm reaped: their parents' tools did not see them */
    for (k = 0; x->children && k < n_reaped; k++) {
        struct count_reaped *nr = realloc(x->reaped, (x->n_reaped + 1) * sizeof *nr);
        if (!nr)
            goto oom;
        x->reaped = nr;
        nr[x->n_reaped].pid = (uint64_t)reaped[k].pid;
        nr[x->n_reaped].reaper = 0;
        nr[x->n_reaped++].sig = reaped[k].sig;
    }
    /* children killed before they wrote counts (their parent reaped them) */
    for (k = 0; k < x->n_reaped && t->n; k++)
        if (killed_add(t, s, &x->reaped[k], x->main_pid) != 0)
            goto oom;
    if (t->n > 2)
        qsort(t->procs + 1, t->n - 1, sizeof *t->procs, cmp_proc_pid);
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int count_tree_load(struct count_tree *t, const char *dir, uint64_t main_pid, int children,
                    const struct runner_killed *reaped, unsigned n_reaped, char *err,
                    size_t errlen)
{
    struct vpmu_session s;
    struct count_tree_reader x;
    const struct vpmu_tool *tools[1] = {&x.tool};
    int rc = 1;
    count_tree_reader_init(&x, t, main_pid, children);
    if (vpmu_session_open(&s, dir) != 0) {
        snprintf(err, errlen, "%s: cannot read the folder", dir);
        return -1;
    }
    if (vpmu_session_has_pid(&s, main_pid))
        rc = vpmu_session_process(&s, main_pid, children, tools, 1, err, errlen) != 0 ||
                     count_tree_finish(&x, &s, reaped, n_reaped, err, errlen) != 0
                 ? -1
                 : 0;
    count_tree_reader_free(&x);
    vpmu_session_close(&s);
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
        /* killed in an exec (vpmu_main.c publishes EXEC before it writes
         * the segment): where the segment was written, its command last
         * among the files', the segment holds the image's counts and the
         * view is not another image */
        if (v->state == HPM_LIVE_EXEC && p->n_commands > 0 &&
            strcmp(p->commands[p->n_commands - 1], v->command) == 0) {
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
