/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * model.h - models of a compute node's caches, TLBs, stream prefetcher,
 * branch predictor and timing, driven one event at a time by the virtual PMU.
 *
 * Freestanding: nothing here calls libc, so the same code runs inside the
 * Valgrind tool (no libc) and in ordinary programs. Every model lives in
 * caller storage: ask hpm_X_storage_size(params) for the bytes, hand
 * 8-byte-aligned storage of that size to hpm_X_init. Nothing is allocated.
 *
 * Caches follow cachegrind's cg_sim.c so that runs can be cross-checked:
 *   - tags are line (block) numbers, LRU is kept by moving the line to way 0
 *     (way 0 is the MRU way, which is also the fast path);
 *   - an access that straddles lines touches every line it covers but counts
 *     as ONE access, and as one miss if any line missed;
 *   - the next level is accessed with the same (addr, size) only when the level
 *     above missed, and reads and writes allocate alike.
 * hpm adds dirty bits and write-back counting on top: a write marks the line
 * dirty, evicting a dirty line counts a write-back, and the write-back is
 * passed down as "mark dirty if present, else go further down, else DDR"
 * without touching any LRU order, so hit/miss results stay exactly
 * cachegrind's (README.md, "Write-backs").
 *
 * See README.md in this folder for the prefetcher and timing models.
 */
#ifndef HPM_MODEL_H
#define HPM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hpm_model_error {
    HPM_MODEL_OK = 0,
    HPM_MODEL_EPARAM = -1, /* parameters invalid (see the *_params_check) */
    HPM_MODEL_ENOMEM = -2, /* storage too small */
    HPM_MODEL_ENULL = -3,  /* required pointer is NULL */
    HPM_MODEL_EALIGN = -4, /* storage not 8-byte aligned */
    HPM_MODEL_ERANGE = -5, /* core index or class out of range */
};
const char *hpm_model_strerror(int err);

/* ------------------------------------------------------------------ caches */

enum hpm_repl {
    HPM_REPL_LRU = 0,    /* exact LRU, as cachegrind */
    HPM_REPL_FIFO = 1,   /* = round-robin per set (PowerPC 440/450 L1) */
    HPM_REPL_RANDOM = 2, /* xorshift32 victim choice from `seed`: reproducible */
};

struct hpm_cache_params {
    uint64_t size;   /* bytes; 0 = level absent (hierarchy only) */
    uint32_t assoc;  /* ways; 0 = fully associative (size / line ways) */
    uint32_t line;   /* bytes; power of two, 4 .. 65536 */
    uint32_t policy; /* enum hpm_repl */
    uint32_t seed;   /* HPM_REPL_RANDOM only; 0 picks a fixed default */
    uint32_t shared; /* hierarchy only: 1 = one instance for all cores */
};
/* Valid when size / line / ways sets is a power of two (>= 1) and
 * line * ways * sets == size. */
int hpm_cache_params_check(const struct hpm_cache_params *p);

/* Counters. At the first level reads/writes are loads/stores (instruction
 * fetches are reads). At lower levels reads are demand fills asked for by the
 * level above and writes are write-backs received from it; a received
 * write-back "hits" when the line is present. fills = lines brought in. */
struct hpm_cache_stats {
    uint64_t read_accesses, read_hits, read_misses;
    uint64_t write_accesses, write_hits, write_misses;
    uint64_t fills;      /* lines installed (demand + prefetch) */
    uint64_t writebacks; /* dirty lines evicted */
};

struct hpm_cache;
size_t hpm_cache_storage_size(const struct hpm_cache_params *p);
int hpm_cache_init(struct hpm_cache **out, const struct hpm_cache_params *p, void *storage,
                   size_t size);
