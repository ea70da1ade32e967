/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm count: run a program on the virtual PMU and report its event counts.
 *
 *   hpm count [--machine NAME|FILE] [-e EVENT[,EVENT...]]... [--json | --csv]
 *             [-o FILE] [--per-core] [--per-thread] [--start=no] -- PROGRAM [ARGS]
 *
 * The program runs unmodified under `valgrind --tool=hpm` (src/vpmu), which
 * models the chosen machine and counts the requested catalog events in its
 * UPC units; hpm passes it the parsed machine (machine_wire.h) and the event
 * codes, waits for it with wait4() (so the host's own rusage of the simulator
 * process can be shown beside the modeled counts), reads the tool's output
 * file (vpmu_output.h) and prints the report (count_report.h). hpm exits
 * with the program's status, or 128 + the signal that killed it.
 *
 * --pmu picks the counter source: `virtual` always the virtual PMU,
 * `perf` the kernel's perf_event (count_perf.h: measured counts of the host,
 * PROGRAM run natively, its process tree counted through inherited
 * counters), `auto` (the default) perf_event when it provides every event
 * asked for with -e, else the virtual PMU. The one line hpm prints on
 * stderr and the report say which source counted.
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
#include "commands.h"
#include "count_perf.h"
#include "count_procs.h"
#include "baseline.h"
#include "count_report.h"
#include "machine_arg.h"
#include "machine_wire.h"
#include "interval.h"
#include "mpi_job.h"
#include "live.h"
#include "options.h"
#include "passes.h"
#include "profile_cmd.h"
#include "count_hook.h"
#include "latency.h"
#include "runner.h"
#include "vpmu_output.h"


#define MAX_ROWS 512

/* "hpm count" or "hpm run": the prefix of every message */
static const char *cmd_name = "hpm count";

enum out_format { FMT_TEXT, FMT_JSON, FMT_CSV };

struct count_opts {
    const char *machine;
    struct hpm_opt_list events;
    enum out_format fmt;
    int json, csv;
    const char *output;
    const char *from_output;
    int per_core, per_thread, start;
    int no_children; /* count only the program, not the processes it starts */
    const char *trace_skip; /* --trace-children-skip: programs that run natively */
    long interval_ms; /* -I MS: an interval series of the program's live counts */
    int run_only; /* hpm run: follow children, print no report */
    int model_always; /* hpm run --model=always: models run from the start */
    int model_given;
    int pmu, pmu_given; /* enum pmu_choice */
    const char *start_at, *stop_at, *only, *trigger; /* gates (docs/vpmu.md, Gating) */
    int mpi;            /* --mpi: must be a rank of an MPI job, PROGRAM an MPI program */
    const char *mpi_dir; /* where the ranks' results go (mpi_job.h) */
    int per_rank;       /* the aggregate shows each rank's counts */
    const char *save_baseline, *baseline; /* baseline.h */
    struct hpm_opt_list limits;
    long repeat; /* --repeat N: N identical runs first, to find unstable events */
    const char *passes;    /* --passes=auto|N: once per event set (passes.h) */
    const char *correlate; /* --correlate=EVENT: counted on every pass */
    const char *keep_output; /* --keep-output=FILE: the counts as the tool's output file */
    struct hpm_opt_list notes; /* --note=TEXT: added to the report (passes.h) */
    char **prog; /* PROGRAM ARGS..., NULL-terminated */
    int prog_argc;
};

static const char *const start_choices[] = {"no", "yes", NULL};
static const char *const model_choices[] = {"on-demand", "always", NULL};
enum pmu_choice { PMU_AUTO = 0, PMU_PERF, PMU_VIRTUAL };
static const char *const pmu_choices[] = {"auto", "perf", "virtual", NULL};

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
    "files (Debian's -dbg, -dbgsym) are read from a decompressed copy made once in\n"
    "$HPM_DEBUG_CACHE (default ~/.cache/hpm/debuginfo; 'off': none).\n"
    "\n";
static const char count_footer[] =
    "\nhpm exits with PROGRAM's exit status (of the last program it exec'd), or 128+N\n"
    "if signal N killed it.\n";

#define HPM_MAX_THREADS_STR "4096" /* the tool's thread slots */

