/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * parse.h - the text parsers of libhpm: /proc/self files, event lists (the
 * host's /proc and /sys files are src/machine's, host.h).
 *
 * Each takes a buffer and its length (no NUL needed), never allocates, uses
 * no locale and no stdio, so the os component can call them from the
 * overflow signal handler and fuzz/hpm can feed them anything.
 */
#ifndef HPM_PARSE_H
#define HPM_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* "KEY: 1234" or "KEY:\t1234 kB" lines (/proc/self/status, /proc/self/io):
 * the number after the line that starts with key and a colon; a "kB" suffix
 * multiplies by 1024. Returns 0, or -1 when the key is missing or its value
 * is not a number. */
int hpm_parse_kv(const char *buf, size_t len, const char *key, uint64_t *out);

/* Field `field` (1-based, as in proc(5): 1 pid, 2 comm, 3 state, ...
 * 10 minflt, 12 majflt, 14 utime, 15 stime, 20 num_threads) of a
 * /proc/PID/stat line, field >= 3 (after the comm, which may hold spaces and
 * parentheses: the last ')' ends it). Returns 0 or -1. */
int hpm_parse_stat_field(const char *buf, size_t len, int field, uint64_t *out);

/* Split a comma-separated list of event names (blanks around names are
 * dropped, empty items skipped) into names[max][name_max]. Returns the number
 * of names, -1 when a name does not fit name_max (with its NUL) and -2 when
 * there are more than max. */
int hpm_parse_name_list(const char *buf, size_t len, char *names, int max, size_t name_max);

#endif
