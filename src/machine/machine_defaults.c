/* SPDX-License-Identifier: BSD-3-Clause */
/* machine_defaults.c - the default machine (freestanding: the vpmu tool uses it
 * when hpm passes no --hpm-machine). Values: machines/README.md. */
#include "machine.h"

static void copy(char *dst, const char *src)
{
    while ((*dst++ = *src++) != 0)
        ;
}

void hpm_machine_defaults(struct hpm_machine *m)
{
    static const struct hpm_cache_params l1 = {32768, 8, 64, HPM_REPL_LRU, 0, 0};
    unsigned i;
    unsigned char *b = (unsigned char *)m;
    for (i = 0; i < sizeof *m; i++) /* also the padding: wire encodings compare equal */
        b[i] = 0;
    copy(m->name, "default");
    copy(m->memory_type, "DDR");
    m->frequency_hz = 1000000000u;
    m->memory_bytes = (uint64_t)4 << 30;
    /* no network unless [torus] sets one; BG/P's packet and link when it does */
    copy(m->torus.mapping, "XYZ");
    m->torus.packet_bytes = 256;
    m->torus.link_bytes_per_s = 425000000u;
    m->hier.cores = 1;
    m->hier.l1i = l1;
    m->hier.l1d = l1;
    m->hier.l2 = (struct hpm_cache_params){256u << 10, 8, 64, HPM_REPL_LRU, 0, 0};
    m->hier.l3 = (struct hpm_cache_params){8u << 20, 16, 64, HPM_REPL_LRU, 0, 1};
    m->hier.prefetch = (struct hpm_prefetch_params){0, 2};
    m->itlb = (struct hpm_tlb_params){64, 0, 4096};
    m->dtlb = m->itlb;
    m->branch = (struct hpm_bpred_params){12, 4096, 512, 4, 16};
    for (i = 0; i < HPM_IC_COUNT; i++)
        m->timing.cpi_milli[i] = 1000;
    m->timing.l2_latency = 10;
    m->timing.l3_latency = 40;
    m->timing.memory_latency = 200;
    m->timing.tlb_miss = 30;
    m->timing.mispredict = 15;
    m->timing.prefetch_latency = 40;
    /* BG/P's UPC: 256 counters, each selecting its own input; as many units
     * as the events need */
    m->counter_unit.units = 0;
    m->counter_unit.counters = 256;
    m->counter_unit.group = 1;
}

