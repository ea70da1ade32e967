/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * runner.h - what every hpm command that runs something shares: finding the
 * virtual PMU, private temporary folders that never outlive their owner, and
 * running a child (fork, exec, wait) with signal forwarding, the child dying
 * with hpm, and optionally waiting for the child's whole process tree.
 * Used by hpm count, hpm run and hpm validate.
 */
#ifndef HPM_TOOL_RUNNER_H
#define HPM_TOOL_RUNNER_H

#include <stddef.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

/* The valgrind executable and the tool's lib dir (HPM_VALGRIND,
 * HPM_VALGRIND_LIB, or the valgrind the build found and the tool's folder
 * beside the hpm binary: install_dirs.h); 0, or 1 with the reason printed
 * after `cmd: `. */
int runner_find_tool(const char *cmd, const char **valgrind, const char **libdir);

/* A new folder $TMPDIR/PREFIX.XXXXXX (TMPDIR relative to the current folder
 * if relative), holding an `owner` file on which this process holds an
 * open-file-description lock until runner_rmdir (the kernel drops it when
 * hpm dies, in any pid namespace); the file also says hpm's pid and start
 * time, for older hpm versions. Old folders of the same prefix whose owner
 * file nobody holds locked (and whose pid, for a folder of an older hpm,
 * is gone or belongs to a later process) are removed first: what a killed
 * hpm left. 0, or -1 with errno. */
int runner_tmpdir(const char *prefix, char *dir, size_t len);
/* dir and the folders above it that are missing, made with mode: 0, or
 * -1 with errno. */
int runner_mkdirs(const char *dir, mode_t mode);
/* Removes the files in dir and dir itself (never through a link), then
 * drops the folder's lock when this process made it. */
void runner_rmdir(const char *dir);
/* Removes dir when it is a stale folder of a dead owner: 1 removed, 0 not. */
int runner_reap_if_dead(const char *dir);
/* Valgrind copies the program's /proc/self/cmdline and auxv into
 * $TMPDIR (else /tmp) as valgrind_proc_PID_cmdline_XXXXXXXX and
 * valgrind_proc_PID_auxv_XXXXXXXX as it starts and unlinks them a moment
 * later: a process killed in between leaves them. Removes those of the n
 * pids (processes of this run that a signal killed) whose pid no process
 * has now: regular files of this user, named exactly so (8 hex digits),
 * nothing else. A process that changed TMPDIR before it exec'd made its
 * copies elsewhere. Returns how many files it removed. */
unsigned runner_remove_valgrind_leftovers(const pid_t *pids, unsigned n);

struct runner_spec {
    char *const *argv;      /* argv[0] is run as given (execv) */
    const char *path;       /* run this file with argv instead, or NULL */
    const char *env_name;   /* one variable set in the child, or NULL */
    const char *env_value;
    const char *stdout_path; /* redirect (created/truncated), or NULL */
    const char *stderr_path;
    int forward_signals;    /* SIGINT/SIGTERM to hpm go on to the child */
    int wait_tree;          /* hpm is the subreaper and waits for the whole tree */
    long interval_ms;       /* > 0: call on_interval every interval_ms while the child runs */
    void (*on_interval)(void *ctx, pid_t child);
    void *ctx;
    /* When set: called with the child's pid after the fork and before the
     * child execs (it waits for the go); a non-zero return kills the child
     * unexecuted and runner_run fails (the callback printed why). hpm count
     * --pmu=perf attaches its perf_event counters here. */
    int (*before_exec)(void *ctx, pid_t child);
    /* When set (with wait_tree): called for each process of the tree that
     * hpm reaps killed by a signal, at once, with the time the run started
     * (seconds, CLOCK_REALTIME); returns the live view its tool left
     * behind, malloc'd (runner_killed.view), or NULL. hpm count takes the
     * views with hpm_live_take_stale. */
    struct hpm_live *(*take_view)(pid_t pid, long long since);
    /* When set: called once the child has ended and before hpm reaps it,
     * with reap_ctx and the child's pid: until it is reaped its pid still
     * names it, and other hpm commands keep the views of the children it
     * reaped killed (src/live: hpm_live_list), which hpm count takes here. */
    void (*before_reap)(void *reap_ctx, pid_t child);
    void *reap_ctx;
};

struct hpm_live;

/* A process of the tree that hpm reaped (as its subreaper: an orphan) and
 * that a signal had killed; view: the live view its tool left behind,
 * taken (runner_spec.take_view) as soon as hpm reaped it, or NULL. */
struct runner_killed {
    pid_t pid;
    int sig;
    struct hpm_live *view;
};

struct runner_result {
    pid_t pid;
    int status;        /* raw wait status of the child */
    struct rusage ru;  /* the child's, plus the tree's when it was waited for */
    unsigned waited;   /* other processes of the tree waited for */
    int tree_left;     /* a signal ended the wait with processes left */
    /* wait_tree: the waited processes that a signal killed, in the order
     * reaped (runner_result_free frees them); killed_unlisted counts those
     * that found no memory to be listed in */
    struct runner_killed *killed;
    unsigned n_killed, killed_unlisted;
};

/* Runs spec; the child gets PR_SET_PDEATHSIG = SIGKILL, so it never outlives
 * a killed hpm. Returns 0 with the result, or -1 (the reason printed after
 * `cmd: `, exec's failure included). */
int runner_run(const char *cmd, const struct runner_spec *spec, struct runner_result *res);
void runner_result_free(struct runner_result *res);

/* Whether -o PATH can be written, checked before a possibly long run: not
 * a folder, and in a folder hpm can create files in. 1 yes, 0 no (the
 * reason printed after `cmd: `). */
int runner_output_ok(const char *cmd, const char *path);

/* Writes an output file with write(f, ctx) (0 = written): path NULL is
 * stdout; a regular or absent path gets a unique file beside it (mkstemp,
 * which never follows a link), renamed into place only when written in
 * full; anything else (/dev/null, a FIFO, a link) is written in place.
 * Returns 0, or -1 with the reason printed after `cmd: `. */
int runner_write_output(const char *cmd, const char *path, int (*write)(FILE *f, void *ctx),
                        void *ctx);

/* Standard output into path (NULL: left as it is) for a command that prints
 * as it goes: a regular or absent path is written beside it and renamed
 * into place by runner_stdout_restore when ok (the run succeeded), else
 * removed, as runner_write_output does. 0, or -1 after a message. */
struct runner_redirect {
    int saved_fd;
    char *tmp;
    const char *path;
};
int runner_stdout_to(const char *cmd, const char *path, struct runner_redirect *r);
/* Standard output back; 0, or -1 after a message (a write failed). */
int runner_stdout_restore(const char *cmd, struct runner_redirect *r, int ok);

#endif
