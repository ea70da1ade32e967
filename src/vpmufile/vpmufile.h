/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpmufile.h - the one reader of the virtual PMU's output (the format is
 * vpmu_format.h): a run's folder listed in one order, a file split into
 * records, a record's fields and numbers, and the session that reads a
 * run's files once for every reader, as perf reads perf.data through
 * perf_session and a struct perf_tool of handlers. hpm count's counts
 * (tools/hpm/vpmu_output.c) and process tree (count_procs.c), its latency
 * thresholds (latency.c), hpm profile's records (src/profile,
 * tools/hpm/profile_cmd.c) and hpm record's samples (record.c) are
 * handlers; what each record means stays with its handler.
 */
#ifndef HPM_VPMUFILE_H
#define HPM_VPMUFILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------ records */

/* One line of a file: its text without the newline (no NUL byte in it),
 * its first space-separated field (the record's name; name_len 0 for a
 * blank line) and where the fields after the name begin. */
struct vpmu_rec {
    unsigned long lineno; /* 1-based */
    const char *line, *end; /* [line, end): the line without its newline */
    const char *name;
    size_t name_len;
    const char *rest; /* just after the name: vpmu_field reads on from here */
    int terminated;   /* 0: the file's last line, without a newline */
    int has_nul;      /* the line holds a NUL byte (vpmu_recs_next said -1) */
};

/* Walks the lines of buf[0, len) (a file read whole or mapped). */
struct vpmu_recs {
    const char *at, *end;
    unsigned long lineno;
};

void vpmu_recs_begin(struct vpmu_recs *it, const char *buf, size_t len);

/* The next line in *r: 1, 0 at the end, -1 when the line holds a NUL byte
 * (r->lineno says which; not a text file). */
int vpmu_recs_next(struct vpmu_recs *it, struct vpmu_rec *r);

/* The next space-separated field of [*p, end): 1 and its start and length
 * (*p moves past it), 0 when none is left. (This and the number readers
 * below are inline: a profile's records are millions of fields.) */
static inline int vpmu_field(const char **p, const char *end, const char **f, size_t *n)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    if (s >= end)
        return 0;
    *f = s;
    while (s < end && *s != ' ')
        s++;
    *n = (size_t)(s - *f);
    *p = s;
    return 1;
}

/* The fields of [s, end) split at once, for records read by position:
 * at most VPMU_FIELDS_MAX of them (n = VPMU_FIELDS_MAX + 1 when there are
 * more). */
#define VPMU_FIELDS_MAX 8
struct vpmu_fields {
    const char *f[VPMU_FIELDS_MAX];
    size_t len[VPMU_FIELDS_MAX];
    unsigned n;
};

static inline void vpmu_fields_split(const char *s, const char *end, struct vpmu_fields *v)
{
    const char *f;
    size_t n;
    v->n = 0;
    while (vpmu_field(&s, end, &f, &n)) {
        if (v->n == VPMU_FIELDS_MAX) {
            v->n = VPMU_FIELDS_MAX + 1;
            return;
        }
        v->f[v->n] = f;
        v->len[v->n++] = n;
    }
}

/* Whether the field [f, f + n) is word. */
static inline int vpmu_word_is(const char *f, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(f, word, n) == 0;
}

/* Whether the record is named word. */
static inline int vpmu_rec_is(const struct vpmu_rec *r, const char *word)
{
    return vpmu_word_is(r->name, r->name_len, word);
}

/* The decimal digits at *s (before end): 1 to 31 of them, no overflow;
 * *s moves past them and may stop at any other byte (a K:V pair's colon).
 * 0, or -1 on no digit, too many or overflow. */
static inline int vpmu_decimal(const char **s, const char *end, uint64_t *v)
{
    const char *f = *s, *q = f;
    uint64_t x = 0;
    while (q < end && *q >= '0' && *q <= '9') {
        if (__builtin_mul_overflow(x, 10, &x) ||
            __builtin_add_overflow(x, (unsigned)(*q - '0'), &x))
            return -1;
        q++;
    }
    if (q == f || q - f >= 32)
        return -1;
    *s = q;
    *v = x;
    return 0;
}

/* An unsigned number filling the whole field [f, f + n): base 10, or 16
 * with or without 0x; 1 to 31 digits, no sign, no blank, no overflow.
 * 0, or -1. (strtoull through a copy was a fifth of the profile reader's
 * time.) */
