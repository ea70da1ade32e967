/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpapi on the virtual PMU (run under `hpm run --`): presets must count
 * known asm loops exactly.
 *
 * Each measurement is start; loop of n iterations; stop. The library's own
 * instructions between start and stop are the same for every n, so the
 * difference between n = N2 and n = N1 isolates the loop:
 *   loop body = ADDPD, DEC, JNZ  -> 3 instructions, 1 FP instruction,
 *                                   2 FP operations (two double lanes),
 *                                   1 conditional branch
 * PAPI_BR_PRC is derived (BR_CN - BR_MSP) and must equal that difference
 * of the values read in the same set.
 *
 * Without the virtual PMU (sim disabled) the test reports itself skipped
 * (exit 77).
 */
#include <stdio.h>
#include <stdlib.h>

#include "papi.h"

static int failures;
#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
        }                                                                   \
    } while (0)

static double acc;

/* n >= 1 iterations of ADDPD; DEC; JNZ */
__attribute__((noinline)) static void loop(unsigned long n)
{
    double one = 1.0;
    __asm__ volatile("1: addpd %2, %0\n\t"
                     "dec %1\n\t"
                     "jnz 1b"
                     : "+x"(acc), "+r"(n)
                     : "x"(one)
                     : "cc");
}

static void overflow_never(int set, void *pc, long long ovf, void *ctx)
{
    (void)set, (void)pc, (void)ovf, (void)ctx;
    failures++; /* a threshold of 10^9 loads is never reached here */
}

/* start; read 0; n1 iterations; read 1; n1; read 2; n2; read 3; stop:
 * read k's nev values at r[k * nev] */
static void reads_around_loops(int set, long long *r, int nev, unsigned long n1,
                               unsigned long n2)
{
    const unsigned long n[3] = {n1, n1, n2};
    EXPECT(PAPI_start(set) == PAPI_OK, "start");
    for (int k = 0; k < 4; k++) {
        if (k > 0)
            loop(n[k - 1]);
        EXPECT(PAPI_read(set, r + k * nev) == PAPI_OK, "read %d", k);
    }
    EXPECT(PAPI_stop(set, NULL) == PAPI_OK, "stop");
}

static void measure(int set, unsigned long n, long long *v)
{
    int rc = PAPI_start(set);
    if (rc != PAPI_OK) {
        fprintf(stderr, "PAPI_start: %s\n", PAPI_strerror(rc));
        exit(1);
    }
    loop(n);
    rc = PAPI_stop(set, v);
    if (rc != PAPI_OK) {
        fprintf(stderr, "PAPI_stop: %s\n", PAPI_strerror(rc));
        exit(1);
    }
}

/* start; 5 x (loop, accum); loop, reset; loop, reset; loop, accum; loop;
 * stop: the accumulated values in fa (from 0), the stopped ones in s. The
 * first accum after the start resolves the set's own path, the others
 * take it; the library's instructions are the same for every n. */
static void accum_run(int set, unsigned long n, long long *fa, long long *s, int nev)
{
    for (int i = 0; i < nev; i++)
        fa[i] = 0;
    EXPECT(PAPI_start(set) == PAPI_OK, "start");
    for (int k = 0; k < 5; k++) {
        loop(n);
        EXPECT(PAPI_accum(set, fa) == PAPI_OK, "accum %d", k);
    }
    loop(n);
    EXPECT(PAPI_reset(set) == PAPI_OK, "reset");
    loop(n);
    EXPECT(PAPI_reset(set) == PAPI_OK, "reset");
    loop(n);
    EXPECT(PAPI_accum(set, fa) == PAPI_OK, "accum after the resets");
    loop(n);
    EXPECT(PAPI_stop(set, s) == PAPI_OK, "stop");
}

