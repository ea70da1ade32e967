/* SPDX-License-Identifier: BSD-3-Clause */
/* fileio.c - reading the files hpm is given (fileio.h). */
#define _GNU_SOURCE /* O_CLOEXEC under -std=c11 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int hpm_file_open_regular(const char *path)
{
    return hpm_file_open_regular_flags(path, O_RDONLY);
}

int hpm_file_open_regular_flags(const char *path, int open_flags)
{
    struct stat st;
    int fd = open(path, open_flags | O_CLOEXEC | O_NONBLOCK), flags;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    /* a regular file never blocks; the flag goes for those who fdopen it */
    if ((flags = fcntl(fd, F_GETFL)) >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

int hpm_text_digits(const char *text, size_t len, size_t *i, uint64_t *out)
{
    uint64_t v = 0;
    size_t start = *i;
    while (*i < len && text[*i] >= '0' && text[*i] <= '9') {
        unsigned d = (unsigned)(text[*i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        (*i)++;
    }
    if (*i == start)
        return -1;
    *out = v;
    return 0;
}

/* Reads up to n bytes at buf: how many (fewer at the end), or -1. */
static ssize_t read_full(int fd, char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Reads the open regular file fd (path in messages) whole, and closes it. */
static int read_fd(int fd, const char *path, size_t max, hpm_file_check_fn check,
                   const char *what, char **out, size_t *len, char *err, size_t errlen)
{
    struct stat st;
    char *buf = NULL;
    size_t cap, got = 0;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if ((unsigned long long)st.st_size > max) {
        snprintf(err, errlen, "%s: %lld bytes, more than %s can be (%zu)", path,
                 (long long)st.st_size, what ? what : "this input", max);
        close(fd);
        return -1;
    }
    /* its size as fstat says, plus room for a file that grows meanwhile */
    cap = (size_t)st.st_size + 1;
    if (cap < HPM_FILE_HEAD + 1)
        cap = HPM_FILE_HEAD + 1;
    for (;;) {
        ssize_t r;
        if (!buf || got + 1 >= cap) {
            char *nb;
            if (buf)
                cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            if (buf && got + 1 >= cap) {
                snprintf(err, errlen, "%s: more than %zu bytes, more than %s can be", path, max,
                         what ? what : "this input");
                goto fail;
            }
            if (!(nb = realloc(buf, cap))) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto fail;
            }
            buf = nb;
        }
        /* the head first, alone, when it is to be checked */
        r = read_full(fd, buf + got,
                      check && got < HPM_FILE_HEAD ? HPM_FILE_HEAD - got : cap - 1 - got);
        if (r < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            goto fail;
        }
        if (check && got < HPM_FILE_HEAD && (got + (size_t)r >= HPM_FILE_HEAD || r == 0)) {
            buf[got + (size_t)r] = 0;
            if (!check(buf, got + (size_t)r)) {
                snprintf(err, errlen, "%s: not %s", path, what ? what : "the expected input");
                goto fail;
            }
        }
        got += (size_t)r;
        if (r == 0)
            break;
    }
    close(fd);
    buf[got] = 0;
    *out = buf;
    *len = got;
    return 0;
fail:
    free(buf);
    close(fd);
    return -1;
}

int hpm_file_read(const char *path, size_t max, hpm_file_check_fn check, const char *what,
                  char **out, size_t *len, char *err, size_t errlen)
{
    int fd = hpm_file_open_regular(path);
    *out = NULL;
    *len = 0;
    if (fd < 0) {
        if (errno == EINVAL)
            snprintf(err, errlen, "%s: not a regular file%s%s", path, what ? ", not " : "",
                     what ? what : "");
        else
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return read_fd(fd, path, max, check, what, out, len, err, errlen);
}

int hpm_file_map(const char *path, size_t max, hpm_file_check_fn check, const char *what,
                 struct hpm_file_map *m, char *err, size_t errlen)
{
    struct stat st;
    int fd = hpm_file_open_regular(path);
    memset(m, 0, sizeof *m);
    if (fd >= 0 && fstat(fd, &st) == 0 && (unsigned long long)st.st_size >= HPM_FILE_MAP_MIN &&
        (unsigned long long)st.st_size <= max) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            char head[HPM_FILE_HEAD + 1]; /* a check sees its head NUL-terminated */
            close(fd);
            memcpy(head, p, HPM_FILE_HEAD);
            head[HPM_FILE_HEAD] = 0;
            if (check && !check(head, HPM_FILE_HEAD)) {
                munmap(p, (size_t)st.st_size);
                snprintf(err, errlen, "%s: not %s", path, what ? what : "the expected input");
                return -1;
            }
            m->map = p;
            m->maplen = m->len = (size_t)st.st_size;
            m->data = p;
            return 0;
        }
    }
    /* small, or not to be mapped: read from the file opened (one open) */
    if (fd >= 0 ? read_fd(fd, path, max, check, what, &m->buf, &m->len, err, errlen) != 0
                : hpm_file_read(path, max, check, what, &m->buf, &m->len, err, errlen) != 0)
        return -1;
    m->data = m->buf;
    return 0;
}

void hpm_file_unmap(struct hpm_file_map *m)
{
    if (m->map)
        munmap(m->map, m->maplen);
    free(m->buf);
    memset(m, 0, sizeof *m);
}
