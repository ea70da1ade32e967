/* SPDX-License-Identifier: BSD-3-Clause */
/* hpm: the command-line front end. Dispatches to one function per subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util/suggest.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"count", cmd_count,
     "run a program on the virtual PMU and report its event counts (modeled)"},
    {"run", cmd_run,
     "run a program on the virtual PMU with every event counting, for programs that read "
     "counters themselves (hpm.h, libpapi); no report"},
    {"profile", cmd_profile,
     "run a program as count does and attribute every event to its instruction, line, "
     "function and call path (a callgrind-format profile)"},
    {"record", cmd_record,
     "run a program on the virtual PMU with precise sampling (exact instruction, data "
     "address, call chain); writes perf.data for perf report and perf script"},
    {"report", cmd_report,
     "collapsed stacks (--folded) or an SVG flame graph (--flamegraph) of a perf.data file"},
    {"annotate", cmd_annotate,
     "print the top functions, lines and annotated source of a profile (callgrind format)"},
    {"roofline", cmd_roofline,
     "the memory-level roofline of a program's loops and functions (FLOP/s, intensity per "
     "level, which ceiling bounds each)"},
    {"list", cmd_list, "list the event catalog and what a machine model provides"},
    {"stat", cmd_stat,
     "read the live counters of a process running under hpm, once or at intervals"},
    {"top", cmd_top, "list the processes running under hpm with live figures"},
    {"plot", cmd_plot, "plot an interval series (hpm count/stat -I --csv) with gnuplot"},
    {"serve", cmd_serve,
     "serve the live counters of processes under hpm as OpenMetrics text (/metrics)"},
    {"upc-demo", cmd_upc_demo,
     "drive a synthetic event stream through the UPC model; print counters and interrupts"},
    {"upc-explore", cmd_upc_explore,
     "replay a program's (or a synthetic) event stream through counter-unit designs: lost "
     "carries, interrupt and read latency, storage bits"},
    {"diff", cmd_diff,
     "what changed between two runs: two count reports (--json) or two profiles, per event, "
     "function, line, call path and data object"},
    {"merge", cmd_merge,
     "aggregate the results of an MPI job's ranks (sum, min, average, max, imbalance)"},
    {"validate", cmd_validate,
     "reproduce seed 001's micro-benchmark table (Table 1) on the virtual PMU"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: hpm COMMAND [ARGS]\n       hpm --help | --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("hpm " HPM_VERSION_STRING "\n");
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    {
        struct suggest s;
        suggest_init(&s, argv[1]);
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            suggest_offer(&s, commands[i].name);
        if (suggest_result(&s))
            fprintf(stderr, "hpm: unknown command '%s' (did you mean %s?)\n", argv[1],
                    suggest_result(&s));
        else
            fprintf(stderr, "hpm: unknown command '%s'\n", argv[1]);
    }
    usage(stderr);
    return 2;
}
