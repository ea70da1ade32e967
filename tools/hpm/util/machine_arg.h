/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * machine_arg.h - the --machine argument of hpm count and hpm list.
 *
 * NAME is looked up in the machines directory (HPM_MACHINES_DIR in the
 * environment, else share/hpm/machines of the installed tree or the source
 * tree's machines/, found from the hpm binary: install_dirs.h); an argument
 * with a '/' or ending in ".machine" is a file; "host" is this machine.
 */
#ifndef HPM_TOOL_MACHINE_ARG_H
#define HPM_TOOL_MACHINE_ARG_H

#include <stddef.h>

#include "machine.h"

#define HPM_DEFAULT_MACHINE "bgp"

/* Load the machine named by arg (NULL = the default). On success returns 0
 * and, when the host's cores had to be clamped to the catalog's maximum,
 * writes a one-line note to note (else note[0] = 0). On failure prints
 * "hpm CMD: FILE:LINE: message" to stderr and returns 2 (a usage error). */
int machine_arg_load(const char *cmd, const char *arg, struct hpm_machine *m, char *note,
                     size_t notelen);

/* The machine names there and "host", sorted, as "bgl, bgp, host" into buf;
 * returns how many. With near_of, the one closest to it (suggest.h) goes
 * to near ("" when none is close). */
size_t machine_arg_names(char *buf, size_t len, const char *near_of, char *near,
                         size_t nearlen);

/* Where the machine m that arg named came from, as a report says it: the
 * file given, "this host, from sysfs", or the machines directory's file. */
void machine_arg_source(const char *arg, const struct hpm_machine *m, char *buf, size_t len);

/* The directory searched for machine names. */
const char *machine_arg_dir(void);

#endif
