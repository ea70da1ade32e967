/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_tool.h - what the tool's own files share (internal; the parts with
 * an interface of their own have their headers): the records of the
 * threads and regions (vpmu_state.h holds their tables with the rest of
 * the run's state), and the functions of threads and folding
 * (vpmu_threads.c), overflow delivery (vpmu_overflow.c), guest memory
 * (vpmu_client.c), client requests (vpmu_requests.c), the options
 * (vpmu_clo.c) and the output file (vpmu_dump.c) that vpmu_main.c, the
 * tool's interface to Valgrind, wires to the core's callbacks.
 *
 * The files depend on each other in no loop, through calls or data
 * (tests/vpmu: vpmu.no_cycles), from the leaves up: vpmu_state.c (the
 * state they share, vpmu_state.h), vpmu_out.c, vpmu_client.c; the node;
 * data objects, the profile and the sampler; threads; overflow, gates,
 * multiplexing; requests and the output writer; the options; vpmu_main.c.
 */
#ifndef HPM_VPMU_TOOL_H
#define HPM_VPMU_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_threadstate.h"

#include "catalog.h"
#include "hpm_client.h"
#include "vpmu_events.h"
#include "vpmu_node.h"
#include "vpmu_state.h"

/* libcoregrind, not in pub_tool: a raw system call (pub_core_syscall.h) */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4,
                              RegWord a5, RegWord a6, RegWord a7, RegWord a8);
/* libcoregrind, not in pub_tool: grow a thread's client stack down to addr
 * (pub_core_signals.h; False past the stack's limit) */
extern Bool VG_(extend_stack)(ThreadId tid, Addr addr);
/* libcoregrind, not in pub_tool: a signal to a process (pub_core_libcsignal.h) */
extern Int VG_(kill)(Int pid, Int signo);
/* libcoregrind, not in pub_tool: whether tid names a live thread
 * (pub_core_threadstate.h) */
extern Bool VG_(is_valid_tid)(ThreadId tid);

/* ------------------------------------------------ options (vpmu_clo.c) */
Bool vpmu_clo_option(const HChar *arg);
void vpmu_clo_usage(void);
void vpmu_clo_debug_usage(void);

/* ------------------------------------------------ threads (vpmu_threads.c) */
#define REGION_DEPTH 16

struct region_frame {
    UInt region;
    ULong snap[HPM_K_CORE_COUNT];
};

struct vpmu_thread {
    Bool used;
    UInt serial;
    UInt core;
    Addr syscall_site; /* its current system call's instruction (a profile's) */
    ULong c[VPMU_EV_COUNT];   /* raw, exact tool counters */
    ULong u[HPM_K_CORE_COUNT]; /* UPC-read counts of its core while it ran */
    UInt depth;
    /* REGION_DEPTH frames, allocated at the thread's first region: inline,
     * they made the table of VG_N_THREADS threads 4.3 MB to zero at start */
    struct region_frame *stack;
    /* armed overflow interrupts (HPM_VPMU_OVERFLOW) */
    UInt n_ovf;
    UInt ovf_skip; /* model kinds are checked every OVF_MODEL_STRIDE-th SB */
    struct vpmu_ovf {
        UInt kind;
        Int ev; /* its exact core event; -1: a model's kind (ovf_event) */
        Int signo;
        ULong threshold, next; /* fire when the count reaches next */
        ULong seen;            /* the count at the last check (exact kinds) */
        ULong fed;             /* the count the thread's overflow unit has seen */
        UInt input;            /* the unit's input its counter selects */
    } ovf[HPM_VPMU_OVERFLOW_MAX];
    struct hpm_upc *ovf_upc; /* counter i: ovf[i]'s threshold (see Overflow) */
    void *ovf_upc_mem;
    Long ovf_irq_at;         /* the event of the batch that raised the IRQ, -1 none */
    ULong ovf_batch_cycle;   /* the unit's cycle at the batch's start */
    const struct vpmu_sb_desc *last_sb; /* entered at the last check */
    Int lwpid;                          /* the kernel's thread id, 0: not asked yet */
    Addr where[HPM_VPMU_WHERE_MAX];     /* the last signal's thresholds */
    UInt n_where;
    /* fast overflow (seed 002): the thread's counting is frozen from the
     * delivery of an overflow signal the tool sent to its sigreturn */
    UInt ovf_sent;     /* overflow signals sent and not yet delivered */
    UInt frozen;       /* delivered ones whose handler still runs */
    UInt sigdepth;     /* signal frames open on the thread */
    ULong frame_froze; /* bit d: frame d (of the first 64) froze counting */
    Addr frozen_sp;    /* stack pointer interrupted by the outermost frozen frame */
    Bool frozen_alt;   /* ... whose handler runs on the alternate stack */
    /* overflow upcalls (HPM_VPMU_OVERFLOW_UPCALL): no signal, the thread is
     * sent to the library's entry as an interrupt vector would send it */
    Addr upcall_entry;  /* 0: signals */
    Addr upcall_mask;   /* the thread's int: the interrupt waits while not 0 */
    Bool upcall_frozen; /* its handler runs: counting frozen */
    Addr upcall_sp;     /* the interrupted stack pointer: thawed back at it */
};

