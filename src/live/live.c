/* SPDX-License-Identifier: BSD-3-Clause */
/* live.c - reading live views (live.h). */
#define _GNU_SOURCE /* sched_yield, F_OFD_* */
#include "live.h"

#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The inode of a pid namespace from its /proc link ("pid:[4026531836]"),
 * or 0 when it cannot be read. */
static unsigned long long ns_of(const char *link)
{
    char buf[64], *p;
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    p = strchr(buf, '[');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

static unsigned long long own_ns(void)
{
    return ns_of("/proc/self/ns/pid");
}

/* The pid namespace of pid and its pid there (the last NSpid field), as
 * the tool in that process names its view; the caller's own namespace and
 * pid when /proc does not say. */
static void target_of(pid_t pid, unsigned long long *ns, long *inner)
{
    char path[64], line[256];
    FILE *f;
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", (long)pid);
    *ns = ns_of(path);
    *inner = pid;
    if (!*ns) {
        *ns = own_ns();
        return;
    }
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    if (!(f = fopen(path, "re")))
        return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "NSpid:", 6) == 0) {
            char *p = line + 6, *end;
            long v;
            for (;;) {
                v = strtol(p, &end, 10);
                if (end == p)
                    break;
                *inner = v;
                p = end;
            }
            break;
        }
    fclose(f);
}

static void name_of(char *buf, size_t len, unsigned long long ns, long pid, const char *suffix)
{
    snprintf(buf, len, "%s/%s%llu.%ld%s", HPM_LIVE_SHM_DIR, HPM_LIVE_PREFIX, ns, pid, suffix);
}

/* Opens a view file without following a link or blocking on a FIFO; -1
 * with errno (EINVAL: not a regular file). */
static int open_view(const char *path, int flags)
{
    return hpm_file_open_regular_flags(path, flags | O_NOFOLLOW);
}

/* Whether somebody holds the view's ownership lock (vpmu_live.h): 1 yes,
 * 0 no (stale), -1 cannot tell. */
static int view_owned(int fd)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
        return -1;
    return fl.l_type != F_UNLCK;
}

/* Removes path when it is stale: under the owner's lock, taken here, and
 * only while the name still names the file locked (a new writer's file
 * at the same name is never removed). 1 removed, 0 not. */
static int remove_if_stale(const char *path)
{
    struct flock fl;
    struct stat st, now;
    int fd = open_view(path, O_RDWR), removed = 0;
    if (fd < 0)
        return 0;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0 && fstat(fd, &st) == 0 &&
        lstat(path, &now) == 0 && now.st_ino == st.st_ino && now.st_dev == st.st_dev)
        removed = unlink(path) == 0;
    close(fd); /* drops the lock */
    return removed;
}

static int open_path(struct hpm_live_reader *r, pid_t pid, const char *path, char *err,
                     size_t errlen);

int hpm_live_open(struct hpm_live_reader *r, pid_t pid, char *err, size_t errlen)
{
    char path[HPM_LIVE_NAME_MAX];
    unsigned long long ns;
    long inner;
    target_of(pid, &ns, &inner);
    name_of(path, sizeof path, ns, inner, "");
    return open_path(r, pid, path, err, errlen);
}

int hpm_live_open_child(struct hpm_live_reader *r, pid_t pid, int exited, char *err,
                        size_t errlen)
{
    char path[HPM_LIVE_NAME_MAX];
    /* children found by hpm_live_children: this namespace's names */
    name_of(path, sizeof path, own_ns(), (long)pid, exited ? HPM_LIVE_EXITED_SUFFIX : "");
    return open_path(r, pid, path, err, errlen);
}

