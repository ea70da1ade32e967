/* SPDX-License-Identifier: BSD-3-Clause */
/* runner.c - the tool, temporary folders, running a child (runner.h). */
#define _GNU_SOURCE /* wait4, pipe2, mkdtemp, F_OFD_SETLK */
#include "util/runner.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/install_dirs.h"

#ifndef HPM_VALGRIND_EXECUTABLE
#define HPM_VALGRIND_EXECUTABLE ""
#endif
#define VPMU_TOOL_FILE "hpm-amd64-linux"
#define OWNER_FILE "owner"

static const char *env_or(const char *env, const char *dflt)
{
    const char *v = getenv(env);
    return v && *v ? v : dflt;
}

/* ------------------------------------------------------------ the tool */

int runner_find_tool(const char *cmd, const char **vg, const char **lib)
{
    static char dir[PATH_MAX];
    char tool[PATH_MAX + sizeof VPMU_TOOL_FILE + 1];
    *vg = env_or("HPM_VALGRIND", HPM_VALGRIND_EXECUTABLE);
    hpm_part_dir(HPM_PART_VPMU, VPMU_TOOL_FILE, dir, sizeof dir);
    *lib = dir;
    if (!**vg) {
        fprintf(stderr,
                "%s: the virtual PMU is not part of this build (Valgrind or its "
                "development files were missing when it was configured, or it is a sanitizer "
                "build); install valgrind and rebuild, or set HPM_VALGRIND and HPM_VALGRIND_LIB\n",
                cmd);
        return 1;
    }
    snprintf(tool, sizeof tool, "%s/%s", *lib, VPMU_TOOL_FILE);
    if (access(tool, R_OK | X_OK) != 0) {
        fprintf(stderr,
                "%s: the virtual PMU tool %s is missing (%s): run make in a build tree, "
                "reinstall an installed one, or set HPM_VALGRIND_LIB to its folder\n",
                cmd, tool, strerror(errno));
        return 1;
    }
    if (access(*vg, X_OK) != 0) {
        fprintf(stderr, "%s: cannot run valgrind at %s (%s)\n", cmd, *vg, strerror(errno));
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ temporary folders */

/* Field 22 of /proc/PID/stat: the process's start time in clock ticks after
 * boot, which tells a pid's owner from a later process reusing the pid. 0
 * when the process does not exist. */
static unsigned long long start_time(long pid)
{
    char path[64], buf[1024], *p;
    unsigned long long t = 0;
    int field;
    size_t n;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (!(f = fopen(path, "r")))
        return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* the command name (field 2) may hold spaces and parentheses */
    if (!(p = strrchr(buf, ')')))
        return 0;
    for (field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (p)
        t = strtoull(p + 1, NULL, 10);
    return t;
}

/* An open-file-description write lock on the owner file: the owner holds
 * it for the folder's whole life on a descriptor of its own; the kernel
 * drops it when the owner dies, however it dies, and in whatever pid
 * namespace it ran (a pid means nothing across containers sharing /tmp). */
static int lock_owner(int fd, int wait)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl);
}

/* Removes the entries of an open folder (never following a link), then
 * the folder. A process of a killed hpm's tree may still write its file
 * between the two (it ends itself within its lease check): the removal
 * is tried again while the folder is found not empty. */
static void remove_folder(int dfd, const char *dir)
{
    unsigned tries;
    for (tries = 0; tries < 20; tries++) {
        int fd = dup(dfd);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *e;
        if (d) {
            rewinddir(d);
            while ((e = readdir(d)) != NULL)
                if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                    unlinkat(dfd, e->d_name, 0);
            closedir(d);
        } else if (fd >= 0) {
            close(fd);
        }
        if (rmdir(dir) == 0 || errno != ENOTEMPTY)
            return;
        usleep(10000);
    }
}

int runner_reap_if_dead(const char *dir)
{
    long pid = 0;
    unsigned long long t = 0;
    char line[64];
    ssize_t n;
    struct stat st;
    int dfd, ofd, reaped = 0;
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    if (fstat(dfd, &st) != 0 || st.st_uid != getuid()) {
        close(dfd);
        return 0;
    }
    ofd = openat(dfd, OWNER_FILE, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (ofd < 0 && errno == ENOENT && st.st_mtime < time(NULL) - 60 && rmdir(dir) == 0) {
        /* an hpm killed between making its folder and its owner file left
         * it empty (rmdir removes only an empty one: nothing is lost) */
        close(dfd);
        return 1;
    }
    if (ofd < 0 || fstat(ofd, &st) != 0 || !S_ISREG(st.st_mode) || lock_owner(ofd, 0) != 0) {
        /* not one of ours, or its owner lives (holds the lock) */
        if (ofd >= 0)
            close(ofd);
        close(dfd);
        return 0;
    }
    /* nobody holds the lock: the owner is dead, or it is an older hpm that
     * kept no lock (then its pid and start time, in this namespace, say
     * whether it lives), or it has just made the folder and not locked it
     * yet (it finds its owner file gone once it has, and makes another) */
    n = pread(ofd, line, sizeof line - 1, 0);
    line[n > 0 ? n : 0] = 0;
    if (sscanf(line, "%ld %llu", &pid, &t) != 2 || pid <= 0 || start_time(pid) != t) {
        remove_folder(dfd, dir);
        reaped = 1;
    }
    close(ofd); /* the lock goes with it, after the removal */
    close(dfd);
    return reaped;
}

/* Removes the stale folders $base/PREFIX.* of dead owners. */
static void reap_stale(const char *base, const char *prefix)
{
    DIR *d = opendir(base);
    struct dirent *e;
    size_t pl = strlen(prefix);
    char path[4096 + 256];
    if (!d)
        return;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, pl) == 0 && e->d_name[pl] == '.' &&
            strlen(e->d_name) == pl + 7) {
            snprintf(path, sizeof path, "%s/%s", base, e->d_name);
            runner_reap_if_dead(path);
        }
    closedir(d);
}

