/* SPDX-License-Identifier: BSD-3-Clause */
/* interval.c - interval series of live counts (interval.h). */
#include "report/interval.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "live.h"
#include "report/count_report_writer.h"

static const char *const default_events[] = {"INSTRUCTIONS", "CYCLES",  "LOADS",
                                             "STORES",       "L1D_MISSES", "FP_OPS"};

static uint64_t total_of(const struct hpm_iv_event *e, const struct hpm_live *s, int *have)
{
    uint64_t v = 0;
    unsigned i;
    *have = 0;
    for (i = 0; i < e->n_codes; i++) {
        int h;
        v += hpm_live_value(s, (unsigned)e->codes[i], &h);
        *have |= h;
    }
    return v;
}

/* Where e's count comes from, as the reports say (report_row_source) */
static const char *source_of(const struct hpm_iv_event *e)
{
    unsigned kind;
    int core;
    if (e->n_codes == 0 || hpm_catalog_decode((unsigned)e->codes[0], &kind, &core) != 0)
        return "modeled";
    return report_row_source(hpm_catalog_kind(kind));
}

/* The modeled clock's codes in s: NODE_CYCLES, else every core's CYCLES. */
static void find_clock(struct hpm_iv_clock *c, const struct hpm_live *s, unsigned cores)
{
    struct hpm_cat_name nm;
    int h, rc;
    memset(c, 0, sizeof *c);
    c->hz = s->frequency_hz;
    if (!c->hz)
        return;
    if (hpm_catalog_parse("NODE_CYCLES", &nm) == 0 &&
        hpm_catalog_codes(&nm, cores, ~0u, c->codes, HPM_CAT_MAX_CORES) == 1) {
        (void)hpm_live_value(s, (unsigned)c->codes[0], &h);
        if (h) {
            c->n_codes = 1;
            c->node = 1;
            return;
        }
    }
    if (hpm_catalog_parse("CYCLES", &nm) == 0 &&
        (rc = hpm_catalog_codes(&nm, cores, ~0u, c->codes, HPM_CAT_MAX_CORES)) > 0) {
        (void)hpm_live_value(s, (unsigned)c->codes[0], &h);
        if (h)
            c->n_codes = (unsigned)rc;
    }
}

/* The modeled clock in s: cycles of the node (its largest core's). */
static uint64_t clock_of(const struct hpm_iv_clock *c, const struct hpm_live *s)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < c->n_codes; i++) {
        int h;
        uint64_t x = hpm_live_value(s, (unsigned)c->codes[i], &h);
        if (x > v)
            v = x;
    }
    return v;
}

int hpm_interval_init(struct hpm_interval *iv, const struct hpm_live *s, const char *const *names,
                      unsigned n_names, enum hpm_iv_format fmt, FILE *out, const char *cmd)
{
    unsigned i, cores = s->cores ? s->cores : 1;
    int defaults = n_names == 0;
    memset(iv, 0, sizeof *iv);
    iv->fmt = fmt;
    iv->out = out;
    find_clock(&iv->clock, s, cores);
    if (defaults) {
        names = default_events;
        n_names = sizeof default_events / sizeof default_events[0];
    }
    for (i = 0; i < n_names; i++) {
        /* a list "A,B" in one argument, as hpm count takes it */
        const char *p = names[i];
        for (;;) {
            struct hpm_cat_name nm;
            char one[HPM_CAT_NAME_MAX + 1];
            size_t len = strcspn(p, ",");
            int rc, have;
            struct hpm_iv_event *e;
            if (len == 0 || len >= sizeof one) {
                fprintf(stderr, "%s: bad event name in '%s'\n", cmd, names[i]);
                return 2;
            }
            memcpy(one, p, len);
            one[len] = 0;
            if (iv->n == HPM_IV_MAX_EVENTS) {
                fprintf(stderr, "%s: at most %d events\n", cmd, HPM_IV_MAX_EVENTS);
                return 2;
            }
            e = &iv->ev[iv->n];
            rc = hpm_catalog_parse(one, &nm);
            if (rc == 0)
                rc = hpm_catalog_codes(&nm, cores, ~0u, e->codes, HPM_CAT_MAX_CORES);
            if (rc <= 0) {
                fprintf(stderr, "%s: event '%s': %s\n", cmd, one, hpm_catalog_strerror(rc));
                return 2;
            }
            e->n_codes = (unsigned)rc;
            snprintf(e->name, sizeof e->name, "%s", nm.canonical);
            (void)total_of(e, s, &have);
            if (have)
                iv->n++;
            else if (!defaults) {
                fprintf(stderr, "%s: event '%s' is not counted in this process (its run does "
                                "not program it)\n",
                        cmd, one);
                return 2;
            }
            p += len;
            if (*p != ',')
                break;
            p++;
        }
    }
    return 0;
}

