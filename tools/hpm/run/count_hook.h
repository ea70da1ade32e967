/* SPDX-License-Identifier: BSD-3-Clause */
/* count_hook.h - hpm record's use of hpm count's run (count.c): a profile
 * run with more tool options, and its own step after the report. */
#ifndef HPM_TOOL_COUNT_HOOK_H
#define HPM_TOOL_COUNT_HOOK_H

#include <stdint.h>

struct vpmu_tool;

#define COUNT_HOOK_ARGS_MAX 8

struct count_hook {
    /* more options for the tool, NULL-terminated (at most COUNT_HOOK_ARGS_MAX) */
    const char *tool_args[COUNT_HOOK_ARGS_MAX + 1];
    /* a handler of the session that reads the run's output files once
     * (vpmufile.h: the program's and, when children, every process's), or
     * NULL */
    const struct vpmu_tool *tool;
    /* after the counts' report (main_pid: the program's process): 0 or -1
     * (the reason printed) */
    int (*after)(uint64_t main_pid, void *ctx);
    void *ctx;
};

/* hpm profile's run of count's argv (options, "--", PROGRAM...), named "hpm
 * record" in messages, with hook's options and step. Returns the exit code. */
int count_record(int argc, char **argv, const struct count_hook *hook);

#endif