/* One access of size bytes (size 0 is taken as 1). Returns 1 on a miss. */
int hpm_cache_access(struct hpm_cache *c, uint64_t addr, uint32_t size, int write);
/* 1 if the line holding addr is present. Changes nothing. */
int hpm_cache_probe(const struct hpm_cache *c, uint64_t addr);
void hpm_cache_stats(const struct hpm_cache *c, struct hpm_cache_stats *s);
void hpm_cache_reset_stats(struct hpm_cache *c);
/* Empty every line (no write-backs counted) and keep the counters. */
void hpm_cache_flush(struct hpm_cache *c);
/* Cachegrind allocates its tag arrays zeroed, so an empty way matches line 0;
 * call this right after init to get that (only addresses below one line
 * differ). Default: empty ways match nothing. No effect on a cache of 32 or
 * more ways (indexed: each line is held at most once). */
void hpm_cache_cachegrind_cold(struct hpm_cache *c);
const struct hpm_cache_params *hpm_cache_params_of(const struct hpm_cache *c);

/* -------------------------------------------------------------------- TLBs */

struct hpm_tlb_params {
    uint32_t entries;   /* >= 1 */
    uint32_t assoc;     /* 0 = fully associative */
    uint64_t page_size; /* bytes, power of two >= 4 */
};
struct hpm_tlb_stats {
    uint64_t accesses, hits, misses;
};
struct hpm_tlb;
int hpm_tlb_params_check(const struct hpm_tlb_params *p);
size_t hpm_tlb_storage_size(const struct hpm_tlb_params *p);
int hpm_tlb_init(struct hpm_tlb **out, const struct hpm_tlb_params *p, void *storage,
                 size_t size);
/* LRU. An access straddling pages touches each page, counts once. 1 = miss. */
int hpm_tlb_access(struct hpm_tlb *t, uint64_t addr, uint32_t size);
void hpm_tlb_stats(const struct hpm_tlb *t, struct hpm_tlb_stats *s);

/* -------------------------------------------------------- branch predictor */

struct hpm_bpred_params {
    uint32_t history_bits;  /* global history length, 0 .. 32 (0 = bimodal) */
    uint32_t table_entries; /* 2-bit counters; power of two >= 1 */
    uint32_t btb_entries;   /* >= 1 */
    uint32_t btb_assoc;     /* 0 = fully associative; sets must be a power of two */
    uint32_t ras_depth;     /* return-address stack entries, >= 1 */
};
struct hpm_bpred_stats {
    uint64_t cond, cond_mispredicts;
    uint64_t indirect, indirect_mispredicts; /* BTB target predictions */
    uint64_t returns, return_mispredicts;
    uint64_t calls, ras_overflows;
};
struct hpm_bpred;
int hpm_bpred_params_check(const struct hpm_bpred_params *p);
size_t hpm_bpred_storage_size(const struct hpm_bpred_params *p);
int hpm_bpred_init(struct hpm_bpred **out, const struct hpm_bpred_params *p, void *storage,
                   size_t size);
/* Each returns 1 when the prediction was wrong, then trains. */
int hpm_bpred_cond(struct hpm_bpred *b, uint64_t pc, int taken);
int hpm_bpred_indirect(struct hpm_bpred *b, uint64_t pc, uint64_t target);
int hpm_bpred_return(struct hpm_bpred *b, uint64_t target);
/* A call pushes its return address (for an indirect call, also call
 * hpm_bpred_indirect for the target). */
void hpm_bpred_call(struct hpm_bpred *b, uint64_t return_addr);
void hpm_bpred_stats(const struct hpm_bpred *b, struct hpm_bpred_stats *s);

/* ------------------------------------------------ hierarchy and prefetcher */

/* Sequential stream prefetcher on the L2 (README.md, "Prefetcher").
 * streams == 0 turns it off. */
struct hpm_prefetch_params {
    uint32_t streams; /* stream table entries, 0 .. 64 */
    uint32_t depth;   /* lines kept ahead of the demand stream, 1 .. 64 */
};
/* Names follow the BG/P L2 events of seed 000 Table 1. */
struct hpm_prefetch_stats {
    uint64_t prefetchable_requests; /* demand reads that advanced a stream */
    uint64_t hits_in_stream;        /* ... to a line the stream had prefetched */
    uint64_t prefetch_requests;     /* lines the streams asked for */
    uint64_t already_in_l2;         /* ... that were present ("page already in L2") */
    uint64_t valid_prefetches;      /* ... that were fetched from below */
};

