/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_dump.c - the tool's output file (vpmu_format.h; the reader is
 * tools/hpm/vpmu_output.c): every count written at exit, after a fatal
 * signal, and before an execve (a segment), through the buffered writer of
 * vpmu_out.c. As callgrind's dump.c: the writer of the records, apart from
 * the parts that keep the counts.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

#include "vpmu_c2c.h"
#include "vpmu_format.h"
#include "vpmu_mpx.h"
#include "vpmu_profile.h"
#include "vpmu_sample.h"
#include "vpmu_procs.h"
#include "vpmu_upctrace.h"
#include "vpmu_tool.h"
#include "vpmu_turns.h"

/* ------------------------------------------------------------------------
 * Output
 * ---------------------------------------------------------------------- */

static const HChar *const event_names[VPMU_EV_COUNT] = VPMU_EVENT_NAME_INIT;

static void out_raw(Out *o, UInt serial, const ULong *c)
{
    Int e;
    for (e = 0; e < VPMU_EV_COUNT; e++)
        out_printf(o, VPMU_REC_RAW " " VPMU_REC_THREAD " %u %s %llu\n", serial, event_names[e], c[e]);
}

/* The per-core kinds programmed on core `core`, with the given values. */
static void out_kinds(Out *o, const HChar *prefix, UInt core, const ULong *u)
{
    UInt kinds[HPM_K_CORE_COUNT], n, i;
    ULong vals[HPM_K_CORE_COUNT];
    n = vpmu_node_core_values(core, kinds, vals);
    for (i = 0; i < n; i++)
        out_printf(o, "%s %s %llu\n", prefix, vpmu_node_kind_name(kinds[i]), u[kinds[i]]);
}

/* Writes every count to fname; at_exec: a segment written before execve
 * (its exit record says so). */
