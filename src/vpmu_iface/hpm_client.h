/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm_client.h - client requests of the hpm virtual PMU (Valgrind tool "hpm").
 *
 * Include this header in an ordinary program (gcc, C99 or later). Each request
 * is a Valgrind client request (VALGRIND_DO_CLIENT_REQUEST_EXPR, tool base
 * 'H','P'): under `valgrind --tool=hpm` it reaches the tool; run natively (or
 * under another tool) it is a handful of no-op instructions and yields the
 * default value given below, so instrumented programs need no #ifdef.
 *
 *   HPM_VPMU_IS_RUNNING()        1 (the interface version) under hpm, else 0
 *   HPM_VPMU_RESET()             zero the counters of all threads
 *   HPM_VPMU_START()             resume counting (global flag)
 *   HPM_VPMU_STOP()              suspend counting: events while stopped are lost
 *   HPM_VPMU_READ(buf, n)        copy min(n, VPMU_EV_COUNT) counters of the
 *                                calling thread into uint64_t buf[n], indexed by
 *                                enum vpmu_event; returns the number copied, or
 *                                a negative HPM_VPMU_E* code; natively -1
 *                                (HPM_VPMU_ENOTOOL). n == 0 returns VPMU_EV_COUNT.
 *   HPM_VPMU_REGION_BEGIN(name)  open a named region on the calling thread
 *   HPM_VPMU_REGION_END(name)    close it; the counts between begin and end are
 *                                added to region `name` of this thread and
 *                                written to the output file. Regions nest (up
 *                                to 16 deep); END must name the innermost one.
 *
 * The UPC (the counts hpm reports; event codes from src/catalog/catalog.h):
 *   HPM_VPMU_EVENTS(codes, n)    copy the programmed event codes (uint32_t) in
 *                                counting order; returns how many (n == 0: the
 *                                number programmed)
 *   HPM_VPMU_READ_EVENTS(buf, n, scope)  uint64_t buf[i] = count of programmed
 *                                event i, read from the UPC: node-wide
 *                                (HPM_VPMU_SCOPE_NODE) or the calling thread's
 *                                share (HPM_VPMU_SCOPE_THREAD: what its core
 *                                counted while it ran; 0 for other cores'
 *                                events and node events)
 *   HPM_VPMU_SELECT(codes, n)    program n event codes (uint32_t); every count
 *                                restarts at 0. Only events whose models run
 *                                (given at start-up) can be selected:
 *                                HPM_VPMU_EINVAL otherwise
 *   HPM_VPMU_UPC_READ(u, off, out)   raw 64-bit register of UPC unit u at byte
 *   HPM_VPMU_UPC_WRITE(u, off, val)  offset off (docs/upc.md, Figure 5 map);
 *                                HPM_VPMU_EREGISTER for an unmapped or
 *                                read-only register. Writing the
 *                                configuration registers reprograms counters
 *                                behind hpm's back: READ_EVENTS then reads
 *                                whatever those counters count.
 *   HPM_VPMU_READ_KINDS(buf, n)  uint64_t buf[k] = the calling thread's count of
 *                                per-core kind k (catalog.h, enum hpm_cat_kind,
 *                                k < HPM_K_CORE_COUNT), read from the UPC: the
 *                                sum of READ_EVENTS(THREAD) over the kind's
 *                                codes; 0 for kinds not programmed. Returns
 *                                min(n, HPM_K_CORE_COUNT); n == 0 returns
 *                                HPM_K_CORE_COUNT
 *   HPM_VPMU_MACHINE(buf, size)  copy the modeled machine (struct hpm_machine
 *                                of src/machine/machine.h, this build's layout)
 *                                into buf; size must be its size (else
 *                                HPM_VPMU_EINVAL); size 0 returns the size
 *   HPM_VPMU_OVERFLOW(kind, threshold, signo)  arm an overflow interrupt on the
 *                                calling thread: each time its count of
 *                                per-core kind `kind` has grown by `threshold`
 *                                (> 0) since arming, the tool queues signal
 *                                signo to the thread (si_code SI_QUEUE, si_ptr
 *                                the address of the instruction that passed
 *                                the threshold: exact for INSTRUCTIONS, the
 *                                superblock's start for the other exact
 *                                kinds, the interrupted PC for a model's
 *                                kinds) and delivers it at the next
 *                                superblock boundary (the ucontext's PC).
 *                                From that delivery to the handler's return
 *                                the thread's counting is frozen (fast
 *                                overflow: the handler's own events are
 *                                counted nowhere). Thresholds passed within
 *                                one superblock give one signal. threshold 0
 *                                disarms kind. Up to HPM_VPMU_OVERFLOW_MAX
 *                                kinds per thread (HPM_VPMU_ENOMEM beyond);
 *                                only while counting is started does the
 *                                count grow.
 *   HPM_VPMU_OVERFLOW_FROM(kind, threshold, signo, first)  the same, with the
 *                                first threshold passing when the thread's
 *                                count of kind (as READ_KINDS reads it)
 *                                reaches `first` (0: threshold from now; a
 *                                count already passed: at once). Interface 6.
 *   HPM_VPMU_OVERFLOW_WHERE(buf, n)  uint64_t buf[i] = the address where the
 *                                i-th threshold reported by the thread's last
 *                                overflow signal passed (buf[0] is its
 *                                si_ptr); returns how many (at most n and
 *                                HPM_VPMU_WHERE_MAX). Interface 6.
 *   HPM_VPMU_GATE(gate, arg, n)  gate the counting by where the program is
 *                                (docs/vpmu.md, Gating), from now on:
 *                                HPM_VPMU_GATE_START_AT, arg = a code address:
 *                                counting stops now and starts whenever
 *                                execution reaches arg; HPM_VPMU_GATE_STOP_AT:
 *                                it stops whenever execution reaches arg;
 *                                HPM_VPMU_GATE_ONLY, arg = a function's first
 *                                instruction: counts only while it (and what
 *                                it calls) runs; HPM_VPMU_GATE_TRIGGER, arg =
 *                                per-core kind of an exact core event, n > 0:
 *                                stops now, starts after n more such events
 *                                (over the cores); HPM_VPMU_GATE_CLEAR: no
 *                                gates (counting stays as it is). Returns
 *                                HPM_VPMU_OK or HPM_VPMU_EINVAL. Interface 5.
 *   HPM_VPMU_MODEL()             under --hpm-model=on-demand (hpm run), start
 *                                the cache, TLB, predictor and timing models
 *                                that the programmed events need, cold, from
 *                                now on; until then their kinds stay 0.
 *                                Returns 1 when they started now, 0 when they
 *                                were running already (or none is needed).
 *                                Interface 4 and later.
 *   HPM_VPMU_MODEL_NEEDS(needs)  the same for the models in needs only
 *                                (HPM_VPMU_MODEL_* bits, an event's needs in
 *                                the catalog): the caches and the TLBs start
 *                                together, the predictor on its own, the
 *                                timing model (cycles) with every model it
 *                                reads; 0 asks for all. A tool older than
 *                                this request's mask starts them all.
 *   HPM_VPMU_NET(buf, n)         add n network counts (the catalog's TORUS_*
 *                                and COLL_* kinds in order) to the node's:
 *                                what libhpm-mpi (src/hpm_mpi) computed from
 *                                an MPI job's traffic with the torus model.
 *                                Interface 6.
 *   HPM_VPMU_OVERFLOW_UPCALL(entry, mask)  from now on the calling thread's
 *                                overflow interrupts are upcalls, not
 *                                signals: at the superblock boundary where
 *                                the signal would be delivered, the tool
 *                                pushes, below the 128-byte red zone, the
 *                                interrupted PC and under it the address of
 *                                the first threshold (what si_ptr carries),
 *                                and resumes the thread at entry, which must
 *                                keep every register and the flags and leave
 *                                by `lea 8(%rsp),%rsp; ret $128` (libhpm's
 *                                hpm__ovf_upcall_entry). Counting is frozen
 *                                from there until the stack pointer is back
 *                                at the interrupted one. While the int at
 *                                mask (the thread's own; NULL: none) is not
 *                                0 the interrupt waits, as a blocked signal
 *                                would; where the stack cannot take the two
 *                                words the signal is sent. entry 0: signals
 *                                again. amd64 only (elsewhere
 *                                HPM_VPMU_EINVAL). Interface 7.
 *   HPM_VPMU_CLOCK(clock)        the host's clock `clock` (CLOCK_REALTIME,
 *                                CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID or
 *                                CLOCK_THREAD_CPUTIME_ID: 0 to 3) in
 *                                nanoseconds, as clock_gettime gives it to
 *                                the tool; HPM_VPMU_EINVAL for another
 *                                clock. Under Valgrind a clock_gettime of
 *                                the program is a system call (no vDSO), a
 *                                dozen times this request's cost; it is
 *                                the program's, and the kernel unit counts
 *                                it. Interface 8.
 *   HPM_VPMU_MPI_RESULT(buf, len)  the tool writes len bytes of buf to the
 *                                file hpm named with --hpm-mpi-out (none:
 *                                HPM_VPMU_EINVAL): libhpm-mpi's results of an
 *                                MPI job (docs/mpi.md), passed so that they
 *                                cost the program no I/O its units count.
 *                                Interface 9.
 *   HPM_VPMU_REGION_READ(name, buf, n)  uint64_t buf[k] = the calling
 *                                thread's count of per-core kind k in region
 *                                name, over its closed entries (what the
 *                                output file's region records hold; 0 for a
 *                                region it never closed); returns the
 *                                entries. Interface 9.
 *   HPM_VPMU_CLOCK_SYNC(buf)     uint64_t buf[4]: buf[0] the host's TSC and
 *                                buf[1] its CLOCK_MONOTONIC in ns, read
 *                                together; buf[2] ns per TSC tick in 32.32
 *                                fixed point, buf[3] the ticks after which
 *                                to ask again (1 ms): until then the clock
 *                                is buf[1] + ((rdtsc - buf[0]) * buf[2] >>
 *                                32), within about a microsecond of
 *                                CLOCK_MONOTONIC, and reading the TSC costs
 *                                the program no request (under Valgrind
 *                                the program's rdtsc reads the host's).
 *                                HPM_VPMU_EINVAL where the host's kernel does
 *                                not keep CLOCK_MONOTONIC on an invariant
 *                                TSC (then use HPM_VPMU_CLOCK). Interface 10.
 *   HPM_VPMU_READ_SEL(out, kinds, base, n, op)  the calling thread's counts
 *                                of n per-core kinds (uint32_t kinds[n], each
 *                                < HPM_K_CORE_COUNT, as READ_KINDS reads
 *                                them) against uint64_t base[n]: op
 *                                HPM_VPMU_SEL_DIFF sets out[i] = count -
 *                                base[i], HPM_VPMU_SEL_BASE sets base[i] =
 *                                count (out unused), HPM_VPMU_SEL_DIFF_BASE
 *                                does both. out is n 64-bit words. A
 *                                library's read of its set in one request,
 *                                with no loop of the program's own (whose
 *                                instructions the program's count would
 *                                hold); n at most HPM_VPMU_SEL_MAX. Returns
 *                                n. Interface 11.
 *                                Op HPM_VPMU_SEL_SUM (interface 12): linear
 *                                sums of those counts, as a library's
 *                                derived events are made. Each kinds[i] is
 *                                a term, HPM_VPMU_SUM_TERM(kind, p, j,
 *                                coef): coef (-128..127) times the kind's
 *                                count against base[p], added into out[j],
 *                                with p and j below n. out[0..J] are
 *                                written (J the largest j; one with no
 *                                term is 0), base[0..P] read (P the
 *                                largest p); sums wrap modulo 2^64.
 * START and STOP also write the global start/stop register of every UPC; the
 * modeled caches and predictors keep running while counting is stopped.
 *
 * All requests return long: 0 (or a count) on success, a negative code on
 * error. The tool checks every pointer it is given (buffer writable, name
 * readable and NUL-terminated within HPM_VPMU_NAME_MAX bytes) and returns
 * HPM_VPMU_EFAULT rather than crashing.
 *
 * Overhead: a request costs a few guest instructions (the magic sequence plus
 * argument set-up); the counts around it are exact to that constant.
 */