/* The one table of hpm count's and hpm run's options: parsing and usage. */
#define COUNT_OPTIONS 30 /* rows, with the end */
static void count_table(struct count_opts *o, struct hpm_opt *t)
{
    const struct hpm_opt rows[] = {
        {"--machine", NULL, "M", "machine name (machines/M.machine) or machine file",
         HPM_OPT_STRING, &o->machine, NULL, NULL, 0, 0},
        {"--events", "-e", "EVENTS",
         "events to count: PU<n>_KIND, KIND (all cores), node kinds;\n"
         "default every event the machine provides (hpm list)",
         HPM_OPT_LIST, &o->events, NULL, NULL, 0, 0},
        {"--json", NULL, NULL, "a JSON report instead of the text table", HPM_OPT_FLAG, &o->json,
         NULL, NULL, 0, 0},
        {"--csv", NULL, NULL, "a CSV report instead of the text table", HPM_OPT_FLAG, &o->csv,
         NULL, NULL, 0, 0},
        {"--output", "-o", "FILE", "write the report to FILE (atomically) instead of stdout",
         HPM_OPT_STRING, &o->output, NULL, NULL, 0, 0},
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
         "hpm run: the cache, TLB, predictor and timing models start\n"
         "(cold) when the program first adds an event that needs them\n"
         "(on-demand, the default), or run from its first instruction",
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
         "(default limits INSTRUCTIONS:+1%, CYCLES:+1%); another machine\n"
         "model is refused (exit 2)",
         HPM_OPT_STRING, &o->baseline, NULL, NULL, 0, 0},
        {"--limit", NULL, "KIND[@SCOPE]:LIMIT",
         "with --baseline: +P% over the baseline (soft) or N (hard); SCOPE a\n"
         "region (hpm count) or function (hpm profile); repeatable",
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
         "with --passes: counted on every pass and compared [INSTRUCTIONS]",
         HPM_OPT_STRING, &o->correlate, NULL, NULL, 0, 0},
        {"--keep-output", NULL, "FILE",
         "also write the counts as the tool's output file (--from-output)",
         HPM_OPT_STRING, &o->keep_output, NULL, NULL, 0, 0},
        {"--note", NULL, "TEXT", "add TEXT to the report's notes; repeatable", HPM_OPT_LIST,
         &o->notes, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    _Static_assert(sizeof rows / sizeof rows[0] == COUNT_OPTIONS, "COUNT_OPTIONS");
    memcpy(t, rows, sizeof rows);
}

static int usage_error(const char *fmt, const char *arg)
{
    struct count_opts dummy;
    struct hpm_opt t[COUNT_OPTIONS];
    count_table(&dummy, t);
    return hpm_opt_error(cmd_name, t, count_synopsis, count_footer, fmt, arg);
}

static int parse_opts(int argc, char **argv, struct count_opts *o)
{
    struct hpm_opt t[COUNT_OPTIONS];
    int rc, first;
    memset(o, 0, sizeof *o);
    o->start = 1;
    count_table(o, t);
    rc = hpm_opt_parse(cmd_name, t, count_synopsis, count_footer, argc, argv, &first);
    if (rc)
        return rc;
    if (o->json && o->csv)
        return usage_error("--json and --csv exclude each other%s", "");
    o->fmt = o->json ? FMT_JSON : o->csv ? FMT_CSV : FMT_TEXT;
    o->prog = argv + first;
    o->prog_argc = argc - first;
    if (o->trigger) {
        const char *colon = strchr(o->trigger, ':');
        char *end = NULL;
        int kind = colon ? hpm_catalog_kind_by_name(o->trigger, (size_t)(colon - o->trigger)) : -1;
        const struct hpm_cat_kind_info *k = kind >= 0 ? hpm_catalog_kind((unsigned)kind) : NULL;
        if (!colon || !colon[1] || strtoull(colon + 1, &end, 10) == 0 || *end || colon[1] == '-')
            return usage_error("--trigger %s: expected KIND:N with N > 0", o->trigger);
        if (!k || !k->tool_event[0])
            return usage_error("--trigger %s: the kind must be an exact core event "
                               "(hpm list: INSTRUCTIONS, LOADS, BR_COND, FP_OPS, ...)",
                               o->trigger);
    }
    if (o->from_output && o->prog_argc > 0)
        return usage_error("--from-output runs nothing; drop the program '%s'", o->prog[0]);
    if (!o->from_output && o->prog_argc == 0)
        return usage_error("no program to run (hpm count [options] -- PROGRAM [ARGS])%s", "");
    if (o->limits.n && !o->baseline)
        return usage_error("--limit gates against a baseline: give --baseline NAME%s", "");
    return baseline_limits_ok(cmd_name, o->limits.v, o->limits.n);
}

/* ------------------------------------------------------------ events */

static int add_row(struct count_row *rows, unsigned *n, const struct count_row *r)
{
    unsigned i;
    for (i = 0; i < *n; i++)
        if (strcmp(rows[i].name, r->name) == 0)
            return 0; /* asked twice: one row */
    if (*n >= MAX_ROWS)
        return -1;
    rows[(*n)++] = *r;
    return 0;
}

/* Resolve one name into a row; prints the reason and returns 2 on error. */
static int resolve_event(const char *name, const char *machine, unsigned cores,
                         unsigned features, struct count_row *row)
{
    struct hpm_cat_name nm;
    int rc;
    memset(row, 0, sizeof *row);
    if (strlen(name) >= HPM_CAT_NAME_MAX) {
        fprintf(stderr, "%s: unknown event '%.60s...' (hpm list shows the catalog)\n", cmd_name,
                name);
        return 2;
    }
    rc = hpm_catalog_parse(name, &nm);
    if (rc == 0)
        rc = hpm_catalog_codes(&nm, cores, features, row->codes, HPM_CAT_MAX_CORES);
    if (rc == HPM_CAT_EUNKNOWN) {
        int avail;
        if (count_perf_is_perf_name(name, &avail))
            fprintf(stderr,
                    "%s: event '%s' is a perf_event event: the virtual PMU does not count it "
                    "(--pmu=perf or auto)\n",
                    cmd_name, name);
        else
            fprintf(stderr, "%s: unknown event '%s' (hpm list shows the catalog)\n", cmd_name,
                    name);
        return 2;
    }
    if (rc == HPM_CAT_ECORE) {
        fprintf(stderr, "%s: event '%s': machine %s has %u core%s (PU0..PU%u)\n", cmd_name, name,
                machine, cores, cores == 1 ? "" : "s", cores - 1);
        return 2;
    }
    if (rc == HPM_CAT_ENOTPROVIDED) {
        fprintf(stderr, "%s: event '%s' is not provided by machine %s: %s\n", cmd_name, name,
                machine, hpm_catalog_missing_reason(nm.kind, features));
        return 2;
    }
    if (rc <= 0) {
        fprintf(stderr, "%s: event '%s': %s\n", cmd_name, name, hpm_catalog_strerror(rc));
        return 2;
    }
    row->kind = nm.kind;
    row->n_codes = (unsigned)rc;
    row->core = nm.core;
    snprintf(row->name, sizeof row->name, "%s", nm.canonical);
    return 0;
}

/* Rows for the -e lists; without -e, every kind the machine provides. */
static int build_rows(const struct count_opts *o, const char *machine, unsigned cores,
                      unsigned features, struct count_row *rows, unsigned *n)
{
    unsigned i, k;
    *n = 0;
    count_lat_reset();
    if (o->events.n == 0) {
        for (k = 0; k < HPM_K_COUNT; k++) {
            struct count_row r;
            const struct hpm_cat_kind_info *ki = hpm_catalog_kind(k);
            if (!hpm_catalog_provided(k, ki->node ? -1 : 0, cores, features))
                continue;
            if (resolve_event(ki->name, machine, cores, features, &r))
                return 2;
            add_row(rows, n, &r);
        }
        return 0;
    }
    for (i = 0; i < o->events.n; i++) {
        const char *s = o->events.v[i];
        /* every field between commas is an event: "A,", ",A" and "A,,B" all
         * hold an empty one */
        for (;;) {
            char name[128];
            size_t len = strcspn(s, ",");
            struct count_row r;
            const char *b = s, *e = s + len;
            while (b < e && isspace((unsigned char)*b))
                b++;
            while (e > b && isspace((unsigned char)e[-1]))
                e--;
            if (b == e) {
                fprintf(stderr, "%s: empty event name in '%s'\n", cmd_name, o->events.v[i]);
                return 2;
            }
            snprintf(name, sizeof name, "%.*s", (int)(e - b), b);
            {
                /* LOADS:ldlat=N, STORES:stlat=N: the latency histogram's
                 * count at or above N (a note), beside the kind's row */
                char kind[16];
                int lr = count_lat_parse(cmd_name, name, kind, sizeof kind);
                if (lr < 0)
                    return 2;
                if (lr > 0)
                    snprintf(name, sizeof name, "%s", kind);
            }
            if (resolve_event(name, machine, cores, features, &r))
                return 2;
            if (add_row(rows, n, &r)) {
                fprintf(stderr, "%s: too many events\n", cmd_name);
                return 2;
            }
            s += len;
            if (*s != ',')
                break;
            s++;
        }
    }
    return 0;
}

/* "--hpm-events=" value: the codes of every row, ascending, or "all". */
static char *codes_arg(const struct count_opts *o, const struct count_row *rows, unsigned n)
{
    unsigned char want[HPM_CAT_CODES] = {0};
    char *s;
    size_t at = 0;
    unsigned i, j;
    if (o->events.n == 0)
        return strdup("all");
    for (i = 0; i < n; i++)
        for (j = 0; j < rows[i].n_codes; j++)
            want[rows[i].codes[j]] = 1;
    s = malloc(HPM_CAT_CODES * 5 + 1);
    if (!s)
        return NULL;
    s[0] = 0;
    for (i = 0; i < HPM_CAT_CODES; i++)
        if (want[i])
            at += (size_t)sprintf(s + at, "%s%u", at ? "," : "", i);
    return s;
}

/* Every code a row needs must be in the tool's output. */
static int check_counts(const struct vpmu_output *out, const struct count_row *rows, unsigned n,
                        const char *what)
{
    unsigned i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < rows[i].n_codes; j++)
            if (!out->have_count[rows[i].codes[j]]) {
                char name[HPM_CAT_NAME_MAX];
                hpm_catalog_code_name((unsigned)rows[i].codes[j], name, sizeof name);
                fprintf(stderr, "%s: %s has no count for %s (code %d)\n", cmd_name, what, name,
                        rows[i].codes[j]);
                return -1;
            }
    return 0;
}

/* ------------------------------------------------------------ PMU, program, tool */

/* Whether this machine has a usable hardware PMU; why not in why. */
static int probe_pmu(char *why, size_t len)
{
    struct perf_event_attr a;
    long fd;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd >= 0) {
        close((int)fd);
        snprintf(why, len, "hardware PMU present");
        return 1;
    }
    if (errno == EACCES || errno == EPERM)
        snprintf(why, len, "hardware PMU not accessible (perf_event_open: %s)", strerror(errno));
    else
        snprintf(why, len, "no hardware PMU here (perf_event_open: %s)", strerror(errno));
    return 0;
}

/* A script's interpreter (its #! line), as the kernel would run it: 0, or
 * 127 when it is missing and 126 when it cannot be executed (a shell's
 * statuses), with the message printed. */
static int check_interpreter(const char *script)
{
    char line[256], *b, *e;
    FILE *f = fopen(script, "r");
    size_t n;
    struct stat st;
    if (!f)
        return 0; /* not readable: let exec say why */
    n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    if (n < 2 || line[0] != '#' || line[1] != '!')
        return 0;
    for (b = line + 2; *b == ' ' || *b == '\t'; b++)
        ;
    for (e = b; *e && *e != ' ' && *e != '\t' && *e != '\n'; e++)
        ;
    *e = 0;
    if (!*b)
        return 0;
    if (stat(b, &st) != 0) {
        fprintf(stderr, "%s: %s: bad interpreter %s: %s\n", cmd_name, script, b,
                strerror(errno));
        return 127;
    }
    if (!S_ISREG(st.st_mode) || access(b, X_OK) != 0) {
        fprintf(stderr, "%s: %s: bad interpreter %s: not an executable file\n", cmd_name, script,
                b);
        return 126;
    }
    return 0;
}

/* The file execvp would run for name (PATH searched) into found: 0, 127 =
 * not found, 126 = found but not executable. */
