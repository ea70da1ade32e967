/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * debugcache.h - decompressed copies of Debian's separate debug files.
 *
 * Debian's debug files (libc6-dbg's, every -dbgsym package's) have their
 * DWARF sections compressed. Both readers of them inflate every such
 * section at every open: libdw in the profile front end, and Valgrind at
 * every start of every process of a virtual-PMU run (libc's 4 MB of debug
 * information are 10 MB inflated, about 28 ms of each process's start).
 * As perf keeps a build-id cache (~/.debug), hpm keeps a decompressed copy
 * of each such file, named by its build-id (HEX.debug), made once by
 * binutils' objcopy --decompress-debug-sections.
 *
 * Where: $HPM_DEBUG_CACHE (a directory; "off" or empty for none), else
 * $XDG_CACHE_HOME/hpm/debuginfo, else ~/.cache/hpm/debuginfo. A copy is
 * written to a temporary name (HEX.debug.PID.tmp) and renamed; a temporary
 * copy whose hpm is gone and a copy unused for 90 days are removed when
 * another is made. A copy is used only when it holds the build-id it is
 * named by and no compressed section; whatever fails leaves the original
 * in use.
 */
#ifndef HPM_DEBUGCACHE_H
#define HPM_DEBUGCACHE_H

#include <stddef.h>

/* Longest build-id handled, in hex digits (the usual one is 40). */
#define HPM_DEBUGCACHE_HEX_MAX 128

/* The cache's directory, made on first use; NULL: no cache. */
const char *hpm_debugcache_dir(void);

/* An open descriptor on the copy of the debug file with build-id hex
 * (lowercase hex digits), made from /usr/lib/debug/.build-id/xx/yyyy.debug
 * when that file is compressed and no good copy exists; its path in
 * path[pathlen]. -1: no copy (no cache, the original is not compressed or
 * not there, or the copy could not be made). */
int hpm_debugcache_open(const char *hex, char *path, size_t pathlen);

/* The virtual PMU's part: the build-ids of the good copies in the cache,
 * as "HEX,HEX,..." in a new string ("" when none; NULL: no cache or out of
 * memory). A copy that is not good (damaged, or another file's) is left
 * out: the tool wants it, and the want makes it again. */
char *hpm_debugcache_copies(void);

/* The copies the virtual PMU asked for (HEX.want files it leaves in the
 * cache when it read a standard build-id debug file with no copy listed),
 * made where the original is compressed; each want is removed. Returns how
 * many wanted copies there are now. */
int hpm_debugcache_make_wanted(void);

#endif
