/* SPDX-License-Identifier: BSD-3-Clause */
/* vpmufile.unit: the tool output's record iterator, fields, numbers,
 * folder scan and session (src/vpmufile), and hpm_file_map (src/fileio). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "hpm_check.h"
#include "vpmufile.h"

static void write_file(const char *dir, const char *name, const char *text, size_t n)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(text, 1, n, f) == n);
    CHECK(fclose(f) == 0);
}

/* The record at line i's name and rest, as strings. */
static int rec_is(const struct vpmu_rec *r, const char *name, const char *rest)
{
    return (size_t)strlen(name) == r->name_len && memcmp(r->name, name, r->name_len) == 0 &&
           (size_t)(r->end - r->rest) == strlen(rest) && memcmp(r->rest, rest, strlen(rest)) == 0;
}

static void records(void)
{
    static const char text[] = "hpm-vpmu 2\n"
                               "\n"
                               "  count 3 LOADS 42\n"
                               "prof_object 1 400000 401fff 0 /a b/c\n"
                               "last";
    struct vpmu_recs it;
    struct vpmu_rec r;
    const char *q, *f;
    size_t n;
    uint64_t v;
    vpmu_recs_begin(&it, text, sizeof text - 1);
    CHECK(vpmu_recs_next(&it, &r) == 1);
    CHECK(r.lineno == 1 && r.terminated && rec_is(&r, "hpm-vpmu", " 2"));
    CHECK(vpmu_rec_is(&r, "hpm-vpmu") && !vpmu_rec_is(&r, "hpm"));
    /* a blank line is a record without a name, and counts as a line */
    CHECK(vpmu_recs_next(&it, &r) == 1);
    CHECK(r.lineno == 2 && r.name_len == 0 && r.line == r.end);
    /* leading blanks skipped; the fields after the name in order */
    CHECK(vpmu_recs_next(&it, &r) == 1);
    CHECK(r.lineno == 3 && rec_is(&r, "count", " 3 LOADS 42"));
    q = r.rest;
    CHECK(vpmu_field(&q, r.end, &f, &n) && vpmu_number(f, n, 10, &v) == 0 && v == 3);
    CHECK(vpmu_field(&q, r.end, &f, &n) && vpmu_word_is(f, n, "LOADS"));
    CHECK(vpmu_field(&q, r.end, &f, &n) && vpmu_number(f, n, 10, &v) == 0 && v == 42);
    CHECK(!vpmu_field(&q, r.end, &f, &n));
    /* hex fields; a path with a space is the rest of the line */
    CHECK(vpmu_recs_next(&it, &r) == 1);
    q = r.rest;
    CHECK(vpmu_field(&q, r.end, &f, &n) && vpmu_number(f, n, 10, &v) == 0 && v == 1);
    CHECK(vpmu_field(&q, r.end, &f, &n) && vpmu_number(f, n, 16, &v) == 0 && v == 0x400000);
    CHECK(vpmu_field(&q, r.end, &f, &n) && vpmu_number(f, n, 16, &v) == 0 && v == 0x401fff);
    CHECK(vpmu_field(&q, r.end, &f, &n) && vpmu_number(f, n, 16, &v) == 0 && v == 0);
    CHECK(q + 1 < r.end && strncmp(q + 1, "/a b/c", (size_t)(r.end - q - 1)) == 0);
    /* the last line without its newline: given, and said */
    CHECK(vpmu_recs_next(&it, &r) == 1);
    CHECK(r.lineno == 5 && !r.terminated && rec_is(&r, "last", ""));
    CHECK(vpmu_recs_next(&it, &r) == 0);
    CHECK(vpmu_recs_next(&it, &r) == 0);

    /* a NUL byte: the line is refused, naming it */
    {
        static const char nul[] = "pid 1\nmach\0ine x\nthreads 1\n";
        vpmu_recs_begin(&it, nul, sizeof nul - 1);
        CHECK(vpmu_recs_next(&it, &r) == 1);
        CHECK(vpmu_recs_next(&it, &r) == -1 && r.lineno == 2);
    }
    /* empty input: no record */
    vpmu_recs_begin(&it, "", 0);
    CHECK(vpmu_recs_next(&it, &r) == 0);
}

