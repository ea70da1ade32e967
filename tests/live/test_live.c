/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * src/live's snapshot against a writer that is slow in the middle of an
 * update: a view of this process whose sequence count a writer thread
 * keeps odd for 300 ms (as a writer descheduled on a loaded host does)
 * is still read, and the copy is the update's end, not its start; a
 * writer that died mid-update (odd for good) is an error, in bounded
 * time; and hpm_live_take_stale removes such a view (or one without a
 * header) of its pid, but not a file that names another pid, and takes a
 * whole publication of a running image or of one killed in its exec
 * (state EXEC, returned as such), not of an ended one.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hpm_check.h"
#include "live.h"
#include "vpmu_live.h"

static struct hpm_live *view;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* One update that stays open for 300 ms. */
static void *slow_writer(void *arg)
{
    (void)arg;
    __atomic_store_n(&view->seq, view->seq + 1, __ATOMIC_RELEASE); /* odd: updating */
    sleep_ms(300);
    view->updates = 2;
    view->values[0] = 4242;
    __atomic_store_n(&view->seq, view->seq + 1, __ATOMIC_RELEASE); /* even: done */
    return NULL;
}

static long long ns_of_self(void)
{
    char link[64];
    ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1);
    if (n <= 0)
        return -1;
    link[n] = 0;
    return strtoll(strchr(link, '[') + 1, NULL, 10);
}

int main(void)
{
    char path[256], err[256];
    struct hpm_live_reader r;
    struct hpm_live s;
    pthread_t t;
    struct timespec t0, t1;
    int fd;
    /* as hpm count takes it: a second before the views were made */
    long long since = (long long)time(NULL) - 1;
    snprintf(path, sizeof path, "%s/%s%lld.%ld", HPM_LIVE_SHM_DIR, HPM_LIVE_PREFIX, ns_of_self(),
             (long)getpid());
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd < 0 || ftruncate(fd, sizeof *view) != 0) {
        perror(path);
        return 1;
    }
    view = mmap(NULL, sizeof *view, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (view == MAP_FAILED) {
        unlink(path);
        return 1;
    }
    memset(view, 0, sizeof *view);
    view->magic = HPM_LIVE_MAGIC;
    view->version = HPM_LIVE_VERSION;
    view->size = sizeof *view;
    view->pid = (uint32_t)getpid();
    /* a parent that exists: other hpm commands running meanwhile leave the
     * unowned view to it (hpm_live_list's reap) */
    view->ppid = (uint32_t)getppid();
    view->state = HPM_LIVE_RUNNING;
    view->n_events = 1;
    view->codes[0] = 0;
    view->values[0] = 1;
    view->updates = 1;
    view->seq = 2;
    CHECK(hpm_live_open(&r, getpid(), err, sizeof err) == 0);
    CHECK(hpm_live_snapshot(&r, &s) == 0 && s.values[0] == 1);

    pthread_create(&t, NULL, slow_writer, NULL);
    sleep_ms(20); /* the update is open now */
    CHECK(hpm_live_snapshot(&r, &s) == 0);
    CHECK(s.values[0] == 4242 && s.updates == 2 && !(s.seq & 1));
    pthread_join(t, NULL);

    /* a writer killed in mid-update: an error within a few seconds */
    view->seq++;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(hpm_live_snapshot(&r, &s) == -1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(t1.tv_sec - t0.tv_sec < 10);

    hpm_live_close(&r);

    /* hpm_live_take_stale of a view nobody owns (no lock) made since:
     * another pid's header stays; this pid's without a whole publication
     * (killed in mid-update, or before its header) is not taken but goes */
    view->pid = (uint32_t)getpid() + 1;
    CHECK(hpm_live_take_stale(getpid(), since, &s) == -1);
    CHECK(access(path, F_OK) == 0);
    view->pid = (uint32_t)getpid();
    CHECK(hpm_live_take_stale(getpid(), since, &s) == -1);
    CHECK(access(path, F_OK) != 0);
    munmap(view, sizeof *view);
    close(fd);
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600); /* empty: no header */
    CHECK(fd >= 0);
    CHECK(hpm_live_take_stale(getpid(), since, &s) == -1);
    CHECK(access(path, F_OK) != 0);
    if (fd >= 0)
        close(fd);
    unlink(path);

    /* whole publications nobody owns: RUNNING and EXEC taken (the state
     * says which), EXITED not; each removed */
    {
        static const uint32_t states[] = {HPM_LIVE_RUNNING, HPM_LIVE_EXEC, HPM_LIVE_EXITED};
        struct hpm_live w;
        unsigned k;
        for (k = 0; k < 3; k++) {
            memset(&w, 0, sizeof w);
            w.magic = HPM_LIVE_MAGIC;
            w.version = HPM_LIVE_VERSION;
            w.size = sizeof w;
            w.pid = (uint32_t)getpid();
            w.state = states[k];
            w.updates = 3;
            w.seq = 4;
            w.n_events = 1;
            w.values[0] = 77 + k;
            snprintf(w.command, sizeof w.command, "prog %u", k);
            fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
            CHECK(fd >= 0);
            if (fd < 0)
                break;
            CHECK(pwrite(fd, &w, sizeof w, 0) == (ssize_t)sizeof w);
            close(fd);
            memset(&s, 0, sizeof s);
            if (states[k] == HPM_LIVE_EXITED) {
                CHECK(hpm_live_take_stale(getpid(), since, &s) == -1);
            } else {
                CHECK(hpm_live_take_stale(getpid(), since, &s) == 0);
                CHECK(s.state == states[k] && s.values[0] == 77 + k &&
                      strcmp(s.command, w.command) == 0);
            }
            CHECK(access(path, F_OK) != 0);
            unlink(path);
        }
    }
    if (failures)
        return 1;
    printf("ok: a 300 ms update read at its end; a dead writer refused; a stale view without a "
           "whole publication removed, another pid's kept; running and exec views taken, an "
           "ended one not\n");
    return 0;
}
