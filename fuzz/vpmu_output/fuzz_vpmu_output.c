/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the virtual PMU output parser (tools/hpm/report/vpmu_output.c),
 * then, for every file it accepts, the three reports of hpm count on what it
 * read, so that no accepted file can crash or corrupt a report. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/count_report.h"
#include "report/vpmu_output.h"

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct vpmu_output o;
    char err[160];
    int rc;
    memset(err, 'x', sizeof err);
    rc = vpmu_output_parse(&o, (const char *)data, size, err, sizeof err);
    if (memchr(err, 0, sizeof err) == NULL)
        abort(); /* the message must be terminated */
    if (rc != 0 && err[0] == 0)
        abort(); /* every error says what is wrong */
    if (rc == 0) {
        static struct count_row rows[HPM_K_COUNT * HPM_CAT_MAX_CORES];
        struct count_report r;
        if (!sink)
            sink = fopen("/dev/null", "w");
        memset(&r, 0, sizeof r);
        r.out = &o;
        r.rows = rows;
        r.n_rows = count_rows_from_output(&o, rows, sizeof rows / sizeof rows[0]);
        r.per_core = r.per_thread = 1;
        r.exit_signal = o.exit_kind == VPMU_EXIT_SIGNAL ? o.exit_value : 0;
        if (sink && (count_report_text(sink, &r) != 0 || count_report_json(sink, &r) != 0 ||
                     count_report_csv(sink, &r) != 0))
            abort();
    }
    vpmu_output_free(&o);
    return 0;
}
