/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * callgrind.c - the profile model in Valgrind's callgrind format, both ways
 * (profile.h). The format: valgrind.org/docs/manual/cl-format.html.
 *
 * Written: "positions: instr line", one cost line per instruction, names
 * compressed ("fn=(3) main" once, then "fn=(3)"), call arcs as
 * cob=/cfi=/cfn=, calls=COUNT TARGET, then the call site's line with the
 * callee's inclusive costs, as callgrind writes them; the jumps a
 * function keeps (hpm profile: its loops' back edges) as callgrind
 * --collect-jumps=yes writes them: "jcnd=TAKEN/EXECUTED TARGET" or
 * "jump=COUNT TARGET" ("jfi=" before it for a target in another file),
 * then the jump's own position, a line without costs.
 * Read: what callgrind and hpm write (version 1): name compression in the
 * three name spaces (objects, files, functions), subposition compression
 * ("+N", "-N", "*"), hexadecimal positions, missing trailing costs as 0.
 */
#define _GNU_SOURCE /* strdup, strndup, O_CLOEXEC */
#include "profile.h"
#include "profile_util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int hpm_prof_callgrind_head(const char *head, size_t n)
{
    (void)n;
    return strncmp(head, "# callgrind format", 18) == 0 || strncmp(head, "version:", 8) == 0 ||
           strncmp(head, "events:", 7) == 0 || strstr(head, "\nevents:") != NULL;
}

/* ---------------------------------------------------------------- writer */

/* name compression: an id per string id and name space, given on first use */
struct names {
    unsigned *id; /* per string id, 0 = not yet written */
    unsigned next;
};

static void put_name(FILE *f, const char *key, struct names *ns, const struct hpm_profile *p,
                     unsigned s)
{
    if (ns->id[s]) {
        fprintf(f, "%s=(%u)\n", key, ns->id[s]);
        return;
    }
    ns->id[s] = ++ns->next;
    fprintf(f, "%s=(%u) %s\n", key, ns->id[s], p->strs[s]);
}

/* Decimal digits of v, ending at end (what %llu writes): its start. */
static char *put_u64(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

/* A cost line's values, dense (v) or sparse (kv: the kinds between two
 * pairs are 0; profile.h). The writer's hot loop: one line per
 * instruction, up to HPM_PROF_KINDS_MAX numbers each, formatted here and
 * written with one fwrite, not one fprintf per number. col[k] is kind k's
 * column (the kinds not hidden before it); a sparse line's zeros between
 * two values are one copy of " 0 0 ...": most of a line is zeros (a
 * hundred kinds, ten values). */
static void put_values(FILE *f, const uint64_t *v, const struct hpm_prof_kv *kv, unsigned n_kv,
                       const struct hpm_profile *p, const unsigned *col)
{
    static const char zeros[] =
        " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
        " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
        " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
        " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0";
    char buf[HPM_PROF_KINDS_MAX * 21 + 2], *o = buf, num[20], *s;
    unsigned k, i, last = 0, at = 0;
    size_t n;
    _Static_assert(sizeof zeros - 1 == 2 * HPM_PROF_KINDS_MAX, "a zero per kind");
    if (v) {
        /* missing trailing costs are 0 */
        for (last = p->n_kinds; last > 0 && (v[last - 1] == 0 || p->hidden[last - 1]); last--)
            ;
        for (k = 0; k < last; k++) {
            if (p->hidden[k])
                continue;
            if (v[k] == 0) {
                *o++ = ' ';
                *o++ = '0';
                continue;
            }
            s = put_u64(num + sizeof num, v[k]);
            n = (size_t)(num + sizeof num - s);
            *o++ = ' ';
            memcpy(o, s, n);
            o += n;
        }
    } else {
        for (i = 0; i < n_kv; i++) {
            k = kv[i].kind;
            if (kv[i].value == 0 || p->hidden[k])
                continue;
            memcpy(o, zeros, 2 * (size_t)(col[k] - at)); /* the zeros before it */
            o += 2 * (size_t)(col[k] - at);
            s = put_u64(num + sizeof num, kv[i].value);
            n = (size_t)(num + sizeof num - s);
            *o++ = ' ';
            memcpy(o, s, n);
            o += n;
            at = col[k] + 1;
        }
    }
    *o++ = '\n';
    fwrite(buf, 1, (size_t)(o - buf), f);
}

/* "0x<addr hex> <line>" of a cost or call line, as "0x%" PRIx64 " %u". */
static void put_position(FILE *f, uint64_t addr, unsigned line)
{
    static const char hex[] = "0123456789abcdef";
    char buf[2 + 16 + 1 + 10], num[16], *s = num + sizeof num, *o = buf;
    size_t n;
    do {
        *--s = hex[addr & 15];
        addr >>= 4;
    } while (addr);
    *o++ = '0';
    *o++ = 'x';
    n = (size_t)(num + sizeof num - s);
    memcpy(o, s, n);
    o += n;
    *o++ = ' ';
    s = put_u64(num + sizeof num, line);
    n = (size_t)(num + sizeof num - s);
    memcpy(o, s, n);
    o += n;
    fwrite(buf, 1, (size_t)(o - buf), f);
}

int hpm_prof_write_callgrind(const struct hpm_profile *p, FILE *f)
{
    struct names obs = {0}, fls = {0}, fns = {0};
    uint64_t sum[HPM_PROF_KINDS_MAX];
    const uint64_t *tot;
    size_t i, j;
    unsigned k, col[HPM_PROF_KINDS_MAX], cols = 0;
    int rc = 0;

    for (k = 0; k < p->n_kinds; k++) {
        col[k] = cols;
        cols += !p->hidden[k];
    }

    obs.id = calloc(p->n_strs + 1, sizeof *obs.id);
    fls.id = calloc(p->n_strs + 1, sizeof *fls.id);
    fns.id = calloc(p->n_strs + 1, sizeof *fns.id);
    if (!obs.id || !fls.id || !fns.id) {
        rc = -1;
        goto done;
    }
    /* a file read back may have no totals: its costs' sum stands in (a
     * pass over every cost, for nothing when the totals are known) */
    if (!p->have_totals)
        hpm_profile_sum(p, sum);
    tot = p->have_totals ? p->totals : sum;
    fprintf(f, "# callgrind format\nversion: 1\ncreator: %s\n",
            p->creator ? p->creator : "hpm profile");
    if (p->command)
        fprintf(f, "cmd: %s\n", p->command);
    fprintf(f, "positions: %s\nevents:", p->has_addr ? "instr line" : "line");
    for (k = 0; k < p->n_kinds; k++)
        if (!p->hidden[k])
            fprintf(f, " %s", p->kinds[k]);
    fputc('\n', f);
    for (k = 0; k < p->n_kinds; k++)
        if (p->apportioned[k] && !p->hidden[k])
            fprintf(f, "# %s %s\n", p->kinds[k],
                    p->apportioned[k] == HPM_PROF_UNATTRIBUTED
                        ? "is not per instruction: its total is in (unattributed)"
                    : p->apportioned[k] == HPM_PROF_SCALED
                        ? "per instruction: the timing model's share, scaled to the total"
                        : "per instruction: the model's share scaled to the total, or in "
                          "(unattributed) where a process has none");
    fprintf(f, "summary:");
    put_values(f, tot, NULL, 0, p, col);

    for (i = 0; i < p->n_fns; i++) {
        const struct hpm_prof_fn *fn = &p->fns[i];
        unsigned cur_file = fn->file;
        fputc('\n', f);
        put_name(f, "ob", &obs, p, fn->obj);
        put_name(f, "fl", &fls, p, fn->file);
        put_name(f, "fn", &fns, p, fn->name);
        for (j = 0; j < fn->n_costs; j++) {
            const struct hpm_prof_cost *c = &fn->costs[j];
            if (c->file != cur_file) {
                put_name(f, "fi", &fls, p, c->file);
                cur_file = c->file;
            }
            if (p->has_addr)
                put_position(f, c->addr, c->line);
            else
                fprintf(f, "%u", c->line);
            put_values(f, c->v, c->kv, c->n_kv, p, col);
        }
        for (j = 0; j < fn->n_calls; j++) {
            const struct hpm_prof_call *c = &fn->calls[j];
            const struct hpm_prof_fn *callee = &p->fns[c->callee];
            if (c->site_file != cur_file) {
                put_name(f, "fi", &fls, p, c->site_file);
                cur_file = c->site_file;
            }
            put_name(f, "cob", &obs, p, callee->obj);
            put_name(f, "cfi", &fls, p, callee->file);
            put_name(f, "cfn", &fns, p, callee->name);
            if (p->has_addr)
                fprintf(f, "calls=%" PRIu64 " 0x%" PRIx64 " %u\n0x%" PRIx64 " %u", c->count,
                        c->target_addr, c->target_line, c->site_addr, c->site_line);
            else
                fprintf(f, "calls=%" PRIu64 " %u\n%u", c->count, c->target_line, c->site_line);
            put_values(f, c->v, c->kv, c->n_kv, p, col);
        }
        for (j = 0; j < fn->n_jumps && p->has_addr; j++) {
            const struct hpm_prof_jump *jp = &fn->jumps[j];
            if (jp->site_file != cur_file) {
                put_name(f, "fi", &fls, p, jp->site_file);
                cur_file = jp->site_file;
            }
            if (jp->target_file != jp->site_file)
                put_name(f, "jfi", &fls, p, jp->target_file);
            if (jp->target_fn != i)
                put_name(f, "jfn", &fns, p, p->fns[jp->target_fn].name);
            if (jp->cond)
                fprintf(f, "jcnd=%" PRIu64 "/%" PRIu64 " ", jp->taken, jp->executed);
            else
                fprintf(f, "jump=%" PRIu64 " ", jp->taken);
            put_position(f, jp->target_addr, jp->target_line);
            fputc('\n', f);
            put_position(f, jp->site_addr, jp->site_line);
            fputc('\n', f);
        }
    }
    fprintf(f, "\ntotals:");
    put_values(f, tot, NULL, 0, p, col);
    if (ferror(f))
        rc = -1;
done:
    free(obs.id);
    free(fls.id);
    free(fns.id);
    return rc;
}

/* ---------------------------------------------------------------- reader */

#define NAME_IDS_MAX (1u << 24)

/* compressed-name ids of one name space: id -> string id */
struct idmap {
    unsigned *s; /* 0 = undefined, else string id + 1 */
    size_t cap;
};

static int idmap_set(struct idmap *m, unsigned long id, unsigned s)
{
    if (id >= m->cap) {
        size_t cap = m->cap ? m->cap : 64;
        unsigned *ns;
        while (cap <= id)
            cap *= 2;
        ns = realloc(m->s, cap * sizeof *ns);
        if (!ns)
            return -1;
        memset(ns + m->cap, 0, (cap - m->cap) * sizeof *ns);
        m->s = ns;
        m->cap = cap;
    }
    m->s[id] = s + 1;
    return 0;
}

/* "(id) name", "(id)" or "name": the string id, or -1 */
static long parse_name(struct hpm_profile *p, struct idmap *m, const char *v)
{
    char *e;
    unsigned long id;
    unsigned s;
    while (*v == ' ' || *v == '\t')
        v++;
    if (*v != '(')
        return (long)hpm_profile_str(p, *v ? v : "???");
    errno = 0;
    id = strtoul(v + 1, &e, 10);
    if (errno || e == v + 1 || *e != ')' || id >= NAME_IDS_MAX)
        return -1;
    e++;
    while (*e == ' ' || *e == '\t')
        e++;
    if (!*e) {
        if (id >= m->cap || !m->s[id])
            return -1; /* used before it was defined */
        return (long)m->s[id] - 1;
    }
    s = hpm_profile_str(p, e);
    if (idmap_set(m, id, s) != 0)
        return -1;
    return (long)s;
}

/* One position ("0x1f", "12", "+3", "-1", "*") relative to prev. */
static int parse_pos(const char **q, uint64_t prev, uint64_t *v)
{
    const char *s = *q;
    char *e;
    uint64_t x;
    int sign = 0;
    if (*s == '*') {
        *v = prev;
        *q = s + 1;
        return 0;
    }
    if (*s == '+' || *s == '-')
        sign = *s++ == '+' ? 1 : -1;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    x = strtoull(s, &e, 0); /* 0x... or decimal */
    if (errno || e == s)
        return -1;
    *v = sign > 0 ? prev + x : sign < 0 ? prev - x : x;
    *q = e;
    return 0;
}

static int parse_costs(const char *q, uint64_t *v, unsigned n)
{
    unsigned k = 0;
    memset(v, 0, (n ? n : 1) * sizeof *v);
    for (;;) {
        char *e;
        while (*q == ' ' || *q == '\t')
            q++;
        if (!*q)
            return 0;
        if (k == n || !isdigit((unsigned char)*q))
            return -1;
        errno = 0;
        v[k++] = strtoull(q, &e, 0);
        if (errno)
            return -1;
        q = e;
    }
}

static int starts(const char *s, const char *key)
{
    return strncmp(s, key, strlen(key)) == 0;
}

/* What a callgrind file's reader carries from line to line: the current
 * object, file and function, the called function's names (cob=, cfi=,
 * cfn=), the positions that relative ones build on, and a calls=, jump=
 * or jcnd= line waiting for the position line that completes it. */
struct cg_reader {
    struct hpm_profile *p;
    struct idmap obs, fls, fns;
    unsigned lineno, npos;
    unsigned cur_ob, cur_fl, cur_fi, cur_fn, have_fn;
    unsigned c_ob, c_fl, c_fn, have_cfn, c_ob_set, c_fl_set;
    uint64_t prev[2];
    int in_call, have_events;
    struct hpm_prof_call call;
    /* jfi= and jfn= name a jump's target file and function (another
     * function's: not kept) */
    int in_jump, j_fi_set, j_fn_set;
    unsigned j_fi, j_fn;
    struct hpm_prof_jump jump;
    char *err;
    size_t errlen;
};

/* The error of the current line: "line N: " and the message; -1. */
static int cg_fail(struct cg_reader *r, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hpm__set_err(r->err, r->errlen, "line %u: %s", r->lineno, msg);
    return -1;
}

static int cg_oom(struct cg_reader *r)
{
    hpm__set_err(r->err, r->errlen, "out of memory");
    return -1;
}

/* A position field pair (address, line) as the positions: line says. */
static uint64_t pos_addr(const struct cg_reader *r, const uint64_t *pos)
{
    return r->npos == 2 ? pos[0] : 0;
}

static unsigned pos_line(const struct cg_reader *r, const uint64_t *pos)
{
    return (unsigned)(r->npos == 2 ? pos[1] : pos[0]);
}

static int add_call(struct cg_reader *r, const struct hpm_prof_call *call)
{
    struct hpm_prof_fn *f = &r->p->fns[r->cur_fn];
    struct hpm_prof_call *nc = hpm__grow(f->calls, &f->cap_calls, f->n_calls + 1, sizeof *nc);
    if (!nc)
        return cg_oom(r);
    f->calls = nc;
    f->calls[f->n_calls++] = *call;
    return 0;
}

static int add_cost(struct cg_reader *r, const uint64_t *pos, uint64_t *v)
{
    struct hpm_prof_fn *f = &r->p->fns[r->cur_fn];
    struct hpm_prof_cost *c = hpm__grow(f->costs, &f->cap_costs, f->n_costs + 1, sizeof *c);
    if (!c)
        return cg_oom(r);
    f->costs = c;
    c = &f->costs[f->n_costs++];
    c->addr = pos_addr(r, pos);
    c->line = pos_line(r, pos);
    c->file = r->cur_fi;
    c->v = v;
    c->kv = NULL;
    c->n_kv = 0;
    return 0;
}

/* A position line: completes a pending jump or call, or is a cost of the
 * current function. */
static int read_cost_line(struct cg_reader *r, const char *q)
{
    struct hpm_profile *p = r->p;
    uint64_t pos[2] = {0, 0}, *v;
    unsigned i;
    if (!r->have_events || !r->have_fn)
        return cg_fail(r, "costs before events: and fn=");
    for (i = 0; i < r->npos; i++) {
        while (*q == ' ' || *q == '\t')
            q++;
        if (parse_pos(&q, r->prev[i], &pos[i]) != 0)
            return cg_fail(r, "a malformed position");
        r->prev[i] = pos[i];
    }
    if (r->in_jump) {
        /* the jump's own position (costs, if any, are not the jump's:
         * callgrind writes none) */
        struct hpm_prof_jump *j = &r->jump;
        j->site_addr = pos_addr(r, pos);
        j->site_line = pos_line(r, pos);
        j->site_file = r->cur_fi;
        j->target_file = r->j_fi_set ? r->j_fi : r->cur_fi;
        j->target_fn = r->j_fn_set ? hpm_profile_fn(p, r->cur_ob, j->target_file, r->j_fn)
                                   : r->cur_fn;
        hpm_profile_add_jump(p, r->cur_fn, j);
        r->in_jump = r->j_fi_set = r->j_fn_set = 0;
        return 0;
    }
    v = hpm_profile_values(p, p->n_kinds); /* freed with p */
    if (!v || parse_costs(q, v, p->n_kinds) != 0)
        return cg_fail(r, "malformed costs (more than the %u events?)", p->n_kinds);
    if (!r->in_call)
        return add_cost(r, pos, v);
    r->call.site_addr = pos_addr(r, pos);
    r->call.site_line = pos_line(r, pos);
    r->call.site_file = r->cur_fi;
    r->call.v = v;
    r->call.kv = NULL;
    r->call.n_kv = 0;
    r->in_call = 0;
    r->have_cfn = r->c_ob_set = r->c_fl_set = 0;
    return add_call(r, &r->call);
}

static int read_positions_line(struct cg_reader *r, const char *s)
{
    struct hpm_profile *p = r->p;
    int has_line = strstr(s, "line") != NULL;
    p->has_addr = strstr(s, "instr") != NULL || strstr(s, "addr") != NULL;
    r->npos = (unsigned)has_line + (unsigned)p->has_addr;
    if (r->npos == 0 || r->have_events)
        return cg_fail(r, "unsupported positions");
    if (!has_line)
        p->has_addr = 0, r->npos = 1; /* an address alone is read as the line */
    return 0;
}

/* Event names are separated by any white space: a name that held a CR
 * would lose it when the written file's line end is read again. */
#define EVENT_SEPARATORS " \t\r\v\f"

static int read_events_line(struct cg_reader *r, char *s)
{
    struct hpm_profile *p = r->p;
    char *tok, *save = NULL;
    if (r->have_events)
        return cg_fail(r, "events: twice");
    for (tok = strtok_r(s, EVENT_SEPARATORS, &save); tok;
         tok = strtok_r(NULL, EVENT_SEPARATORS, &save)) {
        if (p->n_kinds == HPM_PROF_KINDS_MAX)
            return cg_fail(r, "more than %d events", HPM_PROF_KINDS_MAX);
        p->kinds[p->n_kinds] = strdup(tok);
        if (!p->kinds[p->n_kinds])
            return cg_oom(r);
        p->n_kinds++;
    }
    if (p->n_kinds == 0)
        return cg_fail(r, "no events");
    r->have_events = 1;
    return 0;
}

static int read_totals_line(struct cg_reader *r, const char *s)
{
    uint64_t v[HPM_PROF_KINDS_MAX];
    int summary = s[0] == 's';
    if (!r->have_events || parse_costs(s + (summary ? 8 : 7), v, r->p->n_kinds) != 0)
        return cg_fail(r, "a malformed %s line", summary ? "summary:" : "totals:");
    memcpy(r->p->totals, v, r->p->n_kinds * sizeof *v);
    r->p->have_totals = 1;
    return 0;
}

/* ob=, fl=, fi=, fe=, fn=, their called-side twins (cob=, cfi=, cfl=,
 * cfn=) and a jump's target names (jfi=, jfn=); 1 if s is none of them. */
static int read_name_line(struct cg_reader *r, const char *s)
{
    int c = s[0] == 'c' || s[0] == 'j';
    const char *key = s + c; /* "ob=", "fl=", ... : three characters */
    struct idmap *m;
    long id;
    unsigned u;
    if (!starts(s, "ob=") && !starts(s, "cob=") && !starts(s, "fl=") && !starts(s, "fi=") &&
        !starts(s, "fe=") && !starts(s, "cfi=") && !starts(s, "cfl=") && !starts(s, "fn=") &&
        !starts(s, "cfn=") && !starts(s, "jfi=") && !starts(s, "jfn="))
        return 1;
    m = key[0] == 'o' ? &r->obs : key[1] == 'n' ? &r->fns : &r->fls;
    id = parse_name(r->p, m, key + 3);
    if (id < 0)
        return cg_fail(r, "a malformed or undefined compressed name");
    u = (unsigned)id;
    if (s[0] == 'j' && key[1] == 'i') {
        r->j_fi = u, r->j_fi_set = 1;
    } else if (s[0] == 'j') {
        r->j_fn = u;
        r->j_fn_set = r->have_fn && u != r->p->fns[r->cur_fn].name;
    } else if (key[0] == 'o') {
        if (c)
            r->c_ob = u, r->c_ob_set = 1;
        else
            r->cur_ob = u;
    } else if (key[1] == 'n') {
        if (c) {
            r->c_fn = u, r->have_cfn = 1;
        } else {
            r->cur_fn = hpm_profile_fn(r->p, r->cur_ob, r->cur_fl, u);
            r->cur_fi = r->cur_fl;
            r->have_fn = 1;
        }
    } else if (c) {
        r->c_fl = u, r->c_fl_set = 1;
    } else if (key[1] == 'l') {
        r->cur_fl = r->cur_fi = u;
    } else {
        r->cur_fi = u;
    }
    return 0;
}

/* npos target positions after a calls= count or a jump's counts; relative
 * to the last position, which they do not change. */
static int read_target(struct cg_reader *r, const char *q, int optional, uint64_t *pos)
{
    unsigned i;
    for (i = 0; i < r->npos; i++) {
        while (*q == ' ' || *q == '\t')
            q++;
        if (optional && !*q)
            break; /* a call's target position is optional */
        if (parse_pos(&q, r->prev[i], &pos[i]) != 0)
            return -1;
    }
    return 0;
}

static int read_calls_line(struct cg_reader *r, const char *s)
{
    const char *q = s + 6;
    char *e;
    uint64_t pos[2] = {0, 0};
    if (!r->have_fn || !r->have_cfn || !r->have_events)
        return cg_fail(r, "calls= without fn= and cfn=");
    memset(&r->call, 0, sizeof r->call);
    errno = 0;
    r->call.count = strtoull(q, &e, 10);
    if (errno || e == q)
        return cg_fail(r, "a malformed calls= line");
    if (read_target(r, e, 1, pos) != 0)
        return cg_fail(r, "a malformed calls= position");
    r->call.target_addr = pos_addr(r, pos);
    r->call.target_line = pos_line(r, pos);
    r->call.callee = hpm_profile_fn(r->p, r->c_ob_set ? r->c_ob : r->cur_ob,
                                    r->c_fl_set ? r->c_fl : r->cur_fl, r->c_fn);
    r->in_call = 1;
    return 0;
}

/* A decimal count at *q (strtoull would take "-1" as 2^64 - 1). */
static int read_count(const char **q, uint64_t *v)
{
    char *e;
    if (!isdigit((unsigned char)**q))
        return -1;
    errno = 0;
    *v = strtoull(*q, &e, 10);
    if (errno || e == *q)
        return -1;
    *q = e;
    return 0;
}

/* jump=COUNT TARGET; jcnd=TAKEN/EXECUTED TARGET (what callgrind writes) or
 * jcnd=EXECUTED TAKEN TARGET (its format's page). */
static int read_jump_line(struct cg_reader *r, const char *s)
{
    const char *q = s + 5;
    uint64_t a, b = 0, pos[2] = {0, 0};
    int cond = s[1] == 'c';
    struct hpm_prof_jump *j = &r->jump;
    if (!r->have_fn || !r->have_events)
        return cg_fail(r, "a jump outside a function");
    memset(j, 0, sizeof *j);
    if (read_count(&q, &a) != 0)
        return cg_fail(r, "a malformed jump");
    j->taken = j->executed = a;
    if (cond) {
        int slash = *q == '/';
        if (slash)
            q++;
        else
            while (*q == ' ' || *q == '\t')
                q++;
        if (read_count(&q, &b) != 0)
            return cg_fail(r, "a malformed jump");
        j->taken = slash ? a : b;
        j->executed = slash ? b : a;
        if (j->taken > j->executed)
            return cg_fail(r, "a malformed jump");
    }
    if (read_target(r, q, 0, pos) != 0)
        return cg_fail(r, "a malformed jump");
    j->target_addr = pos_addr(r, pos);
    j->target_line = pos_line(r, pos);
    j->cond = cond;
    r->in_jump = 1;
    return 0;
}

/* One line of the file, its end of line gone. */
static int read_line(struct cg_reader *r, char *s)
{
    struct hpm_profile *p = r->p;
    int rc;
    if (!*s || *s == '#')
        return 0;
    if (isdigit((unsigned char)*s) || *s == '+' || *s == '-' || *s == '*')
        return read_cost_line(r, s);
    if (r->in_call)
        return cg_fail(r, "calls= is not followed by its cost line");
    if (r->in_jump)
        return cg_fail(r, "a jump is not followed by its position");
    if (starts(s, "version:")) {
        if (strtol(s + 8, NULL, 10) != 1)
            return cg_fail(r, "not callgrind format version 1");
    } else if (starts(s, "creator:")) {
        free(p->creator);
        p->creator = strdup(s + 8 + strspn(s + 8, " "));
    } else if (starts(s, "cmd:")) {
        free(p->command);
        p->command = strdup(s + 4 + strspn(s + 4, " "));
    } else if (starts(s, "positions:")) {
        return read_positions_line(r, s);
    } else if (starts(s, "events:")) {
        return read_events_line(r, s + 7);
    } else if (starts(s, "summary:") || starts(s, "totals:")) {
        return read_totals_line(r, s);
    } else if (starts(s, "calls=")) {
        return read_calls_line(r, s);
    } else if (starts(s, "jump=") || starts(s, "jcnd=")) {
        return read_jump_line(r, s);
    } else if ((rc = read_name_line(r, s)) <= 0) {
        return rc;
    }
    /* other lines (pid:, part:, thread:, desc:, event:, ...) carry nothing
     * the model keeps */
    return 0;
}

int hpm_prof_read_callgrind(struct hpm_profile *p, const char *text, size_t len, char *err,
                            size_t errlen)
{
    struct cg_reader r;
    const char *at = text, *end = text + len;
    char *line = NULL;
    size_t line_cap = 0;
    int rc = -1;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.npos = 1;
    r.err = err;
    r.errlen = errlen;
    while (at < end) {
        const char *eol = memchr(at, '\n', (size_t)(end - at));
        size_t n;
        if (!eol)
            eol = end;
        n = (size_t)(eol - at);
        r.lineno++;
        if (n + 1 > line_cap) {
            char *nl = realloc(line, n + 1);
            if (!nl) {
                cg_oom(&r);
                goto done;
            }
            line = nl;
            line_cap = n + 1;
        }
        memcpy(line, at, n);
        line[n] = 0;
        at = eol + 1;
        if (memchr(line, 0, n)) {
            cg_fail(&r, "a NUL byte");
            goto done;
        }
        if (n && line[n - 1] == '\r')
            line[--n] = 0;
        if (read_line(&r, line) != 0)
            goto done;
    }
    if (r.in_call || r.in_jump) {
        cg_fail(&r, "a call or jump is not followed by its line");
        goto done;
    }
    if (!r.have_events) {
        hpm__set_err(err, errlen, "no events: line (not a callgrind file?)");
        goto done;
    }
    rc = 0;
done:
    free(line);
    free(r.obs.s);
    free(r.fls.s);
    free(r.fns.s);
    return rc;
}
