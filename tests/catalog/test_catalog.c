/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the event catalog (src/catalog) and of the machine wire
 * format that hands a machine to the Valgrind tool (src/machine). */
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "vpmu_events.h"
#include "hpm/upc.h"
#include "hpm_check.h"
#include "machine_wire.h"

/* Every code decodes back to its kind and core; names round-trip. */
static void test_codes_round_trip(void)
{
    unsigned kind, seen = 0;
    int core;
    for (unsigned k = 0; k < HPM_K_COUNT; k++) {
        const struct hpm_cat_kind_info *ki = hpm_catalog_kind(k);
        CHECK(ki != NULL && ki->name && ki->description && ki->unit < HPM_UNIT_COUNT);
        for (int c = 0; c < (ki->node ? 1 : HPM_CAT_MAX_CORES); c++) {
            int code = hpm_catalog_code(k, c);
            char name[HPM_CAT_NAME_MAX];
            int codes[4];
            unsigned k2;
            CHECK(code >= 0 && code < HPM_CAT_CODES);
            CHECK_EQ(hpm_catalog_decode((unsigned)code, &kind, &core), 0);
            CHECK_EQ(kind, k);
            CHECK_EQ(core, ki->node ? -1 : c);
            CHECK(hpm_catalog_code_name((unsigned)code, name, sizeof name) > 0);
            CHECK_EQ(hpm_catalog_lookup(name, HPM_CAT_MAX_CORES, ~0u, codes, 4, &k2), 1);
            CHECK_EQ(codes[0], code);
            CHECK_EQ(k2, k);
            seen++;
        }
    }
    CHECK_EQ(seen, HPM_K_CORE_COUNT * HPM_CAT_MAX_CORES + HPM_K_NODE_COUNT);
    CHECK(hpm_catalog_kind(HPM_K_COUNT) == NULL);
    CHECK_EQ(hpm_catalog_code(HPM_K_COUNT, 0), -1);
    CHECK_EQ(hpm_catalog_code(HPM_K_INSTRUCTIONS, HPM_CAT_MAX_CORES), -1);
    /* the first node block is full; the second is used in order from its start */
    CHECK_EQ(hpm_catalog_code(HPM_K_CORE_COUNT + HPM_CAT_NODE_SLOTS - 1, -1), HPM_CAT_CODES - 1);
    CHECK_EQ(hpm_catalog_code(HPM_K_CORE_COUNT + HPM_CAT_NODE_SLOTS, -1), HPM_CAT_NODE2_BASE);
    CHECK_EQ(hpm_catalog_decode(HPM_CAT_NODE2_BASE + HPM_K_NODE_COUNT - HPM_CAT_NODE_SLOTS, &kind,
                                &core),
             -1); /* unused node code */
    CHECK_EQ(hpm_catalog_decode(HPM_CAT_NODE_BASE - 1, &kind, &core), -1);
    CHECK_EQ(hpm_catalog_decode(HPM_CAT_CODES, &kind, &core), -1);
}

/* The layout promise: every event of four cores plus the first node block
 * fits one default UPC, each on its own counter; the second node block's
 * codes share counters with cores 2 and 3 only, so a two-core machine's
 * events all fit one UPC and a machine of three or more cores counting
 * everything opens a second unit. */
static void test_four_cores_fit_one_upc(void)
{
    struct hpm_upc_params p;
    struct hpm_upc *u;
    unsigned char used[256] = {0};
    hpm_upc_params_default(&p);
    CHECK_EQ(hpm_upc_create(&u, &p), 0);
    for (unsigned k = 0; k < HPM_K_COUNT; k++) {
        const struct hpm_cat_kind_info *ki = hpm_catalog_kind(k);
        for (int c = 0; c < (ki->node ? 1 : 4); c++) {
            int code = hpm_catalog_code(k, c);
            if (code < HPM_CAT_NODE_BASE && ki->node) {
                /* second node block: on the counters of cores 2 and 3 */
                CHECK(code % 256 >= 2 * HPM_CAT_CORE_STRIDE &&
                      code % 256 < 4 * HPM_CAT_CORE_STRIDE);
                continue;
            }
            uint32_t ctr[HPM_UPC_INPUTS_PER_COUNTER];
            int n = hpm_upc_event_counters(u, (uint32_t)code, ctr);
            CHECK_EQ(n, 1);
            if (n == 1) {
                CHECK_EQ(used[ctr[0]], 0);
                used[ctr[0]] = 1;
                CHECK_EQ(hpm_upc_select_event(u, ctr[0], (uint32_t)code, HPM_UPC_LEVEL_HIGH, 0), 0);
            }
        }
    }
    /* all 256 counters are taken: core 4 needs a second unit */
    CHECK_EQ(hpm_catalog_code(HPM_K_INSTRUCTIONS, 4) % 256,
             hpm_catalog_code(HPM_K_NODE_CYCLES, -1) % 256);
    hpm_upc_destroy(u);
}

