/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm upc-explore: counter-unit design exploration (seed 000's argument;
 * docs/upc.md, "Design exploration").
 *
 * An event stream, a program's recorded on the virtual PMU (the batches the
 * node feeds its UPC, --hpm-upc-trace; src/vpmu/vpmu_upctrace.h) or a
 * synthetic one (an event on every counter in every cycle), is replayed
 * through the UPC library (src/upc) built with each design's parameters:
 * low-order width, maintenance slot, counters, SRAM ports. For each design
 * it reports the carries the unit lost, how late the two-phase threshold
 * interrupts fire (one per counter, programmed with
 * hpm_upc_program_threshold), the read latency of the SRAM port and the
 * storage bits in latches against SRAM, as a table (text, CSV or JSON) and
 * a gnuplot SVG.
 *
 * SRAM ports: an array of N entries with P ports is built as P banks of N/P
 * entries, each with its own port, incrementer and state machine, which is
 * P library units of N/P counters with the same slot: every entry is then
 * visited every N*slot/P cycles. A stream with more events than N counters
 * is replayed on as many copies of the design as it needs (as the virtual
 * PMU adds units).
 */
#define _GNU_SOURCE /* fdopen */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "commands.h"
#include "run/run.h"
#include "hpm/upc.h"
#include "util/options.h"
#include "plot/plot.h"
#include "util/runner.h"
#include "upc/upc_trace.h"

#define CMD "hpm upc-explore"
#define MAX_LIST 32
/* Read latency model: one cycle per SRAM access; a maintenance visit's
 * read, increment and write-back hold its bank's port for RMW cycles at
 * the start of the slot (seed 000 section 4: "read each memory word,
 * increment ..., and write back" within the slot). */
#define SRAM_ACCESS 1
#define RMW 3

/* ------------------------------------------------------------- the designs */

struct design {
    unsigned low, slot, counters, ports;
};

struct result {
    struct design d;
    unsigned units;           /* library units (copies x ports) */
    uint64_t cycles, events;  /* replayed, events counted while running */
    uint64_t service;         /* cycles between two visits of an entry */
    int service_ok;           /* every entry visited within 2^low cycles */
    uint64_t lost, lost_counters;
    uint64_t irq_set, irq_fired, irq_late, irq_worst;
    double irq_mean;
    int read_ok;              /* a read-modify-write fits the slot */
    unsigned read_worst;
    double read_mean;
    uint64_t latch_bits, sram_bits, all_latch_bits;
    int mismatch;             /* a counter disagreed with its stream (a bug) */
};

struct replay {
    const struct upc_stream *s;
    struct design d;
    unsigned per_unit, units, n_ev;
    struct hpm_upc **u;
    uint32_t **counts;
    uint64_t *fed, *thr, *thr_cycle, *irq_cycle, *preload;
    struct unit_ctx {
        struct replay *r;
        unsigned unit;
    } *ctx;
};

/* Event k's unit and counter: copy k / N of the design, bank j % P of it,
 * entry j / P of the bank (j = k mod N): neighbours fall on different
 * banks. */
static void place(const struct replay *r, unsigned k, unsigned *unit, unsigned *ctr)
{
    unsigned copy = k / r->d.counters, j = k % r->d.counters;
    *unit = copy * r->d.ports + j % r->d.ports;
    *ctr = j / r->d.ports;
}

static unsigned event_of(const struct replay *r, unsigned unit, unsigned ctr)
{
    unsigned copy = unit / r->d.ports, bank = unit % r->d.ports;
    return copy * r->d.counters + ctr * r->d.ports + bank;
}

static void on_notify(void *vctx, const struct hpm_upc_notify *n)
{
    struct unit_ctx *c = vctx;
    struct replay *r = c->r;
    unsigned k;
    if (n->kind != HPM_UPC_NOTIFY_IRQ)
        return; /* lost carries are read back per counter at the end */
    k = event_of(r, c->unit, n->counter);
    if (k < r->n_ev && r->irq_cycle[k] == UINT64_MAX)
        r->irq_cycle[k] = n->cycle;
}

static void replay_free(struct replay *r)
{
    unsigned i;
    for (i = 0; r->u && i < r->units; i++) {
        hpm_upc_destroy(r->u[i]);
        free(r->counts[i]);
    }
    free(r->u);
    free(r->counts);
    free(r->fed);
    free(r->thr);
    free(r->thr_cycle);
    free(r->irq_cycle);
    free(r->preload);
    free(r->ctx);
}

/* Feeds `cycles` cycles in which event k has ev_d[k] events (front-packed,
 * ev_d[k] <= cycles), on the events listed in ev[0..n); cut into chunks
 * that fit the library's 32-bit batch (front-packed batches compose). */
