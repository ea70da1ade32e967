/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * catalog.h - the event catalog of the hpm virtual node: every event the
 * virtual PMU can count, laid out over the UPC's 1024-input event space.
 *
 * Naming scheme (one for every unit; docs/events.md):
 *   PU<n>_<KIND>   a per-core event of core n, e.g. PU0_L1D_MISSES (one code)
 *   <KIND>         the same event on every core of the node, e.g. L1D_MISSES
 *                  (a group of codes; reports show the sum and the split)
 *   <NODE_KIND>    a node-wide event (shared L3, DDR), e.g. DDR_READ_BYTES
 * Names are matched case-insensitively and are upper case in output.
 *
 * Code layout (the UPC input space, seed 000): per-core events of core c
 * occupy the block [c*HPM_CAT_CORE_STRIDE, (c+1)*HPM_CAT_CORE_STRIDE); kind k
 * of core c has code c*HPM_CAT_CORE_STRIDE + k, as BG/P lays out PU0, PU1,
 * ... in consecutive blocks (seed 000 Table 1). Node-wide events occupy the
 * top block [HPM_CAT_NODE_BASE, 1024); when it was full, node kinds went
 * on in a second node block [HPM_CAT_NODE2_BASE, HPM_CAT_NODE_BASE) below it
 * (unused by the per-core blocks: 16 cores end at 896). A UPC counter c can
 * count codes c, c+256, c+512, c+768 (its four inputs), so two codes
 * conflict when they are equal modulo 256; with this layout all events of
 * four cores plus the first node block fit one UPC (4*56 + 32 = 256
 * counters), cores 4..7 reuse the counters of cores 0..3, and the second
 * node block (codes 896..991 = counters 128..223) shares counters with
 * cores 2 and 3: counting every event of a machine of three or more cores
 * takes a second UPC unit (the tool opens one on demand, as BG/P counted its
 * units in modes).
 *
 * Freestanding: no libc, so the Valgrind tool links the same table.
 */
#ifndef HPM_CATALOG_H
#define HPM_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPM_CAT_CODES 1024       /* the UPC event space */
#define HPM_CAT_CORE_STRIDE 56   /* codes per core block */
#define HPM_CAT_NODE_BASE 992    /* first node-wide code */
#define HPM_CAT_NODE_SLOTS 32    /* node kinds in the first node block */
#define HPM_CAT_NODE2_BASE 896   /* second node block [896, 992) */
#define HPM_CAT_MAX_CORES 16     /* 16 * 56 <= 992 */
#define HPM_CAT_NAME_MAX 48      /* longest event name, with NUL */

/* Model features an event needs (hpm_catalog_features of a machine). */
enum hpm_cat_need {
    HPM_NEED_NONE = 0,
    HPM_NEED_HIER = 1u << 0,     /* the cache hierarchy runs */
    HPM_NEED_BPRED = 1u << 1,    /* the branch predictor runs */
    HPM_NEED_TLB = 1u << 2,      /* the TLBs run */
    HPM_NEED_TIMING = 1u << 3,   /* cycles: needs every model above */
    HPM_NEED_L2 = 1u << 4,       /* the machine has an L2 */
    HPM_NEED_L3 = 1u << 5,       /* ... an L3 */
    HPM_NEED_PREFETCH = 1u << 6, /* ... a private L2 with a stream prefetcher */
    HPM_NEED_FULL = 1u << 7,     /* FP and integer op classification */
    HPM_NEED_NET = 1u << 8,      /* the machine has a network ([torus]) and the
                                    program reports its traffic (libhpm-mpi) */
    HPM_NEED_COHERENT = 1u << 9, /* the machine keeps its cores' L1Ds coherent
                                    ([l1d] coherence, more than one core) */
};
/* The need bits that name a model (the others name machine features). */
#define HPM_NEED_MODELS (HPM_NEED_HIER | HPM_NEED_BPRED | HPM_NEED_TLB | HPM_NEED_TIMING)

enum hpm_cat_unit {
    HPM_UNIT_CORE = 0, /* instruction mix, loads/stores, system calls */
    HPM_UNIT_FPU,
    HPM_UNIT_BRANCH,
    HPM_UNIT_L1I,
    HPM_UNIT_L1D,
    HPM_UNIT_L2,
    HPM_UNIT_TLB,
    HPM_UNIT_L3,
    HPM_UNIT_DDR,
    HPM_UNIT_TIMING,
    HPM_UNIT_TORUS,      /* the 3D torus network (per link and direction) */
    HPM_UNIT_COLLECTIVE, /* the collective network */
    HPM_UNIT_IO,         /* the program's I/O system calls (BG/P's I/O node) */
    HPM_UNIT_KERNEL,     /* the kernel's work for the program (BG/P's CNK) */
    HPM_UNIT_COUNT
};

