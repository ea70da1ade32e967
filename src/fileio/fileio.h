/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fileio.h - the one way hpm reads a file it is given: a regular file only
 * (opened without blocking, so a FIFO or a device named as input is refused
 * at once instead of hanging or growing without end), of at most a stated
 * size, its first bytes checked before the rest is read.
 */
#ifndef HPM_FILEIO_H
#define HPM_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/* Opens path for reading (close-on-exec), refusing what is not a regular
 * file: the descriptor, or -1 with errno (EINVAL: not a regular file). */
int hpm_file_open_regular(const char *path);

/* The same with open(2)'s flags (O_RDWR, O_NOFOLLOW, ...; close-on-exec
 * always): what a reader of shared files such as the live views uses. */
int hpm_file_open_regular_flags(const char *path, int flags);

/* The decimal digits at text[*i, len) as a number, *i moved past them:
 * 0, or -1 when there are none or the number passes 2^64 - 1. The one
 * number scanner of the /proc and /sys texts hpm reads. */
int hpm_text_digits(const char *text, size_t len, size_t *i, uint64_t *out);

/* Whether a file's first bytes (n of them, fewer when the file is
 * shorter) are what the reader expects: 1 yes, 0 no. */
typedef int (*hpm_file_check_fn)(const char *head, size_t n);

#define HPM_FILE_HEAD 4096 /* the bytes a check sees */

/* Reads the whole regular file path, of at most max bytes, into a malloc'd
 * buffer NUL-terminated at *len. When check is not NULL it sees the first
 * bytes before the rest is read, and `what` names what was expected in the
 * message ("a profile"). 0, or -1 with a message naming path in err. */
int hpm_file_read(const char *path, size_t max, hpm_file_check_fn check, const char *what,
                  char **out, size_t *len, char *err, size_t errlen);

/* A whole file to read through: mapped read-only when it is large (a
 * profile's tool output is tens of MB, which read() copies into as many
 * fresh pages), else read as hpm_file_read does. data[0, len) is the
 * file's text, not NUL-terminated when mapped. */
struct hpm_file_map {
    const char *data;
    size_t len;
    void *map; /* the mapping, or NULL: buf holds the text */
    size_t maplen;
    char *buf;
};

#define HPM_FILE_MAP_MIN (1u << 20) /* smaller files are read */

/* hpm_file_read's checks and messages, into *m (release it with
 * hpm_file_unmap). 0, or -1 with a message naming path in err. */
int hpm_file_map(const char *path, size_t max, hpm_file_check_fn check, const char *what,
                 struct hpm_file_map *m, char *err, size_t errlen);

void hpm_file_unmap(struct hpm_file_map *m);

#endif