static void numbers(void)
{
    uint64_t v = 7;
    const char *s, *e;
    CHECK(vpmu_number("18446744073709551615", 20, 10, &v) == 0 && v == UINT64_MAX);
    CHECK(vpmu_number("18446744073709551616", 20, 10, &v) == -1); /* overflow */
    CHECK(vpmu_number("ffffffffffffffff", 16, 16, &v) == 0 && v == UINT64_MAX);
    CHECK(vpmu_number("10000000000000000", 17, 16, &v) == -1);
    CHECK(vpmu_number("0x1F", 4, 16, &v) == 0 && v == 31);
    CHECK(vpmu_number("0x1F", 4, 10, &v) == -1); /* not decimal */
    CHECK(vpmu_number("", 0, 10, &v) == -1 && vpmu_number("", 0, 16, &v) == -1);
    CHECK(vpmu_number("-1", 2, 10, &v) == -1 && vpmu_number("+1", 2, 10, &v) == -1);
    CHECK(vpmu_number("1 ", 2, 10, &v) == -1 && vpmu_number("g", 1, 16, &v) == -1);
    CHECK(vpmu_number("0000000000000000000000000000001", 31, 10, &v) == 0 && v == 1);
    CHECK(vpmu_number("00000000000000000000000000000001", 32, 10, &v) == -1); /* 32 digits */
    /* a K:V pair: the digits up to the colon */
    s = "12:34";
    e = s + 5;
    CHECK(vpmu_decimal(&s, e, &v) == 0 && v == 12 && *s == ':');
    s++;
    CHECK(vpmu_decimal(&s, e, &v) == 0 && v == 34 && s == e);
    s = ":1";
    CHECK(vpmu_decimal(&s, s + 2, &v) == -1);
}

static void names(void)
{
    uint64_t pid;
    uint32_t seq;
    CHECK(vpmu_file_name("vpmu.42.out", &pid, &seq) == 0 && pid == 42 && seq == VPMU_FILE_FINAL);
    CHECK(vpmu_file_name("vpmu.42.out.exec3", &pid, &seq) == 0 && pid == 42 && seq == 3);
    CHECK(vpmu_file_name("vpmu.42.out.exec0", &pid, &seq) == -1);
    CHECK(vpmu_file_name("vpmu.42.out.exec", &pid, &seq) == -1);
    CHECK(vpmu_file_name("vpmu.42.out.exec3x", &pid, &seq) == -1);
    CHECK(vpmu_file_name("vpmu.42.outx", &pid, &seq) == -1);
    CHECK(vpmu_file_name("vpmu.4x.out", &pid, &seq) == -1);
    CHECK(vpmu_file_name("vpmu..out", &pid, &seq) == -1);
    CHECK(vpmu_file_name("vpmu.12345678901234567890.out", &pid, &seq) == -1); /* 20 digits */
    CHECK(vpmu_file_name("owner", &pid, &seq) == -1);
    CHECK(vpmu_file_name("rank.0.json", &pid, &seq) == -1);
}

static void folder(void)
{
    char dir[] = "/tmp/hpm-vpmufile.XXXXXX", path[512];
    struct vpmu_file *files;
    size_t n, i;
    /* written in an order unlike the one wanted; names a string sort
     * would misorder (100 before 99, exec10 before exec2, the final file
     * before its segments) */
    static const char *const made[] = {"vpmu.100.out", "vpmu.99.out.exec10", "vpmu.99.out",
                                       "vpmu.99.out.exec2", "vpmu.99.out.exec1", "owner",
                                       "vpmu.7.out.execX", "vpmu.100.out.exec1"};
    static const char *const want[] = {"vpmu.99.out.exec1", "vpmu.99.out.exec2",
                                       "vpmu.99.out.exec10", "vpmu.99.out", "vpmu.100.out.exec1",
                                       "vpmu.100.out"};
    CHECK(mkdtemp(dir) != NULL);
    for (i = 0; i < sizeof made / sizeof made[0]; i++)
        write_file(dir, made[i], "x", 1);
    CHECK(vpmu_files_list(dir, &files, &n) == 0);
    CHECK_EQ(n, sizeof want / sizeof want[0]);
    for (i = 0; i < n && i < sizeof want / sizeof want[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, want[i]);
        CHECK_STR(files[i].name, want[i]);
        CHECK_STR(files[i].path, path);
        CHECK(files[i].pid == (i < 4 ? 99u : 100u));
    }
    CHECK(n == 6 && files[3].seq == VPMU_FILE_FINAL && files[2].seq == 10);
    vpmu_files_free(files, n);
    for (i = 0; i < sizeof made / sizeof made[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, made[i]);
        CHECK(unlink(path) == 0);
    }
    /* an empty folder: no file; a missing one: an error */
    CHECK(vpmu_files_list(dir, &files, &n) == 0 && n == 0);
    vpmu_files_free(files, n);
    CHECK(rmdir(dir) == 0);
    CHECK(vpmu_files_list(dir, &files, &n) == -1 && n == 0 && files == NULL);
}