#ifndef HPM_VPMU_CLIENT_H
#define HPM_VPMU_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <valgrind/valgrind.h>

#include "vpmu_events.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HPM_VPMU_INTERFACE_VERSION 12
#define HPM_VPMU_NAME_MAX 128 /* region names, including the NUL */
#define HPM_VPMU_OVERFLOW_MAX 8
#define HPM_VPMU_WHERE_MAX 64 /* addresses one overflow signal keeps */

enum hpm_vpmu_request {
    HPM_VPMU_REQ_IS_RUNNING = VG_USERREQ_TOOL_BASE('H', 'P'),
    HPM_VPMU_REQ_RESET,
    HPM_VPMU_REQ_START,
    HPM_VPMU_REQ_STOP,
    HPM_VPMU_REQ_READ,         /* arg1 = uint64_t *, arg2 = element count */
    HPM_VPMU_REQ_REGION_BEGIN, /* arg1 = const char * */
    HPM_VPMU_REQ_REGION_END,   /* arg1 = const char * */
    HPM_VPMU_REQ_READ_EVENTS,  /* arg1 = uint64_t *, arg2 = count, arg3 = scope */
    HPM_VPMU_REQ_EVENTS,       /* arg1 = uint32_t *, arg2 = count */
    HPM_VPMU_REQ_SELECT,       /* arg1 = const uint32_t *, arg2 = count */
    HPM_VPMU_REQ_UPC_READ,     /* arg1 = unit, arg2 = offset, arg3 = uint64_t * */
    HPM_VPMU_REQ_UPC_WRITE,    /* arg1 = unit, arg2 = offset, arg3 = value */
    HPM_VPMU_REQ_READ_KINDS,   /* arg1 = uint64_t *, arg2 = count */
    HPM_VPMU_REQ_MACHINE,      /* arg1 = struct hpm_machine *, arg2 = its size */
    HPM_VPMU_REQ_OVERFLOW,     /* arg1 = kind, arg2 = threshold, arg3 = signal */
    HPM_VPMU_REQ_MODEL,        /* arg1 = HPM_VPMU_MODEL_* bits, 0: all */
    HPM_VPMU_REQ_GATE, /* arg1 = enum hpm_vpmu_gate, arg2 = address or kind, arg3 = n */
    HPM_VPMU_REQ_OVERFLOW_WHERE, /* arg1 = uint64_t *, arg2 = count */
    HPM_VPMU_REQ_NET, /* arg1 = const uint64_t *, arg2 = count: network counts to add */
    HPM_VPMU_REQ_OVERFLOW_UPCALL, /* arg1 = entry, arg2 = const int *mask */
    HPM_VPMU_REQ_CLOCK,          /* arg1 = clockid */
    HPM_VPMU_REQ_MPI_RESULT,     /* arg1 = const char *, arg2 = length */
    HPM_VPMU_REQ_REGION_READ,    /* arg1 = const char *, arg2 = uint64_t *, arg3 = count */
    HPM_VPMU_REQ_CLOCK_SYNC,     /* arg1 = uint64_t[4] */
    HPM_VPMU_REQ_READ_SEL /* arg1 = out, arg2 = kinds, arg3 = base, arg4 = n, arg5 = op */
};

