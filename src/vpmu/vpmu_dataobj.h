/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_dataobj.h - what the profile (vpmu_profile.c) and its data objects
 * (vpmu_dataobj.c) share: the table of mapped files that names both code
 * and globals, the data objects with their heap blocks, and the calls the
 * profile makes when it follows the allocator (internal; the data objects'
 * interface to the node, the sampler and c2c is in vpmu_profile.h).
 */
#ifndef HPM_VPMU_DATAOBJ_H
#define HPM_VPMU_DATAOBJ_H

#include "pub_tool_basics.h"
#include "pub_tool_oset.h"

#include "vpmu_node.h"
#include "vpmu_profile.h"

/* A file mapping: an object (vpmu_obj_of), 0 for none. */
struct obj {
    Addr start, end; /* the file mapping holding the code, [start, end] */
    ULong offset;
    HChar *path;
    Addr bss_end; /* anonymous memory right after it is its .bss up to here
                   * (0: not computed yet) */
    UInt bss_di_gen; /* di_gen when bss_end was found to be the mapping's end */
    Bool dead;       /* unmapped: code at its addresses now is another object's */
};
extern struct obj *objs;
extern UInt n_objs;
/* The file mapping that holds a (made on first use). */
UInt vpmu_obj_of(Addr a);

enum { DOBJ_HEAP = 0, DOBJ_GLOBAL = 1, DOBJ_STACK = 2, DOBJ_OTHER = 3 };
extern const HChar *const dobj_names[];

struct dobj {
    struct dobj *next; /* hash chain */
    UWord key;         /* where << 2 | kind */
    struct dobj *all;
    UInt kind;
    UInt obj;   /* globals: the mapping (objects) */
    Addr where; /* heap: the allocation site; globals: the line */
    Addr where2; /* heap: the call into the function that allocated (0: none) */
    ULong blocks, bytes; /* heap: blocks allocated there, their bytes */
    ULong *saved;
    ULong raw[VPMU_PR_N];
};

struct hblock {
    Addr start; /* the key */
    SizeT size;
    struct dobj *d;
};

/* Every data object, newest first; the heap blocks by start. */
extern struct dobj *all_dobjs;
extern OSet *heap_blocks;
/* At the profile's start. */
void vpmu_dobjs_init(void);
/* The heap object of an allocation at site, called from caller's function
 * (0: none). */
struct dobj *vpmu_dobj_get2(UInt kind, Addr key_addr, Addr where, Addr where2, UInt obj);
/* A block the allocator made (of object d) or freed. */
void vpmu_heap_insert(Addr p, SizeT size, struct dobj *d);
void vpmu_heap_remove(Addr p);
/* A freed block goes to c2c too (vpmu_prof_sink_c2c). */
void vpmu_dobj_sink_heap_freed(vpmu_prof_heap_freed_sink freed);

#endif /* HPM_VPMU_DATAOBJ_H */