/* X(ENUM, UNIT, NEEDS, SOURCE, "value units", "tool event", "description"):
 * one row per kind, every fact about it in one place (libpfm4's event tables
 * are the model). SOURCE (enum hpm_cat_source): EXACT (the tool counts it
 * from the program: its instructions or its system calls' results), MODELED
 * (a model produces it) or HOST (measured on the host: clocks and getrusage
 * around the simulated program; reports say "measured"). Value units:
 * "events", "cycles", "bytes" or "ns". Tool event: the exact counter of the
 * Valgrind tool (src/vpmu_iface/vpmu_events.h, lower case) whose count the kind
 * is, or "" for the others (the I/O and kernel units' exact kinds come from
 * the tool's system call wrappers, src/vpmu/vpmu_io.c). Per-core kinds
 * first, in code order (at most HPM_CAT_CORE_STRIDE), then node kinds (at
 * most HPM_CAT_NODE_SLOTS in the first node block, then up to 96 in the
 * second). The order is ABI: codes are derived from it. Append only.
 * hpm_catalog_check validates the table. */
#define HPM_CAT_CORE_KINDS(X) \
    X(INSTRUCTIONS, CORE, NONE, EXACT, "events", "instructions", "instructions completed") \
    X(CYCLES, TIMING, TIMING, MODELED, "cycles", "", "modeled core cycles (timing model)") \
    X(LOADS, CORE, NONE, EXACT, "events", "loads", "memory read operations") \
    X(STORES, CORE, NONE, EXACT, "events", "stores", "memory write operations") \
    X(LOAD_BYTES, CORE, NONE, EXACT, "bytes", "load_bytes", "bytes read by load operations") \
    X(STORE_BYTES, CORE, NONE, EXACT, "bytes", "store_bytes", "bytes written by store operations") \
    X(INT_ADDSUB, CORE, FULL, EXACT, "events", "int_addsub", "integer add/subtract operations (IR level)") \
    X(INT_MUL, CORE, FULL, EXACT, "events", "int_mul", "integer multiply operations") \
    X(INT_DIV, CORE, FULL, EXACT, "events", "int_div", "integer divide operations") \
    X(INT_LOGIC, CORE, FULL, EXACT, "events", "int_logic", "integer logical operations (and, or, xor, not)") \
    X(BRANCHES, BRANCH, NONE, EXACT, "events", "branches", "branch instructions of every kind") \
    X(BR_COND, BRANCH, NONE, EXACT, "events", "br_cond", "conditional branches") \
    X(BR_COND_TAKEN, BRANCH, NONE, EXACT, "events", "br_cond_taken", "conditional branches taken") \
    X(BR_COND_NOT_TAKEN, BRANCH, NONE, EXACT, "events", "br_cond_not_taken", "conditional branches not taken") \
    X(BR_DIRECT, BRANCH, NONE, EXACT, "events", "br_direct", "unconditional direct jumps") \
    X(BR_INDIRECT, BRANCH, NONE, EXACT, "events", "br_indirect", "indirect jumps (calls and returns excluded)") \
    X(BR_CALLS, BRANCH, NONE, EXACT, "events", "br_call", "calls, direct and indirect") \
    X(BR_CALLS_INDIRECT, BRANCH, NONE, EXACT, "events", "br_call_indirect", "indirect calls") \
    X(BR_RETURNS, BRANCH, NONE, EXACT, "events", "br_ret", "returns") \
    X(BR_MISPREDICTS, BRANCH, BPRED, MODELED, "events", "", "mispredicted branches of every kind") \
    X(BR_COND_MISPREDICTS, BRANCH, BPRED, MODELED, "events", "", "mispredicted conditional branches (direction)") \
    X(BR_INDIRECT_MISPREDICTS, BRANCH, BPRED, MODELED, "events", "", "mispredicted indirect jump/call targets (BTB)") \
    X(BR_RETURN_MISPREDICTS, BRANCH, BPRED, MODELED, "events", "", "mispredicted return targets (return stack)") \
    X(SYSCALLS, CORE, NONE, EXACT, "events", "syscalls", "system calls") \
    X(FP_INSTRUCTIONS, FPU, FULL, EXACT, "events", "fp_instructions", "instructions with floating-point arithmetic") \
    X(FP_OPS, FPU, FULL, EXACT, "events", "fp_ops", "floating-point operations (flops; FMA = 2)") \
    X(FP_SP_SCALAR, FPU, FULL, EXACT, "events", "fp_sp_scalar", "single-precision scalar flops") \
    X(FP_SP_128, FPU, FULL, EXACT, "events", "fp_sp_128", "single-precision flops in 128-bit vectors") \
    X(FP_SP_256, FPU, FULL, EXACT, "events", "fp_sp_256", "single-precision flops in 256-bit vectors") \
    X(FP_DP_SCALAR, FPU, FULL, EXACT, "events", "fp_dp_scalar", "double-precision scalar flops") \
    X(FP_DP_128, FPU, FULL, EXACT, "events", "fp_dp_128", "double-precision flops in 128-bit vectors") \
    X(FP_DP_256, FPU, FULL, EXACT, "events", "fp_dp_256", "double-precision flops in 256-bit vectors") \
    X(FP_FMA, FPU, FULL, EXACT, "events", "fp_fma", "fused multiply-add lanes (each also 2 flops)") \
    X(FP_DIV, FPU, FULL, EXACT, "events", "fp_div", "floating-point division lanes") \
    X(FP_SQRT, FPU, FULL, EXACT, "events", "fp_sqrt", "floating-point square-root lanes") \
    X(L1I_ACCESSES, L1I, HIER, EXACT, "events", "instructions", "L1 instruction cache accesses (instruction fetches)") \
    X(L1I_MISSES, L1I, HIER, MODELED, "events", "", "L1 instruction cache misses") \
    X(L1D_READ_MISSES, L1D, HIER, MODELED, "events", "", "L1 data cache load misses") \
    X(L1D_WRITE_MISSES, L1D, HIER, MODELED, "events", "", "L1 data cache store misses") \
    X(L1D_MISSES, L1D, HIER, MODELED, "events", "", "L1 data cache misses") \
    X(L1D_WRITEBACKS, L1D, HIER, MODELED, "events", "", "dirty lines evicted from the L1 data cache") \
    X(L2_ACCESSES, L2, HIER | HPM_NEED_L2, MODELED, "events", "", "L2 requests from this core (L1 misses)") \
    X(L2_HITS, L2, HIER | HPM_NEED_L2, MODELED, "events", "", "L2 requests served by the L2") \
    X(L2_MISSES, L2, HIER | HPM_NEED_L2, MODELED, "events", "", "L2 requests not served by the L2") \
    X(L2_PREFETCHABLE_REQUESTS, L2, HIER | HPM_NEED_PREFETCH, MODELED, "events", "", "demand reads that advanced a prefetch stream") \
    X(L2_PREFETCH_HITS_IN_STREAM, L2, HIER | HPM_NEED_PREFETCH, MODELED, "events", "", "demand reads to a prefetched line") \
    X(L2_VALID_PREFETCHES, L2, HIER | HPM_NEED_PREFETCH, MODELED, "events", "", "prefetches fetched from below the L2") \
    X(L2_PREFETCH_ALREADY_IN_L2, L2, HIER | HPM_NEED_PREFETCH, MODELED, "events", "", "prefetches to a line already in the L2") \
    X(L2_CYCLES_PREFETCH_PENDING, L2, TIMING | HPM_NEED_PREFETCH, MODELED, "cycles", "", "cycles with a prefetch pending") \
    X(L3_HITS, L3, HIER | HPM_NEED_L3, MODELED, "events", "", "requests of this core served by the L3") \
    X(MEM_ACCESSES, DDR, HIER, MODELED, "events", "", "requests of this core served by memory (last-level misses)") \
    X(ITLB_MISSES, TLB, TLB, MODELED, "events", "", "instruction TLB misses") \
    X(DTLB_MISSES, TLB, TLB, MODELED, "events", "", "data TLB misses") \
    X(STALL_MEM_CYCLES, TIMING, TIMING, MODELED, "cycles", "", "cycles stalled on the memory hierarchy") \
    X(STALL_TLB_CYCLES, TIMING, TIMING, MODELED, "cycles", "", "cycles stalled on TLB refills") \
    X(STALL_BRANCH_CYCLES, TIMING, TIMING, MODELED, "cycles", "", "cycles lost to branch mispredictions")