static inline int vpmu_number(const char *f, size_t n, int base, uint64_t *v)
{
    uint64_t x = 0;
    size_t i = 0;
    if (base == 10) {
        const char *s = f;
        return vpmu_decimal(&s, f + n, v) == 0 && s == f + n ? 0 : -1;
    }
    if (n == 0 || n >= 32)
        return -1;
    if (n > 2 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X'))
        i = 2;
    for (; i < n; i++) {
        unsigned c = (unsigned char)f[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        if (__builtin_mul_overflow(x, 16, &x) || __builtin_add_overflow(x, d, &x))
            return -1;
    }
    *v = x;
    return 0;
}

/* ------------------------------------------------------------- folder */

/* One output file of a run: vpmu.PID.out (a process's final file) or
 * vpmu.PID.out.execK (the segment it wrote before its K-th execve). */
struct vpmu_file {
    uint64_t pid;
    uint32_t seq;     /* K of a segment; VPMU_FILE_FINAL for the final file */
    char *path;       /* DIR/NAME */
    const char *name; /* NAME, inside path */
};

#define VPMU_FILE_FINAL UINT32_MAX /* sorts after a process's segments */

/* Whether name is an output file's: 0 and its pid and seq, else -1. */
int vpmu_file_name(const char *name, uint64_t *pid, uint32_t *seq);

/* The output files in dir, in pid order and within a process in the order
 * they were written (its segments, then its final file): a report, a
 * profile and a perf.data file do not depend on the folder's order.
 * 0, or -1 with errno (the folder cannot be read, out of memory). */
int vpmu_files_list(const char *dir, struct vpmu_file **files, size_t *n);

void vpmu_files_free(struct vpmu_file *files, size_t n);

/* ------------------------------------------------------------ session */

/* A reader of the tool's output, as perf's struct perf_tool: called per
 * file and per record. Any handler may be NULL. A handler that returns -1
 * is left out for the rest of the session (it keeps its own reason in
 * ctx); the others read on. */
struct vpmu_tool {
    /* A file is about to be read: 0 to take its records, 1 to leave this
     * file out, -1 (failed). buf is the file's bytes, valid until the
     * session is closed; nul: it holds a NUL byte (no text file). */
    int (*file_begin)(void *ctx, const struct vpmu_file *f, const char *buf, size_t len,
                      int nul);
    /* One line of it (blank lines too; a line with a NUL byte, has_nul,
     * is the last one handed): 0, or -1 (failed). r and the text it points to stay valid until the
     * session is closed. */
    int (*record)(void *ctx, const struct vpmu_file *f, const struct vpmu_rec *r);
    /* After its last record: 0, or -1 (failed). */
    int (*file_end)(void *ctx, const struct vpmu_file *f);
    void *ctx;
};

/* A run's output folder: listed once, each file read once, its records
 * split once and handed to every tool. */
struct vpmu_session {
    struct vpmu_file *files;
    size_t n_files;
    struct vpmu_map *maps; /* the files' bytes, one per file read */
    size_t n_maps;
};

/* Lists dir: 0, or -1 with errno (the folder cannot be read, out of memory). */
int vpmu_session_open(struct vpmu_session *s, const char *dir);

/* Reads every file whose pid is main_pid (every file when children), in
 * the folder's order, through the tools in order: 0; -1 when a file cannot
 * be read (err: "PATH: why"; a file that is not the tool's output, by its
 * first line, is one). */
int vpmu_session_process(struct vpmu_session *s, uint64_t main_pid, int children,
                         const struct vpmu_tool *const *tools, unsigned n_tools, char *err,
                         size_t errlen);

/* Whether the session has a file of pid. */
int vpmu_session_has_pid(const struct vpmu_session *s, uint64_t pid);

/* The files' bytes unmapped, the list freed. */
void vpmu_session_close(struct vpmu_session *s);

/* One file's bytes (f may be NULL: bytes of no folder) through the tools,
 * as the session reads each file: 0, or -1 when a tool failed (it says
 * why). */
int vpmu_tools_walk(const struct vpmu_file *f, const char *buf, size_t len,
                    const struct vpmu_tool *const *tools, unsigned n_tools);

#endif