static void test_lookup_errors(void)
{
    struct hpm_hier_params h;
    unsigned f_full, f_nol3;
    int codes[16];
    memset(&h, 0, sizeof h);
    h.l2.size = 1 << 20;
    h.l3.size = 8 << 20;
    h.prefetch.streams = 4;
    f_full = hpm_catalog_features(&h);
    CHECK(f_full & HPM_NEED_L3);
    CHECK(f_full & HPM_NEED_PREFETCH);
    h.l3.size = 0;
    h.l2.shared = 1; /* a shared L2's prefetcher is not per core */
    f_nol3 = hpm_catalog_features(&h);
    CHECK(!(f_nol3 & HPM_NEED_L3));
    CHECK(!(f_nol3 & HPM_NEED_PREFETCH));

    /* KIND: every core, in core order; case does not matter */
    CHECK_EQ(hpm_catalog_lookup("l1d_misses", 4, f_full, codes, 16, NULL), 4);
    CHECK_EQ(codes[3], hpm_catalog_code(HPM_K_L1D_MISSES, 3));
    CHECK_EQ(hpm_catalog_lookup("PU3_CYCLES", 4, f_full, codes, 16, NULL), 1);
    CHECK_EQ(hpm_catalog_lookup("PU4_CYCLES", 4, f_full, codes, 16, NULL), HPM_CAT_ECORE);
    CHECK_EQ(hpm_catalog_lookup("PU0_DDR_READS", 4, f_full, codes, 16, NULL), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_lookup("NOSUCH", 4, f_full, codes, 16, NULL), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_lookup("PU_CYCLES", 4, f_full, codes, 16, NULL), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_lookup("", 4, f_full, codes, 16, NULL), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_lookup(NULL, 4, f_full, codes, 16, NULL), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_lookup("L3_READS", 4, f_nol3, codes, 16, NULL), HPM_CAT_ENOTPROVIDED);
    CHECK_EQ(hpm_catalog_lookup("L2_VALID_PREFETCHES", 4, f_nol3, codes, 16, NULL),
             HPM_CAT_ENOTPROVIDED);
    CHECK_EQ(hpm_catalog_lookup("INSTRUCTIONS", 4, f_full, codes, 2, NULL), HPM_CAT_ESPACE);
    CHECK(strlen(hpm_catalog_strerror(HPM_CAT_ENOTPROVIDED)) > 0);
}

static void test_machine_wire(const char *dir)
{
    struct hpm_machine m, back;
    char err[256];
    size_t n = hpm_machine_wire_size();
    char *buf = malloc(n), *bad;
    CHECK(buf != NULL);
    CHECK_EQ(hpm_machine_find(&m, dir, "bgp", err, sizeof err), 0);
    CHECK_EQ(hpm_machine_wire_encode(&m, buf, n - 1), 0); /* too small: nothing */
    CHECK(hpm_machine_wire_encode(&m, buf, n) > 0);
    CHECK_EQ(hpm_machine_wire_decode(&back, buf), 0);
    CHECK(memcmp(&m, &back, sizeof m) == 0);
    CHECK(strcmp(back.name, "bgp") == 0);
    CHECK_EQ(back.hier.cores, 4);
    /* damaged encodings are refused */
    bad = malloc(strlen(buf) + 1);
    strcpy(bad, buf);
    bad[10] = 'z';
    CHECK_EQ(hpm_machine_wire_decode(&back, bad), -1);
    strcpy(bad, buf);
    bad[strlen(bad) - 1] = 0; /* truncated */
    CHECK_EQ(hpm_machine_wire_decode(&back, bad), -1);
    CHECK_EQ(hpm_machine_wire_decode(&back, "hpmM1:00"), -1); /* wrong size */
    CHECK_EQ(hpm_machine_wire_decode(&back, ""), -1);
    CHECK_EQ(hpm_machine_wire_decode(&back, NULL), -1);
    free(bad);
    free(buf);
}

/* The table passes its own validation; the one parser gives scope, core
 * and the canonical name; the compare and the missing-feature reasons. */