/* HPM_VPMU_READ_SEL's operations, and the most kinds one request reads. */
enum hpm_vpmu_sel_op {
    HPM_VPMU_SEL_DIFF = 0,
    HPM_VPMU_SEL_BASE = 1,
    HPM_VPMU_SEL_DIFF_BASE = 2,
    HPM_VPMU_SEL_SUM = 3
};
#define HPM_VPMU_SEL_MAX 256
/* A term of HPM_VPMU_SEL_SUM: the kind (bits 0-7), its base's index p
 * (8-15), its sum's index j (16-23), its coefficient (24-31, two's
 * complement), each below HPM_VPMU_SEL_MAX (the coefficient -128..127). */
#define HPM_VPMU_SUM_TERM(kind, p, j, coef)                                     \
    ((uint32_t)(kind) | (uint32_t)(p) << 8 | (uint32_t)(j) << 16 |             \
     (uint32_t)(uint8_t)(int8_t)(coef) << 24)

/* HPM_VPMU_MODEL_NEEDS's models (the catalog's HPM_NEED_* bits). */
#define HPM_VPMU_MODEL_HIER 1u   /* the caches (they start with the TLBs) */
#define HPM_VPMU_MODEL_BPRED 2u  /* the branch predictor */
#define HPM_VPMU_MODEL_TLB 4u    /* the TLBs (they start with the caches) */
#define HPM_VPMU_MODEL_TIMING 8u /* the timing model's cycles: every model */

