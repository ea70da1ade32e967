/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of src/machine: values, every kind of error with its file:line,
 * the bundled machines, host detection from a fake sysfs, lookup by name.
 * argv[1]: the machines/ folder. */
#define _POSIX_C_SOURCE 200809L
#include "machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpm_check.h"

static int parse(struct hpm_machine *m, const char *text, char *err, size_t errlen)
{
    return hpm_machine_parse(m, text, strlen(text), "machines/x.machine", err, errlen);
}

static void test_good(void)
{
    struct hpm_machine m;
    char err[256];
    const char *good = "\n"
                       "  # comment\n"
                       "name = tiny   # inline comment\n"
                       "cores=8\n"
                       "frequency_hz = 2400M\n"
                       "[l1d]\n"
                       "size = 48K\n"
                       "assoc = 12\n"
                       "line = 64\n"
                       "policy = random\n"
                       "seed = 7\n"
                       "[ l2 ]\r\n"
                       "size = 1MB\n"
                       "assoc = 16\n"
                       "shared = yes\n"
                       "[l3]\n"
                       "size = 0\n"
                       "[prefetch]\n"
                       "streams = 4\n"
                       "depth = 3\n"
                       "[dtlb]\n"
                       "entries = 1536\n"
                       "assoc = 12\n"
                       "page_size = 2M\n"
                       "[branch]\n"
                       "history_bits = 16\n"
                       "table_entries = 65536\n"
                       "btb_entries = 4096\n"
                       "btb_assoc = 4\n"
                       "ras_depth = 32\n"
                       "[timing]\n"
                       "cpi_int = 0.25\n"
                       "cpi_fpdiv = 14.125\n"
                       "memory_latency = 300\n"
                       "[memory]\n"
                       "size = 64G\n"
                       "type = DDR5";
    CHECK_EQ(parse(&m, good, err, sizeof err), HPM_MACHINE_OK);
    CHECK_STR(err, "");
    CHECK_STR(m.name, "tiny");
    CHECK_EQ(m.hier.cores, 8);
    CHECK_EQ(m.frequency_hz, 2400000000ull);
    CHECK_EQ(m.hier.l1d.size, 48 * 1024);
    CHECK_EQ(m.hier.l1d.assoc, 12);
    CHECK_EQ(m.hier.l1d.line, 64);
    CHECK_EQ(m.hier.l1d.policy, HPM_REPL_RANDOM);
    CHECK_EQ(m.hier.l1d.seed, 7);
    CHECK_EQ(m.hier.coherence, HPM_COH_NONE); /* the default */
    CHECK_EQ(m.hier.l2.size, 1 << 20);
    CHECK_EQ(m.hier.l2.shared, 1);
    CHECK_EQ(m.hier.l3.size, 0);
    CHECK_EQ(m.hier.prefetch.streams, 4);
    CHECK_EQ(m.hier.prefetch.depth, 3);
    CHECK_EQ(m.dtlb.entries, 1536);
    CHECK_EQ(m.dtlb.page_size, 2u << 20);
    CHECK_EQ(m.itlb.entries, 64); /* default kept */
    CHECK_EQ(m.branch.history_bits, 16);
    CHECK_EQ(m.branch.table_entries, 65536);
    CHECK_EQ(m.branch.ras_depth, 32);
    CHECK_EQ(m.timing.cpi_milli[HPM_IC_INT], 250);
    CHECK_EQ(m.timing.cpi_milli[HPM_IC_FPDIV], 14125);
    CHECK_EQ(m.timing.cpi_milli[HPM_IC_LOAD], 1000); /* default */
    CHECK_EQ(m.timing.memory_latency, 300);
    CHECK_EQ(m.memory_bytes, 64ull << 30);
    CHECK_STR(m.memory_type, "DDR5");
    CHECK_EQ(hpm_hier_params_check(&m.hier), HPM_MODEL_OK);
    /* an empty file is the defaults */
    CHECK_EQ(hpm_machine_parse(&m, "", 0, "e", err, sizeof err), HPM_MACHINE_OK);
    CHECK_STR(m.name, "default");
}

struct bad {
    const char *text;
    int code;
    const char *msg;
};