/* "valgrind_proc_PID_" then "cmdline_" or "auxv_" and Valgrind's 8
 * lower-case hex digits (m_libcfile.c, VG_(mkstemp): "%s/valgrind_%s_%08x"):
 * the pid, or 0 where the name is not one */
static pid_t valgrind_leftover_pid(const char *name)
{
    static const char head[] = "valgrind_proc_";
    char *end;
    long pid;
    unsigned k;
    if (strncmp(name, head, sizeof head - 1) != 0 || !isdigit((unsigned char)name[sizeof head - 1]))
        return 0;
    pid = strtol(name + sizeof head - 1, &end, 10);
    if (pid <= 0 || pid > INT_MAX || *end++ != '_')
        return 0;
    if (strncmp(end, "cmdline_", 8) == 0)
        end += 8;
    else if (strncmp(end, "auxv_", 5) == 0)
        end += 5;
    else
        return 0;
    for (k = 0; k < 8; k++)
        if (!isdigit((unsigned char)end[k]) && !(end[k] >= 'a' && end[k] <= 'f'))
            return 0;
    return end[8] ? 0 : (pid_t)pid;
}

unsigned runner_remove_valgrind_leftovers(const pid_t *pids, unsigned n)
{
    DIR *d;
    struct dirent *e;
    unsigned removed = 0, i;
    if (n == 0 || !(d = opendir(env_or("TMPDIR", "/tmp"))))
        return 0;
    while ((e = readdir(d))) {
        pid_t pid = valgrind_leftover_pid(e->d_name);
        struct stat st;
        for (i = 0; pid && i < n && pids[i] != pid; i++)
            ;
        if (!pid || i == n)
            continue;
        /* a pid in use again is another process's, its files its own */
        if (kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == geteuid() && unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

/* The folders this process made and owns, with their lock descriptors. */
static struct {
    char dir[4096];
    int lock_fd;
} owned[4];

int runner_tmpdir(const char *prefix, char *dir, size_t len)
{
    const char *t = env_or("TMPDIR", "/tmp");
    char base[4096], cwd[4096], line[64];
    unsigned slot, tries;
    for (slot = 0; slot < sizeof owned / sizeof owned[0] && owned[slot].dir[0]; slot++)
        ;
    if (slot == sizeof owned / sizeof owned[0])
        return errno = EMFILE, -1;
    if (t[0] != '/') {
        if (!getcwd(cwd, sizeof cwd))
            return -1;
        if ((size_t)snprintf(base, sizeof base, "%s/%s", cwd, t) >= sizeof base)
            return errno = ENAMETOOLONG, -1;
    } else if ((size_t)snprintf(base, sizeof base, "%s", t) >= sizeof base) {
        return errno = ENAMETOOLONG, -1;
    }
    reap_stale(base, prefix);
    for (tries = 0; tries < 8; tries++) {
        struct stat st;
        int dfd, ofd, e;
        if ((size_t)snprintf(dir, len, "%s/%s.XXXXXX", base, prefix) >= len)
            return errno = ENAMETOOLONG, -1;
        if (!mkdtemp(dir))
            return -1;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        ofd = dfd < 0 ? -1
                      : openat(dfd, OWNER_FILE, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                               0600);
        if (ofd < 0 || lock_owner(ofd, 1) != 0) {
            e = errno;
            if (ofd >= 0)
                close(ofd);
            if (dfd >= 0) {
                remove_folder(dfd, dir);
                close(dfd);
            }
            return errno = e, -1;
        }
        if (fstat(ofd, &st) != 0 || st.st_nlink == 0) {
            /* another hpm took it for stale before the lock: make another */
            close(ofd);
            close(dfd);
            continue;
        }
        /* for older hpm versions, which judge folders by pid */
        snprintf(line, sizeof line, "%ld %llu\n", (long)getpid(), start_time(getpid()));
        if (pwrite(ofd, line, strlen(line), 0) != (ssize_t)strlen(line)) {
            e = errno;
            remove_folder(dfd, dir);
            close(ofd);
            close(dfd);
            return errno = e, -1;
        }
        close(dfd);
        snprintf(owned[slot].dir, sizeof owned[slot].dir, "%s", dir);
        owned[slot].lock_fd = ofd;
        return 0;
    }
    return errno = EAGAIN, -1;
}

int runner_mkdirs(const char *dir, mode_t mode)
{
    char buf[4096], *p;
    snprintf(buf, sizeof buf, "%s", dir);
    for (p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, mode) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, mode) != 0 && errno != EEXIST ? -1 : 0;
}

void runner_rmdir(const char *dir)
{
    unsigned i;
    int dfd;
    /* a normal end: the tree's processes that outlive hpm on purpose read
     * "ended" and run on (src/vpmu/vpmu_main.c, the lease); a killed
     * hpm's say nothing of the kind */
    for (i = 0; i < sizeof owned / sizeof owned[0]; i++)
        if (owned[i].dir[0] && strcmp(owned[i].dir, dir) == 0 &&
            pwrite(owned[i].lock_fd, "ended\n", 6, 0) != 6) {
            /* then such processes end with hpm: nothing more to do */
        }
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd >= 0) {
        remove_folder(dfd, dir);
        close(dfd);
    }
    /* the lock goes only once the folder has */
    for (i = 0; i < sizeof owned / sizeof owned[0]; i++)
        if (owned[i].dir[0] && strcmp(owned[i].dir, dir) == 0) {
            close(owned[i].lock_fd);
            owned[i].dir[0] = 0;
        }
}

/* ------------------------------------------------------------ running */

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t stop_waiting; /* a signal came while waiting for the tree */

/* SIGINT/SIGTERM/SIGHUP sent to hpm go on to the child (so hpm lives to
 * report and to remove its folder). A terminal's ^C already
 * reaches the whole process group (si_code SI_KERNEL), so it is not sent a
 * second time. Once the child has exited and hpm waits for the rest of its
 * tree, such a signal ends the waiting instead. */
static void forward_signal(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (child_pid > 0 && (!si || si->si_code != SI_KERNEL))
        kill((pid_t)child_pid, sig);
    if (child_pid == 0)
        stop_waiting = 1;
}

static void on_child(int sig)
{
    (void)sig; /* only to end a nanosleep when the child exits */
}

/* With spec->before_reap: whether pid has ended, left unreaped (block:
 * waits for it); then calls the hook. 1 ended, 0 not yet (or no hook),
 * -1 with errno. */
static int ended_before_reap(const struct runner_spec *spec, pid_t pid, int block)
{
    siginfo_t si;
    if (!spec->before_reap)
        return 0;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | (block ? 0 : WNOHANG)) != 0)
        return -1;
    if (si.si_pid != pid)
        return 0;
    spec->before_reap(spec->reap_ctx, pid);
    return 1;
}