static void test_table_and_parser(void)
{
    char why[128];
    struct hpm_cat_name n;
    const char *rest;
    int core = -7, codes[HPM_CAT_MAX_CORES];
    CHECK_EQ(hpm_catalog_check(why, sizeof why), 0);
    CHECK_STR(why, "");

    CHECK_EQ(hpm_catalog_parse("pu3_l1d_misses", &n), 0);
    CHECK(n.scope == HPM_CAT_SCOPE_CORE && n.core == 3 && n.kind == HPM_K_L1D_MISSES);
    CHECK_STR(n.canonical, "PU3_L1D_MISSES");
    CHECK_EQ(hpm_catalog_parse("L1d_Misses", &n), 0);
    CHECK(n.scope == HPM_CAT_SCOPE_KIND && n.core == -1);
    CHECK_STR(n.canonical, "L1D_MISSES");
    CHECK_EQ(hpm_catalog_parse("ddr_read_bytes", &n), 0);
    CHECK(n.scope == HPM_CAT_SCOPE_NODE && n.kind == HPM_K_DDR_READ_BYTES);
    CHECK_EQ(hpm_catalog_parse("PU0_DDR_READ_BYTES", &n), HPM_CAT_EUNKNOWN); /* node kind */
    CHECK_EQ(hpm_catalog_parse("PU16_INSTRUCTIONS", &n), HPM_CAT_ECORE);
    CHECK_EQ(hpm_catalog_parse("PU_INSTRUCTIONS", &n), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_parse("PU1INSTRUCTIONS", &n), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_parse("INSTRUCTIONSX", &n), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_parse("", &n), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_parse(NULL, &n), HPM_CAT_EUNKNOWN);

    CHECK_EQ(hpm_catalog_split_core("pu12_x", &core, &rest), 1);
    CHECK(core == 12 && strcmp(rest, "x") == 0);
    CHECK_EQ(hpm_catalog_split_core("PUx_", &core, &rest), 0);
    CHECK(strcmp(rest, "PUx_") == 0);

    CHECK(hpm_catalog_name_eq("abc", 3, "ABC"));
    CHECK(!hpm_catalog_name_eq("abc", 2, "ABC"));
    CHECK(!hpm_catalog_name_eq("abcd", 4, "ABC"));
    CHECK_EQ(hpm_catalog_kind_by_name("br_calls", 8), HPM_K_BR_CALLS);
    CHECK_EQ(hpm_catalog_kind_by_name("br_calls", 7), -1);

    /* codes: the bare kind spans the machine's cores */
    CHECK_EQ(hpm_catalog_parse("FP_OPS", &n), 0);
    CHECK_EQ(hpm_catalog_codes(&n, 4, ~0u, codes, HPM_CAT_MAX_CORES), 4);
    CHECK_EQ(codes[3], hpm_catalog_code(HPM_K_FP_OPS, 3));
    CHECK_EQ(hpm_catalog_parse("PU4_FP_OPS", &n), 0);
    CHECK_EQ(hpm_catalog_codes(&n, 4, ~0u, codes, HPM_CAT_MAX_CORES), HPM_CAT_ECORE);

    CHECK(hpm_catalog_missing_reason(HPM_K_INSTRUCTIONS, 0) == NULL);
    CHECK_STR(hpm_catalog_missing_reason(HPM_K_L3_READS, HPM_NEED_HIER), "it has no L3");
    CHECK_STR(hpm_catalog_missing_reason(HPM_K_L2_HITS, HPM_NEED_HIER), "it has no L2");

    /* per-kind facts are columns */
    CHECK_STR(hpm_catalog_kind(HPM_K_DDR_READ_BYTES)->units, "bytes");
    CHECK_STR(hpm_catalog_kind(HPM_K_STALL_MEM_CYCLES)->units, "cycles");
    CHECK_STR(hpm_catalog_kind(HPM_K_BR_CALLS)->tool_event, "br_call");
    CHECK_STR(hpm_catalog_kind(HPM_K_L1D_MISSES)->tool_event, "");
    {
        /* the tool takes its kind-to-counter map from this column
         * (vpmu_node.c): every name must be one of its counters */
        static const char *const names[VPMU_EV_COUNT] = VPMU_EVENT_NAME_INIT;
        unsigned k, e, exact = 0;
        for (k = 0; k < HPM_K_COUNT; k++) {
            const char *t = hpm_catalog_kind(k)->tool_event;
            if (!t[0])
                continue;
            for (e = 0; e < VPMU_EV_COUNT && strcmp(names[e], t) != 0; e++)
                ;
            CHECKF(e < VPMU_EV_COUNT, "%s: tool event '%s'", hpm_catalog_kind(k)->name, t);
            CHECKF(k < HPM_K_CORE_COUNT, "%s: a node kind with a tool event",
                   hpm_catalog_kind(k)->name);
            exact++;
        }
        CHECK_EQ(exact, 31); /* the core's exact kinds, L1I_ACCESSES (instructions) among them */
    }
    /* where each count comes from */
    CHECK_EQ(hpm_catalog_kind(HPM_K_BR_CALLS)->source, HPM_SRC_EXACT);
    CHECK_EQ(hpm_catalog_kind(HPM_K_L1D_MISSES)->source, HPM_SRC_MODELED);
    CHECK_EQ(hpm_catalog_kind(HPM_K_IO_PIPE_WRITE_BYTES)->source, HPM_SRC_EXACT);
    CHECK_EQ(hpm_catalog_kind(HPM_K_IO_HOST_NS)->source, HPM_SRC_HOST);
    CHECK_STR(hpm_catalog_kind(HPM_K_IO_HOST_NS)->units, "ns");
    CHECK_EQ(hpm_catalog_kind(HPM_K_KERNEL_HOST_MINOR_FAULTS)->source, HPM_SRC_HOST);
    CHECK_STR(hpm_catalog_unit_name(hpm_catalog_kind(HPM_K_KERNEL_SIGNALS)->unit), "kernel");
    CHECK_STR(hpm_catalog_unit_name(hpm_catalog_kind(HPM_K_IO_OPENS)->unit), "io");
    /* the I/O and kernel units exist on every machine */
    CHECK(hpm_catalog_provided(HPM_K_IO_READ_BYTES, -1, 1, 0));
    CHECK(hpm_catalog_provided(HPM_K_KERNEL_SYSCALLS, -1, 1, 0));
    CHECK_EQ(hpm_catalog_parse("io_tty_write_bytes", &n), 0);
    CHECK(n.scope == HPM_CAT_SCOPE_NODE && n.kind == HPM_K_IO_TTY_WRITE_BYTES);
    CHECK_EQ(hpm_catalog_parse("PU0_IO_READS", &n), HPM_CAT_EUNKNOWN); /* node kind */
}

