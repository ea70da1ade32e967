/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the virtual PMU output parser (tools/hpm/report/vpmu_output.c) and
 * of the report's escaping (count_report_*.c): a valid file reads back
 * exactly; every malformed variant gives an error naming the line, never a
 * crash; every truncation of a valid file either fails or keeps only whole
 * records. Runs in the ASan build too.
 *
 *   test_vpmu_output SAMPLE_V2_FILE
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/count_report.h"
#include "report/metrics.h"
#include "hpm_check.h"
#include "report/vpmu_output.h"

static const char header[] = "hpm-vpmu 2\n"
                             "command ./a.out x\n"
                             "pid 7\n"
                             "machine bgp\n"
                             "cores 4\n"
                             "frequency_hz 850000000\n"
                             "level full\n"
                             "models hier bpred tlb timing\n"
                             "upcs 1\n"
                             "exit status 0\n"
                             "threads 2\n";

static int parse_str(const char *s, char *err, size_t errlen)
{
    struct vpmu_output o;
    int rc = vpmu_output_parse(&o, s, strlen(s), err, errlen);
    vpmu_output_free(&o);
    return rc;
}

/* header + extra must fail with a message containing want. */
static void bad(const char *extra, const char *want)
{
    char buf[4096], err[256];
    snprintf(buf, sizeof buf, "%s%s", header, extra);
    if (parse_str(buf, err, sizeof err) == 0) {
        fprintf(stderr, "accepted: %s", extra);
        failures++;
        return;
    }
    if (!strstr(err, want)) {
        fprintf(stderr, "for '%s': error '%s' lacks '%s'\n", extra, err, want);
        failures++;
    }
}

static void good(const char *extra)
{
    char buf[4096], err[256];
    snprintf(buf, sizeof buf, "%s%s", header, extra);
    if (parse_str(buf, err, sizeof err) != 0) {
        fprintf(stderr, "rejected '%s': %s\n", extra, err);
        failures++;
    }
}

/* A whole file (no header added) must fail with want in the message. */
static void bad_file(const char *s, const char *want)
{
    char err[256];
    if (parse_str(s, err, sizeof err) == 0 || !strstr(err, want)) {
        fprintf(stderr, "file '%.40s...': error '%s', wanted '%s'\n", s, err, want);
        failures++;
    }
}

static void test_valid(const char *path)
{
    struct vpmu_output o;
    char err[256];
    const struct vpmu_thread *t;
    size_t i;
    int found = 0;
    CHECK(vpmu_output_load(&o, path, err, sizeof err) == 0);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    CHECK_EQ(o.version, 2);
    CHECK(o.command && strcmp(o.command, "./prog --n 3 \"quoted, arg\"") == 0);
    CHECK_EQ(o.pid, 4242);
    CHECK(strcmp(o.machine, "bgp") == 0);
    CHECK_EQ(o.cores, 4);
    CHECK_EQ(o.frequency_hz, 850000000);
    CHECK(strcmp(o.level, "full") == 0);
    CHECK(strcmp(o.models, "hier bpred tlb timing") == 0);
    CHECK_EQ(o.upcs, 1);
    CHECK_EQ(o.exit_kind, VPMU_EXIT_STATUS);
    CHECK_EQ(o.exit_value, 0);
    CHECK_EQ(o.threads, 2);
    CHECK(o.have_count[0] && o.count[0] == 1000000);    /* PU0_INSTRUCTIONS */
    CHECK(o.have_count[56] && o.count[56] == 500000);   /* PU1_INSTRUCTIONS */
    CHECK(o.have_count[992] && o.count[992] == 800000); /* NODE_CYCLES */
    CHECK(!o.have_count[36]);                           /* PU0_L1I_MISSES: not counted */
    CHECK_EQ(o.n_counts, 15 * 4 + 3);
    t = vpmu_output_thread(&o, 2);
    CHECK(t && t->core == 1 && t->k.have[HPM_K_L1D_MISSES] && t->k.v[HPM_K_L1D_MISSES] == 2500);
    CHECK(t && !t->k.have[HPM_K_L1I_MISSES]);
    CHECK(vpmu_output_thread(&o, 3) == NULL);
    CHECK_EQ(o.n_reg, 3);
    for (i = 0; i < o.n_reg; i++)
        if (strcmp(o.reg[i].name, "main loop") == 0 && o.reg[i].thread == 1) {
            found = 1;
            CHECK(o.reg[i].have_entries && o.reg[i].entries == 3);
            CHECK(o.reg[i].k.v[HPM_K_FP_DP_SCALAR] == 300000);
        }
    CHECK(found);
    CHECK_EQ(o.n_upc, 1);
    CHECK(o.n_upc == 1 && o.upc[0].counters == 256 && o.upc[0].lost_carries == 0);
    vpmu_output_free(&o);
}

