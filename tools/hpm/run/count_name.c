/* SPDX-License-Identifier: BSD-3-Clause */
/* count_name.c - the prefix of every message of a run (run.h's
 * count_cmd_name), in a file of its own that calls nothing: every file of
 * run/ reads it, so the file that defines it must depend on none of them. */
#include "run/run.h"

const char *count_cmd_name = "hpm count";