static int feed(struct replay *r, uint64_t cycles, const unsigned *ev, const uint64_t *d,
                unsigned n, int run, uint64_t *left)
{
    unsigned j, i, unit, ctr;
    for (i = 0; i < r->units; i++)
        run ? hpm_upc_start(r->u[i]) : hpm_upc_stop(r->u[i]);
    for (j = 0; j < n; j++)
        left[j] = d[j];
    while (cycles > 0) {
        uint64_t chunk = cycles < ((uint64_t)1 << 31) ? cycles : (uint64_t)1 << 31;
        uint64_t t0 = hpm_upc_cycle(r->u[0]);
        for (j = 0; j < n; j++) {
            unsigned k = ev[j];
            uint64_t dd = left[j] < chunk ? left[j] : chunk;
            left[j] -= dd;
            place(r, k, &unit, &ctr);
            r->counts[unit][ctr] = (uint32_t)dd;
            if (!run)
                continue;
            /* the threshold's event: the (thr - fed)-th of this chunk,
             * in its cycle t0 + that - 1 (front-packed) */
            if (r->thr[k] && r->fed[k] < r->thr[k] && r->fed[k] + dd >= r->thr[k])
                r->thr_cycle[k] = t0 + (r->thr[k] - r->fed[k]) - 1;
            r->fed[k] += dd;
        }
        for (i = 0; i < r->units; i++) {
            int rc = hpm_upc_advance(r->u[i], (uint32_t)chunk, r->counts[i]);
            if (rc != HPM_UPC_OK) {
                fprintf(stderr, "%s: replay: %s\n", CMD, hpm_upc_strerror(rc));
                return -1;
            }
        }
        for (j = 0; j < n; j++) {
            place(r, ev[j], &unit, &ctr);
            r->counts[unit][ctr] = 0;
        }
        cycles -= chunk;
    }
    return 0;
}

/* What a design costs, from its parameters alone: the service time of a
 * unit's counters, a read's wait, the bits in latches and in SRAM. */
static void design_costs(struct result *res, const struct design *d,
                         const struct hpm_upc_params *p, unsigned per_unit)
{
    res->service = (uint64_t)per_unit * d->slot;
    res->service_ok = hpm_upc_service_time_ok(p);
    /* A read waits while its bank's port is in a visit's read-modify-write
     * (at most RMW cycles, at the slot's start), then reads: the worst case
     * and the mean over a read at a uniformly random cycle, taking every
     * visit to use the port (an upper bound: a visit of an entry with no
     * carry and no threshold leaves it free). */
    res->read_ok = d->slot >= RMW;
    res->read_worst = RMW + SRAM_ACCESS;
    res->read_mean = SRAM_ACCESS + (double)RMW * (RMW + 1) / 2.0 / (double)d->slot;
    /* Per counter: low-order bits, carry latch and arm bit in latches; the
     * high-order word and its parity bit in SRAM; against 64 latch bits */
    res->latch_bits = (uint64_t)d->counters * (d->low + 2);
    res->sram_bits = (uint64_t)d->counters * (64 - d->low + 1);
    res->all_latch_bits = (uint64_t)d->counters * 64;
}

/* Replays the stream through design d into *res; totals (may be NULL)
 * gets each event's count as read from the unit. 0, or -1 (said why). */
