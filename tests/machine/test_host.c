/* SPDX-License-Identifier: BSD-3-Clause */
/* test_host - src/machine's one reader of the host (host.h): its /proc and
 * /sys parsers on real and broken text, and hpm_host_read on a fake sysfs
 * tree (what each cache index's files said, and what they did not). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hpm_check.h"
#include "host.h"

#define S(x) x, sizeof(x) - 1

static void test_cpuinfo(void)
{
    static const char ci[] = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                             "model\t\t: 85\nmodel name\t: Intel(R) "
                             "Xeon(R) CPU @ 2.20GHz\nstepping\t: 7\ncpu MHz\t\t: 2200.125\n"
                             "physical id\t: 0\nsiblings\t: 4\ncpu cores\t: 2\n\nprocessor\t: 1\n"
                             "model\t\t: 99\nmodel name\t: other\nphysical id\t: 1\nsiblings\t: 9\n";
    struct hpm_cpuinfo c;
    hpm_host_parse_cpuinfo(S(ci), &c);
    CHECK(strcmp(c.vendor, "GenuineIntel") == 0);
    CHECK(strcmp(c.model, "Intel(R) Xeon(R) CPU @ 2.20GHz") == 0);
    CHECK(c.mhz > 2200.12 && c.mhz < 2200.13);
    CHECK(c.processors == 2 && c.siblings == 4 && c.cores == 2 && c.sockets == 2);
    /* "model" is its own key, not a prefix of "model name"; the first
     * processor's */
    CHECK_EQ(c.family, 6);
    CHECK_EQ(c.model_number, 85);
    CHECK_EQ(c.stepping, 7);
    /* "model name" after "model" does not overwrite the number */
    hpm_host_parse_cpuinfo(S("processor : 0\nmodel : 17\nmodel name : AMD EPYC\n"), &c);
    CHECK_EQ(c.model_number, 17);
    CHECK(strcmp(c.model, "AMD EPYC") == 0);
    hpm_host_parse_cpuinfo("", 0, &c);
    CHECK(c.processors == 0 && c.model[0] == 0 && c.mhz == 0 && c.model_number == 0);
    hpm_host_parse_cpuinfo(S("processor : 0\nCPU implementer : 0x41\nModel : Raspberry\n"), &c);
    CHECK(strcmp(c.vendor, "0x41") == 0 && strcmp(c.model, "Raspberry") == 0);
    CHECK_EQ(c.model_number, 0);
}

static void test_numbers(void)
{
    uint64_t v;
    CHECK(hpm_host_parse_cpulist(S("0-3,8,10-11\n")) == 7);
    CHECK(hpm_host_parse_cpulist(S("0\n")) == 1);
    CHECK(hpm_host_parse_cpulist(S("")) == 0);
    CHECK(hpm_host_parse_cpulist(S("3-1")) == -1);
    CHECK(hpm_host_parse_cpulist(S("0-")) == -1);
    CHECK(hpm_host_parse_cpulist(S("a")) == -1);
    CHECK(hpm_host_parse_cpulist(S("0-99999999999")) == -1);
    CHECK(hpm_host_parse_size(S("32K\n"), &v) == 0 && v == 32768);
    CHECK(hpm_host_parse_size(S("8M"), &v) == 0 && v == 8 << 20);
    CHECK(hpm_host_parse_size(S("512"), &v) == 0 && v == 512);
    CHECK(hpm_host_parse_size(S("12Q"), &v) == -1);
    CHECK(hpm_host_parse_size(S(""), &v) == -1);
    CHECK(hpm_host_parse_size(S("99999999999999999999G"), &v) == -1);
    CHECK(hpm_host_parse_u64(S(" 42\n"), &v) == 0 && v == 42);
    CHECK(hpm_host_parse_u64(S("4 2"), &v) == -1);
}

static void put(const char *root, const char *rel, const char *text)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        failures++;
        return;
    }
    fputs(text, f);
    fclose(f);
}

static void mk(const char *root, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    mkdir(path, 0755);
}

static void test_read(void)
{
    char root[] = "/tmp/hpm_host_XXXXXX";
    char cmd[256];
    struct hpm_host h;
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        failures++;
        return;
    }
    mk(root, "cpu0");
    mk(root, "cpu0/cache");
    mk(root, "cpu0/cache/index0");
    mk(root, "cpu0/cache/index2");
    mk(root, "cpu0/cache/index3");
    put(root, "online", "0-2,5\n");
    /* index0: everything */
    put(root, "cpu0/cache/index0/level", "1\n");
    put(root, "cpu0/cache/index0/type", "Data\n");
    put(root, "cpu0/cache/index0/size", "48K\n");
    put(root, "cpu0/cache/index0/ways_of_associativity", "12\n");
    put(root, "cpu0/cache/index0/coherency_line_size", "64\n");
    put(root, "cpu0/cache/index0/shared_cpu_list", "0\n");
    /* index1: absent; index2: a level and a broken size only */
    put(root, "cpu0/cache/index2/level", "2\n");
    put(root, "cpu0/cache/index2/size", "12Q\n");
    /* index3: no level: not a cache */
    put(root, "cpu0/cache/index3/size", "8M\n");
    CHECK_EQ(hpm_host_read(&h, root), 0);
    CHECK_EQ(h.cpus, 4);
    CHECK_EQ(h.n_caches, 2);
    CHECK_EQ(h.caches[0].index, 0);
    CHECK_EQ(h.caches[0].level, 1);
    CHECK(h.caches[0].type == 'D');
    CHECK_EQ(h.caches[0].has, HPM_HOST_CACHE_SIZE | HPM_HOST_CACHE_WAYS | HPM_HOST_CACHE_LINE |
                                  HPM_HOST_CACHE_SHARED);
    CHECK_EQ(h.caches[0].size, 48 * 1024);
    CHECK_EQ(h.caches[0].ways, 12);
    CHECK_EQ(h.caches[0].line, 64);
    CHECK_EQ(h.caches[0].shared_cpus, 1);
    CHECK_EQ(h.caches[1].index, 2);
    CHECK_EQ(h.caches[1].level, 2);
    CHECK(h.caches[1].type == 'U'); /* no type file */
    CHECK_EQ(h.caches[1].has, 0);
    CHECK(h.page_size >= 4096 && h.memory_bytes > 0);
    /* an empty root: no caches, the CPUs from sysconf */
    CHECK_EQ(hpm_host_read(&h, "/nonexistent-hpm-root"), 0);
    CHECK(h.cpus >= 1);
    CHECK_EQ(h.n_caches, 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", root);
}

int main(void)
{
    test_cpuinfo();
    test_numbers();
    test_read();
    if (failures) {
        fprintf(stderr, "test_host: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_host: ok\n");
    return 0;
}
