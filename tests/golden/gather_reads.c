/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gather_reads.c - a program that reads its own counts often, for
 * gather_equiv.sh: PAPI_read, PAPI_accum, PAPI_reset and PAPI_start and
 * PAPI_stop of modeled and exact events between short stretches of work
 * (a strided sum over a table larger than the L1, branches that depend on
 * it), and with an argument of 2 the same in a second thread at once (its
 * own set, the reads interleaved by the scheduler's turns). Every value read
 * is printed at the end: two runs that differ only in how the tool feeds its
 * UPCs at these reads must print the same. Then the same with an overflow
 * armed on the cycles (a modeled kind, which the tool's overflow check reads
 * as a program's read does): each handler call's address and count are
 * printed too.
 *
 *   gather_reads [THREADS]   (1 or 2; 1 by default)
 */
#include <papi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 300
#define TABLE (64 * 1024)

static const char *const names[] = {"PAPI_TOT_INS", "PAPI_L1_DCM", "PAPI_TOT_CYC",
                                    "PAPI_BR_MSP",  "PAPI_L2_TCM", "PAPI_LD_INS"};
#define NEV (int)(sizeof names / sizeof names[0])

static unsigned work(unsigned *t, unsigned seed, int n)
{
    unsigned s = 0;
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        unsigned k = (seed >> 8) % TABLE;
        if (t[k] & 1)
            s += t[k];
        else
            t[k] += s;
    }
    return s;
}

/* The values read, printed after the threads joined: a write while both
 * run would be a blocking call whose return the host times. */
#define RECORDS (5 * ROUNDS)
struct record {
    const char *what;
    int round;
    long long v[NEV];
};
static struct record records[2][RECORDS];
static int n_records[2];

static void note_values(int id, const char *what, int round, const long long *v)
{
    struct record *r = &records[id][n_records[id]++];
    r->what = what;
    r->round = round;
    for (int i = 0; i < NEV; i++)
        r->v[i] = v[i];
}

static void print_values(int id)
{
    for (int k = 0; k < n_records[id]; k++) {
        printf("%d %s %d", id, records[id][k].what, records[id][k].round);
        for (int i = 0; i < NEV; i++)
            printf(" %lld", records[id][k].v[i]);
        printf("\n");
    }
}

static unsigned sinks[2];

/* The overflow phase: every handler call's address, per thread. */
#define OVF_MAX 4096
static unsigned long ovf_at[2][OVF_MAX];
static long long ovf_vec[2][OVF_MAX];
static int n_ovf[2];
static __thread int ovf_id;

static void on_overflow(int set, void *address, long long vector, void *context)
{
    (void)set;
    (void)context;
    if (n_ovf[ovf_id] < OVF_MAX) {
        ovf_at[ovf_id][n_ovf[ovf_id]] = (unsigned long)address;
        ovf_vec[ovf_id][n_ovf[ovf_id]] = vector;
    }
    n_ovf[ovf_id]++;
}

/* Reads of a set whose cycles have an overflow armed, between stretches of
 * work: the tool checks the cycles every few superblocks. */
static unsigned overflow_phase(int id, unsigned *t)
{
    int set = PAPI_NULL, i;
    long long v[NEV];
    unsigned sink = 0;
    ovf_id = id;
    if (PAPI_create_eventset(&set) != PAPI_OK) exit(2);
    for (i = 0; i < NEV; i++)
        if (PAPI_add_named_event(set, names[i]) != PAPI_OK) exit(2);
    if (PAPI_overflow(set, PAPI_TOT_CYC, 20011, 0, on_overflow) != PAPI_OK) {
        fprintf(stderr, "gather_reads: cannot arm an overflow on PAPI_TOT_CYC\n");
        exit(2);
    }
    if (PAPI_start(set) != PAPI_OK) exit(2);
    for (int r = 0; r < ROUNDS / 3; r++) {
        sink += work(t, (unsigned)r * 5u + (unsigned)id, 300 + r % 11);
        if (PAPI_read(set, v) != PAPI_OK) exit(2);
        note_values(id, "ovf_read", r, v);
    }
    if (PAPI_stop(set, v) != PAPI_OK) exit(2);
    note_values(id, "ovf_end", ROUNDS, v);
    if (PAPI_cleanup_eventset(set) != PAPI_OK || PAPI_destroy_eventset(&set) != PAPI_OK) exit(2);
    return sink;
}

static void *run(void *arg)
{
    int id = (int)(long)arg, set = PAPI_NULL, i;
    unsigned *t = calloc(TABLE, sizeof *t), sink = 0;
    long long v[NEV], acc[NEV] = {0};
    if (!t || PAPI_create_eventset(&set) != PAPI_OK) exit(2);
    for (i = 0; i < NEV; i++)
        if (PAPI_add_named_event(set, names[i]) != PAPI_OK) {
            fprintf(stderr, "gather_reads: cannot add %s\n", names[i]);
            exit(2);
        }
    if (PAPI_start(set) != PAPI_OK) exit(2);
    for (int r = 0; r < ROUNDS; r++) {
        sink += work(t, (unsigned)r * 7u + (unsigned)id, 200 + r % 17);
        if (PAPI_read(set, v) != PAPI_OK) exit(2);
        note_values(id, "read", r, v);
        sink += work(t, (unsigned)r * 13u + (unsigned)id, 50);
        if (PAPI_accum(set, acc) != PAPI_OK) exit(2);
        note_values(id, "accum", r, acc);
        if (r % 5 == 0) {
            if (PAPI_stop(set, v) != PAPI_OK) exit(2);
            note_values(id, "stop", r, v);
            sink += work(t, (unsigned)r, 30); /* not counted */
            if (PAPI_start(set) != PAPI_OK) exit(2);
        }
        if (r % 7 == 0 && PAPI_reset(set) != PAPI_OK) exit(2);
    }
    if (PAPI_stop(set, v) != PAPI_OK) exit(2);
    note_values(id, "end", ROUNDS, v);
    sink += overflow_phase(id, t);
    sinks[id] = sink;
    free(t);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    pthread_t th;
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_thread_init(pthread_self) != PAPI_OK)
        return 2;
    if (threads > 1 && pthread_create(&th, NULL, run, (void *)1L) != 0) return 2;
    run((void *)0L);
    if (threads > 1) pthread_join(th, NULL);
    for (int id = 0; id < threads && id < 2; id++) {
        print_values(id);
        printf("%d sink %u\n", id, sinks[id]);
        printf("%d overflows %d\n", id, n_ovf[id]);
        for (int k = 0; k < n_ovf[id] && k < OVF_MAX; k++)
            printf("%d overflow %d at %#lx vector %#llx\n", id, k, ovf_at[id][k], ovf_vec[id][k]);
    }
    fflush(stdout);
    return 0;
}