/* Waits for pid, calling spec->on_interval every interval_ms meanwhile. */
static pid_t wait_interval(const struct runner_spec *spec, pid_t pid, int *status,
                           struct rusage *ru)
{
    struct sigaction sa, old;
    struct timespec next, now;
    pid_t w;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_child;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &old);
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        if (ended_before_reap(spec, pid, 0) == 1) {
            w = wait4(pid, status, 0, ru);
            break;
        }
        w = wait4(pid, status, WNOHANG, ru);
        if (w != 0)
            break;
        next.tv_sec += spec->interval_ms / 1000;
        next.tv_nsec += (spec->interval_ms % 1000) * 1000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec++;
            next.tv_nsec -= 1000000000L;
        }
        /* sleep to the next tick; SIGCHLD ends the sleep early */
        if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec < next.tv_sec ||
                (now.tv_sec == next.tv_sec && now.tv_nsec < next.tv_nsec)) {
                /* woken early: back off the tick that did not come */
                next.tv_sec -= spec->interval_ms / 1000;
                next.tv_nsec -= (spec->interval_ms % 1000) * 1000000L;
                if (next.tv_nsec < 0) {
                    next.tv_sec--;
                    next.tv_nsec += 1000000000L;
                }
                continue;
            }
        }
        spec->on_interval(spec->ctx, pid);
    }
    sigaction(SIGCHLD, &old, NULL);
    return w;
}