static int open_path(struct hpm_live_reader *r, pid_t pid, const char *path, char *err,
                     size_t errlen)
{
    struct stat st;
    struct hpm_live head;
    const size_t head_len = offsetof(struct hpm_live, seq);
    int fd;
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->pid = pid;
    fd = open_view(path, O_RDONLY);
    if (fd < 0) {
        if (errno == ENOENT)
            snprintf(err, errlen, "process %ld does not run under hpm (no %s)%s", (long)pid,
                     path, kill(pid, 0) == 0 || errno == EPERM ? "" : ", or it has ended");
        else if (errno == EINVAL || errno == ELOOP)
            snprintf(err, errlen, "%s: not a live view (not a regular file)", path);
        else
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct hpm_live) ||
        pread(fd, &head, head_len, 0) != (ssize_t)head_len) {
        snprintf(err, errlen, "%s: not a live view of this hpm (%lld bytes)", path,
                 (long long)st.st_size);
        close(fd);
        return -1;
    }
    if (head.magic != HPM_LIVE_MAGIC || head.version != HPM_LIVE_VERSION ||
        head.size != sizeof(struct hpm_live)) {
        snprintf(err, errlen, "%s: a live view of another hpm build (version %u)", path,
                 head.version);
        close(fd);
        return -1;
    }
    r->open = 1;
    r->fd = fd;
    snprintf(r->path, sizeof r->path, "%s", path);
    return 0;
}

void hpm_live_close(struct hpm_live_reader *r)
{
    if (r->open)
        close(r->fd);
    r->open = 0;
    r->fd = -1;
}

void hpm_live_printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

void hpm_live_fputs_printable(const char *s, FILE *f)
{
    char chunk[256];
    size_t len = strlen(s), at;
    for (at = 0; at < len; at += sizeof chunk - 1) {
        snprintf(chunk, sizeof chunk, "%.*s", (int)(sizeof chunk - 1), s + at);
        hpm_live_printable(chunk);
        fputs(chunk, f);
    }
}

/* A snapshot as a reader may use it: counts within their arrays, names
 * terminated and printable (the view's writer is not trusted). */
static void bound_snapshot(struct hpm_live *out)
{
    if (out->n_events > HPM_LIVE_MAX_EVENTS)
        out->n_events = HPM_LIVE_MAX_EVENTS;
    if (out->n_raw > HPM_LIVE_RAW)
        out->n_raw = HPM_LIVE_RAW;
    out->machine[sizeof out->machine - 1] = 0;
    out->command[sizeof out->command - 1] = 0;
    hpm_live_printable(out->machine);
    hpm_live_printable(out->command);
}

static int read_seq(int fd, uint64_t *seq)
{
    return pread(fd, seq, sizeof *seq, (off_t)offsetof(struct hpm_live, seq)) ==
                   (ssize_t)sizeof *seq
               ? 0
               : -1;
}

/* A writer descheduled in the middle of an update (a loaded host: other
 * processes take the cores for tens of milliseconds) keeps its sequence
 * odd that long: a reader yields first, then sleeps a millisecond a try,
 * and gives up only when an update has stayed open this long (the writer
 * died in it). */
#define SNAPSHOT_PATIENCE_MS 2000

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int hpm_live_snapshot(const struct hpm_live_reader *r, struct hpm_live *out)
{
    unsigned tries;
    uint64_t t0 = 0;
    if (!r->open)
        return -1;
    for (tries = 0;; tries++) {
        uint64_t s1, s2;
        if (read_seq(r->fd, &s1) != 0)
            return -1; /* truncated under us */
        if (tries >= 100) {
            const struct timespec ms = {0, 1000000L};
            if (!t0)
                t0 = mono_ms();
            else if (mono_ms() - t0 > SNAPSHOT_PATIENCE_MS)
                return -1;
            nanosleep(&ms, NULL);
        }
        if (s1 & 1) {
            sched_yield(); /* the writer is in the middle of an update */
            continue;
        }
        /* the copy, then the sequence again: the kernel's copy of the
         * writer's page follows its release stores in order (x86-64) */
        if (pread(r->fd, out, sizeof *out, 0) != (ssize_t)sizeof *out)
            return -1;
        if (read_seq(r->fd, &s2) != 0)
            return -1;
        if (s1 == s2 && out->seq == s1 && out->magic == HPM_LIVE_MAGIC) {
            bound_snapshot(out);
            return 0;
        }
    }
    return -1;
}

