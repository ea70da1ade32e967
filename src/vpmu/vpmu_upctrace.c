/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_upctrace.c - --hpm-upc-trace=FILE: the batches the node feeds the
 * UPC, for hpm upc-explore (format: vpmu_upctrace.h).
 *
 * Buffered: a program that reads its counters flushes every few hundred
 * instructions, one write per batch would be a system call each. The
 * buffer is written when full and at close (before the output file, at
 * exit and before an exec); appended, so that the images of a process
 * that execs follow one another in its file. A forked child has the
 * parent's buffer and descriptor: it drops both and opens its own file
 * (its pid in the name).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"

#include "catalog.h"
#include "hpm/upc.h"
#include "vpmu_node.h"
#include "vpmu_state.h"
#include "vpmu_upctrace.h"

static const HChar *clo_trace;
static Int trace_fd = -1;
static Int trace_pid;
static Bool trace_failed;
#define BUF_SIZE (256 * 1024)
static HChar *buf;
static UInt used;

Bool vpmu_upctrace_option(const HChar *arg)
{
    if VG_STR_CLO (arg, "--hpm-upc-trace", clo_trace) {
        vpmu_state.on.upctrace = clo_trace[0] != 0;
        vpmu_node_sink_batch(vpmu_upctrace_batch); /* the node's batches */
        return True;
    }
    return False;
}

void vpmu_upctrace_usage(void)
{
    VG_(printf)("    --hpm-upc-trace=FILE      write every batch fed to the UPC to FILE\n"
                "                              (%%p is the pid; hpm upc-explore) [none]\n");
}

static void write_all(void)
{
    UInt at = 0;
    while (at < used && !trace_failed) {
        Int w = VG_(write)(trace_fd, buf + at, used - at);
        if (w <= 0)
            trace_failed = True;
        else
            at += (UInt)w;
    }
    used = 0;
}

static void put(const HChar *s, UInt n)
{
    if (used + n > BUF_SIZE)
        write_all();
    VG_(memcpy)(buf + used, s, n);
    used += n;
}

/* Open this process's file (a forked child: its own), with the header and
 * the programmed events. False when it cannot be written. */
static Bool ensure_open(void)
{
    HChar line[64];
    UInt i, n;
    Int pid = VG_(getpid)();
    if (trace_fd >= 0 && pid == trace_pid)
        return !trace_failed;
    if (trace_fd >= 0) { /* the parent's, inherited at fork */
        VG_(close)(trace_fd);
        used = 0;
    }
    trace_pid = pid;
    trace_failed = False;
    if (!buf)
        buf = VG_(malloc)("hpm.upctrace", BUF_SIZE);
    {
        HChar *name = VG_(expand_file_name)("--hpm-upc-trace", clo_trace);
        SysRes sr = VG_(open)(name, VKI_O_CREAT | VKI_O_APPEND | VKI_O_WRONLY,
                              VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
        if (sr_isError(sr)) {
            VG_(umsg)("hpm: cannot open UPC trace file '%s'\n", name);
            VG_(free)(name);
            trace_fd = -1;
            vpmu_state.on.upctrace = False;
            return False;
        }
        VG_(free)(name);
        trace_fd = (Int)sr_Res(sr);
    }
    put("hpm-upc-trace 1\ne", 17);
    n = vpmu_node_n_events();
    for (i = 0; i < n; i++) {
        /* the inputs: a code counted in several modes is one input */
        UInt j, code = (UInt)vpmu_node_event_code(i) % HPM_CAT_CODES;
        Int k;
        for (j = 0; j < i && (UInt)vpmu_node_event_code(j) % HPM_CAT_CODES != code; j++)
            ;
        if (j < i)
            continue;
        k = VG_(snprintf)(line, sizeof line, " %u", code);
        put(line, (UInt)k);
    }
    put("\n", 1);
    return True;
}

void vpmu_upctrace_batch(const struct hpm_upc *u, ULong cycles, UInt n, const UShort *evs,
                         const UShort *codes, const ULong *deltas)
{
    HChar line[64];
    UInt j;
    Int k;
    if (!vpmu_state.on.upctrace || cycles == 0 || !ensure_open())
        return;
    k = VG_(snprintf)(line, sizeof line, "b %llu %d", cycles, u ? hpm_upc_running(u) : 1);
    put(line, (UInt)k);
    for (j = 0; j < n; j++) {
        k = VG_(snprintf)(line, sizeof line, " %u:%llu", (UInt)codes[evs[j]], deltas[evs[j]]);
        put(line, (UInt)k);
    }
    put("\n", 1);
}

void vpmu_upctrace_close(void)
{
    if (trace_fd < 0)
        return;
    if (trace_pid == VG_(getpid)()) {
        write_all();
        if (trace_failed)
            VG_(umsg)("hpm: error writing the UPC trace file\n");
    }
    VG_(close)(trace_fd);
    trace_fd = -1;
    used = 0;
}
