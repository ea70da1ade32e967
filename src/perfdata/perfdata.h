/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perfdata.h - the perf.data file format (Linux perf's "PERFILE2"), the
 * subset hpm record writes and hpm report reads (docs/vpmu.md, Sampling).
 *
 * Written: the file header, one attr per sampled event (type
 * PERF_TYPE_RAW, config = the catalog kind, sample_period = PERIOD) with
 * one id each, sample_type IP|TID|TIME|ADDR|ID|CPU|PERIOD|CALLCHAIN, with
 * PERFDATA_MEM also WEIGHT|DATA_SRC (perf mem's fields), sample_id_all 1
 * (COMM and MMAP records end in pid/tid, time, id, cpu: perf orders them
 * with the samples by time); records PERF_RECORD_COMM, PERF_RECORD_MMAP
 * and PERF_RECORD_SAMPLE; the features HEADER_NRCPUS, HEADER_EVENT_DESC
 * (the events' names, "hpm:L1D_MISSES") and HEADER_CMDLINE.
 * Read: files whose sample_type has no bit outside IDENTIFIER, IP, TID,
 * TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, CALLCHAIN, WEIGHT, DATA_SRC
 * (perf record's usual files too); COMM, MMAP, MMAP2 and SAMPLE records,
 * other records skipped, an MMAP's time where sample_id_all gives one; the
 * event names from HEADER_EVENT_DESC.
 */
#ifndef HPM_PERFDATA_H
#define HPM_PERFDATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PERFDATA_MAX_EVENTS 64
#define PERFDATA_MAX_CHAIN 512

struct perfdata_event {
    char name[64];   /* "hpm:L1D_MISSES" */
    uint64_t config; /* PERF_TYPE_RAW config: the catalog kind */
    uint64_t period;
};

/* Writer flags: samples carry PERF_SAMPLE_WEIGHT and PERF_SAMPLE_DATA_SRC. */
#define PERFDATA_MEM 1u

struct perfdata_sample {
    unsigned event; /* index of its event */
    uint64_t ip, addr, time, period;
    uint64_t weight;   /* PERF_SAMPLE_WEIGHT: the access's latency in cycles */
    uint64_t data_src; /* PERF_SAMPLE_DATA_SRC: union perf_mem_data_src's value */
    uint32_t dobj;     /* its data object: 1 + an index of the file's data objects; 0 none */
    uint32_t pid, tid, cpu;
    unsigned n_chain;             /* callchain entries (context markers included) */
    const uint64_t *chain;        /* innermost first, as perf writes them */
};

/* A data object of hpm's (hpm report --mem): heap (where = the allocating
 * call, from = the call into the function that made it, 0 if none),
 * global (in the mapping [start, end] of path at pgoff), stack, other.
 * Written as a feature section perf does not know (bit
 * PERFDATA_FEAT_HPM_DATA, after perf's own: perf skips it), with each
 * sample's object in sample order. */
enum { PERFDATA_DOBJ_HEAP = 0, PERFDATA_DOBJ_GLOBAL = 1, PERFDATA_DOBJ_STACK = 2,
       PERFDATA_DOBJ_OTHER = 3 };
#define PERFDATA_FEAT_HPM_DATA 250
struct perfdata_dobj {
    uint32_t kind;
    uint64_t where, from;
    uint64_t start, end, pgoff; /* global: its mapping */
    char *path;                 /* global: its mapping's file; else NULL */
};

/* ---------------------------------------------------------------- writer */

struct perfdata_writer {
    FILE *f;
    unsigned n_events;
    unsigned flags; /* PERFDATA_MEM */
    struct perfdata_event events[PERFDATA_MAX_EVENTS];
    uint64_t data_start, data_size;
    unsigned cpus;
    char *cmdline; /* NUL-separated words */
    size_t cmdline_len;
    unsigned cmdline_n;
    /* PERFDATA_MEM: each written sample's dobj, and the objects (the
     * caller's, alive until perfdata_write_end) */
    uint32_t *sample_dobj;
    size_t n_sample_dobj, cap_sample_dobj;
    const struct perfdata_dobj *dobjs;
    size_t n_dobjs;
    int failed;
};

/* Starts a file on f (seekable, opened for writing): header placeholder,
 * attrs and ids. cpus: HEADER_NRCPUS; argv: HEADER_CMDLINE; flags:
 * PERFDATA_MEM or 0. 0 or -1. */
int perfdata_write_begin(struct perfdata_writer *w, FILE *f, const struct perfdata_event *ev,
                         unsigned n_events, unsigned cpus, char *const *argv, int argc,
                         unsigned flags);
/* time: when the thread got its name, the code was mapped (perf takes a
 * sample's mapping as the latest MMAP at or before the sample's time). */
int perfdata_write_comm(struct perfdata_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
                        const char *comm);
int perfdata_write_mmap(struct perfdata_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
                        uint64_t start, uint64_t len, uint64_t pgoff, const char *path);
/* The sample's callchain is written as PERF_CONTEXT_USER, ip, chain... */
int perfdata_write_sample(struct perfdata_writer *w, const struct perfdata_sample *s);
/* The data objects that samples' dobj fields index (PERFDATA_MEM). */
void perfdata_write_dobjs(struct perfdata_writer *w, const struct perfdata_dobj *o, size_t n);
/* Features and the final header. 0, or -1 (a write failed). Does not close f. */
int perfdata_write_end(struct perfdata_writer *w);

/* perf's data source (union perf_mem_data_src) of an access: op
 * PERFDATA_OP_*, level the one that served it (0 L1, 1 L2, 2 L3, 3 DRAM;
 * each a hit there, mem_lvl and mem_lvl_num both), tlb_miss for the
 * first-level TLB's lookup; snoop and lock not available. */
enum { PERFDATA_OP_NA = 0, PERFDATA_OP_LOAD = 1, PERFDATA_OP_STORE = 2, PERFDATA_OP_EXEC = 3 };
uint64_t perfdata_data_src(int op, int level, int tlb_miss);
/* The level of a data source as perf mem names it ("L1", "L2", "L3",
 * "RAM", "LFB", "-" when not available); its op ("load", "store", "exec",
 * "-"); whether its TLB lookup missed (-1: not available). */
const char *perfdata_data_src_level(uint64_t data_src);
const char *perfdata_data_src_op(uint64_t data_src);
int perfdata_data_src_tlb_miss(uint64_t data_src);

/* ---------------------------------------------------------------- reader */

struct perfdata_mmap {
    uint32_t pid;
    uint64_t start, len, pgoff;
    uint64_t time; /* from sample_id_all's fields; 0 without */
    char *path;
};

struct perfdata_comm {
    uint32_t pid, tid;
    char *comm;
};

struct perfdata_file {
    unsigned n_events;
    char names[PERFDATA_MAX_EVENTS][64];
    uint64_t ids[PERFDATA_MAX_EVENTS]; /* the first id of each event */
    uint64_t sample_type;
    struct perfdata_mmap *mmaps;
    size_t n_mmaps;
    struct perfdata_comm *comms;
    size_t n_comms;
    /* samples: their chains point into chain_store */
    struct perfdata_sample *samples;
    size_t n_samples;
    uint64_t *chain_store;
    size_t n_chain_store;
    /* hpm's data objects (samples' dobj index them), if the file has them */
    struct perfdata_dobj *dobjs;
    size_t n_dobjs;
};

/* Parses a whole file held in memory. 0, or -1 with the reason in err. */
int perfdata_read(const unsigned char *buf, size_t len, struct perfdata_file *pf, char *err,
                  size_t errlen);
void perfdata_free(struct perfdata_file *pf);

#endif
