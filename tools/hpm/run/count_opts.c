/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_opts.c - hpm count's, run's and profile's option table: parsing, usage, checks
 * (run_internal.h: what the parts of run/ share).
 */
#define _GNU_SOURCE /* wait4, syscall, mkdtemp */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "baseline/baseline.h"
#include "util/machine_arg.h"
#include "machine_wire.h"
#include "live.h"
#include "util/options.h"
#include "run/run_internal.h"


static const char *const start_choices[] = {"no", "yes", NULL};
static const char *const model_choices[] = {"on-demand", "always", NULL};
static const char *const pmu_choices[] = {"auto", "perf", "virtual", NULL};
static const char *const coherence_choices[] = {"slices", "time", NULL};

static const char count_synopsis[] =
    "usage: hpm count [--machine NAME|FILE] [-e EVENT[,EVENT...]]... [--json | --csv]\n"
    "                 [-o FILE] [--per-core] [--per-thread] [--start=no] [--no-children]\n"
    "                 [--trace-children-skip=PATTERNS]\n"
    "                 [--pmu=auto|perf|virtual]\n"
    "                 [--start-at=SYM] [--stop-at=SYM] [--only=FUNCTION] [--trigger=KIND:N]\n"
    "                 -- PROGRAM [ARGS]\n"
    "       hpm count [options] --from-output TOOL_OUTPUT_FILE\n"
    "       hpm run [--machine M] [-e EVENTS] [--start=no] [--model=on-demand|always]\n"
    "               -- PROGRAM [ARGS]\n"
    "       hpm profile [hpm count's options] [-o PROFILE] -- PROGRAM [ARGS]\n"
    "\n"
    "hpm count runs PROGRAM on the virtual PMU (valgrind --tool=hpm) modeling machine\n"
    "NAME (default " HPM_DEFAULT_MACHINE "; 'host' = this machine) and reports the catalog events\n"
    "counted. hpm run runs PROGRAM and its children there and prints no report: for\n"
    "programs that read counters themselves (libhpm, libpapi). hpm profile counts as\n"
    "hpm count does, attributes every event to the instruction that caused it and\n"
    "writes PROFILE (-o; default callgrind.out.hpm.PID) in callgrind's format\n"
    "(hpm annotate, callgrind_annotate, kcachegrind read it). Compressed debug\n"
    "files (Debian's -dbg, -dbgsym) are read by every run and profile from a\n"
    "decompressed copy made once in $HPM_DEBUG_CACHE (default\n"
    "~/.cache/hpm/debuginfo; 'off': none).\n"
    "\n";
static const char count_footer[] =
    "\nhpm exits with PROGRAM's exit status (of the last program it exec'd), or 128+N\n"
    "if signal N killed it; with --baseline, with the gate's status (docs/ci.md).\n";