static int replay_design(const struct upc_stream *s, const struct design *d, struct result *res,
                         uint64_t *totals)
{
    struct replay r;
    struct hpm_upc_params p;
    uint64_t *stream_total = NULL, *left = NULL, latency_sum = 0;
    unsigned *all = NULL, i, k, unit, ctr;
    int rc = -1;

    memset(&r, 0, sizeof r);
    memset(res, 0, sizeof *res);
    res->d = *d;
    r.s = s;
    r.d = *d;
    r.per_unit = d->counters / d->ports;
    r.n_ev = s->stress ? d->counters : s->n_ev;
    if (r.n_ev == 0) {
        fprintf(stderr, "%s: the stream has no events\n", CMD);
        return -1;
    }
    r.units = ((r.n_ev + d->counters - 1) / d->counters) * d->ports;
    hpm_upc_params_default(&p);
    p.n_counters = r.per_unit;
    p.n_inputs = r.per_unit; /* counter c's input 0 is event c */
    p.low_bits = d->low;
    p.high_bits = 64 - d->low;
    p.cycles_per_slot = d->slot;
    p.group_size = 1; /* configuration grouping does not change counting */
    if (hpm_upc_params_check(&p) != HPM_UPC_OK) {
        fprintf(stderr, "%s: design low=%u slot=%u counters=%u ports=%u: %s\n", CMD, d->low,
                d->slot, d->counters, d->ports, hpm_upc_strerror(HPM_UPC_EPARAM));
        return -1;
    }
    r.u = calloc(r.units, sizeof *r.u);
    r.counts = calloc(r.units, sizeof *r.counts);
    r.ctx = calloc(r.units, sizeof *r.ctx);
    r.fed = calloc(r.n_ev, sizeof *r.fed);
    r.thr = calloc(r.n_ev, sizeof *r.thr);
    r.thr_cycle = calloc(r.n_ev, sizeof *r.thr_cycle);
    r.irq_cycle = malloc(r.n_ev * sizeof *r.irq_cycle);
    r.preload = calloc(r.n_ev, sizeof *r.preload);
    stream_total = calloc(r.n_ev, sizeof *stream_total);
    all = malloc(r.n_ev * sizeof *all);
    left = malloc(r.n_ev * sizeof *left);
    if (!r.u || !r.counts || !r.ctx || !r.fed || !r.thr || !r.thr_cycle || !r.irq_cycle ||
        !r.preload || !stream_total || !all || !left)
        goto nomem;
    for (i = 0; i < r.units; i++) {
        if (hpm_upc_create(&r.u[i], &p) != HPM_UPC_OK ||
            !(r.counts[i] = calloc(r.per_unit, sizeof *r.counts[i])))
            goto nomem;
        r.ctx[i].r = &r;
        r.ctx[i].unit = i;
        hpm_upc_set_notify(r.u[i], on_notify, &r.ctx[i]);
        hpm_upc_set_threshold_mode(r.u[i], 1);
    }
    /* Each event's total (what its threshold is placed by) */
    if (s->stress) {
        for (k = 0; k < r.n_ev; k++)
            stream_total[k] = s->stress_cycles;
    } else {
        size_t b, e;
        for (b = 0; b < s->nb; b++)
            for (e = 0; s->b[b].run && e < s->b[b].n; e++)
                stream_total[s->ev[s->b[b].first + e]] += s->delta[s->b[b].first + e];
    }
    /* One threshold per counter, half way through its events (the stress
     * stream: shifted by the counter's index, so that the counters, which
     * count in step, meet theirs at different phases of the state machine) */
    for (k = 0; k < r.n_ev; k++) {
        uint64_t t = stream_total[k] / 2 + 1 + (s->stress ? k : 0);
        r.irq_cycle[k] = UINT64_MAX;
        place(&r, k, &unit, &ctr);
        if (hpm_upc_configure(r.u[unit], ctr, 0, HPM_UPC_LEVEL_HIGH, 0) != HPM_UPC_OK)
            goto fail;
        if (stream_total[k] < 2 || t > stream_total[k])
            continue;
        if (hpm_upc_program_threshold(r.u[unit], ctr, t, &r.preload[k]) != HPM_UPC_OK)
            continue; /* beyond the compare register's reach: no threshold */
        r.thr[k] = t;
        res->irq_set++;
    }
    if (s->stress) {
        for (k = 0; k < r.n_ev; k++)
            all[k] = k;
        if (feed(&r, s->stress_cycles, all, stream_total, r.n_ev, 1, left) != 0)
            goto fail;
    } else {
        size_t b;
        for (b = 0; b < s->nb; b++)
            if (feed(&r, s->b[b].cycles, s->ev + s->b[b].first, s->delta + s->b[b].first,
                     s->b[b].n, s->b[b].run, left) != 0)
                goto fail;
    }
    res->units = r.units;
    res->cycles = hpm_upc_cycle(r.u[0]);
    for (k = 0; k < r.n_ev; k++) {
        uint64_t v = 0, lost;
        int e;
        place(&r, k, &unit, &ctr);
        e = hpm_upc_read(r.u[unit], ctr, &v);
        lost = hpm_upc_lost_carries(r.u[unit], ctr);
        if (e != HPM_UPC_OK && e != HPM_UPC_ELOSTCARRY) {
            fprintf(stderr, "%s: reading counter %u: %s\n", CMD, ctr, hpm_upc_strerror(e));
            goto fail;
        }
        /* what the hardware holds plus what it lost is the stream's count */
        if (v - r.preload[k] + (lost << d->low) != r.fed[k])
            res->mismatch = 1;
        if (totals)
            totals[k] = v - r.preload[k];
        res->events += r.fed[k];
        res->lost += lost;
        res->lost_counters += lost > 0;
        if (r.thr[k] && r.irq_cycle[k] != UINT64_MAX) {
            uint64_t lat = r.irq_cycle[k] - r.thr_cycle[k];
            res->irq_fired++;
            res->irq_late += lat > 0;
            latency_sum += lat;
            if (lat > res->irq_worst)
                res->irq_worst = lat;
        }
    }
    res->irq_mean = res->irq_fired ? (double)latency_sum / (double)res->irq_fired : 0;
    design_costs(res, d, &p, r.per_unit);
    rc = 0;
    goto fail;
nomem:
    fprintf(stderr, "%s: out of memory\n", CMD);
fail:
    replay_free(&r);
    free(stream_total);
    free(all);
    free(left);
    return rc;
}

/* ----------------------------------------------------------------- output */

static const char *const columns[] = {
    "low_bits", "slot", "counters", "ports", "service_cycles", "service_ok", "events",
    "lost_carries", "lost_events_pct", "counters_losing", "irq_set", "irq_fired",
    "irq_missed", "irq_late", "irq_worst_cycles", "irq_mean_cycles", "read_worst_cycles",
    "read_mean_cycles", "latch_bits", "sram_bits", "all_latch_bits",
};
#define N_COLUMNS (sizeof columns / sizeof columns[0])