#define HPM_CAT_NODE_KINDS(X) \
    X(NODE_CYCLES, TIMING, TIMING, MODELED, "cycles", "", "modeled node cycles: the largest core's cycles") \
    X(L3_READS, L3, HIER | HPM_NEED_L3, MODELED, "events", "", "L3 demand reads (fills asked for by the level above)") \
    X(L3_READ_MISSES, L3, HIER | HPM_NEED_L3, MODELED, "events", "", "L3 demand reads that missed") \
    X(L3_WRITEBACKS_IN, L3, HIER | HPM_NEED_L3, MODELED, "events", "", "write-backs received by the L3") \
    X(L3_WRITEBACKS, L3, HIER | HPM_NEED_L3, MODELED, "events", "", "dirty lines evicted from the L3") \
    X(DDR_READ_BYTES, DDR, HIER, MODELED, "bytes", "", "bytes read from DDR (demand and prefetch fills)") \
    X(DDR_WRITE_BYTES, DDR, HIER, MODELED, "bytes", "", "bytes written to DDR (write-backs)") \
    X(DDR_READS, DDR, HIER, MODELED, "events", "", "line reads from DDR (demand and prefetch fills)") \
    X(DDR_WRITES, DDR, HIER, MODELED, "events", "", "line writes to DDR (write-backs)") \
    X(TORUS_XP_PACKETS_SENT, TORUS, NET, MODELED, "events", "", "torus packets sent on the X+ link (injected and forwarded)") \
    X(TORUS_XM_PACKETS_SENT, TORUS, NET, MODELED, "events", "", "torus packets sent on the X- link (injected and forwarded)") \
    X(TORUS_YP_PACKETS_SENT, TORUS, NET, MODELED, "events", "", "torus packets sent on the Y+ link (injected and forwarded)") \
    X(TORUS_YM_PACKETS_SENT, TORUS, NET, MODELED, "events", "", "torus packets sent on the Y- link (injected and forwarded)") \
    X(TORUS_ZP_PACKETS_SENT, TORUS, NET, MODELED, "events", "", "torus packets sent on the Z+ link (injected and forwarded)") \
    X(TORUS_ZM_PACKETS_SENT, TORUS, NET, MODELED, "events", "", "torus packets sent on the Z- link (injected and forwarded)") \
    X(TORUS_XP_PACKETS_RECV, TORUS, NET, MODELED, "events", "", "torus packets received travelling X+ (delivered and forwarded)") \
    X(TORUS_XM_PACKETS_RECV, TORUS, NET, MODELED, "events", "", "torus packets received travelling X- (delivered and forwarded)") \
    X(TORUS_YP_PACKETS_RECV, TORUS, NET, MODELED, "events", "", "torus packets received travelling Y+ (delivered and forwarded)") \
    X(TORUS_YM_PACKETS_RECV, TORUS, NET, MODELED, "events", "", "torus packets received travelling Y- (delivered and forwarded)") \
    X(TORUS_ZP_PACKETS_RECV, TORUS, NET, MODELED, "events", "", "torus packets received travelling Z+ (delivered and forwarded)") \
    X(TORUS_ZM_PACKETS_RECV, TORUS, NET, MODELED, "events", "", "torus packets received travelling Z- (delivered and forwarded)") \
    X(TORUS_XP_BYTES_SENT, TORUS, NET, MODELED, "bytes", "", "payload bytes sent on the X+ link (injected and forwarded)") \
    X(TORUS_XM_BYTES_SENT, TORUS, NET, MODELED, "bytes", "", "payload bytes sent on the X- link (injected and forwarded)") \
    X(TORUS_YP_BYTES_SENT, TORUS, NET, MODELED, "bytes", "", "payload bytes sent on the Y+ link (injected and forwarded)") \
    X(TORUS_YM_BYTES_SENT, TORUS, NET, MODELED, "bytes", "", "payload bytes sent on the Y- link (injected and forwarded)") \
    X(TORUS_ZP_BYTES_SENT, TORUS, NET, MODELED, "bytes", "", "payload bytes sent on the Z+ link (injected and forwarded)") \
    X(TORUS_ZM_BYTES_SENT, TORUS, NET, MODELED, "bytes", "", "payload bytes sent on the Z- link (injected and forwarded)") \
    X(TORUS_BYTES_RECV, TORUS, NET, MODELED, "bytes", "", "payload bytes received on every torus link (delivered and forwarded)") \
    X(TORUS_HOPS, TORUS, NET, MODELED, "events", "", "link crossings of the torus packets this node injected") \
    X(COLL_OPS, COLLECTIVE, NET, MODELED, "events", "", "collective operations of this node's rank (collective network)") \
    X(COLL_BYTES, COLLECTIVE, NET, MODELED, "bytes", "", "bytes this node's rank contributed to collective operations") \
    X(IO_READS, IO, NONE, EXACT, "events", "", "read calls that succeeded (read, readv, pread*, preadv*, recv*)") \
    X(IO_READ_BYTES, IO, NONE, EXACT, "bytes", "", "bytes the kernel returned to read calls") \
    X(IO_WRITES, IO, NONE, EXACT, "events", "", "write calls that succeeded (write, writev, pwrite*, pwritev*, send*, sendfile, copy_file_range)") \
    X(IO_WRITE_BYTES, IO, NONE, EXACT, "bytes", "", "bytes the kernel accepted from write calls") \
    X(IO_FILE_READS, IO, NONE, EXACT, "events", "", "read calls that succeeded on regular files") \
    X(IO_FILE_READ_BYTES, IO, NONE, EXACT, "bytes", "", "bytes read from regular files") \
    X(IO_FILE_WRITES, IO, NONE, EXACT, "events", "", "write calls that succeeded on regular files") \
    X(IO_FILE_WRITE_BYTES, IO, NONE, EXACT, "bytes", "", "bytes written to regular files") \
    X(IO_PIPE_READS, IO, NONE, EXACT, "events", "", "read calls that succeeded on pipes and FIFOs") \
    X(IO_PIPE_READ_BYTES, IO, NONE, EXACT, "bytes", "", "bytes read from pipes and FIFOs") \
    X(IO_PIPE_WRITES, IO, NONE, EXACT, "events", "", "write calls that succeeded on pipes and FIFOs") \
    X(IO_PIPE_WRITE_BYTES, IO, NONE, EXACT, "bytes", "", "bytes written to pipes and FIFOs") \
    X(IO_SOCK_READS, IO, NONE, EXACT, "events", "", "read calls that succeeded on sockets") \
    X(IO_SOCK_READ_BYTES, IO, NONE, EXACT, "bytes", "", "bytes read from sockets") \
    X(IO_SOCK_WRITES, IO, NONE, EXACT, "events", "", "write calls that succeeded on sockets") \
    X(IO_SOCK_WRITE_BYTES, IO, NONE, EXACT, "bytes", "", "bytes written to sockets") \
    X(IO_TTY_READS, IO, NONE, EXACT, "events", "", "read calls that succeeded on terminals") \
    X(IO_TTY_READ_BYTES, IO, NONE, EXACT, "bytes", "", "bytes read from terminals") \
    X(IO_TTY_WRITES, IO, NONE, EXACT, "events", "", "write calls that succeeded on terminals") \
    X(IO_TTY_WRITE_BYTES, IO, NONE, EXACT, "bytes", "", "bytes written to terminals") \
    X(IO_OTHER_READS, IO, NONE, EXACT, "events", "", "read calls that succeeded on other descriptors (devices, eventfd, ...)") \
    X(IO_OTHER_READ_BYTES, IO, NONE, EXACT, "bytes", "", "bytes read from other descriptors (devices, eventfd, ...)") \
    X(IO_OTHER_WRITES, IO, NONE, EXACT, "events", "", "write calls that succeeded on other descriptors (devices, eventfd, ...)") \
    X(IO_OTHER_WRITE_BYTES, IO, NONE, EXACT, "bytes", "", "bytes written to other descriptors (devices, eventfd, ...)") \
    X(IO_READ_ERRORS, IO, NONE, EXACT, "events", "", "read calls the kernel failed (bad descriptor or buffer, EAGAIN, EINTR, ...)") \
    X(IO_WRITE_ERRORS, IO, NONE, EXACT, "events", "", "write calls the kernel failed") \
    X(IO_OPENS, IO, NONE, EXACT, "events", "", "descriptors opened by open, openat, openat2, creat") \
    X(IO_OPEN_ERRORS, IO, NONE, EXACT, "events", "", "open calls the kernel failed") \
    X(IO_CLOSES, IO, NONE, EXACT, "events", "", "descriptors closed by close") \
    X(IO_SEEKS, IO, NONE, EXACT, "events", "", "lseek calls that succeeded") \
    X(IO_SYNCS, IO, NONE, EXACT, "events", "", "fsync, fdatasync, sync, syncfs, sync_file_range, msync calls that succeeded") \
    X(IO_FILE_MMAPS, IO, NONE, EXACT, "events", "", "mmap calls that mapped a file") \
    X(IO_HOST_NS, IO, NONE, HOST, "ns", "", "host time in the read, write, open, close, seek and sync calls (measured: wall clock around the call)") \
    X(IO_READ_HOST_NS, IO, NONE, HOST, "ns", "", "host time in read calls (measured)") \
    X(IO_WRITE_HOST_NS, IO, NONE, HOST, "ns", "", "host time in write calls (measured)") \
    X(KERNEL_SYSCALLS, KERNEL, NONE, EXACT, "events", "", "system calls the program made (every class below)") \
    X(KERNEL_SYSCALLS_IO, KERNEL, NONE, EXACT, "events", "", "system calls of class io: descriptors, files, sockets, polling") \
    X(KERNEL_SYSCALLS_MEMORY, KERNEL, NONE, EXACT, "events", "", "system calls of class memory: mmap, munmap, brk, mprotect, madvise, ...") \
    X(KERNEL_SYSCALLS_PROCESS, KERNEL, NONE, EXACT, "events", "", "system calls of class process: processes, threads, ids, scheduling, limits") \
    X(KERNEL_SYSCALLS_SIGNAL, KERNEL, NONE, EXACT, "events", "", "system calls of class signal: signal handling, masks, kill") \
    X(KERNEL_SYSCALLS_TIME, KERNEL, NONE, EXACT, "events", "", "system calls of class time: clocks, timers, sleeps") \
    X(KERNEL_SYSCALLS_SYNC, KERNEL, NONE, EXACT, "events", "", "system calls of class sync: futexes and other waits") \
    X(KERNEL_SYSCALLS_OTHER, KERNEL, NONE, EXACT, "events", "", "system calls of class other: every other system call") \
    X(KERNEL_SIGNALS, KERNEL, NONE, EXACT, "events", "", "signals delivered to the program's handlers") \
    X(KERNEL_HOST_SYSCALL_NS, KERNEL, NONE, HOST, "ns", "", "host time in the program's system calls (measured: wall clock around the call)") \
    X(KERNEL_HOST_SYSTEM_NS, KERNEL, NONE, HOST, "ns", "", "host CPU time in kernel mode (measured: getrusage; includes Valgrind)") \
    X(KERNEL_HOST_MINOR_FAULTS, KERNEL, NONE, HOST, "events", "", "minor page faults (measured: getrusage; includes Valgrind)") \
    X(KERNEL_HOST_MAJOR_FAULTS, KERNEL, NONE, HOST, "events", "", "major page faults (measured: getrusage; includes Valgrind)") \
    X(KERNEL_HOST_VOL_CSWITCHES, KERNEL, NONE, HOST, "events", "", "voluntary context switches (measured: getrusage; includes Valgrind)") \
    X(KERNEL_HOST_INVOL_CSWITCHES, KERNEL, NONE, HOST, "events", "", "involuntary context switches (measured: getrusage; includes Valgrind)") \
    X(COH_L1D_MISSES, L1D, HIER | HPM_NEED_COHERENT, MODELED, "events", "", "L1 data cache misses to lines another core's store had invalidated (coherence misses), all cores") \
    X(COH_INVALIDATIONS, L1D, HIER | HPM_NEED_COHERENT, MODELED, "events", "", "L1 data cache lines invalidated by another core's store, all cores") \
    X(COH_SNOOPS, L1D, HIER | HPM_NEED_COHERENT, MODELED, "events", "", "coherence requests a snoop filter passed to its core's L1 data cache (it held the line), all cores") \
    X(COH_INTERVENTIONS, L1D, HIER | HPM_NEED_COHERENT, MODELED, "events", "", "modified L1 data cache lines another core's miss or store took (MESI), all cores") \
    X(COH_REQUESTS, L1D, HIER | HPM_NEED_COHERENT, MODELED, "events", "", "coherence requests: stores to lines not held modified, and MESI's read misses, all cores")