/* counts of a thread that has exited */
struct vpmu_exited {
    struct vpmu_exited *next;
    UInt serial;
    UInt core;
    ULong c[VPMU_EV_COUNT];
    ULong u[HPM_K_CORE_COUNT];
};

/* accumulated counts of one region on one thread */
struct vpmu_region_rec {
    struct vpmu_region_rec *next;
    UInt region;
    UInt serial;
    UInt core;
    ULong entries;
    ULong u[HPM_K_CORE_COUNT];
};

/* After the node is made: the threads' accounting of its cores. */
void vpmu_threads_init(void);
/* writes to a UPC the program made (vpmu_requests.c) */
extern ULong upc_writes;

/* Thread tid's slot, made on first use: inline, as it was where the
 * requests and the overflow check call it. */
static inline struct vpmu_thread *thread_get(ThreadId tid)
{
    struct vpmu_thread *t;
    tl_assert(tid > 0 && tid < VG_N_THREADS);
    t = &vpmu_state.threads[tid];
    if (!t->used) {
        struct region_frame *stack = t->stack; /* kept for the slot's next thread */
        VG_(memset)(t, 0, sizeof *t);
        t->stack = stack;
        t->used = True;
        t->serial = vpmu_state.next_serial++;
        t->core = vpmu_node_core_of(t->serial);
    }
    return t;
}

/* The serial (1, 2, ... in order of creation) of thread tid (> 0). */
static inline UInt vpmu_thread_serial(ThreadId tid)
{
    return thread_get(tid)->serial;
}

/* Every translation goes, from a client request: what is instrumented
 * changed. */
void vpmu_retranslate_all(const HChar *why);
/* Start the waiting models that needs (HPM_NEED_* bits, 0: all) asks for
 * (--hpm-model=on-demand): 1 when one started. */
Int vpmu_models_start(UInt needs);
/* After the running thread or its frozen state changed. */
void vpmu_run_state_apply(void);
/* A forked child: the forking thread becomes its thread 1, on core 0. */
void vpmu_threads_fork_child(ThreadId tid);
/* Every count to 0 (HPM_VPMU_RESET, a forked child). */
void vpmu_reset_all(void);

/* ------------------------------------------------ overflow (vpmu_overflow.c) */
/* The core's callbacks around signal delivery and after a superblock left. */
void vpmu_ovf_stop_client_code(ThreadId tid, ULong blocks_done);
void vpmu_ovf_pre_deliver_signal(ThreadId tid, Int signo, Bool alt_stack);
void vpmu_ovf_post_deliver_signal(ThreadId tid, Int signo);
/* HPM_VPMU_OVERFLOW and HPM_VPMU_OVERFLOW_UPCALL */
Long vpmu_req_overflow(ThreadId tid, UWord kind, ULong threshold, UWord signo, ULong first);
Long vpmu_req_overflow_upcall(ThreadId tid, Addr entry, Addr mask);

/* ------------------------------------------------ guest memory (vpmu_client.c) */
/* memcpy of the request paths' small buffers (a request's block, a set's
 * kinds, bases and counts: 4 to 256 bytes, nearly always 8-byte aligned),
 * eight bytes a move: VG_(memcpy) moves four, behind a call and its
 * alignment tests, and a count request made six such copies. */
typedef ULong __attribute__((aligned(1), may_alias)) vpmu_unaligned_word;
static inline void vpmu_copy_small(void *dst, const void *src, SizeT n)
{
    UChar *d = dst;
    const UChar *s = src;
    for (; n >= 8; n -= 8, d += 8, s += 8)
        *(vpmu_unaligned_word *)d = *(const vpmu_unaligned_word *)s;
    for (; n; n--)
        *d++ = *s++;
}

/* The ranges vpmu_fast_request checked, while it runs; else empty. */
#define VPMU_FAST_RANGES 3 /* buffers a fast request may touch (READ_SEL's three) */
extern Addr fast_ok_lo[VPMU_FAST_RANGES], fast_ok_hi[VPMU_FAST_RANGES];
Bool client_range_ok(Addr a, UWord bytes, UInt prot);
/* Copy n bytes out to / in from the client at a: HPM_VPMU_OK or HPM_VPMU_EFAULT. */
Long client_put(Addr a, const void *src, UWord n);
Long client_get(void *dst, Addr a, UWord n);
/* A NUL-terminated client string into out (HPM_VPMU_NAME_MAX bytes). */
Long read_client_name(Addr a, HChar *out);

/* ------------------------------------------------ requests (vpmu_requests.c) */
Bool vpmu_handle_client_request(ThreadId tid, UWord *arg, UWord *ret);
/* Before and after every system call: the fast requests' kept mappings
 * may no longer be what they were. */
void vpmu_fast_segments_forget(void);

/* ------------------------------------------------ output (vpmu_dump.c) */
/* Writes every count to fname; at_exec: a segment written before execve
 * (its exit record says so). */
void vpmu_write_output(const HChar *fname, Bool at_exec);

#endif /* HPM_VPMU_TOOL_H */