/* Every prefix of a valid file: no crash; one that parses holds whole records. */
static void test_truncations(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = malloc(1 << 20), err[256];
    size_t n, len, ok = 0;
    CHECK(f && buf);
    if (!f || !buf) {
        free(buf);
        if (f)
            fclose(f);
        return;
    }
    n = fread(buf, 1, 1 << 20, f);
    fclose(f);
    for (len = 0; len < n; len++) {
        struct vpmu_output o;
        int rc = vpmu_output_parse(&o, buf, len, err, sizeof err);
        if (rc == 0) {
            ok++;
            CHECK(buf[len - 1] == '\n');
            CHECK(o.exit_kind != VPMU_EXIT_NONE && o.have_threads);
        } else {
            CHECK(err[0] != 0);
        }
        vpmu_output_free(&o);
    }
    /* only prefixes ending in a newline after the exit/threads records parse */
    CHECK(ok > 0 && ok < 120);
    free(buf);
}

static void test_malformed(void)
{
    bad_file("", "empty file");
    bad_file("hello\n", "not a virtual PMU output file");
    bad_file("hpm-vpmu 1\n", "format version 1; this hpm reads version 2");
    bad_file("hpm-vpmu two\n", "not a virtual PMU output file");
    bad_file("hpm-vpmu 2", "line 1: truncated");
    bad_file("hpm-vpmu 2\nmachine bgp\ncores 4\nthreads 1\n", "no 'exit' record");
    bad_file("hpm-vpmu 2\nmachine bgp\nexit status 0\nthreads 1\n", "no 'cores' record");
    bad_file("hpm-vpmu 2\ncores 4\nexit status 0\nthreads 1\n", "no 'machine' record");
    bad_file("hpm-vpmu 2\nmachine bgp\ncores 4\nexit status 0\n", "no 'threads' record");
    {
        static const char nul[] = "hpm-vpmu 2\nmachine b\0gp\n";
        struct vpmu_output o;
        char err[128];
        CHECK(vpmu_output_parse(&o, nul, sizeof nul - 1, err, sizeof err) != 0);
        CHECK(strstr(err, "NUL byte") != NULL);
        vpmu_output_free(&o);
    }
    bad("count 0 PU0_INSTRUCTIONS 5", "line 12: truncated");
    bad("count 0 PU0_INSTRUCTIONS 5\ncount 0 PU0_INSTRUCTIONS 6\n", "line 13: second count");
    bad("count 0 PU0_CYCLES 5\n", "is PU0_INSTRUCTIONS here");
    bad("count 4096 PU0_CYCLES 5\n", "event code 4096 is out of range");
    /* a spec (code + 1024 * mode) is named with its mode */
    bad("count 1024 PU0_INSTRUCTIONS 5\n",
        "event code 1024 is PU0_INSTRUCTIONS:level-low here, the tool calls it");
    bad("count 980 PU0_X 5\n", "not in this hpm's catalog");
    /* multiplexed runs (hpm count --multiplex) */
    good("mpx 2 1000 INSTRUCTIONS 9\nmpx_set 0 5 5000 0,2\nmpx_set 1 5 4990 0,1\n");
    bad("mpx 2 1000 INSTRUCTIONS\n", "'mpx' needs SETS PERIOD KIND SWITCHES");
    bad("mpx 0 1000 INSTRUCTIONS 0\n", "at least one set");
    bad("mpx 65 1000 INSTRUCTIONS 0\n", "sets");
    bad("mpx 2 1000 NO_SUCH 0\n", "unknown event kind 'NO_SUCH'");
    bad("mpx 2 1 INSTRUCTIONS 0\nmpx 2 1 INSTRUCTIONS 0\n", "second 'mpx' record");
    bad("mpx_set 0 1 1 0\n", "'mpx_set' before 'mpx'");
    bad("mpx 2 1 INSTRUCTIONS 0\nmpx_set 2 1 1 0\n", "set");
    bad("mpx 2 1 INSTRUCTIONS 0\nmpx_set 0 1 1 0\nmpx_set 0 1 1 0\n", "second 'mpx_set 0'");
    bad("mpx 2 1 INSTRUCTIONS 0\nmpx_set 0 1 1 0,x\n", "a spec is not an event code");
    bad("mpx 2 1 INSTRUCTIONS 0\nmpx_set 0 1 1 4096\n", "a spec is not an event code");
    bad("mpx 2 1 INSTRUCTIONS 0\nmpx_set 0 1 1\n", "'mpx_set' needs");
    bad("count 0 PU0_INSTRUCTIONS -5\n", "count is not an unsigned decimal");
    bad("count 0 PU0_INSTRUCTIONS 18446744073709551616\n", "not an unsigned decimal");
    bad("count 0 PU0_INSTRUCTIONS 5 6\n", "'count' needs");
    bad("count 0\n", "'count' needs");
    bad("thread 0 core 0\n", "serials start at 1");
    bad("thread 1 core 9\n", "thread 1 on core 9, but 'cores 4'");
    bad("thread 3 INSTRUCTIONS 1\n", "thread 3, but 'threads 2'");
    bad("thread 1 core 0\nthread 1 core 1\n", "second core");
    bad("thread 1 NOSUCH 1\n", "unknown event kind 'NOSUCH'");
    bad("thread 1 INSTRUCTIONS 1\nthread 1 instructions 2\n", "second value for INSTRUCTIONS");
    bad("thread 1 INSTRUCTIONS\n", "'thread' needs");
    bad("region thread 1 entries 3\n", "'region' without a name");
    bad("region r thread 1 entries\n", "'region' needs");
    bad("region r thread x entries 1\n", "thread serial is not");
    bad("region r thread 1 entries 1\nregion r thread 1 entries 2\n", "second 'entries'");
    bad("region r thread 9 entries 1\n", "region r on thread 9");
    bad("region r fred 1 entries 1\n", "'region' needs");
    bad("region r thread 1 BOGUS 1\n", "unknown event kind");
    bad("exit status 1\n", "second 'exit'");
    bad("machine bgl\n", "second 'machine'");
    bad("threads 3\n", "second 'threads'");
    bad("hpm-vpmu 2\n", "second 'hpm-vpmu'");
    bad("upc 0 counters 256\n", "'upc' needs");
    bad("upc 1 counters 256 lost_carries 0 parity_errors 0\n", "'upc 1', but 'upcs 1'");
    bad("upc 0 counters 1 lost_carries 0 parity_errors 0\nupc 0 counters 1 lost_carries 0 "
        "parity_errors 0\n",
        "second 'upc 0'");
    bad_file("hpm-vpmu 2\nmachine bgp\ncores 0\n", "cores 0");
    bad_file("hpm-vpmu 2\nmachine bgp\ncores 5000\n", "cores 5000 is out of range");
    bad_file("hpm-vpmu 2\nlevel medium\n", "level must be");
    bad_file("hpm-vpmu 2\nexit sideways\n", "'exit' needs");
    bad_file("hpm-vpmu 2\nexit signal 0\n", "signal 0");
    bad_file("hpm-vpmu 2\nexit signal 300\n", "out of range");
    bad_file("hpm-vpmu 2\npid\n", "'pid' needs one value");
    bad_file("hpm-vpmu 2\nmachine "
             "a_machine_name_that_is_much_longer_than_sixty_three_bytes_which_is_the_limit\n",
             "machine name too long");

    /* accepted variants */
    good("");
    good("future_record 1 2 3\nraw thread 1 instructions 5\nraw total x 1\n");
    good("\n\n");
    good("region a name with spaces thread 1 entries 2\n"
         "region a name with spaces thread 1 INSTRUCTIONS 7\n");
    good("count 0 pu0_instructions 18446744073709551615\n");
    good("thread 1 core 3\nthread 2 core 0\n");
    good("upc 0 counters 256 lost_carries 0 parity_errors 0\n");
    {
        /* CRLF line ends, an unknown signal and a negative exit status */
        struct vpmu_output o;
        char err[128];
        const char *s = "hpm-vpmu 2\r\nmachine bgp\r\ncores 2\r\nexit signal\r\nthreads 1\r\n";
        CHECK(vpmu_output_parse(&o, s, strlen(s), err, sizeof err) == 0);
        CHECK(o.exit_kind == VPMU_EXIT_SIGNAL && o.exit_value == -1);
        vpmu_output_free(&o);
        s = "hpm-vpmu 2\nmachine bgp\ncores 2\nexit status -1\nthreads 1\n";
        CHECK(vpmu_output_parse(&o, s, strlen(s), err, sizeof err) == 0);
        CHECK(o.exit_kind == VPMU_EXIT_STATUS && o.exit_value == -1);
        vpmu_output_free(&o);
        s = "hpm-vpmu 2\nmachine bgp\ncores 2\nexit signal 9\nthreads 1\n";
        CHECK(vpmu_output_parse(&o, s, strlen(s), err, sizeof err) == 0);
        CHECK(o.exit_kind == VPMU_EXIT_SIGNAL && o.exit_value == 9);
        vpmu_output_free(&o);
        /* stopped at a thread's creation with the 64 slots taken */
        s = "hpm-vpmu 2\nmachine bgp\ncores 2\nexit slots 64\nthreads 1\n";
        CHECK(vpmu_output_parse(&o, s, strlen(s), err, sizeof err) == 0);
        CHECK(o.exit_kind == VPMU_EXIT_SLOTS && o.exit_value == 64);
        vpmu_output_free(&o);
    }
    bad_file("hpm-vpmu 2\nexit slots\n", "'slots N'");
    bad_file("hpm-vpmu 2\nexit slots x\n", "slots");
    /* a missing file */
    {
        struct vpmu_output o;
        char err[256];
        CHECK(vpmu_output_load(&o, "/nonexistent/x.out", err, sizeof err) != 0);
        CHECK(strstr(err, "/nonexistent/x.out") != NULL);
        vpmu_output_free(&o);
    }
    /* a tiny error buffer is still terminated */
    {
        char err[8];
        CHECK(parse_str("hello\n", err, sizeof err) != 0);
        CHECK(memchr(err, 0, sizeof err) != NULL);
    }
}

