/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_c2c.c - the profile's contended cache lines (vpmu_c2c.h): the node
 * model's table of lines that coherence moved between cores (which core
 * touched which bytes, its coherence misses and invalidations), written as
 * prof_c2c records with the data object of each line.
 *
 * A line's object is looked up when the records are written; a heap block
 * freed before then is remembered at its free, for the contended lines it
 * holds at that moment (the free of a counter array after the threads
 * joined is the common case).
 */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "model.h"
#include "vpmu_c2c.h"
#include "vpmu_format.h"
#include "vpmu_node.h"
#include "vpmu_profile.h"

/* A contended line whose heap block was freed: the block's object. */
struct freed_line {
    struct freed_line *next;
    UWord key; /* the line's address */
    Addr where, where2, start;
};
static VgHashTable *freed_lines;

static void note_freed(Addr line, Addr start, Addr where, Addr where2)
{
    struct freed_line *f;
    if (!freed_lines)
        freed_lines = VG_(HT_construct)("hpm.c2c.freed");
    f = VG_(HT_lookup)(freed_lines, (UWord)line);
    if (!f) {
        f = VG_(malloc)("hpm.c2c.freed", sizeof *f);
        f->key = (UWord)line;
        VG_(HT_add_node)(freed_lines, f);
    }
    /* the latest block there: the one whose accesses made the line's
     * masks most recently */
    f->where = where;
    f->where2 = where2;
    f->start = start;
}

void vpmu_c2c_init(void)
{
    vpmu_prof_sink_c2c(vpmu_c2c_heap_freed, vpmu_c2c_write);
}

void vpmu_c2c_heap_freed(Addr start, SizeT size, Addr where, Addr where2)
{
    static ULong line_bytes; /* the L1D's, from the first contended line */
    const struct hpm_hier *h = vpmu_node_hier();
    Addr first, last, l;
    UInt n;
    if (!h || (n = hpm_hier_coh_line_count(h, NULL)) == 0)
        return; /* most runs: no line was ever contended */
    if (!line_bytes) {
        struct hpm_coh_line e;
        if (hpm_hier_coh_line(h, 0, &e, NULL, NULL) != HPM_MODEL_OK)
            return;
        line_bytes = e.line_bytes;
    }
    first = start / line_bytes;
    last = (start + (size ? size : 1) - 1) / line_bytes;
    if (last - first + 1 <= (Addr)n * 4) {
        /* a small block: its lines looked up (a hash each) */
        for (l = first; l <= last; l++)
            if (hpm_hier_coh_line_find(h, (uint64_t)l * line_bytes) == 1)
                note_freed(l * line_bytes, start, where, where2);
    } else {
        /* a large one: the table's lines tested against it */
        uint64_t *addrs = VG_(malloc)("hpm.c2c.addrs", n * sizeof *addrs);
        UInt i, k = hpm_hier_coh_line_addrs(h, addrs);
        for (i = 0; i < k; i++)
            if (addrs[i] / line_bytes >= first && addrs[i] / line_bytes <= last)
                note_freed((Addr)addrs[i], start, where, where2);
        VG_(free)(addrs);
    }
}

static const HChar *const kind_names[] = {"heap", "global", "stack", "other"};

void vpmu_c2c_write(Out *o)
{
    const struct hpm_hier *h = vpmu_node_hier();
    UInt cores = vpmu_node_cores(), n, i, c;
    uint64_t dropped = 0;
    struct hpm_coh_line_core *pc;
    if (!h || hpm_hier_coh_line_find(h, 0) < 0)
        return; /* the node keeps no contended lines */
    n = hpm_hier_coh_line_count(h, &dropped);
    out_printf(o, VPMU_REC_PROF_C2C_LINES " %u %llu\n", n, (ULong)dropped);
    if (!n)
        return;
    pc = VG_(malloc)("hpm.c2c.cores", cores * sizeof *pc);
    for (i = 0; i < n; i++) {
        struct hpm_coh_line e;
        ULong touched = 0;
        Addr a, where = 0, where2 = 0, start = 0;
        UInt kind = 3, obj = 0, b = 0;
        const struct freed_line *f;
        if (hpm_hier_coh_line(h, i, &e, NULL, NULL) != HPM_MODEL_OK ||
            hpm_hier_coh_line_cores(h, i, pc) != HPM_MODEL_OK)
            break;
        for (c = 0; c < cores; c++)
            touched |= pc[c].read | pc[c].written;
        while (b < 63 && !(touched >> b & 1))
            b++;
        a = (Addr)e.addr + (Addr)b * e.granule;
        f = freed_lines ? VG_(HT_lookup)(freed_lines, (UWord)e.addr) : NULL;
        if (vpmu_prof_heap_block(a, &start, &where, &where2)) {
            kind = 0;
        } else if (f) {
            kind = 0;
            where = f->where;
            where2 = f->where2;
            start = f->start;
        } else {
            vpmu_prof_data_object_any(a, &kind, &where, &where2, &obj);
            if (kind == 1)
                where = a; /* the byte whose variable the reader names */
            else if (kind > 1)
                where = where2 = 0;
        }
        out_printf(o, VPMU_REC_PROF_C2C " %llx %u %u %llu %llu %s %lx %lx %u %lx\n",
                   (ULong)e.addr, e.line_bytes, e.granule, (ULong)e.coh_misses,
                   (ULong)e.invalidations, kind_names[kind & 3], where, where2, obj, start);
        for (c = 0; c < cores; c++)
            if (pc[c].read | pc[c].written | pc[c].coh_misses | pc[c].invalidations)
                out_printf(o, VPMU_REC_PROF_C2C_CORE " %llx %u %llx %llx %llu %llu %llu\n",
                           (ULong)e.addr, c, (ULong)pc[c].read, (ULong)pc[c].written,
                           (ULong)pc[c].coh_misses, (ULong)pc[c].true_misses,
                           (ULong)pc[c].invalidations);
    }
    VG_(free)(pc);
}
