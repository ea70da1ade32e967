/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem.c - hpm report --mem: the data objects of a recording's memory
 * samples (globals by variable, heap blocks by allocation site, the stack,
 * other memory) by total modeled latency, with their samples, average
 * latency, the levels that served them and their TLB misses.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flame.h"
#include "flame/recording.h"
#include "perfdata.h"
#include "util/runner.h"

struct mem_row {
    char *name;
    uint64_t samples, latency, tlb_miss;
    uint64_t level[5]; /* L1, L2 (or LFB), L3, RAM, other */
};

struct mem_ctx {
    struct mem_row *rows;
    size_t n;
    long top;
    char title[600];
    uint64_t samples, latency;
};

static int cmp_mem_row(const void *a, const void *b)
{
    const struct mem_row *x = a, *y = b;
    if (x->latency != y->latency)
        return x->latency > y->latency ? -1 : 1;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int mem_level(uint64_t data_src)
{
    const char *l = perfdata_data_src_level(data_src);
    return !strcmp(l, "L1") ? 0 : !strcmp(l, "L2") || !strcmp(l, "LFB") ? 1
         : !strcmp(l, "L3") ? 2 : !strcmp(l, "RAM") ? 3 : 4;
}

static int write_mem(FILE *f, void *ctx)
{
    const struct mem_ctx *m = ctx;
    size_t i;
    fprintf(f, "%s\n", m->title);
    fprintf(f, "%" PRIu64 " samples with a data object, %" PRIu64
               " cycles of modeled latency; by latency:\n",
            m->samples, m->latency);
    fprintf(f, "%10s %12s %6s %7s %8s %8s %8s %8s %8s  %s\n", "samples", "latency", "%lat",
            "avg", "L1", "L2", "L3", "RAM", "TLBmiss", "data object");
    for (i = 0; i < m->n && (long)i < m->top; i++) {
        const struct mem_row *r = &m->rows[i];
        fprintf(f, "%10" PRIu64 " %12" PRIu64 " %5.1f%% %7.1f %8" PRIu64 " %8" PRIu64 " %8" PRIu64
                   " %8" PRIu64 " %8" PRIu64 "  %s\n",
                r->samples, r->latency,
                m->latency ? 100.0 * (double)r->latency / (double)m->latency : 0.0,
                r->samples ? (double)r->latency / (double)r->samples : 0.0, r->level[0],
                r->level[1], r->level[2], r->level[3], r->tlb_miss, r->name);
    }
    return ferror(f) ? -1 : 0;
}

/* flame.h */
int report_mem(const char *path, const char *event, long top, const char *output)
{
    struct perfdata_file pf;
    struct symctx sc;
    struct mem_ctx mc;
    size_t i, k;
    int ev, rc;
    if ((rc = recording_read(path, &pf)) != 0)
        return rc;
    if (!(pf.sample_type & PERF_SAMPLE_DATA_SRC) || !pf.dobjs) {
        fprintf(stderr,
                "hpm report: %s has no data objects (hpm record writes them with the samples' "
                "data sources; not with --no-data-src)\n",
                path);
        perfdata_free(&pf);
        return 2;
    }
    if ((ev = recording_event(&pf, path, event, 0)) < 0) {
        perfdata_free(&pf);
        return 2;
    }
    rc = 1;
    memset(&mc, 0, sizeof mc);
    mc.rows = calloc(pf.n_samples ? pf.n_samples : 1, sizeof *mc.rows);
    if (symctx_init(&sc, &pf) != 0 || !mc.rows)
        goto oom;
    for (i = 0; i < pf.n_samples; i++) {
        const struct perfdata_sample *smp = &pf.samples[i];
        struct mem_row *r = &mc.rows[mc.n];
        if (smp->event != (unsigned)ev || !smp->dobj)
            continue;
        r->name = recording_dobj_name(&sc, smp);
        if (!r->name)
            goto oom;
        r->samples = 1;
        r->latency = smp->weight;
        r->level[mem_level(smp->data_src)] = 1;
        r->tlb_miss = perfdata_data_src_tlb_miss(smp->data_src) == 1;
        mc.samples++;
        mc.latency += smp->weight;
        mc.n++;
    }
    /* one row per object name: sorted by name, added up */
    qsort(mc.rows, mc.n, sizeof *mc.rows, recording_cmp_name);
    for (i = 0, k = 0; i < mc.n; i++) {
        if (k && !strcmp(mc.rows[k - 1].name, mc.rows[i].name)) {
            struct mem_row *t = &mc.rows[k - 1];
            unsigned l;
            t->samples += mc.rows[i].samples;
            t->latency += mc.rows[i].latency;
            t->tlb_miss += mc.rows[i].tlb_miss;
            for (l = 0; l < 5; l++)
                t->level[l] += mc.rows[i].level[l];
            free(mc.rows[i].name);
        } else {
            mc.rows[k++] = mc.rows[i];
        }
    }
    mc.n = k;
    qsort(mc.rows, mc.n, sizeof *mc.rows, cmp_mem_row);
    mc.top = top;
    snprintf(mc.title, sizeof mc.title, "%s of %s: data objects (modeled latency in cycles)",
             pf.names[ev], path);
    rc = runner_write_output("hpm report", output, write_mem, &mc) == 0 ? 0 : 1;
    goto done;
oom:
    fprintf(stderr, "hpm report: out of memory\n");
done:
    for (i = 0; i < mc.n; i++)
        free(mc.rows[i].name);
    free(mc.rows);
    symctx_free(&sc);
    perfdata_free(&pf);
    return rc;
}