/* How the cores' L1 data caches are kept coherent (README.md, "Coherence").
 * NONE: each core's L1D is private and never sees another core's stores
 * (the model before coherence; BG/L's non-coherent L1s). WTI: BG/P's
 * write-through L1s with invalidation through snoop filters: a store
 * invalidates every other core's copy of its line. MESI: write-back L1s; a
 * store invalidates the other copies, a read miss takes a modified copy
 * from its owner (an intervention), which keeps a clean shared copy. */
enum hpm_coherence { HPM_COH_NONE = 0, HPM_COH_WTI = 1, HPM_COH_MESI = 2, HPM_COH_COUNT = 3 };

/* L1I and L1D per core; L2 per core or shared; L3 shared or per core; any
 * level with size 0 is absent (cachegrind: l2.size = 0, l3 = its LL). */
struct hpm_hier_params {
    uint32_t cores; /* 1 .. 1024 */
    struct hpm_cache_params l1i, l1d, l2, l3;
    struct hpm_prefetch_params prefetch; /* needs an L2 */
    uint32_t coherence;                  /* enum hpm_coherence, of the L1Ds */
};

enum hpm_access_kind { HPM_IFETCH = 0, HPM_LOAD = 1, HPM_STORE = 2, HPM_ACCESS_KINDS = 3 };
/* Where an access was served (the return value of hpm_hier_access). */
enum hpm_level { HPM_SERVED_L1 = 0, HPM_SERVED_L2 = 1, HPM_SERVED_L3 = 2, HPM_SERVED_MEM = 3 };

/* Per core, per kind: accesses and where they were served; served[0] are L1
 * hits, served[3] went to memory. The misses at level k are the sum of
 * served[k+1..3] (cachegrind: I1mr = Ir - served[0] of IFETCH, ILmr = the
 * served[3] when the LL is the last present level). */
struct hpm_hier_core_stats {
    uint64_t accesses[HPM_ACCESS_KINDS];
    uint64_t served[HPM_ACCESS_KINDS][4];
};
/* Per core, what coherence did (all 0 under HPM_COH_NONE or with one core). */
struct hpm_coh_stats {
    uint64_t requests;      /* this core's coherence requests: stores to a line its L1D
                             * did not hold dirty (the only ones another core may
                             * hold), and under MESI its L1D read misses */
    uint64_t snoops;        /* other cores' requests that this core's snoop filter
                             * passed to its L1D: the L1D held the line */
    uint64_t invalidations; /* lines of this core's L1D invalidated by other cores' stores */
    uint64_t interventions; /* MESI: modified lines of this core's L1D that another
                             * core's miss or store took */
    uint64_t coh_misses;    /* L1D misses (accesses, as the misses count) of this core
                             * to a line that another core's store invalidated here and
                             * that nothing evicted since */
};
struct hpm_hier_mem_stats {
    uint64_t ddr_bytes_read;    /* line fills from memory (demand + prefetch) */
    uint64_t ddr_bytes_written; /* write-backs that reached memory */
};

struct hpm_hier;
int hpm_hier_params_check(const struct hpm_hier_params *p);
size_t hpm_hier_storage_size(const struct hpm_hier_params *p);
int hpm_hier_init(struct hpm_hier **out, const struct hpm_hier_params *p, void *storage,
                  size_t size);
/* The per-access entry point. Returns enum hpm_level, or HPM_MODEL_ERANGE for
 * a bad core or kind. */
int hpm_hier_access(struct hpm_hier *h, uint32_t core, int kind, uint64_t addr,
                    uint32_t size);
