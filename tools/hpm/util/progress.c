/* SPDX-License-Identifier: BSD-3-Clause */
/* progress.c - the progress line of a long run (progress.h). */
#define _GNU_SOURCE
#include "util/progress.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "vpmu_events.h"

#define PROGRESS_MAX_PROCS 256

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void progress_init(struct progress *p, enum progress_mode mode, const char *prefix)
{
    memset(p, 0, sizeof *p);
    p->out = stderr;
    p->tty = isatty(STDERR_FILENO);
    p->on = mode == PROGRESS_ON || (mode == PROGRESS_AUTO && p->tty);
    snprintf(p->prefix, sizeof p->prefix, "%s%s", prefix ? prefix : "",
             prefix && *prefix ? ": " : "");
    p->t0_ms = p->last_ms = now_ms();
}

/* 1234567 as "1.23 M", for a line that must stay short */
static void si(char *buf, size_t len, double v)
{
    static const char *const unit[] = {"", " k", " M", " G", " T", " P"};
    unsigned u = 0;
    while (v >= 1000.0 && u + 1 < sizeof unit / sizeof unit[0]) {
        v /= 1000.0;
        u++;
    }
    snprintf(buf, len, u ? "%.3g%s" : "%.0f%s", v, unit[u]);
}

void progress_format(char *buf, size_t len, const char *prefix, uint64_t elapsed_ms,
                     uint64_t insn, double rate, unsigned procs, unsigned threads, long pid)
{
    char n[32], r[32];
    si(n, sizeof n, (double)insn);
    si(r, sizeof r, rate);
    snprintf(buf, len,
             "hpm: %s%" PRIu64 ":%02" PRIu64 " elapsed, %s instructions (%s/s), %u process%s, "
             "%u thread%s (look inside: hpm top, hpm stat -p %ld)",
             prefix ? prefix : "", elapsed_ms / 60000, elapsed_ms / 1000 % 60, n, r, procs,
             procs == 1 ? "" : "es", threads, threads == 1 ? "" : "s", pid);
}

/* The terminal's width: a line that wrapped could not be erased. */
static size_t columns(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* Adds pid's live figures, then its children's (depth first, bounded). */
struct tree_sum {
    uint64_t insn;
    unsigned procs, threads, seen;
    pid_t first; /* the first process with a view: the one to look inside */
};

static void add_tree(pid_t pid, int exited, struct tree_sum *t)
{
    struct hpm_live_reader lr;
    struct hpm_live s;
    pid_t kids[64];
    int kexited[64];
    char err[128];
    unsigned n, i;
    if (++t->seen > PROGRESS_MAX_PROCS)
        return;
    /* a process without a view (an hpm that runs hpm) still has children */
    if (hpm_live_open_child(&lr, pid, exited, err, sizeof err) == 0) {
        if (hpm_live_snapshot(&lr, &s) == 0) {
            if (s.n_raw > VPMU_EV_INSTRUCTIONS)
                t->insn += s.raw[VPMU_EV_INSTRUCTIONS];
            if (s.state != HPM_LIVE_EXITED) {
                t->procs++;
                t->threads += s.threads;
                if (!t->first)
                    t->first = pid;
            }
        }
        hpm_live_close(&lr);
    }
    n = hpm_live_children(pid, kids, kexited, 64);
    for (i = 0; i < n; i++)
        add_tree(kids[i], kexited[i], t);
}

void progress_tick(void *ctx, pid_t child)
{
    struct progress *p = ctx;
    uint64_t t = now_ms(), insn;
    struct tree_sum sum = {0, 0, 0, 0, 0};
    char line[256];
    if (!p->on || t - p->t0_ms < PROGRESS_AFTER_MS)
        return;
    add_tree(child, 0, &sum);
    insn = sum.insn;
    if (!p->tty && p->shown && t - p->last_ms < PROGRESS_AFTER_MS)
        return; /* into a file: a line every 2 s is enough */
    if (t > p->last_ms && insn >= p->last_insn) {
        double r = (double)(insn - p->last_insn) * 1000.0 / (double)(t - p->last_ms);
        p->rate = p->rate > 0 ? (p->rate + r) / 2 : r; /* steadier to read */
    }
    p->last_ms = t;
    p->last_insn = insn;
    progress_format(line, sizeof line, p->prefix, t - p->t0_ms, insn, p->rate, sum.procs,
                    sum.threads, (long)(sum.first ? sum.first : child));
    if (p->tty) {
        size_t w = columns() - 1;
        if (strlen(line) > w)
            line[w] = 0;
        fprintf(p->out, "\r\033[K%s", line); /* in place */
    }
    else
        fprintf(p->out, "%s\n", line); /* --progress into a file: one line per tick */
    fflush(p->out);
    p->shown = 1;
}

void progress_clear(struct progress *p)
{
    if (p->shown && p->tty) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
    }
    p->shown = 0;
}
