/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.h - command-line options as one table per command, which gives
 * both the parsing and the usage text (perf's option tables are the model):
 * a row names the option, its value, its help and where the value goes.
 */
#ifndef HPM_TOOL_OPTIONS_H
#define HPM_TOOL_OPTIONS_H

#include <stdio.h>

enum hpm_opt_type {
    HPM_OPT_FLAG,     /* int *target = 1 */
    HPM_OPT_STRING,   /* const char **target = value (not empty) */
    HPM_OPT_LIST,     /* struct hpm_opt_list *target: appended (not empty) */
    HPM_OPT_CHOICE,   /* int *target = index of value in choices[] */
    HPM_OPT_LONG,     /* long *target = a decimal integer in [min, max] */
    HPM_OPT_END
};

#define HPM_OPT_LIST_MAX 256
struct hpm_opt_list {
    const char *v[HPM_OPT_LIST_MAX];
    unsigned n;
};

struct hpm_opt {
    const char *name;        /* "--machine" */
    const char *alias;       /* "-e", or NULL */
    const char *value;       /* the value's name in the usage text ("M"), NULL for flags */
    const char *help;        /* lines separated by '\n' */
    enum hpm_opt_type type;
    void *target;
    const char *const *choices; /* HPM_OPT_CHOICE: NULL-terminated */
    int *given;              /* set to 1 when the option appears, or NULL */
    long min, max;           /* HPM_OPT_LONG: the range */
};
#define HPM_OPT_TABLE_END {NULL, NULL, NULL, NULL, HPM_OPT_END, NULL, NULL, NULL, 0, 0}

/* The rows of every command that writes hpm count's report (hpm count,
 * hpm merge): --json, --csv and -o FILE, into the flags json and csv and
 * the string output. */
#define HPM_OPT_REPORT_ROWS(json, csv, output)                                                   \
    {"--json", NULL, NULL, "a JSON report instead of the text table", HPM_OPT_FLAG, (json),     \
     NULL, NULL, 0, 0},                                                                          \
    {"--csv", NULL, NULL, "a CSV report instead of the text table", HPM_OPT_FLAG, (csv), NULL,  \
     NULL, 0, 0},                                                                                \
    {"--output", "-o", "FILE", "write the report to FILE (atomically) instead of stdout",        \
     HPM_OPT_STRING, (output), NULL, NULL, 0, 0}

/* Parses argv[1..] up to "--" or the first word that is not an option.
 * Returns 0 and *first (the index of that word), -1 after printing the
 * usage for -h/--help (on stdout), or 2 after printing an error and the
 * usage (on stderr). `cmd` prefixes messages; `synopsis` and `footer` frame
 * the generated option lines. */
int hpm_opt_parse(const char *cmd, const struct hpm_opt *table, const char *synopsis,
                  const char *footer, int argc, char **argv, int *first);

/* hpm_opt_parse for a command that takes options only: a word that is not
 * an option is an error. */
int hpm_opt_parse_all(const char *cmd, const struct hpm_opt *table, const char *synopsis,
                      const char *footer, int argc, char **argv);

/* The usage text: synopsis, one aligned entry per option, footer. */
void hpm_opt_usage(FILE *f, const struct hpm_opt *table, const char *synopsis,
                   const char *footer);

/* An error about the options (after parsing): the message, then the usage;
 * returns 2. fmt takes one string argument. */
int hpm_opt_error(const char *cmd, const struct hpm_opt *table, const char *synopsis,
                  const char *footer, const char *fmt, const char *arg);

#endif
