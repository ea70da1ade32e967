/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_cohtime.h - the logs of coherence in modeled time
 * (--hpm-coherence=time; vpmu_cohtime.c, docs/vpmu.md "Coherence in
 * modeled time"): each thread's accesses to the contended lines, stamped
 * with its modeled time, given back merged in time order for the model's
 * replay (hpm_hier_coh_replay). A leaf: the node logs and replays, the
 * turns give the stamps.
 */
#ifndef HPM_VPMU_COHTIME_H
#define HPM_VPMU_COHTIME_H

#include "pub_tool_basics.h"

#include "model.h" /* the access kinds */

/* One access to a contended line, as the replay needs it (16 bytes: a
 * falsely shared line logs one or two per increment, and the log is
 * written to memory the host's caches do not hold). */
struct cohtime_entry {
    ULong stamp;      /* the thread's modeled time (vpmu_turns_stamp) */
    UShort slot;      /* the line's slot in the model's table (1024 at most) */
    UShort off, len;  /* its bytes in the line */
    UChar core;
    UChar kind : 7;   /* HPM_LOAD, HPM_STORE, or HPM_COH_LOAD_STORE: a load,
                       * then a store of the same bytes (model.h) */
    UChar hit : 1;    /* the access hit its core's L1D when it was made */
};
_Static_assert(sizeof(struct cohtime_entry) == 16, "an entry in 16 bytes");
/* In a profile, where an access's costs go: its instruction's cost center
 * and its data object's (kept beside the entries only when profiling). */
struct cohtime_prof {
    ULong *sink, *data;
};

/* Thread tid's access (its entries come in stamp order; one that would go
 * back in time starts a log of its own, merged as any other); prof NULL
 * outside a profile. Accesses with one stamp (a stretch of a superblock
 * between two adds of its instruction count) to one line are merged in
 * time order as a block, so an access after a store there,
 * or a load after a load, changes nothing in the replay and is left out,
 * and a store of the bytes a load just read joins it (HPM_COH_LOAD_STORE).
 * Returns the accesses its queue holds. The entry comes by value, in two
 * registers: one built in the caller's frame and copied whole was read
 * back before its narrow stores had reached the cache (a stall on every
 * logged access). */
UInt vpmu_cohtime_log(ThreadId tid, struct cohtime_entry e, const struct cohtime_prof *prof);
/* The accesses a queue holds at most: vpmu_cohtime_log's caller replays
 * when it returns as many (a point that depends only on the accesses). */
#define VPMU_COHTIME_PENDING_MAX (1u << 22)
/* The one rule by which an access joins the last entry of its queue,
 * last, when it has that entry's stamp, line and core (an access of the
 * same stretch): a load after anything, or anything after a store,
 * changes nothing in the replay and is left out; a store of the bytes a
 * load just read joins it (HPM_COH_LOAD_STORE). False: an entry of its
 * own. */
static inline Bool vpmu_cohtime_merge_into(struct cohtime_entry *last, Bool write, UInt off,
                                           UInt len)
{
    if (last->kind != HPM_LOAD || !write)
        return True;
    if (last->off == off && last->len == len) {
        last->kind = HPM_COH_LOAD_STORE;
        return True;
    }
    return False;
}
/* The last entry that vpmu_cohtime_log appended or merged into, while it
 * is still pending at the end of its thread's queue (e not NULL): what
 * lets the helpers merge an access into it without the call
 * (vpmu_cohtime_same, vpmu_cohtime_merge). The replay and a fork forget
 * it. */
struct cohtime_last {
    struct cohtime_entry *e;
    ThreadId tid;
};
extern struct cohtime_last vpmu_cohtime_last;
extern ULong vpmu_cohtime_n_logged;
/* Whether thread tid's access (stamp, slot, core) has the key of the last
 * entry, still pending in tid's queue. */
static inline Bool vpmu_cohtime_same(ThreadId tid, ULong stamp, UInt slot, UInt core)
{
    const struct cohtime_last *x = &vpmu_cohtime_last;
    return x->e && x->e->stamp == stamp && x->tid == tid && x->e->slot == slot &&
           x->e->core == core;
}
/* After vpmu_cohtime_same: the access (a store when write, its bytes off
 * and len in the line) merged into the last entry and counted as logged,
 * as vpmu_cohtime_log would do; False when it needs an entry of its own
 * (off and len matter only for a store after a load). */
static inline Bool vpmu_cohtime_merge(Bool write, UInt off, UInt len)
{
    if (!vpmu_cohtime_merge_into(vpmu_cohtime_last.e, write, off, len))
        return False;
    vpmu_cohtime_n_logged++;
    return True;
}
/* Where the queue that vpmu_cohtime_log gave thread tid's last entry
 * takes the next ones without the call (vpmu_cohtime_append): at, with
 * room entries before its end or the pending limit, outside a profile.
 * stamp is the last entry's: an access with a later stamp neither merges
 * into it nor goes back in time, so it is appended as the call would
 * append it. Every function here first counts what was appended. */
struct cohtime_tail {
    struct cohtime_entry *at;
    UInt room;
    ThreadId tid;
    ULong stamp;
};
extern struct cohtime_tail vpmu_cohtime_tail;
/* Thread tid's access e (outside a profile) appended as vpmu_cohtime_log
 * would append it, when the tail allows; False: the call decides. A
 * falsely shared line's every increment starts an entry, and the call's
 * look-ups were nearly half of the log's samples (docs/vpmu.md). */
static inline Bool vpmu_cohtime_append(ThreadId tid, struct cohtime_entry e)
{
    struct cohtime_tail *t = &vpmu_cohtime_tail;
    if (t->tid != tid || !t->room || e.stamp <= t->stamp)
        return False;
    *t->at = e;
    vpmu_cohtime_last.e = t->at;
    vpmu_cohtime_last.tid = tid;
    t->at++;
    t->room--;
    t->stamp = e.stamp;
    vpmu_cohtime_n_logged++;
    return True;
}
/* The next access of every thread's logs in (stamp, log) order whose
 * stamp is at most frontier, or NULL when there is none; *prof its
 * profile's costs, NULL outside a profile. Both point into the log, valid
 * until the next call of any function here (read in place: a copy in the
 * caller's frame was read back before it had reached the cache). */
const struct cohtime_entry *vpmu_cohtime_next(ULong frontier, const struct cohtime_prof **prof);
/* Accesses logged so far (the output's record). */
ULong vpmu_cohtime_logged(void);
/* In a forked child: the parent's accesses are the parent's. */
void vpmu_cohtime_fork_child(void);

#endif
