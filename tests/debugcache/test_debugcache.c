/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of src/debugcache: which copies are good (listed for the
 * virtual PMU and opened for the profile), and what wants leave behind.
 * The good copy is this program itself (a build-id, no compressed
 * section); its original under /usr/lib/debug does not exist, so no copy
 * is ever made here. */
#define _GNU_SOURCE
#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debugcache.h"
#include "hpm_check.h"

static char dir[4096];

static void put(const char *name, const void *data, size_t n)
{
    char path[4200];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(data, 1, n, f) == n);
        fclose(f);
    }
}

static int exists(const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* this program's bytes and its build-id in hex */
static char *self(size_t *n, char *hex)
{
    int fd = open("/proc/self/exe", O_RDONLY);
    struct stat st;
    char *buf;
    const void *id;
    ssize_t k, i;
    Elf *e;
    if (fd < 0 || fstat(fd, &st) != 0 || !(buf = malloc((size_t)st.st_size)))
        return NULL;
    *n = (size_t)read(fd, buf, (size_t)st.st_size);
    elf_version(EV_CURRENT);
    e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    k = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
    for (i = 0; i < k; i++)
        sprintf(hex + 2 * i, "%02x", ((const unsigned char *)id)[i]);
    hex[k > 0 ? 2 * k : 0] = 0;
    if (e)
        elf_end(e);
    close(fd);
    return buf;
}

int main(int argc, char **argv)
{
    char hex[HPM_DEBUGCACHE_HEX_MAX + 1], name[HPM_DEBUGCACHE_HEX_MAX + 16], path[8192],
        cmd[4200];
    size_t n = 0;
    char *me, *list;
    int fd;
    if (argc != 2)
        return 2;
    snprintf(dir, sizeof dir, "%s", argv[1]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 2;
    me = self(&n, hex);
    CHECK(me != NULL && strlen(hex) >= 16);
    if (!me)
        return 1;
    /* the directory is made on first use */
    setenv("HPM_DEBUG_CACHE", dir, 1);
    CHECK_STR(hpm_debugcache_dir(), dir);

    /* a good copy under its build-id's name is listed and opened; a copy
     * under another name, a damaged one and a name of no build-id are not */
    snprintf(name, sizeof name, "%s.debug", hex);
    put(name, me, n);
    put("00ff.debug", me, n);
    put("abcd.debug", "damaged", 7);
    put("XYZ.debug", me, n);
    put("ab.debug.123.tmp", me, n);
    /* a FIFO is neither waited for nor listed */
    snprintf(path, sizeof path, "%s/0a0b.debug", dir);
    CHECK(mkfifo(path, 0600) == 0);
    list = hpm_debugcache_copies();
    CHECK_STR(list, hex);
    free(list);
    fd = hpm_debugcache_open(hex, path, sizeof path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    CHECK(strstr(path, name) != NULL);
    CHECK(hpm_debugcache_open("00ff", path, sizeof path) < 0);
    CHECK(hpm_debugcache_open("abcd", path, sizeof path) < 0);
    CHECK(hpm_debugcache_open("../x", path, sizeof path) < 0);
    CHECK(hpm_debugcache_open("ABCD", path, sizeof path) < 0);
    CHECK(hpm_debugcache_open("0a0b", path, sizeof path) < 0);
    /* nothing listed is removed by listing */
    CHECK(exists("abcd.debug") && exists("00ff.debug"));

    /* wants: each removed; one whose original does not exist makes no
     * copy, a name of no build-id makes nothing */
    put("0123456789abcdef.want", "", 0);
    put("zz.want", "", 0);
    put("..want", "", 0);
    put("notes.wanted", "", 0);
    CHECK_EQ(hpm_debugcache_make_wanted(), 0);
    CHECK(exists("notes.wanted"));
    CHECK(!exists("0123456789abcdef.want") && !exists("zz.want") && !exists("..want"));
    CHECK(!exists("0123456789abcdef.debug"));
    CHECK(exists(name));

    if (system(cmd) != 0)
        failures++;
    free(me);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("debugcache: all checks passed\n");
    return 0;
}
