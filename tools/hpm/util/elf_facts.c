/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * elf_facts.c - the one reader of ELF files in hpm: a program's GNU
 * build-id (a baseline's meta) and its DT_NEEDED entries (a baseline's
 * libraries; whether a program is an MPI or OpenMP one), through libelf.
 * Only the note and dynamic sections are loaded: a large program's others
 * (its code, its debug information) never are.
 */
#define _GNU_SOURCE /* strdup */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/elf_facts.h"

/* What one walk over an ELF file's sections collects. */
struct elf_walk {
    char *build_id; /* hex out, or NULL: not wanted */
    size_t len;
    /* each DT_NEEDED name until it returns nonzero, or NULL: not wanted */
    int (*on_needed)(const char *name, void *ctx);
    void *ctx;
    int needed_done;
};

static void note_build_id(struct elf_walk *w, Elf_Data *d)
{
    size_t off = 0, name_off, desc_off;
    GElf_Nhdr nh;
    while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
            memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0) {
            size_t i;
            const unsigned char *b = (const unsigned char *)d->d_buf + desc_off;
            for (i = 0; i < nh.n_descsz && 2 * i + 2 < w->len; i++)
                snprintf(w->build_id + 2 * i, 3, "%02x", b[i]);
        }
}

static void dynamic_needed(struct elf_walk *w, Elf *elf, const GElf_Shdr *sh, Elf_Data *d)
{
    size_t i, n = sh->sh_size / sh->sh_entsize;
    for (i = 0; i < n && !w->needed_done; i++) {
        GElf_Dyn dyn;
        const char *name;
        if (!gelf_getdyn(d, (int)i, &dyn))
            break;
        if (dyn.d_tag == DT_NEEDED && (name = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val)))
            w->needed_done = w->on_needed(name, w->ctx);
    }
}

/* Walks path's note and dynamic sections into w: 0, or -1 (err says why). */
static int elf_walk(const char *path, struct elf_walk *w, char *err, size_t errlen)
{
    Elf *elf;
    Elf_Scn *scn = NULL;
    int fd;
    if (w->build_id)
        w->build_id[0] = 0;
    if (elf_version(EV_CURRENT) == EV_NONE) {
        snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
        return -1;
    }
    /* O_NONBLOCK: a FIFO named as a program does not block the run */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        snprintf(err, errlen, "%s: not an ELF file", path);
        if (elf)
            elf_end(elf);
        close(fd);
        return -1;
    }
    while ((w->build_id || (w->on_needed && !w->needed_done)) &&
           (scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *d;
        int note, dynamic;
        if (!gelf_getshdr(scn, &sh))
            continue;
        note = sh.sh_type == SHT_NOTE && w->build_id;
        dynamic = sh.sh_type == SHT_DYNAMIC && w->on_needed && sh.sh_entsize;
        /* only these two kinds are loaded */
        if ((note || dynamic) && (d = elf_getdata(scn, NULL))) {
            if (note)
                note_build_id(w, d);
            else
                dynamic_needed(w, elf, &sh, d);
        }
    }
    elf_end(elf);
    close(fd);
    return 0;
}

struct needed_list {
    char **v;
    unsigned *n, max;
};

static int add_needed(const char *name, void *ctx)
{
    struct needed_list *l = ctx;
    if ((l->v[*l->n] = strdup(name)))
        (*l->n)++;
    return *l->n >= l->max;
}

void elf_facts(const char *path, char *build_id, size_t len, char **needed, unsigned *n_needed,
               unsigned max)
{
    char err[600];
    struct needed_list l = {needed, n_needed, max};
    struct elf_walk w = {build_id, len, needed && max ? add_needed : NULL, &l, 0};
    if (n_needed)
        *n_needed = 0;
    if (elf_walk(path, &w, err, sizeof err) != 0)
        build_id[0] = 0;
}

struct prefix_match {
    const char *const *prefixes;
    int found;
};

static int match_prefix(const char *name, void *ctx)
{
    struct prefix_match *m = ctx;
    size_t k;
    for (k = 0; m->prefixes[k] && !m->found; k++)
        m->found = strncmp(name, m->prefixes[k], strlen(m->prefixes[k])) == 0;
    return m->found;
}

int program_needs_library(const char *path, const char *const *prefixes, char *err,
                          size_t errlen)
{
    struct prefix_match m = {prefixes, 0};
    struct elf_walk w = {NULL, 0, match_prefix, &m, 0};
    return elf_walk(path, &w, err, errlen) != 0 ? -1 : m.found;
}
