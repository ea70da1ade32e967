/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_options.c - PAPI_get_opt / PAPI_set_opt and the default domain and
 * granularity calls.
 *
 * One row per option: how to read it, how to change it. A missing reader
 * or writer means PAPI documents that direction as invalid (PAPI_EINVAL).
 */
#include <stddef.h>
#include <string.h>

#include "papi_eventset.h"
#include "papi_internal.h"

/* ------------------------------------------------------------ readers
 * Return a value (>= 0) or PAPI_OK after filling *p, or an error. */

static int get_debug(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (p) {
        p->debug.level = papi_lib.debug;
        p->debug.handler = NULL;
    }
    return papi_lib.debug;
}

static int get_clockrate(PAPI_option_t *p, int cidx)
{
    (void)p, (void)cidx;
    return (int)(papi_mhz() + 0.5);
}

static int get_max_cpus(PAPI_option_t *p, int cidx)
{
    (void)p, (void)cidx;
    return papi_hw_info.totalcpus;
}

static int get_max_hwctrs(PAPI_option_t *p, int cidx)
{
    (void)p;
    return PAPI_num_cmp_hwctrs(cidx);
}

static int get_max_mpx_ctrs(PAPI_option_t *p, int cidx)
{
    (void)p;
    if (cidx < 0 || cidx >= papi_lib.ncomp)
        return PAPI_ENOCMP;
    return papi_lib.comp[cidx].info.num_mpx_cntrs;
}

static int get_defdom(PAPI_option_t *p, int cidx)
{
    if (cidx < 0 || cidx >= papi_lib.ncomp)
        return PAPI_ENOCMP;
    int d = papi_lib.comp[cidx].default_domain;
    if (p)
        p->defdomain.domain = d;
    return d;
}

static int get_defgrn(PAPI_option_t *p, int cidx)
{
    if (cidx < 0 || cidx >= papi_lib.ncomp)
        return PAPI_ENOCMP;
    int g = papi_lib.comp[cidx].default_granularity;
    if (p)
        p->defgranularity.granularity = g;
    return g;
}

static int get_domain(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    int d = papi_es_get_domain(p->domain.eventset);
    if (d >= 0)
        p->domain.domain = d;
    return d;
}

static int get_granul(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    int g = papi_es_get_granularity(p->granularity.eventset);
    if (g >= 0)
        p->granularity.granularity = g;
    return g;
}

static int get_multiplex(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    int m = papi_es_get_multiplex(p->multiplex.eventset);
    if (m >= 0) {
        p->multiplex.ns = papi_lib.default_mpx_ns;
        p->multiplex.flags = PAPI_MULTIPLEX_DEFAULT;
    }
    return m;
}

static int get_def_mpx_ns(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (p)
        p->multiplex.ns = papi_lib.default_mpx_ns;
    return papi_lib.default_mpx_ns;
}

static int get_def_itimer(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    p->itimer.itimer_num = 2; /* ITIMER_PROF */
    p->itimer.itimer_sig = hpm_overflow_signal();
    p->itimer.ns = papi_lib.default_mpx_ns;
    p->itimer.flags = 0;
    return PAPI_OK;
}

static int get_attach(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    unsigned long tid = 0;
    int a = papi_es_get_attach(p->attach.eventset, &tid);
    if (a >= 0)
        p->attach.tid = tid;
    return a;
}

static int get_cpu(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    unsigned int cpu = 0;
    int a = papi_es_get_cpu(p->cpu.eventset, &cpu);
    if (a >= 0)
        p->cpu.cpu_num = cpu;
    return a;
}

static int get_inherit(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    int i = papi_es_get_inherit(p->inherit.eventset);
    if (i >= 0)
        p->inherit.inherit = i;
    return i;
}

static int get_hwinfo(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    p->hw_info = (PAPI_hw_info_t *)PAPI_get_hardware_info();
    return PAPI_OK;
}

static int get_exeinfo(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    p->exe_info = (PAPI_exe_info_t *)PAPI_get_executable_info();
    return p->exe_info ? PAPI_OK : PAPI_ESYS;
}

static int get_shlibinfo(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    p->shlib_info = (PAPI_shlib_info_t *)PAPI_get_shared_lib_info();
    return p->shlib_info ? PAPI_OK : PAPI_ESYS;
}