static void rusage_add(struct rusage *a, const struct rusage *b)
{
    timeradd(&a->ru_utime, &b->ru_utime, &a->ru_utime);
    timeradd(&a->ru_stime, &b->ru_stime, &a->ru_stime);
    a->ru_minflt += b->ru_minflt;
    a->ru_majflt += b->ru_majflt;
    a->ru_nvcsw += b->ru_nvcsw;
    a->ru_nivcsw += b->ru_nivcsw;
}

/* An orphan of the tree that a signal killed: hpm count names it (a
 * process killed by SIGKILL wrote no counts of its own). */
static void killed_add(const struct runner_spec *spec, struct runner_result *res, pid_t pid,
                       int sig, long long since)
{
    struct runner_killed *k;
    if (res->n_killed == UINT_MAX ||
        !(k = realloc(res->killed, (res->n_killed + 1) * sizeof *k))) {
        res->killed_unlisted++;
        return;
    }
    res->killed = k;
    k[res->n_killed].pid = pid;
    k[res->n_killed].sig = sig;
    /* at once: its view is stale now, and other hpm commands remove stale
     * views whose parent is gone (hpm is no tool: an orphan's parent has
     * no view) */
    k[res->n_killed].view = spec->take_view ? spec->take_view(pid, since) : NULL;
    res->n_killed++;
}

void runner_result_free(struct runner_result *res)
{
    unsigned i;
    for (i = 0; i < res->n_killed; i++)
        free(res->killed[i].view);
    free(res->killed);
    res->killed = NULL;
    res->n_killed = 0;
}

static int redirect(const char *path, int fd)
{
    int f;
    if (!path)
        return 0;
    f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (f < 0 || dup2(f, fd) < 0)
        return -1;
    close(f);
    return 0;
}

/* The child's side of runner_run: the go awaited (when before_exec),
 * the signal mask restored, death with hpm, the environment and
 * redirections, then exec; exec's errno goes back through pfd. */
static _Noreturn void child_exec(const struct runner_spec *spec, const int pfd[2],
                                 const int go[2], const sigset_t *old, pid_t parent)
{
    int err;
    close(pfd[0]);
    if (go[0] >= 0) {
        /* wait for the go: one byte; end of file means hpm gave up */
        char c;
        ssize_t r;
        close(go[1]);
        do
            r = read(go[0], &c, 1);
        while (r < 0 && errno == EINTR);
        if (r != 1)
            _exit(127);
        close(go[0]);
    }
    sigprocmask(SIG_SETMASK, old, NULL);
    /* the child dies with hpm (seed 004: counters are owned, and cleaned
     * up when the owner dies); a parent already gone means hpm died
     * before the prctl took effect */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
    if (spec->env_name)
        setenv(spec->env_name, spec->env_value, 1);
    if (redirect(spec->stdout_path, 1) != 0 || redirect(spec->stderr_path, 2) != 0)
        err = errno;
    else {
        execv(spec->path ? spec->path : spec->argv[0], spec->argv);
        err = errno;
    }
    if (write(pfd[1], &err, sizeof err) < 0) {
        /* nothing left to tell it with */
    }
    _exit(127);
}

/* As the tree's subreaper, after the program: every process of its tree
 * waited for (their rusage added, the killed ones noted), until none is
 * left or a forwarded signal stops the wait (res->tree_left). */
