/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * debugcache.c - decompressed copies of separate debug files (debugcache.h).
 */
#define _GNU_SOURCE
#include "debugcache.h"

#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int mkdir_p(char *path)
{
    char *p;
    for (p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

const char *hpm_debugcache_dir(void)
{
    static int done;
    static char dir[4096];
    const char *env = getenv("HPM_DEBUG_CACHE"), *base;
    struct stat st;
    int n;
    if (done)
        return dir[0] ? dir : NULL;
    done = 1;
    if (env && (!*env || strcmp(env, "off") == 0))
        return NULL;
    if (env)
        n = snprintf(dir, sizeof dir, "%s", env);
    else if ((base = getenv("XDG_CACHE_HOME")) && *base == '/')
        n = snprintf(dir, sizeof dir, "%s/hpm/debuginfo", base);
    else if ((base = getenv("HOME")) && *base == '/')
        n = snprintf(dir, sizeof dir, "%s/.cache/hpm/debuginfo", base);
    else
        n = -1;
    if (n <= 0 || (size_t)n >= sizeof dir || mkdir_p(dir) != 0 || stat(dir, &st) != 0 ||
        !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        dir[0] = 0;
        return NULL;
    }
    return dir;
}

/* Whether s is a build-id in lowercase hex (at least 2 digits, even). */
static int is_hex_id(const char *s, size_t n)
{
    size_t i;
    if (n < 2 || n > HPM_DEBUGCACHE_HEX_MAX || n % 2)
        return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* Whether e has a compressed DWARF section; its build-id in hex. */
static int compressed_debug(Elf *e, char *hex, size_t hexlen)
{
    const void *id;
    ssize_t n = dwelf_elf_gnu_build_id(e, &id), i;
    size_t shstrndx;
    Elf_Scn *scn = NULL;
    int compressed = 0;
    if (n <= 0 || (size_t)(2 * n + 1) > hexlen || elf_getshdrstrndx(e, &shstrndx) != 0)
        return 0;
    for (i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
    while (!compressed && (scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
            continue;
        name = elf_strptr(e, shstrndx, sh.sh_name);
        compressed = name && strncmp(name, ".debug_", 7) == 0;
    }
    return compressed;
}

/* What the ELF file at fd is: *compressed, its build-id in got. 0, or -1
 * (not an ELF file). */
static int examine(int fd, int *compressed, char *got, size_t gotlen)
{
    Elf *e;
    int rc = -1;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return -1;
    e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (e && elf_kind(e) == ELF_K_ELF) {
        got[0] = 0;
        *compressed = compressed_debug(e, got, gotlen);
        rc = 0;
    }
    if (e)
        elf_end(e);
    return rc;
}

/* fd open on the regular file at path (a FIFO planted in the cache is
 * neither waited for nor read), or -1 */
static int open_regular(const char *path)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* fd open on an uncompressed ELF file with build-id hex; else -1 */
static int open_same_build_id(const char *path, const char *hex)
{
    int fd = open_regular(path), compressed = 1;
    char got[HPM_DEBUGCACHE_HEX_MAX + 1];
    if (fd < 0)
        return -1;
    if (examine(fd, &compressed, got, sizeof got) != 0 || compressed || strcmp(got, hex) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether path is an ELF file with build-id hex and a compressed DWARF
 * section */
static int is_compressed_debug(const char *path, const char *hex)
{
    int fd = open_regular(path), compressed = 0;
    char got[HPM_DEBUGCACHE_HEX_MAX + 1];
    if (fd < 0)
        return 0;
    if (examine(fd, &compressed, got, sizeof got) != 0)
        compressed = 0;
    close(fd);
    return compressed && strcmp(got, hex) == 0;
}

/* A copy not used for this long is removed when another is made (a use
 * renews its time, at most once a day): the cache holds what the last
 * months' runs read, not every libc an upgrade left behind. */
#define COPY_UNUSED_S (90L * 24 * 3600)
#define COPY_RENEW_S (24L * 3600)

/* A copy in use: its time renewed (prune_cache), at most once a day. */
static void renew(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && time(NULL) - st.st_mtime > COPY_RENEW_S)
        futimens(fd, NULL);
}

/* The cache's leftovers, removed before a copy is made: copies not used
 * for COPY_UNUSED_S, and temporary copies whose hpm is gone (killed while
 * it made one). Names: HEX.debug and HEX.debug.PID.tmp. */
static void prune_cache(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    time_t now = time(NULL);
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        char path[4096 + 256];
        const char *dot = strstr(de->d_name, ".debug");
        struct stat st;
        if (!dot || dot == de->d_name)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (strcmp(dot, ".debug") == 0) {
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime > COPY_UNUSED_S)
                unlink(path);
        } else if (strncmp(dot, ".debug.", 7) == 0) {
            char *end;
            long pid = strtol(dot + 7, &end, 10);
            if (pid <= 0 || strcmp(end, ".tmp") != 0)
                continue;
            if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
                continue; /* its hpm still runs */
            unlink(path);
        }
    }
    closedir(d);
}

/* objcopy --decompress-debug-sections from to: 0 when it made it */
static int decompress_copy(const char *from, const char *to)
{
    char *argv[] = {"objcopy", "--decompress-debug-sections", (char *)from, (char *)to, NULL};
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int st, rc;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    rc = posix_spawnp(&pid, "objcopy", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The standard build-id path of hex's debug file, where Debian's debug
 * packages put them. */
static void standard_path(const char *hex, char *orig, size_t n)
{
    snprintf(orig, n, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
}

/* A good copy of hex in dir, made when the original is compressed: an
 * open descriptor, or -1. */
static int open_or_make(const char *dir, const char *hex, char *path, size_t pathlen)
{
    char orig[HPM_DEBUGCACHE_HEX_MAX + 64], tmp[4096 + HPM_DEBUGCACHE_HEX_MAX + 64];
    int cfd, n = snprintf(path, pathlen, "%s/%s.debug", dir, hex);
    if (n <= 0 || (size_t)n >= pathlen)
        return -1;
    cfd = open_same_build_id(path, hex);
    standard_path(hex, orig, sizeof orig);
    if (cfd < 0 && is_compressed_debug(orig, hex)) {
        prune_cache(dir);
        snprintf(tmp, sizeof tmp, "%s/%s.debug.%ld.tmp", dir, hex, (long)getpid());
        if (decompress_copy(orig, tmp) == 0 && rename(tmp, path) == 0)
            cfd = open_same_build_id(path, hex);
        else
            unlink(tmp);
    }
    return cfd;
}

int hpm_debugcache_open(const char *hex, char *path, size_t pathlen)
{
    const char *dir = hpm_debugcache_dir();
    int cfd;
    if (!dir || !is_hex_id(hex, strlen(hex)))
        return -1;
    cfd = open_or_make(dir, hex, path, pathlen);
    if (cfd >= 0)
        renew(cfd);
    return cfd;
}

/* The hex of a name "HEXsuffix" in dir, or NULL. */
static const char *named_hex(const char *name, const char *suffix, char *hex)
{
    size_t n = strlen(name), s = strlen(suffix);
    if (n <= s || strcmp(name + n - s, suffix) != 0 || !is_hex_id(name, n - s))
        return NULL;
    memcpy(hex, name, n - s);
    hex[n - s] = 0;
    return hex;
}

char *hpm_debugcache_copies(void)
{
    const char *dir = hpm_debugcache_dir();
    DIR *d;
    struct dirent *de;
    char *list, hex[HPM_DEBUGCACHE_HEX_MAX + 1];
    size_t len = 0, cap = 256;
    if (!dir || !(d = opendir(dir)))
        return NULL;
    if (!(list = malloc(cap))) {
        closedir(d);
        return NULL;
    }
    list[0] = 0;
    while ((de = readdir(d)) != NULL) {
        char path[4096 + 256];
        size_t h;
        int fd;
        if (!named_hex(de->d_name, ".debug", hex))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if ((fd = open_same_build_id(path, hex)) < 0)
            continue; /* damaged or another file's: made again when wanted */
        renew(fd);
        close(fd);
        h = strlen(hex);
        if (len + h + 2 > cap) {
            char *more = realloc(list, cap = 2 * cap + h);
            if (!more) {
                free(list);
                closedir(d);
                return NULL;
            }
            list = more;
        }
        if (len)
            list[len++] = ',';
        memcpy(list + len, hex, h + 1);
        len += h;
    }
    closedir(d);
    return list;
}

int hpm_debugcache_make_wanted(void)
{
    const char *dir = hpm_debugcache_dir();
    DIR *d;
    struct dirent *de;
    char hex[HPM_DEBUGCACHE_HEX_MAX + 1];
    int made = 0;
    if (!dir || !(d = opendir(dir)))
        return 0;
    while ((de = readdir(d)) != NULL) {
        char want[4096 + 256], path[4096 + 256];
        int fd;
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 5, ".want") != 0)
            continue;
        snprintf(want, sizeof want, "%s/%s", dir, de->d_name);
        unlink(want); /* a name that is no build-id's too */
        if (!named_hex(de->d_name, ".want", hex))
            continue;
        if ((fd = open_or_make(dir, hex, path, sizeof path)) >= 0) {
            close(fd);
            made++;
        }
    }
    closedir(d);
    return made;
}
