/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * serve_views.h - the processes hpm serve publishes: every live view is
 * opened as soon as a poll finds it and kept open, so that a process's
 * final publication (its counts at exit, which equal hpm count's report)
 * can still be read after the tool has removed the view's name. A process
 * that ended stays published, with hpm_process_running 0, until a scrape
 * has taken it and `keep` seconds have passed since it ended.
 */
#ifndef HPM_TOOL_SERVE_VIEWS_H
#define HPM_TOOL_SERVE_VIEWS_H

#include <stddef.h>

#include "vpmu_live.h"

#define SERVE_VIEWS_MAX 256 /* processes tracked at once */

/* keep_s: how long an ended process stays after it was first scraped. */
void serve_views_init(unsigned keep_s);
/* Finds new views, takes a snapshot of every open one (closing those that
 * ended: their last snapshot is final) and drops ended ones that were
 * scraped and kept long enough. Thread-safe with serve_views_take. */
void serve_views_poll(void);
/* Copies of the processes to publish now (running, and ended ones not yet
 * dropped), at most max; marks the ended ones as scraped. */
size_t serve_views_take(struct hpm_live *out, size_t max);
void serve_views_free(void);

#endif
