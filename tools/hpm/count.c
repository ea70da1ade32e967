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
 * file (report/vpmu_output.h) and prints the report
 * (report/count_report.h). hpm exits with the program's status, or 128 +
 * the signal that killed it.
 *
 * --pmu picks the counter source: `virtual` always the virtual PMU,
 * `perf` the kernel's perf_event (report/count_perf.h: measured counts of
 * the host, PROGRAM run natively, its process tree counted through
 * inherited counters), `auto` (the default) perf_event when it provides every event
 * asked for with -e, else the virtual PMU. The one line hpm prints on
 * stderr and the report say which source counted.
 *
 * hpm count, hpm run and hpm profile are each a plan built from the
 * options and executed (run/run.h).
 */
#include "commands.h"
#include "run/run.h"

/*
 * hpm count [--machine M] [-e EVENTS] [--json|--csv] -- PROGRAM [ARGS]
 * Runs PROGRAM on the virtual PMU (or perf_event) and reports its counts.
 */
int cmd_count(int argc, char **argv)
{
    return count_command(argc, argv, MODE_COUNT, NULL);
}

/*
 * hpm profile [count's options] [-o FILE] -- PROGRAM [ARGS]
 * Runs PROGRAM as hpm count does, with every counted event attributed to the
 * instruction that caused it (run/profile_cmd.c): prints the counts' report
 * and writes the profile in callgrind's format to FILE
 * [callgrind.out.hpm.PID].
 */
int cmd_profile(int argc, char **argv)
{
    return count_command(argc, argv, MODE_PROFILE, NULL);
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
    return count_command(argc, argv, MODE_RUN, NULL);
}