static int search_program(const char *name, char *found, size_t flen)
{
    struct stat st;
    const char *path, *p;
    int seen = 0;
    snprintf(found, flen, "%s", name);
    if (strchr(name, '/')) {
        if (stat(name, &st) != 0)
            return 127;
        if (!S_ISREG(st.st_mode) || access(name, X_OK) != 0)
            return 126;
        return 0;
    }
    path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (p = path;; p++) {
        const char *e = strchr(p, ':');
        size_t dl = e ? (size_t)(e - p) : strlen(p);
        char full[4096];
        if (snprintf(full, sizeof full, "%.*s/%s", (int)(dl ? dl : 1), dl ? p : ".", name) <
                (int)sizeof full &&
            stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(full, X_OK) == 0) {
                snprintf(found, flen, "%s", full);
                return 0;
            }
            seen = 1;
        }
        if (!e)
            break;
        p = e;
    }
    return seen ? 126 : 127;
}

/* search_program, and a script's interpreter checked: *said is set when
 * the reason was printed already. */
static int find_program(const char *name, int *said, char *found, size_t flen)
{
    int rc = search_program(name, found, flen);
    return rc ? rc : (*said = check_interpreter(found));
}

/* ------------------------------------------------------------ running */

/* "%" means something to the tool's --hpm-out (%p = pid): double it. */
static char *escape_percent(const char *s, const char *suffix)
{
    size_t n = strlen(s), i, at = 0;
    char *r = malloc(2 * n + strlen(suffix) + 1);
    if (!r)
        return NULL;
    for (i = 0; i < n; i++) {
        r[at++] = s[i];
        if (s[i] == '%')
            r[at++] = '%';
    }
    strcpy(r + at, suffix);
    return r;
}

/* ------------------------------------------------------------ report output */

struct report_job {
    const struct count_opts *o;
    const struct count_report *r;
};

static int report_to(FILE *f, void *ctx)
{
    const struct report_job *j = ctx;
    return j->o->fmt == FMT_JSON  ? count_report_json(f, j->r)
           : j->o->fmt == FMT_CSV ? count_report_csv(f, j->r)
                                  : count_report_text(f, j->r);
}

static int write_report(const struct count_opts *o, const struct count_report *r)
{
    struct report_job j = {o, r};
    return runner_write_output(cmd_name, o->output, report_to, &j);
}

static int keep_output_to(FILE *f, void *ctx)
{
    return vpmu_output_write(ctx, f);
}

static int output_dir_ok(const char *path)
{
    return runner_output_ok(cmd_name, path);
}

/* The note for a program that wrote UPC registers itself, or NULL. */
static const char *upc_write_note(const struct vpmu_output *out, char *buf, size_t len)
{
    if (!out->upc_writes)
        return NULL;
    snprintf(buf, len,
             "the program wrote UPC registers itself (%" PRIu64 " HPM_VPMU_UPC_WRITE request%s): "
             "the counts are what the units held, not necessarily the events named here",
             out->upc_writes, out->upc_writes == 1 ? "" : "s");
    return buf;
}

/* Report an existing tool output file (--from-output). */
static int count_from_output(const struct count_opts *o, struct count_row *rows)
{
    struct vpmu_output out;
    struct count_report r;
    char err[512], upc_note[200];
    unsigned n = 0;
    int rc;
    if (vpmu_output_load(&out, o->from_output, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", cmd_name, err);
        vpmu_output_free(&out);
        return 1;
    }
    if (o->events.n) {
        /* the file's cores; every feature, since the file holds what was counted */
        unsigned cores = out.cores > HPM_CAT_MAX_CORES ? HPM_CAT_MAX_CORES : out.cores;
        rc = build_rows(o, out.machine, cores, ~0u, rows, &n);
        if (rc == 0 && check_counts(&out, rows, n, o->from_output) != 0)
            rc = 2;
        if (rc) {
            vpmu_output_free(&out);
            return rc;
        }
    } else {
        n = count_rows_from_output(&out, rows, MAX_ROWS);
    }
    memset(&r, 0, sizeof r);
    r.out = &out;
    r.rows = rows;
    r.n_rows = n;
    if (upc_write_note(&out, upc_note, sizeof upc_note))
        r.notes[r.n_notes++] = upc_note;
    for (unsigned i = 0; i < o->notes.n && r.n_notes < COUNT_MAX_NOTES; i++)
        r.notes[r.n_notes++] = o->notes.v[i];
    r.per_core = o->per_core;
    r.per_thread = o->per_thread;
    r.machine_source = NULL;
    if (out.exit_kind == VPMU_EXIT_SIGNAL) {
        r.exit_signal = out.exit_value;
        r.exit_code = out.exit_value > 0 ? 128 + out.exit_value : 128;
        r.notes[r.n_notes++] = "program killed by a signal; counts up to that point";
    } else {
        r.exit_status = out.exit_value;
        r.exit_code = out.exit_value & 0xff;
    }
    rc = write_report(o, &r) == 0 ? r.exit_code : 1;
    vpmu_output_free(&out);
    return rc;
}

/* hpm count -I: the program's live view, read at every tick (the view
 * appears once the tool has started; after an exec the new image's view
 * starts a new series from zero). */
struct interval_watch {
    const struct count_opts *o;
    struct hpm_live_reader lr;
    struct hpm_interval iv;
    int ready, failed;
};

static void interval_tick(void *ctx, pid_t child)
{
    struct interval_watch *w = ctx;
    struct hpm_live s;
    char err[256];
    if (w->failed)
        return;
    if (!w->lr.open && hpm_live_open(&w->lr, child, err, sizeof err) != 0)
        return; /* not published yet */
    if (hpm_live_snapshot(&w->lr, &s) != 0)
        return;
    if (!w->ready) {
        enum hpm_iv_format f = w->o->fmt == FMT_JSON  ? HPM_IV_JSON
                               : w->o->fmt == FMT_CSV ? HPM_IV_CSV
                                                      : HPM_IV_TEXT;
        if (hpm_interval_init(&w->iv, &s, w->o->events.v, w->o->events.n, f, stderr,
                              cmd_name) != 0) {
            w->failed = 1;
            return;
        }
        hpm_interval_start(&w->iv, NULL);
        w->ready = 1;
    }
    hpm_interval_step(&w->iv, &s);
    if (s.state == HPM_LIVE_EXEC) {
        /* the image was replaced: the next view counts from zero */
        hpm_live_close(&w->lr);
        hpm_interval_start(&w->iv, NULL);
    }
}

/* ------------------------------------------------------------ perf_event */

/* The -e names, one per event (fields between commas, trimmed), in a
 * malloc'd array; returns how many, or -1 (an empty name, out of memory). */
static int event_names(const struct count_opts *o, char ***out, char **store)
{
    size_t total = 0;
    unsigned i;
    int n = 0;
    char *buf, *w;
    char **v;
    for (i = 0; i < o->events.n; i++)
        total += strlen(o->events.v[i]) + 1;
    buf = malloc(total + 1);
    v = calloc(total + 1, sizeof *v);
    if (!buf || !v) {
        free(buf);
        free(v);
        return -1;
    }
    w = buf;
    for (i = 0; i < o->events.n; i++) {
        const char *s = o->events.v[i];
        for (;;) {
            size_t len = strcspn(s, ",");
            const char *b = s, *e = s + len;
            while (b < e && isspace((unsigned char)*b))
                b++;
            while (e > b && isspace((unsigned char)e[-1]))
                e--;
            if (b == e) {
                free(buf);
                free(v);
                return -1;
            }
            memcpy(w, b, (size_t)(e - b));
            w[e - b] = 0;
            v[n++] = w;
            w += e - b + 1;
            s += len;
            if (*s != ',')
                break;
            s++;
        }
    }
    *out = v;
    *store = buf;
    return n;
}

/* An option only the virtual PMU has, or NULL. */
static const char *virtual_only_option(const struct count_opts *o)
{
    if (o->machine)
        return "--machine";
    if (o->per_core)
        return "--per-core";
    if (o->per_thread)
        return "--per-thread";
    if (!o->start)
        return "--start=no";
    if (o->start_at)
        return "--start-at";
    if (o->stop_at)
        return "--stop-at";
    if (o->only)
        return "--only";
    if (o->trigger)
        return "--trigger";
    if (o->interval_ms)
        return "-I";
    if (o->from_output)
        return "--from-output";
    if (o->mpi || o->mpi_dir || o->per_rank)
        return "--mpi";
    return NULL;
}

/* Which source counts (--pmu): 1 = perf_event (plan filled), 0 = the
 * virtual PMU, 2 after printing why neither can. auto keeps the virtual
 * PMU without -e (every kind of the machine model: perf_event has few of
 * them) and with its own options, so hpm count's reports stay what they
 * were wherever perf_event lacks an event. */
static int choose_source(const struct count_opts *o, struct count_perf_plan *plan)
{
    char **names = NULL, *store = NULL, err[768];
    const char *vo = virtual_only_option(o);
    int n = 0, rc;
    unsigned i;
    struct mpi_rank_env rank;
    if (o->pmu == PMU_VIRTUAL || (o->pmu == PMU_AUTO && (o->events.n == 0 || vo)))
        return 0;
    if (o->pmu == PMU_AUTO && mpi_rank_env_get(&rank, err, sizeof err) == 1)
        return 0; /* a rank of an MPI job: the job's aggregate is the virtual PMU's */
    if (vo) {
        fprintf(stderr, "%s: --pmu=perf: %s is an option of the virtual PMU\n", cmd_name, vo);
        return 2;
    }
    if (o->events.n) {
        n = event_names(o, &names, &store);
        if (n < 0) {
            if (o->pmu == PMU_AUTO)
                return 0; /* build_rows says what is wrong */
            fprintf(stderr, "%s: --pmu=perf: an empty event name in -e\n", cmd_name);
            return 2;
        }
    }
    rc = count_perf_plan(plan, names, (unsigned)n, err, sizeof err);
    free(names);
    free(store);
    if (rc != 0) {
        if (o->pmu == PMU_AUTO && rc == -2)
            fprintf(stderr, "hpm: note: --pmu=auto: %s; counting on the virtual PMU\n", err);
        if (o->pmu == PMU_AUTO)
            return 0; /* unknown names: build_rows says */
        fprintf(stderr, "%s: --pmu=perf: %s\n", cmd_name, err);
        return 2;
    }
    if (plan->all_available)
        return 1;
    for (i = 0; i < plan->n && plan->ev[i].available; i++)
        ;
    if (o->pmu == PMU_PERF) {
        fprintf(stderr, "%s: --pmu=perf: %s\n", cmd_name, plan->ev[i].why);
        return 2;
    }
    for (unsigned j = 0; j < plan->n; j++)
        if (plan->ev[j].kind < 0) {
            fprintf(stderr,
                    "%s: event '%s' counts only on perf_event, and perf_event cannot count "
                    "them all here: %s\n",
                    cmd_name, plan->ev[j].name, plan->ev[i].why);
            return 2;
        }
    fprintf(stderr, "hpm: note: --pmu=auto: %s; counting on the virtual PMU instead\n",
            plan->ev[i].why);
    return 0;
}

struct perf_job {
    struct count_perf_plan *plan;
    int inherit, started;
};

static int perf_before_exec(void *ctx, pid_t child)
{
    struct perf_job *j = ctx;
    char err[512];
    if (count_perf_start(j->plan, child, j->inherit, err, sizeof err) != 0) {
        fprintf(stderr, "%s: perf_event: %s\n", cmd_name, err);
        return -1;
    }
    j->started = 1;
    return 0;
}

/* hpm count on perf_event: PROGRAM runs natively (path: where PATH found
 * it); its counters are attached between fork and exec, inherited by the
 * processes it starts unless --no-children, and read once the tree has
 * ended. */

/* The program's end as the report says it: exit status or signal, and for a
 * signal a note (in note) and a line on stderr. 1 if it was a signal. */
static int report_exit(struct count_report *r, int status, char *note, size_t len)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        r->exit_signal = sig;
        r->exit_code = 128 + sig;
        snprintf(note, len, "program killed by signal %d (%s); counts up to that point", sig,
                 strsignal(sig));
        r->notes[r->n_notes++] = note;
        fprintf(stderr, "hpm: %s\n", note);
        return 1;
    }
    r->exit_status = WEXITSTATUS(status);
    r->exit_code = r->exit_status;
    return 0;
}

