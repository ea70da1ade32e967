/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_hooks.h - hook point for memory-access and branch models
 * (caches, TLBs, branch predictors) in the hpm virtual PMU.
 *
 * Cost model. Hooks are instrumented only when enabled: with
 * --hpm-mem-hook=yes (or a registered model that has on_mem) every memory
 * access gets a dirty call to vpmu_on_mem; with --hpm-branch-hook=yes (or a
 * model with on_branch) every conditional branch, indirect jump, indirect call
 * and return gets a dirty call to vpmu_on_branch. Otherwise no call is
 * generated at all, so a disabled hook costs nothing at run time.
 * Guarded IR accesses (LoadG/StoreG, guarded Dirty) produce guarded dirty
 * calls, so the hook only sees accesses that really happen.
 *
 * Hooks are called while counting is running only (HPM_VPMU_STOP suspends
 * them too), in program order, on the thread that performs the access.
 *
 * A model (freestanding C, e.g. in src/model/) plugs in by calling
 * vpmu_hooks_register() from vpmu_models_init(), which the tool calls once
 * after option processing and before the first translation. A model may add
 * to the calling thread's counters with vpmu_count() from inside a hook.
 */
#ifndef HPM_VPMU_HOOKS_H
#define HPM_VPMU_HOOKS_H

#include "pub_tool_basics.h"
#include "vpmu_events.h"

enum vpmu_branch_kind {
    VPMU_BR_COND = 0,     /* conditional: target = taken target, taken = 0/1 */
    VPMU_BR_INDIRECT = 1, /* indirect jump: target = destination, taken = 1 */
    VPMU_BR_CALL_IND = 2, /* indirect call: target = destination, taken = 1 */
    VPMU_BR_RET = 3       /* return: target = destination, taken = 1 */
};

struct vpmu_model {
    const HChar *name;
    /* One memory access of `size` bytes at `addr` (size is the IR access
     * size: 1..32 bytes for ordinary accesses, up to a few KiB for
     * fxsave/xsave-style helpers). */
    void (*on_mem)(ThreadId tid, Addr addr, SizeT size, Bool is_write);
    /* One executed branch at guest address `pc`. */
    void (*on_branch)(ThreadId tid, Addr pc, Addr target, Bool taken,
                      enum vpmu_branch_kind kind);
    /* Called at exit, before the output file is written. */
    void (*fini)(void);
};

/* Install `m` (kept by pointer; NULL removes the model). Call only from
 * vpmu_models_init(). */
void vpmu_hooks_register(const struct vpmu_model *m);

/* Hook entry points. No-ops when no model is registered. */
void vpmu_on_mem(ThreadId tid, Addr addr, SizeT size, Bool is_write);
void vpmu_on_branch(ThreadId tid, Addr pc, Addr target, Bool taken,
                    enum vpmu_branch_kind kind);

/* Whether instrumentation must call the hooks (option or model). */
Bool vpmu_hooks_want_mem(void);
Bool vpmu_hooks_want_branch(void);

/* Set by the options --hpm-mem-hook / --hpm-branch-hook. */
extern Bool vpmu_clo_mem_hook;
extern Bool vpmu_clo_branch_hook;

/* Models are initialised here (empty for now: no model is linked in). */
void vpmu_models_init(void);
void vpmu_models_fini(void);

/* Add n to event ev of the running thread (callable from hooks). */
void vpmu_count(enum vpmu_event ev, ULong n);

/* Dirty helpers called from instrumented code (see vpmu_instrument.c). */
void vpmu_dirty_mem_read(Addr addr, SizeT size);
void vpmu_dirty_mem_write(Addr addr, SizeT size);
void vpmu_dirty_branch(Addr pc, Addr target, ULong taken, ULong kind);

#endif /* HPM_VPMU_HOOKS_H */
