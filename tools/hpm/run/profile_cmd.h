/* SPDX-License-Identifier: BSD-3-Clause */
/* profile_cmd.h - hpm profile's second half: the tool's profile records of a
 * run, symbolized and written in callgrind's format (src/profile). */
#ifndef HPM_TOOL_PROFILE_CMD_H
#define HPM_TOOL_PROFILE_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "vpmufile.h"

/* The profile's handler of the session over a run's output (vpmufile.h):
 * each file's profile records symbolized against its own mappings and
 * added to one profile, its data objects and contended lines, as the
 * session reads it. */
struct profile_reader {
    struct vpmu_tool tool; /* what the session calls */
    const char *cmd;
    struct hpm_profile p, dp;
    struct hpm_symbols *syms;
    struct hpm_c2c_report *c2c;
    struct hpm_prof_records r; /* the file being read */
    struct hpm_prof_reader rd;
    struct vpmu_tool rtool;
    size_t ninsn;
    unsigned procs;
    int failed; /* err says why, after cmd */
    char why[512], err[1024];
};

/* 0, or -1 out of memory. */
int profile_reader_init(struct profile_reader *x, const char *cmd);
void profile_reader_free(struct profile_reader *x);

/* After the session: the profile written to path. Prints a summary line
 * on stderr unless quiet. 0, or -1 with the reason printed after cmd. */
int profile_write(struct profile_reader *x, char *const *argv, int argc, const char *machine,
                  const char *path, int quiet);

#endif
