/* SPDX-License-Identifier: BSD-3-Clause */
/* test_hpm_parse - the text parsers of libhpm (src/hpm/parse.h) on real and
 * broken /proc/self text and event lists (the host's files: tests/machine,
 * test_host.c). */
#include <string.h>

#include "hpm_check.h"
#include "parse.h"

#define S(x) x, sizeof(x) - 1

static void test_kv(void)
{
    static const char status[] = "Name:\tcat\nVmPeak:\t  5000 kB\nVmHWM:\t  1200 kB\n"
                                 "VmRSS:\t  1100 kB\nThreads:\t1\nVmBad:\t x kB\n";
    static const char io[] = "rchar: 3829\nwchar: 0\nsyscr: 11\nread_bytes: 18446744073709551615\n";
    uint64_t v = 7;
    CHECK(hpm_parse_kv(S(status), "VmRSS", &v) == 0 && v == 1100 * 1024);
    CHECK(hpm_parse_kv(S(status), "VmHWM", &v) == 0 && v == 1200 * 1024);
    CHECK(hpm_parse_kv(S(status), "Threads", &v) == 0 && v == 1);
    CHECK(hpm_parse_kv(S(status), "VmSwap", &v) == -1);
    CHECK(hpm_parse_kv(S(status), "VmBad", &v) == -1);
    CHECK(hpm_parse_kv(S(status), "Vm", &v) == -1); /* a prefix is not the key */
    CHECK(hpm_parse_kv(S(io), "rchar", &v) == 0 && v == 3829);
    CHECK(hpm_parse_kv(S(io), "wchar", &v) == 0 && v == 0);
    CHECK(hpm_parse_kv(S(io), "read_bytes", &v) == 0 && v == UINT64_MAX);
    CHECK(hpm_parse_kv(S("rchar: 99999999999999999999"), "rchar", &v) == -1); /* overflow */
    CHECK(hpm_parse_kv("rchar: 12", 9, "rchar", &v) == 0 && v == 12); /* no newline */
    CHECK(hpm_parse_kv("rchar: 12", 8, "rchar", &v) == 0 && v == 1);  /* length counts */
    CHECK(hpm_parse_kv("", 0, "rchar", &v) == -1);
    CHECK(hpm_parse_kv(S("VmRSS: 4611686018427387904 kB"), "VmRSS", &v) == -1);
}

static void test_stat(void)
{
    static const char st[] = "1234 (a (weird) name) S 1 1234 1234 0 -1 4194560 150 0 3 0 "
                             "10 20 0 0 20 0 7 0 100 1000 200\n";
    uint64_t v = 0;
    CHECK(hpm_parse_stat_field(S(st), 3, &v) == -1); /* "S" is not a number */
    CHECK(hpm_parse_stat_field(S(st), 4, &v) == 0 && v == 1);
    CHECK(hpm_parse_stat_field(S(st), 10, &v) == 0 && v == 150);
    CHECK(hpm_parse_stat_field(S(st), 12, &v) == 0 && v == 3);
    CHECK(hpm_parse_stat_field(S(st), 14, &v) == 0 && v == 10);
    CHECK(hpm_parse_stat_field(S(st), 20, &v) == 0 && v == 7);
    CHECK(hpm_parse_stat_field(S(st), 8, &v) == -1); /* -1 */
    CHECK(hpm_parse_stat_field(S(st), 60, &v) == -1);
    CHECK(hpm_parse_stat_field(S(st), 2, &v) == -1);
    CHECK(hpm_parse_stat_field(S("1234 no parenthesis 1 2 3"), 4, &v) == -1);
    CHECK(hpm_parse_stat_field(S("1 (x)"), 3, &v) == -1);
}

static void test_names(void)
{
    char names[4][16];
    CHECK(hpm_parse_name_list(S(" a, bb ,,c "), &names[0][0], 4, 16) == 3);
    CHECK(strcmp(names[0], "a") == 0 && strcmp(names[1], "bb") == 0 && strcmp(names[2], "c") == 0);
    CHECK(hpm_parse_name_list(S("a,b,c,d,e"), &names[0][0], 4, 16) == -2);
    CHECK(hpm_parse_name_list(S("0123456789abcdef"), &names[0][0], 4, 16) == -1);
    CHECK(hpm_parse_name_list(S("0123456789abcde"), &names[0][0], 4, 16) == 1);
    CHECK(hpm_parse_name_list(S(" , ,"), &names[0][0], 4, 16) == 0);
}

int main(void)
{
    test_kv();
    test_stat();
    test_names();
    if (failures) {
        fprintf(stderr, "test_hpm_parse: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_hpm_parse: ok\n");
    return 0;
}