/* [torus]: the network of a machine (src/net/torus.h) */
static void test_torus(void)
{
    struct hpm_machine m;
    char err[256];
    CHECK_EQ(parse(&m, "cores = 1\n", err, sizeof err), HPM_MACHINE_OK);
    CHECK_EQ(m.torus.x, 0u); /* no network by default */
    CHECK_EQ(parse(&m, "\n[torus]\nx = 2\ny = 4\nz = 8\nmapping = ZYX\npacket_size = 128\n"
                       "link_bandwidth = 425M\n",
                   err, sizeof err),
             HPM_MACHINE_OK);
    CHECK_EQ(m.torus.x, 2u);
    CHECK_EQ(m.torus.y, 4u);
    CHECK_EQ(m.torus.z, 8u);
    CHECK_STR(m.torus.mapping, "ZYX");
    CHECK_EQ(m.torus.packet_bytes, 128u);
    CHECK_EQ(m.torus.link_bytes_per_s, 425000000ull);
    CHECK_EQ(m.torus.line, 3u);
    CHECK_EQ(m.torus.job_shape, 0u);
    /* no shape: the job's node count picks it (x = y = z = 0 until then) */
    CHECK_EQ(parse(&m, "\n[torus]\npacket_size = 128\n", err, sizeof err), HPM_MACHINE_OK);
    CHECK_EQ(m.torus.x, 0u);
    CHECK_EQ(m.torus.job_shape, 1u);
    CHECK_EQ(m.torus.packet_bytes, 128u);
    CHECK_EQ(m.torus.line, 2u);
}

static void test_errors(void)
{
    static const struct bad cases[] = {
        {"[l1d]\nsize = 32K\nsise = 4\n", HPM_MACHINE_EKEY,
         "machines/x.machine:3: unknown key 'sise' in [l1d]"},
        {"corez = 4\n", HPM_MACHINE_EKEY, "machines/x.machine:1: unknown key 'corez' at top level"},
        {"\n[l4]\n", HPM_MACHINE_EKEY, "machines/x.machine:2: unknown section [l4]"},
        {"[l1d\n", HPM_MACHINE_ESYNTAX,
         "machines/x.machine:1: syntax error: section header '[l1d' lacks ']'"},
        {"cores 4\n", HPM_MACHINE_ESYNTAX,
         "machines/x.machine:1: syntax error: expected 'key = value' or '[section]', got "
         "'cores 4'"},
        {"= 4\n", HPM_MACHINE_ESYNTAX, "machines/x.machine:1: syntax error: missing key"},
        {"cores =\n", HPM_MACHINE_EVALUE, "machines/x.machine:1: missing value for 'cores'"},
        {"cores = four\n", HPM_MACHINE_EVALUE,
         "machines/x.machine:1: bad value 'four' for 'cores' in top level: expected an "
         "unsigned integer"},
        {"[l2]\nsize = 12Q\n", HPM_MACHINE_EVALUE,
         "machines/x.machine:2: bad value '12Q' for 'size' in [l2]: expected a size such as 32K"},
        {"[l2]\npolicy = plru\n", HPM_MACHINE_EVALUE,
         "machines/x.machine:2: bad value 'plru' for 'policy' in [l2]: expected lru, fifo or "
         "random"},
        {"[l3]\nshared = maybe\n", HPM_MACHINE_EVALUE,
         "machines/x.machine:2: bad value 'maybe' for 'shared' in [l3]: expected yes or no"},
        {"[l1d]\ncoherence = moesi\n", HPM_MACHINE_EVALUE,
         "machines/x.machine:2: bad value 'moesi' for 'coherence' in [l1d]: expected none, wti or "
         "mesi"},
        /* within each key's range, too big for the models together */
        {"cores = 4\n[l3]\nsize = 1024G\n", HPM_MACHINE_ERANGE,
         "machines/x.machine:3: the node model would need 131072 MiB of state (per cache line, "
         "private levels per core; [l3] is the largest); the limit is 512 MiB"},
        {"[timing]\ncpi_int = 0.1234\n", HPM_MACHINE_EVALUE,
         "machines/x.machine:2: bad value '0.1234' for 'cpi_int' in [timing]: expected a "
         "number with at most 3 decimals, such as 0.5"},
        {"frequency_hz = 2.4G\n", HPM_MACHINE_EVALUE,
         "machines/x.machine:1: bad value '2.4G' for 'frequency_hz' in top level: expected a "
         "frequency such as 850M"},
        {"cores = 4\n\ncores = 8\n", HPM_MACHINE_EDUP,
         "machines/x.machine:3: duplicate key 'cores' in top level (first set at line 1)"},
        {"[l1d]\nline = 32\n[l1i]\n[l1d]\nline = 64\n", HPM_MACHINE_EDUP,
         "machines/x.machine:5: duplicate key 'line' in [l1d] (first set at line 2)"},
        {"cores = 0\n", HPM_MACHINE_ERANGE,
         "machines/x.machine:1: value 0 for 'cores' in top level out of range (1 .. 1024)"},
        {"cores = 99999999999999999999999\n", HPM_MACHINE_ERANGE,
         "machines/x.machine:1: value 99999999999999999999999 for 'cores' in top level out of "
         "range (1 .. 1024)"},
        {"[l1i]\nline = 48\n", HPM_MACHINE_ERANGE,
         "machines/x.machine:2: value 48 for 'line' in [l1i] is not a power of two"},
        {"[l1d]\nsize = 0\n", HPM_MACHINE_ERANGE,
         "machines/x.machine:2: value 0 for 'size' in [l1d] out of range (1 .. 1099511627776)"},
        {"[l1d]\n# geometry\nsize = 24K\nassoc = 8\n", HPM_MACHINE_EGEOMETRY,
         "machines/x.machine:3: [l1d] size 24576 / line 64 / assoc 8 must give a power-of-two "
         "number of sets"},
        {"[l2]\nsize = 0\n[prefetch]\nstreams = 2\n", HPM_MACHINE_EGEOMETRY,
         "machines/x.machine:4: [prefetch] streams needs an [l2] (its size is 0)"},
        {"[dtlb]\nentries = 48\nassoc = 8\n", HPM_MACHINE_EGEOMETRY,
         "machines/x.machine:2: [dtlb] entries 48 / assoc 8 must give a power-of-two number of "
         "sets"},
        {"[torus]\nx = 2\ny = 2\n", HPM_MACHINE_EGEOMETRY,
         "machines/x.machine:2: [torus] needs x, y and z (nodes per dimension), or none of "
         "them (the job's node count picks the shape)"},
        {"[torus]\nx = 2\ny = 2\nz = 2\nmapping = XYX\n", HPM_MACHINE_EGEOMETRY,
         "machines/x.machine:5: [torus] mapping 'XYX' must order X, Y and Z (XYZ: X varies "
         "fastest), and x*y*z at most 1048576 nodes"},
        {"[torus]\nx = 0\n", HPM_MACHINE_ERANGE,
         "machines/x.machine:2: value 0 for 'x' in [torus] out of range (1 .. 4096)"},
        {"name = a/b\n", HPM_MACHINE_EVALUE,
         "machines/x.machine:1: bad value 'a/b' for 'name' in top level: expected letters, "
         "digits, _ - ."},
        {"[timing]\nl2_latency = 5\nmispredict = x\x01y\n", HPM_MACHINE_EVALUE,
         "machines/x.machine:3: bad value 'x?y' for 'mispredict' in [timing]: expected an "
         "unsigned integer"},
    };
    unsigned i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct hpm_machine m;
        char err[256];
        int rc = parse(&m, cases[i].text, err, sizeof err);
        if (rc != cases[i].code)
            fprintf(stderr, "case %u: rc %d (%s)\n", i, rc, err);
        CHECK_EQ(rc, cases[i].code);
        CHECK_STR(err, cases[i].msg);
    }
    {
        /* short message buffer: truncated, terminated */
        struct hpm_machine m;
        char err[12];
        CHECK_EQ(parse(&m, "corez = 4\n", err, sizeof err), HPM_MACHINE_EKEY);
        CHECK_STR(err, "machines/x.");
        CHECK_EQ(parse(&m, "corez = 4\n", NULL, 0), HPM_MACHINE_EKEY);
    }
    {
        /* not a regular file: an error of its own, not "Success" */
        struct hpm_machine m;
        char err[256];
        CHECK_EQ(hpm_machine_load(&m, "/dev/zero", err, sizeof err), HPM_MACHINE_EIO);
        CHECK_STR(err, "/dev/zero: not a regular file, not a machine file (a text file)");
        CHECK_EQ(hpm_machine_load(&m, "/", err, sizeof err), HPM_MACHINE_EIO);
        CHECK_STR(err, "/: not a regular file, not a machine file (a text file)");
    }
}

