/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The calls on a multiplexed set cost what they cost on the same set
 * without multiplexing (run under `hpm run --`). The virtual PMU counts
 * every event all the time, so a set multiplexed the kernel's way
 * (PAPI_set_multiplex) or PAPI's own (PAPI_MULTIPLEX_FORCE_SW), as Debian's
 * papi_multiplex_cost makes them, must take the plain set's paths: the
 * instructions the program runs in PAPI_start + PAPI_stop, PAPI_read,
 * PAPI_read_ts, PAPI_accum and PAPI_reset are the same number for all
 * three. Instruction counts are exact on the virtual PMU (the thread's own
 * count, asked with a client request around each call after two calls of
 * the same kind that resolve the set's paths), so the comparison is of
 * integers, not times. PAPI_read stays within 100 instructions on a set of
 * two events (docs/papi.md, "Speed of the calls").
 *
 * Without the virtual PMU the test reports itself skipped (exit 77).
 */
#include <stdint.h>
#include "hpm_check.h"
#include "hpm_client.h"
#include "papi.h"

enum { PLAIN, KERNEL, SOFTWARE, N_MODES };
static const char *const mode_name[N_MODES] = {"plain", "kernel-multiplexed",
                                               "software-multiplexed"};
enum { OP_START_STOP, OP_READ, OP_READ_TS, OP_ACCUM, OP_RESET, N_OPS };
static const char *const op_name[N_OPS] = {"PAPI_start+PAPI_stop", "PAPI_read", "PAPI_read_ts",
                                           "PAPI_accum", "PAPI_reset"};

/* the calling thread's instructions so far (the tool's first kind) */
static uint64_t my_instructions(void)
{
    uint64_t c[1] = {0};
    return HPM_VPMU_READ(c, 1) == 1 ? c[0] : 0;
}

/* The instructions of CALL (an expression, PAPI_OK or not) written out
 * here, after two calls that resolve the set's paths, less those of the
 * two requests around nothing: the call's own (no dispatch of ours). The
 * least of five: PAPI_read_ts's clock read takes its sync path (a request)
 * when the host's time since the last sync passed the thread's TSC window
 * (libhpm's hpm_clock_ns), which a loaded machine decides, not the call. */
#define COST(OP, CALL)                                                                             \
    do {                                                                                           \
        uint64_t i0_, i1_, i2_;                                                                    \
        int k_, rc_;                                                                               \
        long long n_;                                                                              \
        for (k_ = 0; k_ < 2; k_++)                                                                 \
            CHECKF((CALL) == PAPI_OK, "%s", op_name[OP]);                                          \
        c[OP] = -1;                                                                                \
        for (k_ = 0; k_ < 5; k_++) {                                                               \
            i0_ = my_instructions();                                                               \
            i1_ = my_instructions();                                                               \
            rc_ = (CALL);                                                                          \
            i2_ = my_instructions();                                                               \
            CHECKF(rc_ == PAPI_OK, "%s", op_name[OP]);                                             \
            n_ = (long long)(i2_ - i1_) - (long long)(i1_ - i0_);                                  \
            c[OP] = c[OP] < 0 || n_ < c[OP] ? n_ : c[OP];                                          \
        }                                                                                          \
    } while (0)

/* c[op]: each call's instructions on set */
static void costs(int set, long long *c)
{
    long long v[4] = {0}, ts;
    COST(OP_START_STOP, PAPI_start(set) != PAPI_OK ? PAPI_EMISC : PAPI_stop(set, v));
    CHECKF(PAPI_start(set) == PAPI_OK, "PAPI_start");
    COST(OP_READ, PAPI_read(set, v));
    COST(OP_READ_TS, PAPI_read_ts(set, v, &ts));
    COST(OP_ACCUM, PAPI_accum(set, v));
    COST(OP_RESET, PAPI_reset(set));
    CHECKF(PAPI_stop(set, v) == PAPI_OK, "PAPI_stop");
}

static int make_set(int mode)
{
    int set = PAPI_NULL;
    PAPI_option_t opt;
    CHECKF(PAPI_create_eventset(&set) == PAPI_OK, "PAPI_create_eventset");
    CHECKF(PAPI_assign_eventset_component(set, 0) == PAPI_OK, "PAPI_assign_eventset_component");
    if (mode == KERNEL) CHECKF(PAPI_set_multiplex(set) == PAPI_OK, "PAPI_set_multiplex");
    if (mode == SOFTWARE) {
        memset(&opt, 0, sizeof opt);
        opt.multiplex.eventset = set;
        opt.multiplex.flags = PAPI_MULTIPLEX_FORCE_SW;
        CHECKF(PAPI_set_opt(PAPI_MULTIPLEX, &opt) == PAPI_OK, "PAPI_set_opt(PAPI_MULTIPLEX)");
    }
    /* a modeled event (the models run, as in papi_multiplex_cost's sets)
     * and an exact one */
    CHECKF(PAPI_add_named_event(set, "PAPI_L1_DCM") == PAPI_OK, "add PAPI_L1_DCM");
    CHECKF(PAPI_add_named_event(set, "PAPI_TOT_INS") == PAPI_OK, "add PAPI_TOT_INS");
    return set;
}

int main(void)
{
    long long c[N_MODES][N_OPS];
    int mode, op, set;
    if (HPM_VPMU_IS_RUNNING() <= 0) {
        fprintf(stderr, "papi_mpx_cost: not under hpm run: skipped\n");
        return 77;
    }
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_multiplex_init() != PAPI_OK) {
        fprintf(stderr, "papi_mpx_cost: PAPI_library_init or PAPI_multiplex_init failed\n");
        return 1;
    }
    for (mode = 0; mode < N_MODES; mode++) {
        set = make_set(mode);
        CHECKF(PAPI_get_multiplex(set) == (mode != PLAIN), "%s: PAPI_get_multiplex %d",
               mode_name[mode], PAPI_get_multiplex(set));
        costs(set, c[mode]);
        CHECKF(PAPI_cleanup_eventset(set) == PAPI_OK && PAPI_destroy_eventset(&set) == PAPI_OK,
               "cleanup");
    }
    for (op = 0; op < N_OPS; op++) {
        printf(
            "%-22s plain %lld, kernel-multiplexed %lld, software-multiplexed %lld instructions\n",
            op_name[op], c[PLAIN][op], c[KERNEL][op], c[SOFTWARE][op]);
        CHECKF(c[PLAIN][op] > 0, "%s: %lld instructions", op_name[op], c[PLAIN][op]);
        for (mode = KERNEL; mode < N_MODES; mode++)
            CHECKF(c[mode][op] == c[PLAIN][op], "%s on the %s set: %lld instructions, plain %lld",
                   op_name[op], mode_name[mode], c[mode][op], c[PLAIN][op]);
    }
    CHECKF(c[PLAIN][OP_READ] <= 100, "PAPI_read: %lld instructions (at most 100)",
           c[PLAIN][OP_READ]);
    return failures ? 1 : 0;
}