static char *capture(void (*fn)(FILE *, const char *), const char *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fn(f, arg);
    fclose(f);
    return buf;
}

static void expect_capture(void (*fn)(FILE *, const char *), const char *in, const char *want)
{
    char *got = capture(fn, in);
    if (!got || strcmp(got, want) != 0) {
        fprintf(stderr, "escape: got [%s], want [%s]\n", got ? got : "(null)", want);
        failures++;
    }
    free(got);
}

/* A multiplexed run's records are written back as they were read. */
static void test_mpx_round_trip(void)
{
    char buf[4096], err[256], *text = NULL;
    size_t len = 0;
    struct vpmu_output a, b;
    FILE *f = open_memstream(&text, &len);
    snprintf(buf, sizeof buf, "%s%s", header,
             "count 0 PU0_INSTRUCTIONS 9990\ncount 2 PU0_LOADS 70\ncount 3 PU0_STORES 30\n"
             "mpx 2 1000 INSTRUCTIONS 9\nmpx_set 0 5 5000 0,2\nmpx_set 1 5 4990 0,3\n");
    CHECK(vpmu_output_parse(&a, buf, strlen(buf), err, sizeof err) == 0);
    CHECK(a.mpx_sets == 2 && a.mpx_period == 1000 && a.mpx_kind == HPM_K_INSTRUCTIONS);
    CHECK(a.mpx_switches == 9 && a.mpx_correlate[1] == 4990 && a.mpx_intervals[0] == 5);
    CHECK(a.mpx_set_of[0] == VPMU_MPX_EVERY && a.mpx_set_of[2] == 1 && a.mpx_set_of[3] == 2);
    CHECK(f && vpmu_output_write(&a, f) == 0 && fclose(f) == 0);
    CHECK(vpmu_output_parse(&b, text, len, err, sizeof err) == 0);
    CHECK(b.mpx_sets == 2 && b.mpx_correlate[0] == 5000 && b.mpx_set_of[3] == 2 &&
          b.mpx_set_of[0] == VPMU_MPX_EVERY && b.mpx_switches == 9);
    vpmu_output_free(&a);
    vpmu_output_free(&b);
    free(text);
}

