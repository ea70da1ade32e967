/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_threads.c - threads, thread-specific data, user locks, timers.
 *
 * Counting per thread is libhpm's business (its sets count the thread that
 * starts them). What PAPI adds is a registry of the threads that used the
 * library, each with PAPI_NUM_TLS user pointers, listable from any thread
 * (PAPI_list_threads, PAPI_get_thr_specific with PAPI_TLS_ALL_THREADS).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "papi_internal.h"
#include "papi_own_reader.h"

struct papi_thread {
    unsigned long id;
    void *data[PAPI_NUM_TLS];
    struct papi_thread *next;
};

static struct papi_thread *threads; /* guarded by papi_mutex */
/* Bumped at shutdown: a thread's cached record from an earlier generation
 * is gone and must not be touched. */
static unsigned generation = 1;
static _Thread_local struct papi_thread *self;
static _Thread_local unsigned self_generation;

static unsigned long current_id(void)
{
    if (papi_lib.thread_id_fn)
        return papi_lib.thread_id_fn();
    return (unsigned long)syscall(SYS_gettid);
}

struct papi_thread *papi_thread_self(void)
{
    if (self && self_generation == __atomic_load_n(&generation, __ATOMIC_ACQUIRE))
        return self;
    struct papi_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->id = current_id();
    pthread_mutex_lock(&papi_mutex);
    t->next = threads;
    threads = t;
    self = t;
    self_generation = generation;
    pthread_mutex_unlock(&papi_mutex);
    return t;
}

/* Called with papi_mutex held. */
void papi_threads_shutdown(void)
{
    while (threads) {
        struct papi_thread *t = threads;
        threads = t->next;
        free(t);
    }
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
    self = NULL;
}

int PAPI_thread_init(unsigned long (*id_fn)(void))
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!id_fn)
        return papi_ret(PAPI_EINVAL);
    int rc = hpm_thread_init(id_fn);
    if (rc < 0)
        return papi_ret(papi_from_hpm(rc, OP_ANY));
    papi_lib.thread_id_fn = id_fn;
    papi_lib.init_level |= PAPI_THREAD_LEVEL_INITED;
    /* the records made before know the thread by its kernel id */
    struct papi_thread *t = papi_thread_self();
    if (t)
        t->id = id_fn();
    return PAPI_OK;
}

unsigned long PAPI_thread_id(void)
{
    if (!papi_lib.thread_id_fn)
        return (unsigned long)PAPI_EMISC;
    return papi_lib.thread_id_fn();
}

int PAPI_register_thread(void)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!papi_thread_self())
        return papi_ret(PAPI_ENOMEM);
    int rc = hpm_thread_register();
    return rc < 0 ? papi_ret(papi_from_hpm(rc, OP_ANY)) : PAPI_OK;
}

int PAPI_unregister_thread(void)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    pthread_mutex_lock(&papi_mutex);
    if (self && self_generation == generation) {
        for (struct papi_thread **pp = &threads; *pp; pp = &(*pp)->next)
            if (*pp == self) {
                *pp = self->next;
                free(self);
                break;
            }
        self = NULL;
    }
    pthread_mutex_unlock(&papi_mutex);
    int rc = hpm_thread_unregister();
    return rc < 0 ? papi_ret(papi_from_hpm(rc, OP_ANY)) : PAPI_OK;
}

int PAPI_list_threads(unsigned long *tids, int *number)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!number || *number < 0)
        return papi_ret(PAPI_EINVAL);
    pthread_mutex_lock(&papi_mutex);
    int n = 0;
    for (struct papi_thread *t = threads; t; t = t->next) {
        if (tids && *number > 0) {
            if (n == *number)
                break;
            tids[n] = t->id;
        }
        n++;
    }
    pthread_mutex_unlock(&papi_mutex);
    *number = n;
    return PAPI_OK;
}

int PAPI_get_thr_specific(int tag, void **ptr)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    int slot = tag & ~PAPI_TLS_ALL_THREADS;
    if (!ptr || slot < 0 || slot >= PAPI_NUM_TLS)
        return papi_ret(PAPI_EINVAL);
    if (tag & PAPI_TLS_ALL_THREADS) {
        PAPI_all_thr_spec_t *all = (PAPI_all_thr_spec_t *)ptr;
        if (all->num < 0)
            return papi_ret(PAPI_EINVAL);
        pthread_mutex_lock(&papi_mutex);
        int n = 0;
        for (struct papi_thread *t = threads; t && n < all->num; t = t->next, n++) {
            if (all->id)
                all->id[n] = t->id;
            if (all->data)
                all->data[n] = t->data[slot];
        }
        pthread_mutex_unlock(&papi_mutex);
        all->num = n;
        return PAPI_OK;
    }
    struct papi_thread *t = papi_thread_self();
    if (!t)
        return papi_ret(PAPI_ENOMEM);
    *ptr = t->data[slot];
    return PAPI_OK;
}

int PAPI_set_thr_specific(int tag, void *ptr)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (tag < 0 || tag >= PAPI_NUM_TLS)
        return papi_ret(PAPI_EINVAL);
    struct papi_thread *t = papi_thread_self();
    if (!t)
        return papi_ret(PAPI_ENOMEM);
    t->data[tag] = ptr;
    return PAPI_OK;
}

/* ------------------------------------------------------------ user locks */

static pthread_mutex_t user_locks[PAPI_NUM_LOCK] = {
    PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER,
};

int PAPI_lock(int lck)
{
    if (lck < 0 || lck >= PAPI_NUM_LOCK)
        return papi_ret(PAPI_EINVAL);
    pthread_mutex_lock(&user_locks[lck]);
    return PAPI_OK;
}

int PAPI_unlock(int lck)
{
    if (lck < 0 || lck >= PAPI_NUM_LOCK)
        return papi_ret(PAPI_EINVAL);
    pthread_mutex_unlock(&user_locks[lck]);
    return PAPI_OK;
}

/* ------------------------------------------------------------ timers
 * Real time is the monotonic clock, virtual time the calling thread's CPU
 * time. Cycles are those times at the clock rate PAPI_get_hardware_info
 * reports (the modeled clock under the virtual PMU), so cycles and
 * microseconds always agree with each other. */

/* hpm_clock_ns: under the virtual PMU the tool reads the host's clock, no
 * system call of the program (Valgrind gives it no vDSO) */
static long long clock_ns(clockid_t id)
{
    return hpm_clock_ns((int)id);
}

static long long ns_to_cycles(long long ns)
{
    return (long long)((double)ns * papi_mhz() / 1000.0);
}

long long PAPI_get_real_nsec(void) { return clock_ns(CLOCK_MONOTONIC); }
long long papi_real_cyc_at(long long ns) { return ns_to_cycles(ns); }
long long PAPI_get_real_usec(void) { return clock_ns(CLOCK_MONOTONIC) / 1000; }
/* the cycles at the rate papi_sysinfo gave libhpm (hpm_clock_set_mhz), as
 * ns_to_cycles would make them of the clock's reading */
long long PAPI_get_real_cyc(void) { return hpm_clock_cycles(); }
long long PAPI_get_virt_nsec(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }
long long PAPI_get_virt_usec(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1000; }
long long PAPI_get_virt_cyc(void) { return ns_to_cycles(clock_ns(CLOCK_THREAD_CPUTIME_ID)); }