#define HPM_CAT_ENUM_(e, u, n, s, v, t, d) HPM_K_##e,
enum hpm_cat_kind {
    HPM_CAT_CORE_KINDS(HPM_CAT_ENUM_) HPM_K_CORE_COUNT,
    HPM_K_NODE_FIRST_ = HPM_K_CORE_COUNT - 1,
    HPM_CAT_NODE_KINDS(HPM_CAT_ENUM_) HPM_K_COUNT
};
#undef HPM_CAT_ENUM_
#define HPM_K_NODE_COUNT (HPM_K_COUNT - HPM_K_CORE_COUNT)

enum hpm_cat_source {
    HPM_SRC_MODELED = 0, /* a model produces it */
    HPM_SRC_EXACT,       /* counted exactly from the program */
    HPM_SRC_HOST,        /* measured on the host (clocks, getrusage) */
};

struct hpm_cat_kind_info {
    const char *name;        /* e.g. "L1D_MISSES" */
    const char *description;
    const char *units;       /* "events", "cycles", "bytes", "ns" */
    const char *tool_event;  /* the tool's exact counter it is, "" if modeled */
    uint8_t unit;            /* enum hpm_cat_unit */
    uint8_t node;            /* 1 = node-wide, 0 = per core */
    uint16_t needs;          /* enum hpm_cat_need bits */
    uint8_t source;          /* enum hpm_cat_source */
};