/* The cache lines threads shared: the top lines kept in order, summed
 * over processes (the top of both), written back as read. */
static void test_shared_lines(void)
{
    char buf[4096], err[256], *text = NULL;
    size_t len = 0;
    struct vpmu_output a, b, c;
    FILE *f = open_memstream(&text, &len);
    /* --hpm-coherence=time's replay */
    good("interleave 100000 13\ncoherence_time 57847 17786 0\n");
    bad("coherence_time 57847 17786\n", "three values");
    bad("coherence_time 1 2 x\n", "host-timed");
    bad("coherence_time 1 2 3\ncoherence_time 1 2 3\n", "coherence_time");
    good("shared_lines 3 0 2\nshared_line 10c300 32 3998 3999 2 false global shared + 0 (p)\n");
    bad("shared_lines 3 0\n", "three values");
    bad("shared_lines 3 0 4\n", "shared lines written");
    bad("shared_lines 1 0 1\nshared_lines 1 0 1\n", "shared_lines");
    bad("shared_line 10c300 32 1 1 2 false\n", "an object");
    bad("shared_line xyz 32 1 1 2 false stack\n", "address");
    bad("shared_line 10 32 1 1 2 maybe stack\n", "true or false");
    bad("shared_line 10 32 x 1 2 true stack\n", "misses");
    snprintf(buf, sizeof buf, "%s%s", header,
             "shared_lines 20 0 2\nshared_line 40 64 5 6 2 true stack\n"
             "shared_line 80 64 9 9 2 false global a + 8 (p)\n");
    CHECK(vpmu_output_parse(&a, buf, strlen(buf), err, sizeof err) == 0);
    CHECK(a.n_shared == 2 && a.shared[0].addr == 0x80 && a.shared[0].coh_misses == 9);
    CHECK(a.shared[1].true_sharing == 1 && a.shared[0].pid == 7 && a.shared[0].bytes == 64);
    CHECK(strcmp(a.shared[0].object, "global a + 8 (p)") == 0);
    snprintf(buf, sizeof buf, "%s%s", header,
             "shared_lines 1 4 1\nshared_line c0 64 7 1 3 false heap block from f (x.c:3) + 0\n");
    CHECK(vpmu_output_parse(&b, buf, strlen(buf), err, sizeof err) == 0);
    CHECK(vpmu_output_add(&a, &b, err, sizeof err) == 0);
    CHECK(a.shared_lines == 21 && a.shared_dropped == 4 && a.shared_written == 3);
    CHECK(a.n_shared == 3 && a.shared[1].addr == 0xc0 && a.shared[1].writers == 3 &&
          a.shared[2].addr == 0x40);
    CHECK(f && vpmu_output_write(&a, f) == 0 && fclose(f) == 0);
    CHECK(vpmu_output_parse(&c, text, len, err, sizeof err) == 0);
    CHECK(c.shared_lines == 21 && c.n_shared == 3 && c.shared[1].coh_misses == 7 &&
          strcmp(c.shared[1].object, "heap block from f (x.c:3) + 0") == 0);
    vpmu_output_free(&a);
    vpmu_output_free(&b);
    vpmu_output_free(&c);
    free(text);
}