static double lost_pct(const struct result *r)
{
    return r->events ? 100.0 * (double)(r->lost << r->d.low) / (double)r->events : 0;
}

/* Column i of r as text ("-" for a read latency that cannot be had). */
static void cell(const struct result *r, unsigned i, char *buf, size_t len)
{
    switch (i) {
    case 0: snprintf(buf, len, "%u", r->d.low); break;
    case 1: snprintf(buf, len, "%u", r->d.slot); break;
    case 2: snprintf(buf, len, "%u", r->d.counters); break;
    case 3: snprintf(buf, len, "%u", r->d.ports); break;
    case 4: snprintf(buf, len, "%" PRIu64, r->service); break;
    case 5: snprintf(buf, len, "%s", r->service_ok ? "yes" : "no"); break;
    case 6: snprintf(buf, len, "%" PRIu64, r->events); break;
    case 7: snprintf(buf, len, "%" PRIu64, r->lost); break;
    case 8: snprintf(buf, len, "%.4f", lost_pct(r)); break;
    case 9: snprintf(buf, len, "%" PRIu64, r->lost_counters); break;
    case 10: snprintf(buf, len, "%" PRIu64, r->irq_set); break;
    case 11: snprintf(buf, len, "%" PRIu64, r->irq_fired); break;
    case 12: snprintf(buf, len, "%" PRIu64, r->irq_set - r->irq_fired); break;
    case 13: snprintf(buf, len, "%" PRIu64, r->irq_late); break;
    case 14: snprintf(buf, len, "%" PRIu64, r->irq_worst); break;
    case 15: snprintf(buf, len, "%.2f", r->irq_mean); break;
    case 16:
        if (r->read_ok) snprintf(buf, len, "%u", r->read_worst);
        else snprintf(buf, len, "-");
        break;
    case 17:
        if (r->read_ok) snprintf(buf, len, "%.3f", r->read_mean);
        else snprintf(buf, len, "-");
        break;
    case 18: snprintf(buf, len, "%" PRIu64, r->latch_bits); break;
    case 19: snprintf(buf, len, "%" PRIu64, r->sram_bits); break;
    default: snprintf(buf, len, "%" PRIu64, r->all_latch_bits); break;
    }
}

struct table {
    const struct result *r;
    unsigned n;
    int fmt; /* 0 text, 1 CSV, 2 JSON */
    const char *source;
};

static int write_table(FILE *f, void *vctx)
{
    const struct table *t = vctx;
    char buf[64];
    unsigned i, c;
    if (t->fmt == 1) {
        for (c = 0; c < N_COLUMNS; c++)
            fprintf(f, "%s%s", c ? "," : "", columns[c]);
        fputc('\n', f);
        for (i = 0; i < t->n; i++) {
            for (c = 0; c < N_COLUMNS; c++) {
                cell(&t->r[i], c, buf, sizeof buf);
                fprintf(f, "%s%s", c ? "," : "", strcmp(buf, "-") ? buf : "");
            }
            fputc('\n', f);
        }
    } else if (t->fmt == 2) {
        fprintf(f, "{\"stream\": ");
        /* the source is a path or "stress": escaped as JSON wants */
        fputc('"', f);
        for (const char *p = t->source; *p; p++) {
            if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
            else if ((unsigned char)*p < 0x20) fprintf(f, "\\u%04x", (unsigned char)*p);
            else fputc(*p, f);
        }
        fprintf(f, "\",\n \"designs\": [\n");
        for (i = 0; i < t->n; i++) {
            fprintf(f, "  {");
            for (c = 0; c < N_COLUMNS; c++) {
                cell(&t->r[i], c, buf, sizeof buf);
                if (c == 5) fprintf(f, "%s\"%s\": %s", c ? ", " : "", columns[c],
                                    t->r[i].service_ok ? "true" : "false");
                else fprintf(f, "%s\"%s\": %s", c ? ", " : "", columns[c],
                             strcmp(buf, "-") ? buf : "null");
            }
            fprintf(f, "}%s\n", i + 1 < t->n ? "," : "");
        }
        fprintf(f, " ]}\n");
    } else {
        fprintf(f, "%s: %s\n", CMD, t->source);
        fprintf(f, "%4s %5s %8s %5s %9s %3s %12s %10s %8s %5s %5s %6s %5s %8s %9s %5s %6s %8s "
                   "%8s\n",
                "low", "slot", "counters", "ports", "service", "ok", "events", "lost_carr",
                "lost_ev%", "irq", "fired", "missed", "late", "irq_wst", "irq_mean", "rd_wst",
                "rd_mean", "latch_b", "sram_b");
        for (i = 0; i < t->n; i++) {
            char v[N_COLUMNS][32];
            for (c = 0; c < N_COLUMNS; c++)
                cell(&t->r[i], c, v[c], sizeof v[c]);
            fprintf(f, "%4s %5s %8s %5s %9s %3s %12s %10s %8s %5s %5s %6s %5s %8s %9s %5s %6s "
                       "%8s %8s\n",
                    v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[10], v[11], v[12],
                    v[13], v[14], v[15], v[16], v[17], v[18], v[19]);
        }
        fprintf(f, "service: cycles between two visits of an entry (ok: within 2^low); "
                   "irq: thresholds set, one per counter,\n"
                   "fired/missed/late and the latency from the threshold's event to the "
                   "interrupt; rd: read latency (cycles,\n"
                   "SRAM port shared with the state machine); latch_b/sram_b: storage bits "
                   "(all-latch 64-bit counters: %" PRIu64 ")\n",
                t->n ? t->r[0].all_latch_bits : 0);
    }
    return ferror(f) ? -1 : 0;
}