void vpmu_write_output(const HChar *fname, Bool at_exec)
{
    SysRes sr;
    Out *o;
    UInt s, i, nthreads = 0, maxserial = vpmu_state.next_serial;
    ULong total[VPMU_EV_COUNT];
    struct vpmu_exited *x;
    struct vpmu_region_rec *r;
    Int e;
    HChar prefix[HPM_VPMU_NAME_MAX + 64];
    static const HChar *const level_names[] = {"insn", "core", "full"};

    vpmu_node_flush_final(); /* the cores' idle cycles to the mode counters */
    vpmu_upctrace_close(); /* every batch of this image is fed by now */
    sr = VG_(open)(fname, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY,
                   VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
    if (sr_isError(sr)) {
        /* ENOENT: the folder is gone, so hpm has finished and no one is
         * left to read the file (a child that outlived it): say nothing */
        if (sr_Err(sr) != VKI_ENOENT)
            VG_(umsg)("hpm: cannot open output file '%s'\n", fname);
        return;
    }
    o = VG_(malloc)("hpm.out", sizeof *o);
    o->fd = (Int)sr_Res(sr);
    o->used = 0;
    o->failed = False;

    out_printf(o, VPMU_FORMAT_MAGIC " %d\n", VPMU_FORMAT_VERSION);
    out_printf(o, VPMU_REC_COMMAND " %s", VG_(args_the_exename) ? VG_(args_the_exename) : "?");
    for (i = 0; i < (UInt)VG_(sizeXA)(VG_(args_for_client)); i++)
        out_printf(o, " %s", *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
    out_printf(o, "\n");
    out_printf(o, VPMU_REC_PID " %d\n", VG_(getpid)());
    out_printf(o, VPMU_REC_PPID " %d\n", VG_(getppid)());
    out_printf(o, VPMU_REC_MACHINE " %s\n", vpmu_node_machine_name());
    out_printf(o, VPMU_REC_CORES " %u\n", vpmu_node_cores());
    out_printf(o, VPMU_REC_FREQUENCY " %llu\n", vpmu_node_frequency());
    out_printf(o, VPMU_REC_LEVEL " %s\n", level_names[vpmu_state.clo.level]);
    out_printf(o, VPMU_REC_MODELS " %s\n", vpmu_node_models());
    out_printf(o, VPMU_REC_UPCS " %u\n", vpmu_node_n_upcs());
    if (at_exec)
        out_printf(o, VPMU_REC_EXIT " " VPMU_EXIT_WORD_EXEC "\n");
    else if (vpmu_state.slots_out)
        out_printf(o, VPMU_REC_EXIT " " VPMU_EXIT_WORD_SLOTS " %u\n", (UInt)VG_N_THREADS);
    else if (vpmu_state.exit_seen)
        out_printf(o, VPMU_REC_EXIT " " VPMU_EXIT_WORD_STATUS " %lld\n", vpmu_state.exit_code);
    else
        out_printf(o, VPMU_REC_EXIT " " VPMU_EXIT_WORD_SIGNAL "\n");

    for (i = 1; i < VG_N_THREADS; i++)
        nthreads += vpmu_state.threads[i].used ? 1 : 0;
    for (x = vpmu_state.exited_threads; x; x = x->next)
        nthreads++;
    out_printf(o, VPMU_REC_THREADS " %u\n", nthreads);

    /* node-wide counts, read from the UPC (multiplexed: over each set's
     * intervals) */
    vpmu_mpx_finish();
    if (vpmu_mpx_on())
        vpmu_mpx_write(o);
    else
        for (i = 0; i < vpmu_node_n_events(); i++) {
            HChar name[HPM_CAT_NAME_MAX];
            UInt code = (UInt)vpmu_node_event_code(i);
            vpmu_node_code_name(code, name, sizeof name);
            out_printf(o, VPMU_REC_COUNT " %u %s %llu\n", code, name, vpmu_node_event_value(i));
        }

    VG_(memset)(total, 0, sizeof total);
    /* threads in serial order: live ones and exited ones */
    for (s = 1; s < maxserial; s++) {
        const ULong *c = NULL, *u = NULL;
        UInt core = 0;
        for (i = 1; i < VG_N_THREADS && !c; i++)
            if (vpmu_state.threads[i].used && vpmu_state.threads[i].serial == s) {
                c = vpmu_state.threads[i].c;
                u = vpmu_state.threads[i].u;
                core = vpmu_state.threads[i].core;
            }
        for (x = vpmu_state.exited_threads; x && !c; x = x->next)
            if (x->serial == s) {
                c = x->c;
                u = x->u;
                core = x->core;
            }
        if (!c)
            continue;
        out_printf(o, VPMU_REC_THREAD " %u " VPMU_THREAD_WORD_CORE " %u\n", s, core);
        VG_(snprintf)(prefix, sizeof prefix, VPMU_REC_THREAD " %u", s);
        out_kinds(o, prefix, core, u);
        out_raw(o, s, c);
        for (e = 0; e < VPMU_EV_COUNT; e++)
            total[e] += c[e];
    }
    for (e = 0; e < VPMU_EV_COUNT; e++)
        out_printf(o, VPMU_REC_RAW " total %s %llu\n", event_names[e], total[e]);
    for (r = vpmu_state.region_recs; r; r = r->next) {
        const HChar *name = vpmu_state.region_names[r->region];
        out_printf(o, VPMU_REC_REGION " %s " VPMU_REC_THREAD " %u " VPMU_REGION_WORD_ENTRIES " %llu\n",
                   name, r->serial, r->entries);
        VG_(snprintf)(prefix, sizeof prefix, VPMU_REC_REGION " %s " VPMU_REC_THREAD " %u", name,
                      r->serial);
        out_kinds(o, prefix, r->core, r->u);
    }
    if (upc_writes)
        out_printf(o, VPMU_REC_UPC_WRITES " %llu\n", upc_writes);
    if (vpmu_state.forks)
        out_printf(o, VPMU_REC_FORKS " %llu\n", vpmu_state.forks);
    if (vpmu_turns_quantum())
        out_printf(o, VPMU_REC_INTERLEAVE " %llu %llu %llu\n", vpmu_turns_quantum(),
                   vpmu_turns_switches(), vpmu_turns_host_timed());
    if (vpmu_turns_quantum() && vpmu_turns_host_timed()) {
        /* which calls came back when the host decided, and the waits given up */
        UInt sysno[VPMU_HOST_TIMED_LISTED], m, k;
        ULong n[VPMU_HOST_TIMED_LISTED], calls, listed = 0;
        HChar buf[32];
        m = vpmu_turns_host_timed_calls(sysno, n, VPMU_HOST_TIMED_LISTED, &calls);
        for (k = 0; k < m; k++) {
            out_printf(o, VPMU_REC_HOST_TIMED " %s %llu\n",
                       vpmu_turns_call_name(sysno[k], buf, sizeof buf), n[k]);
            listed += n[k];
        }
        if (calls > listed)
            out_printf(o, VPMU_REC_HOST_TIMED " " VPMU_HOST_TIMED_OTHER " %llu\n", calls - listed);
        if (vpmu_turns_host_timed() > calls)
            out_printf(o, VPMU_REC_HOST_TIMED " " VPMU_HOST_TIMED_WAIT " %llu\n",
                       vpmu_turns_host_timed() - calls);
    }
    {
        ULong logged, misses;
        if (vpmu_node_coh_time(&logged, &misses))
            out_printf(o, VPMU_REC_COHERENCE_TIME " %llu %llu %llu\n", logged, misses,
                       vpmu_turns_host_timed());
    }
    for (i = 0; i < vpmu_node_n_upcs(); i++) {
        UInt n, par;
        ULong lost;
        vpmu_node_upc_health(i, &n, &lost, &par);
        out_printf(o, VPMU_REC_UPC " %u " VPMU_UPC_WORD_COUNTERS " %u " VPMU_UPC_WORD_LOST " %llu " VPMU_UPC_WORD_PARITY " %u\n", i, n, lost, par);
    }
    vpmu_c2c_write_shared(o);
    vpmu_prof_write(o);
    vpmu_sample_write(o);
    vpmu_procs_write(o);
    out_flush(o);
    VG_(close)(o->fd);
    if (o->failed)
        VG_(umsg)("hpm: error writing '%s'\n", fname);
    else if (VG_(clo_verbosity) > 0 && !at_exec)
        VG_(umsg)("hpm: %llu instructions; counts written to %s\n",
                  total[VPMU_EV_INSTRUCTIONS], fname);
    VG_(free)(o);
}
