/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_eventset.h - per-set options, for PAPI_get_opt/PAPI_set_opt.
 * Each returns PAPI_OK, a value (the get_ forms), or a PAPI error code
 * (not yet passed through papi_ret: the option layer does that).
 */
#ifndef HPM_PAPI_EVENTSET_H
#define HPM_PAPI_EVENTSET_H

int papi_es_set_domain(int EventSet, int domain);
int papi_es_get_domain(int EventSet);
int papi_es_set_granularity(int EventSet, int granularity);
int papi_es_get_granularity(int EventSet);
int papi_es_set_multiplex(int EventSet);
int papi_es_get_multiplex(int EventSet);
int papi_es_attach(int EventSet, unsigned long tid, int on);
int papi_es_get_attach(int EventSet, unsigned long *tid);
int papi_es_cpu_attach(int EventSet, unsigned int cpu);
int papi_es_get_cpu(int EventSet, unsigned int *cpu);
int papi_es_set_inherit(int EventSet, int on);
int papi_es_get_inherit(int EventSet);

#endif /* HPM_PAPI_EVENTSET_H */
