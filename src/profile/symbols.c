/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbols.c - addresses of a profiled process to function, source file and
 * line, with elfutils' libdwfl (profile.h).
 *
 * The tool records, per file mapping that held code, its address range and
 * file offset. The load bias of the object follows from its program
 * headers (the PT_LOAD holding that offset), and libdwfl places the object
 * there (dwfl_report_elf), finding separate debug information the standard
 * way (build-id, .gnu_debuglink under /usr/lib/debug).
 */
#define _GNU_SOURCE /* strdup, strndup, O_CLOEXEC */
#include "profile.h"

#include "debugcache.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fsym {
    uint64_t lo, size;
    const char *name; /* libdwfl's string, alive with the module */
    int rank;         /* binding: 0 global, 1 weak, 2 local (aliases: lowest wins) */
};

struct module {
    char *path;
    uint64_t bias;
    Dwfl *dwfl;
    Dwfl_Module *mod; /* NULL: the file could not be read */
    /* its function symbols by address (libdwfl's own search is linear in
     * the symbol table; a profile looks up every instruction) */
    struct fsym *syms;
    size_t n_syms;
    int syms_read;
    struct fsym *data; /* its variables, the same way */
    size_t n_data;
    char **names; /* names made here: its PLT stubs' ("memcpy@plt") */
    size_t n_names;
    /* Where no symbol covers an address (a stripped program's static
     * functions: nearly all of Debian's python3.11), the unwind table
     * still bounds its function: libdw's CFI says whether an FDE covers
     * the address, and .eh_frame_hdr's sorted table of FDE starts which
     * one (the last start at or below it; FDEs do not overlap). libdw
     * answers with the CFI row holding the address, a part of the FDE: the
     * last row found and its function, as look-ups come in address order. */
    Dwarf_CFI *cfi;
    Dwarf_Addr cfi_bias;
    int cfi_read;
    uint64_t *fde_starts; /* runtime, ascending */
    size_t n_fde_starts;
    uint64_t row_lo, row_hi, row_fn; /* runtime, [lo, hi); hi == 0: none yet */
};

/* A mapping already seen: its module, without reading the file again. */
struct seen {
    uint64_t start, offset;
    char *path;
    size_t module;
};

struct hpm_symbols {
    struct module *m;
    size_t n, cap;
    struct seen *seen;
    size_t n_seen, cap_seen;
};

/* ------------------------------------------------------------------------
 * Separate debug information, decompressed once (src/debugcache): libdw
 * inflates every DWARF section of a file when it opens it, whatever a
 * look-up needs (libc's: 40-50 ms of every profile that ran libc code).
 * ---------------------------------------------------------------------- */

/* The module's debug file: its decompressed copy when its standard
 * build-id file (/usr/lib/debug/.build-id/xx/yyyy.debug, where Debian's
 * debug packages put them) is compressed, else libdwfl's standard search.
 * The copy is found by the module's build-id before that search: the
 * search opens what it finds and libdwfl keeps that handle, whatever
 * descriptor this returns. */
static int find_debuginfo_cached(Dwfl_Module *mod, void **userdata, const char *modname,
                                 Dwarf_Addr base, const char *file_name,
                                 const char *debuglink_file, GElf_Word debuglink_crc,
                                 char **debuginfo_file_name)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    int n = dwfl_module_build_id(mod, &bits, &vaddr), i, cfd;
    char hex[HPM_DEBUGCACHE_HEX_MAX + 1], path[4096 + HPM_DEBUGCACHE_HEX_MAX + 16];
    if (n >= 1 && 2 * n <= HPM_DEBUGCACHE_HEX_MAX) {
        for (i = 0; i < n; i++)
            snprintf(hex + 2 * i, 3, "%02x", bits[i]);
        if ((cfd = hpm_debugcache_open(hex, path, sizeof path)) >= 0) {
            char *name = strdup(path);
            if (name) {
                free(*debuginfo_file_name);
                *debuginfo_file_name = name;
                return cfd;
            }
            close(cfd);
        }
    }
    return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                        debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks callbacks = {
    .find_elf = NULL,
    .find_debuginfo = find_debuginfo_cached,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = NULL,
};

struct hpm_symbols *hpm_symbols_new(void)
{
    elf_version(EV_CURRENT);
    return calloc(1, sizeof(struct hpm_symbols));
}

