/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_procs.c - the children a process reaped that a signal killed, the
 * program an exec runs natively, and forked children's execs under
 * --hpm-children=no (vpmu_procs.h).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcsetjmp.h"
#include "pub_tool_libcsignal.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_signals.h"

#include "vpmu_format.h"
#include "vpmu_procs.h"

/* libcoregrind's, not in pub_tool (vpmu_main.c uses the first too):
 * whether an execve's program runs under the tool (--trace-children,
 * --trace-children-skip) */
extern Bool VG_(clo_trace_children);
extern Bool VG_(should_we_trace_this_child)(const HChar *child_exe_name,
                                            const HChar **child_argv);

static Bool clo_children = True;

Bool vpmu_procs_option(const HChar *arg)
{
    if VG_BOOL_CLO (arg, "--hpm-children", clo_children) {
        return True;
    }
    return False;
}

void vpmu_procs_usage(void)
{
    VG_(printf)("    --hpm-children=yes|no     no: programs that forked children exec run\n"
                "                              natively (the program's own execs are followed)\n");
}

/* ------------------------------------------------------------------------
 * Guest memory, read through a fault catcher (as vpmu_client.c's
 * client_copy: a page the address space manager calls mapped may still
 * fault, and a fault inside the tool is fatal to the run)
 * ---------------------------------------------------------------------- */

static VG_MINIMAL_JMP_BUF(procs_fault_jmp);

static void procs_fault_catcher(Int sig, Addr addr)
{
    (void)sig;
    (void)addr;
    VG_MINIMAL_LONGJMP(procs_fault_jmp);
}

/* Copies at most n bytes of guest memory at src, stopping after a NUL when
 * string; False when it faulted or src is not the client's. */
static Bool guest_copy(void *dst, Addr src, SizeT n, Bool string)
{
    static vki_sigset_t mask;
    static Bool have_mask;
    fault_catcher_t prev;
    volatile SizeT i;
    if (src == 0 || !VG_(am_is_valid_for_client)(src, 1, VKI_PROT_READ))
        return False;
    if (!have_mask) {
        VG_(sigprocmask)(VKI_SIG_SETMASK, NULL, &mask);
        have_mask = True;
    }
    prev = VG_(set_fault_catcher)(procs_fault_catcher);
    if (VG_MINIMAL_SETJMP(procs_fault_jmp) != 0) {
        VG_(sigprocmask)(VKI_SIG_SETMASK, &mask, NULL);
        VG_(set_fault_catcher)(prev);
        return False;
    }
    for (i = 0; i < n; i++) {
        ((HChar *)dst)[i] = ((const HChar *)src)[i];
        if (string && ((HChar *)dst)[i] == 0)
            break;
    }
    VG_(set_fault_catcher)(prev);
    return True;
}

/* ------------------------------------------------------------------------
 * Children reaped
 * ---------------------------------------------------------------------- */

struct reaped {
    Int pid, sig;
};
static struct reaped *reaped;
static UInt n_reaped, cap_reaped;

static void reaped_add(Int pid, Int sig)
{
    UInt i;
    for (i = 0; i < n_reaped; i++)
        if (reaped[i].pid == pid) { /* WNOWAIT, then the wait itself */
            reaped[i].sig = sig;
            return;
        }
    if (n_reaped == cap_reaped) {
        cap_reaped = cap_reaped ? 2 * cap_reaped : 16;
        reaped = VG_(realloc)("hpm.procs.reaped", reaped, cap_reaped * sizeof *reaped);
    }
    reaped[n_reaped].pid = pid;
    reaped[n_reaped].sig = sig;
    n_reaped++;
}

/* ------------------------------------------------------------------------
 * Execs
 * ---------------------------------------------------------------------- */

/* The program of the execve under way when it runs natively, else "" */
static HChar native_path[4096];

void vpmu_procs_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs)
{
    Addr path;
    (void)tid;
    if (sysno != __NR_execve && sysno != __NR_execveat)
        return;
    native_path[0] = 0;
    /* untraced execs write no segment at all (vpmu_main.c) */
    if (!VG_(clo_trace_children) || nArgs < 2)
        return;
    path = sysno == __NR_execve ? (Addr)args[0] : (Addr)args[1];
    if (!guest_copy(native_path, path, sizeof native_path - 1, True)) {
        native_path[0] = 0;
        return;
    }
    native_path[sizeof native_path - 1] = 0;
    /* Valgrind's own decision, made again right after this wrapper */
    if (VG_(should_we_trace_this_child)(native_path, NULL))
        native_path[0] = 0;
}

void vpmu_procs_post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs, SysRes res)
{
    (void)tid;
    if (sysno == __NR_execve || sysno == __NR_execveat) {
        native_path[0] = 0; /* it failed: this image goes on */
        return;
    }
    if (sr_isError(res))
        return;
    if (sysno == __NR_wait4 && nArgs >= 2 && (Long)sr_Res(res) > 0 && args[1]) {
        Int st;
        if (guest_copy(&st, (Addr)args[1], sizeof st, False) && (st & 0x7f) != 0 &&
            (st & 0x7f) != 0x7f) /* WIFSIGNALED */
            reaped_add((Int)sr_Res(res), st & 0x7f);
    } else if (sysno == __NR_waitid && nArgs >= 3 && args[2]) {
        /* siginfo_t on amd64: si_code at 8, then the SIGCHLD fields: the
         * pid at 16, the status (the signal, for CLD_KILLED and
         * CLD_DUMPED) at 24 */
        Int si[8];
        if (guest_copy(si, (Addr)args[2], sizeof si, False) && si[0] == VKI_SIGCHLD &&
            si[4] > 0 && (si[2] == 2 /* CLD_KILLED */ || si[2] == 3 /* CLD_DUMPED */))
            reaped_add(si[4], si[6]);
    }
}

void vpmu_procs_fork_child(void)
{
    n_reaped = 0;
    native_path[0] = 0;
    /* hpm --no-children counts the program's process alone: what its
     * children exec need not run on the simulator */
    if (!clo_children)
        VG_(clo_trace_children) = False;
}

void vpmu_procs_write(Out *o)
{
    UInt i;
    for (i = 0; i < n_reaped; i++)
        out_printf(o, VPMU_REC_REAPED " %d " VPMU_EXIT_WORD_SIGNAL " %d\n", reaped[i].pid,
                   reaped[i].sig);
    if (native_path[0]) {
        HChar *c;
        /* one line: a newline in a file name must not end the record */
        for (c = native_path; *c; c++)
            if ((UChar)*c < 0x20 || *c == 0x7f)
                *c = '?';
        out_printf(o, VPMU_REC_EXEC_NATIVE " ");
        out_str(o, native_path);
        out_char(o, '\n');
    }
}
