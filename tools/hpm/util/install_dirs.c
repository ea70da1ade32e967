/* SPDX-License-Identifier: BSD-3-Clause */
/* install_dirs.c - where hpm finds its own parts (install_dirs.h). */
#define _POSIX_C_SOURCE 200809L /* readlink, PATH_MAX */
#include "util/install_dirs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The relative folders come from the build (tools/hpm/CMakeLists.txt):
 * from the installed bin folder to the installed ones, and from the build
 * tree's bin folder to where the build tree keeps each part. */
#ifndef HPM_REL_INSTALLED_LIBEXEC
#define HPM_REL_INSTALLED_LIBEXEC "../libexec/hpm"
#endif
#ifndef HPM_REL_INSTALLED_DATA
#define HPM_REL_INSTALLED_DATA "../share/hpm"
#endif
#ifndef HPM_REL_INSTALLED_LIB
#define HPM_REL_INSTALLED_LIB "../lib"
#endif
#ifndef HPM_REL_BUILD_VPMU
#define HPM_REL_BUILD_VPMU "../lib/valgrind"
#endif
#ifndef HPM_REL_BUILD_MACHINES
#define HPM_REL_BUILD_MACHINES "../machines"
#endif
#ifndef HPM_REL_BUILD_LIB
#define HPM_REL_BUILD_LIB "../lib"
#endif

struct part_where {
    const char *env;       /* names the folder outright, or NULL */
    const char *installed; /* relative to the installed hpm */
    const char *build;     /* relative to the build tree's hpm */
};

static const struct part_where parts[] = {
    [HPM_PART_VPMU] = {"HPM_VALGRIND_LIB", HPM_REL_INSTALLED_LIBEXEC, HPM_REL_BUILD_VPMU},
    [HPM_PART_MACHINES] = {"HPM_MACHINES_DIR", HPM_REL_INSTALLED_DATA "/machines",
                           HPM_REL_BUILD_MACHINES},
    [HPM_PART_MPI] = {NULL, HPM_REL_INSTALLED_LIB, HPM_REL_BUILD_LIB},
    /* the build tree keeps them beside hpm */
    [HPM_PART_PROGRAMS] = {NULL, HPM_REL_INSTALLED_LIBEXEC, "."},
};

/* The folder of the running hpm binary, links resolved (a /usr/bin/hpm
 * link to an installed tree finds that tree). */
static int self_dir(char *dir, size_t len)
{
    char *slash;
    ssize_t n = readlink("/proc/self/exe", dir, len - 1);
    if (n <= 0 || (size_t)n >= len - 1)
        return -1;
    dir[n] = 0;
    if (!(slash = strrchr(dir, '/')))
        return -1;
    *slash = 0;
    return 0;
}

static int holds(const char *dir, const char *file)
{
    char path[PATH_MAX + NAME_MAX + 2];
    if (!file)
        return access(dir, R_OK | X_OK) == 0;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return access(path, R_OK) == 0;
}

/* dir = self/rel, rel's leading "." and ".." taken off self, so that a
 * message names a plain path whether it exists or not (self has no links
 * to climb out of: /proc/self/exe is resolved; a relative folder of
 * file(RELATIVE_PATH) has its ".." only in front). */
static void join(char *dir, size_t len, const char *self, const char *rel)
{
    char base[PATH_MAX], *slash;
    snprintf(base, sizeof base, "%s", self);
    for (;;) {
        if (strcmp(rel, ".") == 0 || strncmp(rel, "./", 2) == 0) {
            rel += rel[1] ? 2 : 1;
        } else if ((strcmp(rel, "..") == 0 || strncmp(rel, "../", 3) == 0) &&
                   (slash = strrchr(base, '/')) != NULL) {
            slash[slash == base] = 0; /* "/" stays */
            rel += rel[2] ? 3 : 2;
        } else {
            break;
        }
    }
    snprintf(dir, len, *rel ? "%s/%s" : "%s", base, rel);
}

int hpm_part_dir(enum hpm_part part, const char *file, char *dir, size_t len)
{
    const struct part_where *w = &parts[part];
    const char *env = w->env ? getenv(w->env) : NULL;
    char self[PATH_MAX];
    if (env && *env) {
        snprintf(dir, len, "%s", env);
        return 0;
    }
    if (self_dir(self, sizeof self) != 0) {
        snprintf(dir, len, "%s", w->installed);
        return -1;
    }
    /* the installed place first: an installed tree never reaches into a
     * folder that merely lies where a build tree would keep the part */
    join(dir, len, self, w->installed);
    if (holds(dir, file))
        return 0;
    join(dir, len, self, w->build);
    if (holds(dir, file))
        return 0;
    join(dir, len, self, w->installed);
    return -1;
}
