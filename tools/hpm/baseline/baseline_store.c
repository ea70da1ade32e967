/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * baseline_store.c - where baselines live and how one is written
 * (baseline.h): a name's folder, and a save that replaces the folder
 * whole or leaves the old one as it was. The files are written into a new
 * folder beside it (mkdtemp, each file created O_EXCL|O_NOFOLLOW), which
 * then takes the name in one rename (RENAME_EXCHANGE over an existing
 * baseline); a failed write (a full disk) removes the new folder.
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "baseline/baseline.h"
#include "util/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files a baseline folder holds: what a save writes and a replaced
 * baseline loses. */
static const char *const baseline_files[] = {"report.json", "profile", "profile.data",
                                             "meta.json", NULL};

int baseline_path(const char *name, char *buf, size_t len, char *err, size_t errlen)
{
    const char *store = getenv("HPM_BASELINE_DIR"), *last;
    size_t n = strlen(name);
    while (n > 1 && name[n - 1] == '/')
        n--;
    last = name + n;
    while (last > name && last[-1] != '/')
        last--;
    /* "." and ".." would be the store itself or the folder above it (its
     * report.json, its meta.json), "" no folder at all */
    if (n == 0 || (name + n - last == 1 && last[0] == '.') ||
        (name + n - last == 2 && last[0] == '.' && last[1] == '.') || last == name + n) {
        snprintf(err, errlen,
                 "'%s' is not a baseline name: a name (or a path) must end in a folder's own "
                 "name, not '.', '..' or '/'",
                 name);
        return -1;
    }
    if (!store || !*store)
        store = BASELINE_STORE_DEFAULT;
    if ((size_t)snprintf(buf, len, "%s%s%.*s", strchr(name, '/') ? "" : store,
                         strchr(name, '/') ? "" : "/", (int)n, name) >= len) {
        snprintf(err, errlen, "baseline %.200s: the name is too long", name);
        return -1;
    }
    return 0;
}

uint64_t baseline_machine_hash(const char *machine_text)
{
    uint64_t h = 14695981039346656037ull;
    for (; *machine_text; machine_text++)
        h = (h ^ (unsigned char)*machine_text) * 1099511628211ull;
    return h;
}

static json_t *meta_json(const struct baseline_meta *m)
{
    json_t *o = json_object(), *libs = json_array(), *ex = json_object();
    char hash[24];
    unsigned i;
    snprintf(hash, sizeof hash, "%016" PRIx64, m->machine_hash);
    json_object_set_new(o, "hpm_baseline", json_integer(1));
    json_object_set_new(o, "machine", json_string(m->machine));
    json_object_set_new(o, "machine_hash", json_string(hash));
    json_object_set_new(o, "hpm_version", json_string(m->hpm_version));
    json_object_set_new(o, "program", json_string(m->program));
    json_object_set_new(o, "build_id", json_string(m->build_id));
    for (i = 0; i < m->n_libs; i++) {
        json_t *l = json_object();
        json_object_set_new(l, "path", json_string(m->libs[i].path));
        json_object_set_new(l, "build_id", json_string(m->libs[i].build_id));
        json_array_append_new(libs, l);
    }
    json_object_set_new(o, "libraries", libs);
    json_object_set_new(o, "args", json_string(m->args));
    json_object_set_new(o, "env_bytes", json_integer((json_int_t)m->env_bytes));
    if (m->exit_signal)
        json_object_set_new(ex, "signal", json_integer(m->exit_signal));
    else
        json_object_set_new(ex, "status", json_integer(m->exit_status));
    json_object_set_new(o, "exit", ex);
    return o;
}

/* Writes all of buf to fd: 0, or -1 with errno (ENOSPC on a full disk). */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* A new file dir/file (never through a link, never over a file) with the
 * bytes of src (a file) or of text: 0, or -1 with errno. */
