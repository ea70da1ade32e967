/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpmu_format.h - the output file of the virtual PMU, defined once: the tool
 * writes it (vpmu_dump.c) and hpm reads it (tools/hpm/vpmu_output.c), both
 * with these names. (BSD-3-Clause like hpm_client.h: the reader is not GPL.)
 *
 * One record per line, fields separated by one space:
 *     hpm-vpmu 2                         format version
 *     command PROGRAM ARG...             (arguments verbatim)
 *     pid N
 *     ppid N                             its parent when it ended
 *     machine NAME
 *     cores N                            modeled cores
 *     frequency_hz N
 *     level insn|core|full               instrumentation that ran
 *     models hier bpred tlb timing       models that ran, or "models none"
 *     upcs N                             UPC units used
 *     exit status N | exit signal        exit_group(N), or death by a signal;
 *       | exit exec                      or a segment written before execve
 *                                        (FILE.execK, docs/vpmu.md)
 *     threads N                          threads that ever ran
 *     thread T core C                    thread serial T ran on core C
 *     count CODE NAME VALUE              node-wide count, read from the UPC;
 *                                        CODE is a spec (code + 1024 * the
 *                                        counting mode) and NAME says the mode
 *     thread T KIND VALUE                per-thread count of a per-core kind,
 *                                        from UPC reads at thread switches
 *     raw thread T event VALUE           exact tool counters (lower case),
 *     raw total event VALUE              kept for cross-checking the UPC path
 *     region NAME thread T entries N     region NAME closed N times by T
 *     region NAME thread T KIND VALUE    per-thread counts inside the region
 *     upc_writes N                       UPC register writes by the program
 *     forks N                            processes it started
 *     interleave N SWITCHES              threads took turns of N instructions
 *                                        (--hpm-interleave); SWITCHES turns
 *                                        passed to another thread
 *     coherence_time LOGGED MISSES HOST  the contended lines' accesses were
 *                                        replayed in the threads' modeled
 *                                        time (--hpm-coherence=time): LOGGED
 *                                        accesses, MISSES coherence misses
 *                                        the replay found where the access
 *                                        had hit, HOST returns from blocking
 *                                        calls at points the host chose
 *     host_timed CALL N                  of those returns (interleave's and
 *                                        coherence_time's HOST), N came
 *                                        back from the system call CALL
 *                                        (its name), or, for CALL "wait",
 *                                        were waits for a thread the tool
 *                                        gave up; the most frequent first,
 *                                        the rest as CALL "other"
 *     shared_lines KEPT DROPPED WRITTEN  on a node that keeps contended cache
 *                                        lines (prof_c2c_lines below), when
 *                                        some line was (a store took it from
 *                                        another core): lines kept, lines
 *                                        not kept (the table was full), of
 *                                        the kept ones those that two or
 *                                        more cores wrote
 *     shared_line ADDR BYTES MISSES INVALIDATIONS WRITERS SHARING OBJECT...
 *                                        one of the kept lines (at most 16,
 *                                        most coherence misses first): its
 *                                        address (hex) and size, its
 *                                        coherence misses, the copies of it
 *                                        stores invalidated, how many cores
 *                                        wrote it, SHARING true or false
 *                                        (what most of its misses were; a
 *                                        line without misses: whether some
 *                                        core's bytes overlap bytes another
 *                                        wrote), and its data object in words
 *                                        (the rest of the line)
 *     upc U counters N lost_carries N parity_errors N
 *     reaped PID signal N                a child it waited for was killed by
 *                                        signal N (one that SIGKILL killed
 *                                        wrote no output of its own)
 *     exec_native PATH                   in a segment: the execve runs PATH
 *                                        natively (--trace-children-skip),
 *                                        so no output follows it
 *   with --hpm-mpx (hpm count --multiplex), the counts are each event's
 *   over the intervals its set was programmed, and:
 *     mpx SETS PERIOD KIND SWITCHES      SETS sets cycled every PERIOD events
 *                                        of KIND (the correlate), SWITCHES
 *                                        times
 *     mpx_set S INTERVALS CORRELATE SPEC,...  set S: how many intervals it
 *                                        was programmed, the correlate's
 *                                        count in them, its specs
 *   with --hpm-profile=yes (hpm profile), at the end:
 *     prof_kind KIND TOTAL               a profiled kind (column order), its
 *                                        total over cores as the UPC read it
 *     prof_object ID START END OFFSET PATH  file mapping [START, END] (hex)
 *                                        of PATH at file OFFSET (hex)
 *     prof_insn ADDR OBJ K:V...          instruction at ADDR (hex) in object
 *                                        OBJ (0: none), its count V of the
 *                                        K-th kind (0-based; absent: 0)
 *     prof_call SITE TARGET CALLS K:V... calls from the instruction at SITE to
 *                                        TARGET (hex): number, inclusive costs
 *                                        (of the outermost calls: recursion
 *                                        is counted once)
 *     prof_call_in SOBJ TOBJ SITE TARGET CALLS K:V...  a call as prof_call,
 *                                        with the objects of its site and
 *                                        target (written only where code
 *                                        was unmapped and an address may
 *                                        have held two objects: a
 *                                        dlclose'd library and the next)
 *     prof_data KIND WHERE FROM OBJ BLOCKS BYTES K:V...  a data object: KIND
 *                                        heap (WHERE = the allocating call's
 *                                        address, FROM = the call into the
 *                                        function that made it, 0 if none;
 *                                        BLOCKS and BYTES allocated there),
 *                                        global (a 64-byte line in
 *                                        mapping OBJ; WHERE = its first
 *                                        address that missed), stack, other;
 *                                        the kinds of its data accesses that
 *                                        missed the L1
 *     prof_c2c_lines KEPT DROPPED        on a node that keeps contended cache
 *                                        lines (coherent L1Ds, 2 to 64 cores;
 *                                        src/model/README.md): lines kept,
 *                                        lines that came once the table was
 *                                        full (not kept, not listed)
 *     prof_c2c ADDR BYTES GRANULE MISSES INVALIDATIONS DKIND DWHERE DFROM DOBJ DSTART
 *                                        a contended line at ADDR (hex) of
 *                                        BYTES bytes, GRANULE bytes per mask
 *                                        bit, its coherence misses and the
 *                                        copies of it stores invalidated;
 *                                        the data object of its lowest byte
 *                                        that a core touched, as sample
 *                                        names one (DKIND heap, global,
 *                                        stack, other; heap: DWHERE, DFROM
 *                                        the allocation's calls, DSTART the
 *                                        block's first byte; global: DWHERE
 *                                        that byte, DOBJ its mapping)
 *     prof_c2c_core ADDR CORE READ WRITTEN MISSES TRUE INVALIDATIONS  one
 *                                        core's share of the line at ADDR:
 *                                        masks (hex, bit i = the GRANULE
 *                                        bytes at i * GRANULE) of the bytes
 *                                        its loads and stores that moved the
 *                                        line touched, its coherence misses
 *                                        on it, TRUE of them true sharing
 *                                        (bytes another core stored since
 *                                        its previous miss), the copies its
 *                                        stores invalidated
 *   with --hpm-sample=KIND:PERIOD,... (hpm record, with --hpm-profile=yes):
 *     sample_limit N                     samples kept per modeled second per core
 *     sample_kind KIND PERIOD SEEN TAKEN THROTTLED  a sampled kind: its period,
 *                                        events seen while counting (every
 *                                        thread), samples written, samples
 *                                        the rate limit dropped
 *     sample KIND IP DATA T LWP CORE NS ACC SERVED TLB LAT DKIND DWHERE DFROM DOBJ SITE...
 *                                        one sample: the instruction
 *                                        at IP (hex) caused the PERIOD-th
 *                                        event of KIND on thread serial T
 *                                        (kernel thread id LWP) on CORE,
 *                                        data address DATA (hex, 0 for a
 *                                        fetch), at modeled time NS
 *                                        (nanoseconds of the core); its
 *                                        access ACC (load, store, fetch),
 *                                        the level that SERVED it (L1, L2,
 *                                        L3, MEM), TLB (tlbhit, tlbmiss),
 *                                        its modeled latency LAT in cycles
 *                                        ("- - - 0": no access); its data
 *                                        object as prof_data names it
 *                                        (DKIND heap, global, stack, other,
 *                                        DWHERE and DFROM hex, DOBJ the
 *                                        mapping; "- 0 0 0": none); the
 *                                        open calls' call instructions,
 *                                        innermost first (hex, at most 32)
 *     sample_latency load|store LAT LEVEL TLB COUNT  the accesses while
 *                                        counting at that latency, level
 *                                        and TLB lookup (every one, sampled
 *                                        or not: the exact histogram)
 *     sample_mmap START END OFFSET NS PATH  code mapped while sampling
 *                                        (hex range and offset) at modeled
 *                                        time NS
 *   (each file holds the samples since the previous segment: the samples of
 *   a process are those of its segments together)
 * Thread numbers are serials, not Valgrind ThreadIds (which are reused).
 * Records a reader does not know are skipped, so a newer tool may add some;
 * upc_writes and forks are written only when not 0, interleave only with
 * --hpm-interleave, coherence_time only with --hpm-coherence=time,
 * shared_lines only when some line was contended.
 */
#ifndef HPM_VPMU_FORMAT_H
#define HPM_VPMU_FORMAT_H

#define VPMU_FORMAT_MAGIC "hpm-vpmu"
#define VPMU_FORMAT_VERSION 2

#define VPMU_REC_COMMAND "command"
#define VPMU_REC_PID "pid"
#define VPMU_REC_PPID "ppid"
#define VPMU_REC_MACHINE "machine"
#define VPMU_REC_CORES "cores"
#define VPMU_REC_FREQUENCY "frequency_hz"
#define VPMU_REC_LEVEL "level"
#define VPMU_REC_MODELS "models"
#define VPMU_REC_UPCS "upcs"
#define VPMU_REC_EXIT "exit"
#define VPMU_EXIT_WORD_STATUS "status"
#define VPMU_EXIT_WORD_SIGNAL "signal"
#define VPMU_EXIT_WORD_EXEC "exec"
#define VPMU_EXIT_WORD_SLOTS "slots" /* slots N: no thread slot was left of N */
#define VPMU_REC_THREADS "threads"
#define VPMU_REC_THREAD "thread"
#define VPMU_THREAD_WORD_CORE "core"
#define VPMU_REC_COUNT "count"
#define VPMU_REC_RAW "raw"
#define VPMU_REC_REGION "region"
#define VPMU_REGION_WORD_ENTRIES "entries"
#define VPMU_REC_UPC_WRITES "upc_writes"
#define VPMU_REC_FORKS "forks"
#define VPMU_REC_INTERLEAVE "interleave"
#define VPMU_REC_COHERENCE_TIME "coherence_time"
#define VPMU_REC_SHARED_LINES "shared_lines"
#define VPMU_REC_HOST_TIMED "host_timed"
#define VPMU_HOST_TIMED_WAIT "wait"   /* a wait for a thread given up */
#define VPMU_HOST_TIMED_OTHER "other" /* the calls past the listed ones */
#define VPMU_HOST_TIMED_LISTED 8      /* calls listed by name at most */
#define VPMU_REC_SHARED_LINE "shared_line"
#define VPMU_REC_UPC "upc"
#define VPMU_REC_REAPED "reaped"
#define VPMU_REC_EXEC_NATIVE "exec_native"
#define VPMU_REC_MPX "mpx"
#define VPMU_REC_MPX_SET "mpx_set"
#define VPMU_UPC_WORD_COUNTERS "counters"
#define VPMU_UPC_WORD_LOST "lost_carries"
#define VPMU_UPC_WORD_PARITY "parity_errors"

#define VPMU_REC_PROF_KIND "prof_kind"
#define VPMU_REC_PROF_OBJECT "prof_object"
#define VPMU_REC_PROF_INSN "prof_insn"
#define VPMU_REC_PROF_CALL "prof_call"
#define VPMU_REC_PROF_CALL_IN "prof_call_in"
#define VPMU_REC_PROF_DATA "prof_data"
/* prof_jump SITE OBJ TARGET EXECUTED TAKEN: a direct branch, executed
 * and taken so often (the control-flow graph's edges: loops) */
#define VPMU_REC_PROF_JUMP "prof_jump"
#define VPMU_REC_PROF_C2C_LINES "prof_c2c_lines"
#define VPMU_REC_PROF_C2C "prof_c2c"
#define VPMU_REC_PROF_C2C_CORE "prof_c2c_core"

#define VPMU_REC_SAMPLE_LIMIT "sample_limit"
#define VPMU_REC_SAMPLE_KIND "sample_kind"
#define VPMU_REC_SAMPLE "sample"

/* The segment a process writes before execve: FILE + this + K (1, 2, ...). */
#define VPMU_EXEC_SUFFIX ".exec"

#endif
