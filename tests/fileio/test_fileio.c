/* SPDX-License-Identifier: BSD-3-Clause */
/* fileio.unit: hpm_file_read and hpm_file_open_regular (src/fileio). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "hpm_check.h"

static int head_is_magic(const char *head, size_t n)
{
    return n >= 5 && memcmp(head, "MAGIC", 5) == 0;
}

static void write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(text, 1, n, f) == n);
    CHECK(fclose(f) == 0);
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/hpm-fileio.XXXXXX", path[256], fifo[256], big[256], err[512], *text;
    size_t len;
    int fd;
    (void)argc;
    (void)argv;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/f", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(big, sizeof big, "%s/big", dir);

    /* a regular file, whole, NUL-terminated, its head checked */
    write_file(path, "MAGIC and the rest", 18);
    CHECK(hpm_file_read(path, 100, head_is_magic, "a magic file", &text, &len, err, sizeof err) ==
          0);
    CHECK(len == 18 && strcmp(text, "MAGIC and the rest") == 0);
    free(text);
    /* the wrong head: refused, naming the file and what was expected */
    write_file(path, "NOT MAGIC", 9);
    CHECK(hpm_file_read(path, 100, head_is_magic, "a magic file", &text, &len, err, sizeof err) ==
          -1);
    CHECK(strstr(err, path) && strstr(err, "not a magic file"));
    CHECK(text == NULL);
    /* empty */
    write_file(path, "", 0);
    CHECK(hpm_file_read(path, 100, NULL, NULL, &text, &len, err, sizeof err) == 0 && len == 0 &&
          text[0] == 0);
    free(text);
    /* larger than the bound: refused before reading */
    write_file(path, "0123456789", 10);
    CHECK(hpm_file_read(path, 9, NULL, "a small file", &text, &len, err, sizeof err) == -1);
    CHECK(strstr(err, "more than a small file can be") != NULL);
    /* a huge sparse file: refused by its size, nothing read */
    fd = open(big, O_WRONLY | O_CREAT, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)1 << 40) == 0 && close(fd) == 0);
    CHECK(hpm_file_read(big, (size_t)1 << 30, NULL, NULL, &text, &len, err, sizeof err) == -1);
    /* a FIFO without a writer and a device: refused at once, no hang */
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(hpm_file_open_regular(fifo) == -1 && errno == EINVAL);
    CHECK(hpm_file_read(fifo, 100, NULL, "a profile", &text, &len, err, sizeof err) == -1);
    CHECK(strstr(err, "not a regular file, not a profile") != NULL);
    CHECK(hpm_file_read("/dev/zero", 100, NULL, NULL, &text, &len, err, sizeof err) == -1);
    CHECK(strstr(err, "not a regular file") != NULL);
    /* missing */
    CHECK(hpm_file_read("/nonexistent/x", 100, NULL, NULL, &text, &len, err, sizeof err) == -1);
    CHECK(strstr(err, "No such file") != NULL);
    /* the descriptor of a regular file blocks normally (no O_NONBLOCK left) */
    write_file(path, "x", 1);
    fd = hpm_file_open_regular(path);
    CHECK(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
    close(fd);
    unlink(path);
    unlink(fifo);
    unlink(big);
    rmdir(dir);
    printf("fileio: ok\n");
    return failures ? 1 : 0;
}