enum hpm_vpmu_gate {
    HPM_VPMU_GATE_CLEAR = 0,
    HPM_VPMU_GATE_START_AT = 1,
    HPM_VPMU_GATE_STOP_AT = 2,
    HPM_VPMU_GATE_ONLY = 3,
    HPM_VPMU_GATE_TRIGGER = 4
};

enum hpm_vpmu_scope { HPM_VPMU_SCOPE_NODE = 0, HPM_VPMU_SCOPE_THREAD = 1 };

enum hpm_vpmu_error {
    HPM_VPMU_OK = 0,
    HPM_VPMU_ENOTOOL = -1,     /* not running under the hpm tool */
    HPM_VPMU_EFAULT = -2,      /* pointer argument not addressable */
    HPM_VPMU_ENAMETOOLONG = -3, /* region name not terminated in HPM_VPMU_NAME_MAX */
    HPM_VPMU_ENESTING = -4,    /* region stack full, empty, or END name mismatch */
    HPM_VPMU_ENOMEM = -5,      /* region table full */
    HPM_VPMU_EINVAL = -6,      /* other invalid argument (length overflow) */
    HPM_VPMU_EREGISTER = -7    /* UPC register unmapped or read-only */
};

#define HPM_VPMU_REQ3_(dflt, req, a1, a2, a3)                                     \
    ((long)(intptr_t)VALGRIND_DO_CLIENT_REQUEST_EXPR(                           \
        (uintptr_t)(intptr_t)(dflt), (req), (a1), (a2), (a3), 0, 0))
