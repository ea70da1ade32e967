/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * state.c - the library's state (g_hpm), whether it is initialised, which
 * components are enabled, and the calling thread's record.
 *
 * Below every other file of the core: sets, overflow, regions and the
 * event calls ask here, and nothing here calls them. Making a record arms
 * the thread-exit destructor (core.c creates hpm__exit_key at hpm_init),
 * which is how a thread's sets get stopped without this file calling set.c.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#include <string.h>

#include "hpm_internal.h"

struct hpm_global g_hpm = {.lock = PTHREAD_MUTEX_INITIALIZER};

pthread_key_t hpm__exit_key = (pthread_key_t)-1;

/* The calling thread's record and handler flag (hpm_internal.h). */
__thread struct hpm_tls hpm__tls __attribute__((tls_model("initial-exec")));

int hpm__check_init(void)
{
    int ok;
    pthread_mutex_lock(&g_hpm.lock);
    ok = g_hpm.initialized;
    pthread_mutex_unlock(&g_hpm.lock);
    return ok ? HPM_OK : HPM_ENOINIT;
}

int hpm__comp_enabled(int comp)
{
    return comp >= 0 && comp < HPM_NCOMP && g_hpm.comp[comp].info.enabled;
}

void hpm__self_forget(void)
{
    hpm__tls.self = NULL;
}

struct hpm_thread *hpm__self(void)
{
    /* an existing record is the thread's own: no lock to find it */
    struct hpm_thread *t = hpm__self_if_any();
    if (t)
        return t;
    /* aligned as its type asks (hpm_thread.per[]: a line per component) */
    t = aligned_alloc(_Alignof(struct hpm_thread), sizeof *t);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    pthread_mutex_lock(&g_hpm.lock);
    t->tid = hpm__gettid();
    t->id = g_hpm.id_fn ? g_hpm.id_fn() : (unsigned long)t->tid;
    t->alive = 1;
    pthread_mutex_init(&t->rmu, NULL);
    t->next = g_hpm.threads;
    g_hpm.threads = t;
    hpm__tls.self = t;
    hpm__tls.epoch = g_hpm.epoch;
    pthread_mutex_unlock(&g_hpm.lock);
    /* any non-NULL value makes the destructor run at thread exit */
    if (hpm__exit_key != (pthread_key_t)-1)
        pthread_setspecific(hpm__exit_key, (void *)1);
    return t;
}
