/* SPDX-License-Identifier: BSD-3-Clause */
/* vpmufile.c - the one reader of the virtual PMU's output (vpmufile.h). */
#define _POSIX_C_SOURCE 200809L
#include "vpmufile.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "vpmu_format.h"

void vpmu_recs_begin(struct vpmu_recs *it, const char *buf, size_t len)
{
    it->at = buf;
    it->end = buf + len;
    it->lineno = 0;
}

int vpmu_recs_next(struct vpmu_recs *it, struct vpmu_rec *r)
{
    const char *nl, *q;
    if (it->at >= it->end)
        return 0;
    nl = memchr(it->at, '\n', (size_t)(it->end - it->at));
    r->lineno = ++it->lineno;
    r->line = it->at;
    r->end = nl ? nl : it->end;
    r->terminated = nl != NULL;
    it->at = nl ? nl + 1 : it->end;
    r->has_nul = memchr(r->line, 0, (size_t)(r->end - r->line)) != NULL;
    if (r->has_nul) {
        r->name = r->rest = r->end;
        r->name_len = 0;
        return -1;
    }
    q = r->line;
    if (!vpmu_field(&q, r->end, &r->name, &r->name_len)) {
        r->name = r->end;
        r->name_len = 0;
    }
    r->rest = q;
    return 1;
}

/* ------------------------------------------------------------- folder */

/* A decimal number of 1 to 19 digits at *s (no more digits after); *s
 * moves past it. */
static int name_number(const char **s, uint64_t *v)
{
    const char *p = *s;
    uint64_t x = 0;
    int n = 0;
    while (*p >= '0' && *p <= '9' && n < 19) {
        x = x * 10 + (uint64_t)(*p - '0');
        p++;
        n++;
    }
    if (n == 0 || (*p >= '0' && *p <= '9'))
        return -1;
    *s = p;
    *v = x;
    return 0;
}

int vpmu_file_name(const char *name, uint64_t *pid, uint32_t *seq)
{
    const char *s = name;
    uint64_t k;
    if (strncmp(s, "vpmu.", 5) != 0)
        return -1;
    s += 5;
    if (name_number(&s, pid) != 0 || strncmp(s, ".out", 4) != 0)
        return -1;
    s += 4;
    if (*s == 0) {
        *seq = VPMU_FILE_FINAL;
        return 0;
    }
    if (strncmp(s, VPMU_EXEC_SUFFIX, strlen(VPMU_EXEC_SUFFIX)) != 0)
        return -1;
    s += strlen(VPMU_EXEC_SUFFIX);
    if (name_number(&s, &k) != 0 || *s != 0 || k == 0 || k >= VPMU_FILE_FINAL)
        return -1;
    *seq = (uint32_t)k;
    return 0;
}

static int cmp_file(const void *a, const void *b)
{
    const struct vpmu_file *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int vpmu_files_list(const char *dir, struct vpmu_file **files, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct vpmu_file *v = NULL;
    size_t cap = 0, dl = strlen(dir);
    *files = NULL;
    *n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        struct vpmu_file f;
        size_t len;
        if (vpmu_file_name(e->d_name, &f.pid, &f.seq) != 0)
            continue;
        if (*n == cap) {
            struct vpmu_file *nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *nv);
            if (!nv)
                goto oom;
            v = nv;
        }
        len = dl + strlen(e->d_name) + 2;
        if (!(f.path = malloc(len)))
            goto oom;
        snprintf(f.path, len, "%s/%s", dir, e->d_name);
        f.name = f.path + dl + 1;
        v[(*n)++] = f;
    }
    closedir(d);
    if (*n > 1)
        qsort(v, *n, sizeof *v, cmp_file);
    *files = v;
    return 0;
oom:
    closedir(d);
    vpmu_files_free(v, *n);
    *n = 0;
    errno = ENOMEM;
    return -1;
}

void vpmu_files_free(struct vpmu_file *files, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(files[i].path);
    free(files);
}

/* ------------------------------------------------------------- session */

struct vpmu_map {
    struct hpm_file_map m;
};

