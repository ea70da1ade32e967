/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_perfdata - the perf.data writer and reader (src/perfdata): a file
 * written with two events, comms, mappings and samples with call chains
 * reads back the same; every truncation of it is refused or read without
 * going out of the buffer (ASan in the sanitizer build).
 */
#include <stdlib.h>
#include <string.h>

#include "hpm_check.h"
#include "perfdata.h"

int main(void)
{
    struct perfdata_event ev[2];
    struct perfdata_writer w;
    struct perfdata_file pf;
    struct perfdata_sample s;
    uint64_t chain[3] = {0x401100, 0x401200, 0x401300};
    char *argv[] = {"prog", "arg"};
    unsigned char *buf;
    char err[200];
    long len;
    size_t cut;
    FILE *f = tmpfile();
    unsigned i;

    CHECK(f != NULL);
    if (!f)
        return 1;
    memset(ev, 0, sizeof ev);
    strcpy(ev[0].name, "hpm:L1D_MISSES");
    ev[0].config = 40;
    ev[0].period = 1000;
    strcpy(ev[1].name, "hpm:LOADS");
    ev[1].config = 2;
    ev[1].period = 7;
    CHECK_EQ(perfdata_write_begin(&w, f, ev, 2, 4, argv, 2), 0);
    CHECK_EQ(perfdata_write_comm(&w, 100, 100, "prog"), 0);
    CHECK_EQ(perfdata_write_mmap(&w, 100, 100, 0x400000, 0x2000, 0x1000, "/bin/prog"), 0);
    for (i = 0; i < 3; i++) {
        memset(&s, 0, sizeof s);
        s.event = i % 2;
        s.ip = 0x401000 + i;
        s.addr = 0x600000 + 64 * i;
        s.time = 1000 * i;
        s.period = ev[i % 2].period;
        s.pid = 100;
        s.tid = 100 + i;
        s.cpu = i;
        s.chain = chain;
        s.n_chain = i;
        CHECK_EQ(perfdata_write_sample(&w, &s), 0);
    }
    CHECK_EQ(perfdata_write_end(&w), 0);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    CHECK(len > 0);
    buf = malloc((size_t)len);
    rewind(f);
    CHECK_EQ(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);

    CHECK_EQ(perfdata_read(buf, (size_t)len, &pf, err, sizeof err), 0);
    CHECK_EQ(pf.n_events, 2u);
    CHECK_STR(pf.names[0], "hpm:L1D_MISSES");
    CHECK_STR(pf.names[1], "hpm:LOADS");
    CHECK_EQ(pf.n_comms, 1u);
    CHECK_EQ(pf.n_mmaps, 1u);
    if (pf.n_mmaps == 1) {
        CHECK_STR(pf.mmaps[0].path, "/bin/prog");
        CHECK_EQ(pf.mmaps[0].start, 0x400000u);
        CHECK_EQ(pf.mmaps[0].len, 0x2000u);
        CHECK_EQ(pf.mmaps[0].pgoff, 0x1000u);
    }
    CHECK_EQ(pf.n_samples, 3u);
    for (i = 0; i < pf.n_samples && i < 3; i++) {
        const struct perfdata_sample *r = &pf.samples[i];
        CHECK_EQ(r->event, i % 2);
        CHECK_EQ(r->ip, 0x401000u + i);
        CHECK_EQ(r->addr, 0x600000u + 64 * i);
        CHECK_EQ(r->time, 1000u * i);
        CHECK_EQ(r->tid, 100u + i);
        CHECK_EQ(r->cpu, i);
        CHECK_EQ(r->period, ev[i % 2].period);
        /* PERF_CONTEXT_USER, the ip, then the call sites */
        CHECK_EQ(r->n_chain, 2u + i);
        if (r->n_chain == 2 + i) {
            CHECK_EQ(r->chain[1], r->ip);
            if (i)
                CHECK_EQ(r->chain[2], chain[0]);
        }
    }
    perfdata_free(&pf);

    for (cut = 0; cut < (size_t)len; cut++) {
        unsigned char *t = malloc(cut ? cut : 1);
        memcpy(t, buf, cut);
        if (perfdata_read(t, cut, &pf, err, sizeof err) == 0)
            perfdata_free(&pf);
        free(t);
    }
    buf[0] ^= 1;
    CHECK(perfdata_read(buf, (size_t)len, &pf, err, sizeof err) != 0);
    CHECK(strstr(err, "PERFILE2") != NULL);
    free(buf);
    return failures ? 1 : 0;
}
