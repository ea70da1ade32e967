/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_clo.c - the tool's options: the command line (--hpm-out,
 * --hpm-start, --hpm-live*, --hpm-level, into vpmu_state.clo, and each
 * part's own options, passed on to it). As callgrind's clo.c: options in
 * one place, so that the usage text and the parsing cannot drift apart.
 * It calls every part's parser, so it lies above them all and nothing but
 * vpmu_main.c calls it; the values live in vpmu_state.c, the leaf the
 * parts read.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_options.h"

#include "vpmu_debugcopy.h"
#include "vpmu_gate.h"
#include "vpmu_mpx.h"
#include "vpmu_profile.h"
#include "vpmu_sample.h"
#include "vpmu_procs.h"
#include "vpmu_upctrace.h"
#include "vpmu_tool.h"
#include "vpmu_turns.h"

/* ------------------------------------------------------------------------
 * Options
 * ---------------------------------------------------------------------- */

Bool vpmu_clo_option(const HChar *arg)
{
    const HChar *level = NULL;
    if VG_STR_CLO (arg, "--hpm-out", vpmu_state.clo.out) {
    } else if VG_STR_CLO (arg, "--hpm-mpi-out", vpmu_state.clo.mpi_out) {
    } else if VG_BOOL_CLO (arg, "--hpm-start", vpmu_state.clo.start) {
    } else if VG_BOOL_CLO (arg, "--hpm-live", vpmu_state.clo.live) {
    } else if VG_BINT_CLO (arg, "--hpm-live-ms", vpmu_state.clo.live_ms, 1, 3600000) {
    } else if (vpmu_node_option(arg)) {
    } else if (vpmu_prof_option(arg)) {
    } else if (vpmu_sample_option(arg)) {
    } else if (vpmu_procs_option(arg)) {
    } else if (vpmu_gate_option(arg)) {
    } else if (vpmu_upctrace_option(arg)) {
    } else if (vpmu_mpx_option(arg)) {
    } else if (vpmu_turns_option(arg)) {
    } else if (vpmu_debugcopy_option(arg)) {
    } else if VG_STR_CLO (arg, "--hpm-level", level) {
        vpmu_state.clo.level_given = True;
        if (VG_(strcmp)(level, "insn") == 0)
            vpmu_state.clo.level = VPMU_LEVEL_INSN;
        else if (VG_(strcmp)(level, "core") == 0)
            vpmu_state.clo.level = VPMU_LEVEL_CORE;
        else if (VG_(strcmp)(level, "full") == 0)
            vpmu_state.clo.level = VPMU_LEVEL_FULL;
        else
            VG_(fmsg_bad_option)(arg, "expected insn, core or full\n");
    } else {
        return False;
    }
    return True;
}

void vpmu_clo_usage(void)
{
    VG_(printf)(
        "    --hpm-out=FILE            write counts to FILE [hpm-vpmu.%%p.out]\n"
        "                              (%%p is the pid, %%q{VAR} an env variable)\n"
        "    --hpm-mpi-out=FILE        where HPM_VPMU_MPI_RESULT writes (libhpm-mpi's\n"
        "                              MPI job results) [none: refused]\n"
        "    --hpm-level=insn|core|full  instrument at least this much [insn]\n"
        "                              (the events asked for raise it as needed):\n"
        "                              insn = instructions; core = + loads/stores,\n"
        "                              branches, syscalls; full = + FP, integer ops\n"
        "    --hpm-start=yes|no        count from the start [yes]; else wait\n"
        "                              for HPM_VPMU_START()\n"
        "    --hpm-live=yes|no         publish the counts in /dev/shm/hpm-live.NS.PID [yes]\n"
        "    --hpm-live-ms=N           at least every N ms of host time [100]\n");
    vpmu_node_usage();
    vpmu_prof_usage();
    vpmu_sample_usage();
    vpmu_procs_usage();
    vpmu_gate_usage();
    vpmu_upctrace_usage();
    vpmu_mpx_usage();
    vpmu_turns_usage();
    vpmu_debugcopy_usage();
}

void vpmu_clo_debug_usage(void)
{
    VG_(printf)("    (none)\n");
}