/* NULL when kind >= HPM_K_COUNT. */
const struct hpm_cat_kind_info *hpm_catalog_kind(unsigned kind);
/* Validates the table (names unique, upper case and short enough with a
 * PU15_ prefix, units known, a tool event only for exact kinds, needs
 * consistent with the unit): 0, or -1 with the first problem in why. */
int hpm_catalog_check(char *why, size_t len);
const char *hpm_catalog_unit_name(unsigned unit); /* "core", "fpu", ... */
/* "modeled", "exact" or "measured" (enum hpm_cat_source), as reports write it. */
const char *hpm_catalog_source_name(unsigned source);

/* Codes. hpm_catalog_code returns -1 for a bad kind or core (core is ignored
 * for node kinds). hpm_catalog_decode returns 0 and fills kind and core
 * (core = -1 for node events) or -1 for a code no event uses, and for a
 * spec with a mode (below): a reader that knows no modes skips those. */
int hpm_catalog_code(unsigned kind, int core);
int hpm_catalog_decode(unsigned code, unsigned *kind, int *core);

/* ---------------------------------------------------------------- modes
 * The UPC's four counting modes (seed 000, section 6; docs/events.md,
 * "Counting modes"), on each event's per-cycle signal: an event kind pulses
 * one cycle per event, a "cycles" kind is high for its cycles (a stall is
 * one episode per miss, refill or mispredict). An event spec is a code with
 * the mode its counter counts in: spec = code + mode * HPM_CAT_CODES, so a
 * level-high spec is its code. Names carry the mode as a suffix
 * ("STALL_MEM_CYCLES:edge-rise"); level high is the default and has none. */
