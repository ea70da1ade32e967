/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tree_prog.c - process trees for tests/process_tree (tree_test.sh).
 *   tree_prog kill9   forks a child that waits for ever, kills it with
 *                     SIGKILL and waits for it; prints "child PID"; exits 0
 *                     when the child died of signal 9
 *   tree_prog kill9work  forks a child that runs a loop of 2,000,000
 *                     iterations, tells the parent over a pipe, then spins;
 *                     the parent waits 500 ms (the child's live view is
 *                     published at least every 100 ms), kills it with
 *                     SIGKILL and waits for it; prints "child PID"
 *   tree_prog orphan9 forks child A (the same loop, then spins) and child
 *                     B, which waits 500 ms and kills A with SIGKILL; the
 *                     program exits at once, so A and B are orphans that
 *                     hpm reaps (their subreaper); prints "child A-PID"
 *   tree_prog probe   prints "probe native" or "probe simulated": whether it
 *                     runs on Valgrind (the virtual PMU)
 *   tree_prog spawn   forks a child that execs "tree_prog probe", waits for
 *                     it, then execs "tree_prog probe" itself: the first line
 *                     is the child's exec, the second the program's own
 *   tree_prog work    runs the loop of WORK_ITERATIONS and exits 0
 *   tree_prog thread-fork | thread-system | thread-spawn
 *                     a second thread (not the main one) starts a child and
 *                     waits for it: fork() and the loop in the child;
 *                     system("exec tree_prog work"); posix_spawn of
 *                     "tree_prog work". Prints "child PID" (fork, spawn);
 *                     exits 0 when the child exited 0
 */
#define _POSIX_C_SOURCE 200809L /* kill */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
#include <valgrind/valgrind.h>

#define WORK_ITERATIONS 2000000

static volatile unsigned long sink;

/* not inlined: profiles name it */
static __attribute__((noinline)) void work(void)
{
    unsigned long i;
    for (i = 0; i < WORK_ITERATIONS; i++)
        sink += i;
}

/* The child of kill9work and orphan9: a loop of WORK_ITERATIONS, a byte to
 * the parent on fd, then a spin until a signal kills it. */
static void work_then_spin(int fd)
{
    work();
    if (write(fd, "w", 1) != 1)
        _exit(1);
    for (;;)
        sink++;
}

static const char *self; /* argv[0] */

/* The second thread of thread-*: starts the child its argument names and
 * waits for it; the child's exit status 0 is (void *)0. */
static void *start_child(void *how)
{
    char *work_argv[] = {(char *)self, "work", NULL};
    extern char **environ;
    char cmd[4200];
    pid_t pid;
    int st;
    if (strcmp(how, "thread-system") == 0) {
        snprintf(cmd, sizeof cmd, "exec '%s' work", self);
        st = system(cmd);
        return (void *)(long)(st == 0 ? 0 : 1);
    }
    if (strcmp(how, "thread-fork") == 0) {
        pid = fork();
        if (pid == 0) {
            work();
            _exit(0);
        }
    } else if (strcmp(how, "thread-spawn") != 0 ||
               posix_spawn(&pid, self, NULL, NULL, work_argv, environ) != 0) {
        pid = -1;
    }
    if (pid < 0)
        return (void *)1L;
    printf("child %d\n", (int)pid);
    fflush(stdout);
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return (void *)1L;
    return (void *)0L;
}

/* Forks the working child and waits until its loop is done: its pid, or
 * -1. */
static pid_t fork_worker(void)
{
    int p[2];
    char c;
    pid_t pid;
    if (pipe(p) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        close(p[0]);
        work_then_spin(p[1]);
    }
    close(p[1]);
    if (pid < 0 || read(p[0], &c, 1) != 1)
        pid = -1;
    close(p[0]);
    return pid;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    pid_t pid;
    int st;
    if (argc == 2 && strcmp(argv[1], "kill9") == 0) {
        pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0) {
            for (;;)
                pause();
        }
        printf("child %d\n", (int)pid);
        fflush(stdout);
        if (kill(pid, SIGKILL) != 0 || waitpid(pid, &st, 0) != pid)
            return 1;
        return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 1;
    }
    if (argc == 2 && strcmp(argv[1], "kill9work") == 0) {
        if ((pid = fork_worker()) < 0)
            return 1;
        printf("child %d\n", (int)pid);
        fflush(stdout);
        sleep_ms(500);
        if (kill(pid, SIGKILL) != 0 || waitpid(pid, &st, 0) != pid)
            return 1;
        return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 1;
    }
    if (argc == 2 && strcmp(argv[1], "orphan9") == 0) {
        pid_t killer;
        if ((pid = fork_worker()) < 0)
            return 1;
        printf("child %d\n", (int)pid);
        fflush(stdout);
        killer = fork();
        if (killer < 0)
            return 1;
        if (killer == 0) {
            sleep_ms(500);
            _exit(kill(pid, SIGKILL) == 0 ? 0 : 1);
        }
        return 0; /* without waiting: both children become orphans */
    }
    if (argc == 2 && strcmp(argv[1], "probe") == 0) {
        printf("probe %s\n", RUNNING_ON_VALGRIND ? "simulated" : "native");
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "spawn") == 0) {
        char *probe[] = {argv[0], "probe", NULL};
        fflush(stdout);
        pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0) {
            execv(argv[0], probe);
            _exit(127);
        }
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 1;
        execv(argv[0], probe);
        return 127;
    }
    if (argc == 2 && strcmp(argv[1], "work") == 0) {
        work();
        return 0;
    }
    if (argc == 2 && strncmp(argv[1], "thread-", 7) == 0) {
        pthread_t t;
        void *failed;
        self = argv[0];
        if (pthread_create(&t, NULL, start_child, argv[1]) != 0 || pthread_join(t, &failed) != 0)
            return 1;
        return failed ? 1 : 0;
    }
    fprintf(stderr, "usage: tree_prog kill9|kill9work|orphan9|probe|spawn|work|thread-fork|"
                    "thread-system|thread-spawn\n");
    return 2;
}
