/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm upc-demo: a synthetic event stream through the UPC model.
 *
 * A small made-up node (four cores, a shared L3) produces per-cycle event
 * signals from a seeded generator; the unit counts them in all four modes and
 * raises threshold interrupts. It shows, as seed 000 section 6 describes, that
 * one "L1D miss outstanding" signal counted on a rising edge gives the number
 * of misses, and counted level-high gives the cycles spent on them. The counts
 * are of this synthetic stream (modeled), not of any program.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util/options.h"
#include "hpm/upc.h"

/* Signals of the synthetic node: per core c, signal c*8 + k. */
enum demo_signal {
    SIG_INSTR = 0,     /* an instruction completed this cycle */
    SIG_FP = 1,        /* a floating-point operation issued */
    SIG_LOAD = 2,      /* a load issued */
    SIG_MISS_BUSY = 3, /* an L1D miss is outstanding (a level signal) */
    SIG_STALL = 4,     /* pipeline stalled */
    SIG_PER_CORE = 8,
    SIG_L3_BUSY = 32,  /* node-wide: L3 serving a request */
    SIG_COUNT = 33,
};

struct demo_core {
    uint32_t miss_left; /* cycles until the outstanding miss returns */
};

/* Each row: a signal, the counter that counts it, the input (bank) through
 * which that counter sees it, and the mode. The wired event number is
 * counter + input * 256 (see hpm/upc.h); the same signal counted in several
 * modes is fed to several events, as a real node would wire it. */
struct demo_counter {
    const char *name;
    uint32_t signal, counter, input;
    int mode;
};

static const struct demo_counter demo_counters[] = {
    {"PU0 INSTRUCTIONS", SIG_INSTR, 0, 0, HPM_UPC_LEVEL_HIGH},
    {"PU0 FP OPS", SIG_FP, 1, 0, HPM_UPC_LEVEL_HIGH},
    {"PU0 LOADS", SIG_LOAD, 2, 1, HPM_UPC_LEVEL_HIGH},
    {"PU0 L1D MISSES (edge rise)", SIG_MISS_BUSY, 3, 2, HPM_UPC_EDGE_RISE},
    {"PU0 L1D MISS CYCLES (level high)", SIG_MISS_BUSY, 4, 0, HPM_UPC_LEVEL_HIGH},
    {"PU0 L1D MISS RETURNS (edge fall)", SIG_MISS_BUSY, 5, 3, HPM_UPC_EDGE_FALL},
    {"PU0 NOT STALLED CYCLES (level low)", SIG_STALL, 6, 0, HPM_UPC_LEVEL_LOW},
    {"PU1 INSTRUCTIONS", 1 * 8 + SIG_INSTR, 64, 0, HPM_UPC_LEVEL_HIGH},
    {"PU1 L1D MISSES (edge rise)", 1 * 8 + SIG_MISS_BUSY, 67, 2, HPM_UPC_EDGE_RISE},
    {"PU2 INSTRUCTIONS", 2 * 8 + SIG_INSTR, 128, 0, HPM_UPC_LEVEL_HIGH},
    {"PU3 INSTRUCTIONS", 3 * 8 + SIG_INSTR, 192, 0, HPM_UPC_LEVEL_HIGH},
    {"L3 BUSY CYCLES", SIG_L3_BUSY, 255, 1, HPM_UPC_LEVEL_HIGH},
};
#define N_DEMO (sizeof demo_counters / sizeof demo_counters[0])

struct irq_log {
    uint64_t count, first, last;
    uint32_t counter;
    struct hpm_upc *unit;
    uint64_t threshold;
    uint64_t preload;
};

static void on_notify(void *ctx, const struct hpm_upc_notify *n)
{
    struct irq_log *log = ctx;
    if (n->kind != HPM_UPC_NOTIFY_IRQ) return;
    if (log->count++ == 0) log->first = n->cycle;
    log->last = n->cycle;
}

static uint64_t rng_state;
static uint32_t rnd(uint32_t below)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % below);
}

static const char upc_demo_synopsis[] =
    "usage: hpm upc-demo [--cycles N] [--seed N] [--threshold N]\n"
    "Drive a synthetic event stream through the UPC model and print the counters\n"
    "and the threshold interrupts.\n\n";

