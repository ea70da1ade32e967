/* SPDX-License-Identifier: BSD-3-Clause */
/* machine_arg.c - resolve the --machine argument (machine_arg.h). */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX */
#include "util/machine_arg.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>

#include "catalog.h"
#include "util/install_dirs.h"
#include "util/suggest.h"

const char *machine_arg_dir(void)
{
    static char dir[PATH_MAX];
    hpm_part_dir(HPM_PART_MACHINES, NULL, dir, sizeof dir);
    return dir;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t machine_arg_names(char *buf, size_t len, const char *near_of, char *near,
                         size_t nearlen)
{
    char names[64][HPM_MACHINE_NAME_MAX];
    const char *sorted[65];
    size_t n = 0, i, at = 0;
    struct suggest s;
    struct dirent *e;
    DIR *d = opendir(machine_arg_dir());
    while (d && n < 64 && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name), ext = strlen(".machine");
        if (e->d_name[0] != '.' && l > ext && l - ext < HPM_MACHINE_NAME_MAX &&
            strcmp(e->d_name + l - ext, ".machine") == 0) {
            snprintf(names[n], sizeof names[n], "%.*s", (int)(l - ext), e->d_name);
            sorted[n] = names[n];
            n++;
        }
    }
    if (d)
        closedir(d);
    sorted[n++] = "host";
    qsort(sorted, n, sizeof sorted[0], by_name);
    if (near_of)
        suggest_init(&s, near_of);
    for (i = 0; i < n; i++) {
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", sorted[i]);
        if (near_of)
            suggest_offer(&s, sorted[i]);
    }
    if (near && nearlen)
        snprintf(near, nearlen, "%s", near_of && suggest_result(&s) ? suggest_result(&s) : "");
    return n;
}

static int is_file_arg(const char *arg)
{
    size_t n = strlen(arg), ext = strlen(".machine");
    return strchr(arg, '/') != NULL || (n > ext && strcmp(arg + n - ext, ".machine") == 0);
}

void machine_arg_source(const char *arg, const struct hpm_machine *m, char *buf, size_t len)
{
    if (arg && is_file_arg(arg))
        snprintf(buf, len, "%s", arg);
    else if (strcmp(m->name, "host") == 0 || (arg && strcmp(arg, "host") == 0))
        snprintf(buf, len, "this host, from sysfs");
    else
        snprintf(buf, len, "%s/%s.machine", machine_arg_dir(), arg ? arg : HPM_DEFAULT_MACHINE);
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
    if (rc == HPM_MACHINE_ENOTFOUND && !is_file_arg(arg)) {
        char names[512], near[HPM_MACHINE_NAME_MAX];
        machine_arg_names(names, sizeof names, arg, near, sizeof near);
        fprintf(stderr, "hpm %s: no machine '%s'%s%s%s; the machines are %s (or a file: "
                "--machine ./NAME.machine)\n", cmd, arg, near[0] ? " (did you mean " : "",
                near, near[0] ? "?)" : "", names);
        return 2;
    }
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
