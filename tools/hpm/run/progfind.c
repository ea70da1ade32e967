/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * progfind.c - finding PROGRAM as execvp would: a name with a '/' as it
 * is, else along PATH; 127 when there is none, 126 when the file found is
 * no executable file (a shell's statuses); a script's #! interpreter
 * checked the same way, so that hpm says so before it starts the tool
 * (run_internal.h: what the parts of run/ share).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/run_internal.h"

/* A script's interpreter (its #! line), as the kernel would run it: 0, or
 * 127 when it is missing and 126 when it cannot be executed (a shell's
 * statuses), with the message printed. */
int count_check_interpreter(const char *script)
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
int count_search_program(const char *name, char *found, size_t flen)
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

/* count_search_program, and a script's interpreter checked: *said is set when
 * the reason was printed already. */
int count_find_program(const char *name, int *said, char *found, size_t flen)
{
    int rc = count_search_program(name, found, flen);
    return rc ? rc : (*said = count_check_interpreter(found));
}
