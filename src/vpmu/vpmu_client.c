/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_client.c - the guest's memory as the client requests touch it:
 * copies in and out that survive a fault (a SIGBUS past a file's end, a
 * buffer unmapped by another thread), and the range the fast request path
 * has already checked. A leaf: every part that serves a request copies
 * through it.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcsetjmp.h"
#include "pub_tool_libcsignal.h"
#include "pub_tool_signals.h"

#include "vpmu_tool.h"

/* ------------------------------------------------------------------------
 * Guest memory
 * ---------------------------------------------------------------------- */

/* Guest memory is touched only through client_copy. The address-space
 * manager's view (am_is_valid_for_client) says a page is mapped, not that it
 * can be read: a MAP_SHARED mapping that reaches past the end of its file
 * raises SIGBUS on the pages beyond it, and another thread may unmap a buffer
 * between the check and the copy. Valgrind turns such a fault inside the tool
 * into a fatal internal error, losing every count, unless a fault catcher is
 * installed: the catcher jumps back here and the request fails with
 * HPM_VPMU_EFAULT (memcheck's leak scan reads client memory the same way). */
static VG_MINIMAL_JMP_BUF(client_fault_jmp);

static void client_fault_catcher(Int sig, Addr addr)
{
    (void)sig;
    (void)addr;
    VG_MINIMAL_LONGJMP(client_fault_jmp);
}

/* memcpy(dst, src, n) where dst or src is guest memory; False when it
 * faulted (dst may then hold part of the data). */
static Bool client_copy(void *dst, const void *src, SizeT n)
{
    /* the tool runs with Valgrind's fixed host signal mask: asked once
     * (a system call per request otherwise) */
    static vki_sigset_t mask;
    static Bool have_mask;
    fault_catcher_t prev;
    if (!have_mask) {
        VG_(sigprocmask)(VKI_SIG_SETMASK, NULL, &mask);
        have_mask = True;
    }
    prev = VG_(set_fault_catcher)(client_fault_catcher);
    if (VG_MINIMAL_SETJMP(client_fault_jmp) != 0) {
        /* left the signal handler by longjmp: its mask is still in force */
        VG_(sigprocmask)(VKI_SIG_SETMASK, &mask, NULL);
        VG_(set_fault_catcher)(prev);
        return False;
    }
    VG_(memcpy)(dst, src, n);
    VG_(set_fault_catcher)(prev);
    return True;
}

/* The client buffers a request answered from generated code has already
 * checked (vpmu_fast_request: anonymous memory, readable and writable,
 * which cannot fault): [fast_ok_lo[i], fast_ok_hi[i]) while it runs, else
 * empty. A copy within one needs neither the address space's look-ups nor
 * the fault catcher (which cannot be used from generated code). */
Addr fast_ok_lo[VPMU_FAST_RANGES], fast_ok_hi[VPMU_FAST_RANGES];

static Bool fast_ok(Addr a, UWord bytes)
{
    UInt i;
    for (i = 0; i < VPMU_FAST_RANGES; i++)
        if (fast_ok_hi[i] != 0 && a >= fast_ok_lo[i] && a + bytes >= a &&
            a + bytes <= fast_ok_hi[i])
            return True;
    return False;
}

Bool client_range_ok(Addr a, UWord bytes, UInt prot)
{
    if (fast_ok(a, bytes))
        return True;
    return a != 0 && a + bytes >= a && VG_(am_is_valid_for_client)(a, bytes, prot);
}

/* Copy n bytes out to the client at a: HPM_VPMU_OK or HPM_VPMU_EFAULT. */
Long client_put(Addr a, const void *src, UWord n)
{
    if (fast_ok(a, n)) {
        vpmu_copy_small((void *)a, src, n);
        return HPM_VPMU_OK;
    }
    if (!client_range_ok(a, n, VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    return client_copy((void *)a, src, n) ? HPM_VPMU_OK : HPM_VPMU_EFAULT;
}

/* Copy n bytes in from the client at a: HPM_VPMU_OK or HPM_VPMU_EFAULT. */
Long client_get(void *dst, Addr a, UWord n)
{
    if (fast_ok(a, n)) {
        vpmu_copy_small(dst, (const void *)a, n);
        return HPM_VPMU_OK;
    }
    if (!client_range_ok(a, n, VKI_PROT_READ))
        return HPM_VPMU_EFAULT;
    return client_copy(dst, (const void *)a, n) ? HPM_VPMU_OK : HPM_VPMU_EFAULT;
}

/* Copy a NUL-terminated client string into out (HPM_VPMU_NAME_MAX bytes),
 * checking each page before touching it. Spaces and control characters are
 * replaced by '_' so that the output stays one record per line. */
Long read_client_name(Addr a, HChar *out)
{
    UInt i;
    if (a == 0)
        return HPM_VPMU_EFAULT;
    for (i = 0; i < HPM_VPMU_NAME_MAX; i++) {
        Addr p = a + i;
        HChar ch;
        if (p < a)
            return HPM_VPMU_EFAULT;
        if (client_get(&ch, p, 1) != HPM_VPMU_OK)
            return HPM_VPMU_EFAULT;
        if (ch == 0) {
            out[i] = 0;
            return i == 0 ? HPM_VPMU_EINVAL : HPM_VPMU_OK;
        }
        out[i] = ((UChar)ch <= ' ' || (UChar)ch >= 0x7f) ? '_' : ch;
    }
    return HPM_VPMU_ENAMETOOLONG;
}
