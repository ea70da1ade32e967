/* SPDX-License-Identifier: BSD-3-Clause */
/* machine_arg.c - resolve the --machine argument (machine_arg.h). */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX */
#include "machine_arg.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "install_dirs.h"

const char *machine_arg_dir(void)
{
    static char dir[PATH_MAX];
    hpm_part_dir(HPM_PART_MACHINES, NULL, dir, sizeof dir);
    return dir;
}

static int is_file_arg(const char *arg)
{
    size_t n = strlen(arg), ext = strlen(".machine");
    return strchr(arg, '/') != NULL || (n > ext && strcmp(arg + n - ext, ".machine") == 0);
}

int machine_arg_load(const char *cmd, const char *arg, struct hpm_machine *m, char *note,
                     size_t notelen)
{
    char err[512] = "";
    int rc, host;
    if (!arg)
        arg = HPM_DEFAULT_MACHINE;
    if (note && notelen)
        note[0] = 0;
    host = strcmp(arg, "host") == 0;
    if (is_file_arg(arg))
        rc = hpm_machine_load(m, arg, err, sizeof err);
    else
        rc = hpm_machine_find(m, machine_arg_dir(), arg, err, sizeof err);
    if (rc != HPM_MACHINE_OK) {
        /* the parser's message already names FILE:LINE; fall back to the code */
        fprintf(stderr, "hpm %s: %s\n", cmd, err[0] ? err : hpm_machine_strerror(rc));
        return 2;
    }
    if (m->hier.cores > HPM_CAT_MAX_CORES) {
        if (!host) {
            fprintf(stderr,
                    "hpm %s: machine %s has %u cores; the event catalog covers at most %d "
                    "(set cores = %d or fewer)\n",
                    cmd, m->name, (unsigned)m->hier.cores, HPM_CAT_MAX_CORES, HPM_CAT_MAX_CORES);
            return 2;
        }
        /* the host is what it is: model as many cores as the catalog can name */
        if (note && notelen)
            snprintf(note, notelen, "the host has %u cores; modeling %d (the catalog's maximum)",
                     (unsigned)m->hier.cores, HPM_CAT_MAX_CORES);
        m->hier.cores = HPM_CAT_MAX_CORES;
    }
    return 0;
}
