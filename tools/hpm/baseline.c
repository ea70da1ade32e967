/* SPDX-License-Identifier: BSD-3-Clause */
/* baseline.c - named baselines and the gate against them (baseline.h). */
#define _GNU_SOURCE /* asprintf */
#include "baseline.h"

#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

const char *const baseline_default_limits[] = {"INSTRUCTIONS:+1%", "CYCLES:+1%", NULL};

static const char *const *unstable;
static unsigned n_unstable;

void baseline_set_unstable(const char *const *kinds, unsigned n)
{
    unstable = kinds;
    n_unstable = n;
}

static int is_unstable(const char *kind)
{
    unsigned i;
    for (i = 0; i < n_unstable; i++)
        if (strcasecmp(unstable[i], kind) == 0)
            return 1;
    return 0;
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The ELF file's GNU build-id as hex into out ("" without one), and, when
 * needed is not NULL, its DT_NEEDED names (at most max, malloc'd). */
static void elf_facts(const char *path, char *out, size_t len, char **needed, unsigned *n_needed,
                      unsigned max)
{
    Elf *elf;
    Elf_Scn *scn = NULL;
    int fd;
    out[0] = 0;
    if (n_needed)
        *n_needed = 0;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return;
    elf = elf_begin(fd, ELF_C_READ, NULL);
    while (elf && elf_kind(elf) == ELF_K_ELF && (scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *d;
        /* only the two kinds of section it reads: a large program's others
         * (its code, its debug information) are never loaded */
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_NOTE && sh.sh_type != SHT_DYNAMIC) ||
            !(d = elf_getdata(scn, NULL)))
            continue;
        if (sh.sh_type == SHT_NOTE) {
            size_t off = 0, name_off, desc_off;
            GElf_Nhdr nh;
            while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
                if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0) {
                    size_t i;
                    const unsigned char *b = (const unsigned char *)d->d_buf + desc_off;
                    for (i = 0; i < nh.n_descsz && 2 * i + 2 < len; i++)
                        snprintf(out + 2 * i, 3, "%02x", b[i]);
                }
        } else if (sh.sh_type == SHT_DYNAMIC && needed && sh.sh_entsize) {
            size_t i;
            for (i = 0; i < sh.sh_size / sh.sh_entsize && *n_needed < max; i++) {
                GElf_Dyn dyn;
                const char *name;
                if (gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag == DT_NEEDED &&
                    (name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) &&
                    (needed[*n_needed] = strdup(name)))
                    (*n_needed)++;
            }
        }
    }
    if (elf)
        elf_end(elf);
    close(fd);
}

void baseline_meta_collect(struct baseline_meta *m, const char *machine_name,
                           const char *machine_text, const char *program, char *const *argv,
                           int argc)
{
    static const char *const dirs[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                       "/lib64", "/usr/lib", "/lib", NULL};
    char *needed[BASELINE_MAX_LIBS];
    unsigned n = 0, i, j;
    size_t at = 0;
    char **e;
    memset(m, 0, sizeof *m);
    snprintf(m->machine, sizeof m->machine, "%s", machine_name);
    m->machine_hash = fnv1a(machine_text);
    snprintf(m->hpm_version, sizeof m->hpm_version, "%s", HPM_VERSION_STRING);
    snprintf(m->program, sizeof m->program, "%s", program);
    elf_facts(program, m->build_id, sizeof m->build_id, needed, &n, BASELINE_MAX_LIBS);
    /* the libraries it names, where the system keeps them (a library
     * found by RUNPATH is left out: its build-id is not compared) */
    for (i = 0; i < n; i++) {
        for (j = 0; dirs[j] && m->n_libs < BASELINE_MAX_LIBS; j++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[j], needed[i]);
            if (access(path, R_OK) == 0) {
                snprintf(m->libs[m->n_libs].path, sizeof m->libs[m->n_libs].path, "%s", path);
                elf_facts(path, m->libs[m->n_libs].build_id, sizeof m->libs[m->n_libs].build_id,
                          NULL, NULL, 0);
                m->n_libs++;
                break;
            }
        }
        free(needed[i]);
    }
    for (i = 1; (int)i < argc && at < sizeof m->args; i++)
        at += (size_t)snprintf(m->args + at, sizeof m->args - at, "%s%s", i > 1 ? " " : "",
                               argv[i]);
    for (e = environ; e && *e; e++)
        m->env_bytes += strlen(*e) + 1;
}

