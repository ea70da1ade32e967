/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_hooks.c - model hook dispatch of the hpm virtual PMU. See vpmu_hooks.h.
 */
#include "pub_tool_basics.h"
#include "pub_tool_threadstate.h"

#include "vpmu_hooks.h"
#include "vpmu_state.h"

Bool vpmu_clo_mem_hook = False;
Bool vpmu_clo_branch_hook = False;

static const struct vpmu_model *vpmu_model;

void vpmu_hooks_register(const struct vpmu_model *m)
{
    vpmu_model = m;
}

Bool vpmu_hooks_want_mem(void)
{
    return vpmu_clo_mem_hook || (vpmu_model && vpmu_model->on_mem);
}

Bool vpmu_hooks_want_branch(void)
{
    return vpmu_clo_branch_hook || (vpmu_model && vpmu_model->on_branch);
}

void vpmu_on_mem(ThreadId tid, Addr addr, SizeT size, Bool is_write)
{
    if (vpmu_model && vpmu_model->on_mem)
        vpmu_model->on_mem(tid, addr, size, is_write);
}

void vpmu_on_branch(ThreadId tid, Addr pc, Addr target, Bool taken,
                    enum vpmu_branch_kind kind)
{
    if (vpmu_model && vpmu_model->on_branch)
        vpmu_model->on_branch(tid, pc, target, taken, kind);
}

void vpmu_models_init(void)
{
    /* Hook point: register cache/TLB/predictor models here, e.g.
     *     vpmu_hooks_register(&hpm_model_cache);                         */
}

void vpmu_models_fini(void)
{
    if (vpmu_model && vpmu_model->fini)
        vpmu_model->fini();
}

void vpmu_count(enum vpmu_event ev, ULong n)
{
    if ((UInt)ev < VPMU_EV_COUNT)
        vpmu_live[ev] += n;
}

/* Dirty helpers: off the hot path, generated only when a hook is enabled. */
void vpmu_dirty_mem_read(Addr addr, SizeT size)
{
    if (vpmu_running)
        vpmu_on_mem(VG_(get_running_tid)(), addr, size, False);
}

void vpmu_dirty_mem_write(Addr addr, SizeT size)
{
    if (vpmu_running)
        vpmu_on_mem(VG_(get_running_tid)(), addr, size, True);
}

void vpmu_dirty_branch(Addr pc, Addr target, ULong taken, ULong kind)
{
    if (vpmu_running)
        vpmu_on_branch(VG_(get_running_tid)(), pc, target, taken != 0,
                       (enum vpmu_branch_kind)kind);
}
