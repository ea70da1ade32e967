/* SPDX-License-Identifier: BSD-3-Clause */
/* count_report_walk.c - hpm count's report (count_report.h): the model built
 * once, then one walk over it with the writer of the format asked for
 * (count_report_writer.h). */
#include "report/count_report_writer.h"

static int walk(FILE *f, const struct count_report *r, const struct count_report_writer *w)
{
    struct count_report_model m;
    unsigned i;
    if (count_report_model_build(r, &m) != 0)
        return -1;
    w->begin(f, &m);
    w->part(f, &m, COUNT_PART_EVENTS);
    for (i = 0; i < m.n_events; i++)
        w->event(f, &m, i);
    w->part(f, &m, COUNT_PART_HOST);
    w->part(f, &m, COUNT_PART_METRICS);
    for (i = 0; i < m.n_metrics; i++)
        w->metric(f, &m, i);
    w->end(f, &m);
    count_report_model_free(&m);
    return ferror(f) ? -1 : 0;
}

int count_report_text(FILE *f, const struct count_report *r)
{
    return walk(f, r, &count_report_text_writer);
}

int count_report_json(FILE *f, const struct count_report *r)
{
    return walk(f, r, &count_report_json_writer);
}

int count_report_csv(FILE *f, const struct count_report *r)
{
    return walk(f, r, &count_report_csv_writer);
}