#define HPM_VPMU_REQ_(dflt, req, a1, a2) HPM_VPMU_REQ3_(dflt, req, a1, a2, 0)

#define HPM_VPMU_IS_RUNNING() HPM_VPMU_REQ_(0, HPM_VPMU_REQ_IS_RUNNING, 0, 0)
#define HPM_VPMU_RESET() HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_RESET, 0, 0)
#define HPM_VPMU_START() HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_START, 0, 0)
#define HPM_VPMU_STOP() HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_STOP, 0, 0)
#define HPM_VPMU_READ(buf, n) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_READ, (uint64_t *)(buf), (size_t)(n))
#define HPM_VPMU_REGION_BEGIN(name) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_REGION_BEGIN, (const char *)(name), 0)
#define HPM_VPMU_REGION_END(name) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_REGION_END, (const char *)(name), 0)
#define HPM_VPMU_EVENTS(codes, n) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_EVENTS, (uint32_t *)(codes), (size_t)(n))
#define HPM_VPMU_READ_EVENTS(buf, n, scope)                                       \
    HPM_VPMU_REQ3_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_READ_EVENTS, (uint64_t *)(buf),   \
                   (size_t)(n), (size_t)(scope))
#define HPM_VPMU_SELECT(codes, n) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_SELECT, (const uint32_t *)(codes), (size_t)(n))
#define HPM_VPMU_UPC_READ(unit, off, out)                                         \
    HPM_VPMU_REQ3_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_UPC_READ, (size_t)(unit), (size_t)(off), \
                   (uint64_t *)(out))
