/* SPDX-License-Identifier: BSD-3-Clause */
/* interval.c - interval series of live counts (interval.h). */
#include "interval.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "live.h"

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

int hpm_interval_init(struct hpm_interval *iv, const struct hpm_live *s, const char *const *names,
                      unsigned n_names, enum hpm_iv_format fmt, FILE *out, const char *cmd)
{
    unsigned i, cores = s->cores ? s->cores : 1;
    int defaults = n_names == 0;
    memset(iv, 0, sizeof *iv);
    iv->fmt = fmt;
    iv->out = out;
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
    if (s)
        iv->t0_ms = iv->last_ms = s->host_ms;
    if (iv->fmt == HPM_IV_TEXT)
        fprintf(iv->out, "#%13s %20s %-30s %14s\n", "time (s)", "counts", "event", "rate (/s)");
    else if (iv->fmt == HPM_IV_CSV)
        fprintf(iv->out, "time_s,event,delta,rate_per_s,total\n");
}

void hpm_interval_step(struct hpm_interval *iv, const struct hpm_live *s)
{
    unsigned i;
    double t, dt;
    if (!iv->started) {
        /* the series starts at the program's start: zero counts, the time
         * of its first publication */
        iv->t0_ms = iv->last_ms = s->host_ms > s->interval_ms ? s->host_ms - s->interval_ms : 0;
        iv->started = 1;
    }
    t = (double)(s->host_ms - iv->t0_ms) / 1e3;
    dt = (double)(s->host_ms - iv->last_ms) / 1e3;
    for (i = 0; i < iv->n; i++) {
        struct hpm_iv_event *e = &iv->ev[i];
        int have;
        uint64_t v = total_of(e, s, &have), d = v - e->last;
        double rate = dt > 0 ? (double)d / dt : 0;
        switch (iv->fmt) {
        case HPM_IV_TEXT:
            fprintf(iv->out, "%14.3f %20" PRIu64 " %-30s %14.4g\n", t, d, e->name, rate);
            break;
        case HPM_IV_CSV:
            fprintf(iv->out, "%.3f,%s,%" PRIu64 ",%.6g,%" PRIu64 "\n", t, e->name, d, rate, v);
            break;
        case HPM_IV_JSON:
            fprintf(iv->out, "{\"time_s\":%.3f,\"event\":", t);
            hpm_json_string(iv->out, e->name);
            fprintf(iv->out,
                    ",\"delta\":%" PRIu64 ",\"rate_per_s\":%.6g,\"total\":%" PRIu64
                    ",\"state\":\"%s\",\"source\":\"modeled\"}\n",
                    d, rate, v, s->state == HPM_LIVE_RUNNING ? "running" : "ended");
            break;
        }
        e->last = v;
    }
    iv->last_ms = s->host_ms;
    fflush(iv->out);
}