static int count_on_perf(const struct count_opts *o, struct count_perf_plan *plan,
                         const char *path, const char *pmu, int hw)
{
    struct runner_spec spec = {0};
    struct runner_result res;
    struct perf_job job = {plan, !o->no_children, 0};
    struct count_report r;
    struct vpmu_output none;
    char err[512], sig_note[160], left_note[160], names[512];
    size_t at = 0;
    unsigned i;
    int rc;

    for (i = 0; i < plan->n && at < sizeof names; i++)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? "," : "",
                               plan->ev[i].name);
    fprintf(stderr, "hpm: counting %s on perf_event (measured), the program natively; %s\n",
            names, pmu);
    spec.argv = o->prog;
    spec.path = path;
    spec.forward_signals = 1;
    spec.wait_tree = !o->no_children;
    spec.before_exec = perf_before_exec;
    spec.ctx = &job;
    rc = runner_run(cmd_name, &spec, &res);
    if (rc != 0) {
        if (job.started && plan->set >= 0)
            (void)count_perf_stop(plan, err, sizeof err);
        return 1;
    }
    if (count_perf_stop(plan, err, sizeof err) != 0) {
        fprintf(stderr, "%s: perf_event: %s\n", cmd_name, err);
        return 1;
    }
    memset(&none, 0, sizeof none);
    memset(&r, 0, sizeof r);
    r.argv = o->prog;
    r.argc = o->prog_argc;
    r.pmu = pmu;
    r.hw_pmu = hw;
    r.out = &none;
    r.have_rusage = 1;
    r.ru = res.ru;
    r.measured = plan->ev;
    r.n_measured = plan->n;
    r.perf_source = count_perf_description();
    r.inherited = job.inherit;
    r.kernel = plan->kernel;
    report_exit(&r, res.status, sig_note, sizeof sig_note);
    if (res.tree_left) {
        snprintf(left_note, sizeof left_note,
                 "hpm stopped waiting for the program's children (a signal); those still "
                 "running are counted up to now");
        r.notes[r.n_notes++] = left_note;
    }
    return write_report(o, &r) == 0 ? r.exit_code : 1;
}

/* hpm count as a rank of an MPI job (mpi_job.h): 1 with e and the job's
 * folder (created), 0 when not in a job, -1 after printing why not. */
static int mpi_rank_setup(const struct count_opts *o, struct mpi_rank_env *e, char *dir,
                          size_t len)
{
    char err[512];
    struct stat st;
    int in = mpi_rank_env_get(e, err, sizeof err);
    if (in < 0) {
        fprintf(stderr, "%s: %s\n", cmd_name, err);
        return -1;
    }
    if (!in) {
        if (o->mpi || o->mpi_dir || o->per_rank) {
            fprintf(stderr,
                    "%s: --mpi, --mpi-dir and --per-rank need hpm count to be a rank of an MPI "
                    "job, started by a launcher (mpirun -np N hpm count --mpi -- PROGRAM; no "
                    "OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID here)\n",
                    cmd_name);
            return -1;
        }
        return 0;
    }
    if (o->mpi) {
        int is = mpi_program_links_mpi(o->prog[0], err, sizeof err);
        if (is <= 0) {
            fprintf(stderr, "%s: --mpi: %s%s\n", cmd_name,
                    is < 0 ? err : o->prog[0],
                    is < 0 ? "" : " is not an MPI program (it does not link an MPI library); "
                                  "drop --mpi to count it on every rank anyway");
            return -1;
        }
    }
    if (o->mpi_dir)
        snprintf(dir, len, "%s", o->mpi_dir);
    else if (e->job[0])
        snprintf(dir, len, "hpm-mpi.%s", e->job);
    else {
        fprintf(stderr, "%s: rank %d: the launcher gives no job id; name the job's folder with "
                        "--mpi-dir DIR\n", cmd_name, e->rank);
        return -1;
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s: %s\n", cmd_name, dir, strerror(errno));
        return -1;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: %s: not a folder\n", cmd_name, dir);
        return -1;
    }
    return 1;
}

/* A machine with a network ([torus]): the ranks of an MPI job get
 * libhpm-mpi preloaded (LD_PRELOAD, which valgrind passes on to the
 * program) and the torus in HPM_MPI_TORUS; the torus must have one node per
 * rank. 0, or 2 after printing why not. Outside a job nothing changes. */
