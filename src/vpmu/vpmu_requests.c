/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_requests.c - the client requests of hpm_client.h: reads of the
 * counts, regions, selection, UPC access, gates, network counts, the clock,
 * and the fast path that answers a program's reads from its own
 * translation (vpmu_fast_request) without the scheduler.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"

#include "vpmu_gate.h"
#include "vpmu_io.h"
#include "machine.h"
#include "vpmu_tool.h"


static Long region_id(const HChar *name)
{
    UInt i;
    for (i = 0; i < vpmu_state.n_region_names; i++)
        if (VG_(strcmp)(vpmu_state.region_names[i], name) == 0)
            return i;
    if (vpmu_state.n_region_names == REGION_NAMES_MAX)
        return HPM_VPMU_ENOMEM;
    vpmu_state.region_names[vpmu_state.n_region_names] = VG_(strdup)("hpm.region", name);
    return vpmu_state.n_region_names++;
}

static struct vpmu_region_rec *region_rec(UInt region, UInt serial, UInt core)
{
    struct vpmu_region_rec *r, **pp = &vpmu_state.region_recs;
    for (r = vpmu_state.region_recs; r; r = r->next) {
        if (r->region == region && r->serial == serial)
            return r;
        pp = &r->next;
    }
    r = VG_(calloc)("hpm.regionrec", 1, sizeof *r);
    r->region = region;
    r->serial = serial;
    r->core = core;
    *pp = r; /* append: output in order of first closing */
    return r;
}

