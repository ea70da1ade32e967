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
 *
 * Every run on such a node, profiled or not, also writes the summary hpm
 * count reports (shared_lines, shared_line): how many lines the cores
 * shared, and the top ones with their verdict and data object, named here
 * from Valgrind's debug information (hpm count symbolizes nothing).
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "model.h"
#include "vpmu_c2c.h"
#include "vpmu_format.h"
#include "vpmu_node.h"
#include "vpmu_profile.h"
#include "vpmu_tool.h"

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

/* ------------------------------------------------ shared lines (hpm count) */

#define SHARED_TOP 16 /* lines listed, most coherence misses first */

/* A line's verdict, as the c2c view gives it: what most of its misses
 * were; a line only invalidated, never missed again, by its bytes. */
static Bool line_true_sharing(const struct hpm_coh_line *e, const struct hpm_coh_line_core *pc,
                              UInt cores)
{
    ULong true_misses = 0;
    UInt c;
    for (c = 0; c < cores; c++)
        true_misses += pc[c].true_misses;
    return e->coh_misses ? true_misses * 2 > e->coh_misses : e->true_sharing != 0;
}

/* The data object holding a, in words (the rest of a shared_line record):
 * a heap block where the profile follows the allocator, else a thread's
 * stack, a variable the debug information names, a file's mapping or
 * anonymous memory. */
static void shared_object(Addr line, Addr a, HChar *buf, Int len)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *name, *file = NULL;
    PtrdiffT off;
    Addr start = 0, where = 0, where2 = 0;
    ThreadId tid;
    const struct freed_line *f = freed_lines ? VG_(HT_lookup)(freed_lines, (UWord)line) : NULL;
    if ((vpmu_state.on.profile && vpmu_prof_heap_block(a, &start, &where, &where2)) || f) {
        UInt ln = 0;
        if (!start && f) {
            start = f->start;
            where = f->where;
        }
        if (!VG_(get_fnname)(ep, where, &name))
            name = "?";
        VG_(get_filename)(ep, where, &file);
        VG_(get_linenum)(ep, where, &ln);
        VG_(snprintf)(buf, len, "heap block from %s (%s:%u) + %lu", name, file ? file : "?", ln,
                      (UWord)(a - start));
        return;
    }
    for (tid = 1; tid < VG_N_THREADS; tid++)
        if (VG_(is_valid_tid)(tid) && a < VG_(thread_get_stack_max)(tid) &&
            a >= VG_(thread_get_stack_max)(tid) - VG_(thread_get_stack_size)(tid)) {
            VG_(snprintf)(buf, len, "stack");
            return;
        }
    VG_(get_objname)(ep, a, &file);
    if (VG_(get_datasym_and_offset)(ep, a, &name, &off))
        VG_(snprintf)(buf, len, "global %s + %ld (%s)", name, (Word)off,
                      file ? VG_(basename)(file) : "?");
    else if (file)
        VG_(snprintf)(buf, len, "data of %s", VG_(basename)(file));
    else
        VG_(snprintf)(buf, len, "anonymous memory (heap or mmap)");
}

/* How many cores wrote bytes of the line pc describes. */
static UInt line_writers(const struct hpm_coh_line_core *pc, UInt cores)
{
    UInt c, writers = 0;
    for (c = 0; c < cores; c++)
        writers += pc[c].written != 0;
    return writers;
}

/* Whether line x goes before line y in the list: more coherence misses,
 * more invalidations, then by address (the table's order is its hash's). */
static Bool line_before(const struct hpm_coh_line *x, const struct hpm_coh_line *y)
{
    if (x->coh_misses != y->coh_misses)
        return x->coh_misses > y->coh_misses;
    if (x->invalidations != y->invalidations)
        return x->invalidations > y->invalidations;
    return x->addr < y->addr;
}

/* One shared_line record: line i of the table. */
static void write_shared_line(Out *o, const struct hpm_hier *h, UInt i,
                              struct hpm_coh_line_core *pc, UInt cores)
{
    struct hpm_coh_line e;
    ULong touched = 0;
    UInt c, b = 0;
    HChar object[256];
    hpm_hier_coh_line(h, i, &e, NULL, NULL);
    hpm_hier_coh_line_cores(h, i, pc);
    for (c = 0; c < cores; c++)
        touched |= pc[c].read | pc[c].written;
    while (b < 63 && !(touched >> b & 1))
        b++;
    shared_object((Addr)e.addr, (Addr)e.addr + (Addr)b * e.granule, object, sizeof object);
    for (c = 0; object[c]; c++)
        if (object[c] == '\n')
            object[c] = ' '; /* one record per line, whatever a name holds */
    out_printf(o, VPMU_REC_SHARED_LINE " %llx %u %llu %llu %u %s %s\n", (ULong)e.addr,
               e.line_bytes, (ULong)e.coh_misses, (ULong)e.invalidations,
               line_writers(pc, cores), line_true_sharing(&e, pc, cores) ? "true" : "false",
               object);
}

void vpmu_c2c_write_shared(Out *o)
{
    const struct hpm_hier *h = vpmu_node_hier();
    UInt cores = vpmu_node_cores(), n, i, k, top[SHARED_TOP], n_top = 0, written = 0;
    uint64_t dropped = 0;
    struct hpm_coh_line_core *pc;
    struct hpm_coh_line e, t;
    if (!h || hpm_hier_coh_line_find(h, 0) < 0)
        return; /* the node keeps no contended lines */
    n = hpm_hier_coh_line_count(h, &dropped);
    if (!n && !dropped)
        return;
    pc = VG_(malloc)("hpm.c2c.cores", cores * sizeof *pc);
    for (i = 0; i < n && hpm_hier_coh_line(h, i, &e, NULL, NULL) == HPM_MODEL_OK; i++) {
        hpm_hier_coh_line_cores(h, i, pc);
        written += line_writers(pc, cores) > 1;
        /* insertion into the top lines, the last one falling off */
        for (k = n_top; k > 0; k--) {
            hpm_hier_coh_line(h, top[k - 1], &t, NULL, NULL);
            if (line_before(&t, &e))
                break;
            if (k < SHARED_TOP)
                top[k] = top[k - 1];
        }
        if (k < SHARED_TOP) {
            top[k] = i;
            n_top += n_top < SHARED_TOP;
        }
    }
    out_printf(o, VPMU_REC_SHARED_LINES " %u %llu %u\n", n, (ULong)dropped, written);
    for (k = 0; k < n_top; k++)
        write_shared_line(o, h, top[k], pc, cores);
    VG_(free)(pc);
}
