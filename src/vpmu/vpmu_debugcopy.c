/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_debugcopy.c - Valgrind reads Debian's separate debug files from
 * hpm's decompressed copies (src/debugcache).
 *
 * Valgrind reads the debug file of every object a process maps, at every
 * start of every process: libc6-dbg's have compressed DWARF, which it
 * inflates whole each time (tinfl_decompress, about 28 ms of each start of
 * a process that maps libc, a tenth of a short run's CPU). Its search
 * tries /usr/lib/debug/.build-id/xx/yyyy.debug first and has no option to
 * look elsewhere before it, so the tool is linked with
 * --wrap=vgModuleLocal_img_from_local_file (src/vpmu/CMakeLists.txt):
 * where the front end listed a good copy of that build-id
 * (--hpm-debug-copies, made by objcopy --decompress-debug-sections, the
 * same DWARF uncompressed), the image is made from the copy; Valgrind
 * then checks its build-id as it checks the original's. A copy that
 * cannot be opened leaves the original in use. Where no copy is listed,
 * the tool leaves HEX.want in the cache (--hpm-debug-dir) and hpm makes
 * the copy after the run (hpm_debugcache_make_wanted).
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_options.h"

#include "vpmu_debugcopy.h"

/* Valgrind's image of a file (coregrind's priv_image.h): opaque here. */
struct _DiImage;
struct _DiImage *__real_vgModuleLocal_img_from_local_file(const HChar *fullpath);
struct _DiImage *__wrap_vgModuleLocal_img_from_local_file(const HChar *fullpath);

static const HChar *copy_dir;  /* --hpm-debug-dir: the cache */
static const HChar *copy_list; /* --hpm-debug-copies: HEX,HEX,... (good copies) */

/* Linux's O_NOFOLLOW on amd64 (the tool's only platform), which vki does
 * not name. */
#define O_NOFOLLOW_ 0400000

/* The longest build-id in hex that a copy is looked for (debugcache.h). */
#define HEX_MAX 128

Bool vpmu_debugcopy_option(const HChar *arg)
{
    if VG_STR_CLO (arg, "--hpm-debug-dir", copy_dir) {
    } else if VG_STR_CLO (arg, "--hpm-debug-copies", copy_list) {
    } else {
        return False;
    }
    return True;
}

void vpmu_debugcopy_usage(void)
{
    VG_(printf)("    --hpm-debug-dir=DIR       hpm's cache of decompressed debug files [none]\n"
                "    --hpm-debug-copies=HEX,...  the build-ids of its good copies, read\n"
                "                              instead of /usr/lib/debug/.build-id's [none]\n");
}

/* The build-id in hex of a standard path /usr/lib/debug/.build-id/xx/y...y.debug
 * (lowercase hex digits only), in hex[HEX_MAX + 1]. */
static Bool standard_hex(const HChar *path, HChar *hex)
{
    static const HChar pre[] = "/usr/lib/debug/.build-id/", suf[] = ".debug";
    SizeT n = VG_(strlen)(path), p = sizeof pre - 1, s = sizeof suf - 1, h = 0, i;
    if (n < p + 4 + s || n - p - s - 1 > HEX_MAX || VG_(strncmp)(path, pre, p) != 0 ||
        path[p + 2] != '/' || VG_(strcmp)(path + n - s, suf) != 0)
        return False;
    for (i = p; i < n - s; i++) {
        HChar c = path[i];
        if (i == p + 2)
            continue;
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return False;
        hex[h++] = c;
    }
    hex[h] = 0;
    return True;
}

static Bool listed(const HChar *hex)
{
    SizeT n = VG_(strlen)(hex);
    const HChar *p = copy_list;
    while (p && *p) {
        if (VG_(strncmp)(p, hex, n) == 0 && (p[n] == ',' || p[n] == 0))
            return True;
        p = VG_(strchr)(p, ',');
        if (p)
            p++;
    }
    return False;
}

struct _DiImage *__wrap_vgModuleLocal_img_from_local_file(const HChar *fullpath)
{
    HChar hex[HEX_MAX + 1], path[4096 + HEX_MAX + 8];
    if (copy_dir && VG_(strlen)(copy_dir) < 4096 && standard_hex(fullpath, hex)) {
        if (listed(hex)) {
            struct _DiImage *img;
            VG_(sprintf)(path, "%s/%s.debug", copy_dir, hex);
            if ((img = __real_vgModuleLocal_img_from_local_file(path)) != NULL)
                return img;
        } else {
            /* a debug file with no copy: wanted (most objects have none) */
            struct _DiImage *img = __real_vgModuleLocal_img_from_local_file(fullpath);
            if (img) {
                SysRes r;
                VG_(sprintf)(path, "%s/%s.want", copy_dir, hex);
                /* nothing planted there is followed or waited for */
                r = VG_(open)(path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_NONBLOCK | O_NOFOLLOW_, 0600);
                if (!sr_isError(r))
                    VG_(close)(sr_Res(r));
            }
            return img;
        }
    }
    return __real_vgModuleLocal_img_from_local_file(fullpath);
}
