/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pipe_pool.c W J - a pool of W worker threads fed through pipes: the main
 * thread writes J jobs into one pipe, each worker reads jobs from it,
 * sums 0..job-1 and writes the job back into a second pipe, which the main
 * thread reads J times; a job of -1 ends a worker. Prints the sum of the
 * workers' sums, which does not depend on which worker took which job.
 * With one worker every read waits for exactly one writer (docs/vpmu.md,
 * "Interleaving": a pipe's write wakes its one waiting reader in modeled
 * time); with several the kernel picks the reader.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int jobs[2], done[2];

static void *worker(void *arg)
{
    long sum = 0;
    int job;
    (void)arg;
    while (read(jobs[0], &job, sizeof job) == sizeof job && job >= 0) {
        for (int i = 0; i < job; i++)
            sum += i;
        if (write(done[1], &job, sizeof job) != sizeof job)
            abort();
    }
    return (void *)sum;
}

int main(int argc, char **argv)
{
    pthread_t t[16];
    int w, j, k, job;
    long total = 0;
    if (argc != 3 || (w = atoi(argv[1])) < 1 || w > 16 || (j = atoi(argv[2])) < 0) {
        fprintf(stderr, "usage: %s WORKERS(1-16) JOBS\n", argv[0]);
        return 2;
    }
    if (pipe(jobs) || pipe(done))
        return 2;
    for (k = 0; k < w; k++)
        if (pthread_create(&t[k], NULL, worker, NULL))
            return 2;
    for (k = 0; k < j; k++) {
        job = 100 + k % 1000;
        if (write(jobs[1], &job, sizeof job) != sizeof job)
            return 2;
    }
    for (k = 0; k < j; k++)
        if (read(done[0], &job, sizeof job) != sizeof job)
            return 2;
    for (k = 0; k < w; k++) {
        job = -1;
        if (write(jobs[1], &job, sizeof job) != sizeof job)
            return 2;
    }
    for (k = 0; k < w; k++) {
        void *sum;
        pthread_join(t[k], &sum);
        total += (long)sum;
    }
    printf("%ld\n", total);
    return 0;
}
