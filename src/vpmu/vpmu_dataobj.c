/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_dataobj.c - a profile's data objects: where the data accesses that
 * missed went (heap blocks by allocation site, a global's line, the stacks,
 * other memory), found through a line cache in front of the heap's tree and
 * the mappings; and the table of mapped files (objects) that names globals
 * here and code in the profile. The node hands it every access that
 * reaches the models (the data sink, registered by vpmu_prof_init); the
 * profile tells it what the allocator did, which it sees through the call
 * graph (vpmu_dataobj.h). It calls no other part of the profile.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"

#include "vpmu_state.h"
#include "vpmu_dataobj.h"
#include "vpmu_tool.h"

struct obj *objs;
UInt n_objs;
static UInt cap_objs;

/* The file mapping that holds a: one object per mapping, found once per
 * cost center (at translation, while the code is surely mapped). */
UInt vpmu_obj_of(Addr a)
{
    NSegment const *seg = VG_(am_find_nsegment)(a);
    const HChar *path;
    UInt i;
    if (!seg || seg->kind != SkFileC)
        return 0; /* 0: no file (JIT code, the stack, vdso) */
    for (i = 1; i < n_objs; i++)
        if (objs[i].start == seg->start && objs[i].end == seg->end && !objs[i].dead)
            return i;
    path = VG_(am_get_filename)(seg);
    if (n_objs == cap_objs) {
        cap_objs = cap_objs ? 2 * cap_objs : 16;
        objs = VG_(realloc)("hpm.prof.objs", objs, cap_objs * sizeof *objs);
        if (n_objs == 0) {
            objs[0].start = objs[0].end = 0;
            objs[0].offset = 0;
            objs[0].path = NULL;
            n_objs = 1;
        }
    }
    objs[n_objs].start = seg->start;
    objs[n_objs].end = seg->end;
    objs[n_objs].offset = (ULong)seg->offset;
    objs[n_objs].path = VG_(strdup)("hpm.prof.path", path ? path : "?");
    objs[n_objs].bss_end = 0;
    objs[n_objs].dead = False;
    return n_objs++;
}

/* ------------------------------------------------------------------------
 * Data objects: where the data accesses that missed went
 * ---------------------------------------------------------------------- */

/* A data object: heap blocks by allocation site, a global's cache line (the
 * host names its symbol), the stacks, anything else. Its raw statistics
 * are those of the data accesses to it that did not hit the L1 (an L1 hit
 * changes nothing but its access counters): misses, write-backs, prefetches,
 * TLB misses, traffic below. */
const HChar *const dobj_names[] = {"heap", "global", "stack", "other"};

static VgHashTable *dobj_table;
struct dobj *all_dobjs;
OSet *heap_blocks;
/* The blocks found last, newest first: a loop over a few arrays (a matrix
 * product's three) alternates between them at every miss. */
#define N_RECENT_BLOCKS 4
static struct hblock *recent_blocks[N_RECENT_BLOCKS];

/* The data object of a 64-byte line, remembered: a direct-mapped cache in
 * front of the look-ups below (heap blocks, the stack, the mappings and
 * their .bss, the line's global). A Python profile looks up millions of
 * misses into its arenas, each through the heap's tree and three mapping
 * look-ups, to find "other" memory. Only a whole line's answer is kept:
 * a line that a heap block shares with other memory is looked up each
 * time. Lines of a block are forgotten when the block comes or goes, and
 * every line when the address space or the debug information changes. */
#define LINE_CACHE_BITS 14
struct line_slot {
    Addr line; /* a >> 6, plus 1: 0 is an empty slot */
    ULong *raw;
};
static struct line_slot line_cache[1u << LINE_CACHE_BITS];

/* The contended lines' part (vpmu_prof_sink_c2c): told of freed blocks. */
static vpmu_prof_heap_freed_sink c2c_heap_freed;