static void wait_rest_of_tree(const struct runner_spec *spec, struct runner_result *res,
                              long long since)
{
    int st;
    struct rusage ru;
    pid_t w;
    stop_waiting = 0;
    while (!stop_waiting && (w = wait4(-1, &st, 0, &ru)) != 0) {
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break; /* ECHILD: the whole tree has ended */
        }
        rusage_add(&res->ru, &ru);
        res->waited++;
        if (WIFSIGNALED(st))
            killed_add(spec, res, w, WTERMSIG(st), since);
    }
    res->tree_left = stop_waiting;
}

int runner_run(const char *cmd, const struct runner_spec *spec, struct runner_result *res)
{
    sigset_t block, old;
    struct sigaction sa, old_int, old_term, old_hup;
    int pfd[2], go[2] = {-1, -1}, err = 0, wait_tree = spec->wait_tree;
    pid_t pid, parent = getpid();
    ssize_t got;

    /* a live view made since is one of this run's processes (a second
     * early: tmpfs stamps files with a coarse clock) */
    long long since = (long long)time(NULL) - 1;

    memset(res, 0, sizeof *res);
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        fprintf(stderr, "%s: pipe: %s\n", cmd, strerror(errno));
        return -1;
    }
    if (spec->before_exec && pipe2(go, O_CLOEXEC) != 0) {
        fprintf(stderr, "%s: pipe: %s\n", cmd, strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    /* no signal may arrive between fork and knowing the child's pid */
    sigprocmask(SIG_BLOCK, &block, &old);
    /* hpm is the subreaper of the child's tree: processes whose parent dies
     * are re-parented to hpm, not to init, and hpm waits for every one */
    if (wait_tree && prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        fprintf(stderr, "%s: prctl(PR_SET_CHILD_SUBREAPER): %s\n", cmd, strerror(errno));
        wait_tree = 0;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", cmd, strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(pfd[0]);
        close(pfd[1]);
        if (go[0] >= 0) {
            close(go[0]);
            close(go[1]);
        }
        return -1;
    }
    if (pid == 0)
        child_exec(spec, pfd, go, &old, parent);
    close(pfd[1]);
    if (go[0] >= 0) {
        close(go[0]);
        if (spec->before_exec(spec->ctx, pid) != 0) {
            close(go[1]);
            kill(pid, SIGKILL);
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
            sigprocmask(SIG_SETMASK, &old, NULL);
            close(pfd[0]);
            return -1;
        }
        if (write(go[1], "g", 1) != 1) {
            /* the child is gone: its exec error or death is seen below */
        }
        close(go[1]);
    }
    child_pid = pid;
    if (spec->forward_signals || wait_tree) {
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = forward_signal;
        sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: a signal must end wait4(-1) */
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        sigaction(SIGHUP, &sa, &old_hup);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);

    /* the pipe closes on a successful exec, or carries exec's errno */
    do
        got = read(pfd[0], &err, sizeof err);
    while (got < 0 && errno == EINTR);
    close(pfd[0]);

    res->pid = pid;
    if (got != (ssize_t)sizeof err && spec->interval_ms <= 0)
        while (ended_before_reap(spec, pid, 1) < 0 && errno == EINTR)
            ;
    while ((spec->interval_ms > 0 && got != (ssize_t)sizeof err
                ? wait_interval(spec, pid, &res->status, &res->ru)
                : wait4(pid, &res->status, 0, &res->ru)) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "%s: wait4: %s\n", cmd, strerror(errno));
            child_pid = 0;
            return -1;
        }
    }
    child_pid = 0;
    if (wait_tree && got != (ssize_t)sizeof err)
        wait_rest_of_tree(spec, res, since);
    if (spec->forward_signals || wait_tree) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGHUP, &old_hup, NULL);
    }
    if (got == (ssize_t)sizeof err) {
        fprintf(stderr, "%s: cannot run %s: %s\n", cmd, spec->path ? spec->path : spec->argv[0],
                strerror(err));
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ output files */

/* Whether path is written to a temporary file and renamed: only when it
 * is absent or a regular file. Renaming over anything else would replace
 * the device node or the link itself. */
static int output_atomic(const char *path)
{
    struct stat st;
    return lstat(path, &st) != 0 || S_ISREG(st.st_mode);
}

/* A new, uniquely named file beside path (FILE.XXXXXX, created with
 * O_EXCL by mkstemp, so no existing file or link is ever followed), with
 * the mode a new file would get; its name in *tmp. */
static FILE *open_beside(const char *path, char **tmp)
{
    size_t n = strlen(path) + 8;
    mode_t mask;
    FILE *f;
    int fd;
    *tmp = malloc(n);
    if (!*tmp)
        return NULL;
    snprintf(*tmp, n, "%s.XXXXXX", path);
    fd = mkstemp(*tmp);
    if (fd < 0)
        return NULL;
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(f = fdopen(fd, "w"))) {
        close(fd);
        unlink(*tmp);
        return NULL;
    }
    return f;
}

