/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * machine.h - machine model data files (machines/NAME.machine) and the host.
 *
 * A machine file is lines of `key = value` under `[section]` headers, with
 * `#` starting a comment anywhere. Keys before the first header are top-level.
 * Sizes take K/M/G suffixes (powers of 1024, optional trailing B); frequencies
 * take K/M/G (powers of 1000, optional trailing Hz); cpi_* take up to three
 * decimals. Every key is optional: what a file does not set keeps the value of
 * hpm_machine_defaults(). machines/README.md lists the keys.
 *
 * Errors name the place: "machines/x.machine:12: unknown key 'sise' in [l1d]".
 * Hosted (uses libc); the models it fills in (model.h) are freestanding.
 */
#ifndef HPM_MACHINE_H
#define HPM_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "torus.h"

#ifdef __cplusplus
extern "C" {
#endif

enum hpm_machine_error {
    HPM_MACHINE_OK = 0,
    HPM_MACHINE_ESYNTAX = -1,   /* not `key = value`, `[section]`, comment or blank */
    HPM_MACHINE_EKEY = -2,      /* unknown key or section */
    HPM_MACHINE_EVALUE = -3,    /* value does not parse */
    HPM_MACHINE_EDUP = -4,      /* key given twice */
    HPM_MACHINE_ERANGE = -5,    /* value parses but is out of range */
    HPM_MACHINE_EGEOMETRY = -6, /* values valid alone but not together */
    HPM_MACHINE_EIO = -7,       /* file cannot be read */
    HPM_MACHINE_ENOTFOUND = -8, /* no such machine */
    HPM_MACHINE_ENAME = -9,     /* machine name not [A-Za-z0-9_.-]+ */
};
const char *hpm_machine_strerror(int err);

#define HPM_MACHINE_NAME_MAX 64
/* The most state the node models of one machine may need (caches at 8 bytes
 * a line, private levels once per core; TLBs; predictor tables): what the
 * Valgrind tool's heap takes without trouble, and far above any real node
 * (BG/P needs under 1 MiB). A file asking for more is an ERANGE error. */
#define HPM_MACHINE_MODEL_BYTES_MAX ((uint64_t)512 << 20)

/* [roofline]: the node's ceilings (hpm roofline), per core: double-
 * precision flops a cycle per vector width (an FMA is 2), single-precision
 * flops per double-precision one at the same width, bytes a cycle each
 * cache level delivers; memory: bytes a second of the node. Thousandths
 * (the file's 0.5 is 500); 0: not given (hpm roofline names the key). */
struct hpm_roofline_params {
    uint32_t flops_milli[3]; /* scalar, 128-bit, 256-bit */
    uint32_t sp_per_dp;
    uint32_t l1_milli, l2_milli, l3_milli;
    uint32_t pad;
    uint64_t memory_bytes_per_s;
};

/* [counters]: the node's counter unit as hpm's encoder sees it (src/encode,
 * hpm list --encode, hpm count --passes): `units` UPCs (0: as many as the
 * events need, the virtual PMU's way), `counters` each (a power of two;
 * counter c takes the codes c + k x counters, one block k at a time),
 * `group` counters sharing the block selected (a power of two). */
struct hpm_counter_unit_params {
    uint32_t units, counters, group, pad;
};

struct hpm_machine {
    char name[HPM_MACHINE_NAME_MAX];
    char memory_type[16]; /* [memory] type, e.g. DDR2 */
    uint64_t frequency_hz;
    uint64_t memory_bytes;       /* [memory] size */
    struct hpm_hier_params hier; /* hier.cores is the top-level `cores` */
    struct hpm_tlb_params itlb, dtlb;
    struct hpm_bpred_params branch;
    struct hpm_timing_params timing;
    struct hpm_torus_params torus; /* [torus]; x = 0: no network (src/net/torus.h) */
    struct hpm_roofline_params roofline;
    struct hpm_counter_unit_params counter_unit;
};

/* A generic 64-byte-line node (values in machines/README.md). */
void hpm_machine_defaults(struct hpm_machine *m);

/* Parse len bytes (need not be NUL-terminated). filename is only used in
 * messages. On error *m is unspecified and err (if errlen > 0) holds
 * "FILE:LINE: message". */
int hpm_machine_parse(struct hpm_machine *m, const char *buf, size_t len, const char *filename,
                      char *err, size_t errlen);
/* Parse a file; a file without `name` gets its base name without extension. */
int hpm_machine_load(struct hpm_machine *m, const char *path, char *err, size_t errlen);

/* The machine this runs on, from
 * CPU_ROOT/cpu0/cache/index* /{level,type,size,ways_of_associativity,coherency_line_size}
 * and CPU_ROOT/online (cpu_root NULL = /sys/devices/system/cpu). Missing
 * files keep the defaults; a cache whose set count is not a power of two is
 * rounded down to one (models need power-of-two sets). Never fails for want
 * of files; returns HPM_MACHINE_OK. */
int hpm_machine_from_sysfs(struct hpm_machine *m, const char *cpu_root);
int hpm_machine_from_host(struct hpm_machine *m);

/* name -> DIR/NAME.machine; the name "host" means hpm_machine_from_host(). */
int hpm_machine_find(struct hpm_machine *m, const char *dir, const char *name, char *err,
                     size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