void vpmu_dobj_sink_heap_freed(vpmu_prof_heap_freed_sink freed)
{
    c2c_heap_freed = freed;
}

void vpmu_dobjs_init(void)
{
    dobj_table = VG_(HT_construct)("hpm.prof.dobj");
    heap_blocks = VG_(OSetGen_Create)(offsetof(struct hblock, start), NULL, VG_(malloc),
                                      "hpm.prof.blocks", VG_(free));
}

/* key: the allocation site (heap), the 64-byte line (global); where: the
 * site, or the line's first address that missed (the host names the
 * variable holding it: a line two variables share goes to the first) */
struct dobj *vpmu_dobj_get2(UInt kind, Addr key_addr, Addr where, Addr where2, UInt obj)
{
    UWord key = (((UWord)key_addr ^ ((UWord)where2 * 0x9E3779B97F4A7C15ULL)) << 2) | kind;
    struct dobj *d = VG_(HT_lookup)(dobj_table, key);
    while (d && (d->key != key || d->kind != kind || (kind == DOBJ_HEAP && (d->where != where || d->where2 != where2)) ||
                 (kind == DOBJ_GLOBAL && d->obj != obj)))
        d = d->next; /* equal keys: rare */
    if (d)
        return d;
    d = VG_(calloc)("hpm.prof.dobj", 1, sizeof *d);
    d->key = key;
    d->kind = kind;
    d->where = where;
    d->where2 = where2;
    d->obj = obj;
    d->all = all_dobjs;
    all_dobjs = d;
    VG_(HT_add_node)(dobj_table, d);
    return d;
}

static struct dobj *dobj_get(UInt kind, Addr key_addr, Addr where, UInt obj)
{
    return vpmu_dobj_get2(kind, key_addr, where, 0, obj);
}

/* The stack and other memory are one object each: no hash look-up for
 * them (a Python profile's arenas are a million misses of other memory). */
static struct dobj *stack_dobj, *other_dobj;

static struct dobj *dobj_one(UInt kind, struct dobj **d)
{
    if (!*d)
        *d = dobj_get(kind, 0, 0, 0);
    return *d;
}

static Word cmp_in_block(const void *key, const void *elem)
{
    Addr a = *(const Addr *)key;
    const struct hblock *b = elem;
    if (a < b->start)
        return -1;
    return a >= b->start + (b->size ? b->size : 1) ? 1 : 0;
}

static inline struct line_slot *line_slot_of(Addr line)
{
    return &line_cache[(line ^ (line >> LINE_CACHE_BITS)) & ((1u << LINE_CACHE_BITS) - 1)];
}

/* Other memory by mapping: a mapping (past any .bss) that holds no heap
 * block is other memory wherever it is not the running thread's stack, so
 * one range answers for all its lines. Python's arenas are such mappings:
 * their lines, first touched, would each miss the line cache. */
#define N_OTHER_RANGES 8
struct other_range {
    Addr lo, hi; /* [lo, hi); lo == hi: empty */
};
static struct other_range other_ranges[N_OTHER_RANGES];
static UInt other_next;

/* Whether two blocks in heap_blocks ever overlapped (one the program
 * freed without our seeing it): look-ups by range in the tree (ordered by
 * start) are then no longer sure to find every block in a range, and
 * other memory is no longer remembered by the gaps between blocks (the
 * answers stay those of the look-ups, as they always were). */
static Bool heap_overlapped;

/* [lo, hi) is other memory: a range of its own, or the lower end of one
 * up to the same hi (both run from where they start to the same heap block
 * or end of mapping, with no block in either: their union has none; sure
 * only while the blocks never overlapped) */
static void other_range_add(Addr lo, Addr hi)
{
    UInt i;
    for (i = 0; i < N_OTHER_RANGES && !heap_overlapped; i++)
        if (other_ranges[i].hi == hi && other_ranges[i].lo < hi) {
            if (lo < other_ranges[i].lo)
                other_ranges[i].lo = lo;
            return;
        }
    other_ranges[other_next] = (struct other_range){lo, hi};
    other_next = (other_next + 1) % N_OTHER_RANGES;
}