/* The SVG: lost events (%) and storage bits against the low-order width,
 * one line per (counters, slot, ports). 0, or 1 (said why). */
static int draw(const char *out, const struct result *r, unsigned n, const char *source)
{
    int pfd[2], status;
    unsigned i, j, ns = 0;
    struct design *key = malloc(n * sizeof *key);
    pid_t pid;
    FILE *g;
    char title[4300];
    if (!key)
        return 1;
    for (i = 0; i < n; i++) {
        for (j = 0; j < ns; j++)
            if (key[j].slot == r[i].d.slot && key[j].counters == r[i].d.counters &&
                key[j].ports == r[i].d.ports)
                break;
        if (j == ns)
            key[ns++] = r[i].d;
    }
    if (pipe(pfd) != 0) {
        fprintf(stderr, "%s: pipe: %s\n", CMD, strerror(errno));
        free(key);
        return 1;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        close(pfd[1]);
        if (dup2(pfd[0], 0) < 0)
            _exit(127);
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execlp("gnuplot", "gnuplot", (char *)NULL);
        fprintf(stderr, "%s: cannot run gnuplot: %s (Debian: gnuplot-nox)\n", CMD,
                strerror(errno));
        _exit(127);
    }
    close(pfd[0]);
    if (pid < 0 || !(g = fdopen(pfd[1], "w"))) {
        fprintf(stderr, "%s: cannot start gnuplot\n", CMD);
        free(key);
        return 1;
    }
    fprintf(g, "set terminal svg dynamic size 1000,450\nset output ");
    gp_string(g, out[0] == '/' ? "" : "./", out);
    fprintf(g, "\nset multiplot layout 1,2 title ");
    /* a program's name that cannot reach gnuplot is left out */
    snprintf(title, sizeof title, "UPC designs on %s", gp_safe(source) ? source : "a stream");
    gp_string(g, "", title);
    fprintf(g, " noenhanced\nset grid\nset key top right noenhanced\n"
               "set xlabel 'low-order counter bits'\nset xtics 1\n"
               "set ylabel 'events lost (%% of events)'\nset yrange [0:*]\n");
    for (j = 0; j < ns; j++) {
        fprintf(g, "$d%u << EOD\n", j);
        for (i = 0; i < n; i++)
            if (r[i].d.slot == key[j].slot && r[i].d.counters == key[j].counters &&
                r[i].d.ports == key[j].ports)
                fprintf(g, "%u %.6f %" PRIu64 " %" PRIu64 "\n", r[i].d.low, lost_pct(&r[i]),
                        r[i].latch_bits, r[i].sram_bits);
        fprintf(g, "EOD\n");
    }
    fprintf(g, "plot ");
    for (j = 0; j < ns; j++)
        fprintf(g, "%s$d%u using 1:2 with linespoints title '%u counters, %u-cycle slot, %u "
                   "port%s'",
                j ? ", " : "", j, key[j].counters, key[j].slot, key[j].ports,
                key[j].ports > 1 ? "s" : "");
    fprintf(g, "\nset ylabel 'storage bits'\nset key top left\n"
               "plot ");
    for (j = 0; j < ns; j++) {
        /* the storage depends on counters and width only: once per counters */
        unsigned m;
        for (m = 0; m < j; m++)
            if (key[m].counters == key[j].counters)
                break;
        if (m < j)
            continue;
        fprintf(g, "%s$d%u using 1:3 with linespoints title '%u counters: latch bits', "
                   "$d%u using 1:4 with linespoints title '%u counters: SRAM bits'",
                j ? ", " : "", j, key[j].counters, j, key[j].counters);
    }
    fprintf(g, "\nunset multiplot\n");
    fclose(g);
    free(key);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: gnuplot failed (status %d)\n", CMD,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------- the command */

/* "8,10,12" or "8-16" or a mix: 0 and the values, or -1. */
static int parse_list(const char *s, unsigned *v, unsigned *n, unsigned lo, unsigned hi)
{
    const char *p = s;
    char *end;
    *n = 0;
    for (;;) {
        unsigned long a = strtoul(p, &end, 10), b;
        if (end == p || *p == '-' || *p == '+')
            return -1;
        b = a;
        p = end;
        if (*p == '-') {
            b = strtoul(p + 1, &end, 10);
            if (end == p + 1 || b < a)
                return -1;
            p = end;
        }
        if (a < lo || b > hi)
            return -1;
        for (; a <= b; a++) {
            if (*n == MAX_LIST)
                return -1;
            v[(*n)++] = (unsigned)a;
        }
        if (*p == 0)
            return 0;
        if (*p != ',')
            return -1;
        p++;
    }
}

struct record_ctx {
    uint64_t pid;
};

static int after_run(uint64_t main_pid, void *vctx)
{
    ((struct record_ctx *)vctx)->pid = main_pid;
    return 0;
}

static int copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b;
    char buf[65536];
    size_t n;
    int rc = 0;
    if (!a)
        return -1;
    if (!(b = fopen(to, "wb"))) {
        fclose(a);
        return -1;
    }
    while ((n = fread(buf, 1, sizeof buf, a)) > 0)
        if (fwrite(buf, 1, n, b) != n)
            rc = -1;
    if (ferror(a))
        rc = -1;
    fclose(a);
    if (fclose(b) != 0)
        rc = -1;
    return rc;
}

