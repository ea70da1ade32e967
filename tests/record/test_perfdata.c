/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_perfdata - the perf.data writer and reader (src/perfdata): a file
 * written with two events, comms, mappings (with their times) and samples
 * with call chains, data sources and weights reads back the same; the
 * data source encodes perf's fields (level, op, TLB); every truncation of it is refused or read without
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
    CHECK_EQ(perfdata_write_begin(&w, f, ev, 2, 4, argv, 2, PERFDATA_MEM), 0);
    CHECK_EQ(perfdata_write_comm(&w, 100, 100, 0, "prog"), 0);
    CHECK_EQ(perfdata_write_mmap(&w, 100, 100, 0, 0x400000, 0x2000, 0x1000, "/bin/prog"), 0);
    CHECK_EQ(perfdata_write_mmap(&w, 100, 100, 1500, 0x7f0000, 0x1000, 0, "/lib/b.so"), 0);
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
        s.weight = 105 * i + 1;
        s.data_src = perfdata_data_src(1 + (int)(i % 2), (int)i, (int)(i == 2));
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
    CHECK_EQ(pf.n_mmaps, 2u);
    if (pf.n_mmaps == 2) {
        CHECK_STR(pf.mmaps[0].path, "/bin/prog");
        CHECK_EQ(pf.mmaps[0].start, 0x400000u);
        CHECK_EQ(pf.mmaps[0].len, 0x2000u);
        CHECK_EQ(pf.mmaps[0].pgoff, 0x1000u);
        CHECK_EQ(pf.mmaps[0].time, 0u);
        CHECK_STR(pf.mmaps[1].path, "/lib/b.so");
        CHECK_EQ(pf.mmaps[1].time, 1500u);
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
        CHECK_EQ(r->weight, 105u * i + 1);
        CHECK_STR(perfdata_data_src_level(r->data_src), i == 0 ? "L1" : i == 1 ? "L2" : "L3");
        CHECK_STR(perfdata_data_src_op(r->data_src), i % 2 ? "store" : "load");
        CHECK_EQ(perfdata_data_src_tlb_miss(r->data_src), i == 2 ? 1 : 0);
        /* PERF_CONTEXT_USER, the ip, then the call sites */
        CHECK_EQ(r->n_chain, 2u + i);
        if (r->n_chain == 2 + i) {
            CHECK_EQ(r->chain[1], r->ip);
            if (i)
                CHECK_EQ(r->chain[2], chain[0]);
        }
    }
    perfdata_free(&pf);
    /* perf's own values (linux/perf_event.h): a DRAM load that missed the
     * TLB; a sample with no access */
    CHECK_EQ(perfdata_data_src(PERFDATA_OP_LOAD, 3, 1),
             (uint64_t)0x2 | (uint64_t)(0x80 | 0x02) << 5 | (uint64_t)0x01 << 19 |
                 (uint64_t)0x01 << 24 | (uint64_t)(0x04 | 0x08) << 26 | (uint64_t)0x0d << 33);
    CHECK_STR(perfdata_data_src_level(perfdata_data_src(PERFDATA_OP_LOAD, 3, 1)), "RAM");
    CHECK_STR(perfdata_data_src_level(perfdata_data_src(PERFDATA_OP_NA, 0, 0)), "-");
    CHECK_EQ(perfdata_data_src_tlb_miss(perfdata_data_src(PERFDATA_OP_NA, 0, 0)), -1);

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