static int get_componentinfo(PAPI_option_t *p, int cidx)
{
    if (!p)
        return PAPI_EINVAL;
    p->cmp_info = (PAPI_component_info_t *)PAPI_get_component_info(cidx);
    return p->cmp_info ? PAPI_OK : PAPI_ENOCMP;
}

static int get_lib_version(PAPI_option_t *p, int cidx)
{
    (void)p, (void)cidx;
    return PAPI_VERSION;
}

static int get_preload(PAPI_option_t *p, int cidx)
{
    (void)cidx;
    if (!p)
        return PAPI_EINVAL;
    memset(&p->preload, 0, sizeof p->preload);
    papi_copy(p->preload.lib_preload_env, sizeof p->preload.lib_preload_env, "LD_PRELOAD");
    p->preload.lib_preload_sep = ' ';
    papi_copy(p->preload.lib_dir_env, sizeof p->preload.lib_dir_env, "LD_LIBRARY_PATH");
    p->preload.lib_dir_sep = ':';
    return PAPI_OK;
}

/* ------------------------------------------------------------ writers */

static int set_debug(PAPI_option_t *p)
{
    return PAPI_set_debug(p->debug.level);
}

static int set_defdom(PAPI_option_t *p)
{
    return PAPI_set_cmp_domain(p->defdomain.domain, p->defdomain.def_cidx);
}

static int set_domain(PAPI_option_t *p)
{
    return papi_es_set_domain(p->domain.eventset, p->domain.domain);
}

static int set_defgrn(PAPI_option_t *p)
{
    return PAPI_set_cmp_granularity(p->defgranularity.granularity, p->defgranularity.def_cidx);
}

static int set_granul(PAPI_option_t *p)
{
    return papi_es_set_granularity(p->granularity.eventset, p->granularity.granularity);
}

static int set_multiplex(PAPI_option_t *p)
{
    if (p->multiplex.ns > 0)
        papi_lib.default_mpx_ns = p->multiplex.ns;
    return papi_es_set_multiplex(p->multiplex.eventset);
}

static int set_def_mpx_ns(PAPI_option_t *p)
{
    if (p->multiplex.ns <= 0)
        return PAPI_EINVAL;
    papi_lib.default_mpx_ns = p->multiplex.ns;
    return PAPI_OK;
}

/* hpm picks the timer of software overflow itself (hpm_overflow_signal);
 * the interval is the one setting that carries over. */
static int set_def_itimer(PAPI_option_t *p)
{
    if (p->itimer.ns < 0)
        return PAPI_EINVAL;
    if (p->itimer.ns > 0)
        papi_lib.default_mpx_ns = p->itimer.ns;
    return PAPI_OK;
}

static int set_attach(PAPI_option_t *p)
{
    return papi_es_attach(p->attach.eventset, p->attach.tid, 1);
}

static int set_detach(PAPI_option_t *p)
{
    return papi_es_attach(p->attach.eventset, 0, 0);
}

static int set_inherit(PAPI_option_t *p)
{
    return papi_es_set_inherit(p->inherit.eventset, p->inherit.inherit != PAPI_INHERIT_NONE);
}

static int set_cpu(PAPI_option_t *p)
{
    return papi_es_cpu_attach(p->cpu.eventset, p->cpu.cpu_num);
}

/* hpm sets have no address-range restriction. */
static int set_unsupported(PAPI_option_t *p)
{
    (void)p;
    return PAPI_ECMP;
}