enum hpm_cat_mode {
    HPM_CAT_LEVEL_HIGH = 0, /* cycles the signal is high: the event's count */
    HPM_CAT_LEVEL_LOW = 1,  /* cycles it is low */
    HPM_CAT_EDGE_RISE = 2,  /* 0 -> 1 transitions: events, or episodes of a cycles kind */
    HPM_CAT_EDGE_FALL = 3,  /* 1 -> 0 transitions */
};
#define HPM_CAT_MODES 4
#define HPM_CAT_SPECS (HPM_CAT_CODES * HPM_CAT_MODES)

static inline unsigned hpm_catalog_spec(unsigned code, unsigned mode)
{
    return code + mode * HPM_CAT_CODES;
}
static inline unsigned hpm_catalog_spec_code(unsigned spec) { return spec % HPM_CAT_CODES; }
static inline unsigned hpm_catalog_spec_mode(unsigned spec) { return spec / HPM_CAT_CODES; }
/* hpm_catalog_decode of a spec's code, and its mode: 0, or -1 (unused). */
int hpm_catalog_spec_decode(unsigned spec, unsigned *kind, int *core, unsigned *mode);
/* "level-high", "level-low", "edge-rise", "edge-fall"; NULL past them. */
const char *hpm_catalog_mode_name(unsigned mode);
/* What a count in the mode is, for reports ("rising edges: one per event
 * or episode"); NULL for level high (the event's count) and past them. */
