/* SPDX-License-Identifier: BSD-3-Clause */
/* serve_views.c - the processes hpm serve publishes (serve_views.h). */
#define _GNU_SOURCE
#include "serve/serve_views.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live.h"

struct served {
    int used;
    struct hpm_live_reader lr; /* open until the process ended */
    struct hpm_live last;      /* its latest snapshot: final once ended */
    int have, ended, scraped;
    time_t ended_at;
};

static struct served *views; /* SERVE_VIEWS_MAX of them */
static unsigned keep;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void serve_views_init(unsigned keep_s)
{
    keep = keep_s;
    views = calloc(SERVE_VIEWS_MAX, sizeof *views);
}

static struct served *find(pid_t pid, int running)
{
    unsigned i;
    for (i = 0; views && i < SERVE_VIEWS_MAX; i++)
        if (views[i].used && views[i].lr.pid == pid && (!running || !views[i].ended))
            return &views[i];
    return NULL;
}

static void drop(struct served *v)
{
    if (v->lr.open)
        hpm_live_close(&v->lr);
    memset(v, 0, sizeof *v);
}

/* A view found by the poll: open it and keep it. A process of the same
 * pid that ended is dropped (its pid was reused: two series of one pid
 * would be one to a scraper). */
static void track(pid_t pid)
{
    struct served *old = find(pid, 0), *v = NULL;
    char err[256];
    unsigned i;
    if (old && !old->ended)
        return;
    if (old)
        drop(old);
    for (i = 0; i < SERVE_VIEWS_MAX && !v; i++)
        if (!views[i].used)
            v = &views[i];
    if (!v || hpm_live_open(&v->lr, pid, err, sizeof err) != 0) {
        if (v)
            memset(v, 0, sizeof *v);
        return;
    }
    v->used = 1;
}

static void refresh(struct served *v, time_t now)
{
    struct hpm_live s;
    if (!v->lr.open)
        return;
    if (hpm_live_snapshot(&v->lr, &s) == 0) {
        v->last = s;
        v->have = 1;
    }
    /* ended (its last publication: final), replaced by an exec (the new
     * image publishes a view of its own, from zero), or unreadable */
    if (!v->have || v->last.state != HPM_LIVE_RUNNING) {
        hpm_live_close(&v->lr);
        v->ended = 1;
        v->ended_at = now;
        if (!v->have || v->last.state == HPM_LIVE_EXEC)
            drop(v);
    }
}

void serve_views_poll(void)
{
    pid_t pids[1024];
    unsigned n = hpm_live_list(pids, 1024, 1), i;
    time_t now = time(NULL);
    if (!views)
        return;
    pthread_mutex_lock(&lock);
    for (i = 0; i < n; i++)
        track(pids[i]);
    for (i = 0; i < SERVE_VIEWS_MAX; i++) {
        struct served *v = &views[i];
        if (!v->used)
            continue;
        refresh(v, now);
        if (v->used && v->ended && v->scraped && now - v->ended_at >= (time_t)keep)
            drop(v);
    }
    pthread_mutex_unlock(&lock);
}

size_t serve_views_take(struct hpm_live *out, size_t max)
{
    size_t n = 0;
    unsigned i;
    time_t now = time(NULL);
    if (!views)
        return 0;
    pthread_mutex_lock(&lock);
    for (i = 0; i < SERVE_VIEWS_MAX && n < max; i++) {
        struct served *v = &views[i];
        if (v->used)
            refresh(v, now); /* a scrape sees the counts of now, not of the last poll */
        if (!v->used || !v->have)
            continue;
        out[n++] = v->last;
        if (v->ended)
            v->scraped = 1;
    }
    pthread_mutex_unlock(&lock);
    return n;
}

void serve_views_free(void)
{
    unsigned i;
    for (i = 0; views && i < SERVE_VIEWS_MAX; i++)
        drop(&views[i]);
    free(views);
    views = NULL;
}