static int write_new(const char *dir, const char *file, const char *src, const char *text)
{
    char path[4200], buf[65536];
    int in = -1, out, e = 0;
    ssize_t n;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        return errno = ENAMETOOLONG, -1;
    if (src && (in = open(src, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    if ((out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0) {
        e = errno;
        if (in >= 0)
            close(in);
        return errno = e, -1;
    }
    if (text && write_all(out, text, strlen(text)) != 0)
        e = errno;
    while (in >= 0 && !e && (n = read(in, buf, sizeof buf)) != 0)
        if (n < 0 ? errno != EINTR : write_all(out, buf, (size_t)n) != 0)
            e = errno;
    if (in >= 0)
        close(in);
    /* a full disk may show only at the end: the data written back */
    if (!e && fsync(out) != 0)
        e = errno;
    if (close(out) != 0 && !e)
        e = errno;
    return e ? (errno = e, -1) : 0;
}

/* Removes a baseline folder's own files and the folder: 0, or -1 (it holds
 * files of someone else, and stays). */
static int remove_baseline_dir(const char *dir)
{
    char path[4200];
    unsigned i;
    for (i = 0; baseline_files[i]; i++)
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, baseline_files[i]) < sizeof path)
            unlink(path);
    return rmdir(dir);
}

/* The new folder for dir: beside it (a rename stays on one file system),
 * hidden, made with mkdtemp. 0, or -1 with errno. */
static int new_folder(const char *dir, char *tmp, size_t len)
{
    const char *slash = strrchr(dir, '/');
    char parent[4096];
    mode_t mask = umask(0);
    umask(mask);
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - dir) : 1, slash ? dir : ".");
    if (slash == dir)
        snprintf(parent, sizeof parent, "/");
    if (runner_mkdirs(parent, 0755) != 0)
        return -1;
    if ((size_t)snprintf(tmp, len, "%s/.%s.hpm-save.XXXXXX", parent, slash ? slash + 1 : dir) >=
        len)
        return errno = ENAMETOOLONG, -1;
    if (!mkdtemp(tmp))
        return -1;
    /* a baseline is committed and shared: the mode a plain mkdir gives */
    (void)chmod(tmp, 0777 & ~mask);
    return 0;
}

/* The new folder takes dir's name: a rename when dir is new, an exchange
 * over an old baseline (removed after). 0, or -1 with errno. */
static int install(const char *tmp, const char *dir, char *kept, size_t len)
{
    kept[0] = 0;
    if (rename(tmp, dir) == 0)
        return 0;
    if (errno != ENOTEMPTY && errno != EEXIST)
        return -1;
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) != 0)
        return -1;
    if (remove_baseline_dir(tmp) != 0)
        snprintf(kept, len, "%s", tmp);
    return 0;
}

int baseline_save(const char *name, const char *report_json, const char *profile,
                  const struct baseline_meta *m, char *err, size_t errlen)
{
    char dir[4096], real[PATH_MAX], tmp[4200], data[4200], kept[4200], why[600], *meta_text;
    const char *step;
    json_t *meta;
    struct stat st;
    int e;
    if (baseline_path(name, dir, sizeof dir, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    /* a baseline's folder that is a link: the folder it names is replaced */
    if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(dir, real)) {
            snprintf(err, errlen, "baseline %s: %s: %s", name, dir, strerror(errno));
            return -1;
        }
        snprintf(dir, sizeof dir, "%s", real);
    }
    if (new_folder(dir, tmp, sizeof tmp) != 0) {
        snprintf(err, errlen, "baseline %s: cannot make a folder beside %s: %s", name, dir,
                 strerror(errno));
        return -1;
    }
    meta = meta_json(m);
    meta_text = json_dumps(meta, JSON_INDENT(2));
    json_decref(meta);
    snprintf(data, sizeof data, "%s.data", profile ? profile : "");
    if (write_new(tmp, "report.json", report_json, NULL) != 0)
        step = "report.json";
    else if (profile && write_new(tmp, "profile", profile, NULL) != 0)
        step = "profile";
    else if (profile && access(data, R_OK) == 0 && write_new(tmp, "profile.data", data, NULL) != 0)
        step = "profile.data";
    else if (!meta_text ? (errno = ENOMEM, 1) : write_new(tmp, "meta.json", NULL, meta_text) != 0)
        step = "meta.json";
    else if (install(tmp, dir, kept, sizeof kept) != 0)
        step = "its folder";
    else
        step = NULL;
    e = errno;
    free(meta_text);
    if (step) {
        snprintf(err, errlen, "baseline %s: cannot write %s: %s (%s is as it was)", name, step,
                 strerror(e), dir);
        remove_baseline_dir(tmp);
        return -1;
    }
    if (kept[0])
        fprintf(stderr,
                "hpm: baseline %s: the previous folder holds files hpm did not write: kept as "
                "%s\n",
                name, kept);
    return 0;
}