/* The returns the host timed, by system call: summed over processes by
 * name, written back as read; names that are not a call's refused. */
static void test_host_timed(void)
{
    char buf[4096], err[256], *text = NULL;
    size_t len = 0;
    unsigned i;
    struct vpmu_output a, b, c;
    FILE *f = open_memstream(&text, &len);
    good("interleave 100000 13 7\nhost_timed read 5\nhost_timed wait 2\n");
    bad("host_timed read\n", "a system call and a count");
    bad("host_timed Read 1\n", "not a system call's name");
    bad("host_timed read;rm 1\n", "not a system call's name");
    bad("host_timed read x\n", "host_timed count");
    snprintf(buf, sizeof buf, "%s%s", header, "host_timed read 5\nhost_timed poll 3\n");
    CHECK(vpmu_output_parse(&a, buf, strlen(buf), err, sizeof err) == 0);
    CHECK(a.n_host_timed == 2 && strcmp(a.host_timed[0].call, "read") == 0 &&
          a.host_timed[0].n == 5 && a.host_timed[1].n == 3);
    snprintf(buf, sizeof buf, "%s%s", header, "host_timed poll 4\nhost_timed wait 1\n");
    CHECK(vpmu_output_parse(&b, buf, strlen(buf), err, sizeof err) == 0);
    CHECK(vpmu_output_add(&a, &b, err, sizeof err) == 0);
    CHECK(a.n_host_timed == 3 && a.host_timed[1].n == 7 && strcmp(a.host_timed[2].call, "wait") == 0);
    vpmu_output_free(&b);
    /* past the table: the rest go to "other" */
    for (i = 0; i < 2 * VPMU_OUTPUT_HOST_CALLS; i++) {
        snprintf(buf, sizeof buf, "%shost_timed call_%u 1\n", header, i);
        CHECK(vpmu_output_parse(&b, buf, strlen(buf), err, sizeof err) == 0);
        CHECK(vpmu_output_add(&a, &b, err, sizeof err) == 0);
        vpmu_output_free(&b);
    }
    /* an "other" of another tree goes to the same entry */
    snprintf(buf, sizeof buf, "%shost_timed other 3\n", header);
    CHECK(vpmu_output_parse(&b, buf, strlen(buf), err, sizeof err) == 0);
    CHECK(vpmu_output_add(&a, &b, err, sizeof err) == 0);
    vpmu_output_free(&b);
    CHECK(a.n_host_timed == VPMU_OUTPUT_HOST_CALLS);
    {
        uint64_t sum = 0;
        for (i = 0; i < a.n_host_timed; i++)
            sum += a.host_timed[i].n;
        CHECK(sum == 5 + 7 + 1 + 2 * VPMU_OUTPUT_HOST_CALLS + 3);
        /* "other": call_12 (the last entry, renamed) on, and the 3 */
        CHECK(a.host_timed[VPMU_OUTPUT_HOST_CALLS - 1].n == VPMU_OUTPUT_HOST_CALLS + 4 + 3);
        CHECK(strcmp(a.host_timed[VPMU_OUTPUT_HOST_CALLS - 1].call, "other") == 0);
    }
    CHECK(f && vpmu_output_write(&a, f) == 0 && fclose(f) == 0);
    CHECK(vpmu_output_parse(&c, text, len, err, sizeof err) == 0);
    CHECK(c.n_host_timed == a.n_host_timed && c.host_timed[1].n == 7 &&
          strcmp(c.host_timed[0].call, "read") == 0);
    vpmu_output_free(&a);
    vpmu_output_free(&c);
    free(text);
}

