/* SPDX-License-Identifier: BSD-3-Clause */
/* profile_cmd.h - hpm profile's second half: the tool's profile records of a
 * run, symbolized and written in callgrind's format (src/profile). */
#ifndef HPM_TOOL_PROFILE_CMD_H
#define HPM_TOOL_PROFILE_CMD_H

#include <stdint.h>

/* Reads the output files in dir (every process of the tree, or only
 * main_pid's when children is 0) and writes their profile to path. Prints
 * a summary line on stderr unless quiet. 0, or -1 with the reason printed
 * after cmd. */
int profile_write(const char *cmd, const char *dir, uint64_t main_pid, int children,
                  char *const *argv, int argc, const char *machine, const char *path,
                  int quiet);

#endif