const char *hpm_catalog_mode_meaning(unsigned mode);
/* The mode named by s[0..len) (case-insensitive), or -1. */
int hpm_catalog_mode_by_name(const char *s, size_t len);
/* What a spec's count is in: its kind's units in level high, "cycles" in
 * level low, "events" in the edge modes; NULL for an unused spec. */
const char *hpm_catalog_spec_units(unsigned spec);
/* What counting a spec needs (enum hpm_cat_need bits): its kind's needs,
 * and in any mode but level high the timing model, whose cycles are the
 * clock a mode's signal is laid out in; 0 for an unused spec. */
unsigned hpm_catalog_spec_needs(unsigned spec);

/* Features a machine provides (enum hpm_cat_need bits, all of them when the
 * hierarchy has the level), and whether an event can be counted there. */
struct hpm_hier_params;
unsigned hpm_catalog_features(const struct hpm_hier_params *hier);
int hpm_catalog_provided(unsigned kind, int core, unsigned cores, unsigned features);

/* Write "PU<n>_<KIND>" or "<NODE_KIND>", and a spec's ":mode" suffix, into
 * buf (HPM_CAT_NAME_MAX bytes suffice). Returns the length, or -1 for an
 * unused code. */
int hpm_catalog_code_name(unsigned code, char *buf, size_t len);

