/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Three threads do N double adds each and exit; then main does N adds and
 * dies of SIGSEGV. The output file must still be written ("exit signal"),
 * with all four threads (three already exited) and exact FP counts. */
#include <pthread.h>

#include "vpmu_test.h"

#define N 2000


static void *worker(void *p)
{
    vpmu_test_scalar_adds(N);
    return p;
}

int main(void)
{
    pthread_t t[3];
    int i;

    vpmu_test_require_tool();
    for (i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    vpmu_test_scalar_adds(N);
    fflush(NULL);
    {
        volatile int *volatile bad = NULL;
        *bad = 1; /* SIGSEGV */
    }
    return 0;
}
