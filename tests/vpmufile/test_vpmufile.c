/* SPDX-License-Identifier: BSD-3-Clause */
/* vpmufile.unit: the tool output's record iterator, fields, numbers and
 * folder scan (src/vpmufile), and hpm_file_map (src/fileio). */
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

int main(void)
{
    records();
    numbers();
    names();
    folder();
    mapped();
    if (failures)
        fprintf(stderr, "vpmufile.unit: %d failures\n", failures);
    return failures != 0;
}