void vpmu_prof_memory_changed(void)
{
    VG_(memset)(line_cache, 0, sizeof line_cache);
    VG_(memset)(other_ranges, 0, sizeof other_ranges);
}

/* A heap block [start, start + size) came or went: its lines' answers,
 * and the other-memory ranges it falls in. */
static void line_cache_forget(Addr start, SizeT size)
{
    Addr l, first = start >> 6, last = (start + (size ? size : 1) - 1) >> 6;
    UInt i;
    for (i = 0; i < N_OTHER_RANGES; i++)
        if (start < other_ranges[i].hi && start + (size ? size : 1) > other_ranges[i].lo)
            other_ranges[i].lo = other_ranges[i].hi = 0;
    if (last - first >= (1u << LINE_CACHE_BITS)) {
        vpmu_prof_memory_changed();
        return;
    }
    for (l = first; l <= last; l++) {
        struct line_slot *sl = line_slot_of(l);
        if (sl->line == l + 1)
            sl->line = 0;
    }
}

void vpmu_heap_remove(Addr p)
{
    struct hblock *b;
    if (!p)
        return;
    b = VG_(OSetGen_Remove)(heap_blocks, &p);
    if (b) {
        UInt i;
        if (c2c_heap_freed)
            c2c_heap_freed(b->start, b->size, b->d->where, b->d->where2);
        for (i = 0; i < N_RECENT_BLOCKS; i++)
            if (recent_blocks[i] == b)
                recent_blocks[i] = NULL;
        line_cache_forget(b->start, b->size);
        VG_(OSetGen_FreeNode)(heap_blocks, b);
    }
}

/* A range of addresses [lo, hi) against a heap block: 0 when they
 * overlap (the tree's order holds while blocks do not overlap each other:
 * heap_overlapped). */
struct addr_range {
    Addr lo, hi;
};

static Word cmp_range_block(const void *key, const void *elem)
{
    const struct addr_range *r = key;
    const struct hblock *b = elem;
    if (r->hi <= b->start)
        return -1;
    return r->lo >= b->start + (b->size ? b->size : 1) ? 1 : 0;
}

void vpmu_heap_insert(Addr p, SizeT size, struct dobj *d)
{
    struct hblock *b;
    if (!p)
        return;
    vpmu_heap_remove(p); /* a block the program freed without our seeing it */
    if (!heap_overlapped) {
        struct addr_range r = {p, p + (size ? size : 1)};
        heap_overlapped = VG_(OSetGen_LookupWithCmp)(heap_blocks, &r, cmp_range_block) != NULL;
    }
    b = VG_(OSetGen_AllocNode)(heap_blocks, sizeof *b);
    b->start = p;
    b->size = size;
    b->d = d;
    VG_(OSetGen_Insert)(heap_blocks, b);
    line_cache_forget(p, size);
    d->blocks++;
    d->bytes += size;
}

/* Moves when Valgrind reads a file's debug information (a file mapping
 * with a handle, vpmu_prof_debuginfo_read): an object whose .bss was not
 * found is asked again then, in case its information came after. */
static UInt di_gen;

void vpmu_prof_debuginfo_read(void)
{
    di_gen++;
    vpmu_prof_memory_changed(); /* a .bss may end elsewhere now */
}

/* Where object o's .bss ends, when it continues past its file mapping
 * into anonymous memory (Valgrind's debug information of the file: its
 * .bss section), else the mapping's end: nothing beyond is its data.
 * Found once per object (once per di_gen while not found). */
