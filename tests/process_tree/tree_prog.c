/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tree_prog.c - process trees for tests/process_tree (tree_test.sh).
 *   tree_prog kill9   forks a child that waits for ever, kills it with
 *                     SIGKILL and waits for it; prints "child PID"; exits 0
 *                     when the child died of signal 9
 *   tree_prog probe   prints "probe native" or "probe simulated": whether it
 *                     runs on Valgrind (the virtual PMU)
 *   tree_prog spawn   forks a child that execs "tree_prog probe", waits for
 *                     it, then execs "tree_prog probe" itself: the first line
 *                     is the child's exec, the second the program's own
 */
#define _POSIX_C_SOURCE 200809L /* kill */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

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
    fprintf(stderr, "usage: tree_prog kill9|probe|spawn\n");
    return 2;
}