int vpmu_session_open(struct vpmu_session *s, const char *dir)
{
    memset(s, 0, sizeof *s);
    return vpmu_files_list(dir, &s->files, &s->n_files);
}

int vpmu_session_has_pid(const struct vpmu_session *s, uint64_t pid)
{
    size_t i;
    for (i = 0; i < s->n_files; i++)
        if (s->files[i].pid == pid)
            return 1;
    return 0;
}

/* A tool output file begins with its format line. */
static int output_head(const char *head, size_t n)
{
    return n >= strlen(VPMU_FORMAT_MAGIC) + 1 &&
           memcmp(head, VPMU_FORMAT_MAGIC " ", strlen(VPMU_FORMAT_MAGIC) + 1) == 0;
}

/* The tools still reading (failed[i] 0), handed one record. */
static void walk_record(const struct vpmu_file *f, const struct vpmu_rec *r,
                        const struct vpmu_tool *const *tools, unsigned n, unsigned char *out)
{
    unsigned i;
    for (i = 0; i < n; i++)
        if (!out[i] && tools[i]->record && tools[i]->record(tools[i]->ctx, f, r) != 0)
            out[i] = 2;
}

/* out[i]: 0 reading, 1 left this file out, 2 failed. */
static void walk(const struct vpmu_file *f, const char *buf, size_t len,
                 const struct vpmu_tool *const *tools, unsigned n, unsigned char *out)
{
    struct vpmu_recs it;
    struct vpmu_rec r;
    int nul = memchr(buf, 0, len) != NULL;
    unsigned i, reading = 0;
    for (i = 0; i < n; i++) {
        int b;
        if (out[i])
            continue;
        b = tools[i]->file_begin ? tools[i]->file_begin(tools[i]->ctx, f, buf, len, nul) : 0;
        out[i] = b < 0 ? 2 : b > 0 ? 1 : 0;
        reading += !out[i];
    }
    vpmu_recs_begin(&it, buf, len);
    while (reading) {
        int more = vpmu_recs_next(&it, &r);
        if (more == 0)
            break;
        walk_record(f, &r, tools, n, out);
        if (more < 0)
            break;
    }
    for (i = 0; i < n; i++) {
        if (!out[i] && tools[i]->file_end && tools[i]->file_end(tools[i]->ctx, f) != 0)
            out[i] = 2;
        if (out[i] == 1)
            out[i] = 0;
    }
}

int vpmu_tools_walk(const struct vpmu_file *f, const char *buf, size_t len,
                    const struct vpmu_tool *const *tools, unsigned n_tools)
{
    unsigned char out[16] = {0};
    unsigned i;
    if (n_tools > sizeof out)
        return -1;
    walk(f, buf, len, tools, n_tools, out);
    for (i = 0; i < n_tools; i++)
        if (out[i])
            return -1;
    return 0;
}

int vpmu_session_process(struct vpmu_session *s, uint64_t main_pid, int children,
                         const struct vpmu_tool *const *tools, unsigned n_tools, char *err,
                         size_t errlen)
{
    unsigned char out[16] = {0};
    size_t i;
    if (n_tools > sizeof out || !(s->maps = calloc(s->n_files ? s->n_files : 1, sizeof *s->maps))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (i = 0; i < s->n_files; i++) {
        const struct vpmu_file *f = &s->files[i];
        struct hpm_file_map *m = &s->maps[s->n_maps].m;
        char why[512];
        if (!children && f->pid != main_pid)
            continue;
        /* 16 GiB: far beyond any output file (a profile's records are tens of MB) */
        if (hpm_file_map(f->path, (size_t)1 << 34, output_head,
                         "an output file of the virtual PMU", m, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s", f->path, why);
            return -1;
        }
        s->n_maps++;
        walk(f, m->data, m->len, tools, n_tools, out);
    }
    return 0;
}

void vpmu_session_close(struct vpmu_session *s)
{
    size_t i;
    for (i = 0; i < s->n_maps; i++)
        hpm_file_unmap(&s->maps[i].m);
    free(s->maps);
    vpmu_files_free(s->files, s->n_files);
    memset(s, 0, sizeof *s);
}