static int mpi_net_setup(const struct count_opts *o, const struct hpm_machine *m)
{
    struct mpi_rank_env e;
    char err[512], path[4200], torus[128], *pre;
    const char *lib = getenv("HPM_MPI_LIB"), *old = getenv("LD_PRELOAD");
    uint32_t nodes = hpm_torus_nodes(&m->torus);
    if (mpi_rank_env_get(&e, err, sizeof err) != 1)
        return 0;
    if (nodes != (uint32_t)e.size) {
        if (o->machine && strchr(o->machine, '/'))
            snprintf(path, sizeof path, "%s", o->machine);
        else
            snprintf(path, sizeof path, "%s/%s.machine", machine_arg_dir(),
                     o->machine ? o->machine : HPM_DEFAULT_MACHINE);
        fprintf(stderr, "%s: %s:%u: [torus] %ux%ux%u has %u node%s, the MPI job has %d rank%s "
                        "(one rank per node)\n", cmd_name, path, m->torus.line, m->torus.x,
                m->torus.y, m->torus.z, nodes, nodes == 1 ? "" : "s", e.size,
                e.size == 1 ? "" : "s");
        return 2;
    }
#ifdef HPM_MPI_LIBRARY
    if (!lib || !*lib)
        lib = HPM_MPI_LIBRARY;
#endif
    if (!lib || !*lib || access(lib, R_OK) != 0) {
        if (e.rank == 0)
            fprintf(stderr, "hpm: note: libhpm-mpi was not built (no MPI for C when hpm was "
                            "built): the network events stay 0\n");
        return 0;
    }
    snprintf(torus, sizeof torus, "%u,%u,%u,%s,%u", m->torus.x, m->torus.y, m->torus.z,
             m->torus.mapping, m->torus.packet_bytes);
    pre = malloc(strlen(lib) + (old ? strlen(old) : 0) + 2);
    if (!pre)
        return 2;
    sprintf(pre, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    if (setenv("HPM_MPI_TORUS", torus, 1) != 0 || setenv("LD_PRELOAD", pre, 1) != 0) {
        free(pre);
        return 2;
    }
    free(pre);
    return 0;
}

enum count_mode { MODE_COUNT, MODE_RUN, MODE_PROFILE, MODE_RECORD };

/* hpm record's additions to a profile run (count_hook.h) */
static const struct count_hook *record_hook;

/* --repeat N: N runs of PROGRAM as given (this hpm, re-run with the
 * options that decide the counts, a JSON report each), then the events
 * whose totals differ between them: printed, and kept from the gate. 0,
 * or 1 (a run could not be made). */
static int repeat_runs(const struct count_opts *o, const char *dir)
{
    static char *av[HPM_OPT_LIST_MAX + 64];
    static const char *unstable[DIFF_MAX_KINDS];
    char paths[2][4200], first[4200], err[1024], self[4096];
    static char buf[DIFF_MAX_KINDS][160];
    unsigned n_unstable = 0, k;
    long run;
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0)
        return 1;
    self[sl] = 0;
    snprintf(first, sizeof first, "%s/repeat.0.json", dir);
    for (run = 0; run < o->repeat; run++) {
        int na = 0, st;
        unsigned i;
        pid_t pid;
        char *out = run ? paths[1] : first;
        if (run)
            snprintf(paths[1], sizeof paths[1], "%s/repeat.%ld.json", dir, run);
        av[na++] = self;
        av[na++] = "count";
        av[na++] = "--pmu=virtual";
        av[na++] = "--json";
        av[na++] = "-o";
        av[na++] = out;
        if (o->machine) {
            av[na++] = "--machine";
            av[na++] = (char *)o->machine;
        }
        for (i = 0; i < o->events.n; i++) {
            av[na++] = "-e";
            av[na++] = (char *)o->events.v[i];
        }
        if (!o->start)
            av[na++] = "--start=no";
        if (o->no_children)
            av[na++] = "--no-children";
        if (o->trace_skip) {
            av[na++] = "--trace-children-skip";
            av[na++] = (char *)o->trace_skip;
        }
        av[na++] = "--";
        for (i = 0; i < (unsigned)o->prog_argc; i++)
            av[na++] = o->prog[i];
        av[na] = NULL;
        fflush(NULL);
        if ((pid = fork()) == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) {
                dup2(null, 1);
                dup2(null, 2);
            }
            execv(self, av);
            _exit(127);
        }
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || access(out, R_OK) != 0) {
            fprintf(stderr, "%s: --repeat: run %ld of %ld gave no report\n", cmd_name, run + 1,
                    o->repeat);
            return 1;
        }
        if (run) {
            struct diff d;
            const struct diff_table *t;
            size_t r;
            if (diff_load(&d, first, paths[1], err, sizeof err) != 0) {
                fprintf(stderr, "%s: --repeat: %s\n", cmd_name, err);
                return 1;
            }
            t = &d.tables[DIFF_TOTALS];
            for (r = 0; r < t->n; r++) {
                int kk = diff_kind(&d, t->rows[r].key);
                unsigned j;
                if (kk < 0 || t->rows[r].v[0][kk] == t->rows[r].v[1][kk] || d.measured[kk])
                    continue;
                for (j = 0; j < n_unstable && strcmp(unstable[j], t->rows[r].key) != 0; j++)
                    ;
                if (j == n_unstable && n_unstable < DIFF_MAX_KINDS) {
                    snprintf(buf[n_unstable], sizeof buf[0], "%s", t->rows[r].key);
                    unstable[n_unstable] = buf[n_unstable];
                    n_unstable++;
                }
            }
            diff_free(&d);
            unlink(paths[1]);
        }
    }
    unlink(first);
    if (n_unstable == 0) {
        fprintf(stderr, "%s: --repeat %ld: every modeled count is the same in each run\n",
                cmd_name, o->repeat);
    } else {
        fprintf(stderr, "%s: --repeat %ld: %u event%s differ between identical runs (the "
                        "program is not deterministic; not gated):",
                cmd_name, o->repeat, n_unstable, n_unstable == 1 ? "" : "s");
        for (k = 0; k < n_unstable; k++)
            fprintf(stderr, " %s", unstable[k]);
        fputc('\n', stderr);
    }
    baseline_set_unstable(unstable, n_unstable);
    return 0;
}

/* --save-baseline and --baseline after a run: the JSON report into the
 * run's folder, then baseline.h. 0, 3 or 2. */
static int baseline_step(const struct count_opts *o, const struct count_report *r,
                         const char *dir, const char *profile_path, const char *machine,
                         const char *wire)
{
    char path[4200], found[4096];
    struct count_opts ro = *o;
    static struct baseline_meta meta;
    snprintf(path, sizeof path, "%s/report.json", dir);
    ro.fmt = FMT_JSON;
    ro.output = path;
    if (write_report(&ro, r) != 0)
        return 2;
    if (search_program(o->prog[0], found, sizeof found) != 0)
        snprintf(found, sizeof found, "%s", o->prog[0]);
    baseline_meta_collect(&meta, machine, wire, found, o->prog, o->prog_argc);
    return baseline_after_run(cmd_name, o->save_baseline, o->baseline, o->limits.v, o->limits.n,
                              path, profile_path, &meta);
}

