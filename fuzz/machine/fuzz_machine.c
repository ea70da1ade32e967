/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the machine-file parser, then (when it accepts) the
 * models built from what it produced, so that every accepted file is known
 * to give models that build and run. */
#include "machine.h"
#include "machine_wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STORAGE (16u << 20)

static void *alloc8(size_t n) { return n && n <= MAX_STORAGE ? aligned_alloc(8, (n + 7) & ~(size_t)7) : NULL; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hpm_machine m;
    char err[160];
    int rc = hpm_machine_parse(&m, (const char *)data, size, "fuzz.machine", err, sizeof err);
    if (memchr(err, 0, sizeof err) == NULL)
        abort(); /* message must be terminated */
    if (rc != HPM_MACHINE_OK)
        return 0;
    {
        /* a parsed machine survives the trip to the Valgrind tool intact */
        struct hpm_machine back;
        size_t wn = hpm_machine_wire_size();
        char *wire = malloc(wn);
        if (!wire || hpm_machine_wire_encode(&m, wire, wn) == 0 ||
            hpm_machine_wire_decode(&back, wire) != 0 || memcmp(&m, &back, sizeof m) != 0)
            abort();
        wire[wn / 2] = '\0'; /* and a truncated encoding is refused */
        if (hpm_machine_wire_decode(&back, wire) == 0)
            abort();
        free(wire);
    }
    {
        struct hpm_hier *h;
        struct hpm_tlb *t;
        struct hpm_bpred *b;
        size_t hn = hpm_hier_storage_size(&m.hier), tn = hpm_tlb_storage_size(&m.dtlb),
               bn = hpm_bpred_storage_size(&m.branch);
        void *hm = alloc8(hn), *tm = alloc8(tn), *bm = alloc8(bn);
        uint64_t x = 0x9e3779b97f4a7c15ull ^ size;
        unsigned i;
        if (hn == 0 || tn == 0 || bn == 0)
            abort(); /* the parser accepted parameters the models reject */
        if (hm && hpm_hier_init(&h, &m.hier, hm, hn) == HPM_MODEL_OK &&
            tm && hpm_tlb_init(&t, &m.dtlb, tm, tn) == HPM_MODEL_OK &&
            bm && hpm_bpred_init(&b, &m.branch, bm, bn) == HPM_MODEL_OK) {
            for (i = 0; i < 512; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                hpm_hier_access(h, (uint32_t)(x % m.hier.cores), (int)(x >> 20) % 3,
                                (i & 1) ? x >> 24 : 4096u * i, 1u + (uint32_t)(x >> 58));
                hpm_tlb_access(t, x >> 30, 8);
                hpm_bpred_cond(b, x & 0xfff, (int)(x >> 63));
                if ((i & 15) == 0) {
                    hpm_bpred_call(b, i);
                    hpm_bpred_return(b, i);
                    hpm_bpred_indirect(b, x & 0xff, x >> 40);
                }
            }
        }
        free(hm);
        free(tm);
        free(bm);
    }
    return 0;
}