static void check_bgp(const struct hpm_machine *m)
{
    CHECK_STR(m->name, "bgp");
    CHECK_EQ(m->hier.cores, 4);
    CHECK_EQ(m->torus.job_shape, 1u); /* its torus takes the job's shape */
    CHECK_EQ(m->torus.packet_bytes, 256u);
    CHECK_EQ(m->frequency_hz, 850000000);
    CHECK_EQ(m->hier.l1d.size, 32768);
    CHECK_EQ(m->hier.l1d.line, 32);
    CHECK_EQ(m->hier.l1i.size, 32768);
    CHECK_EQ(m->hier.l2.shared, 0);
    CHECK_EQ(m->hier.l2.line, 128);
    CHECK_EQ(m->hier.l3.size, 8u << 20);
    CHECK_EQ(m->hier.l3.line, 128);
    CHECK_EQ(m->hier.l3.shared, 1);
    CHECK_EQ(m->hier.coherence, HPM_COH_WTI);
    CHECK(m->hier.prefetch.streams > 0);
    CHECK_STR(m->memory_type, "DDR2");
}

static void check_bgl(const struct hpm_machine *m)
{
    CHECK_STR(m->name, "bgl");
    CHECK_EQ(m->hier.cores, 2);
    CHECK_EQ(m->hier.l1d.size, 32768);
    CHECK_EQ(m->hier.l1d.line, 32);
    CHECK_EQ(m->hier.l2.size, 4u << 20);
    CHECK_EQ(m->hier.l2.line, 128);
    CHECK_EQ(m->hier.l3.size, 0);
    CHECK_EQ(m->dtlb.entries, 64);
    CHECK_EQ(m->dtlb.assoc, 0);
    CHECK_EQ(m->dtlb.page_size, 4096);
}

