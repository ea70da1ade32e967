/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_cohtime.c - the logs of coherence in modeled time (vpmu_cohtime.h).
 *
 * Valgrind runs one thread at a time, so two threads' accesses to a line
 * reach the model in the order of their turns, not in the order of their
 * cores' clocks. For the contended lines the node logs every access with
 * the thread's modeled time instead, and replays the logs merged in time
 * order once no thread can still log an earlier access (the frontier the
 * turns give). A thread's own accesses come in time order, so its log is a
 * queue; the merge takes the least stamp of the queues' heads, ties to the
 * older queue (queues are made in the same order on every run).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"

#include "model.h" /* the access kinds */
#include "vpmu_cohtime.h"

struct cohlog {
    struct cohtime_entry *e; /* pending: e[head .. n) */
    struct cohtime_prof *p;  /* beside them in a profile, else NULL */
    UInt n, head, cap;
    ULong seq;      /* made as the seq-th queue: ties between equal stamps */
    ThreadId owner; /* the thread it is open for, 0: closed */
};

static struct cohlog *logs; /* the queues: open ones and closed ones with accesses left */
static UInt n_logs, cap_logs;
static UInt *open_log; /* per ThreadId its queue + 1, 0: none */
static ULong next_seq;
ULong vpmu_cohtime_n_logged;
struct cohtime_last vpmu_cohtime_last;
struct cohtime_tail vpmu_cohtime_tail;
static struct cohlog *tail_log; /* the queue the tail appends to, NULL: none */

/* What the tail appended, counted in its queue: first in every function
 * here that reads or moves the queues. */
static void tail_sync(void)
{
    if (tail_log)
        tail_log->n = (UInt)(vpmu_cohtime_tail.at - tail_log->e);
}

/* No tail (a queue may move, or a fork forgot them all). */
static void tail_clear(void)
{
    tail_log = NULL;
    vpmu_cohtime_tail.tid = 0;
    vpmu_cohtime_tail.room = 0;
}

/* The tail of l, thread tid's queue, after vpmu_cohtime_log put its last
 * entry there: its room stops one short of the pending limit, so that
 * the entry that reaches the limit is the call's, which returns it. */
static void tail_set(struct cohlog *l, ThreadId tid)
{
    struct cohtime_tail *t = &vpmu_cohtime_tail;
    UInt pending = l->n - l->head, room = l->cap - l->n;
    tail_log = l;
    t->tid = tid;
    t->at = l->e + l->n;
    t->stamp = l->e[l->n - 1].stamp;
    if (pending + room >= VPMU_COHTIME_PENDING_MAX)
        room = pending < VPMU_COHTIME_PENDING_MAX ? VPMU_COHTIME_PENDING_MAX - 1 - pending : 0;
    t->room = l->p ? 0 : room;
}

/* A new queue for thread tid (its old one closes): an emptied closed one,
 * or one more. */
static struct cohlog *log_new(ThreadId tid)
{
    struct cohlog *l;
    UInt i;
    if (!open_log)
        open_log = VG_(calloc)("hpm.cohtime", VG_N_THREADS, sizeof *open_log);
    if (open_log[tid])
        logs[open_log[tid] - 1].owner = 0;
    for (i = 0; i < n_logs && (logs[i].owner || logs[i].head < logs[i].n); i++)
        ;
    if (i == n_logs) {
        if (n_logs == cap_logs) {
            cap_logs = cap_logs ? 2 * cap_logs : 8;
            logs = VG_(realloc)("hpm.cohtime", logs, cap_logs * sizeof *logs);
        }
        VG_(memset)(&logs[n_logs], 0, sizeof logs[n_logs]);
        n_logs++;
    }
    l = &logs[i];
    l->n = l->head = 0;
    l->seq = next_seq++;
    l->owner = tid;
    open_log[tid] = i + 1;
    return l;
}

/* Room for one more entry in l: the replayed ones' room first, else more. */
static void log_room(struct cohlog *l, Bool prof)
{
    if (l->head == l->n)
        l->head = l->n = 0;
    if (prof && !l->p && l->cap)
        l->p = VG_(malloc)("hpm.cohtime.prof", l->cap * sizeof *l->p);
    if (l->n < l->cap)
        return;
    if (l->head > l->cap / 2) {
        VG_(memmove)(l->e, l->e + l->head, (l->n - l->head) * sizeof *l->e);
        if (l->p)
            VG_(memmove)(l->p, l->p + l->head, (l->n - l->head) * sizeof *l->p);
        l->n -= l->head;
        l->head = 0;
        return;
    }
    l->cap = l->cap ? 2 * l->cap : 1024;
    l->e = VG_(realloc)("hpm.cohtime.log", l->e, l->cap * sizeof *l->e);
    if (prof || l->p)
        l->p = VG_(realloc)("hpm.cohtime.prof", l->p, l->cap * sizeof *l->p);
}

UInt vpmu_cohtime_log(ThreadId tid, struct cohtime_entry e, const struct cohtime_prof *prof)
{
    struct cohlog *l;
    struct cohtime_entry *last;
    Bool same;
    tail_sync();
    tail_clear(); /* log_new may move the queues */
    l = open_log && open_log[tid] ? &logs[open_log[tid] - 1] : NULL;
    vpmu_cohtime_n_logged++;
    if (!l || (l->n > l->head && l->e[l->n - 1].stamp > e.stamp))
        l = log_new(tid); /* a new thread with a reused id, or none yet */
    last = l->n > l->head ? &l->e[l->n - 1] : NULL;
    same = last && last->stamp == e.stamp && last->slot == e.slot && last->core == e.core;
    if (!same || !vpmu_cohtime_merge_into(last, e.kind != HPM_LOAD, e.off, e.len)) {
        log_room(l, prof != NULL);
        if (prof)
            l->p[l->n] = *prof;
        l->e[l->n] = e;
        last = &l->e[l->n++];
    }
    vpmu_cohtime_last.e = last; /* until the next call, replay or fork */
    vpmu_cohtime_last.tid = tid;
    tail_set(l, tid);
    return l->n - l->head;
}

const struct cohtime_entry *vpmu_cohtime_next(ULong frontier, const struct cohtime_prof **prof)
{
    struct cohlog *best = NULL;
    ULong least = frontier;
    UInt i;
    tail_sync();
    for (i = 0; i < n_logs; i++) {
        struct cohlog *l = &logs[i];
        ULong t;
        if (l->head == l->n || (t = l->e[l->head].stamp) > least)
            continue;
        if (!best || t < least || l->seq < best->seq)
            best = l;
        least = t;
    }
    if (!best)
        return NULL;
    vpmu_cohtime_last.e = NULL; /* its queue may be empty now */
    *prof = best->p ? &best->p[best->head] : NULL;
    return &best->e[best->head++];
}

ULong vpmu_cohtime_logged(void)
{
    return vpmu_cohtime_n_logged;
}

void vpmu_cohtime_fork_child(void)
{
    UInt i;
    vpmu_cohtime_last.e = NULL;
    tail_sync();
    tail_clear();
    for (i = 0; i < n_logs; i++) {
        logs[i].head = logs[i].n;
        logs[i].owner = 0;
    }
    if (open_log)
        VG_(memset)(open_log, 0, VG_N_THREADS * sizeof *open_log);
}