static Long req_read(ThreadId tid, Addr buf, UWord n)
{
    struct vpmu_thread *t;
    UWord m, bytes;
    Long rc;
    if (n == 0)
        return VPMU_EV_COUNT;
    if (n > ((UWord)1 << 40))
        return HPM_VPMU_EINVAL;
    m = n < VPMU_EV_COUNT ? n : VPMU_EV_COUNT;
    bytes = m * sizeof(ULong);
    if (!client_range_ok(buf, bytes, VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    if (vpmu_state.running)
        vpmu_account_read(); /* stopped: as in req_read_kinds */
    t = thread_get(tid);
    rc = client_put(buf, t->c, bytes);
    return rc == HPM_VPMU_OK ? (Long)m : rc;
}

static Long req_region(ThreadId tid, Addr name_addr, Bool begin)
{
    HChar name[HPM_VPMU_NAME_MAX];
    struct vpmu_thread *t = thread_get(tid);
    Long rc = read_client_name(name_addr, name);
    Long id;
    Int e;
    if (rc != HPM_VPMU_OK)
        return rc;
    if (begin) {
        if (t->depth == REGION_DEPTH)
            return HPM_VPMU_ENESTING;
        id = region_id(name);
        if (id < 0)
            return id;
        if (!t->stack)
            t->stack = VG_(malloc)("hpm.regions", REGION_DEPTH * sizeof *t->stack);
        vpmu_account_read();
        t->stack[t->depth].region = (UInt)id;
        VG_(memcpy)(t->stack[t->depth].snap, t->u, sizeof t->u);
        t->depth++;
    } else {
        struct region_frame *f;
        struct vpmu_region_rec *r;
        if (t->depth == 0)
            return HPM_VPMU_ENESTING;
        f = &t->stack[t->depth - 1];
        if (VG_(strcmp)(vpmu_state.region_names[f->region], name) != 0)
            return HPM_VPMU_ENESTING;
        vpmu_account_read();
        r = region_rec(f->region, t->serial, t->core);
        r->entries++;
        for (e = 0; e < HPM_K_CORE_COUNT; e++)
            r->u[e] += t->u[e] - f->snap[e];
        t->depth--;
    }
    return HPM_VPMU_OK;
}

/* Values handed to the client are built here first and copied out in one
 * client_put: the output can be as large as every programmed event. */
static ULong reply_u64[HPM_CAT_CODES > HPM_K_CORE_COUNT ? HPM_CAT_CODES : HPM_K_CORE_COUNT];
static UInt reply_u32[HPM_CAT_CODES];

/* buf[i] = value of programmed event i: node-wide (scope 0) or the calling
 * thread's share (scope 1; 0 for events of other cores and node events). */
static Long req_read_events(ThreadId tid, Addr buf, UWord n, UWord scope)
{
    UInt total = vpmu_node_n_events(), m, i;
    struct vpmu_thread *t;
    Long rc;
    if (n == 0)
        return total;
    if (n > ((UWord)1 << 40) || scope > HPM_VPMU_SCOPE_THREAD)
        return HPM_VPMU_EINVAL;
    m = n < total ? (UInt)n : total;
    if (!client_range_ok(buf, (UWord)m * sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    vpmu_account();
    t = thread_get(tid);
    for (i = 0; i < m; i++) {
        UInt kind;
        Int core;
        if (scope == HPM_VPMU_SCOPE_NODE) {
            reply_u64[i] = vpmu_node_event_value(i);
            continue;
        }
        /* an event counted in another mode than level high has no
         * per-thread share (the threads' shares are of kinds) */
        if (hpm_catalog_decode((UInt)vpmu_node_event_code(i), &kind, &core) != 0)
            reply_u64[i] = 0;
        else
            reply_u64[i] = core == (Int)t->core ? t->u[kind] : 0;
    }
    rc = client_put(buf, reply_u64, (UWord)m * sizeof(ULong));
    return rc == HPM_VPMU_OK ? (Long)m : rc;
}

static Long req_read_kinds(ThreadId tid, Addr buf, UWord n)
{
    UWord m;
    Long rc;
    if (n == 0)
        return HPM_K_CORE_COUNT;
    if (n > ((UWord)1 << 40))
        return HPM_VPMU_EINVAL;
    m = n < HPM_K_CORE_COUNT ? n : HPM_K_CORE_COUNT;
    if (!client_range_ok(buf, m * sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    /* while the unit is stopped (an overflow handler's frozen thread, a
     * program's STOP) nothing can move its counts: they were accounted
     * when it stopped, and the flush is the read's whole cost */
    if (vpmu_state.running)
        vpmu_account_read();
    rc = client_put(buf, thread_get(tid)->u, m * sizeof(ULong));
    return rc == HPM_VPMU_OK ? (Long)m : rc;
}

_Static_assert(HPM_K_CORE_COUNT <= 256 && HPM_VPMU_SEL_MAX <= 256,
               "a sum's term packs a kind, a base's index and a sum's index in 8 bits each");

/* HPM_VPMU_READ_SEL's HPM_VPMU_SEL_SUM: a library's derived events summed
 * here, in the read's request, instead of by the program's instructions
 * (each of which its count would hold). Every term is checked, and both
 * buffers as far as the terms reach, before anything is written. */
static Long req_read_sum(ThreadId tid, Addr out, Addr terms, Addr base, UWord n)
{
    UInt t[HPM_VPMU_SEL_MAX];
    ULong b[HPM_VPMU_SEL_MAX], v[HPM_VPMU_SEL_MAX];
    const ULong *u;
    UWord i, n_base = 0, n_out = 0;
    Long rc;
    if ((rc = client_get(t, terms, n * sizeof(UInt))) != HPM_VPMU_OK)
        return rc;
    for (i = 0; i < n; i++) {
        UInt kind = t[i] & 0xff, p = (t[i] >> 8) & 0xff, j = (t[i] >> 16) & 0xff;
        if (kind >= HPM_K_CORE_COUNT || p >= n || j >= n)
            return HPM_VPMU_EINVAL;
        if (p >= n_base)
            n_base = p + 1;
        if (j >= n_out)
            n_out = j + 1;
    }
    if (!client_range_ok(out, n_out * sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    if ((rc = client_get(b, base, n_base * sizeof(ULong))) != HPM_VPMU_OK)
        return rc;
    /* as req_read_kinds */
    if (vpmu_state.running)
        vpmu_account_read();
    u = thread_get(tid)->u;
    for (i = 0; i < n_out; i++)
        v[i] = 0;
    for (i = 0; i < n; i++) /* the coefficient sign-extended: wrapping, as the library's sums */
        v[(t[i] >> 16) & 0xff] +=
            (ULong)(Long)(Char)(t[i] >> 24) * (u[t[i] & 0xff] - b[(t[i] >> 8) & 0xff]);
    return (rc = client_put(out, v, n_out * sizeof(ULong))) == HPM_VPMU_OK ? (Long)n : rc;
}

/* HPM_VPMU_READ_SEL: n of the calling thread's kinds against their bases
 * (op: hpm_client.h). Every kind is checked before anything is written. */
static Long req_read_sel(ThreadId tid, Addr out, Addr kinds, Addr base, UWord n, UWord op)
{
    UInt k[HPM_VPMU_SEL_MAX];
    ULong b[HPM_VPMU_SEL_MAX], v[HPM_VPMU_SEL_MAX];
    const ULong *u;
    UWord i;
    Long rc;
    if (op > HPM_VPMU_SEL_SUM || n > HPM_VPMU_SEL_MAX)
        return HPM_VPMU_EINVAL;
    if (n == 0)
        return 0;
    if (op == HPM_VPMU_SEL_SUM)
        return req_read_sum(tid, out, kinds, base, n);
    if (!client_range_ok(base, n * sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE) ||
        (op != HPM_VPMU_SEL_BASE &&
         !client_range_ok(out, n * sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE)))
        return HPM_VPMU_EFAULT;
    if ((rc = client_get(k, kinds, n * sizeof(UInt))) != HPM_VPMU_OK ||
        (op != HPM_VPMU_SEL_BASE && (rc = client_get(b, base, n * sizeof(ULong))) != HPM_VPMU_OK))
        return rc;
    for (i = 0; i < n; i++)
        if (k[i] >= HPM_K_CORE_COUNT)
            return HPM_VPMU_EINVAL;
    /* as req_read_kinds */
    if (vpmu_state.running)
        vpmu_account_read();
    u = thread_get(tid)->u;
    if (op != HPM_VPMU_SEL_BASE) {
        for (i = 0; i < n; i++)
            v[i] = u[k[i]] - b[i];
        if ((rc = client_put(out, v, n * sizeof(ULong))) != HPM_VPMU_OK)
            return rc;
    }
    if (op != HPM_VPMU_SEL_DIFF) {
        for (i = 0; i < n; i++)
            b[i] = u[k[i]];
        if ((rc = client_put(base, b, n * sizeof(ULong))) != HPM_VPMU_OK)
            return rc;
    }
    return (Long)n;
}

/* HPM_VPMU_REGION_READ: the calling thread's counts per core kind of
 * region name over its closed entries (what the output file's region
 * records will hold), and the entries. */
static Long req_region_read(ThreadId tid, Addr name_addr, Addr buf, UWord n)
{
    HChar name[HPM_VPMU_NAME_MAX];
    ULong u[HPM_K_CORE_COUNT], entries = 0;
    const struct vpmu_thread *t = thread_get(tid);
    const struct vpmu_region_rec *r;
    UWord m = n < HPM_K_CORE_COUNT ? n : HPM_K_CORE_COUNT, k;
    Long rc = read_client_name(name_addr, name), id;
    if (rc != HPM_VPMU_OK)
        return rc;
    if (!client_range_ok(buf, m * sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    VG_(memset)(u, 0, sizeof u);
    for (id = 0; id < (Long)vpmu_state.n_region_names &&
                 VG_(strcmp)(vpmu_state.region_names[id], name) != 0;
         id++)
        ;
    for (r = vpmu_state.region_recs; r; r = r->next)
        if ((Long)r->region == id && r->serial == t->serial) {
            entries += r->entries;
            for (k = 0; k < HPM_K_CORE_COUNT; k++)
                u[k] += r->u[k];
        }
    rc = client_put(buf, u, m * sizeof(ULong));
    return rc == HPM_VPMU_OK ? (Long)entries : rc;
}

static Long req_machine(Addr buf, UWord size)
{
    Long rc;
    if (size == 0)
        return (Long)sizeof(struct hpm_machine);
    if (size != sizeof(struct hpm_machine))
        return HPM_VPMU_EINVAL;
    rc = client_put(buf, vpmu_node_machine(), size);
    return rc == HPM_VPMU_OK ? (Long)size : rc;
}

static Long req_events(Addr buf, UWord n)
{
    UInt total = vpmu_node_n_events(), m, i;
    Long rc;
    if (n == 0)
        return total;
    if (n > ((UWord)1 << 40))
        return HPM_VPMU_EINVAL;
    m = n < total ? (UInt)n : total;
    for (i = 0; i < m; i++)
        reply_u32[i] = (UInt)vpmu_node_event_code(i);
    rc = client_put(buf, reply_u32, (UWord)m * sizeof(UInt));
    return rc == HPM_VPMU_OK ? (Long)m : rc;
}

static Long req_select(Addr buf, UWord n)
{
    static UInt codes[HPM_CAT_CODES];
    if (n == 0 || n > HPM_CAT_CODES)
        return HPM_VPMU_EINVAL;
    if (client_get(codes, buf, n * sizeof(UInt)) != HPM_VPMU_OK)
        return HPM_VPMU_EFAULT;
    return vpmu_reprogram(codes, (UInt)n) == 0 ? HPM_VPMU_OK : HPM_VPMU_EINVAL;
}

/* Units are numbered by 32 bits, as UPC_WRITE takes them: a wider number is
 * invalid, never unit 0 of its low bits. */
static Long req_upc_read(UWord upc, UWord offset, Addr out)
{
    ULong v;
    if (upc > 0xffffffffUL)
        return HPM_VPMU_EINVAL;
    if (!client_range_ok(out, sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    vpmu_account();
    if (vpmu_node_mmio_read((UInt)upc, offset, &v) != 0)
        return HPM_VPMU_EREGISTER;
    return client_put(out, &v, sizeof v);
}

/* A write the unit accepted reprograms it behind the tool's back: from then
 * on its counts are whatever the program made of them, and the report says
 * so (the `upc_writes` record). */
ULong upc_writes;

static Long req_upc_write(UWord upc, UWord offset, ULong value)
{
    if (upc > 0xffffffffUL)
        return HPM_VPMU_EINVAL;
    vpmu_account();
    if (vpmu_node_mmio_write((UInt)upc, offset, value) != 0)
        return HPM_VPMU_EREGISTER;
    upc_writes++;
    return HPM_VPMU_OK;
}

static Long req_overflow_where(ThreadId tid, UWord buf, UWord n)
{
    struct vpmu_thread *t = thread_get(tid);
    ULong out[HPM_VPMU_WHERE_MAX];
    UInt i, k = t->n_where < n ? t->n_where : (UInt)n;
    if (k == 0)
        return 0;
    for (i = 0; i < k; i++)
        out[i] = t->where[i];
    return client_put(buf, out, k * sizeof(ULong)) == HPM_VPMU_OK ? (Long)k : HPM_VPMU_EFAULT;
}

/* HPM_VPMU_NET: network counts from libhpm-mpi, added to the node's */
static Long req_net(Addr buf, UWord n)
{
    ULong v[VPMU_NODE_NET_COUNTERS];
    if (n > VPMU_NODE_NET_COUNTERS)
        return HPM_VPMU_EINVAL;
    if (n == 0)
        return HPM_VPMU_OK;
    if (client_get(v, buf, n * sizeof v[0]) != HPM_VPMU_OK)
        return HPM_VPMU_EFAULT;
    vpmu_node_net_add(v, (UInt)n);
    return HPM_VPMU_OK;
}

/* HPM_VPMU_MPI_RESULT: libhpm-mpi's results, written by the tool to
 * --hpm-mpi-out (so that they cost the program no I/O its units count). */
static Long req_mpi_result(Addr buf, UWord n)
{
    HChar chunk[4096];
    UWord off, len;
    SysRes sr;
    Int fd;
    Long rc = HPM_VPMU_OK;
    if (!vpmu_state.clo.mpi_out)
        return HPM_VPMU_EINVAL;
    sr = VG_(open)(vpmu_state.clo.mpi_out, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY,
                   VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
    if (sr_isError(sr))
        return HPM_VPMU_EINVAL;
    fd = (Int)sr_Res(sr);
    for (off = 0; off < n && rc == HPM_VPMU_OK; off += len) {
        len = n - off < sizeof chunk ? n - off : sizeof chunk;
        if (client_get(chunk, buf + off, len) != HPM_VPMU_OK)
            rc = HPM_VPMU_EFAULT;
        else if (VG_(write)(fd, chunk, (Int)len) != (Int)len)
            rc = HPM_VPMU_EINVAL;
    }
    VG_(close)(fd);
    return rc;
}

/* HPM_VPMU_CLOCK: the host's clock in ns. The tool's clock_gettime is one
 * host system call; the program's goes through Valgrind's syscall path
 * (the kernel unit's wrappers, the signal mask around it). The four
 * clocks Linux always has (VG_(clock_gettime) asserts on an error). */
static Long req_clock(UWord clock)
{
    struct vki_timespec ts;
    if (clock > VKI_CLOCK_THREAD_CPUTIME_ID)
        return HPM_VPMU_EINVAL;
    VG_(clock_gettime)(&ts, (vki_clockid_t)clock);
    return (Long)ts.tv_sec * 1000000000LL + (Long)ts.tv_nsec;
}

/* HPM_VPMU_CLOCK_SYNC: what the program needs to read CLOCK_MONOTONIC from
 * its own TSC reads (vpmu_io_clock_sync) */
static Long req_clock_sync(Addr buf)
{
    ULong out[VPMU_CLOCK_SYNC_WORDS];
    if (!client_range_ok(buf, sizeof out, VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    if (vpmu_io_clock_sync(out) != 0)
        return HPM_VPMU_EINVAL;
    return client_put(buf, out, sizeof out);
}

_Static_assert(HPM_VPMU_MODEL_HIER == HPM_NEED_HIER && HPM_VPMU_MODEL_BPRED == HPM_NEED_BPRED &&
                   HPM_VPMU_MODEL_TLB == HPM_NEED_TLB && HPM_VPMU_MODEL_TIMING == HPM_NEED_TIMING,
               "HPM_VPMU_REQ_MODEL's bits are the catalog's");

Bool vpmu_handle_client_request(ThreadId tid, UWord *arg, UWord *ret)
{
    Long rc;
    if (!VG_IS_TOOL_USERREQ('H', 'P', arg[0]))
        return False;
    switch (arg[0]) {
    case HPM_VPMU_REQ_IS_RUNNING:
        rc = HPM_VPMU_INTERFACE_VERSION;
        break;
    case HPM_VPMU_REQ_RESET:
        vpmu_reset_all();
        rc = HPM_VPMU_OK;
        break;
    case HPM_VPMU_REQ_START:
        vpmu_counting_start();
        rc = HPM_VPMU_OK;
        break;
    case HPM_VPMU_REQ_STOP:
        vpmu_counting_stop();
        rc = HPM_VPMU_OK;
        break;
    case HPM_VPMU_REQ_READ_EVENTS:
        rc = req_read_events(tid, (Addr)arg[1], arg[2], arg[3]);
        break;
    case HPM_VPMU_REQ_EVENTS:
        rc = req_events((Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_SELECT:
        rc = req_select((Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_UPC_READ:
        rc = req_upc_read(arg[1], arg[2], (Addr)arg[3]);
        break;
    case HPM_VPMU_REQ_UPC_WRITE:
        rc = req_upc_write(arg[1], arg[2], (ULong)arg[3]);
        break;
    case HPM_VPMU_REQ_READ:
        rc = req_read(tid, (Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_REGION_BEGIN:
        rc = req_region(tid, (Addr)arg[1], True);
        break;
    case HPM_VPMU_REQ_REGION_END:
        rc = req_region(tid, (Addr)arg[1], False);
        break;
    case HPM_VPMU_REQ_READ_KINDS:
        rc = req_read_kinds(tid, (Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_READ_SEL:
        rc = req_read_sel(tid, (Addr)arg[1], (Addr)arg[2], (Addr)arg[3], arg[4], arg[5]);
        break;
    case HPM_VPMU_REQ_MACHINE:
        rc = req_machine((Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_OVERFLOW_WHERE:
        rc = req_overflow_where(tid, arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_OVERFLOW:
        rc = vpmu_req_overflow(tid, arg[1], (ULong)arg[2], arg[3], (ULong)arg[4]);
        break;
    case HPM_VPMU_REQ_GATE:
        rc = vpmu_gate_request(arg[1], arg[2], (ULong)arg[3]);
        break;
    case HPM_VPMU_REQ_NET:
        rc = req_net((Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_OVERFLOW_UPCALL:
        rc = vpmu_req_overflow_upcall(tid, (Addr)arg[1], (Addr)arg[2]);
        break;
    case HPM_VPMU_REQ_MODEL:
        rc = (arg[1] & ~(UWord)HPM_NEED_MODELS) != 0 ? HPM_VPMU_EINVAL
                                                     : vpmu_models_start((UInt)arg[1]);
        break;
    case HPM_VPMU_REQ_CLOCK:
        rc = req_clock(arg[1]);
        break;
    case HPM_VPMU_REQ_CLOCK_SYNC:
        rc = req_clock_sync((Addr)arg[1]);
        break;
    case HPM_VPMU_REQ_MPI_RESULT:
        rc = req_mpi_result((Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_REGION_READ:
        rc = req_region_read(tid, (Addr)arg[1], (Addr)arg[2], arg[3]);
        break;
    default:
        rc = HPM_VPMU_EINVAL;
        break;
    }
    *ret = (UWord)rc;
    return True;
}

ULong vpmu_fast_reply;

/* Client mappings that fast_range_ok found anonymous, readable and
 * writable, [lo, hi] each (empty: lo > hi), until the next system call:
 * only a system call maps, unmaps or protects the client's memory (its
 * stack grows down, which leaves a kept range inside its mapping), and
 * vpmu_fast_segments_forget runs before and after each. */
#define FAST_SEGS 2
static Addr fast_seg_lo[FAST_SEGS] = {1, 1}, fast_seg_hi[FAST_SEGS];
static UInt fast_seg_next;

/* [a, a+n) lies in one anonymous client mapping, readable and writable.
 * The helper runs inside generated code, where the fault catcher of
 * client_copy cannot be used (a fault there is the tool's crash): only
 * memory that cannot fault is touched from here (a file mapping past its
 * end raises SIGBUS), everything else goes the scheduler's way. */
static Bool fast_range_ok(Addr a, UWord n)
{
    const NSegment *seg;
    UInt i;
    if (a == 0 || a + n <= a)
        return False;
    /* the mappings found fit before (a request's block on the stack, its
     * buffers elsewhere): the address space's look-up costs about a
     * twentieth of a read's host time */
    for (i = 0; i < FAST_SEGS; i++)
        if (a >= fast_seg_lo[i] && a + n - 1 <= fast_seg_hi[i])
            return True;
    seg = VG_(am_find_nsegment)(a);
    if (!(seg && seg->kind == SkAnonC && seg->hasR && seg->hasW && a + n - 1 <= seg->end))
        return False;
    fast_seg_lo[fast_seg_next] = seg->start;
    fast_seg_hi[fast_seg_next] = seg->end;
    fast_seg_next = (fast_seg_next + 1) % FAST_SEGS;
    return True;
}

void vpmu_fast_segments_forget(void)
{
    UInt i;
    for (i = 0; i < FAST_SEGS; i++) {
        fast_seg_lo[i] = 1;
        fast_seg_hi[i] = 0;
    }
}

UWord vpmu_fast_request(UWord args)
{
    /* valgrind.h's request block: the request and five arguments */
    UWord arg[6], done, i;
    /* the client buffers the request may touch: each checked below, then
     * the only ones client_put and client_get copy without the catcher */
    Addr at[VPMU_FAST_RANGES] = {0};
    UWord bytes[VPMU_FAST_RANGES] = {0};
    if (!fast_range_ok((Addr)args, sizeof arg))
        return 0; /* the scheduler's path reports it */
    vpmu_copy_small(arg, (const void *)args, sizeof arg);
    switch (arg[0]) {
    case HPM_VPMU_REQ_IS_RUNNING:
    case HPM_VPMU_REQ_CLOCK:
        break;
    case HPM_VPMU_REQ_READ:
    case HPM_VPMU_REQ_READ_EVENTS:
    case HPM_VPMU_REQ_READ_KINDS:
        /* the most any of them writes: arg2 words, at most one per code */
        at[0] = (Addr)arg[1];
        bytes[0] = (arg[2] < HPM_CAT_CODES ? arg[2] : HPM_CAT_CODES) * 8;
        break;
    case HPM_VPMU_REQ_UPC_READ:
        at[0] = (Addr)arg[3];
        bytes[0] = sizeof(ULong);
        break;
    case HPM_VPMU_REQ_CLOCK_SYNC:
        at[0] = (Addr)arg[1];
        bytes[0] = VPMU_CLOCK_SYNC_WORDS * sizeof(ULong);
        break;
    case HPM_VPMU_REQ_READ_SEL:
        /* the values (not for HPM_VPMU_SEL_BASE), the kinds, the bases */
        if (arg[4] == 0 || arg[4] > HPM_VPMU_SEL_MAX || arg[5] > HPM_VPMU_SEL_SUM)
            return 0;
        /* a sum's terms reach at most n values and n bases: those n
         * checked (the request checks the terms' own reach) */
        at[0] = (Addr)arg[1];
        bytes[0] = arg[5] != HPM_VPMU_SEL_BASE ? arg[4] * sizeof(ULong) : 0;
        at[1] = (Addr)arg[2];
        bytes[1] = arg[4] * sizeof(UInt);
        at[2] = (Addr)arg[3];
        bytes[2] = arg[4] * sizeof(ULong);
        break;
    default:
        return 0;
    }
    for (i = 0; i < VPMU_FAST_RANGES; i++)
        if (bytes[i] && !fast_range_ok(at[i], bytes[i]))
            return 0;
    for (i = 0; i < VPMU_FAST_RANGES; i++) {
        fast_ok_lo[i] = at[i];
        fast_ok_hi[i] = bytes[i] ? at[i] + bytes[i] : 0;
    }
    done = vpmu_handle_client_request(VG_(get_running_tid)(), arg, (UWord *)&vpmu_fast_reply);
    for (i = 0; i < VPMU_FAST_RANGES; i++)
        fast_ok_lo[i] = fast_ok_hi[i] = 0;
    return done;
}