static int head_is_hpm(const char *head, size_t n)
{
    return n >= 9 && memcmp(head, "hpm-vpmu ", 9) == 0 && strlen(head) == n;
}

static void mapped(void)
{
    char dir[] = "/tmp/hpm-vpmufile.XXXXXX", path[512], err[512];
    size_t big = HPM_FILE_MAP_MIN + 100, i;
    char *text = malloc(big);
    struct hpm_file_map m;
    CHECK(mkdtemp(dir) != NULL && text != NULL);
    if (!text)
        return;
    memcpy(text, "hpm-vpmu 2\n", 11);
    for (i = 11; i < big; i++)
        text[i] = i % 64 == 63 ? '\n' : 'a';
    /* large: mapped, whole, its head checked as a NUL-terminated string */
    write_file(dir, "big", text, big);
    snprintf(path, sizeof path, "%s/big", dir);
    CHECK(hpm_file_map(path, (size_t)1 << 30, head_is_hpm, "an output", &m, err, sizeof err) == 0);
    CHECK(m.map != NULL && m.len == big && memcmp(m.data, text, big) == 0);
    hpm_file_unmap(&m);
    CHECK(m.data == NULL && m.map == NULL);
    /* larger than allowed, or the wrong head: refused, naming the file */
    CHECK(hpm_file_map(path, big - 1, NULL, "an output", &m, err, sizeof err) == -1);
    CHECK(strstr(err, path) != NULL);
    text[0] = 'X';
    write_file(dir, "big", text, big);
    CHECK(hpm_file_map(path, (size_t)1 << 30, head_is_hpm, "an output", &m, err, sizeof err) ==
          -1);
    CHECK(strstr(err, path) && strstr(err, "not an output"));
    CHECK(unlink(path) == 0);
    /* small: read into a buffer */
    write_file(dir, "small", "hpm-vpmu 2\n", 11);
    snprintf(path, sizeof path, "%s/small", dir);
    CHECK(hpm_file_map(path, 100, head_is_hpm, "an output", &m, err, sizeof err) == 0);
    CHECK(m.map == NULL && m.buf != NULL && m.len == 11 && memcmp(m.data, "hpm-vpmu 2\n", 11) == 0);
    hpm_file_unmap(&m);
    CHECK(unlink(path) == 0);
    /* a folder is not a regular file */
    CHECK(hpm_file_map(dir, 100, NULL, "an output", &m, err, sizeof err) == -1);
    CHECK(strstr(err, "not a regular file") != NULL);
    CHECK(rmdir(dir) == 0);
    free(text);
}

/* A handler that notes what it was handed. */
struct seen {
    char log[512];
    int fail_at;           /* fail on this record number (1-based), 0 never */
    unsigned n;
    struct vpmu_rec kept;  /* the record named "keep" */
};

static int seen_begin(void *ctx, const struct vpmu_file *f, const char *buf, size_t len, int nul)
{
    struct seen *x = ctx;
    size_t at = strlen(x->log);
    (void)buf;
    snprintf(x->log + at, sizeof x->log - at, "[%s %zu%s]", f->name, len, nul ? " nul" : "");
    return 0;
}

