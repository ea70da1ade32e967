/* SPDX-License-Identifier: BSD-3-Clause */
/* live.c - reading live views (live.h). */
#define _GNU_SOURCE /* sched_yield */
#include "live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void path_of(pid_t pid, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s%ld", HPM_LIVE_SHM_DIR, HPM_LIVE_PREFIX, (long)pid);
}

static int open_path(struct hpm_live_reader *r, pid_t pid, const char *path, char *err,
                     size_t errlen);

int hpm_live_open(struct hpm_live_reader *r, pid_t pid, char *err, size_t errlen)
{
    char path[128];
    path_of(pid, path, sizeof path);
    return open_path(r, pid, path, err, errlen);
}

int hpm_live_open_child(struct hpm_live_reader *r, pid_t pid, int exited, char *err,
                        size_t errlen)
{
    char path[160];
    path_of(pid, path, sizeof path);
    if (exited)
        strcat(path, HPM_LIVE_EXITED_SUFFIX);
    return open_path(r, pid, path, err, errlen);
}

static int open_path(struct hpm_live_reader *r, pid_t pid, const char *path, char *err,
                     size_t errlen)
{
    struct stat st;
    void *m;
    int fd;
    r->map = NULL;
    r->pid = pid;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT)
            snprintf(err, errlen, "process %ld does not run under hpm (no %s)%s", (long)pid,
                     path, kill(pid, 0) == 0 || errno == EPERM ? "" : ", or it has ended");
        else
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (size_t)st.st_size < sizeof(struct hpm_live)) {
        snprintf(err, errlen, "%s: not a live view of this hpm (%lld bytes)", path,
                 (long long)st.st_size);
        close(fd);
        return -1;
    }
    m = mmap(NULL, sizeof(struct hpm_live), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
        return -1;
    }
    r->map = m;
    if (r->map->magic != HPM_LIVE_MAGIC || r->map->version != HPM_LIVE_VERSION ||
        r->map->size != sizeof(struct hpm_live)) {
        snprintf(err, errlen, "%s: a live view of another hpm build (version %u)", path,
                 r->map->version);
        hpm_live_close(r);
        return -1;
    }
    return 0;
}

void hpm_live_close(struct hpm_live_reader *r)
{
    if (r->map)
        munmap((void *)r->map, sizeof(struct hpm_live));
    r->map = NULL;
}

int hpm_live_snapshot(const struct hpm_live_reader *r, struct hpm_live *out)
{
    int tries;
    if (!r->map)
        return -1;
    for (tries = 0; tries < 1000; tries++) {
        uint64_t s1 = __atomic_load_n(&r->map->seq, __ATOMIC_ACQUIRE), s2;
        if (s1 & 1) {
            sched_yield(); /* the writer is in the middle of an update */
            continue;
        }
        memcpy(out, (const void *)r->map, sizeof *out);
#ifdef __SANITIZE_THREAD__
        /* ThreadSanitizer has no fences (libhpm, which attaches through
         * this, is in the TSan build): a sequentially consistent load */
        s2 = __atomic_load_n(&r->map->seq, __ATOMIC_SEQ_CST);
#else
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        s2 = __atomic_load_n(&r->map->seq, __ATOMIC_RELAXED);
#endif
        if (s1 == s2) {
            if (out->n_events > HPM_LIVE_MAX_EVENTS)
                out->n_events = HPM_LIVE_MAX_EVENTS;
            if (out->n_raw > HPM_LIVE_RAW)
                out->n_raw = HPM_LIVE_RAW;
            out->machine[sizeof out->machine - 1] = 0;
            out->command[sizeof out->command - 1] = 0;
            return 0;
        }
    }
    return -1;
}

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return x < y ? -1 : x > y;
}

unsigned hpm_live_list(pid_t *pids, unsigned max, int reap)
{
    DIR *d = opendir(HPM_LIVE_SHM_DIR);
    struct dirent *e;
    size_t pl = strlen(HPM_LIVE_PREFIX);
    unsigned n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid;
        if (strncmp(e->d_name, HPM_LIVE_PREFIX, pl) != 0)
            continue;
        pid = strtol(e->d_name + pl, &end, 10);
        if (*end || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            /* its tool was killed before it could remove the view */
            if (reap) {
                char path[128];
                path_of((pid_t)pid, path, sizeof path);
                unlink(path);
            }
            continue;
        }
        if (n < max)
            pids[n++] = (pid_t)pid;
    }
    closedir(d);
    if (reap)
        hpm_live_reap_exited();
    if (n > 1)
        qsort(pids, n, sizeof *pids, cmp_pid);
    return n;
}