/* Runs the program on the virtual PMU (hpm count's run, its report into
 * the folder) with --hpm-upc-trace: the main process's trace is read into
 * s and, with record, copied there. 0, or the failing status. */
static int record_program(struct upc_stream *s, int argc, char **argv, const char *events,
                          const char *machine, const char *record)
{
    char dir[4096], trace_arg[4200], path[4200], report[4200], err[4800];
    struct count_hook hook;
    struct record_ctx c = {0};
    char **cargv = calloc((size_t)argc + 16, sizeof *cargv);
    int na = 0, i, rc, saved;
    if (!cargv)
        return 1;
    if (runner_tmpdir("hpm-upcx", dir, sizeof dir) != 0) {
        fprintf(stderr, "%s: cannot make a temporary folder: %s\n", CMD, strerror(errno));
        free(cargv);
        return 1;
    }
    snprintf(trace_arg, sizeof trace_arg, "--hpm-upc-trace=%s/trace.%%p", dir);
    snprintf(report, sizeof report, "%s/profile.out", dir);
    memset(&hook, 0, sizeof hook);
    hook.tool_args[0] = trace_arg;
    hook.after = after_run;
    hook.ctx = &c;
    cargv[na++] = "upc-explore";
    if (events) {
        cargv[na++] = "-e";
        cargv[na++] = (char *)events;
    }
    if (machine) {
        cargv[na++] = "--machine";
        cargv[na++] = (char *)machine;
    }
    /* the trace is the program's own process (children write their own) */
    cargv[na++] = "--no-children";
    /* the run's profile (count_record's is a profile run) stays in the folder */
    cargv[na++] = "-o";
    cargv[na++] = report;
    cargv[na++] = "--";
    for (i = 0; i < argc; i++)
        cargv[na++] = argv[i];
    cargv[na] = NULL;
    /* stdout is the table's: the run's counts report and the program's own
     * output go to stderr */
    fflush(stdout);
    saved = dup(1);
    if (saved < 0 || dup2(2, 1) < 0) {
        fprintf(stderr, "%s: dup: %s\n", CMD, strerror(errno));
        free(cargv);
        runner_rmdir(dir);
        return 1;
    }
    rc = count_record(na, cargv, &hook);
    fflush(stdout);
    (void)dup2(saved, 1);
    close(saved);
    free(cargv);
    if (!c.pid) {
        runner_rmdir(dir);
        return rc ? rc : 1;
    }
    snprintf(path, sizeof path, "%s/trace.%" PRIu64, dir, c.pid);
    if (record && copy_file(path, record) != 0) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", CMD, record, strerror(errno));
        runner_rmdir(dir);
        return 1;
    }
    i = upc_trace_read(s, path, err, sizeof err);
    runner_rmdir(dir);
    if (i != 0) {
        fprintf(stderr, "%s: %s\n", CMD, err);
        return 1;
    }
    if (rc != 0)
        fprintf(stderr, "%s: the program exited with status %d; its stream is replayed\n", CMD,
                rc);
    return 0;
}

static const char synopsis[] =
    "usage: hpm upc-explore [OPTIONS] -- PROGRAM [ARGS]\n"
    "       hpm upc-explore [OPTIONS] --trace FILE\n"
    "       hpm upc-explore [OPTIONS] --stress\n"
    "Replays an event stream through counter-unit designs built with the UPC library\n"
    "(every combination of the lists given) and reports, per design, the carries lost,\n"
    "the threshold interrupts' latency, the read latency and the storage bits (seed 000's\n"
    "argument: 12-bit low-order counters and a 16-cycle slot lose nothing at one event per\n"
    "cycle on each of 256 counters). The stream: PROGRAM's own, recorded on the virtual PMU\n"
    "(every event, or -e's), a recorded one (--trace), or an event every cycle on every\n"
    "counter (--stress).\n\noptions:\n";

static const char footer[] =
    "Lists: 8,10,12 or 8-16. Designs whose slot is shorter than a read-modify-write (3\n"
    "cycles) show no read latency. docs/upc.md, \"Design exploration\".\n";