/* -o must name a writable file before a possibly long run starts: not a
 * folder, and in a folder hpm can create files in. */
int runner_output_ok(const char *cmd, const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: cannot write the output to %s: it is a directory\n", cmd,
                path);
        return 0;
    }
    if (!output_atomic(path)) {
        /* ENOENT: a link to a file not there yet, which fopen creates */
        if (access(path, W_OK) != 0 && errno != ENOENT) {
            fprintf(stderr, "%s: cannot write the output to %s: %s\n", cmd, path,
                    strerror(errno));
            return 0;
        }
        return 1;
    }
    if (path[strlen(path) - 1] == '/') {
        fprintf(stderr, "%s: cannot write the output to %s: it names a directory\n", cmd,
                path);
        return 0;
    }
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "%s: cannot write the output into %s: %s\n", cmd, dir,
                strerror(errno));
        return 0;
    }
    return 1;
}

int runner_write_output(const char *cmd, const char *path, int (*write)(FILE *f, void *ctx),
                        void *ctx)
{
    FILE *f;
    char *tmp = NULL;
    int rc;
    if (!path) {
        rc = write(stdout, ctx);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "%s: error writing to stdout\n", cmd);
            rc = -1;
        }
        return rc;
    }
    if (!output_atomic(path)) {
        f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "%s: cannot write %s: %s\n", cmd, path, strerror(errno));
            return -1;
        }
        rc = write(f, ctx);
        if (fclose(f) != 0 || rc != 0) {
            fprintf(stderr, "%s: error writing %s\n", cmd, path);
            return -1;
        }
        return 0;
    }
    f = open_beside(path, &tmp);
    if (!f) {
        fprintf(stderr, "%s: cannot write beside %s: %s\n", cmd, path, strerror(errno));
        free(tmp);
        return -1;
    }
    /* written in full, or not at all: the file appears only by the rename */
    rc = write(f, ctx);
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "%s: error writing %s\n", cmd, tmp);
    else if (rename(tmp, path) != 0) {
        fprintf(stderr, "%s: cannot rename %s to %s: %s\n", cmd, tmp, path, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

int runner_stdout_to(const char *cmd, const char *path, struct runner_redirect *r)
{
    FILE *f;
    r->saved_fd = -1;
    r->tmp = NULL;
    r->path = path;
    if (!path)
        return 0;
    fflush(stdout);
    f = output_atomic(path) ? open_beside(path, &r->tmp) : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", cmd, path, strerror(errno));
        free(r->tmp);
        r->tmp = NULL;
        return -1;
    }
    r->saved_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (r->saved_fd < 0 || dup2(fileno(f), STDOUT_FILENO) < 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", cmd, path, strerror(errno));
        fclose(f);
        if (r->tmp)
            unlink(r->tmp);
        free(r->tmp);
        r->tmp = NULL;
        if (r->saved_fd >= 0)
            close(r->saved_fd);
        r->saved_fd = -1;
        return -1;
    }
    fclose(f); /* standard output holds the file now */
    return 0;
}

int runner_stdout_restore(const char *cmd, struct runner_redirect *r, int ok)
{
    int rc = 0;
    if (!r->path || r->saved_fd < 0)
        return 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: error writing %s\n", cmd, r->path);
        rc = -1;
    }
    clearerr(stdout);
    (void)dup2(r->saved_fd, STDOUT_FILENO);
    close(r->saved_fd);
    r->saved_fd = -1;
    if (r->tmp) {
        /* in full or not at all, as runner_write_output */
        if (ok && rc == 0 && rename(r->tmp, r->path) != 0) {
            fprintf(stderr, "%s: cannot rename %s to %s: %s\n", cmd, r->tmp, r->path,
                    strerror(errno));
            rc = -1;
        }
        if (!ok || rc != 0)
            unlink(r->tmp);
        free(r->tmp);
        r->tmp = NULL;
    }
    return rc;
}