static void test_escaping(void)
{
    expect_capture(count_csv_field, "plain", "plain");
    expect_capture(count_csv_field, "a,b", "\"a,b\"");
    expect_capture(count_csv_field, "say \"hi\"", "\"say \"\"hi\"\"\"");
    expect_capture(count_csv_field, "two\nlines", "\"two\nlines\"");
}

/* The three reports of the sample render without error, and the JSON and
 * CSV carry the same event total. */
static void test_reports(const char *path)
{
    struct vpmu_output o;
    struct count_row rows[256];
    struct count_report r;
    char err[256], *buf = NULL;
    size_t len = 0;
    FILE *f;
    if (vpmu_output_load(&o, path, err, sizeof err) != 0) {
        CHECK(0);
        return;
    }
    memset(&r, 0, sizeof r);
    r.out = &o;
    r.rows = rows;
    r.n_rows = count_rows_from_output(&o, rows, 256);
    CHECK_EQ(r.n_rows, 18);
    r.per_core = r.per_thread = 1;
    f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (f) {
        CHECK(count_report_text(f, &r) == 0);
        CHECK(count_report_json(f, &r) == 0);
        CHECK(count_report_csv(f, &r) == 0);
        fclose(f);
        CHECK(strstr(buf, "\"count\":1500000") != NULL);
        CHECK(strstr(buf, "event,INSTRUCTIONS,,,,,1500000,modeled") != NULL);
        CHECK(strstr(buf, "\"name\":\"ipc\",\"label\":\"IPC\",\"formula\":"
                          "\"INSTRUCTIONS / CYCLES\",\"source\":\"modeled\",\"value\":1.25") !=
              NULL);
        /* no L1I counts: no L1I miss ratio */
        CHECK(strstr(buf, "l1i_miss_ratio") == NULL);
    }
    free(buf);
    vpmu_output_free(&o);
}

/* The records of a process tree: exec segments, ppid, forks, UPC writes. */
static void test_tree_records(void)
{
    good("ppid 1\nforks 3\nupc_writes 2\n");
    bad("ppid 1\nppid 2\n", "ppid");
    bad("forks x\n", "forks");
    /* --hpm-interleave's turns */
    good("interleave 1000 1813\n");
    bad("interleave 1000\n", "interleave");
    bad("interleave 0 5\n", "interleave 0");
    bad("interleave 1000 x\n", "interleave switches");
    bad("interleave 1000 2\ninterleave 1000 2\n", "interleave");
    bad_file("hpm-vpmu 2\nmachine bgp\ncores 4\nexit exec now\nthreads 1\n", "'exec'");
}

static void write_file(const char *dir, const char *name, const char *body)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(body, f);
        fclose(f);
    }
}

static const char *proc_file(char *buf, size_t len, unsigned pid, unsigned ppid, const char *cmd,
                             const char *exit, uint64_t insns, uint64_t forks)
{
    snprintf(buf, len,
             "hpm-vpmu 2\ncommand %s\npid %u\nppid %u\nmachine bgp\ncores 4\nupcs 1\n"
             "exit %s\nforks %llu\nthreads 1\nthread 1 core 0\nthread 1 INSTRUCTIONS %llu\n"
             "count 0 PU0_INSTRUCTIONS %llu\nupc 0 counters 256 lost_carries 1 parity_errors 0\n",
             cmd, pid, ppid, exit, (unsigned long long)forks, (unsigned long long)insns,
             (unsigned long long)insns);
    return buf;
}

