/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Fortran bindings seen from C, where the bytes can be checked: every
 * spelling of a binding is exported, CHARACTER results are blank-padded
 * and never written past their length, CHARACTER arguments may be
 * blank-padded or cut short, names that do not fit are errors and
 * descriptions that do not fit are cut.
 */
#include "hpm_check.h"
#include "papi.h"

#include <dlfcn.h>
#include <string.h>

/* The bindings, by gfortran's convention. */
void papif_library_init_(int *check);
void papif_event_code_to_name_(int *code, char *name, int *check, size_t len);
void papif_event_name_to_code_(const char *name, int *code, int *check, size_t len);
void papif_get_event_info_(int *code, char *symbol, char *long_descr, char *short_descr,
                           int *count, char *note, int *flags, int *check, size_t symbol_len,
                           size_t long_len, size_t short_len, size_t note_len);
void papif_query_named_event_(const char *name, int *check, size_t len);
void papif_get_dmem_info_(long long *dest, int *check);

static void names(void)
{
    static const char *const stems[] = {"library_init", "event_code_to_name", "get_event_info",
                                        "hl_region_begin", "hl_stop", "get_dmem_info",
                                        "flops_rate", "unregster_thread", "enum_dev_type"};
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) {
        char n[4][64];
        snprintf(n[0], sizeof n[0], "papif_%s", stems[i]);
        snprintf(n[1], sizeof n[1], "papif_%s_", stems[i]);
        snprintf(n[2], sizeof n[2], "papif_%s__", stems[i]);
        snprintf(n[3], sizeof n[3], "PAPIF_%s", stems[i]);
        for (char *p = n[3] + 6; *p; p++)
            *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
        for (int k = 0; k < 4; k++)
            if (!dlsym(RTLD_DEFAULT, n[k])) {
                fprintf(stderr, "%s is not exported\n", n[k]);
                failures++;
            }
    }
    /* PAPI's mixed-case spellings, which old programs link against. */
    CHECK(dlsym(RTLD_DEFAULT, "PAPIF_num_hwctrs") != NULL);
    CHECK(dlsym(RTLD_DEFAULT, "PAPIF_num_cmp_hwctrs") != NULL);
    CHECK(dlsym(RTLD_DEFAULT, "PAPIF_unlock") != NULL);
    /* And the high-level calls of PAPI 6. */
    CHECK(dlsym(RTLD_DEFAULT, "PAPI_hl_finalize") != NULL);
    CHECK(dlsym(RTLD_DEFAULT, "PAPI_hl_set_events") != NULL);
}

static void strings(void)
{
    char buf[40];
    int code = PAPI_TOT_CYC, check, got;

    /* Blank-padded, nothing written past the length. */
    memset(buf, '#', sizeof buf);
    papif_event_code_to_name_(&code, buf, &check, 20);
    CHECK_EQ(check, PAPI_OK);
    CHECK(memcmp(buf, "PAPI_TOT_CYC        ", 20) == 0);
    CHECK(buf[20] == '#');
    /* Exactly as long as the name: fits, no room for a NUL and none written. */
    memset(buf, '#', sizeof buf);
    papif_event_code_to_name_(&code, buf, &check, 12);
    CHECK_EQ(check, PAPI_OK);
    CHECK(memcmp(buf, "PAPI_TOT_CYC#", 13) == 0);
    /* One short: an error, still within bounds. */
    memset(buf, '#', sizeof buf);
    papif_event_code_to_name_(&code, buf, &check, 11);
    CHECK(check != PAPI_OK);
    CHECK(buf[11] == '#');

    /* Arguments: blank-padded, or cut short by the length. */
    papif_event_name_to_code_("PAPI_TOT_CYC      ", &got, &check, 18);
    CHECK_EQ(check, PAPI_OK);
    CHECK_EQ(got, PAPI_TOT_CYC);
    papif_event_name_to_code_("PAPI_TOT_CYCLES_NOT", &got, &check, 12);
    CHECK_EQ(check, PAPI_OK);
    CHECK_EQ(got, PAPI_TOT_CYC);
    papif_event_name_to_code_("PAPI_TOT_CYC", &got, &check, 0);
    CHECK(check != PAPI_OK);
    papif_query_named_event_("NO_SUCH_EVENT   ", &check, 16);
    CHECK(check != PAPI_OK);

    /* Descriptions are cut to fit, quietly. */
    char sym[16], ld[8], sd[8], note[8];
    int count = -1, flags = -1;
    memset(sym, '#', sizeof sym);
    memset(ld, '#', sizeof ld);
    code = PAPI_L1_DCM;
    papif_get_event_info_(&code, sym, ld, sd, &count, note, &flags, &check, 12, 5, 5, 5);
    CHECK_EQ(check, PAPI_OK);
    CHECK(memcmp(sym, "PAPI_L1_DCM ", 12) == 0 && sym[12] == '#');
    CHECK(memcmp(ld, "Level", 5) == 0 && ld[5] == '#');
    CHECK(count >= 0);
    CHECK(flags == 0 || flags == PAPI_DERIVED);
}

static void dmem(void)
{
    long long d[PAPIF_DMEM_MAXVAL + 1];
    int check;

    memset(d, 0, sizeof d);
    d[PAPIF_DMEM_MAXVAL] = 12345; /* one past the Fortran array */
    papif_get_dmem_info_(d, &check);
    CHECK_EQ(check, PAPI_OK);
    CHECK(d[PAPIF_DMEM_VMSIZE - 1] > 0);
    CHECK(d[PAPIF_DMEM_PAGESIZE - 1] > 0);
    CHECK_EQ(d[PAPIF_DMEM_MAXVAL], 12345);
}

int main(void)
{
    int check = PAPI_VER_CURRENT;

    papif_library_init_(&check);
    if (check != PAPI_VER_CURRENT) {
        fprintf(stderr, "papif_library_init: %d\n", check);
        return 1;
    }
    names();
    strings();
    dmem();
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