void hpm_symbols_free(struct hpm_symbols *t)
{
    size_t i;
    if (!t)
        return;
    for (i = 0; i < t->n; i++) {
        if (t->m[i].dwfl)
            dwfl_end(t->m[i].dwfl);
        free(t->m[i].syms);
        free(t->m[i].data);
        while (t->m[i].n_names)
            free(t->m[i].names[--t->m[i].n_names]);
        free(t->m[i].names);
        free(t->m[i].fde_starts);
        free(t->m[i].path);
    }
    for (i = 0; i < t->n_seen; i++)
        free(t->seen[i].path);
    free(t->seen);
    free(t->m);
    free(t);
}

/* The load bias of path mapped at start from file offset off; -1 when the
 * file is not an ELF object with such a segment. */
static int load_bias(const char *path, uint64_t start, uint64_t off, uint64_t *bias)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
    Elf *e;
    size_t n, i;
    if (fd < 0)
        return -1;
    e = elf_begin(fd, ELF_C_READ, NULL);
    if (e && elf_kind(e) == ELF_K_ELF && elf_getphdrnum(e, &n) == 0) {
        for (i = 0; i < n; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
                continue;
            /* the mapping starts at the page that holds the segment's start */
            if (off >= (ph.p_offset & ~(uint64_t)0xfff) && off < ph.p_offset + ph.p_filesz) {
                *bias = start - (ph.p_vaddr + off - ph.p_offset);
                rc = 0;
                break;
            }
        }
    }
    if (e)
        elf_end(e);
    close(fd);
    return rc;
}

static struct module *new_module(struct hpm_symbols *t, const struct hpm_prof_object *o);

static struct module *module_of(struct hpm_symbols *t, const struct hpm_prof_object *o)
{
    size_t i;
    struct module *m;
    for (i = 0; i < t->n_seen; i++)
        if (t->seen[i].start == o->start && t->seen[i].offset == o->offset &&
            strcmp(t->seen[i].path, o->path) == 0)
            return &t->m[t->seen[i].module];
    m = new_module(t, o);
    if (!m)
        return NULL;
    if (t->n_seen == t->cap_seen) {
        size_t cap = t->cap_seen ? 2 * t->cap_seen : 16;
        struct seen *ns = realloc(t->seen, cap * sizeof *ns);
        if (!ns)
            return m;
        t->seen = ns;
        t->cap_seen = cap;
    }
    t->seen[t->n_seen].path = strdup(o->path);
    if (!t->seen[t->n_seen].path)
        return m;
    t->seen[t->n_seen].start = o->start;
    t->seen[t->n_seen].offset = o->offset;
    t->seen[t->n_seen].module = (size_t)(m - t->m);
    t->n_seen++;
    return m;
}

static struct module *new_module(struct hpm_symbols *t, const struct hpm_prof_object *o)
{
    size_t i;
    uint64_t bias = 0;
    struct module *m;
    int have_bias = load_bias(o->path, o->start, o->offset, &bias) == 0;
    for (i = 0; i < t->n; i++)
        if (strcmp(t->m[i].path, o->path) == 0 && (!have_bias || t->m[i].bias == bias))
            return &t->m[i];
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        struct module *nm = realloc(t->m, cap * sizeof *nm);
        if (!nm)
            return NULL;
        t->m = nm;
        t->cap = cap;
    }
    m = &t->m[t->n];
    memset(m, 0, sizeof *m);
    m->path = strdup(o->path);
    if (!m->path)
        return NULL;
    m->bias = bias;
    t->n++;
    if (!have_bias)
        return m;
    m->dwfl = dwfl_begin(&callbacks);
    if (!m->dwfl)
        return m;
    dwfl_report_begin(m->dwfl);
    m->mod = dwfl_report_elf(m->dwfl, o->path, o->path, -1, bias, true);
    dwfl_report_end(m->dwfl, NULL, NULL);
    return m;
}

static int cmp_fsym(const void *a, const void *b)
{
    const struct fsym *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return strcmp(x->name, y->name);
}

/* Sorted by address, one per address (aliases: global first). */
static void sort_syms(struct fsym *t, size_t *n)
{
    size_t o = 0, j;
    if (*n > 1)
        qsort(t, *n, sizeof *t, cmp_fsym);
    for (j = 0; j < *n; j++)
        if (o == 0 || t[o - 1].lo != t[j].lo)
            t[o++] = t[j];
    *n = o;
}

/* A name made for module m, alive with it; NULL without memory. */
static const char *module_name(struct module *m, char *name)
{
    char **n;
    if (!name)
        return NULL;
    n = realloc(m->names, (m->n_names + 1) * sizeof *n);
    if (!n) {
        free(name);
        return NULL;
    }
    m->names = n;
    m->names[m->n_names++] = name;
    return name;
}