uint64_t hpm_live_value(const struct hpm_live *s, unsigned code, int *have)
{
    unsigned i;
    for (i = 0; i < s->n_events && i < HPM_LIVE_MAX_EVENTS; i++)
        if (s->codes[i] == code) {
            *have = 1;
            return s->values[i];
        }
    *have = 0;
    return 0;
}

int hpm_live_is_tool_process(pid_t pid)
{
    char path[64], exe[4096];
    const char *base;
    ssize_t n;
    size_t bl;
    snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
    n = readlink(path, exe, sizeof exe - 1);
    if (n < 0)
        return errno == ENOENT ? -1 : 0;
    exe[n] = 0;
    base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    bl = strlen(base);
    return strncmp(base, "hpm-", 4) == 0 && bl > 10 && strcmp(base + bl - 6, "-linux") == 0;
}

int hpm_live_open_wait(struct hpm_live_reader *r, pid_t pid, unsigned wait_ms, char *err,
                       size_t errlen)
{
    unsigned waited = 0;
    for (;;) {
        if (hpm_live_open(r, pid, err, errlen) == 0)
            return 0;
        if (waited >= wait_ms || hpm_live_is_tool_process(pid) != 1)
            return -1;
        {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        waited += 10;
    }
}

int hpm_live_request_models(const struct hpm_live_reader *r)
{
    char path[128];
    uint32_t one = 1;
    ssize_t n;
    int fd, e;
    path_of(r->pid, path, sizeof path);
    fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    n = pwrite(fd, &one, sizeof one, (off_t)offsetof(struct hpm_live, want_models));
    e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)sizeof one ? 0 : -1;
}

/* The ppid field of a view file, or 0. */
static pid_t view_ppid(const char *name)
{
    char path[512];
    uint32_t ppid = 0;
    int fd;
    snprintf(path, sizeof path, "%s/%s", HPM_LIVE_SHM_DIR, name);
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    if (pread(fd, &ppid, sizeof ppid, (off_t)offsetof(struct hpm_live, ppid)) !=
        (ssize_t)sizeof ppid)
        ppid = 0;
    close(fd);
    return (pid_t)ppid;
}

/* Calls fn for every view name with its pid and whether it is a kept
 * exited one. */
static void each_view(void (*fn)(const char *name, pid_t pid, int exited, void *ctx), void *ctx)
{
    DIR *d = opendir(HPM_LIVE_SHM_DIR);
    struct dirent *e;
    size_t pl = strlen(HPM_LIVE_PREFIX);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid;
        int exited;
        if (strncmp(e->d_name, HPM_LIVE_PREFIX, pl) != 0)
            continue;
        pid = strtol(e->d_name + pl, &end, 10);
        exited = strcmp(end, HPM_LIVE_EXITED_SUFFIX) == 0;
        if (pid <= 0 || (*end && !exited))
            continue;
        fn(e->d_name, (pid_t)pid, exited, ctx);
    }
    closedir(d);
}

struct children_ctx {
    pid_t parent, *pids;
    int *exited;
    unsigned n, max;
};

static void child_of(const char *name, pid_t pid, int exited, void *ctx)
{
    struct children_ctx *c = ctx;
    if (c->n < c->max && view_ppid(name) == c->parent) {
        c->pids[c->n] = pid;
        c->exited[c->n++] = exited;
    }
}

unsigned hpm_live_children(pid_t parent, pid_t *pids, int *exited, unsigned max)
{
    struct children_ctx c = {parent, pids, exited, 0, max};
    unsigned i, j;
    each_view(child_of, &c);
    for (i = 1; i < c.n; i++) /* few: insertion sort by pid */
        for (j = i; j > 0 && pids[j - 1] > pids[j]; j--) {
            pid_t p = pids[j];
            int x = exited[j];
            pids[j] = pids[j - 1];
            exited[j] = exited[j - 1];
            pids[j - 1] = p;
            exited[j - 1] = x;
        }
    return c.n;
}

static void reap_exited(const char *name, pid_t pid, int exited, void *ctx)
{
    pid_t ppid;
    (void)pid;
    (void)ctx;
    if (!exited)
        return;
    ppid = view_ppid(name);
    if (ppid <= 0 || (kill(ppid, 0) != 0 && errno == ESRCH)) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", HPM_LIVE_SHM_DIR, name);
        unlink(path);
    }
}

void hpm_live_reap_exited(void)
{
    each_view(reap_exited, NULL);
}