/* Caches of a core (NULL where absent); shared levels give the same one. */
struct hpm_cache *hpm_hier_l1i(struct hpm_hier *h, uint32_t core);
struct hpm_cache *hpm_hier_l1d(struct hpm_hier *h, uint32_t core);
struct hpm_cache *hpm_hier_l2(struct hpm_hier *h, uint32_t core);
struct hpm_cache *hpm_hier_l3(struct hpm_hier *h, uint32_t core);
int hpm_hier_core_stats(const struct hpm_hier *h, uint32_t core, struct hpm_hier_core_stats *s);
/* Prefetcher of the L2 that core uses (zeros when there is none). */
int hpm_hier_prefetch_stats(const struct hpm_hier *h, uint32_t core,
                            struct hpm_prefetch_stats *s);
void hpm_hier_mem_stats(const struct hpm_hier *h, struct hpm_hier_mem_stats *s);
int hpm_hier_coh_stats(const struct hpm_hier *h, uint32_t core, struct hpm_coh_stats *s);
/* A contended line: one that a store of one core invalidated in another's
 * L1D (nodes of up to 64 cores; at most 768 lines, the later ones are
 * counted as dropped). From its first invalidation on, every access of it
 * that is a miss or a coherence request adds its bytes to its core's read
 * or write mask (bit i = bytes [i*granule, (i+1)*granule) of the line). The
 * sharing is true when some core's bytes overlap bytes another core wrote,
 * false when the cores' bytes are disjoint. */
struct hpm_coh_line {
    uint64_t addr;          /* the line's first byte */
    uint64_t coh_misses;    /* coherence misses on it, all cores */
    uint64_t invalidations; /* copies of it that stores invalidated */
    uint32_t line_bytes;
    uint32_t granule;       /* bytes per mask bit: 1 for lines up to 64 bytes */
    uint32_t true_sharing;  /* set by hpm_hier_coh_line */
    uint32_t pad_;
};
/* How many contended lines are kept (and, in *dropped, how many were not). */
uint32_t hpm_hier_coh_line_count(const struct hpm_hier *h, uint64_t *dropped);
/* The i-th contended line (0 <= i < count, in table order); rd and wr (NULL
 * or one word per core) get each core's read and write byte masks. */
int hpm_hier_coh_line(const struct hpm_hier *h, uint32_t i, struct hpm_coh_line *out,
                      uint64_t *rd, uint64_t *wr);
/* The contended lines' addresses, in table order (addrs: room for
 * hpm_hier_coh_line_count's); returns how many. */
uint32_t hpm_hier_coh_line_addrs(const struct hpm_hier *h, uint64_t *addrs);
/* Whether addr's line is a contended line (1) or not (0), at the cost of a
 * hash look-up; HPM_MODEL_ERANGE when the node keeps none (no coherence,
 * one core, more than 64). */
int hpm_hier_coh_line_find(const struct hpm_hier *h, uint64_t addr);
/* A contended line's share of one core: the bytes of its accesses that
 * reached the coherent path (masks as hpm_hier_coh_line's), its coherence
 * misses on the line and the other cores' copies its stores invalidated.
 * Each coherence miss is classified when it happens: true sharing when the
 * bytes it accesses overlap bytes other cores stored (stores seen on the
 * coherent path) since this core's previous miss on the line, else false
 * sharing (true_misses <= coh_misses). */
struct hpm_coh_line_core {
    uint64_t read, written;
    uint64_t coh_misses, invalidations;
    uint64_t true_misses;
};
/* The i-th contended line's per-core shares (out: one per core of the
 * node); they add up to the line's coh_misses and invalidations. */
