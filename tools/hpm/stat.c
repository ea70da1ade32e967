/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm stat and hpm top: the counters of processes running under the virtual
 * PMU, read from another process through their live views (src/live).
 *
 *   hpm stat -p PID [-e EVENTS] [-I MS] [--csv]   once, or every MS ms:
 *                                                 counts, deltas, rates, IPC
 *   hpm top [-I MS] [-n N]                        every process under hpm
 *
 * Reading never disturbs the program: the view is mapped read-only and
 * copied with the sequence-lock protocol. A process that ends gives its
 * final counts (the view's last publication) and a clear end.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "commands.h"
#include "report/interval.h"
#include "live.h"
#include "util/options.h"
#include "util/runner.h"

static const char stat_synopsis[] =
    "usage: hpm stat -p PID [-e EVENT[,EVENT...]] [-I MS] [-n N] [--csv]\n"
    "Read the counters of a process running under hpm (hpm run, hpm count) from\n"
    "another process: once, or every MS milliseconds (deltas and rates) until it\n"
    "ends. Without -e: instructions, cycles, loads, stores, L1D misses, FP ops.\n\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (!stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int stat_run(long pid, const struct hpm_opt_list *events, long ms, long n, int csv);

int cmd_stat(int argc, char **argv)
{
    struct hpm_opt_list events = {{0}, 0};
    long pid = 0, ms = 0, n = -1;
    int csv = 0, rc;
    const char *output = NULL;
    struct runner_redirect out;
    const struct hpm_opt t[] = {
        {"--pid", "-p", "PID", "the process (its pid, as hpm top lists it)", HPM_OPT_LONG, &pid,
         NULL, NULL, 1, 0x7fffffff},
        {"--events", "-e", "EVENTS", "catalog events (as hpm count takes them)", HPM_OPT_LIST,
         &events, NULL, NULL, 0, 0},
        {"--interval", "-I", "MS", "print deltas every MS milliseconds until the process ends",
         HPM_OPT_LONG, &ms, NULL, NULL, 1, 3600000},
        {"--count", "-n", "N", "stop after N intervals", HPM_OPT_LONG, &n, NULL, NULL, 1,
         0x7fffffff},
        {"--csv", NULL, NULL, "CSV lines instead of the text table", HPM_OPT_FLAG, &csv, NULL,
         NULL, 0, 0},
        {"--output", "-o", "FILE", "write to FILE [standard output]", HPM_OPT_STRING, &output,
         NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };

    rc = hpm_opt_parse_all("hpm stat", t, stat_synopsis, NULL, argc, argv);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!pid)
        return hpm_opt_error("hpm stat", t, stat_synopsis, NULL, "-p PID is needed%s", "");
    if (runner_stdout_to("hpm stat", output, &out) != 0)
        return 1;
    rc = stat_run(pid, &events, ms, n, csv);
    if (runner_stdout_restore("hpm stat", &out, rc == 0) != 0 && rc == 0)
        rc = 1;
    return rc;
}

/* The counts of process pid, once or every ms, on standard output. */
static int stat_run(long pid, const struct hpm_opt_list *events, long ms, long n, int csv)
{
    struct hpm_live_reader lr;
    struct hpm_interval iv;
    struct hpm_live snap;
    char err[256];
    long k;
    int rc;

    if (hpm_live_open(&lr, (pid_t)pid, err, sizeof err) != 0) {
        fprintf(stderr, "hpm stat: %s\n", err);
        return 1;
    }
    if (hpm_live_snapshot(&lr, &snap) != 0) {
        fprintf(stderr, "hpm stat: no consistent snapshot of process %ld\n", pid);
        hpm_live_close(&lr);
        return 1;
    }
    if (hpm_interval_init(&iv, &snap, events->v, events->n, csv ? HPM_IV_CSV : HPM_IV_TEXT,
                          stdout, "hpm stat") != 0) {
        hpm_live_close(&lr);
        return 2;
    }
    if (!ms) {
        hpm_interval_totals(&iv, &snap);
        rc = ferror(stdout) ? 1 : 0;
        hpm_live_close(&lr);
        return rc;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    hpm_interval_start(&iv, &snap);
    for (k = 0; !stop && (n < 0 || k < n); k++) {
        sleep_ms(ms);
        if (hpm_live_snapshot(&lr, &snap) != 0)
            break;
        hpm_interval_step(&iv, &snap);
        if (snap.state != HPM_LIVE_RUNNING)
            break;
    }
    if (snap.state == HPM_LIVE_EXITED)
        fprintf(stderr, "hpm stat: process %ld ended (%s %d); the last line holds its final "
                        "counts\n",
                pid, snap.exit_status >= 0 ? "status" : "signal",
                snap.exit_status >= 0 ? snap.exit_status : -snap.exit_status);
    else if (snap.state == HPM_LIVE_EXEC)
        fprintf(stderr, "hpm stat: process %ld replaced its program (exec); hpm stat -p %ld "
                        "follows the new one\n",
                pid, pid);
    hpm_live_close(&lr);
    return ferror(stdout) ? 1 : 0;
}

static const char top_synopsis[] =
    "usage: hpm top [-I MS] [-n N]\n"
    "List the processes running under hpm (hpm run, hpm count) with a few live\n"
    "figures: instructions, IPC, L1D misses and FP ops, each since the process started,\n"
    "and the rate of instructions per second of host time since the last listing.\n\n";

int cmd_top(int argc, char **argv)
{
    long ms = 0, n = 0, k;
    int rc;
    const struct hpm_opt t[] = {
        {"--interval", "-I", "MS", "list again every MS milliseconds", HPM_OPT_LONG, &ms, NULL,
         NULL, 1, 3600000},
        {"--count", "-n", "N", "list N times (default 1, or until ^C with -I)", HPM_OPT_LONG, &n,
         NULL, NULL, 1, 0x7fffffff},
        HPM_OPT_TABLE_END,
    };
    rc = hpm_opt_parse_all("hpm top", t, top_synopsis, NULL, argc, argv);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!n)
        n = ms ? -1 : 1;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    for (k = 0; !stop && (n < 0 || k < n); k++) {
        pid_t pids[256];
        unsigned np = hpm_live_list(pids, 256, 1), i;
        if (k)
            sleep_ms(ms);
        printf("%s%8s %-8s %16s %7s %14s %14s  %s\n", k ? "\n" : "", "pid", "state",
               "instructions", "IPC", "L1D_MISSES", "FP_OPS", "command");
        for (i = 0; i < np; i++) {
            struct hpm_live_reader lr;
            struct hpm_live s;
            char err[256], ipc[16] = "-";
            uint64_t v[4] = {0, 0, 0, 0};
            static const unsigned kinds[4] = {HPM_K_INSTRUCTIONS, HPM_K_CYCLES,
                                              HPM_K_L1D_MISSES, HPM_K_FP_OPS};
            int have[4] = {0, 0, 0, 0};
            if (hpm_live_open(&lr, pids[i], err, sizeof err) != 0)
                continue;
            if (hpm_live_snapshot(&lr, &s) != 0) {
                hpm_live_close(&lr);
                continue;
            }
            for (unsigned j = 0; j < 4; j++)
                for (unsigned c = 0; c < s.cores && c < HPM_CAT_MAX_CORES; c++) {
                    int h;
                    uint64_t x = hpm_live_value(&s, (unsigned)hpm_catalog_code(kinds[j], (int)c),
                                                &h);
                    if (h) {
                        v[j] += x;
                        have[j] = 1;
                    }
                }
            if (have[0] && have[1] && v[1])
                snprintf(ipc, sizeof ipc, "%.3f", (double)v[0] / (double)v[1]);
            printf("%8ld %-8s %16" PRIu64 " %7s %14" PRIu64 " %14" PRIu64 "  %s\n", (long)pids[i],
                   s.state == HPM_LIVE_RUNNING ? "running"
                   : s.state == HPM_LIVE_EXITED ? "exited"
                                                : "exec",
                   v[0], ipc, v[2], v[3], s.command);
            hpm_live_close(&lr);
        }
        if (!np)
            printf("(no process runs under hpm)\n");
        fflush(stdout);
    }
    return ferror(stdout) ? 1 : 0;
}