int main(void)
{
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init failed\n");
        return 1;
    }
    int sim = PAPI_get_component_index("sim");
    const PAPI_component_info_t *ci = sim >= 0 ? PAPI_get_component_info(sim) : NULL;
    if (!ci || ci->disabled) {
        printf("papi_exact: not on the virtual PMU (run it under hpm run): skipped\n");
        return 77;
    }

    const int events[] = { PAPI_TOT_INS, PAPI_FP_INS, PAPI_FP_OPS, PAPI_BR_CN,
                           PAPI_BR_MSP, PAPI_BR_PRC, PAPI_DP_OPS, PAPI_VEC_DP };
    enum { INS, FPI, FPO, BCN, BMSP, BPRC, DPO, VDP, NEV };
    int set = PAPI_NULL;
    EXPECT(PAPI_create_eventset(&set) == PAPI_OK, "create");
    for (int i = 0; i < NEV; i++) {
        int rc = PAPI_add_event(set, events[i]);
        char name[PAPI_MAX_STR_LEN];
        PAPI_event_code_to_name(events[i], name);
        EXPECT(rc == PAPI_OK, "adding %s: %s", name, PAPI_strerror(rc));
    }
    if (failures)
        return 1;

    const unsigned long N1 = 1000, N2 = 101000;
    long long a[NEV], b[NEV];
    /* warm up: first-call paths (lazy binding, first reads) run once here */
    measure(set, N1, a);
    measure(set, N1, a);
    measure(set, N2, b);

    long long d[NEV];
    for (int i = 0; i < NEV; i++)
        d[i] = b[i] - a[i];
    const long long dn = (long long)(N2 - N1);
    EXPECT(d[INS] == 3 * dn, "PAPI_TOT_INS grew by %lld, expected %lld", d[INS], 3 * dn);
    EXPECT(d[FPI] == dn, "PAPI_FP_INS grew by %lld, expected %lld", d[FPI], dn);
    EXPECT(d[FPO] == 2 * dn, "PAPI_FP_OPS grew by %lld, expected %lld", d[FPO], 2 * dn);
    EXPECT(d[DPO] == 2 * dn, "PAPI_DP_OPS grew by %lld, expected %lld", d[DPO], 2 * dn);
    EXPECT(d[VDP] == 2 * dn, "PAPI_VEC_DP grew by %lld, expected %lld", d[VDP], 2 * dn);
    EXPECT(d[BCN] == dn, "PAPI_BR_CN grew by %lld, expected %lld", d[BCN], dn);
    for (int k = 0; k < 2; k++) {
        const long long *v = k ? b : a;
        EXPECT(v[BPRC] == v[BCN] - v[BMSP], "PAPI_BR_PRC %lld != BR_CN %lld - BR_MSP %lld",
               v[BPRC], v[BCN], v[BMSP]);
        EXPECT(v[BMSP] >= 0 && v[BMSP] <= v[BCN], "BR_MSP %lld out of range", v[BMSP]);
    }

    /* read and accum agree with stop on the same work */
    long long r[NEV], s[NEV], ac[NEV] = { 0 };
    EXPECT(PAPI_start(set) == PAPI_OK, "start");
    loop(N2);
    EXPECT(PAPI_read(set, r) == PAPI_OK, "read");
    EXPECT(PAPI_accum(set, ac) == PAPI_OK, "accum");
    EXPECT(PAPI_stop(set, s) == PAPI_OK, "stop");
    EXPECT(ac[FPO] >= r[FPO] && r[FPO] >= 2 * (long long)N2, "accum %lld, read %lld", ac[FPO], r[FPO]);
    EXPECT(s[FPO] < 2 * (long long)N2, "after accum the counts restart: %lld", s[FPO]);

    /* accum and reset over and over in one run: of the loops, the six
     * before an accum are accumulated, the one after the last accum is in
     * the stop's values, and the two before a reset are in neither */
    long long fa1[NEV], s1[NEV], fa2[NEV], s2[NEV];
    accum_run(set, N1, fa1, s1, NEV); /* warm up */
    accum_run(set, N1, fa1, s1, NEV);
    accum_run(set, N2, fa2, s2, NEV);
    EXPECT(fa2[INS] - fa1[INS] == 18 * dn, "accumulated PAPI_TOT_INS grew by %lld, expected %lld",
           fa2[INS] - fa1[INS], 18 * dn);
    EXPECT(fa2[FPI] - fa1[FPI] == 6 * dn, "accumulated PAPI_FP_INS grew by %lld, expected %lld",
           fa2[FPI] - fa1[FPI], 6 * dn);
    EXPECT(s2[INS] - s1[INS] == 3 * dn, "PAPI_TOT_INS after the last accum grew by %lld, "
           "expected %lld", s2[INS] - s1[INS], 3 * dn);
    EXPECT(s2[FPO] - s1[FPO] == 2 * dn, "PAPI_FP_OPS after the last accum grew by %lld, "
           "expected %lld", s2[FPO] - s1[FPO], 2 * dn);
    EXPECT(fa2[BPRC] == fa2[BCN] - fa2[BMSP], "accumulated PAPI_BR_PRC %lld != BR_CN %lld - "
           "BR_MSP %lld", fa2[BPRC], fa2[BCN], fa2[BMSP]);

    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);

    /* a DERIVED_POSTFIX preset (the formula engine): PAPI_L1_DCH is
     * "N0|N1|+|N2|-|" over loads, stores and L1D misses, read in the same
     * set as the presets of those three */
    {
        const int pev[] = { PAPI_L1_DCH, PAPI_LD_INS, PAPI_SR_INS, PAPI_L1_DCM };
        long long v[4];
        int pset = PAPI_NULL;
        EXPECT(PAPI_create_eventset(&pset) == PAPI_OK, "create");
        for (int i = 0; i < 4; i++)
            EXPECT(PAPI_add_event(pset, pev[i]) == PAPI_OK, "adding preset %d", i);
        EXPECT(PAPI_start(pset) == PAPI_OK, "start");
        loop(N2);
        EXPECT(PAPI_stop(pset, v) == PAPI_OK, "stop");
        EXPECT(v[0] == v[1] + v[2] - v[3] && v[1] > 0,
               "PAPI_L1_DCH %lld != LD %lld + SR %lld - L1_DCM %lld", v[0], v[1], v[2], v[3]);
        PAPI_cleanup_eventset(pset);
        PAPI_destroy_eventset(&pset);
    }
    /* reads of a running set with a derived preset: after the first, the
     * component sums the events itself (hpm_read_direct_sums_ll: the tool,
     * in the read's request; with a threshold armed, the component from
     * the counts). Both give compute's values, and reads 1, 2 and 3 take
     * the same path, so the loops' instructions remain in the difference
     * of their differences. */
    for (int armed = 0; armed < 2; armed++) {
        const int pev[] = { PAPI_TOT_INS, PAPI_L1_DCH, PAPI_LD_INS, PAPI_SR_INS, PAPI_L1_DCM };
        long long r[4][5];
        int pset = PAPI_NULL, rc;
        EXPECT(PAPI_create_eventset(&pset) == PAPI_OK, "create");
        for (int i = 0; i < 5; i++)
            EXPECT(PAPI_add_event(pset, pev[i]) == PAPI_OK, "adding preset %d", i);
        if (armed) {
            rc = PAPI_overflow(pset, PAPI_LD_INS, 1000000000, 0, overflow_never);
            EXPECT(rc == PAPI_OK, "overflow on PAPI_LD_INS: %s", PAPI_strerror(rc));
        }
        reads_around_loops(pset, r[0], 5, N1, N2);
        for (int k = 0; k < 4; k++)
            EXPECT(r[k][1] == r[k][2] + r[k][3] - r[k][4] && r[k][2] > 0,
                   "%s read %d: PAPI_L1_DCH %lld != LD %lld + SR %lld - L1_DCM %lld",
                   armed ? "armed" : "plain", k, r[k][1], r[k][2], r[k][3], r[k][4]);
        long long di = (r[3][0] - r[2][0]) - (r[2][0] - r[1][0]);
        long long dl = (r[3][2] - r[2][2]) - (r[2][2] - r[1][2]);
        EXPECT(di == 3 * dn && dl == 0,
               "%s derived set: reads' PAPI_TOT_INS %lld %lld %lld, loop %lld != %lld; loads %lld",
               armed ? "armed" : "plain", r[1][0], r[2][0], r[3][0], di, 3 * dn, dl);
        if (armed)
            PAPI_overflow(pset, PAPI_LD_INS, 0, 0, overflow_never);
        PAPI_cleanup_eventset(pset);
        PAPI_destroy_eventset(&pset);
    }
    /* reads of a running set: after the first, PAPI_read of a direct set
     * writes the tool's counts straight into values (hpm_read_direct_ll;
     * read_kinds_ll for this thread's kinds, sim_read_ll's general path
     * with a node-wide code in the set). Reads 1, 2 and 3 take the same
     * path, so the library's instructions cancel in the difference of
     * their differences and the loops' remain. */
    for (int general = 0; general < 2; general++) {
        int rset = PAPI_NULL, rc;
        long long r[4][2];
        EXPECT(PAPI_create_eventset(&rset) == PAPI_OK, "create");
        EXPECT(PAPI_add_event(rset, PAPI_TOT_INS) == PAPI_OK, "add PAPI_TOT_INS");
        rc = general ? PAPI_add_named_event(rset, "sim::PU0_FP_INSTRUCTIONS")
                     : PAPI_add_event(rset, PAPI_FP_INS);
        EXPECT(rc == PAPI_OK, "add the second event: %s", PAPI_strerror(rc));
        reads_around_loops(rset, r[0], 2, N1, N2);
        long long di = (r[3][0] - r[2][0]) - (r[2][0] - r[1][0]);
        long long df = (r[3][1] - r[2][1]) - (r[2][1] - r[1][1]);
        EXPECT(di == 3 * dn, "%s set: reads' PAPI_TOT_INS %lld %lld %lld %lld, loop %lld != %lld",
               general ? "general" : "kinds", r[0][0], r[1][0], r[2][0], r[3][0], di, 3 * dn);
        EXPECT(df == dn, "%s set: reads' FP instructions %lld %lld %lld %lld, loop %lld != %lld",
               general ? "general" : "kinds", r[0][1], r[1][1], r[2][1], r[3][1], df, dn);
        /* counted from the start: the first read holds the library's few
         * hundred instructions, the second the first loop besides */
        EXPECT(r[0][0] >= 0 && r[0][0] < 50000 && r[1][0] - r[0][0] >= 3 * (long long)N1 &&
                   r[1][0] - r[0][0] < 3 * (long long)N1 + 50000,
               "%s set: first reads %lld %lld", general ? "general" : "kinds", r[0][0], r[1][0]);
        PAPI_cleanup_eventset(rset);
        PAPI_destroy_eventset(&rset);
    }
    PAPI_shutdown();
    if (failures)
        fprintf(stderr, "papi_exact: %d failures\n", failures);
    else
        printf("papi_exact: ok (%lld loop iterations measured exactly)\n", dn);
    return failures ? 1 : 0;
}