/* A folder as the tool leaves it: the program (pid 10) exec'd twice and
 * started pid 12, which was killed after an exec (no final file); a stray
 * file that is not the tool's is ignored. */
static void test_tree_load(void)
{
    char dir[] = "/tmp/hpm-test-tree.XXXXXX", b[1024], err[256], path[600];
    struct count_tree t;
    struct vpmu_output total;
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    write_file(dir, "vpmu.10.out.exec1", proc_file(b, sizeof b, 10, 1, "sh w.sh", "exec", 100, 1));
    write_file(dir, "vpmu.10.out.exec2", proc_file(b, sizeof b, 10, 1, "env x", "exec", 20, 0));
    write_file(dir, "vpmu.10.out", proc_file(b, sizeof b, 10, 1, "x", "status 4", 3, 0));
    write_file(dir, "vpmu.12.out.exec1", proc_file(b, sizeof b, 12, 10, "sh w.sh", "exec", 7, 0));
    write_file(dir, "vpmu.9x.out", "not the tool's");

    CHECK_EQ(count_tree_load(&t, dir, 10, 1, NULL, 0, err, sizeof err), 0);
    CHECK_EQ(t.n, 2);
    if (t.n == 2) {
        CHECK_EQ(t.procs[0].pid, 10);
        CHECK_EQ(t.procs[0].n_commands, 3);
        CHECK(strcmp(t.procs[0].commands[0], "sh w.sh") == 0);
        CHECK(strcmp(t.procs[0].commands[2], "x") == 0);
        CHECK(t.procs[0].complete);
        CHECK_EQ(t.procs[0].out.count[0], 123);
        CHECK_EQ(t.procs[0].out.exit_kind, VPMU_EXIT_STATUS);
        CHECK_EQ(t.procs[0].out.exit_value, 4);
        CHECK_EQ(t.procs[0].out.threads, 3);
        CHECK_EQ(t.procs[0].out.forks, 1);
        CHECK_EQ(t.procs[1].pid, 12);
        CHECK_EQ(t.procs[1].ppid, 10);
        CHECK(!t.procs[1].complete);
        CHECK_EQ(count_tree_execs(&t), 3);
        CHECK_EQ(count_tree_total(&t, &total, err, sizeof err), 0);
        CHECK_EQ(total.count[0], 130);
        CHECK_EQ(total.threads, 4);
        CHECK_EQ(total.exit_value, 4);
        CHECK(total.command && strcmp(total.command, "x") == 0);
        CHECK(total.n_upc == 1 && total.upc[0].lost_carries == 4);
        CHECK(vpmu_output_thread(&total, 4) && vpmu_output_thread(&total, 4)->k.v[HPM_K_INSTRUCTIONS] == 7);
        vpmu_output_free(&total);
    }
    count_tree_free(&t);
    /* orphans hpm reaped killed by a signal: 12 (segments, no final file)
     * and 15 (no file at all) are killed; 10 wrote its final counts */
    {
        static struct hpm_live v15;
        const struct runner_killed k[] = {{12, 9, NULL}, {15, 9, &v15}, {10, 15, NULL}};
        CHECK_EQ(count_tree_load(&t, dir, 10, 1, k, 3, err, sizeof err), 0);
        CHECK_EQ(t.n, 3);
        CHECK_EQ(t.killed, 2);
        if (t.n == 3) {
            CHECK_EQ(t.procs[0].killed_signal, 0);
            CHECK(t.procs[1].pid == 12 && t.procs[1].killed_signal == 9 &&
                  t.procs[1].n_commands == 1);
            CHECK(t.procs[2].pid == 15 && t.procs[2].killed_signal == 9);
            /* no parent known, no counts, no command */
            CHECK(t.procs[2].ppid == 0 && t.procs[2].n_commands == 0 &&
                  t.procs[2].out.count[0] == 0 && t.procs[2].view == NULL);
            CHECK_EQ(count_proc_execs(&t.procs[2]), 0);
            /* the view hpm took when it reaped 15 gives its command and
             * parent, and stays out of its counts */
            v15.pid = 15;
            v15.ppid = 12;
            v15.n_events = 1;
            v15.codes[0] = 0;
            v15.values[0] = 777;
            snprintf(v15.command, sizeof v15.command, "w --x");
            CHECK(count_tree_take_views(&t, 0, k, 3) >= 1);
            CHECK(t.procs[2].view && t.procs[2].view->values[0] == 777);
            CHECK(t.procs[2].ppid == 12 && t.procs[2].n_commands == 1 &&
                  strcmp(t.procs[2].commands[0], "w --x") == 0);
            CHECK(t.procs[2].command_from_view && count_proc_execs(&t.procs[2]) == 0);
            CHECK_EQ(t.procs[2].out.count[0], 0);
        }
        count_tree_free(&t);
    }
    /* 12 killed in an exec: its view says EXEC (the tool publishes that
     * before it writes the segment). Where the segment of that image was
     * written (its command last), the view is not taken: the segment holds
     * the counts; where it was not (another image's command), it is. */
    {
        static struct hpm_live v12;
        const struct runner_killed k[] = {{12, 9, &v12}};
        unsigned round;
        for (round = 0; round < 2; round++) {
            memset(&v12, 0, sizeof v12);
            v12.pid = 12;
            v12.state = HPM_LIVE_EXEC;
            v12.n_events = 1;
            v12.values[0] = 55;
            snprintf(v12.command, sizeof v12.command, "%s", round ? "env x" : "sh w.sh");
            CHECK_EQ(count_tree_load(&t, dir, 10, 1, k, 1, err, sizeof err), 0);
            CHECK(t.n == 2 && t.procs[1].pid == 12 && t.procs[1].killed_signal == 9);
            if (t.n == 2) {
                CHECK_EQ(count_tree_take_views(&t, 0, k, 1), round);
                CHECK_EQ(t.procs[1].n_commands, 1 + round);
                CHECK((t.procs[1].view != NULL) == (round == 1));
                CHECK(strcmp(t.procs[1].commands[t.procs[1].n_commands - 1],
                             round ? "env x" : "sh w.sh") == 0);
            }
            count_tree_free(&t);
        }
    }
    /* the program alone */
    CHECK_EQ(count_tree_load(&t, dir, 10, 0, NULL, 0, err, sizeof err), 0);
    CHECK(t.n == 1 && t.skipped == 1);
    count_tree_free(&t);
    /* no file of the program: 1, no message needed */
    CHECK_EQ(count_tree_load(&t, dir, 11, 1, NULL, 0, err, sizeof err), 1);
    /* a segment that says it is a final file is refused */
    write_file(dir, "vpmu.12.out.exec2", proc_file(b, sizeof b, 12, 10, "y", "status 0", 1, 0));
    CHECK_EQ(count_tree_load(&t, dir, 10, 1, NULL, 0, err, sizeof err), -1);
    CHECK(strstr(err, "exec segment") != NULL);
    /* a different machine cannot be summed */
    write_file(dir, "vpmu.12.out.exec2",
               "hpm-vpmu 2\nmachine bgl\ncores 2\nexit exec\nthreads 1\n");
    CHECK_EQ(count_tree_load(&t, dir, 10, 1, NULL, 0, err, sizeof err), -1);
    CHECK(strstr(err, "cannot be added") != NULL);
    {
        static const char *const names[] = {"vpmu.10.out.exec1", "vpmu.10.out.exec2",
                                            "vpmu.10.out", "vpmu.12.out.exec1",
                                            "vpmu.12.out.exec2", "vpmu.9x.out"};
        unsigned i;
        for (i = 0; i < sizeof names / sizeof names[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            unlink(path);
        }
        rmdir(dir);
    }
}

/* Every row of the metrics table compiles, names only catalog kinds or
 * FREQUENCY_HZ, and has a key and a label (a typo in a formula fails here). */
static void test_metrics_table(void)
{
    unsigned i, j;
    CHECK(hpm_n_metrics > 0);
    for (i = 0; i < hpm_n_metrics; i++) {
        struct hpm_formula f;
        char err[128];
        if (hpm_metric_compile(i, &f, err, sizeof err) != 0) {
            fprintf(stderr, "metric %s: %s: %s\n", hpm_metrics[i].key, hpm_metrics[i].formula,
                    err);
            failures++;
        }
        CHECK(hpm_metrics[i].key[0] && hpm_metrics[i].label[0]);
        for (j = 0; j < i; j++)
            CHECK(strcmp(hpm_metrics[i].key, hpm_metrics[j].key) != 0);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_vpmu_output SAMPLE_V2_FILE\n");
        return 2;
    }
    test_valid(argv[1]);
    test_truncations(argv[1]);
    test_malformed();
    test_escaping();
    test_mpx_round_trip();
    test_shared_lines();
    test_host_timed();
    test_reports(argv[1]);
    test_tree_records();
    test_tree_load();
    test_metrics_table();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("vpmu_output: ok\n");
    return 0;
}