int baseline_path(const char *name, char *buf, size_t len)
{
    const char *store = getenv("HPM_BASELINE_DIR");
    if (!store || !*store)
        store = BASELINE_STORE_DEFAULT;
    if ((size_t)snprintf(buf, len, "%s%s%s", strchr(name, '/') ? "" : store,
                         strchr(name, '/') ? "" : "/", name) >= len)
        return -1;
    return 0;
}

static json_t *meta_json(const struct baseline_meta *m)
{
    json_t *o = json_object(), *libs = json_array();
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
    return o;
}

/* Copies file src to dst (through dst.tmp, renamed: a baseline is never
 * half written). 0, or -1 with errno. */
static int copy_file(const char *src, const char *dst)
{
    char tmp[4200], buf[65536];
    int in, out, e = 0;
    ssize_t n;
    snprintf(tmp, sizeof tmp, "%s.tmp", dst);
    if ((in = open(src, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    unlink(tmp);
    if ((out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0) {
        e = errno;
        close(in);
        return errno = e, -1;
    }
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    e = n < 0 ? errno : 0;
    close(in);
    if (close(out) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, dst) != 0)
        e = errno;
    if (e)
        unlink(tmp);
    return e ? (errno = e, -1) : 0;
}

static int mkdirs(const char *path)
{
    char buf[4096], *p;
    snprintf(buf, sizeof buf, "%s", path);
    for (p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int baseline_save(const char *name, const char *report_json, const char *profile,
                  const struct baseline_meta *m, char *err, size_t errlen)
{
    char dir[4096], path[4200], data[4200];
    json_t *meta;
    int rc;
    if (baseline_path(name, dir, sizeof dir) != 0 || mkdirs(dir) != 0) {
        snprintf(err, errlen, "baseline %s: cannot make its folder %s: %s", name, dir,
                 strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/report.json", dir);
    if (copy_file(report_json, path) != 0) {
        snprintf(err, errlen, "baseline %s: cannot write %s: %s", name, path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/profile", dir);
    snprintf(data, sizeof data, "%s.data", profile ? profile : "");
    if (profile && (copy_file(profile, path) != 0 ||
                    (access(data, R_OK) == 0 &&
                     (snprintf(path, sizeof path, "%s/profile.data", dir),
                      copy_file(data, path) != 0)))) {
        snprintf(err, errlen, "baseline %s: cannot write %s: %s", name, path, strerror(errno));
        return -1;
    }
    if (!profile) {
        /* a count baseline over a profile one: no stale profile beside it */
        unlink(path);
        snprintf(path, sizeof path, "%s/profile.data", dir);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/meta.json", dir);
    snprintf(data, sizeof data, "%s/meta.json.tmp", dir);
    meta = meta_json(m);
    rc = json_dump_file(meta, data, JSON_INDENT(2)) == 0 && rename(data, path) == 0 ? 0 : -1;
    json_decref(meta);
    if (rc) {
        snprintf(err, errlen, "baseline %s: cannot write %s", name, path);
        unlink(data);
    }
    return rc;
}

int baseline_meta_parse(const char *text, size_t len, struct baseline_meta *m, char *err,
                        size_t errlen)
{
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *libs, *l;
    const char *hash;
    char *end;
    size_t i;
    if (!o || !json_is_object(o) || json_integer_value(json_object_get(o, "hpm_baseline")) != 1 ||
        !(hash = json_string_value(json_object_get(o, "machine_hash")))) {
        snprintf(err, errlen, "%s", o ? "not an hpm baseline's meta" : je.text);
        json_decref(o);
        return -1;
    }
    memset(m, 0, sizeof *m);
    m->machine_hash = strtoull(hash, &end, 16);
    if (!*hash || *end) {
        snprintf(err, errlen, "machine_hash '%.32s' is not a hash", hash);
        json_decref(o);
        return -1;
    }
#define STR(field, key)                                                                           \
    snprintf(m->field, sizeof m->field, "%s",                                                     \
             json_string_value(json_object_get(o, key)) ? json_string_value(json_object_get(o, key)) \
                                                         : "")
    STR(machine, "machine");
    STR(hpm_version, "hpm_version");
    STR(program, "program");
    STR(build_id, "build_id");
    STR(args, "args");
#undef STR
    m->env_bytes = (uint64_t)json_integer_value(json_object_get(o, "env_bytes"));
    libs = json_object_get(o, "libraries");
    json_array_foreach(libs, i, l)
    {
        const char *p = json_string_value(json_object_get(l, "path")),
                   *b = json_string_value(json_object_get(l, "build_id"));
        if (m->n_libs == BASELINE_MAX_LIBS || !p)
            break;
        snprintf(m->libs[m->n_libs].path, sizeof m->libs[0].path, "%s", p);
        snprintf(m->libs[m->n_libs].build_id, sizeof m->libs[0].build_id, "%s", b ? b : "");
        m->n_libs++;
    }
    json_decref(o);
    return 0;
}

/* Reads meta.json of a baseline folder into m: 0, or -1 with a message. */
static int meta_read(const char *name, const char *dir, struct baseline_meta *m, char *err,
                     size_t errlen)
{
    char path[4200], why[600], *text;
    struct stat st;
    size_t len;
    int rc;
    snprintf(path, sizeof path, "%s/meta.json", dir);
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "no baseline %s (%s: %s); save one with --save-baseline %s", name,
                 dir, strerror(errno), name);
        return -1;
    }
    /* a regular file, opened without blocking, of at most 1 MiB */
    if (hpm_file_read(path, (size_t)1 << 20, NULL, "a baseline's meta file", &text, &len, why,
                      sizeof why) != 0) {
        snprintf(err, errlen, "baseline %s: %s", name, why);
        return -1;
    }
    rc = baseline_meta_parse(text, len, m, why, sizeof why);
    free(text);
    if (rc)
        snprintf(err, errlen, "baseline %s: %s is corrupt (%s)", name, path, why);
    return rc;
}

/* Warnings for what differs but does not forbid the comparison. */
static void meta_warnings(FILE *f, const char *name, const struct baseline_meta *old,
                          const struct baseline_meta *now)
{
    unsigned i, j;
    if (strcmp(old->hpm_version, now->hpm_version) != 0)
        fprintf(f, "hpm: warning: baseline %s was made by hpm %s, this is %s\n", name,
                old->hpm_version, now->hpm_version);
    if (strcmp(old->build_id, now->build_id) != 0)
        fprintf(f, "hpm: warning: baseline %s: the program is another build (build-id %s, now %s)\n",
                name, old->build_id[0] ? old->build_id : "none",
                now->build_id[0] ? now->build_id : "none");
    for (i = 0; i < now->n_libs; i++)
        for (j = 0; j < old->n_libs; j++)
            if (strcmp(old->libs[j].path, now->libs[i].path) == 0 &&
                strcmp(old->libs[j].build_id, now->libs[i].build_id) != 0)
                fprintf(f, "hpm: warning: baseline %s: %s is another build\n", name,
                        now->libs[i].path);
    if (strcmp(old->args, now->args) != 0)
        fprintf(f, "hpm: warning: baseline %s ran with other arguments (%s)\n", name, old->args);
    if (old->env_bytes != now->env_bytes)
        fprintf(f,
                "hpm: warning: baseline %s ran with an environment of %" PRIu64
                " bytes, this run %" PRIu64 " (its size moves the start-up's counts)\n",
                name, old->env_bytes, now->env_bytes);
}

int baseline_check(FILE *f, const char *name, const char *report_json, const char *profile,
                   const struct baseline_meta *m, const struct diff_limit *limits, unsigned n,
                   char *err, size_t errlen)
{
    char dir[4096], old[4200];
    struct baseline_meta bm;
    struct diff_limit dflt[4];
    struct diff d;
    unsigned i;
    int over;
    if (baseline_path(name, dir, sizeof dir) != 0) {
        snprintf(err, errlen, "baseline %s: name too long", name);
        return 2;
    }
    if (meta_read(name, dir, &bm, err, errlen) != 0)
        return 2;
    if (bm.machine_hash != m->machine_hash) {
        snprintf(err, errlen,
                 "baseline %s was counted on another machine model (%s, hash %016" PRIx64
                 "; this run: %s, %016" PRIx64 "): the counts are not comparable",
                 name, bm.machine, bm.machine_hash, m->machine, m->machine_hash);
        return 2;
    }
    meta_warnings(f, name, &bm, m);
    if (profile) {
        snprintf(old, sizeof old, "%s/profile", dir);
        if (access(old, R_OK) != 0) {
            snprintf(err, errlen, "baseline %s has no profile (save it with hpm profile)", name);
            return 2;
        }
    } else {
        snprintf(old, sizeof old, "%s/report.json", dir);
    }
    if (diff_load(&d, old, profile ? profile : report_json, err, errlen) != 0) {
        char why[1024];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "baseline %s: %s", name, why);
        return 2;
    }
    if (n == 0) {
        /* the defaults, for the events this run has */
        for (i = 0; baseline_default_limits[i]; i++)
            if (diff_limit_parse(baseline_default_limits[i], &dflt[n], err, errlen) == 0 &&
                diff_kind(&d, dflt[n].kind) >= 0)
                n++;
        limits = dflt;
        fprintf(f, "hpm: baseline %s: no --limit given; gating on", name);
        for (i = 0; i < n; i++)
            fprintf(f, " %s", dflt[i].text);
        fprintf(f, "\n");
    }
    {
        /* no gate on what differs between identical runs (--repeat) */
        static struct diff_limit kept[256];
        unsigned m = 0;
        for (i = 0; i < n && m < sizeof kept / sizeof kept[0]; i++)
            if (is_unstable(limits[i].kind))
                fprintf(f, "hpm: baseline %s: %s not gated: %s differs between identical runs\n",
                        name, limits[i].text, limits[i].kind);
            else
                kept[m++] = limits[i];
        limits = kept;
        n = m;
    }
    over = diff_gate(f, &d, limits, n, err, errlen);
    diff_free(&d);
    if (over < 0)
        return 2;
    if (over == 0)
        fprintf(f, "hpm: baseline %s: within %u limit%s\n", name, n, n == 1 ? "" : "s");
    return over ? 3 : 0;
}

int baseline_limits_ok(const char *cmd, const char *const *limits, unsigned n_limits)
{
    struct diff_limit l;
    char err[512];
    unsigned i;
    for (i = 0; i < n_limits; i++)
        if (diff_limit_parse(limits[i], &l, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", cmd, err);
            return 2;
        }
    return 0;
}

int baseline_after_run(const char *cmd, const char *save, const char *check,
                       const char *const *limits, unsigned n_limits, const char *report_json,
                       const char *profile, const struct baseline_meta *m)
{
    static struct diff_limit l[256];
    char err[1024];
    unsigned i;
    int rc = 0;
    if (n_limits > sizeof l / sizeof l[0])
        n_limits = sizeof l / sizeof l[0];
    for (i = 0; i < n_limits; i++)
        if (diff_limit_parse(limits[i], &l[i], err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", cmd, err);
            return 2;
        }
    if (check) {
        rc = baseline_check(stderr, check, report_json, profile, m, l, n_limits, err, sizeof err);
        if (rc == 2)
            fprintf(stderr, "%s: %s\n", cmd, err);
    }
    if (save && rc != 2) {
        if (baseline_save(save, report_json, profile, m, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", cmd, err);
            return 2;
        }
        baseline_path(save, err, sizeof err);
        fprintf(stderr, "%s: baseline %s saved in %s\n", cmd, save, err);
    }
    return rc;
}
