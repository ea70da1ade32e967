/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_state.c - the run's state (vpmu_state.h), with its defaults: the
 * one global every part shares. A leaf, as callgrind's CLG_(clo) and
 * CLG_(current_state) are data that every file reads: it calls nothing, so
 * that sharing state never makes two files depend on each other.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_threadstate.h"

#include "vpmu_state.h"

struct vpmu_state vpmu_state = {
    .clo =
        {
            .out = "hpm-vpmu.%p.out",
            .mpi_out = NULL,
            .start = True,
            .level = VPMU_LEVEL_INSN,
            .live = True,
            .live_ms = 100,
        },
    .running = True,
    .ev_counted = ~0u,
    .counting_wanted = True,
    .live_owner = VG_INVALID_THREADID,
    .next_serial = 1,
};