static const struct option_row {
    int option;
    int (*get)(PAPI_option_t *, int cidx);
    int (*set)(PAPI_option_t *);
    int before_init; /* usable before PAPI_library_init */
} options[] = {
    { PAPI_DEBUG, get_debug, set_debug, 1 },
    { PAPI_CLOCKRATE, get_clockrate, NULL, 0 },
    { PAPI_MAX_CPUS, get_max_cpus, NULL, 0 },
    { PAPI_MAX_HWCTRS, get_max_hwctrs, NULL, 0 },
    { PAPI_MAX_MPX_CTRS, get_max_mpx_ctrs, NULL, 0 },
    { PAPI_DEFDOM, get_defdom, set_defdom, 0 },
    { PAPI_DOMAIN, get_domain, set_domain, 0 },
    { PAPI_DEFGRN, get_defgrn, set_defgrn, 0 },
    { PAPI_GRANUL, get_granul, set_granul, 0 },
    { PAPI_MULTIPLEX, get_multiplex, set_multiplex, 0 },
    { PAPI_DEF_MPX_NS, get_def_mpx_ns, set_def_mpx_ns, 0 },
    { PAPI_DEF_ITIMER, get_def_itimer, set_def_itimer, 0 },
    { PAPI_DEF_ITIMER_NS, get_def_mpx_ns, set_def_mpx_ns, 0 },
    { PAPI_ATTACH, get_attach, set_attach, 0 },
    { PAPI_DETACH, get_attach, set_detach, 0 },
    { PAPI_INHERIT, get_inherit, set_inherit, 0 },
    { PAPI_HWINFO, get_hwinfo, NULL, 0 },
    { PAPI_EXEINFO, get_exeinfo, NULL, 0 },
    { PAPI_SHLIBINFO, get_shlibinfo, NULL, 0 },
    { PAPI_COMPONENTINFO, get_componentinfo, NULL, 0 },
    { PAPI_LIB_VERSION, get_lib_version, NULL, 1 },
    { PAPI_PRELOAD, get_preload, NULL, 1 },
    { PAPI_CPU_ATTACH, get_cpu, set_cpu, 0 },
    { PAPI_DATA_ADDRESS, NULL, set_unsupported, 0 },
    { PAPI_INSTR_ADDRESS, NULL, set_unsupported, 0 },
};

static const struct option_row *option_find(int option)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (options[i].option == option)
            return &options[i];
    return NULL;
}

int PAPI_get_cmp_opt(int option, PAPI_option_t *ptr, int cidx)
{
    const struct option_row *o = option_find(option);
    if (!o || !o->get)
        return papi_ret(PAPI_EINVAL);
    if (!papi_inited() && !o->before_init)
        return papi_ret(PAPI_ENOINIT);
    int rc = o->get(ptr, cidx);
    return rc < 0 ? papi_ret(rc) : rc;
}

int PAPI_get_opt(int option, PAPI_option_t *ptr)
{
    return PAPI_get_cmp_opt(option, ptr, 0);
}

int PAPI_set_opt(int option, PAPI_option_t *ptr)
{
    const struct option_row *o = option_find(option);
    if (!o || !o->set)
        return papi_ret(PAPI_EINVAL);
    if (!papi_inited() && !o->before_init)
        return papi_ret(PAPI_ENOINIT);
    if (!ptr)
        return papi_ret(PAPI_EINVAL);
    return papi_ret(o->set(ptr));
}

/* ------------------------------------------------------------ defaults */

int PAPI_set_cmp_domain(int domain, int cidx)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (cidx < 0 || cidx >= papi_lib.ncomp)
        return papi_ret(PAPI_ENOCMP);
    if (domain < PAPI_DOM_MIN || (domain & ~PAPI_DOM_ALL))
        return papi_ret(PAPI_EINVAL);
    struct papi_component *c = &papi_lib.comp[cidx];
    unsigned have = c->hpm.domains;
    if (c->hpm.enabled && !((domain & PAPI_DOM_USER && have & HPM_DOMAIN_USER) ||
                            (domain & PAPI_DOM_KERNEL && have & HPM_DOMAIN_KERNEL)))
        return papi_ret(PAPI_EINVAL);
    c->default_domain = domain;
    return PAPI_OK;
}

int PAPI_set_domain(int domain)
{
    return PAPI_set_cmp_domain(domain, 0);
}

int PAPI_set_cmp_granularity(int granularity, int cidx)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (cidx < 0 || cidx >= papi_lib.ncomp)
        return papi_ret(PAPI_ENOCMP);
    if (granularity != PAPI_GRN_THR)
        return papi_ret(PAPI_EINVAL);
    papi_lib.comp[cidx].default_granularity = granularity;
    return PAPI_OK;
}

int PAPI_set_granularity(int granularity)
{
    return PAPI_set_cmp_granularity(granularity, 0);
}
