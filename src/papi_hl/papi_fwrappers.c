/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_fwrappers.c - PAPI's Fortran bindings (PAPIF_*), over the C API.
 *
 * Fortran passes every argument by reference and a CHARACTER argument as a
 * pointer to blank-padded, unterminated text whose length comes as an extra
 * size_t argument after all the others, in order (the gfortran convention,
 * also that of ifort and flang). Each binding is a subroutine; where the C
 * call returns a status, it lands in the last INTEGER argument (`check`),
 * as PAPI's Fortran interface documents (include/papi/fpapi.h has the
 * constants).
 *
 * Names: a compiler appends one underscore (gfortran), two when the name
 * already has one (g77, f2c), none, or upper-cases it; every binding
 * answers to papif_x_, papif_x, papif_x__ and PAPIF_X, as PAPI's does.
 *
 * Strings coming in lose their trailing blanks; strings going out are
 * padded with blanks and never NUL-terminated. An event name that does not
 * fit its CHARACTER variable is an error (PAPI_EBUF: a cut name would name
 * another event or none); descriptions are cut quietly.
 */
#include "papi.h"
#include "papi_hl_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One Fortran entry point and its other spellings. */
#define F_ALIASES(lc, UC)                                                \
    extern __typeof__(lc##_) lc HL_EXPORT __attribute__((alias(#lc "_")));   \
    extern __typeof__(lc##_) lc##__ HL_EXPORT __attribute__((alias(#lc "_"))); \
    extern __typeof__(lc##_) UC HL_EXPORT __attribute__((alias(#lc "_")));

#define FSTR_BUF PAPI_HUGE_STR_LEN

/* A CHARACTER argument as a C string, in buf when it fits (else on the
 * heap; NULL when out of memory). A NUL ends it early, for C callers. */
static char *fstr_in(const char *s, size_t len, char *buf)
{
    const char *nul = s ? memchr(s, '\0', len) : NULL;
    char *d;

    if (!s)
        len = 0;
    if (nul)
        len = (size_t)(nul - s);
    while (len > 0 && s[len - 1] == ' ')
        len--;
    d = len < FSTR_BUF ? buf : malloc(len + 1);
    if (!d)
        return NULL;
    if (len)
        memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

static void fstr_done(char *s, char *buf)
{
    if (s != buf)
        free(s);
}

/* Fill a CHARACTER argument; returns 1 when src did not fit and was cut. */
static int fstr_out(char *dst, size_t len, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    int cut = n > len;

    if (cut)
        n = len;
    if (n)
        memcpy(dst, src, n);
    memset(dst + n, ' ', len - n);
    return cut;
}

/* ------------------------------------------------------------ library, threads */

HL_EXPORT void papif_library_init_(int *check)
{
    *check = PAPI_library_init(*check);
}
F_ALIASES(papif_library_init, PAPIF_LIBRARY_INIT)

HL_EXPORT void papif_is_initialized_(int *level)
{
    *level = PAPI_is_initialized();
}
F_ALIASES(papif_is_initialized, PAPIF_IS_INITIALIZED)

HL_EXPORT void papif_shutdown_(void)
{
    PAPI_shutdown();
}
F_ALIASES(papif_shutdown, PAPIF_SHUTDOWN)

HL_EXPORT void papif_set_debug_(int *level, int *check)
{
    *check = PAPI_set_debug(*level);
}
F_ALIASES(papif_set_debug, PAPIF_SET_DEBUG)

HL_EXPORT void papif_perror_(const char *msg, size_t len)
{
    char buf[FSTR_BUF], *s = fstr_in(msg, len, buf);

    PAPI_perror(s ? s : "");
    if (s)
        fstr_done(s, buf);
}
F_ALIASES(papif_perror, PAPIF_PERROR)

/* A Fortran INTEGER function of no arguments returns an int, not the
 * unsigned long PAPI wants: call it through this. */
static int (*f_thread_id_fn)(void);
static unsigned long f_thread_id(void)
{
    return (unsigned long)(unsigned int)f_thread_id_fn();
}

HL_EXPORT void papif_thread_init_(int (*handle)(void), int *check)
{
    if (!handle) {
        *check = PAPI_EINVAL;
        return;
    }
    f_thread_id_fn = handle;
    *check = PAPI_thread_init(f_thread_id);
}
F_ALIASES(papif_thread_init, PAPIF_THREAD_INIT)

HL_EXPORT void papif_thread_id_(int *id)
{
    *id = (int)PAPI_thread_id();
}
F_ALIASES(papif_thread_id, PAPIF_THREAD_ID)

HL_EXPORT void papif_register_thread_(int *check)
{
    *check = PAPI_register_thread();
}
F_ALIASES(papif_register_thread, PAPIF_REGISTER_THREAD)

HL_EXPORT void papif_unregister_thread_(int *check)
{
    *check = PAPI_unregister_thread();
}
F_ALIASES(papif_unregister_thread, PAPIF_UNREGISTER_THREAD)
/* PAPI has long exported this misspelling too; old programs call it. */
HL_EXPORT void papif_unregster_thread_(int *check)
{
    *check = PAPI_unregister_thread();
}
F_ALIASES(papif_unregster_thread, PAPIF_UNREGSTER_THREAD)

HL_EXPORT void papif_lock_(int *lock)
{
    PAPI_lock(*lock);
}
F_ALIASES(papif_lock, PAPIF_LOCK)

HL_EXPORT void papif_unlock_(int *lock)
{
    PAPI_unlock(*lock);
}
F_ALIASES(papif_unlock, PAPIF_UNLOCK)
/* PAPI's spelling of the upper-case name of these three. */
extern __typeof__(papif_unlock_) PAPIF_unlock HL_EXPORT __attribute__((alias("papif_unlock_")));

/* ------------------------------------------------------------ event sets */

HL_EXPORT void papif_create_eventset_(int *es, int *check)
{
    *check = PAPI_create_eventset(es);
}
F_ALIASES(papif_create_eventset, PAPIF_CREATE_EVENTSET)

HL_EXPORT void papif_destroy_eventset_(int *es, int *check)
{
    *check = PAPI_destroy_eventset(es);
}
F_ALIASES(papif_destroy_eventset, PAPIF_DESTROY_EVENTSET)

HL_EXPORT void papif_cleanup_eventset_(int *es, int *check)
{
    *check = PAPI_cleanup_eventset(*es);
}
F_ALIASES(papif_cleanup_eventset, PAPIF_CLEANUP_EVENTSET)

HL_EXPORT void papif_assign_eventset_component_(int *es, int *cidx, int *check)
{
    *check = PAPI_assign_eventset_component(*es, *cidx);
}
F_ALIASES(papif_assign_eventset_component, PAPIF_ASSIGN_EVENTSET_COMPONENT)

HL_EXPORT void papif_add_event_(int *es, int *code, int *check)
{
    *check = PAPI_add_event(*es, *code);
}
F_ALIASES(papif_add_event, PAPIF_ADD_EVENT)

HL_EXPORT void papif_add_events_(int *es, int *codes, int *number, int *check)
{
    *check = PAPI_add_events(*es, codes, *number);
}
F_ALIASES(papif_add_events, PAPIF_ADD_EVENTS)

HL_EXPORT void papif_add_named_event_(int *es, const char *name, int *check, size_t len)
{
    char buf[FSTR_BUF], *s = fstr_in(name, len, buf);

    *check = s ? PAPI_add_named_event(*es, s) : PAPI_ENOMEM;
    if (s)
        fstr_done(s, buf);
}
F_ALIASES(papif_add_named_event, PAPIF_ADD_NAMED_EVENT)

HL_EXPORT void papif_remove_event_(int *es, int *code, int *check)
{
    *check = PAPI_remove_event(*es, *code);
}
F_ALIASES(papif_remove_event, PAPIF_REMOVE_EVENT)

HL_EXPORT void papif_remove_events_(int *es, int *codes, int *number, int *check)
{
    *check = PAPI_remove_events(*es, codes, *number);
}
F_ALIASES(papif_remove_events, PAPIF_REMOVE_EVENTS)

HL_EXPORT void papif_remove_named_event_(int *es, const char *name, int *check, size_t len)
{
    char buf[FSTR_BUF], *s = fstr_in(name, len, buf);

    *check = s ? PAPI_remove_named_event(*es, s) : PAPI_ENOMEM;
    if (s)
        fstr_done(s, buf);
}
F_ALIASES(papif_remove_named_event, PAPIF_REMOVE_NAMED_EVENT)

HL_EXPORT void papif_list_events_(int *es, int *codes, int *number, int *check)
{
    *check = PAPI_list_events(*es, codes, number);
}
F_ALIASES(papif_list_events, PAPIF_LIST_EVENTS)

HL_EXPORT void papif_num_events_(int *es, int *count)
{
    *count = PAPI_num_events(*es);
}
F_ALIASES(papif_num_events, PAPIF_NUM_EVENTS)

HL_EXPORT void papif_state_(int *es, int *status, int *check)
{
    *check = PAPI_state(*es, status);
}
F_ALIASES(papif_state, PAPIF_STATE)

HL_EXPORT void papif_set_multiplex_(int *es, int *check)
{
    *check = PAPI_set_multiplex(*es);
}
F_ALIASES(papif_set_multiplex, PAPIF_SET_MULTIPLEX)

HL_EXPORT void papif_get_multiplex_(int *es, int *check)
{
    *check = PAPI_get_multiplex(*es);
}
F_ALIASES(papif_get_multiplex, PAPIF_GET_MULTIPLEX)

HL_EXPORT void papif_multiplex_init_(int *check)
{
    *check = PAPI_multiplex_init();
}
F_ALIASES(papif_multiplex_init, PAPIF_MULTIPLEX_INIT)

/* ------------------------------------------------------------ counting */

HL_EXPORT void papif_start_(int *es, int *check)
{
    *check = PAPI_start(*es);
}
F_ALIASES(papif_start, PAPIF_START)

HL_EXPORT void papif_stop_(int *es, long long *values, int *check)
{
    *check = PAPI_stop(*es, values);
}
F_ALIASES(papif_stop, PAPIF_STOP)

HL_EXPORT void papif_read_(int *es, long long *values, int *check)
{
    *check = PAPI_read(*es, values);
}
F_ALIASES(papif_read, PAPIF_READ)

HL_EXPORT void papif_read_ts_(int *es, long long *values, long long *cyc, int *check)
{
    *check = PAPI_read_ts(*es, values, cyc);
}
F_ALIASES(papif_read_ts, PAPIF_READ_TS)

HL_EXPORT void papif_accum_(int *es, long long *values, int *check)
{
    *check = PAPI_accum(*es, values);
}
F_ALIASES(papif_accum, PAPIF_ACCUM)

HL_EXPORT void papif_reset_(int *es, int *check)
{
    *check = PAPI_reset(*es);
}
F_ALIASES(papif_reset, PAPIF_RESET)

HL_EXPORT void papif_write_(int *es, long long *values, int *check)
{
    *check = PAPI_write(*es, values);
}
F_ALIASES(papif_write, PAPIF_WRITE)

/* ------------------------------------------------------------ events */

HL_EXPORT void papif_query_event_(int *code, int *check)
{
    *check = PAPI_query_event(*code);
}
F_ALIASES(papif_query_event, PAPIF_QUERY_EVENT)

HL_EXPORT void papif_query_named_event_(const char *name, int *check, size_t len)
{
    char buf[FSTR_BUF], *s = fstr_in(name, len, buf);

    *check = s ? PAPI_query_named_event(s) : PAPI_ENOMEM;
    if (s)
        fstr_done(s, buf);
}
F_ALIASES(papif_query_named_event, PAPIF_QUERY_NAMED_EVENT)

HL_EXPORT void papif_event_code_to_name_(int *code, char *name, int *check, size_t len)
{
    char out[PAPI_HUGE_STR_LEN];

    *check = PAPI_event_code_to_name(*code, out);
    if (*check != PAPI_OK)
        return;
    if (fstr_out(name, len, out))
        *check = PAPI_EBUF;
}
F_ALIASES(papif_event_code_to_name, PAPIF_EVENT_CODE_TO_NAME)

HL_EXPORT void papif_event_name_to_code_(const char *name, int *code, int *check, size_t len)
{
    char buf[FSTR_BUF], *s = fstr_in(name, len, buf);

    *check = s ? PAPI_event_name_to_code(s, code) : PAPI_ENOMEM;
    if (s)
        fstr_done(s, buf);
}
F_ALIASES(papif_event_name_to_code, PAPIF_EVENT_NAME_TO_CODE)

HL_EXPORT void papif_enum_event_(int *code, int *modifier, int *check)
{
    *check = PAPI_enum_event(code, *modifier);
}
F_ALIASES(papif_enum_event, PAPIF_ENUM_EVENT)

/* count: the number of native events behind it (1 for a plain available
 * event, 0 for one not countable here); flags: PAPI_DERIVED when several
 * counters are combined. Cut strings are not an error here: the symbol
 * and descriptions are for reading. */
HL_EXPORT void papif_get_event_info_(int *code, char *symbol, char *long_descr,
                                     char *short_descr, int *count, char *note, int *flags,
                                     int *check, size_t symbol_len, size_t long_len,
                                     size_t short_len, size_t note_len)
{
    PAPI_event_info_t *info = malloc(sizeof *info); /* large: keep it off the stack */

    if (!info) {
        *check = PAPI_ENOMEM;
        return;
    }
    *check = PAPI_get_event_info(*code, info);
    if (*check == PAPI_OK) {
        fstr_out(symbol, symbol_len, info->symbol);
        fstr_out(long_descr, long_len, info->long_descr);
        fstr_out(short_descr, short_len, info->short_descr);
        fstr_out(note, note_len, info->note);
        *count = (int)info->count;
        *flags = info->derived[0] && strcmp(info->derived, "NOT_DERIVED") != 0 ? PAPI_DERIVED : 0;
    }
    free(info);
}
F_ALIASES(papif_get_event_info, PAPIF_GET_EVENT_INFO)

/* ------------------------------------------------------------ options */

HL_EXPORT void papif_set_domain_(int *domain, int *check)
{
    *check = PAPI_set_domain(*domain);
}
F_ALIASES(papif_set_domain, PAPIF_SET_DOMAIN)

HL_EXPORT void papif_set_cmp_domain_(int *domain, int *cidx, int *check)
{
    *check = PAPI_set_cmp_domain(*domain, *cidx);
}
F_ALIASES(papif_set_cmp_domain, PAPIF_SET_CMP_DOMAIN)

HL_EXPORT void papif_set_event_domain_(int *es, int *domain, int *check)
{
    PAPI_option_t opt;

    memset(&opt, 0, sizeof opt);
    opt.domain.eventset = *es;
    opt.domain.domain = *domain;
    *check = PAPI_set_opt(PAPI_DOMAIN, &opt);
}
F_ALIASES(papif_set_event_domain, PAPIF_SET_EVENT_DOMAIN)

/* mode PAPI_DEFDOM: the default for new event sets; PAPI_DOMAIN: es's. */
HL_EXPORT void papif_get_domain_(int *es, int *domain, int *mode, int *check)
{
    PAPI_option_t opt;

    memset(&opt, 0, sizeof opt);
    if (*mode == PAPI_DEFDOM) {
        int d = PAPI_get_opt(PAPI_DEFDOM, NULL);
        *check = d < 0 ? d : PAPI_OK;
        if (d >= 0)
            *domain = d;
    } else if (*mode == PAPI_DOMAIN) {
        opt.domain.eventset = *es;
        *check = PAPI_get_opt(PAPI_DOMAIN, &opt);
        if (*check == PAPI_OK)
            *domain = opt.domain.domain;
    } else {
        *check = PAPI_EINVAL;
    }
}
F_ALIASES(papif_get_domain, PAPIF_GET_DOMAIN)

HL_EXPORT void papif_set_granularity_(int *granularity, int *check)
{
    *check = PAPI_set_granularity(*granularity);
}
F_ALIASES(papif_set_granularity, PAPIF_SET_GRANULARITY)

HL_EXPORT void papif_set_cmp_granularity_(int *granularity, int *cidx, int *check)
{
    *check = PAPI_set_cmp_granularity(*granularity, *cidx);
}
F_ALIASES(papif_set_cmp_granularity, PAPIF_SET_CMP_GRANULARITY)

/* mode PAPI_DEFGRN: the default for new event sets; PAPI_GRANUL: es's. */
HL_EXPORT void papif_get_granularity_(int *es, int *granularity, int *mode, int *check)
{
    PAPI_option_t opt;

    memset(&opt, 0, sizeof opt);
    if (*mode == PAPI_DEFGRN) {
        int g = PAPI_get_opt(PAPI_DEFGRN, NULL);
        *check = g < 0 ? g : PAPI_OK;
        if (g >= 0)
            *granularity = g;
    } else if (*mode == PAPI_GRANUL) {
        opt.granularity.eventset = *es;
        *check = PAPI_get_opt(PAPI_GRANUL, &opt);
        if (*check == PAPI_OK)
            *granularity = opt.granularity.granularity;
    } else {
        *check = PAPI_EINVAL;
    }
}
F_ALIASES(papif_get_granularity, PAPIF_GET_GRANULARITY)

HL_EXPORT void papif_set_inherit_(int *inherit, int *check)
{
    PAPI_option_t opt;

    memset(&opt, 0, sizeof opt);
    opt.inherit.eventset = PAPI_NULL;
    opt.inherit.inherit = *inherit;
    *check = PAPI_set_opt(PAPI_INHERIT, &opt);
}
F_ALIASES(papif_set_inherit, PAPIF_SET_INHERIT)

HL_EXPORT void papif_get_preload_(char *preload, int *check, size_t len)
{
    PAPI_option_t opt;

    memset(&opt, 0, sizeof opt);
    *check = PAPI_get_opt(PAPI_PRELOAD, &opt);
    if (*check == PAPI_OK)
        fstr_out(preload, len, opt.preload.lib_preload_env);
}
F_ALIASES(papif_get_preload, PAPIF_GET_PRELOAD)

HL_EXPORT void papif_get_clockrate_(int *cr)
{
    *cr = PAPI_get_opt(PAPI_CLOCKRATE, NULL);
}
F_ALIASES(papif_get_clockrate, PAPIF_GET_CLOCKRATE)

/* ------------------------------------------------------------ system information */

HL_EXPORT void papif_num_hwctrs_(int *num)
{
    *num = PAPI_num_hwctrs();
}
F_ALIASES(papif_num_hwctrs, PAPIF_NUM_HWCTRS)
extern __typeof__(papif_num_hwctrs_) PAPIF_num_hwctrs HL_EXPORT
    __attribute__((alias("papif_num_hwctrs_")));

HL_EXPORT void papif_num_cmp_hwctrs_(int *cidx, int *num)
{
    *num = PAPI_num_cmp_hwctrs(*cidx);
}
F_ALIASES(papif_num_cmp_hwctrs, PAPIF_NUM_CMP_HWCTRS)
extern __typeof__(papif_num_cmp_hwctrs_) PAPIF_num_cmp_hwctrs HL_EXPORT
    __attribute__((alias("papif_num_cmp_hwctrs_")));

/* No status argument: a machine PAPI cannot describe leaves them as they
 * were. mhz is the highest clock rate. */
HL_EXPORT void papif_get_hardware_info_(int *ncpu, int *nnodes, int *totalcpus, int *vendor,
                                        char *vendor_str, int *model, char *model_str,
                                        float *revision, float *mhz, size_t vendor_len,
                                        size_t model_len)
{
    const PAPI_hw_info_t *hw = PAPI_get_hardware_info();

    if (!hw)
        return;
    *ncpu = hw->ncpu;
    *nnodes = hw->nnodes;
    *totalcpus = hw->totalcpus;
    *vendor = hw->vendor;
    fstr_out(vendor_str, vendor_len, hw->vendor_string);
    *model = hw->model;
    fstr_out(model_str, model_len, hw->model_string);
    *revision = hw->revision;
    *mhz = (float)hw->cpu_max_mhz;
}
F_ALIASES(papif_get_hardware_info, PAPIF_GET_HARDWARE_INFO)

HL_EXPORT void papif_get_exe_info_(char *fullname, char *name, long long *text_start,
                                   long long *text_end, long long *data_start,
                                   long long *data_end, long long *bss_start,
                                   long long *bss_end, int *check, size_t fullname_len,
                                   size_t name_len)
{
    const PAPI_exe_info_t *exe = PAPI_get_executable_info();

    if (!exe) {
        *check = PAPI_EINVAL;
        return;
    }
    fstr_out(fullname, fullname_len, exe->fullname);
    fstr_out(name, name_len, exe->address_info.name);
    *text_start = (long long)(uintptr_t)exe->address_info.text_start;
    *text_end = (long long)(uintptr_t)exe->address_info.text_end;
    *data_start = (long long)(uintptr_t)exe->address_info.data_start;
    *data_end = (long long)(uintptr_t)exe->address_info.data_end;
    *bss_start = (long long)(uintptr_t)exe->address_info.bss_start;
    *bss_end = (long long)(uintptr_t)exe->address_info.bss_end;
    *check = PAPI_OK;
}
F_ALIASES(papif_get_exe_info, PAPIF_GET_EXE_INFO)

/* dest(PAPIF_DMEM_VMPEAK .. PAPIF_DMEM_MAXVAL), 1-based in Fortran. */
HL_EXPORT void papif_get_dmem_info_(long long *dest, int *check)
{
    PAPI_dmem_info_t d;

    memset(&d, 0, sizeof d);
    *check = PAPI_get_dmem_info(&d);
    if (*check != PAPI_OK)
        return;
    dest[PAPIF_DMEM_VMPEAK - 1] = d.peak;
    dest[PAPIF_DMEM_VMSIZE - 1] = d.size;
    dest[PAPIF_DMEM_RESIDENT - 1] = d.resident;
    dest[PAPIF_DMEM_HIGH_WATER - 1] = d.high_water_mark;
    dest[PAPIF_DMEM_SHARED - 1] = d.shared;
    dest[PAPIF_DMEM_TEXT - 1] = d.text;
    dest[PAPIF_DMEM_LIBRARY - 1] = d.library;
    dest[PAPIF_DMEM_HEAP - 1] = d.heap;
    dest[PAPIF_DMEM_LOCKED - 1] = d.locked;
    dest[PAPIF_DMEM_STACK - 1] = d.stack;
    dest[PAPIF_DMEM_PAGESIZE - 1] = d.pagesize;
    dest[PAPIF_DMEM_PTE - 1] = d.pte;
}
F_ALIASES(papif_get_dmem_info, PAPIF_GET_DMEM_INFO)

/* ------------------------------------------------------------ timers */

HL_EXPORT void papif_get_real_cyc_(long long *v)
{
    *v = PAPI_get_real_cyc();
}
F_ALIASES(papif_get_real_cyc, PAPIF_GET_REAL_CYC)

HL_EXPORT void papif_get_real_usec_(long long *v)
{
    *v = PAPI_get_real_usec();
}
F_ALIASES(papif_get_real_usec, PAPIF_GET_REAL_USEC)

HL_EXPORT void papif_get_real_nsec_(long long *v)
{
    *v = PAPI_get_real_nsec();
}
F_ALIASES(papif_get_real_nsec, PAPIF_GET_REAL_NSEC)

HL_EXPORT void papif_get_virt_cyc_(long long *v)
{
    *v = PAPI_get_virt_cyc();
}
F_ALIASES(papif_get_virt_cyc, PAPIF_GET_VIRT_CYC)

HL_EXPORT void papif_get_virt_usec_(long long *v)
{
    *v = PAPI_get_virt_usec();
}
F_ALIASES(papif_get_virt_usec, PAPIF_GET_VIRT_USEC)

/* ------------------------------------------------------------ rate shortcuts */

/* The event of the rate calls, by name; blank means the call's default (0). */
static int f_rate_event(const char *name, size_t len, int *code)
{
    char buf[FSTR_BUF], *s = fstr_in(name, len, buf);
    int r = PAPI_OK;

    if (!s)
        return PAPI_ENOMEM;
    *code = 0;
    if (*s)
        r = PAPI_event_name_to_code(s, code);
    fstr_done(s, buf);
    return r;
}

HL_EXPORT void papif_flips_rate_(const char *name, float *rtime, float *ptime, long long *flpins,
                                 float *mflips, int *check, size_t len)
{
    int code;

    if ((*check = f_rate_event(name, len, &code)) == PAPI_OK)
        *check = PAPI_flips_rate(code, rtime, ptime, flpins, mflips);
}
F_ALIASES(papif_flips_rate, PAPIF_FLIPS_RATE)

HL_EXPORT void papif_flops_rate_(const char *name, float *rtime, float *ptime, long long *flpops,
                                 float *mflops, int *check, size_t len)
{
    int code;

    if ((*check = f_rate_event(name, len, &code)) == PAPI_OK)
        *check = PAPI_flops_rate(code, rtime, ptime, flpops, mflops);
}
F_ALIASES(papif_flops_rate, PAPIF_FLOPS_RATE)

HL_EXPORT void papif_ipc_(float *rtime, float *ptime, long long *ins, float *ipc, int *check)
{
    *check = PAPI_ipc(rtime, ptime, ins, ipc);
}
F_ALIASES(papif_ipc, PAPIF_IPC)

HL_EXPORT void papif_epc_(const char *name, float *rtime, float *ptime, long long *ref,
                          long long *core, long long *evt, float *epc, int *check, size_t len)
{
    int code;

    if ((*check = f_rate_event(name, len, &code)) == PAPI_OK)
        *check = PAPI_epc(code, rtime, ptime, ref, core, evt, epc);
}
F_ALIASES(papif_epc, PAPIF_EPC)

HL_EXPORT void papif_rate_stop_(int *check)
{
    *check = PAPI_rate_stop();
}
F_ALIASES(papif_rate_stop, PAPIF_RATE_STOP)

/* ------------------------------------------------------------ devices */

/* Fortran has no pointers to hold a device-type handle: it gets an index
 * into this table instead. Enumerations return the same few handles over
 * and over, so the table is small and never shrinks. */
#define F_DEV_HANDLES 32
static void *f_dev_handles[F_DEV_HANDLES];
static int f_dev_nhandles;
static pthread_mutex_t f_dev_lock = PTHREAD_MUTEX_INITIALIZER;

static int f_dev_index(void *h)
{
    int i;

    pthread_mutex_lock(&f_dev_lock);
    for (i = 0; i < f_dev_nhandles; i++)
        if (f_dev_handles[i] == h)
            break;
    if (i == f_dev_nhandles) {
        if (i < F_DEV_HANDLES)
            f_dev_handles[f_dev_nhandles++] = h;
        else
            i = -1;
    }
    pthread_mutex_unlock(&f_dev_lock);
    return i;
}

static void *f_dev_handle(int i)
{
    void *h = NULL;

    pthread_mutex_lock(&f_dev_lock);
    if (i >= 0 && i < f_dev_nhandles)
        h = f_dev_handles[i];
    pthread_mutex_unlock(&f_dev_lock);
    return h;
}

HL_EXPORT void papif_enum_dev_type_(int *modifier, int *handle_index, int *check)
{
    void *h = NULL;

    *check = PAPI_enum_dev_type(*modifier, &h);
    if (*check != PAPI_OK)
        return;
    *handle_index = f_dev_index(h);
    if (*handle_index < 0)
        *check = PAPI_ENOMEM;
}
F_ALIASES(papif_enum_dev_type, PAPIF_ENUM_DEV_TYPE)

HL_EXPORT void papif_get_dev_type_attr_(int *handle_index, int *attr, int *value, char *string,
                                        int *check, size_t len)
{
    void *h = f_dev_handle(*handle_index);

    if (!h) {
        *check = PAPI_EINVAL;
        return;
    }
    if (*attr == PAPI_DEV_TYPE_ATTR__CHAR_NAME || *attr == PAPI_DEV_TYPE_ATTR__CHAR_STATUS) {
        const char *s = NULL;
        *check = PAPI_get_dev_type_attr(h, (PAPI_dev_type_attr_e)*attr, &s);
        if (*check == PAPI_OK)
            fstr_out(string, len, s);
    } else {
        int v = 0;
        *check = PAPI_get_dev_type_attr(h, (PAPI_dev_type_attr_e)*attr, &v);
        if (*check == PAPI_OK)
            *value = v;
    }
}
F_ALIASES(papif_get_dev_type_attr, PAPIF_GET_DEV_TYPE_ATTR)

HL_EXPORT void papif_get_dev_attr_(int *handle_index, int *id, int *attr, int *value,
                                   char *string, int *check, size_t len)
{
    void *h = f_dev_handle(*handle_index);
    PAPI_dev_attr_e a = (PAPI_dev_attr_e)*attr;

    if (!h) {
        *check = PAPI_EINVAL;
        return;
    }
    /* The value type is in the attribute's name: CHAR, ULONG or UINT. */
    if (a == PAPI_DEV_ATTR__CPU_CHAR_NAME || a == PAPI_DEV_ATTR__CUDA_CHAR_DEVICE_NAME ||
        a == PAPI_DEV_ATTR__ROCM_CHAR_DEVICE_NAME) {
        const char *s = NULL;
        *check = PAPI_get_dev_attr(h, *id, a, &s);
        if (*check == PAPI_OK)
            fstr_out(string, len, s);
    } else if (a == PAPI_DEV_ATTR__CUDA_ULONG_UID || a == PAPI_DEV_ATTR__ROCM_ULONG_UID) {
        unsigned long v = 0;
        *check = PAPI_get_dev_attr(h, *id, a, &v);
        if (*check == PAPI_OK)
            *value = (int)v;
    } else {
        unsigned int v = 0;
        *check = PAPI_get_dev_attr(h, *id, a, &v);
        if (*check == PAPI_OK)
            *value = (int)v;
    }
}
F_ALIASES(papif_get_dev_attr, PAPIF_GET_DEV_ATTR)

/* ------------------------------------------------------------ high level */

HL_EXPORT void papif_hl_region_begin_(const char *region, int *check, size_t len)
{
    char buf[FSTR_BUF], *s = fstr_in(region, len, buf);

    *check = s ? PAPI_hl_region_begin(s) : PAPI_ENOMEM;
    if (s)
        fstr_done(s, buf);
}
F_ALIASES(papif_hl_region_begin, PAPIF_HL_REGION_BEGIN)

HL_EXPORT void papif_hl_read_(const char *region, int *check, size_t len)
{
    char buf[FSTR_BUF], *s = fstr_in(region, len, buf);

    *check = s ? PAPI_hl_read(s) : PAPI_ENOMEM;
    if (s)
        fstr_done(s, buf);
}
F_ALIASES(papif_hl_read, PAPIF_HL_READ)

HL_EXPORT void papif_hl_region_end_(const char *region, int *check, size_t len)
{
    char buf[FSTR_BUF], *s = fstr_in(region, len, buf);

    *check = s ? PAPI_hl_region_end(s) : PAPI_ENOMEM;
    if (s)
        fstr_done(s, buf);
}
F_ALIASES(papif_hl_region_end, PAPIF_HL_REGION_END)

HL_EXPORT void papif_hl_stop_(int *check)
{
    *check = PAPI_hl_stop();
}
F_ALIASES(papif_hl_stop, PAPIF_HL_STOP)