static Addr bss_end(UInt o)
{
    const DebugInfo *di;
    struct obj *ob = &objs[o];
    if (ob->bss_end && (ob->bss_end != ob->end + 1 || ob->bss_di_gen == di_gen))
        return ob->bss_end;
    ob->bss_end = ob->end + 1;
    ob->bss_di_gen = di_gen;
    for (di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
        Addr b = VG_(DebugInfo_get_bss_avma)(di);
        SizeT n = VG_(DebugInfo_get_bss_size)(di);
        const HChar *f = VG_(DebugInfo_get_filename)(di);
        if (n > 0 && b <= ob->end + 1 && b + n > ob->end + 1 && f &&
            VG_(strcmp)(f, ob->path) == 0) {
            ob->bss_end = b + n;
            break;
        }
    }
    return ob->bss_end;
}

/* Where a goes when it is in no heap block and not on the running
 * thread's stack: its mapping's global line, else other memory. Other
 * memory also gives the part of its mapping [*lo, *hi) that is other
 * memory too, heap blocks aside (*lo == *hi: none known). */
static ULong *data_raw_mapped(Addr a, Addr *lo, Addr *hi)
{
    NSegment const *seg = VG_(am_find_nsegment)(a);
    *lo = *hi = 0;
    if (seg && seg->kind == SkAnonC && seg->start > 0) {
        /* a .bss beyond the file: named by the mapping before it, up to
         * the end of its .bss; what lies beyond (the brk heap, anonymous
         * mmaps such as Python's arenas, placed after whatever file came
         * before) is other memory */
        NSegment const *before = VG_(am_find_nsegment)(seg->start - 1);
        *lo = seg->start;
        if (before && before->kind == SkFileC) {
            UInt o = vpmu_obj_of(before->start);
            Addr end = bss_end(o);
            if (a < end) {
                *lo = *hi = 0;
                return dobj_get(DOBJ_GLOBAL, a & ~(Addr)63, a, o)->raw;
            }
            if (end > *lo)
                *lo = end;
        }
        *hi = seg->end + 1;
    } else if (seg && seg->kind == SkFileC) {
        return dobj_get(DOBJ_GLOBAL, a & ~(Addr)63, a, vpmu_obj_of(a))->raw;
    } else if (seg) {
        *lo = seg->start;
        *hi = seg->end + 1;
    }
    return dobj_one(DOBJ_OTHER, &other_dobj)->raw;
}

void vpmu_prof_data_prefetch(Addr a)
{
    __builtin_prefetch(line_slot_of(a >> 6), 1);
}