/* The one table of hpm count's and hpm run's options: parsing and usage. */
#define COUNT_OPTIONS 39 /* rows, with the end */
void count_table(struct count_opts *o, struct hpm_opt *t)
{
    const struct hpm_opt rows[] = {
        {"--machine", NULL, "M", "machine name (machines/M.machine) or machine file",
         HPM_OPT_STRING, &o->machine, NULL, NULL, 0, 0},
        {"--events", "-e", "EVENTS",
         "events to count: PU<n>_KIND, KIND (all cores), node kinds;\n"
         "default every event the machine provides (hpm list)",
         HPM_OPT_LIST, &o->events, NULL, NULL, 0, 0},
        HPM_OPT_REPORT_ROWS(&o->json, &o->csv, &o->output),
        {"--per-core", NULL, NULL, "add a column per core (PU0, PU1, ...)", HPM_OPT_FLAG,
         &o->per_core, NULL, NULL, 0, 0},
        {"--per-thread", NULL, NULL, "add a table per thread", HPM_OPT_FLAG, &o->per_thread, NULL,
         NULL, 0, 0},
        {"--start", NULL, "yes|no", "no: count only from the program's HPM_VPMU_START() on",
         HPM_OPT_CHOICE, &o->start, start_choices, NULL, 0, 0},
        {"--start-at", NULL, "SYM|0xADDR",
         "count only from when execution reaches SYM (a function's first\n"
         "instruction) or the instruction at ADDR, each time it does",
         HPM_OPT_STRING, &o->start_at, NULL, NULL, 0, 0},
        {"--stop-at", NULL, "SYM|0xADDR", "stop counting whenever execution reaches it",
         HPM_OPT_STRING, &o->stop_at, NULL, NULL, 0, 0},
        {"--only", NULL, "FUNCTION", "count only while FUNCTION (and what it calls) runs",
         HPM_OPT_STRING, &o->only, NULL, NULL, 0, 0},
        {"--trigger", NULL, "KIND:N",
         "start counting after N events of KIND (an exact core event,\n"
         "counted or not; starts at the next superblock boundary)",
         HPM_OPT_STRING, &o->trigger, NULL, NULL, 0, 0},
        {"--no-children", NULL, NULL,
         "count only PROGRAM (and what it execs), not the processes it\n"
         "starts; by default the whole tree is counted and hpm waits for it",
         HPM_OPT_FLAG, &o->no_children, NULL, NULL, 0, 0},
        {"--trace-children-skip", NULL, "PATTERNS",
         "programs the tree execs whose path matches one of PATTERNS\n"
         "(comma-separated globs: * and ?; Valgrind's option) run natively,\n"
         "not counted; the report names them",
         HPM_OPT_STRING, &o->trace_skip, NULL, NULL, 0, 0},
        {"--from-output", NULL, "F", "report a tool output file already written; runs nothing",
         HPM_OPT_STRING, &o->from_output, NULL, NULL, 0, 0},
        {"--interval", "-I", "MS",
         "also print the program's counts every MS milliseconds on stderr\n"
         "(deltas, rates, totals; text, or CSV/JSON lines with --csv/--json)",
         HPM_OPT_LONG, &o->interval_ms, NULL, NULL, 10, 3600000},
        {"--model", NULL, "on-demand|always",
         "hpm run: the caches with the TLBs, the predictor and the timing\n"
         "model each start (cold) when the program first adds an event\n"
         "that needs it (on-demand, the default; cycles need them all),\n"
         "or all run from its first instruction",
         HPM_OPT_CHOICE, &o->model_always, model_choices, &o->model_given, 0, 0},
        {"--mpi", NULL, NULL,
         "PROGRAM is an MPI program and hpm count a rank of its job\n"
         "(mpirun -np N hpm count --mpi -- PROGRAM): refuse otherwise.\n"
         "Under a launcher (mpirun, srun) hpm count is a rank anyway",
         HPM_OPT_FLAG, &o->mpi, NULL, NULL, 0, 0},
        {"--mpi-dir", NULL, "DIR",
         "a rank's result goes to DIR/rank.R.json (default\n"
         "hpm-mpi.JOBID); the last rank to finish writes the job's\n"
         "aggregate (sum, min, avg, max, imbalance; hpm merge DIR too)",
         HPM_OPT_STRING, &o->mpi_dir, NULL, NULL, 0, 0},
        {"--per-rank", NULL, NULL, "the MPI aggregate adds each rank's counts", HPM_OPT_FLAG,
         &o->per_rank, NULL, NULL, 0, 0},
        {"--ranks-per-node", NULL, "N",
         "an MPI job's ranks share their nodes N to a node (BG/P's\n"
         "SMP, DUAL and VN modes are 1, 2 and 4): each rank takes its\n"
         "share of the node's cores, the node-wide units count per node",
         HPM_OPT_LONG, &o->ranks_per_node, NULL, NULL, 1, 1024},
        {"--torus", NULL, "XxYxZ",
         "an MPI job's torus (x*y*z nodes) instead of the machine's own\n"
         "or the one picked for the job's node count",
         HPM_OPT_STRING, &o->torus, NULL, NULL, 0, 0},
        {"--pmu", NULL, "auto|perf|virtual",
         "hpm count's counter source: perf = the kernel's perf_event\n"
         "(measured; PROGRAM runs natively), virtual = the virtual PMU\n"
         "(modeled), auto = perf_event when it provides every -e event,\n"
         "else the virtual PMU (the default)",
         HPM_OPT_CHOICE, &o->pmu, pmu_choices, &o->pmu_given, 0, 0},
        {"--save-baseline", NULL, "NAME",
         "keep this run's counts (and profile) as baseline NAME\n"
         "(under .hpm/baselines, $HPM_BASELINE_DIR, or a path with '/')",
         HPM_OPT_STRING, &o->save_baseline, NULL, NULL, 0, 0},
        {"--baseline", NULL, "NAME",
         "compare with baseline NAME: exit 3 when a --limit is exceeded\n"
         "(default limits INSTRUCTIONS:+1%, CYCLES:+1%), 2 when not\n"
         "comparable (another machine model, a limit on an event one side\n"
         "lacks), 4 when PROGRAM failed: the gate's status, not PROGRAM's",
         HPM_OPT_STRING, &o->baseline, NULL, NULL, 0, 0},
        {"--limit", NULL, "KIND[@SCOPE]:LIMIT",
         "with --baseline: +P% over the baseline (soft), ~P% either way,\n"
         "or N (hard); SCOPE a region (hpm count) or function (hpm profile);\n"
         "repeatable",
         HPM_OPT_LIST, &o->limits, NULL, NULL, 0, 0},
        {"--repeat", NULL, "N",
         "first run PROGRAM N times as given and name every event that\n"
         "differs between these identical runs; --baseline never gates them",
         HPM_OPT_LONG, &o->repeat, NULL, NULL, 2, 100},
        {"--passes", NULL, "auto|N",
         "more events than the machine's counter unit holds ([counters]):\n"
         "run PROGRAM once per set of events the encoder makes (auto), or\n"
         "in N passes at most; the report merges their exact counts",
         HPM_OPT_STRING, &o->passes, NULL, NULL, 0, 0},
        {"--correlate", NULL, "EVENT",
         "with --passes: counted on every pass and compared [INSTRUCTIONS];\n"
         "with --multiplex: counted throughout, the estimates' scale",
         HPM_OPT_STRING, &o->correlate, NULL, NULL, 0, 0},
        {"--multiplex", NULL, "N",
         "more events than the machine's counter unit holds: one run,\n"
         "the encoder's sets cycled every N events of the correlate;\n"
         "the counts are scaled by the correlate and labelled estimated",
         HPM_OPT_LONG, &o->multiplex, NULL, NULL, 1, 1000000000000L},
        {"--mpx-plan", NULL, "PLAN",
         "(--multiplex's run: the sets, as the tool's --hpm-mpx)",
         HPM_OPT_STRING, &o->mpx_plan, NULL, NULL, 0, 0},
        {"--interleave", NULL, "N",
         "threads take turns of N instructions, the one behind in modeled\n"
         "time first, so that cores sharing cache lines meet as they would\n"
         "running side by side (docs/vpmu.md, Interleaving), without\n"
         "the coherence in modeled time of --coherence=time unless asked",
         HPM_OPT_LONG, &o->interleave, NULL, NULL, 1, 1000000000L},
        {"--coherence", NULL, "slices|time",
         "time: the accesses to cache lines that threads share are ordered\n"
         "by the threads' modeled time, access by access, while the threads\n"
         "take turns of up to --interleave's N instructions (default\n"
         "1,000,000), so that their coherence misses are those of cores\n"
         "running side by side (docs/vpmu.md, Coherence in modeled time):\n"
         "the default where the machine's L1Ds are coherent, from a\n"
         "program's second thread on; slices: in the order Valgrind's\n"
         "slices run them (the default with --interleave, turns only)",
         HPM_OPT_CHOICE, &o->coherence, coherence_choices, &o->coherence_given, 0, 0},
        {"--max-threads", NULL, "N",
         "the most threads PROGRAM (each process) runs at once [1024]:\n"
         "the simulator's thread slots, each about 9 KB cleared at its\n"
         "start; a program that starts more is stopped there, its counts\n"
         "so far reported with a note",
         HPM_OPT_LONG, &o->max_threads, NULL, NULL, 16, 100000},
        {"--keep-output", NULL, "FILE",
         "also write the counts as the tool's output file (--from-output)",
         HPM_OPT_STRING, &o->keep_output, NULL, NULL, 0, 0},
        {"--note", NULL, "TEXT", "add TEXT to the report's notes; repeatable", HPM_OPT_LIST,
         &o->notes, NULL, NULL, 0, 0},
        {"--progress", NULL, NULL,
         "show the progress line even when stderr is no terminal (a line\n"
         "every 2 s); on a terminal it shows by itself after 2 s",
         HPM_OPT_FLAG, &o->progress, NULL, NULL, 0, 0},
        {"--quiet", "-q", NULL, "no progress line and no banner on stderr", HPM_OPT_FLAG,
         &o->quiet, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    _Static_assert(sizeof rows / sizeof rows[0] == COUNT_OPTIONS, "COUNT_OPTIONS");
    memcpy(t, rows, sizeof rows);
}

int count_usage_error(const char *fmt, const char *arg)
{
    struct count_opts dummy;
    struct hpm_opt t[COUNT_OPTIONS];
    count_table(&dummy, t);
    return hpm_opt_error(cmd_name, t, count_synopsis, count_footer, fmt, arg);
}

void count_opts_init(struct count_opts *o)
{
    memset(o, 0, sizeof *o);
    o->start = 1;
    o->max_threads = HPM_MAX_THREADS_DEFAULT;
}

int count_parse_opts(int argc, char **argv, struct count_opts *o)
{
    struct hpm_opt t[COUNT_OPTIONS];
    int rc, first;
    count_opts_init(o);
    count_table(o, t);
    rc = hpm_opt_parse(cmd_name, t, count_synopsis, count_footer, argc, argv, &first);
    if (rc)
        return rc;
    if (o->json && o->csv)
        return count_usage_error("--json and --csv exclude each other%s", "");
    o->fmt = o->json ? FMT_JSON : o->csv ? FMT_CSV : FMT_TEXT;
    o->prog = argv + first;
    o->prog_argc = argc - first;
    if (o->trigger) {
        const char *colon = strchr(o->trigger, ':');
        char *end = NULL;
        int kind = colon ? hpm_catalog_kind_by_name(o->trigger, (size_t)(colon - o->trigger)) : -1;
        const struct hpm_cat_kind_info *k = kind >= 0 ? hpm_catalog_kind((unsigned)kind) : NULL;
        if (!colon || !colon[1] || strtoull(colon + 1, &end, 10) == 0 || *end || colon[1] == '-')
            return count_usage_error("--trigger %s: expected KIND:N with N > 0", o->trigger);
        if (!k || !k->tool_event[0])
            return count_usage_error("--trigger %s: the kind must be an exact core event "
                               "(hpm list: INSTRUCTIONS, LOADS, BR_COND, FP_OPS, ...)",
                               o->trigger);
    }
    if (o->from_output && o->prog_argc > 0)
        return count_usage_error("--from-output runs nothing; drop the program '%s'", o->prog[0]);
    if (!o->from_output && o->prog_argc == 0)
        return count_usage_error("no program to run (hpm count [options] -- PROGRAM [ARGS])%s", "");
    if (o->limits.n && !o->baseline)
        return count_usage_error("--limit gates against a baseline: give --baseline NAME%s", "");
    return baseline_limits_ok(cmd_name, o->limits.v, o->limits.n);
}