/* A two-core machine's events, both node blocks included, fit one UPC. */
static void test_two_cores_fit_one_upc(void)
{
    struct hpm_upc_params p;
    struct hpm_upc *u;
    unsigned char used[256] = {0};
    hpm_upc_params_default(&p);
    CHECK_EQ(hpm_upc_create(&u, &p), 0);
    for (unsigned k = 0; k < HPM_K_COUNT; k++) {
        const struct hpm_cat_kind_info *ki = hpm_catalog_kind(k);
        for (int c = 0; c < (ki->node ? 1 : 2); c++) {
            uint32_t ctr[HPM_UPC_INPUTS_PER_COUNTER];
            int code = hpm_catalog_code(k, c);
            int n = hpm_upc_event_counters(u, (uint32_t)code, ctr);
            CHECK_EQ(n, 1);
            if (n == 1) {
                CHECK_EQ(used[ctr[0]], 0);
                used[ctr[0]] = 1;
            }
        }
    }
    hpm_upc_destroy(u);
}

/* Counting modes: the ":mode" suffix, specs, their names and units. */
static void test_modes(void)
{
    struct hpm_cat_name nm;
    char name[HPM_CAT_NAME_MAX];
    int codes[HPM_CAT_MAX_CORES];
    unsigned kind, mode;
    int core;
    CHECK_EQ(hpm_catalog_parse("pu1_stall_mem_cycles:EDGE-RISE", &nm), 0);
    CHECK_EQ(nm.kind, HPM_K_STALL_MEM_CYCLES);
    CHECK_EQ(nm.core, 1);
    CHECK_EQ(nm.mode, HPM_CAT_EDGE_RISE);
    CHECK(strcmp(nm.canonical, "PU1_STALL_MEM_CYCLES:edge-rise") == 0);
    CHECK_EQ(hpm_catalog_parse("L1D_MISSES:level-high", &nm), 0);
    CHECK_EQ(nm.mode, HPM_CAT_LEVEL_HIGH);
    CHECK(strcmp(nm.canonical, "L1D_MISSES") == 0);
    CHECK_EQ(hpm_catalog_parse("DDR_READS:level-low", &nm), 0);
    CHECK(strcmp(nm.canonical, "DDR_READS:level-low") == 0);
    CHECK_EQ(hpm_catalog_parse("L1D_MISSES:edge", &nm), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_parse("L1D_MISSES:", &nm), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_parse("L1D_MISSES:edge-rise:edge-fall", &nm), HPM_CAT_EUNKNOWN);
    CHECK_EQ(hpm_catalog_parse(":edge-rise", &nm), HPM_CAT_EUNKNOWN);
    /* a bare kind in a mode: every core's code, as specs */
    CHECK_EQ(hpm_catalog_lookup("LOADS:edge-fall", 4, ~0u, codes, HPM_CAT_MAX_CORES, NULL), 4);
    for (int c = 0; c < 4; c++) {
        CHECK_EQ(codes[c], (int)hpm_catalog_spec((unsigned)hpm_catalog_code(HPM_K_LOADS, c),
                                                 HPM_CAT_EDGE_FALL));
        CHECK_EQ(hpm_catalog_spec_decode((unsigned)codes[c], &kind, &core, &mode), 0);
        CHECK(kind == HPM_K_LOADS && core == c && mode == HPM_CAT_EDGE_FALL);
        /* readers that know no modes do not take a spec for its kind */
        CHECK_EQ(hpm_catalog_decode((unsigned)codes[c], &kind, &core), -1);
    }
    CHECK(hpm_catalog_code_name((unsigned)codes[3], name, sizeof name) > 0);
    CHECK(strcmp(name, "PU3_LOADS:edge-fall") == 0);
    CHECK_EQ(hpm_catalog_code_name(HPM_CAT_SPECS, name, sizeof name), -1);
    CHECK_EQ(hpm_catalog_spec_decode(HPM_CAT_SPECS, &kind, &core, &mode), -1);
    /* every name round-trips in every mode, within HPM_CAT_NAME_MAX */
    for (unsigned k = 0; k < HPM_K_COUNT; k++)
        for (unsigned m = 0; m < HPM_CAT_MODES; m++) {
            unsigned spec = hpm_catalog_spec((unsigned)hpm_catalog_code(k, 15), m);
            int len = hpm_catalog_code_name(spec, name, sizeof name);
            CHECK(len > 0 && len < HPM_CAT_NAME_MAX);
            CHECK_EQ(hpm_catalog_lookup(name, HPM_CAT_MAX_CORES, ~0u, codes, 1, NULL), 1);
            CHECK_EQ(codes[0], (int)spec);
        }
    CHECK(strcmp(hpm_catalog_spec_units(hpm_catalog_spec(
                     (unsigned)hpm_catalog_code(HPM_K_DDR_READ_BYTES, -1), 0)), "bytes") == 0);
    CHECK(strcmp(hpm_catalog_spec_units(hpm_catalog_spec(
                     (unsigned)hpm_catalog_code(HPM_K_L1D_MISSES, 0), 1)), "cycles") == 0);
    CHECK(strcmp(hpm_catalog_spec_units(hpm_catalog_spec(
                     (unsigned)hpm_catalog_code(HPM_K_CYCLES, 0), 2)), "events") == 0);
    CHECK(hpm_catalog_mode_name(HPM_CAT_MODES) == NULL);
    CHECK_EQ(hpm_catalog_mode_by_name("Level-Low", 9), HPM_CAT_LEVEL_LOW);
    /* a mode's clock is the timing model's: every mode but level high needs it */
    {
        unsigned insn = (unsigned)hpm_catalog_code(HPM_K_INSTRUCTIONS, 1);
        CHECK_EQ(hpm_catalog_spec_needs(insn), hpm_catalog_kind(HPM_K_INSTRUCTIONS)->needs);
        CHECK(!(hpm_catalog_spec_needs(insn) & HPM_NEED_TIMING));
        for (unsigned m = HPM_CAT_LEVEL_LOW; m < HPM_CAT_MODES; m++)
            CHECK(hpm_catalog_spec_needs(hpm_catalog_spec(insn, m)) & HPM_NEED_TIMING);
        CHECK_EQ(hpm_catalog_spec_needs(HPM_CAT_SPECS), 0u);
    }
}

int main(int argc, char **argv)
{
    test_codes_round_trip();
    test_four_cores_fit_one_upc();
    test_two_cores_fit_one_upc();
    test_lookup_errors();
    test_table_and_parser();
    test_modes();
    test_machine_wire(argc > 1 ? argv[1] : "machines");
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