/* The GOT slots the dynamic relocations bind (JUMP_SLOT of .rela.plt,
 * GLOB_DAT of .rela.dyn: .plt.got's stubs) to their symbols' names, and
 * .rela.plt's symbols in order (a lazy stub pushes its index). */
struct got_slot {
    uint64_t at;
    const char *name;
};

static int cmp_slot(const void *a, const void *b)
{
    const struct got_slot *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

static size_t got_slots(struct module *m, Elf *e, struct got_slot **out, const char ***jump,
                        size_t *n_jump)
{
    Elf_Scn *scn = NULL;
    struct got_slot *t = NULL;
    size_t n = 0, cap = 0;
    *out = NULL;
    *jump = NULL;
    *n_jump = 0;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh, ssh;
        Elf_Data *d, *sd;
        Elf_Scn *sscn;
        size_t i, nr;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0 ||
            !(sscn = elf_getscn(e, sh.sh_link)) || !gelf_getshdr(sscn, &ssh) ||
            !(d = elf_getdata(scn, NULL)) || !(sd = elf_getdata(sscn, NULL)))
            continue;
        nr = sh.sh_size / sh.sh_entsize;
        if (sh.sh_flags & SHF_INFO_LINK) { /* .rela.plt: its order is the stubs' */
            const char **j = realloc(*jump, (*n_jump + nr) * sizeof *j);
            if (!j)
                break;
            *jump = j;
        }
        for (i = 0; i < nr; i++) {
            GElf_Rela r;
            GElf_Sym sym;
            const char *name = NULL;
            unsigned type;
            if (!gelf_getrela(d, (int)i, &r))
                break;
            type = (unsigned)GELF_R_TYPE(r.r_info);
            if (GELF_R_SYM(r.r_info) && gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
                name = elf_strptr(e, ssh.sh_link, sym.st_name);
            if (type == R_X86_64_IRELATIVE) {
                /* an ifunc of the object's own (libc's memcpy): objdump's
                 * name, the resolver's address */
                char *in;
                name = asprintf(&in, "*ABS*+0x%llx", (unsigned long long)r.r_addend) < 0
                           ? NULL
                           : module_name(m, in);
                type = R_X86_64_JUMP_SLOT;
            }
            if (sh.sh_flags & SHF_INFO_LINK)
                (*jump)[(*n_jump)++] = name && *name ? name : NULL;
            if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || !name || !*name)
                continue;
            if (n == cap) {
                struct got_slot *g = realloc(t, (cap = cap ? 2 * cap : 64) * sizeof *g);
                if (!g)
                    break;
                t = g;
            }
            t[n].at = r.r_offset;
            t[n++].name = name;
        }
    }
    if (n > 1)
        qsort(t, n, sizeof *t, cmp_slot);
    *out = t;
    return n;
}

/* The stub of [p, p + len) at link-time address at: the GOT slot its
 * indirect jump reads (jmp *d(%rip), with or without a bnd prefix) or,
 * for a lazy stub that only pushes, the .rela.plt index it pushes. */
static const char *stub_target(const unsigned char *p, size_t len, uint64_t at,
                               const struct got_slot *slots, size_t n_slots,
                               const char **jump, size_t n_jump)
{
    size_t k;
    for (k = 0; k + 6 <= len; k++) {
        if (p[k] == 0xff && p[k + 1] == 0x25) {
            int32_t disp;
            uint64_t slot;
            size_t lo = 0, hi = n_slots;
            memcpy(&disp, p + k + 2, 4);
            slot = at + k + 6 + (uint64_t)(int64_t)disp;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (slots[mid].at < slot)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < n_slots && slots[lo].at == slot)
                return slots[lo].name;
            return NULL;
        }
    }
    for (k = 0; k + 5 <= len; k++)
        if (p[k] == 0x68) { /* push $index */
            uint32_t idx;
            memcpy(&idx, p + k + 1, 4);
            return idx < n_jump ? jump[idx] : NULL;
        }
    return NULL;
}

/* The PLT's stubs have no symbols: without names of their own they would
 * be taken for the last symbol before them (_init). Each stub is named as
 * objdump and perf name it, by the function it jumps to ("memcpy@plt"),
 * found through the GOT slot it reads and the slot's relocation (x86-64's
 * .plt, .plt.sec and .plt.got; an IRELATIVE slot, an ifunc of the object's
 * own, is "*ABS*+0xRESOLVER@plt" as objdump names it); what no stub covers (the lazy binder's
 * PLT0) is "(PLT stubs of OBJECT)", so no two objects' stubs share a
 * name (an annotator merges functions by name). */
