/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mkperf OUT OBJECT: a perf.data file of one sample whose code lies in a
 * mapping of OBJECT, the name a recording gives hpm report to symbolize
 * against (tests/hostile_input: a FIFO or a device named there).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "perfdata.h"

int main(int argc, char **argv)
{
    struct perfdata_writer w;
    struct perfdata_event ev;
    struct perfdata_sample s;
    const uint64_t chain[] = {0x400180};
    char *cmd[] = {"prog"};
    FILE *f;
    int rc;
    if (argc != 3) {
        fprintf(stderr, "usage: mkperf OUT OBJECT\n");
        return 2;
    }
    if (!(f = fopen(argv[1], "w+b"))) {
        perror(argv[1]);
        return 1;
    }
    memset(&ev, 0, sizeof ev);
    snprintf(ev.name, sizeof ev.name, "hpm:INSTRUCTIONS");
    ev.period = 1000;
    memset(&s, 0, sizeof s);
    s.ip = 0x400100;
    s.pid = s.tid = 42;
    s.period = 1000;
    s.n_chain = 1;
    s.chain = chain;
    rc = perfdata_write_begin(&w, f, &ev, 1, 1, cmd, 1, 0) || perfdata_write_comm(&w, 42, 42, 0, "prog") ||
         perfdata_write_mmap(&w, 42, 42, 0, 0x400000, 0x1000, 0, argv[2]) ||
         perfdata_write_sample(&w, &s) || perfdata_write_end(&w);
    if (fclose(f) != 0 || rc) {
        fprintf(stderr, "mkperf: cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