/* The stream to replay into s (upc_stream_init'd here): stress_cycles of
 * the synthetic one (when not 0), the trace file, or PROGRAM's run
 * recorded; its name for the table into srcbuf (not for a trace). 0, or
 * the exit status after a message. */
static int load_stream(struct upc_stream *s, long stress_cycles, const char *trace, int argc,
                       char **argv, const char *events, const char *machine, const char *record,
                       char *srcbuf, size_t len)
{
    int rc;
    upc_stream_init(s);
    if (stress_cycles) {
        s->stress = 1;
        s->stress_cycles = (uint64_t)stress_cycles;
        snprintf(srcbuf, len, "stress (an event every cycle on every counter, %ld cycles)",
                 stress_cycles);
        return 0;
    }
    if (trace) {
        char err[4200];
        if (upc_trace_read(s, trace, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", CMD, err);
            return 1;
        }
    } else {
        rc = record_program(s, argc, argv, events, machine, record);
        if (rc)
            return rc;
        snprintf(srcbuf, len, "%s (recorded)", argv[0]);
    }
    if (s->nb == 0) {
        fprintf(stderr, "%s: the stream has no batches\n", CMD);
        return 1;
    }
    return 0;
}

/* Every design of the lists (low bits, slot, counters, ports: each
 * combination, in that nesting) replayed over s into res[*n...]; the first
 * design's counts into totals (may be NULL). 0, or -1 after a message. */
static int replay_designs(struct upc_stream *s, const unsigned *const lists[4],
                          const unsigned sizes[4], struct result *res, unsigned *n,
                          uint64_t *totals)
{
    unsigned a, b, c, d;
    for (a = 0; a < sizes[0]; a++)
        for (b = 0; b < sizes[1]; b++)
            for (c = 0; c < sizes[2]; c++)
                for (d = 0; d < sizes[3]; d++) {
                    struct design ds = {lists[0][a], lists[1][b], lists[2][c], lists[3][d]};
                    if (replay_design(s, &ds, &res[*n], *n == 0 ? totals : NULL) != 0)
                        return -1;
                    if (res[*n].mismatch) {
                        fprintf(stderr, "%s: internal error: a counter of design low=%u "
                                        "slot=%u disagrees with its stream\n",
                                CMD, ds.low, ds.slot);
                        return -1;
                    }
                    (*n)++;
                }
    return 0;
}

/* --totals: each event's count as the first design's unit read it (CSV:
 * event,code,count); stress_counters: the synthetic stream's counters (its
 * events are numbered), else 0. 0, or -1. */
static int write_totals(const char *path, const struct upc_stream *s, unsigned stress_counters,
                        const uint64_t *totals)
{
    FILE *f = fopen(path, "w");
    unsigned k, ne = stress_counters ? stress_counters : s->n_ev;
    if (!f) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", CMD, path, strerror(errno));
        return -1;
    }
    fprintf(f, "event,code,count\n");
    for (k = 0; k < ne; k++) {
        char name[HPM_CAT_NAME_MAX];
        unsigned code = stress_counters ? k : s->code[k];
        if (stress_counters || hpm_catalog_code_name(code, name, sizeof name) < 0)
            snprintf(name, sizeof name, "%u", code);
        fprintf(f, "%s,%u,%" PRIu64 "\n", name, code, totals[k]);
    }
    return fclose(f) != 0 ? -1 : 0;
}