void hpm_interval_totals(struct hpm_interval *iv, const struct hpm_live *s)
{
    unsigned i;
    if (iv->fmt == HPM_IV_CSV)
        fprintf(iv->out, "pid,state,event,count\n");
    else
        fprintf(iv->out, "hpm stat: process %u (%s), machine %s: %s\n", s->pid,
                s->state == HPM_LIVE_RUNNING ? "running" : "ended", s->machine, s->command);
    for (i = 0; i < iv->n; i++) {
        int have;
        uint64_t v = total_of(&iv->ev[i], s, &have);
        if (iv->fmt == HPM_IV_CSV)
            fprintf(iv->out, "%u,%s,%s,%" PRIu64 "\n", s->pid,
                    s->state == HPM_LIVE_RUNNING ? "running" : "ended", iv->ev[i].name, v);
        else
            fprintf(iv->out, " %-30s %20" PRIu64 "\n", iv->ev[i].name, v);
    }
    fflush(iv->out);
}

void hpm_interval_start(struct hpm_interval *iv, const struct hpm_live *s)
{
    unsigned i;
    iv->started = s != NULL;
    for (i = 0; i < iv->n; i++) {
        int have;
        iv->ev[i].last = s ? total_of(&iv->ev[i], s, &have) : 0;
    }
    iv->clock.last = s ? clock_of(&iv->clock, s) : 0;
    if (s)
        iv->t0_ms = iv->last_ms = s->host_ms;
    if (iv->fmt == HPM_IV_TEXT)
        fprintf(iv->out, "#%13s %20s %-30s %14s%s\n", "time (s)", "counts", "event", "rate (/s)",
                iv->clock.n_codes ? "    modeled (s) rate (/modeled s)" : "");
    else if (iv->fmt == HPM_IV_CSV)
        fprintf(iv->out, "time_s,event,delta,rate_per_s,total%s\n",
                iv->clock.n_codes ? ",modeled_s,rate_per_modeled_s" : "");
}

/* The first step's line: what is counted, for a reader of the series (hpm
 * plot titles its picture with it); JSON lines carry it in each object. */
static void title_line(struct hpm_interval *iv, const struct hpm_live *s)
{
    iv->titled = 1;
    if (iv->fmt == HPM_IV_JSON)
        return;
    fprintf(iv->out, "%shpm series: %s (machine %s; %s)\n", iv->fmt == HPM_IV_TEXT ? "# " : "",
            s->command, s->machine,
            iv->clock.n_codes ? "modeled time from its cycles"
                              : "host time only: it does not count cycles");
}

void hpm_interval_step(struct hpm_interval *iv, const struct hpm_live *s)
{
    unsigned i;
    double t, dt, mt, mdt;
    uint64_t clk;
    if (!iv->started) {
        /* the series starts at the program's start: zero counts, the time
         * of its first publication */
        iv->t0_ms = iv->last_ms = s->host_ms > s->interval_ms ? s->host_ms - s->interval_ms : 0;
        iv->started = 1;
    }
    if (!iv->titled)
        title_line(iv, s);
    t = (double)(s->host_ms - iv->t0_ms) / 1e3;
    dt = (double)(s->host_ms - iv->last_ms) / 1e3;
    clk = clock_of(&iv->clock, s);
    mt = iv->clock.hz ? (double)clk / (double)iv->clock.hz : 0;
    mdt = iv->clock.hz && clk > iv->clock.last ? (double)(clk - iv->clock.last) / (double)iv->clock.hz
                                               : 0;
    for (i = 0; i < iv->n; i++) {
        struct hpm_iv_event *e = &iv->ev[i];
        int have;
        uint64_t v = total_of(e, s, &have), d = v - e->last;
        double rate = dt > 0 ? (double)d / dt : 0, mrate = mdt > 0 ? (double)d / mdt : 0;
        switch (iv->fmt) {
        case HPM_IV_TEXT:
            fprintf(iv->out, "%14.3f %20" PRIu64 " %-30s %14.4g", t, d, e->name, rate);
            if (iv->clock.n_codes)
                fprintf(iv->out, " %14.6f %14.4g", mt, mrate);
            fputc('\n', iv->out);
            break;
        case HPM_IV_CSV:
            fprintf(iv->out, "%.3f,%s,%" PRIu64 ",%.6g,%" PRIu64, t, e->name, d, rate, v);
            if (iv->clock.n_codes)
                fprintf(iv->out, ",%.9f,%.6g", mt, mrate);
            fputc('\n', iv->out);
            break;
        case HPM_IV_JSON:
            fprintf(iv->out, "{\"time_s\":%.3f,\"event\":", t);
            hpm_json_string(iv->out, e->name);
            fprintf(iv->out, ",\"delta\":%" PRIu64 ",\"rate_per_s\":%.6g,\"total\":%" PRIu64,
                    d, rate, v);
            if (iv->clock.n_codes)
                fprintf(iv->out, ",\"modeled_s\":%.9f,\"rate_per_modeled_s\":%.6g", mt, mrate);
            fprintf(iv->out, ",\"state\":\"%s\",\"source\":\"%s\"}\n",
                    s->state == HPM_LIVE_RUNNING ? "running" : "ended", source_of(e));
            break;
        }
        e->last = v;
    }
    iv->clock.last = clk;
    iv->last_ms = s->host_ms;
    fflush(iv->out);
}