int hpm_live_take_stale(pid_t pid, long long since, struct hpm_live *out)
{
    char path[HPM_LIVE_NAME_MAX];
    struct flock fl;
    struct stat st, now;
    int fd, ok = 0;
    name_of(path, sizeof path, own_ns(), (long)pid, "");
    fd = open_view(path, O_RDWR);
    if (fd < 0)
        return -1;
    /* the owner's lock, taken here: nobody holds it, and no reader removes
     * the file while it is read */
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0 && fstat(fd, &st) == 0 && lstat(path, &now) == 0 &&
        now.st_ino == st.st_ino && now.st_dev == st.st_dev && (long long)st.st_ctime >= since) {
        int whole = (size_t)st.st_size >= sizeof *out &&
                    pread(fd, out, sizeof *out, 0) == (ssize_t)sizeof *out;
        /* this pid's view, or one its tool was killed before it wrote it
         * (shorter, or no header yet): removed, taken or not */
        int its = !whole || out->magic == 0 ||
                  (out->magic == HPM_LIVE_MAGIC && out->pid == (uint32_t)pid);
        /* even seq: the writer was not killed in the middle of an update */
        ok = whole && out->magic == HPM_LIVE_MAGIC && out->version == HPM_LIVE_VERSION &&
             out->size == sizeof *out && !(out->seq & 1) && out->pid == (uint32_t)pid &&
             (out->state == HPM_LIVE_RUNNING || out->state == HPM_LIVE_EXEC) && out->updates > 0;
        if (ok)
            bound_snapshot(out);
        if (its && unlink(path) != 0)
            ok = 0;
    }
    close(fd); /* drops the lock */
    return ok ? 0 : -1;
}

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return x < y ? -1 : x > y;
}

/* A view's name: its namespace, pid and whether it is a kept exited one;
 * 0 when the name is not a view's. */
static int parse_name(const char *name, unsigned long long *ns, long *pid, int *exited)
{
    size_t pl = strlen(HPM_LIVE_PREFIX);
    char *end;
    if (strncmp(name, HPM_LIVE_PREFIX, pl) != 0)
        return 0;
    *ns = strtoull(name + pl, &end, 10);
    if (*end != '.' || end == name + pl)
        return 0;
    *pid = strtol(end + 1, &end, 10);
    *exited = strcmp(end, HPM_LIVE_EXITED_SUFFIX) == 0;
    return *pid > 0 && (!*end || *exited);
}

static int parent_view_owned(const char *path);
static pid_t view_ppid(const char *path);

/* Whether the parent that a view of this namespace names (its ppid
 * field) still exists, ended but not yet reaped included: its reaper (a
 * parent under the tool, or hpm for the program and for orphans) has not
 * read the view yet. */
static int parent_exists(const char *path)
{
    pid_t ppid = view_ppid(path);
    return ppid > 1 && (kill(ppid, 0) == 0 || errno == EPERM);
}

unsigned hpm_live_list(pid_t *pids, unsigned max, int reap)
{
    DIR *d = opendir(HPM_LIVE_SHM_DIR);
    struct dirent *e;
    unsigned long long mine = own_ns(), ns;
    unsigned n = 0;
    long pid;
    int exited;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char path[sizeof HPM_LIVE_SHM_DIR + 256];
        int fd, owned;
        if (!parse_name(e->d_name, &ns, &pid, &exited) || exited)
            continue;
        snprintf(path, sizeof path, "%s/%s", HPM_LIVE_SHM_DIR, e->d_name);
        fd = open_view(path, O_RDONLY);
        if (fd < 0)
            continue; /* not a view: a FIFO or link is left alone */
        owned = view_owned(fd);
        close(fd);
        if (owned == 0) {
            /* its tool was killed before it could remove the view; while
             * its parent runs under the tool, the parent's hpm count may
             * still take it (hpm_live_take_stale: what the killed process
             * counted last) */
            if (reap && !parent_view_owned(path) && !(ns == mine && parent_exists(path)))
                remove_if_stale(path);
            continue;
        }
        if (ns == mine && n < max)
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
    uint32_t one = 1;
    struct stat a, b;
    ssize_t n;
    int fd, e;
    if (!r->open)
        return errno = EBADF, -1;
    fd = open_view(r->path, O_WRONLY);
    if (fd < 0)
        return -1;
    /* the file this reader has open, not a new one at the name */
    if (fstat(fd, &a) != 0 || fstat(r->fd, &b) != 0 || a.st_ino != b.st_ino ||
        a.st_dev != b.st_dev) {
        close(fd);
        return errno = ESRCH, -1;
    }
    n = pwrite(fd, &one, sizeof one, (off_t)offsetof(struct hpm_live, want_models));
    e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)sizeof one ? 0 : -1;
}