static void add_plt(struct module *m, size_t cap)
{
    GElf_Addr bias = 0;
    Elf *e = dwfl_module_getelf(m->mod, &bias);
    Elf_Scn *scn = NULL;
    size_t shstrndx, n_slots, n_jump;
    struct got_slot *slots;
    const char **jump, *base = strrchr(m->path, '/'), *whole;
    char *wn;
    if (!e || elf_getshdrstrndx(e, &shstrndx) != 0)
        return;
    base = base ? base + 1 : m->path;
    if (asprintf(&wn, "(PLT stubs of %s)", base) < 0)
        wn = NULL;
    if (!(whole = module_name(m, wn)))
        whole = "(PLT stubs)";
    n_slots = got_slots(m, e, &slots, &jump, &n_jump);
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name;
        Elf_Data *d;
        uint64_t ent, k;
        if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)) ||
            strncmp(name, ".plt", 4) != 0 || sh.sh_size == 0)
            continue;
        d = sh.sh_type == SHT_PROGBITS ? elf_getdata(scn, NULL) : NULL;
        ent = sh.sh_entsize >= 8 && sh.sh_entsize <= 32 ? sh.sh_entsize : 16;
        for (k = 0; d && d->d_buf && d->d_size == sh.sh_size && k + ent <= sh.sh_size; k += ent) {
            const char *target = stub_target((const unsigned char *)d->d_buf + k, ent,
                                             sh.sh_addr + k, slots, n_slots, jump, n_jump);
            char *sn;
            struct fsym *grown;
            if (!target || asprintf(&sn, "%s@plt", target) < 0)
                continue;
            if (m->n_syms == cap) {
                grown = realloc(m->syms, (cap + 64) * sizeof *grown);
                if (!grown) {
                    free(sn);
                    break;
                }
                m->syms = grown;
                cap += 64;
            }
            if (!(m->syms[m->n_syms].name = module_name(m, sn)))
                break;
            m->syms[m->n_syms].lo = sh.sh_addr + k + bias;
            m->syms[m->n_syms].size = ent;
            m->syms[m->n_syms].rank = 3; /* a real symbol at the same address wins */
            m->n_syms++;
        }
        if (m->n_syms == cap) {
            struct fsym *grown = realloc(m->syms, (cap + 4) * sizeof *grown);
            if (!grown)
                break;
            m->syms = grown;
            cap += 4;
        }
        /* the rest of the section (PLT0): a symbol of larger size at the
         * same address loses to the stubs' (sort_syms keeps one per
         * address: the stub at the section's start is named) */
        m->syms[m->n_syms].lo = sh.sh_addr + bias;
        m->syms[m->n_syms].size = sh.sh_size;
        m->syms[m->n_syms].name = whole;
        m->syms[m->n_syms].rank = 4;
        m->n_syms++;
    }
    free(slots);
    free(jump);
}

static void read_syms(struct module *m)
{
    int n = dwfl_module_getsymtab(m->mod), i;
    m->syms_read = 1;
    if (n <= 0)
        return;
    m->syms = malloc((size_t)n * sizeof *m->syms);
    m->data = malloc((size_t)n * sizeof *m->data);
    if (!m->syms || !m->data)
        return;
    for (i = 0; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        GElf_Word shndx;
        const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, NULL, NULL);
        int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
        struct fsym *f;
        if (!name || !*name || shndx == SHN_UNDEF || addr == 0)
            continue;
        if (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE)
            f = &m->syms[m->n_syms++];
        else if (type == STT_OBJECT || type == STT_COMMON)
            f = &m->data[m->n_data++];
        else
            continue;
        f->lo = addr;
        f->size = sym.st_size;
        f->name = name;
        f->rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
    }
    add_plt(m, (size_t)n);
    sort_syms(m->syms, &m->n_syms);
    sort_syms(m->data, &m->n_data);
}

/* The symbol holding addr: the one whose [lo, lo + size) holds it, or the
 * nearest one before it without a size (as libdwfl answers). */
static const struct fsym *find_in(const struct fsym *t, size_t n, uint64_t addr, int sized)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first symbol above addr */
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    {
        const struct fsym *f = &t[lo - 1];
        if ((!sized && f->size == 0) || addr - f->lo < f->size)
            return f;
    }
    return NULL;
}