int cmd_upc_demo(int argc, char **argv)
{
    long cycles_opt = 2000000, seed_opt = 1, threshold_opt = 100000;
    const struct hpm_opt t[] = {
        {"--cycles", NULL, "N", "cycles to run (default 2000000)", HPM_OPT_LONG, &cycles_opt,
         NULL, NULL, 0, LONG_MAX},
        {"--seed", NULL, "N", "the event stream's seed (default 1)", HPM_OPT_LONG, &seed_opt,
         NULL, NULL, 0, LONG_MAX},
        {"--threshold", NULL, "N", "the counters' interrupt threshold (default 100000)",
         HPM_OPT_LONG, &threshold_opt, NULL, NULL, 1, LONG_MAX},
        HPM_OPT_TABLE_END,
    };
    int rc = hpm_opt_parse_all("hpm upc-demo", t, upc_demo_synopsis, NULL, argc, argv);
    if (rc)
        return rc < 0 ? 0 : rc;
    uint64_t cycles = (uint64_t)cycles_opt, seed = (uint64_t)seed_opt,
             threshold = (uint64_t)threshold_opt;
    rng_state = seed * 2654435761u + 88172645463325252ull;

    struct hpm_upc_params p;
    hpm_upc_params_default(&p);
    struct hpm_upc *u;
    rc = hpm_upc_create(&u, &p);
    if (rc != HPM_UPC_OK) {
        fprintf(stderr, "hpm upc-demo: %s\n", hpm_upc_strerror(rc));
        return 1;
    }
    uint32_t counter_of[N_DEMO], wired[N_DEMO];
    for (size_t i = 0; i < N_DEMO; i++) {
        const struct demo_counter *d = &demo_counters[i];
        counter_of[i] = d->counter;
        hpm_upc_input_event(u, d->counter, d->input, &wired[i]);
        rc = hpm_upc_configure(u, d->counter, d->input, d->mode, 0);
        if (rc != HPM_UPC_OK) {
            fprintf(stderr, "hpm upc-demo: %s: %s\n", d->name, hpm_upc_strerror(rc));
            return 1;
        }
    }

    struct irq_log log = {0};
    log.counter = counter_of[0];
    hpm_upc_set_notify(u, on_notify, &log);
    hpm_upc_set_threshold_mode(u, 1);
    rc = hpm_upc_program_threshold(u, counter_of[0], threshold, &log.preload);
    if (rc != HPM_UPC_OK) {
        fprintf(stderr, "hpm upc-demo: threshold %" PRIu64 ": %s\n", threshold,
                hpm_upc_strerror(rc));
        return 1;
    }

    struct demo_core cores[4] = {{0}};
    uint64_t sig[16];
    uint8_t level[SIG_COUNT];
    hpm_upc_start(u);
    for (uint64_t t = 0; t < cycles; t++) {
        memset(level, 0, sizeof level);
        for (uint32_t c = 0; c < 4; c++) {
            uint8_t *core = &level[c * SIG_PER_CORE];
            if (cores[c].miss_left) {
                cores[c].miss_left--;
                core[SIG_MISS_BUSY] = core[SIG_STALL] = level[SIG_L3_BUSY] = 1;
            } else if (rnd(100) < 85 - 10 * c) {
                core[SIG_INSTR] = 1;
                core[SIG_FP] = rnd(4) == 0;
                if (rnd(3) == 0) {
                    core[SIG_LOAD] = 1;
                    if (rnd(50) == 0) cores[c].miss_left = 20 + rnd(60);
                }
            } else {
                core[SIG_STALL] = 1;
            }
        }
        memset(sig, 0, sizeof sig);
        for (size_t i = 0; i < N_DEMO; i++)
            if (level[demo_counters[i].signal]) sig[wired[i] / 64] |= 1ull << (wired[i] % 64);
        hpm_upc_step(u, sig);
    }
    hpm_upc_stop(u);

    printf("hpm upc-demo: synthetic event stream, %" PRIu64 " cycles, BG/P UPC parameters "
           "(%u counters x %u+%u bits, %u inputs, %u cycles/slot)\n",
           cycles, p.n_counters, p.low_bits, p.high_bits, p.n_inputs, p.cycles_per_slot);
    printf("counts are modeled (a synthetic stream), read through the memory-mapped "
           "counter registers\n\n");
    printf("%-36s %7s %6s %-10s %14s\n", "event", "counter", "input", "mode", "count");
    for (size_t i = 0; i < N_DEMO; i++) {
        uint64_t v = 0;
        rc = hpm_upc_mmio_read(u, 8u * counter_of[i], &v);
        if (i == 0) v -= log.preload;
        uint32_t bank = demo_counters[i].input;
        if (rc != HPM_UPC_OK)
            printf("%-36s %7u %6u %-10s %14s\n", demo_counters[i].name, counter_of[i], bank,
                   hpm_upc_mode_name(demo_counters[i].mode), hpm_upc_strerror(rc));
        else
            printf("%-36s %7u %6u %-10s %14" PRIu64 "\n", demo_counters[i].name, counter_of[i],
                   bank, hpm_upc_mode_name(demo_counters[i].mode), v);
    }
    printf("\nthreshold interrupt on '%s' after %" PRIu64 " events: ", demo_counters[0].name,
           threshold);
    if (log.count)
        printf("raised in cycle %" PRIu64 "\n", log.first);
    else
        printf("not reached\n");
    printf("status register: 0x%x\n", hpm_upc_status(u));
    hpm_upc_destroy(u);
    return 0;
}
