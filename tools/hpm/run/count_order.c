/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_order.c - the report's notes on how the threads' order was decided
 * (Valgrind's slices, turns, coherence in modeled time) and on the cache
 * lines they shared (run_internal.h): in a run's report (count_notes.c)
 * and in --from-output's (count_output.c). A leaf.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "run/run_internal.h"

/* The cache lines the cores shared (the tool's shared_lines): how many,
 * how the threads' order was decided (which sets how many of their
 * coherence misses the counts hold), and the top lines with their verdict
 * and data object. Whatever the mode: a report never hides sharing. */
static void shared_notes(struct count_report *r, struct count_notes *nb,
                         const struct vpmu_output *out)
{
    unsigned k;
    if ((!out->shared_lines && !out->shared_dropped) || r->n_notes >= COUNT_MAX_NOTES)
        return;
    snprintf(nb->shared, sizeof nb->shared,
             "threads wrote %" PRIu64 " cache line%s together (%" PRIu64 " line%s in all "
             "moved from core to core: a store took %s another core held%s); %s",
             out->shared_written, out->shared_written == 1 ? "" : "s",
             out->shared_lines + out->shared_dropped,
             out->shared_lines + out->shared_dropped == 1 ? "" : "s",
             out->shared_lines + out->shared_dropped == 1 ? "it" : "each",
             out->shared_dropped ? "; the model keeps 768 per process, the others are not "
                                   "counted in the first number"
                                 : "",
             out->coh_time
                 ? "their accesses to them were replayed in the threads' modeled time "
                   "(coherence in modeled time), access by access"
             : out->interleave
                 ? "with --interleave they met once per turn: coherence misses are about the "
                   "hardware's divided by the accesses to a line per turn"
                 : "they ran in Valgrind's slices (--coherence=slices), where threads that do "
                   "not block meet about once per slice: far fewer coherence misses than cores "
                   "side by side would have (the default, --coherence=time, orders them in the "
                   "threads' modeled time)");
    r->notes[r->n_notes++] = nb->shared;
    for (k = 0; k < out->n_shared && k < COUNT_SHARED_NOTES && r->n_notes < COUNT_MAX_NOTES; k++) {
        const struct vpmu_shared_line *l = &out->shared[k];
        snprintf(nb->shared_line[k], sizeof nb->shared_line[k],
                 "shared line 0x%" PRIx64 " (%u bytes, pid %" PRIu64 "): %s sharing, written by "
                 "%u core%s, %" PRIu64 " coherence misses, %" PRIu64 " invalidations; %s",
                 l->addr, l->bytes, l->pid, l->true_sharing ? "TRUE" : "FALSE", l->writers,
                 l->writers == 1 ? "" : "s", l->coh_misses, l->invalidations, l->object);
        r->notes[r->n_notes++] = nb->shared_line[k];
    }
}

/* " (read 51, poll 960, 2 waits given up)": the system calls whose returns
 * the host timed, the most first (the tool's host_timed records); "" when
 * the file has none */
static void host_calls(const struct vpmu_output *out, char *buf, size_t size)
{
    unsigned order[VPMU_OUTPUT_HOST_CALLS], i, j, k;
    size_t at = 0;
    buf[0] = 0;
    for (i = 0; i < out->n_host_timed; i++) {
        for (j = i; j > 0 && out->host_timed[order[j - 1]].n < out->host_timed[i].n; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (k = 0; k < out->n_host_timed && at < size; k++) {
        const struct vpmu_host_timed *h = &out->host_timed[order[k]];
        const char *sep = k ? ", " : " (";
        int w;
        if (strcmp(h->call, VPMU_HOST_TIMED_WAIT) == 0)
            w = snprintf(buf + at, size - at, "%s%" PRIu64 " wait%s for a thread given up", sep,
                         h->n, h->n == 1 ? "" : "s");
        else if (strcmp(h->call, VPMU_HOST_TIMED_OTHER) == 0)
            w = snprintf(buf + at, size - at, "%sother calls %" PRIu64, sep, h->n);
        else
            w = snprintf(buf + at, size - at, "%s%s %" PRIu64, sep, h->call, h->n);
        if (w < 0)
            break;
        at += (size_t)w;
    }
    if (out->n_host_timed && at + 2 <= size)
        snprintf(buf + at, size - at, ")");
}

/* How the threads' order was decided (turns, coherence in modeled time)
 * and the lines they shared: in a run's report and in --from-output's. */
void count_order_notes(struct count_report *r, struct count_notes *nb,
                       const struct vpmu_output *out)
{
    /* a program whose processes never ran two threads had no turns: there
     * was no order to decide */
    char calls[480];
    host_calls(out, calls, sizeof calls);
    if (out->coh_time && (out->interleave_switches || out->coh_time_logged)) {
        char host[640];
        if (out->coh_time_host)
            snprintf(host, sizeof host,
                     "%" PRIu64 " returns from blocking calls came when the host decided%s: "
                     "counts around them may differ from run to run",
                     out->coh_time_host, calls);
        else
            snprintf(host, sizeof host, "no thread came back from a blocking call at a "
                                        "point the host chose: the threads' order repeats");
        snprintf(nb->turns, sizeof nb->turns,
                 "coherence in modeled time (--coherence=time, the default): threads took "
                 "turns of up to %"
                 PRIu64 " instructions, the one behind first (%" PRIu64 " turns passed between "
                 "threads), and their %" PRIu64 " accesses to contended lines were replayed in "
                 "the order of their clocks (instructions run): %" PRIu64 " coherence misses "
                 "found there; %s",
                 out->interleave, out->interleave_switches, out->coh_time_logged,
                 out->coh_time_misses, host);
        if (r->n_notes < COUNT_MAX_NOTES)
            r->notes[r->n_notes++] = nb->turns;
    } else if (out->interleave && !out->coh_time) {
        /* the granularity of the cores' meeting in shared caches */
        char host[640] = "";
        if (out->interleave_host)
            snprintf(host, sizeof host,
                     "; %" PRIu64 " returns from system calls came when the host decided%s: "
                     "counts around them may differ from run to run",
                     out->interleave_host, calls);
        snprintf(nb->turns, sizeof nb->turns,
                 "threads took turns of %" PRIu64 " instructions, the one behind in modeled "
                 "time first (--interleave); %" PRIu64 " turns passed between threads%s",
                 out->interleave, out->interleave_switches, host);
        if (r->n_notes < COUNT_MAX_NOTES)
            r->notes[r->n_notes++] = nb->turns;
    }
    shared_notes(r, nb, out);
}