int hpm_hier_coh_line_cores(const struct hpm_hier *h, uint32_t i, struct hpm_coh_line_core *out);
/* Coherence in modeled time. After hpm_hier_coh_defer (on a node that
 * keeps contended lines), an access to a kept line takes the private path
 * (what its core's L1D holds decides hit or miss; no request, no other
 * core's copy changes), and the caller hands each such access, with
 * whether it hit, to hpm_hier_coh_replay in the order of the cores'
 * modeled time: the replay keeps which cores hold the line and which one
 * holds it modified, makes the requests (invalidations, snoops, MESI's
 * interventions), notes the line's bytes and classifies its misses, and
 * charges a coherence miss where an access hit its own copy but another
 * core's store had taken the line since its previous access: the L1 miss
 * and the fill from below (served counts, prefetches, DDR) are counted then.
 * kind HPM_COH_LOAD_STORE is a load and then a store of the same bytes.
 * Returns the level that served such a miss, else HPM_SERVED_L1.
 * hpm_hier_coh_line_index gives a kept line's slot (-1: not kept).
 * line_new (NULL: none) is called with arg as a line enters the table, at
 * once, within the access that made it contended: a caller that keeps
 * facts about where no kept line is (the vpmu tool's clean pages) drops
 * them there, without asking the table's size at every access. */
#define HPM_COH_LOAD_STORE HPM_ACCESS_KINDS
void hpm_hier_coh_defer(struct hpm_hier *h, void (*line_new)(void *arg), void *arg);
int32_t hpm_hier_coh_line_index(struct hpm_hier *h, uint64_t addr);
int hpm_hier_coh_replay(struct hpm_hier *h, uint32_t slot, uint32_t core, int kind,
                        uint64_t addr, uint32_t size, int hit);
/* A number that changes whenever another core's access changed this core's
 * L1D (an invalidation, a modified line made clean): a caller that keeps
 * facts about the L1D's lines (the vpmu tool's sure-hit filter) drops them
 * when it differs from the value it saw last. */
uint64_t hpm_hier_coh_gen(const struct hpm_hier *h, uint32_t core);

/* ------------------------------------------------------------------ timing */

/* Instruction classes the timing model charges base cycles for. */
enum hpm_iclass {
    HPM_IC_INT = 0,    /* integer ALU, logical, compare */
    HPM_IC_MULDIV = 1, /* integer multiply and divide */
    HPM_IC_LOAD = 2,
    HPM_IC_STORE = 3,
    HPM_IC_BRANCH = 4,
    HPM_IC_FP = 5,     /* FP add/sub/mul/fma, SIMD FP */
    HPM_IC_FPDIV = 6,  /* FP divide, square root */
    HPM_IC_OTHER = 7,
    HPM_IC_COUNT = 8,
};

/* Base cost in thousandths of a cycle per instruction (500 = 0.5 cycle, a
 * 2-wide issue); latencies in whole cycles, charged per event. */
struct hpm_timing_params {
    uint32_t cpi_milli[HPM_IC_COUNT];
    uint32_t l2_latency;       /* added per access served by the L2 (an L1 miss) */
    uint32_t l3_latency;       /* ... served by the L3 */
    uint32_t memory_latency;   /* ... served by DDR */
    uint32_t tlb_miss;         /* per TLB miss (I or D) */
    uint32_t mispredict;       /* per mispredicted branch of any kind */
    uint32_t prefetch_latency; /* cycles one prefetch stays pending */
};
struct hpm_timing_counts {
    uint64_t instr[HPM_IC_COUNT];
    uint64_t served_l2, served_l3, served_mem; /* from hpm_hier_core_stats */
    uint64_t tlb_misses;
    uint64_t mispredicts;
    uint64_t valid_prefetches;
};
struct hpm_timing_result {
    uint64_t base;             /* sum of instr[c] * cpi_milli[c] / 1000, rounded up */
    uint64_t memory_stall;     /* cycles stalled on memory (level-sensitive event) */
    uint64_t tlb_stall;
    uint64_t branch_stall;
    uint64_t cycles;           /* base + all stalls */
    uint64_t prefetch_pending; /* min(cycles, valid_prefetches * prefetch_latency) */
};
/* Pure function; result fields saturate instead of wrapping. */
void hpm_timing_eval(const struct hpm_timing_params *p, const struct hpm_timing_counts *c,
                     struct hpm_timing_result *r);
/* Adds a core's hierarchy counts (all kinds) into c. */
void hpm_timing_counts_add_hier(struct hpm_timing_counts *c,
                                const struct hpm_hier_core_stats *s);

#ifdef __cplusplus
}
#endif
#endif
