/* SPDX-License-Identifier: BSD-3-Clause */
/* options.c - option tables: parsing and usage text (options.h). */
#include "util/options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/suggest.h"

#define HELP_COLUMN 20

void hpm_opt_usage(FILE *f, const struct hpm_opt *t, const char *synopsis, const char *footer)
{
    if (synopsis)
        fputs(synopsis, f);
    for (; t->type != HPM_OPT_END; t++) {
        char head[64];
        const char *h = t->help, *nl;
        int n;
        if (t->alias)
            n = snprintf(head, sizeof head, "  %s, %s%s%s", t->alias, t->name, t->value ? " " : "",
                         t->value ? t->value : "");
        else
            n = snprintf(head, sizeof head, "  %s%s%s", t->name, t->value ? "=" : "",
                         t->value ? t->value : "");
        fputs(head, f);
        /* the help starts in its column, or on the next line when the head
         * reaches into it */
        if (n >= HELP_COLUMN - 1)
            fprintf(f, "\n%*s", HELP_COLUMN, "");
        else
            fprintf(f, "%*s", HELP_COLUMN - n, "");
        for (;;) {
            nl = strchr(h, '\n');
            if (!nl) {
                fprintf(f, "%s\n", h);
                break;
            }
            fprintf(f, "%.*s\n%*s", (int)(nl - h), h, HELP_COLUMN, "");
            h = nl + 1;
        }
    }
    if (footer)
        fputs(footer, f);
}

int hpm_opt_error(const char *cmd, const struct hpm_opt *t, const char *synopsis,
                  const char *footer, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", cmd);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    hpm_opt_usage(stderr, t, synopsis, footer);
    return 2;
}

/* The row argv[*i] names, and its value (NULL for a flag). */
static const struct hpm_opt *match(const struct hpm_opt *t, int argc, char **argv, int *i,
                                   const char **value, int *missing)
{
    const char *a = argv[*i];
    *value = NULL;
    *missing = 0;
    for (; t->type != HPM_OPT_END; t++) {
        size_t n = strlen(t->name);
        const char *v = NULL;
        if (strncmp(a, t->name, n) == 0 && (a[n] == 0 || (a[n] == '=' && t->value)))
            v = a[n] == '=' ? a + n + 1 : NULL;
        else if (t->alias && strcmp(a, t->alias) == 0)
            v = NULL;
        else if (t->alias && t->value && strncmp(a, t->alias, strlen(t->alias)) == 0)
            v = a + strlen(t->alias); /* -eVALUE */
        else
            continue;
        if (t->value && !v) {
            if (*i + 1 >= argc)
                *missing = 1;
            else
                v = argv[++*i];
        }
        *value = v;
        return t;
    }
    return NULL;
}

/* An option no row names: the error, with the closest row's name when the
 * slip is small ("--machin" for "--machine"; a value after '=' is left out
 * of the comparison). */
static int unknown_option(const char *cmd, const struct hpm_opt *table, const char *synopsis,
                          const char *footer, const char *arg)
{
    char word[64], msg[160];
    const struct hpm_opt *t;
    struct suggest s;
    snprintf(word, sizeof word, "%.*s", (int)strcspn(arg, "="), arg);
    suggest_init(&s, word);
    for (t = table; t->type != HPM_OPT_END; t++)
        suggest_offer(&s, t->name);
    if (!suggest_result(&s))
        return hpm_opt_error(cmd, table, synopsis, footer, "unknown option '%s'", arg);
    snprintf(msg, sizeof msg, "unknown option '%%s' (did you mean %s?)", suggest_result(&s));
    return hpm_opt_error(cmd, table, synopsis, footer, msg, arg);
}

int hpm_opt_parse(const char *cmd, const struct hpm_opt *table, const char *synopsis,
                  const char *footer, int argc, char **argv, int *first)
{
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        const struct hpm_opt *t;
        int missing;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == 0)
            break; /* the program, without a "--" before it */
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            hpm_opt_usage(stdout, table, synopsis, footer);
            return -1;
        }
        t = match(table, argc, argv, &i, &v, &missing);
        if (!t)
            return unknown_option(cmd, table, synopsis, footer, a);
        if (missing || (t->value && !*v))
            return hpm_opt_error(cmd, table, synopsis, footer, "%s needs a value", t->name);
        if (t->given)
            *t->given = 1;
        switch (t->type) {
        case HPM_OPT_FLAG:
            *(int *)t->target = 1;
            break;
        case HPM_OPT_STRING:
            *(const char **)t->target = v;
            break;
        case HPM_OPT_LIST: {
            struct hpm_opt_list *l = t->target;
            if (l->n >= HPM_OPT_LIST_MAX)
                return hpm_opt_error(cmd, table, synopsis, footer, "too many %s options",
                                     t->name);
            l->v[l->n++] = v;
            break;
        }
        case HPM_OPT_CHOICE: {
            int k;
            for (k = 0; t->choices[k] && strcmp(t->choices[k], v) != 0; k++)
                ;
            if (!t->choices[k]) {
                char msg[160];
                size_t at = (size_t)snprintf(msg, sizeof msg, "%s takes ", t->name);
                for (k = 0; t->choices[k] && at < sizeof msg; k++)
                    at += (size_t)snprintf(msg + at, sizeof msg - at, "%s%s",
                                           k == 0          ? ""
                                           : t->choices[k + 1] ? ", "
                                                               : " or ",
                                           t->choices[k]);
                if (at < sizeof msg)
                    snprintf(msg + at, sizeof msg - at, ", not '%%s'");
                return hpm_opt_error(cmd, table, synopsis, footer, msg, v);
            }
            *(int *)t->target = k;
            break;
        }
        case HPM_OPT_LONG: {
            char *end, msg[160];
            long x;
            errno = 0;
            x = strtol(v, &end, 10);
            if (*end || errno || x < t->min || x > t->max) {
                snprintf(msg, sizeof msg, "%s takes a number from %ld to %ld, not '%%s'", t->name,
                         t->min, t->max);
                return hpm_opt_error(cmd, table, synopsis, footer, msg, v);
            }
            *(long *)t->target = x;
            break;
        }
        case HPM_OPT_END:
            break;
        }
    }
    *first = i;
    return 0;
}

int hpm_opt_parse_all(const char *cmd, const struct hpm_opt *table, const char *synopsis,
                      const char *footer, int argc, char **argv)
{
    int first, rc = hpm_opt_parse(cmd, table, synopsis, footer, argc, argv, &first);
    if (rc == 0 && first < argc)
        return hpm_opt_error(cmd, table, synopsis, footer, "unexpected argument '%s'",
                             argv[first]);
    return rc;
}