ULong *vpmu_prof_data_raw(Addr a)
{
    struct hblock *b;
    struct line_slot *sl;
    struct addr_range line, range;
    ThreadId tid;
    ULong *raw;
    UInt i;
    for (i = 0; i < N_RECENT_BLOCKS; i++) {
        b = recent_blocks[i];
        if (b && a >= b->start && a < b->start + (b->size ? b->size : 1))
            return b->d->raw;
    }
    /* the stack first: which stack is the running thread's, so its
     * answer is not the line's alone (no heap block is on a stack) */
    tid = VG_(get_running_tid)();
    if (tid < VG_N_THREADS && a < VG_(thread_get_stack_max)(tid) &&
        a >= VG_(thread_get_stack_max)(tid) - VG_(thread_get_stack_size)(tid))
        return dobj_one(DOBJ_STACK, &stack_dobj)->raw;
    sl = line_slot_of(a >> 6);
    if (sl->line == (a >> 6) + 1)
        return sl->raw;
    for (i = 0; i < N_OTHER_RANGES; i++)
        if (a >= other_ranges[i].lo && a < other_ranges[i].hi) {
            raw = dobj_one(DOBJ_OTHER, &other_dobj)->raw;
            goto line_answer;
        }
    line.lo = a & ~(Addr)63;
    line.hi = line.lo + 64;
    b = VG_(OSetGen_LookupWithCmp)(heap_blocks, &line, cmp_range_block);
    if (b) {
        /* a heap block on the line: the answer is the line's only when the
         * block covers it */
        if (a < b->start || a >= b->start + (b->size ? b->size : 1))
            b = VG_(OSetGen_LookupWithCmp)(heap_blocks, &a, cmp_in_block);
        if (!b)
            return data_raw_mapped(a, &range.lo, &range.hi);
        for (i = N_RECENT_BLOCKS - 1; i > 0; i--)
            recent_blocks[i] = recent_blocks[i - 1];
        recent_blocks[0] = b;
        if (b->start <= line.lo && b->start + b->size >= line.hi) {
            sl->line = (a >> 6) + 1;
            sl->raw = b->d->raw;
        }
        return b->d->raw;
    }
    raw = data_raw_mapped(a, &range.lo, &range.hi);
    if (range.lo < range.hi &&
        !VG_(OSetGen_LookupWithCmp)(heap_blocks, &range, cmp_range_block)) {
        other_range_add(range.lo, range.hi);
    } else if (range.lo < range.hi && !heap_overlapped) {
        /* heap blocks in the mapping too: the lines from a's up to the
         * next block's (none is on a's line) are other memory, whole (a
         * range's answer is remembered for the line: one that a block
         * shares with other memory is looked up each time). Python keeps
         * its arenas among the big blocks malloc maps: a range of the
         * whole mapping was never kept, and each line's first miss took
         * the slow path (most of a short script's 637k). */
        struct hblock *next;
        VG_(OSetGen_ResetIterAt)(heap_blocks, &a);
        next = VG_(OSetGen_Next)(heap_blocks);
        if (line.lo > range.lo)
            range.lo = line.lo;
        if (next && (next->start & ~(Addr)63) < range.hi)
            range.hi = next->start & ~(Addr)63;
        other_range_add(range.lo, range.hi);
    }
line_answer:
    sl->line = (a >> 6) + 1;
    sl->raw = raw;
    return raw;
}

void vpmu_prof_data_object(Addr a, const ULong *raw, UInt *kind, Addr *where, Addr *where2,
                           UInt *obj)
{
    /* every answer of vpmu_prof_data_raw is a data object's raw vector */
    const struct dobj *d =
        (const struct dobj *)((const HChar *)(raw ? raw : vpmu_prof_data_raw(a)) -
                              offsetof(struct dobj, raw));
    *kind = d->kind;
    *where = d->where;
    *where2 = d->where2;
    *obj = d->obj;
}

Bool vpmu_prof_heap_block(Addr a, Addr *start, Addr *where, Addr *where2)
{
    const struct hblock *b = VG_(OSetGen_LookupWithCmp)(heap_blocks, &a, cmp_in_block);
    if (!b)
        return False;
    *start = b->start;
    *where = b->d->where;
    *where2 = b->d->where2;
    return True;
}

void vpmu_prof_data_object_any(Addr a, UInt *kind, Addr *where, Addr *where2, UInt *obj)
{
    const struct dobj *d;
    Addr lo, hi;
    ThreadId tid;
    const struct hblock *b = VG_(OSetGen_LookupWithCmp)(heap_blocks, &a, cmp_in_block);
    if (b) {
        d = b->d;
    } else {
        /* any live thread's stack (no thread may be running: the end) */
        for (tid = 1; tid < VG_N_THREADS; tid++)
            if (VG_(is_valid_tid)(tid) && a < VG_(thread_get_stack_max)(tid) &&
                a >= VG_(thread_get_stack_max)(tid) - VG_(thread_get_stack_size)(tid))
                break;
        d = (const struct dobj *)((const HChar *)(tid < VG_N_THREADS
                                                      ? dobj_one(DOBJ_STACK, &stack_dobj)->raw
                                                      : data_raw_mapped(a, &lo, &hi)) -
                                  offsetof(struct dobj, raw));
    }
    *kind = d->kind;
    *where = d->where;
    *where2 = d->where2;
    *obj = d->obj;
}