enum hpm_cat_error {
    HPM_CAT_EUNKNOWN = -1,     /* no such event name */
    HPM_CAT_ECORE = -2,        /* PU<n> with n >= the machine's cores */
    HPM_CAT_ENOTPROVIDED = -3, /* the machine model cannot provide it */
    HPM_CAT_ESPACE = -4,       /* codes[] too small */
};
const char *hpm_catalog_strerror(int err);

/* ---------------------------------------------------------------- names
 * The one parser of event names (every tool, component and reader of files
 * goes through it) and the one case-insensitive compare. */

enum hpm_cat_scope {
    HPM_CAT_SCOPE_CORE = 0, /* PU<n>_<KIND>: the kind on core n */
    HPM_CAT_SCOPE_KIND,     /* <KIND>: a per-core kind, scope left to the measurement:
                               every core of the node in a node-wide count (hpm count),
                               the calling thread in a thread's count (libhpm, PAPI);
                               docs/events.md */
    HPM_CAT_SCOPE_NODE,     /* <NODE_KIND>: a node-wide event */
};

struct hpm_cat_name {
    unsigned kind;                  /* enum hpm_cat_kind */
    int core;                       /* n of PU<n>_, else -1 */
    enum hpm_cat_scope scope;
    unsigned mode;                  /* enum hpm_cat_mode: a ":edge-rise" suffix */
    char canonical[HPM_CAT_NAME_MAX]; /* "PU0_L1D_MISSES", "STALL_MEM_CYCLES:edge-rise" */
};

/* 1 when a[0..alen) equals the NUL-terminated b, ignoring ASCII case. */
int hpm_catalog_name_eq(const char *a, size_t alen, const char *b);
/* The kind named by s[0..len) (no PU prefix), or -1. */
int hpm_catalog_kind_by_name(const char *s, size_t len);
/* Splits a "PU<n>_" prefix off s: returns 1 with *core = n and *rest after
 * the '_', or 0 (no prefix: *rest = s). n is not checked against anything. */
int hpm_catalog_split_core(const char *s, int *core, const char **rest);
/* Parses a name's syntax, "[PU<n>_]KIND[:MODE]": 0 and *out, or
 * HPM_CAT_EUNKNOWN (no such kind or mode, a node kind with a PU prefix; a
 * core number >= HPM_CAT_MAX_CORES is HPM_CAT_ECORE). Nothing about a
 * machine is checked. */
int hpm_catalog_parse(const char *name, struct hpm_cat_name *out);
/* Why a machine with these features cannot count kind ("it has no L3"),
 * or NULL when it can. */
const char *hpm_catalog_missing_reason(unsigned kind, unsigned features);
/* The codes of a parsed name on a machine of `cores` cores and `features`:
 * PU<n>_ one code, a bare per-core kind cores 0..cores-1, a node kind one.
 * Writes them to codes[max] in core order and returns how many, or a
 * negative enum hpm_cat_error. With a mode, they are specs. */
int hpm_catalog_codes(const struct hpm_cat_name *n, unsigned cores, unsigned features,
                      int *codes, unsigned max);

/* The perf_event event (the perf component's name) that counts kind on a
 * host's core, or NULL: the virtual PMU only (hpm count --pmu=perf). */
const char *hpm_catalog_perf_event(unsigned kind);

/* hpm_catalog_parse + hpm_catalog_codes. *kind_out (may be NULL) receives
 * the kind whenever the name parses. */
int hpm_catalog_lookup(const char *name, unsigned cores, unsigned features, int *codes,
                       unsigned max, unsigned *kind_out);

#ifdef __cplusplus
}
#endif
#endif