static int count_or_run(int argc, char **argv, enum count_mode mode)
{
    int run_only = mode == MODE_RUN, profile = mode == MODE_PROFILE || mode == MODE_RECORD;
    const char *profile_out = NULL;
    char profile_default[64];
    struct interval_watch watch;
    struct count_opts o;
    struct hpm_machine m;
    static struct count_row rows[MAX_ROWS];
    unsigned n_rows = 0, features;
    char clamp_note[160], pmu[256], dir[4096], sig_note[160], fork_note[200], core_note[160],
        exit_note[160], exec_note[600], lost_note[4200], left_note[160], upc_note[200],
        sat_note[200], killed_note[400], native_note[1200],
        msrc[4200], err[512];
    const char *vg, *lib;
    char *codes = NULL, *wire = NULL, *out_arg = NULL, *machine_arg = NULL, *events_arg = NULL,
         **args = NULL, *gate_args[4] = {NULL, NULL, NULL, NULL}, *skip_arg = NULL;
    struct runner_spec spec = {0};
    struct runner_result res;
    /* zeroed: every error path frees them, loaded or not */
    struct vpmu_output out = {0};
    struct count_report r;
    struct count_tree tree = {0};
    int rc, hw, i, na = 0, use_perf;
    static struct count_perf_plan plan;
    long interval_ms = 0;
    char live_arg[48];
    unsigned execs;
    struct mpi_rank_env rank_env;
    int in_job = 0;
    char job_dir[4096] = "";

    cmd_name = run_only                ? "hpm run"
               : mode == MODE_RECORD ? "hpm record"
               : profile             ? "hpm profile"
                                     : "hpm count";
    rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    o.run_only = run_only;
    if (profile) {
        /* -o names the profile; the counts' report goes to stdout */
        if (o.from_output) {
            fprintf(stderr, "hpm profile: --from-output is an hpm count option\n");
            return 2;
        }
        profile_out = o.output;
        o.output = NULL;
        if (profile_out && !output_dir_ok(profile_out))
            return 2;
    }
    if (run_only && (o.fmt != FMT_TEXT || o.output || o.from_output || o.per_core ||
                     o.per_thread)) {
        fprintf(stderr, "hpm run: prints no report; use hpm count for --json, --csv, -o, "
                        "--per-core, --per-thread, --from-output\n");
        return 2;
    }
    interval_ms = o.interval_ms;
    if (interval_ms && run_only)
        return usage_error("-I is an hpm count option%s", "");
    if (!run_only && o.model_given) {
        fprintf(stderr, "hpm count: --model is an hpm run option (hpm count runs every model "
                        "its events need from the start)\n");
        return 2;
    }
    if (o.output && !output_dir_ok(o.output))
        return 2;
    if ((run_only || profile) && o.pmu_given && o.pmu != PMU_VIRTUAL) {
        fprintf(stderr, "%s: counts on the virtual PMU only (--pmu is an hpm count option)\n",
                cmd_name);
        return 2;
    }
    use_perf = run_only || profile ? 0 : choose_source(&o, &plan);
    if (use_perf == 2)
        return 2;
    if (o.from_output)
        return count_from_output(&o, rows);
    if (use_perf) {
        int said = 0;
        char found[4096];
        rc = find_program(o.prog[0], &said, found, sizeof found);
        if (said)
            return rc;
        if (rc == 127 || rc == 126) {
            fprintf(stderr, "%s: %s: %s\n", cmd_name, o.prog[0],
                    rc == 127 ? "command not found" : "not an executable file");
            return rc;
        }
        hw = probe_pmu(pmu, sizeof pmu);
        return count_on_perf(&o, &plan, found, pmu, hw);
    }
    /* The simulator runs a program's threads one at a time, so an OpenMP
     * thread that spins at a barrier (libgomp's default, active waiting)
     * spins for its whole time slice while the thread it waits for cannot
     * run: ten times the run time, and spin-loop counts that no native run
     * would have. A program linked with libgomp waits passively (sleeps on
     * a futex at once) unless the user chose a policy; the environment of
     * any other program stays as it is, since its size alone changes the
     * counts of the program's start-up (docs/vpmu.md). */
    {
        static const char *const gomp[] = {"libgomp.", NULL};
        char found[4096];
        if (search_program(o.prog[0], found, sizeof found) == 0 &&
            program_needs_library(found, gomp, err, sizeof err) == 1)
            setenv("OMP_WAIT_POLICY", "passive", 0);
    }
    {
        /* a rank of an MPI job: hwloc (Open MPI's topology) cannot use
         * CPUID under Valgrind and says so on every rank; its Linux backend
         * reads the same topology from sysfs */
        struct mpi_rank_env e;
        if (mpi_rank_env_get(&e, err, sizeof err) == 1)
            setenv("HWLOC_COMPONENTS", "-x86", 0);
    }
    if (mode == MODE_COUNT) {
        rc = mpi_rank_setup(&o, &rank_env, job_dir, sizeof job_dir);
        if (rc < 0)
            return 2;
        in_job = rc;
    } else if (o.mpi || o.mpi_dir || o.per_rank) {
        fprintf(stderr, "%s: --mpi, --mpi-dir and --per-rank are hpm count options\n", cmd_name);
        return 2;
    }

    if ((rc = machine_arg_load(run_only ? "run" : profile ? "profile" : "count", o.machine, &m, clamp_note, sizeof clamp_note)) != 0)
        return rc;
    features = hpm_catalog_features(&m.hier) | (m.torus.x ? HPM_NEED_NET : 0);
    if (m.torus.x && (rc = mpi_net_setup(&o, &m)) != 0) {
        if (in_job)
            rmdir(job_dir); /* made for this run; another rank's results keep it */
        return rc;
    }
    if ((rc = build_rows(&o, m.name, m.hier.cores, features, rows, &n_rows)) != 0)
        return rc;
    if (mode == MODE_COUNT && !in_job && !o.keep_output) {
        /* more events than the machine's counter unit holds: passes */
        struct passes_req pq = {&m, features, rows, n_rows, o.passes, o.correlate, argc, argv};
        rc = passes_maybe_run(&pq);
        if (rc != PASSES_NOT_NEEDED)
            return rc;
    } else if (o.passes) {
        return usage_error("--passes is an hpm count option (not with --mpi%s)", "");
    }
    {
        int said = 0;
        char found[4096];
        rc = find_program(o.prog[0], &said, found, sizeof found);
        if (said)
            return rc;
    }
    if (rc == 127) {
        fprintf(stderr, "%s: %s: command not found\n", cmd_name, o.prog[0]);
        return 127;
    }
    if (rc == 126) {
        fprintf(stderr, "%s: %s: not an executable file\n", cmd_name, o.prog[0]);
        return 126;
    }
    if (runner_find_tool(cmd_name, &vg, &lib) != 0)
        return 1;
    /* live views whose tool was killed (SIGKILL leaves it no time to remove
     * its view) go now, as the folders of a killed hpm do */
    (void)hpm_live_list(NULL, 0, 1);

    hw = probe_pmu(pmu, sizeof pmu);
    if (o.machine && strchr(o.machine, '/'))
        snprintf(msrc, sizeof msrc, "%s", o.machine);
    else if (strcmp(m.name, "host") == 0 || (o.machine && strcmp(o.machine, "host") == 0))
        snprintf(msrc, sizeof msrc, "this host, from sysfs");
    else if (o.machine && strstr(o.machine, ".machine"))
        snprintf(msrc, sizeof msrc, "%s", o.machine);
    else
        snprintf(msrc, sizeof msrc, "%s/%s.machine", machine_arg_dir(),
                 o.machine ? o.machine : HPM_DEFAULT_MACHINE);
    if ((!run_only || getenv("HPM_RUN_VERBOSE")) && (!in_job || rank_env.rank == 0))
        fprintf(stderr, "hpm: %s; %s the virtual PMU, machine %s (modeled)\n", pmu,
                hw ? "hpm count uses" : "counting on", m.name);
    if (clamp_note[0])
        fprintf(stderr, "hpm: note: %s\n", clamp_note);

    /* the tool's command line */
    wire = malloc(hpm_machine_wire_size());
    codes = codes_arg(&o, rows, n_rows);
    if (!wire || !codes || hpm_machine_wire_encode(&m, wire, hpm_machine_wire_size()) == 0) {
        fprintf(stderr, "%s: out of memory\n", cmd_name);
        rc = 1;
        goto done;
    }
    if (runner_tmpdir("hpm-count", dir, sizeof dir) != 0) {
        fprintf(stderr, "%s: cannot create a temporary directory in %s: %s\n", cmd_name,
                getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                strerror(errno));
        rc = 1;
        goto done;
    }
    if (o.repeat > 1 && !run_only && mode != MODE_RECORD && repeat_runs(&o, dir) != 0) {
        rc = 1;
        goto done_dir;
    }
    {
        char *pat = escape_percent(dir, "/vpmu.%p.out");
        size_t l1 = strlen(wire) + 32, l2 = strlen(codes) + 32;
        machine_arg = malloc(l1);
        events_arg = malloc(l2);
        args = calloc((size_t)o.prog_argc + 24 + COUNT_HOOK_ARGS_MAX, sizeof *args);
        if (pat)
            out_arg = malloc(strlen(pat) + 16);
        if (!pat || !machine_arg || !events_arg || !args || !out_arg) {
            free(pat);
            fprintf(stderr, "%s: out of memory\n", cmd_name);
            rc = 1;
            goto done_dir;
        }
        sprintf(out_arg, "--hpm-out=%s", pat);
        free(pat);
        snprintf(machine_arg, l1, "--hpm-machine=%s", wire);
        snprintf(events_arg, l2, "--hpm-events=%s", codes);
    }
    args[na++] = (char *)vg;
    args[na++] = "-q";
    /* no gdbserver: its FIFOs (TMPDIR/vgdb-pipe-*) outlive a killed
     * simulator, and nothing of hpm's attaches a debugger */
    args[na++] = "--vgdb=no";
    args[na++] = "--tool=hpm";
    /* Valgrind's default of 500 threads panics programs that natively run
     * a thousand; 4096 slots cost about 30 MB more of the simulator's
     * memory and no time (docs/vpmu.md) */
    args[na++] = "--max-threads=" HPM_MAX_THREADS_STR;
    args[na++] = out_arg;
    args[na++] = machine_arg;
    args[na++] = events_arg;
    if (!o.start)
        args[na++] = "--hpm-start=no";
    {
        /* the gates, as the tool's options */
        static const char *const gate_opt[] = {"--hpm-start-at=", "--hpm-stop-at=",
                                               "--hpm-only=", "--hpm-trigger="};
        const char *gate_val[] = {o.start_at, o.stop_at, o.only, o.trigger};
        unsigned g;
        for (g = 0; g < 4; g++) {
            if (!gate_val[g])
                continue;
            gate_args[g] = malloc(strlen(gate_opt[g]) + strlen(gate_val[g]) + 1);
            if (!gate_args[g]) {
                fprintf(stderr, "%s: out of memory\n", cmd_name);
                rc = 1;
                goto done_dir;
            }
            sprintf(gate_args[g], "%s%s", gate_opt[g], gate_val[g]);
            args[na++] = gate_args[g];
        }
    }
    if (interval_ms > 0) {
        /* the tool publishes at least twice per interval */
        snprintf(live_arg, sizeof live_arg, "--hpm-live-ms=%ld",
                 interval_ms / 2 > 1 ? interval_ms / 2 : 1);
        args[na++] = live_arg;
    }
    /* children and exec'd images run under the tool too: hpm count sums them
     * (count_procs.h) unless --no-children, hpm run lets them count */
    args[na++] = "--trace-children=yes";
    if (o.trace_skip) {
        /* Valgrind's own option: a matching exec'd program runs natively;
         * the tool names it in its segment (count_procs.h) */
        skip_arg = malloc(strlen(o.trace_skip) + 32);
        if (!skip_arg) {
            fprintf(stderr, "%s: out of memory\n", cmd_name);
            rc = 1;
            goto done_dir;
        }
        sprintf(skip_arg, "--trace-children-skip=%s", o.trace_skip);
        args[na++] = skip_arg;
    }
    /* --no-children: what the program's children exec runs natively (their
     * counts are left out anyway); the program's own execs are followed */
    if (o.no_children)
        args[na++] = "--hpm-children=no";
    if (profile)
        args[na++] = "--hpm-profile=yes";
    if (count_lat_n())
        args[na++] = "--hpm-lat-hist=yes"; /* LOADS:ldlat=N */
    if (mode == MODE_RECORD)
        for (i = 0; record_hook->tool_args[i] && i < COUNT_HOOK_ARGS_MAX; i++)
            args[na++] = (char *)record_hook->tool_args[i];
    if (run_only && !o.model_always)
        args[na++] = "--hpm-model=on-demand"; /* libhpm asks when it needs them */
    for (i = 0; i < o.prog_argc; i++)
        args[na++] = o.prog[i];
    args[na] = NULL;

    spec.argv = args;
    spec.env_name = "VALGRIND_LIB";
    spec.env_value = lib;
    spec.forward_signals = 1;
    spec.wait_tree = !run_only && !o.no_children;
    memset(&watch, 0, sizeof watch);
    watch.o = &o;
    if (interval_ms > 0) {
        spec.interval_ms = interval_ms;
        spec.on_interval = interval_tick;
        spec.ctx = &watch;
    }
    rc = runner_run(cmd_name, &spec, &res);
    /* the final views the tree's children kept for their parents (for
     * PAPI_INHERIT) go once those parents have ended */
    hpm_live_reap_exited();
    if (watch.lr.open) {
        /* the view's last publication holds the final counts: the series'
         * deltas sum to the report's totals */
        if (rc == 0)
            interval_tick(&watch, res.pid);
        hpm_live_close(&watch.lr);
    }
    if (rc != 0) {
        rc = 1;
        goto done_dir;
    }
    if (run_only) {
        /* the program's own status is all hpm run reports */
        rc = WIFSIGNALED(res.status) ? 128 + WTERMSIG(res.status) : WEXITSTATUS(res.status);
        goto done_dir;
    }
    rc = count_tree_load(&tree, dir, (uint64_t)res.pid, !o.no_children, err, sizeof err);
    if (rc == 1) {
        if (WIFSIGNALED(res.status))
            fprintf(stderr,
                    "hpm count: the virtual PMU wrote no output: valgrind was killed by signal "
                    "%d (%s) before it could\n",
                    WTERMSIG(res.status), strsignal(WTERMSIG(res.status)));
        else
            fprintf(stderr,
                    "hpm count: the virtual PMU wrote no output (valgrind exited with status "
                    "%d): it could not run %s (see valgrind's message above)\n",
                    WEXITSTATUS(res.status), o.prog[0]);
        /* killed from outside (SIGKILL leaves the tool no time to write):
         * still exit as the shell would have seen it; valgrind's own 126/127
         * (it could not execute the program) are a shell's too */
        rc = WIFSIGNALED(res.status)                                        ? 128 + WTERMSIG(res.status)
             : WEXITSTATUS(res.status) == 126 || WEXITSTATUS(res.status) == 127 ? WEXITSTATUS(res.status)
                                                                            : 1;
        if (in_job) {
            /* the job's aggregate names this rank as missing, and why */
            char why[160];
            if (WIFSIGNALED(res.status))
                snprintf(why, sizeof why, "killed by signal %d (%s) before the virtual PMU "
                         "wrote its counts", WTERMSIG(res.status), strsignal(WTERMSIG(res.status)));
            else
                snprintf(why, sizeof why, "the virtual PMU wrote no counts (valgrind exited "
                         "with status %d)", WEXITSTATUS(res.status));
            if (mpi_rank_write_lost(cmd_name, job_dir, &rank_env,
                                    WIFSIGNALED(res.status) ? WTERMSIG(res.status) : 0,
                                    WIFSIGNALED(res.status) ? 0 : WEXITSTATUS(res.status),
                                    why) == 0)
                mpi_rank_aggregate(cmd_name, &rank_env, job_dir, o.fmt, o.output, o.per_rank);
        }
        goto done_dir;
    }
    if (rc != 0 || count_tree_total(&tree, &out, err, sizeof err) != 0) {
        fprintf(stderr, "%s: the virtual PMU's output is unusable: %s\n", cmd_name, err);
        count_tree_free(&tree);
        vpmu_output_free(&out);
        rc = 1;
        goto done_dir;
    }
    if (check_counts(&out, rows, n_rows, "the virtual PMU's output") != 0) {
        count_tree_free(&tree);
        vpmu_output_free(&out);
        rc = 1;
        goto done_dir;
    }
    if (o.keep_output && runner_write_output(cmd_name, o.keep_output, keep_output_to, &out)) {
        count_tree_free(&tree);
        vpmu_output_free(&out);
        rc = 1;
        goto done_dir;
    }

    memset(&r, 0, sizeof r);
    r.argv = o.prog;
    r.argc = o.prog_argc;
    r.machine_source = msrc;
    r.pmu = pmu;
    r.hw_pmu = hw;
    r.out = &out;
    r.rows = rows;
    r.n_rows = n_rows;
    r.have_rusage = 1;
    r.ru = res.ru;
    r.per_core = o.per_core;
    r.per_thread = o.per_thread;
    r.procs = tree.procs;
    r.n_procs = tree.n;
    if (clamp_note[0])
        r.notes[r.n_notes++] = clamp_note;
    /* valgrind re-raises the program's fatal signal on itself */
    if (!report_exit(&r, res.status, sig_note, sizeof sig_note)) {
        if (out.exit_kind == VPMU_EXIT_STATUS && (out.exit_value & 0xff) != r.exit_status) {
            snprintf(exit_note, sizeof exit_note,
                     "valgrind exited with status %d, the program with %d", r.exit_status,
                     out.exit_value);
            r.notes[r.n_notes++] = exit_note;
        }
    }
    if (out.cores != m.hier.cores) {
        snprintf(core_note, sizeof core_note, "the tool modeled %u cores, the machine has %u",
                 out.cores, (unsigned)m.hier.cores);
        r.notes[r.n_notes++] = core_note;
    }
    execs = count_proc_execs(&tree.procs[0]);
    if (execs) {
        /* the chain of images of the program's own process */
        size_t at = 0;
        unsigned k;
        at += (size_t)snprintf(exec_note + at, sizeof exec_note - at,
                               "the program exec'd %u time%s (", execs, execs == 1 ? "" : "s");
        for (k = 0; k < tree.procs[0].n_commands && at < sizeof exec_note; k++)
            at += (size_t)snprintf(exec_note + at, sizeof exec_note - at, "%s%s",
                                   k ? " -> " : "", tree.procs[0].commands[k]);
        if (at < sizeof exec_note)
            snprintf(exec_note + at, sizeof exec_note - at,
                     "); the counts before and after each exec are summed");
        r.notes[r.n_notes++] = exec_note;
    }
    if (!tree.procs[0].complete) {
        if (tree.procs[0].native)
            snprintf(lost_note, sizeof lost_note,
                     "the program exec'd %s, which ran natively (--trace-children-skip): counts "
                     "up to the exec",
                     tree.procs[0].native);
        else
            snprintf(lost_note, sizeof lost_note,
                     "the program's last image (after its exec) wrote no counts; counts up to "
                     "the exec");
        r.notes[r.n_notes++] = lost_note;
    }
    /* --no-children: the program's own forks, also of children still
     * running (which have no file yet) */
    if (tree.procs[0].out.forks > tree.skipped)
        tree.skipped = (unsigned)(tree.procs[0].out.forks > UINT_MAX ? UINT_MAX
                                                                   : tree.procs[0].out.forks);
    if (tree.n > 1 || (o.no_children && tree.skipped)) {
        unsigned missing = 0, k;
        for (k = 1; k < tree.n; k++)
            missing += !tree.procs[k].complete;
        if (o.no_children)
            snprintf(fork_note, sizeof fork_note,
                     "the program started %u more process%s; --no-children: their counts are "
                     "not included",
                     tree.skipped, tree.skipped == 1 ? "" : "es");
        else
            snprintf(fork_note, sizeof fork_note,
                     "counts are the sum over %u processes, the program and the %u it started "
                     "(table below; --no-children counts the program alone)%s",
                     tree.n, tree.n - 1,
                     missing ? "; some ended without writing their final counts" : "");
        r.notes[r.n_notes++] = fork_note;
    }
    if (tree.killed) {
        /* SIGKILL leaves a process's tool no time to write: its parent's
         * wait saw it (count_procs.h) */
        size_t at = 0;
        unsigned k, named = 0;
        at += (size_t)snprintf(killed_note + at, sizeof killed_note - at,
                               "%u process%s killed before writing %s counts (",
                               tree.killed, tree.killed == 1 ? " was" : "es were",
                               tree.killed == 1 ? "its" : "their");
        for (k = 0; k < tree.n && at < sizeof killed_note; k++)
            if (tree.procs[k].killed_signal)
                at += (size_t)snprintf(killed_note + at, sizeof killed_note - at,
                                       "%spid %" PRIu64 " by signal %d (%s)", named++ ? ", " : "",
                                       tree.procs[k].pid, tree.procs[k].killed_signal,
                                       strsignal(tree.procs[k].killed_signal));
        if (at < sizeof killed_note)
            snprintf(killed_note + at, sizeof killed_note - at,
                     "): %s counts are lost, the totals are without them",
                     tree.killed == 1 ? "its" : "their");
        r.notes[r.n_notes++] = killed_note;
    }
    if (tree.native_procs) {
        size_t at = 0;
        unsigned k;
        at += (size_t)snprintf(native_note + at, sizeof native_note - at,
                               "--trace-children-skip: %u program%s ran natively, not counted "
                               "and not in the process table (",
                               tree.native_procs, tree.native_procs == 1 ? "" : "s");
        for (k = 0; k < tree.n_native && at < sizeof native_note; k++)
            at += (size_t)snprintf(native_note + at, sizeof native_note - at, "%s%s x%u",
                                   k ? ", " : "", tree.native[k].path, tree.native[k].n);
        if (at < sizeof native_note)
            snprintf(native_note + at, sizeof native_note - at, ")");
        r.notes[r.n_notes++] = native_note;
    }
    if (upc_write_note(&out, upc_note, sizeof upc_note))
        r.notes[r.n_notes++] = upc_note;
    if (vpmu_output_saturated_note(&out, sat_note, sizeof sat_note))
        r.notes[r.n_notes++] = sat_note;
    if (res.tree_left) {
        snprintf(left_note, sizeof left_note,
                 "hpm stopped waiting for the program's children (a signal); those still "
                 "running are not counted");
        r.notes[r.n_notes++] = left_note;
    }
    if (count_lat_n() && r.n_notes < COUNT_MAX_NOTES) {
        const char *ln = count_lat_note(dir, (uint64_t)res.pid, !o.no_children);
        if (ln)
            r.notes[r.n_notes++] = ln;
    }
    if (in_job) {
        /* a rank: its result (the JSON report) into the job's folder; the
         * rank that completes the job writes the aggregate */
        char path[4200];
        struct count_opts ro = o;
        ro.fmt = FMT_JSON;
        ro.output = path;
        r.rank = &rank_env;
        if (mpi_rank_path(job_dir, rank_env.rank, path, sizeof path) != 0 ||
            write_report(&ro, &r) != 0)
            rc = 1;
        else if (mpi_rank_aggregate(cmd_name, &rank_env, job_dir, o.fmt, o.output,
                                    o.per_rank) != 0)
            rc = 1;
        else
            rc = r.exit_code;
    } else
        rc = write_report(&o, &r) == 0 ? r.exit_code : 1;
    if (mode == MODE_RECORD) {
        if (record_hook->after(dir, (uint64_t)res.pid, !o.no_children, record_hook->ctx) != 0)
            rc = 1;
    } else if (profile) {
        if (!profile_out) {
            snprintf(profile_default, sizeof profile_default, "callgrind.out.hpm.%ld",
                     (long)res.pid);
            profile_out = profile_default;
        }
        if (profile_write(cmd_name, dir, (uint64_t)res.pid, !o.no_children, o.prog,
                          o.prog_argc, m.name, profile_out) != 0)
            rc = 1;
    }
    if (!in_job && (o.save_baseline || o.baseline)) {
        int g = baseline_step(&o, &r, dir, profile ? profile_out : NULL, m.name, wire);
        /* the program's own failure keeps its status */
        if (g && rc == 0)
            rc = g;
    }
    count_tree_free(&tree);
    vpmu_output_free(&out);
done_dir:
    if (dir[0])
        runner_rmdir(dir);
done:
    free(wire);
    free(codes);
    free(out_arg);
    free(machine_arg);
    free(events_arg);
    free(args);
    free(skip_arg);
    for (i = 0; i < 4; i++)
        free(gate_args[i]);
    return rc;
}

int cmd_count(int argc, char **argv)
{
    return count_or_run(argc, argv, MODE_COUNT);
}

/*
 * hpm profile [count's options] [-o FILE] -- PROGRAM [ARGS]
 * Runs PROGRAM as hpm count does, with every counted event attributed to the
 * instruction that caused it (profile_cmd.c): prints the counts' report and
 * writes the profile in callgrind's format to FILE
 * [callgrind.out.hpm.PID].
 */
int cmd_profile(int argc, char **argv)
{
    return count_or_run(argc, argv, MODE_PROFILE);
}

int count_record(int argc, char **argv, const struct count_hook *hook)
{
    int rc;
    record_hook = hook;
    rc = count_or_run(argc, argv, MODE_RECORD);
    record_hook = NULL;
    return rc;
}

/*
 * hpm run [--machine M] [-e EVENTS] [--start=no] -- PROGRAM [ARGS]
 * Runs PROGRAM (and every child it forks or execs) on the virtual PMU with
 * the events counting and prints nothing of its own: this is the
 * environment in which programs that read counters themselves (hpm.h,
 * libpapi) find the sim component. Exits with PROGRAM's status.
 */
int cmd_run(int argc, char **argv)
{
    return count_or_run(argc, argv, MODE_RUN);
}