int cmd_upc_explore(int argc, char **argv)
{
    const char *low_s = "8-16", *slot_s = "16", *counters_s = "256", *ports_s = "1";
    const char *trace = NULL, *record = NULL, *events = NULL, *machine = NULL, *out = NULL;
    const char *plot = NULL, *totals_out = NULL;
    static const char *const formats[] = {"text", "csv", "json", NULL};
    int fmt = 0, stress = 0, first, rc;
    long stress_cycles = 1L << 20;
    const struct hpm_opt t[] = {
        {"--low-bits", NULL, "LIST", "low-order counter widths [8-16]", HPM_OPT_STRING, &low_s,
         NULL, NULL, 0, 0},
        {"--slot", NULL, "LIST", "maintenance cycles per SRAM entry [16]", HPM_OPT_STRING,
         &slot_s, NULL, NULL, 0, 0},
        {"--counters", NULL, "LIST", "counters per unit [256]", HPM_OPT_STRING, &counters_s,
         NULL, NULL, 0, 0},
        {"--ports", NULL, "LIST",
         "SRAM ports (banks, each with its own state machine) [1]", HPM_OPT_STRING, &ports_s,
         NULL, NULL, 0, 0},
        {"--stress", NULL, NULL, "synthetic stream: an event every cycle on every counter",
         HPM_OPT_FLAG, &stress, NULL, NULL, 0, 0},
        {"--stress-cycles", NULL, "N", "cycles of the synthetic stream [1048576]",
         HPM_OPT_LONG, &stress_cycles, NULL, NULL, 1, 1L << 40},
        {"--trace", NULL, "FILE", "replay this recorded stream", HPM_OPT_STRING, &trace, NULL,
         NULL, 0, 0},
        {"--record", NULL, "FILE", "also keep PROGRAM's stream in FILE (for --trace)",
         HPM_OPT_STRING, &record, NULL, NULL, 0, 0},
        {"--events", "-e", "EVENTS", "the events to record (hpm count's -e) [every event]",
         HPM_OPT_STRING, &events, NULL, NULL, 0, 0},
        {"--machine", NULL, "M", "the machine model of the recording run [bgp]",
         HPM_OPT_STRING, &machine, NULL, NULL, 0, 0},
        {"--format", NULL, "F", "the table as text, csv or json [text]", HPM_OPT_CHOICE, &fmt,
         formats, NULL, 0, 0},
        {"--output", "-o", "FILE", "write the table to FILE [stdout]", HPM_OPT_STRING, &out,
         NULL, NULL, 0, 0},
        {"--plot", NULL, "FILE.svg", "draw lost events and storage bits with gnuplot",
         HPM_OPT_STRING, &plot, NULL, NULL, 0, 0},
        {"--totals", NULL, "FILE",
         "write each event's count as the first design's unit reads it\n(CSV: event,code,count)",
         HPM_OPT_STRING, &totals_out, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    unsigned lows[MAX_LIST], slots[MAX_LIST], ctrs[MAX_LIST], ports[MAX_LIST];
    unsigned nl, nsl, nc, np, a, b, n = 0;
    struct upc_stream *s = NULL;
    struct result *res = NULL;
    uint64_t *totals = NULL;
    const char *source;
    char srcbuf[4200];

    rc = hpm_opt_parse(CMD, t, synopsis, footer, argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    {
        /* the library's ranges (docs/upc.md, Parameters) */
        const char *bad = parse_list(low_s, lows, &nl, 1, 31) ? low_s
                          : parse_list(slot_s, slots, &nsl, 1, 1u << 20) ? slot_s
                          : parse_list(counters_s, ctrs, &nc, 1, 65536) ? counters_s
                          : parse_list(ports_s, ports, &np, 1, 65536) ? ports_s
                                                                      : NULL;
        if (bad)
            return hpm_opt_error(CMD, t, synopsis, footer,
                                 "not a LIST (8,10,12 or 8-16, at most 32 values, in range): %s",
                                 bad);
    }
    if ((first < argc) + (trace != NULL) + stress != 1)
        return hpm_opt_error(CMD, t, synopsis, footer,
                             "give one stream: -- PROGRAM, --trace FILE or --stress%s", "");
    if ((record || events || machine) && first >= argc)
        return hpm_opt_error(CMD, t, synopsis, footer,
                             "--record, -e and --machine are for a PROGRAM's run%s", "");
    if (plot && (!gp_safe(plot) || strlen(plot) < 5 || strcmp(plot + strlen(plot) - 4, ".svg")))
        return hpm_opt_error(CMD, t, synopsis, footer,
                             "--plot needs a FILE.svg that gnuplot can be given: %s", plot);
    for (a = 0; a < nc; a++)
        for (b = 0; b < np; b++)
            if (ctrs[a] % ports[b])
                return hpm_opt_error(CMD, t, synopsis, footer,
                                     "the ports must divide the counters (banks of equal "
                                     "size): --ports %s",
                                     ports_s);
    if (out && !runner_output_ok(CMD, out))
        return 1;

    s = calloc(1, sizeof *s);
    res = calloc((size_t)nl * nsl * nc * np, sizeof *res);
    if (!s || !res) {
        fprintf(stderr, "%s: out of memory\n", CMD);
        rc = 1;
        goto done;
    }
    rc = load_stream(s, stress ? stress_cycles : 0, trace, argc - first, argv + first, events,
                     machine, record, srcbuf, sizeof srcbuf);
    if (rc)
        goto done;
    source = stress ? srcbuf : trace ? trace : srcbuf;
    if (totals_out && !(totals = calloc(stress ? ctrs[0] : s->n_ev, sizeof *totals))) {
        rc = 1;
        goto done;
    }
    {
        const unsigned *lists[4] = {lows, slots, ctrs, ports}, sizes[4] = {nl, nsl, nc, np};
        if (replay_designs(s, lists, sizes, res, &n, totals) != 0) {
            rc = 1;
            goto done;
        }
    }
    {
        struct table tb = {res, n, fmt, source};
        if (runner_write_output(CMD, out, write_table, &tb) != 0) {
            rc = 1;
            goto done;
        }
    }
    if (totals_out && write_totals(totals_out, s, stress ? ctrs[0] : 0, totals) != 0) {
        rc = 1;
        goto done;
    }
    if (plot && draw(plot, res, n, source) != 0) {
        rc = 1;
        goto done;
    }
    rc = 0;
done:
    if (s)
        upc_stream_free(s);
    free(s);
    free(res);
    free(totals);
    return rc;
}