static const struct fsym *find_sym(struct module *m, uint64_t addr)
{
    if (!m->syms_read)
        read_syms(m);
    return find_in(m->syms, m->n_syms, addr, 0);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int32_t get_s32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

/* The FDE starts of .eh_frame_hdr's search table, in the encodings GNU ld
 * writes (a 4-byte frame pointer, udata4 count, datarel sdata4 pairs);
 * none for anything else. */
static void read_fde_starts(struct module *m)
{
    GElf_Addr bias = 0;
    Elf *e = dwfl_module_getelf(m->mod, &bias);
    Elf_Scn *scn = NULL;
    size_t shstrndx, i, n;
    if (!e || elf_getshdrstrndx(e, &shstrndx) != 0)
        return;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *d;
        const unsigned char *p;
        const char *name;
        if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)) ||
            strcmp(name, ".eh_frame_hdr") != 0)
            continue;
        d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size < 12)
            return;
        p = d->d_buf;
        /* version 1; the frame pointer 4 bytes (udata4/sdata4, any base);
         * the count udata4; the table datarel sdata4 */
        if (p[0] != 1 || ((p[1] & 0x0f) != 0x03 && (p[1] & 0x0f) != 0x0b) || p[2] != 0x03 ||
            p[3] != 0x3b)
            return;
        n = (uint32_t)get_s32(p + 8);
        if (n == 0 || n > (d->d_size - 12) / 8)
            return;
        m->fde_starts = malloc(n * sizeof *m->fde_starts);
        if (!m->fde_starts)
            return;
        for (i = 0; i < n; i++)
            m->fde_starts[i] = sh.sh_addr + (uint64_t)(int64_t)get_s32(p + 12 + 8 * i) + bias;
        qsort(m->fde_starts, n, sizeof *m->fde_starts, cmp_u64); /* sorted already, as a rule */
        m->n_fde_starts = n;
        return;
    }
}

/* The runtime start of the function whose FDE covers addr, or 0. */
static uint64_t fde_start(struct module *m, uint64_t addr)
{
    Dwarf_Frame *frame = NULL;
    Dwarf_Addr lo, hi;
    size_t a = 0, b;
    if (addr >= m->row_lo && addr < m->row_hi)
        return m->row_fn;
    if (!m->cfi_read) {
        m->cfi_read = 1;
        m->cfi = dwfl_module_eh_cfi(m->mod, &m->cfi_bias);
        if (m->cfi)
            read_fde_starts(m);
    }
    if (!m->n_fde_starts || addr < m->cfi_bias ||
        dwarf_cfi_addrframe(m->cfi, addr - m->cfi_bias, &frame) != 0)
        return 0;
    if (dwarf_frame_info(frame, &lo, &hi, NULL) < 0) {
        free(frame);
        return 0;
    }
    free(frame);
    b = m->n_fde_starts;
    while (a < b) { /* the first start above addr */
        size_t mid = a + (b - a) / 2;
        if (m->fde_starts[mid] <= addr)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == 0)
        return 0;
    m->row_lo = lo + m->cfi_bias;
    m->row_hi = hi + m->cfi_bias;
    m->row_fn = m->fde_starts[a - 1];
    return m->row_fn;
}

int hpm_symbols_data(struct hpm_symbols *t, const struct hpm_prof_object *o, uint64_t addr,
                     const char **name, uint64_t *start)
{
    struct module *m;
    const struct fsym *f;
    if (!t || !o || !o->path)
        return -1;
    m = module_of(t, o);
    if (!m || !m->mod)
        return -1;
    if (!m->syms_read)
        read_syms(m);
    f = find_in(m->data, m->n_data, addr, 1);
    if (!f)
        return -1;
    *name = f->name;
    *start = f->lo;
    return 0;
}

int hpm_symbols_lookup(struct hpm_symbols *t, const struct hpm_prof_object *o, uint64_t addr,
                       struct hpm_sym *s)
{
    struct module *m;
    Dwfl_Line *line;
    memset(s, 0, sizeof *s);
    if (!t || !o || !o->path)
        return -1;
    m = module_of(t, o);
    if (!m || !m->mod)
        return -1;
    {
        const struct fsym *f = find_sym(m, addr);
        if (f) {
            s->fn = f->name;
            s->fn_addr = f->lo;
        } else {
            s->fn_addr = fde_start(m, addr); /* nameless, but one function */
        }
    }
    line = dwfl_module_getsrc(m->mod, addr);
    if (line) {
        int lineno = 0;
        const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
        if (file && lineno > 0) {
            s->file = file;
            s->line = (unsigned)lineno;
        }
    }
    if (!s->file && s->fn && s->fn_addr && find_sym(m, addr)->rank >= 3)
        /* a PLT stub has no source: its object stands for its file, as
         * callgrind_annotate keys functions by file and name (two objects'
         * memcpy@plt stay apart) */
        s->file = m->path;
    return 0;
}