static int seen_record(void *ctx, const struct vpmu_file *f, const struct vpmu_rec *r)
{
    struct seen *x = ctx;
    size_t at = strlen(x->log);
    (void)f;
    if (++x->n == (unsigned)x->fail_at)
        return -1;
    if (vpmu_rec_is(r, "keep"))
        x->kept = *r;
    snprintf(x->log + at, sizeof x->log - at, "%.*s;", (int)r->name_len, r->name);
    return 0;
}

static int seen_end(void *ctx, const struct vpmu_file *f)
{
    struct seen *x = ctx;
    size_t at = strlen(x->log);
    (void)f;
    snprintf(x->log + at, sizeof x->log - at, "/");
    return 0;
}

/* A run's folder read once by two handlers: in the folder's order, every
 * record to each, a failed handler left out while the other reads on,
 * the records' text kept until the session ends; without children only
 * the program's files; a file that is not the tool's is an error. */
static void session(void)
{
    char dir[] = "/tmp/hpm-vpmufile.XXXXXX", err[512];
    struct vpmu_session s;
    struct seen a, b;
    struct vpmu_tool ta = {seen_begin, seen_record, seen_end, &a},
                     tb = {seen_begin, seen_record, seen_end, &b};
    const struct vpmu_tool *tools[2] = {&ta, &tb};
    CHECK(mkdtemp(dir) != NULL);
    write_file(dir, "vpmu.6.out", "hpm-vpmu 2\nkeep 6\n", 18);
    write_file(dir, "vpmu.5.out", "hpm-vpmu 2\nb\n", 13);
    write_file(dir, "vpmu.5.out.exec1", "hpm-vpmu 2\na\n", 13);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    b.fail_at = 3;
    CHECK(vpmu_session_open(&s, dir) == 0);
    CHECK(vpmu_session_has_pid(&s, 5) && vpmu_session_has_pid(&s, 6) &&
          !vpmu_session_has_pid(&s, 7));
    CHECK(vpmu_session_process(&s, 5, 1, tools, 2, err, sizeof err) == 0);
    CHECK_STR(a.log, "[vpmu.5.out.exec1 13]hpm-vpmu;a;/[vpmu.5.out 13]hpm-vpmu;b;/"
                     "[vpmu.6.out 18]hpm-vpmu;keep;/");
    CHECK_STR(b.log, "[vpmu.5.out.exec1 13]hpm-vpmu;a;/[vpmu.5.out 13]");
    CHECK(a.kept.name && memcmp(a.kept.rest, " 6", 2) == 0);
    vpmu_session_close(&s);
    /* the program's files alone */
    memset(&a, 0, sizeof a);
    CHECK(vpmu_session_open(&s, dir) == 0);
    CHECK(vpmu_session_process(&s, 6, 0, tools, 1, err, sizeof err) == 0);
    CHECK_STR(a.log, "[vpmu.6.out 18]hpm-vpmu;keep;/");
    vpmu_session_close(&s);
    /* not the tool's output: refused, naming the file */
    write_file(dir, "vpmu.6.out", "junk\n", 5);
    CHECK(vpmu_session_open(&s, dir) == 0);
    CHECK(vpmu_session_process(&s, 5, 1, tools, 1, err, sizeof err) == -1);
    CHECK(strstr(err, "vpmu.6.out") && strstr(err, "not an output file of the virtual PMU"));
    vpmu_session_close(&s);
    /* one file's bytes, a NUL line handed last */
    memset(&a, 0, sizeof a);
    ta.file_begin = NULL;
    CHECK(vpmu_tools_walk(NULL, "x\ny\0z\nw\n", 9, tools, 1) == 0);
    CHECK_STR(a.log, "x;;/");
    {
        static const char *const names[] = {"vpmu.5.out", "vpmu.5.out.exec1", "vpmu.6.out"};
        char path[600];
        for (unsigned i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            CHECK(unlink(path) == 0);
        }
    }
    CHECK(rmdir(dir) == 0);
}

int main(void)
{
    records();
    numbers();
    names();
    folder();
    mapped();
    session();
    if (failures)
        fprintf(stderr, "vpmufile.unit: %d failures\n", failures);
    return failures != 0;
}