/* The ppid field of a view file, or 0. */
static pid_t view_ppid(const char *path)
{
    uint32_t ppid = 0;
    int fd = open_view(path, O_RDONLY);
    if (fd < 0)
        return 0;
    if (pread(fd, &ppid, sizeof ppid, (off_t)offsetof(struct hpm_live, ppid)) !=
        (ssize_t)sizeof ppid)
        ppid = 0;
    close(fd);
    return (pid_t)ppid;
}

/* Calls fn for every view of this pid namespace (of every one: all) with
 * its path, pid and whether it is a kept exited one. */
static void each_view(void (*fn)(const char *path, pid_t pid, int exited, void *ctx), void *ctx,
                      int all)
{
    DIR *d = opendir(HPM_LIVE_SHM_DIR);
    struct dirent *e;
    unsigned long long mine = own_ns(), ns;
    long pid;
    int exited;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char path[sizeof HPM_LIVE_SHM_DIR + 256];
        if (!parse_name(e->d_name, &ns, &pid, &exited) || (ns != mine && !all))
            continue;
        snprintf(path, sizeof path, "%s/%s", HPM_LIVE_SHM_DIR, e->d_name);
        fn(path, (pid_t)pid, exited, ctx);
    }
    closedir(d);
}

struct children_ctx {
    pid_t parent, *pids;
    int *exited;
    unsigned n, max;
};

static void child_of(const char *path, pid_t pid, int exited, void *ctx)
{
    struct children_ctx *c = ctx;
    if (c->n < c->max && view_ppid(path) == c->parent) {
        c->pids[c->n] = pid;
        c->exited[c->n++] = exited;
    }
}

unsigned hpm_live_children(pid_t parent, pid_t *pids, int *exited, unsigned max)
{
    struct children_ctx c = {parent, pids, exited, 0, max};
    unsigned i, j;
    each_view(child_of, &c, 0);
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

/* Whether the view at path has a parent (its ppid field) whose view, of
 * the same namespace, is held by a running tool: 1, else 0. */
static int parent_view_owned(const char *path)
{
    char parent[sizeof HPM_LIVE_SHM_DIR + 256 + 24];
    const char *dot;
    pid_t ppid = view_ppid(path);
    int fd, owned = 0;
    /* the parent's name: this view's "hpm-live.NS." and the parent's pid */
    dot = strrchr(path, '/');
    dot = dot ? strchr(dot + 1 + strlen(HPM_LIVE_PREFIX), '.') : NULL;
    if (ppid > 0 && dot) {
        snprintf(parent, sizeof parent, "%.*s.%ld", (int)(dot - path), path, (long)ppid);
        if ((fd = open_view(parent, O_RDONLY)) >= 0) {
            owned = view_owned(fd) == 1;
            close(fd);
        }
    }
    return owned;
}

/* A kept exited view goes once its parent's view (same namespace) is gone
 * or stale: the parent has ended and can no longer read it. */
static void reap_exited(const char *path, pid_t pid, int exited, void *ctx)
{
    (void)pid;
    (void)ctx;
    if (exited && !parent_view_owned(path))
        unlink(path);
}

void hpm_live_reap_exited(void)
{
    each_view(reap_exited, NULL, 1);
}
