/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the JSON report's reader (tools/hpm/report/count_report_read.c):
 * a report written, read and written again is the same bytes. Every file
 * given (the golden reports of tests/count and tests/golden, written by
 * hpm) must read and write back byte for byte; reports built here cover
 * what no golden file has (perf_event's counts, a process tree, a rank of
 * an MPI job, the host's rusage, notes). Corrupt reports are refused with
 * the member named. Runs in the ASan build too.
 *
 *   test_report_read REPORT.json...   (what follows a report's closing "}"
 *                                       line is not read)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/count_report.h"
#include "report/count_report_read.h"
#include "hpm_check.h"
#include "report/mpi_job.h"

static char *written(const struct count_report *r, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    CHECK(f != NULL);
    if (!f)
        return NULL;
    CHECK(count_report_json(f, r) == 0);
    fclose(f);
    return buf;
}

/* Whether the text has a byte that was not UTF-8 (a Latin-1 escape): it
 * reads back as the character, in UTF-8. */
static int has_latin1(const char *text, size_t len)
{
    for (size_t i = 0; i + 6 <= len; i++)
        if (text[i] == '\\' && text[i + 1] == 'u' && text[i + 2] == '0' && text[i + 3] == '0' &&
            strchr("89abcdef", text[i + 4]))
            return 1;
    return 0;
}

/* text read and written again: the same bytes (with a byte that was not
 * UTF-8, the second writing the same as the first). */
static void round_trip(const char *name, const char *text, size_t len)
{
    struct count_report_doc d;
    char err[512], *again;
    size_t n = 0;
    if (count_report_read(&d, text, len, err, sizeof err) != 0) {
        fprintf(stderr, "%s: not read: %s\n", name, err);
        failures++;
        count_report_doc_free(&d);
        return;
    }
    again = written(&d.r, &n);
    count_report_doc_free(&d);
    if (again && has_latin1(text, len)) {
        round_trip(name, again, n);
        free(again);
        return;
    }
    if (again && (n != len || memcmp(again, text, len) != 0)) {
        size_t i = 0;
        while (i < n && i < len && again[i] == text[i])
            i++;
        fprintf(stderr, "%s: written again differs at byte %zu:\n  was: %.80s\n  now: %.80s\n",
                name, i, text + i, again + i);
        failures++;
    }
    free(again);
}

/* A report written here, read, written: the same bytes. */
static void write_read_write(const char *name, const struct count_report *r)
{
    size_t len = 0;
    char *text = written(r, &len);
    if (text)
        round_trip(name, text, len);
    free(text);
}

static void modeled(struct vpmu_output *o, struct count_row *rows)
{
    static const char *const kinds[] = {"INSTRUCTIONS", "CYCLES", "SYSCALLS"};
    memset(o, 0, sizeof *o);
    snprintf(o->machine, sizeof o->machine, "bgp");
    o->cores = 2;
    o->frequency_hz = 850000000;
    snprintf(o->level, sizeof o->level, "full");
    snprintf(o->models, sizeof o->models, "hier");
    o->upcs = 1;
    o->threads = 1;
    o->command = "./prog \"a b\"";
    for (unsigned i = 0; i < 3; i++) {
        struct count_row *row = &rows[i];
        memset(row, 0, sizeof *row);
        row->kind = (unsigned)hpm_catalog_kind_by_name(kinds[i], strlen(kinds[i]));
        snprintf(row->name, sizeof row->name, "%s", kinds[i]);
        row->core = -1;
        for (int c = 0; c < 2; c++) {
            int code = hpm_catalog_code(row->kind, c);
            row->codes[row->n_codes++] = code;
            o->have_count[code] = 1;
            o->count[code] = 1000u * (i + 1) + (unsigned)c * 7u;
        }
    }
}

/* Everything of a modeled report that the golden files lack. */
static void full_modeled(void)
{
    static struct vpmu_output o;
    static struct count_proc procs[2];
    struct count_row rows[3];
    char *argv[] = {"./prog", "a b", "caf\xc3\xa9", "tab\there"};
    char *cmds0[] = {"./sh", "./prog"}, *cmds1[] = {"./child"};
    struct mpi_rank_env rank = {.rank = 2, .size = 4, .job = "j7", .host = "node1"};
    struct vpmu_thread thr = {.serial = 1, .core = 0};
    struct vpmu_upc upc = {.upc = 0, .counters = 3};
    struct count_report r;
    modeled(&o, rows);
    thr.k.have[rows[0].kind] = 1;
    thr.k.v[rows[0].kind] = 1000;
    o.thr = &thr;
    o.n_thr = 1;
    o.upc = &upc;
    o.n_upc = 1;
    memset(procs, 0, sizeof procs);
    procs[0] = (struct count_proc){.pid = 10, .commands = cmds0, .n_commands = 2, .complete = 1};
    procs[0].out.exit_kind = VPMU_EXIT_STATUS;
    procs[0].out.exit_value = 3;
    procs[0].out.threads = 1;
    procs[0].out.count[rows[0].codes[0]] = 555;
    procs[1] = (struct count_proc){.pid = 11, .ppid = 10, .commands = cmds1, .n_commands = 1,
                                   .killed_signal = 9};
    memset(&r, 0, sizeof r);
    r.argv = argv;
    r.argc = 4;
    r.machine_source = "machines/bgp.machine";
    r.machine_hash = "0123abcd";
    r.pmu = "no PMU: perf_event_paranoid";
    r.rows = rows;
    r.n_rows = 3;
    r.out = &o;
    r.have_rusage = 1;
    r.ru.ru_utime.tv_sec = 12;
    r.ru.ru_utime.tv_usec = 345678;
    r.ru.ru_stime.tv_usec = 1;
    r.ru.ru_minflt = 100;
    r.ru.ru_nivcsw = 7;
    r.notes[r.n_notes++] = "a note";
    r.notes[r.n_notes++] = "another, \"quoted\"";
    r.procs = procs;
    r.n_procs = 2;
    r.exit_status = 3;
    r.exit_code = 3;
    r.rank = &rank;
    write_read_write("modeled", &r);
    r.exit_signal = 11;
    r.exit_code = 139;
    r.have_rusage = 0;
    r.argv = NULL;
    write_read_write("modeled, killed", &r);
}

static void measured(void)
{
    struct count_measured m[2] = {
        {.name = "INSTRUCTIONS", .perf_name = "perf::INSTRUCTIONS", .kind = 0, .units = "",
         .description = "instructions", .value = 123456789},
        {.name = "perf::TASK-CLOCK", .perf_name = "perf::TASK-CLOCK", .kind = -1, .units = "ns",
         .description = "task clock", .value = 42},
    };
    static struct vpmu_output o;
    char *argv[] = {"/bin/true"};
    struct count_report r;
    memset(&o, 0, sizeof o);
    memset(&r, 0, sizeof r);
    m[0].kind = hpm_catalog_kind_by_name("INSTRUCTIONS", 12);
    r.argv = argv;
    r.argc = 1;
    r.out = &o;
    r.measured = m;
    r.n_measured = 2;
    r.perf_source = "Linux perf_event (libpfm4)";
    r.inherited = 1;
    r.hw_pmu = 1;
    r.pmu = "perf_event: cpu";
    write_read_write("measured", &r);
}

/* text must be refused with a message containing want. */
static void refused(const char *text, const char *want)
{
    struct count_report_doc d;
    char err[512];
    if (count_report_read(&d, text, strlen(text), err, sizeof err) == 0) {
        fprintf(stderr, "accepted: %s\n", text);
        failures++;
    } else if (!strstr(err, want)) {
        fprintf(stderr, "for %s: error '%s' lacks '%s'\n", text, err, want);
        failures++;
    }
    count_report_doc_free(&d);
}

static void corrupt(void)
{
    refused("{\"exit\":{\"status\":0},\"events\":[{\"name\":\"LOADS\",\"count\":-4}]}",
            "event LOADS: -4 is not a count");
    refused("{\"exit\":{\"status\":0},\"events\":[{\"name\":\"LOADS\",\"count\":\"4\"}]}",
            "event LOADS: \"4\" is not a count");
    refused("{\"exit\":{\"status\":0},\"events\":[{\"name\":\"LOADS\"}]}",
            "event LOADS has no count");
    refused("{\"exit\":{\"status\":0},\"events\":[],\"regions\":[{\"name\":\"r\","
            "\"counts\":{\"LOADS\":1.5}}]}",
            "region r, event LOADS: 1.5 is not a count");
    refused("{\"machine\":{\"name\":\"bgp\",\"cores\":1},\"exit\":{\"status\":0},"
            "\"events\":[{\"name\":\"INSTRUCTIONS\",\"codes\":[{\"code\":56,\"count\":1}]}]}",
            "code 56 is no event of a 1-core machine");
    refused("{\"exit\":{\"status\":0},\"mpi_rank\":{\"rank\":4,\"size\":4}}",
            "\"rank\" must be an integer in [0, 3]");
    refused("{\"exit\":{\"status\":0},\"exit\":{\"status\":1}}", "line 1");
    refused("[1]", "not a JSON object");
}

/* What a hand-written report gives: counts without codes, codes without counts. */
static void hand_written(void)
{
    static const char a[] =
        "{\"machine\":{\"name\":\"bgp\",\"cores\":2},\"exit\":{\"status\":0},\"events\":["
        "{\"name\":\"LOADS\",\"source\":\"modeled\",\"count\":40},"
        "{\"name\":\"INSTRUCTIONS\",\"codes\":[{\"code\":0,\"count\":5},{\"code\":56,\"count\":6}]},"
        "{\"name\":\"HOST\",\"source\":\"measured\",\"count\":9}]}";
    struct count_report_doc d;
    char err[256];
    const struct count_read_event *e;
    CHECK(count_report_read(&d, a, strlen(a), err, sizeof err) == 0);
    CHECK(d.have_machine && d.have_events);
    CHECK((e = count_report_doc_event(&d, "loads")) && e->count == 40 && !e->have_codes);
    CHECK((e = count_report_doc_event(&d, "INSTRUCTIONS")) && e->count == 11 && e->have_codes);
    CHECK((e = count_report_doc_event(&d, "HOST")) && e->measured && e->count == 9);
    CHECK(count_report_doc_event(&d, "CYCLES") == NULL);
    count_report_doc_free(&d);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        char *text = NULL;
        size_t len = 0, cap = 0, n;
        char buf[65536];
        CHECK(f != NULL);
        if (!f)
            continue;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
            if (len + n > cap && !(text = realloc(text, cap = 2 * (len + n))))
                return 2;
            memcpy(text + len, buf, n);
            len += n;
        }
        fclose(f);
        /* a golden report of tests/count is followed by hpm's exit status
         * and its messages: the report ends at its closing line */
        for (size_t j = 0; j + 3 <= len; j++)
            if (memcmp(text + j, "\n}\n", 3) == 0) {
                len = j + 3;
                break;
            }
        round_trip(argv[i], text, len);
        free(text);
    }
    full_modeled();
    measured();
    hand_written();
    corrupt();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf("ok: %d reports written, read and written again, byte for byte\n", argc - 1 + 4);
    return failures != 0;
}