static void test_bundled(const char *dir)
{
    struct hpm_machine m;
    char err[512], path[1024];
    snprintf(path, sizeof path, "%s/bgp.machine", dir);
    CHECK_EQ(hpm_machine_load(&m, path, err, sizeof err), HPM_MACHINE_OK);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    check_bgp(&m);
    CHECK_EQ(hpm_machine_find(&m, dir, "bgl", err, sizeof err), HPM_MACHINE_OK);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    check_bgl(&m);
    CHECK_EQ(hpm_machine_find(&m, dir, "nosuch", err, sizeof err), HPM_MACHINE_ENOTFOUND);
    CHECK(strstr(err, "no machine 'nosuch'") != NULL);
    CHECK_EQ(hpm_machine_find(&m, dir, "../etc/passwd", err, sizeof err), HPM_MACHINE_ENAME);
    CHECK_EQ(hpm_machine_find(&m, dir, "host", err, sizeof err), HPM_MACHINE_OK);
    CHECK_STR(m.name, "host");
    CHECK_EQ(hpm_hier_params_check(&m.hier), HPM_MODEL_OK);
}

static void put(const char *root, const char *rel, const char *text)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
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

static void test_sysfs(void)
{
    char root[] = "/tmp/hpm_sysfs_XXXXXX";
    char cmd[256];
    struct hpm_machine m;
    int rc;
    static const char *const idx[4][5] = {
        {"1", "Data", "48K", "12", "64"},
        {"1", "Instruction", "32K", "8", "64"},
        {"2", "Unified", "1280K", "10", "64"},      /* 2048 sets */
        {"3", "Unified", "30720K", "20", "64"},     /* 24576 sets -> 16384 */
    };
    unsigned i;
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        failures++;
        return;
    }
    mk(root, "cpu0");
    mk(root, "cpu0/cache");
    put(root, "online", "0-5,8,10-11\n");
    for (i = 0; i < 4; i++) {
        char d[64], f[96];
        snprintf(d, sizeof d, "cpu0/cache/index%u", i);
        mk(root, d);
        snprintf(f, sizeof f, "%s/level", d);
        put(root, f, idx[i][0]);
        snprintf(f, sizeof f, "%s/type", d);
        put(root, f, idx[i][1]);
        snprintf(f, sizeof f, "%s/size", d);
        put(root, f, idx[i][2]);
        snprintf(f, sizeof f, "%s/ways_of_associativity", d);
        put(root, f, idx[i][3]);
        if (i != 1) { /* index1 has no line size: the default (64) stays */
            snprintf(f, sizeof f, "%s/coherency_line_size", d);
            put(root, f, idx[i][4]);
        }
    }
    rc = hpm_machine_from_sysfs(&m, root);
    CHECK_EQ(rc, HPM_MACHINE_OK);
    CHECK_EQ(m.hier.cores, 9);
    CHECK_EQ(m.hier.l1d.size, 48 * 1024);
    CHECK_EQ(m.hier.l1d.assoc, 12);
    CHECK_EQ(m.hier.l1i.size, 32 * 1024);
    CHECK_EQ(m.hier.l1i.line, 64);
    CHECK_EQ(m.hier.l2.size, 1280 * 1024);
    CHECK_EQ(m.hier.l2.assoc, 10);
    CHECK_EQ(m.hier.l3.size, 16384ull * 20 * 64); /* rounded to power-of-two sets */
    CHECK_EQ(m.hier.l3.shared, 1);
    CHECK_EQ(m.hier.coherence, HPM_COH_MESI); /* x86-64 L1Ds */
    CHECK_EQ(hpm_hier_params_check(&m.hier), HPM_MODEL_OK);
    /* an empty root: defaults, and the core count from sysconf */
    rc = hpm_machine_from_sysfs(&m, "/nonexistent-hpm-root");
    CHECK_EQ(rc, HPM_MACHINE_OK);
    CHECK(m.hier.cores >= 1);
    CHECK_EQ(m.hier.l1d.size, 32768);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", root);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "machines";
    test_good();
    test_errors();
    test_torus();
    test_bundled(dir);
    test_sysfs();
    if (failures) {
        fprintf(stderr, "test_machine: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_machine: ok\n");
    return 0;
}