#define HPM_VPMU_UPC_WRITE(unit, off, val)                                        \
    HPM_VPMU_REQ3_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_UPC_WRITE, (size_t)(unit), (size_t)(off), \
                   (uint64_t)(val))

#define HPM_VPMU_READ_KINDS(buf, n) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_READ_KINDS, (uint64_t *)(buf), (size_t)(n))
#define HPM_VPMU_MACHINE(buf, size) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_MACHINE, (void *)(buf), (size_t)(size))
#define HPM_VPMU_OVERFLOW(kind, threshold, signo)                                 \
    HPM_VPMU_REQ3_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_OVERFLOW, (size_t)(kind),         \
                   (uint64_t)(threshold), (size_t)(signo))
#define HPM_VPMU_OVERFLOW_FROM(kind, threshold, signo, first)                      \
    ((long)(intptr_t)VALGRIND_DO_CLIENT_REQUEST_EXPR(                           \
        (uintptr_t)(intptr_t)HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_OVERFLOW, (size_t)(kind), \
        (uint64_t)(threshold), (size_t)(signo), (uint64_t)(first), 0))
#define HPM_VPMU_MODEL() HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_MODEL, 0, 0)
#define HPM_VPMU_MODEL_NEEDS(needs) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_MODEL, (size_t)(needs), 0)
#define HPM_VPMU_OVERFLOW_WHERE(buf, n)                                            \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_OVERFLOW_WHERE, (uint64_t *)(buf), (size_t)(n))
#define HPM_VPMU_GATE(gate, arg, n)                                                 \
    HPM_VPMU_REQ3_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_GATE, (size_t)(gate), (uintptr_t)(arg), \
                   (uint64_t)(n))

/* Adds n counts to the node's network counters, in the order of the
 * catalog's network kinds (TORUS_XP_PACKETS_SENT ... COLL_BYTES; the order
 * of src/net/torus.h's enum hpm_net_counter): what libhpm-mpi computed from
 * the job's traffic. They reach the UPC at the next flush, as node events.
 * EINVAL when n is more than the kinds; EFAULT for a bad buffer. */
#define HPM_VPMU_NET(buf, n) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_NET, (const uint64_t *)(buf), (size_t)(n))
#define HPM_VPMU_OVERFLOW_UPCALL(entry, mask)                                      \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_OVERFLOW_UPCALL, (uintptr_t)(entry), \
                  (const int *)(mask))

#define HPM_VPMU_CLOCK(clock) HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_CLOCK, (size_t)(clock), 0)
#define HPM_VPMU_CLOCK_SYNC(buf) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_CLOCK_SYNC, (uint64_t *)(buf), 0)
#define HPM_VPMU_REGION_READ(name, buf, n)                                         \
    HPM_VPMU_REQ3_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_REGION_READ, (const char *)(name),     \
                   (uint64_t *)(buf), (size_t)(n))
#define HPM_VPMU_READ_SEL(out, kinds, base, n, op)                                \
    ((long)(intptr_t)VALGRIND_DO_CLIENT_REQUEST_EXPR(                           \
        (uintptr_t)(intptr_t)HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_READ_SEL, (void *)(out), \
        (const uint32_t *)(kinds), (uint64_t *)(base), (size_t)(n), (size_t)(op)))
#define HPM_VPMU_MPI_RESULT(buf, len) \
    HPM_VPMU_REQ_(HPM_VPMU_ENOTOOL, HPM_VPMU_REQ_MPI_RESULT, (const char *)(buf), (size_t)(len))

#ifdef __cplusplus
}
#endif

#endif /* HPM_VPMU_CLIENT_H */
