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

int hpm_prof_read_callgrind(struct hpm_profile *p, const char *text, size_t len, char *err,
                            size_t errlen)
{
    struct idmap obs = {0}, fls = {0}, fns = {0};
    const char *at = text, *end = text + len;
    char *line = NULL;
    size_t line_cap = 0;
    unsigned lineno = 0, npos = 1;
    unsigned cur_ob = 0, cur_fl = 0, cur_fi = 0, cur_fn = 0, have_fn = 0;
    unsigned c_ob = 0, c_fl = 0, c_fn = 0, have_cfn = 0, c_ob_set = 0, c_fl_set = 0;
    uint64_t prev[2] = {0, 0};
    int in_call = 0, have_events = 0, rc = -1;
    struct hpm_prof_call call;
    /* a jump= or jcnd= line waits for its position; jfi= and jfn= name
     * its target's file and function (another function's: not kept) */
    int in_jump = 0, j_fi_set = 0, j_fn_set = 0;
    unsigned j_fi = 0, j_fn = 0;
    struct hpm_prof_jump jump;
    memset(&call, 0, sizeof call);
    memset(&jump, 0, sizeof jump);

    while (at < end) {
        const char *eol = memchr(at, '\n', (size_t)(end - at));
        size_t n;
        char *s;
        if (!eol)
            eol = end;
        n = (size_t)(eol - at);
        lineno++;
        if (n + 1 > line_cap) {
            char *nl = realloc(line, n + 1);
            if (!nl) {
                hpm__set_err(err, errlen, "out of memory");
                goto done;
            }
            line = nl;
            line_cap = n + 1;
        }
        memcpy(line, at, n);
        line[n] = 0;
        at = eol + 1;
        if (memchr(line, 0, n)) {
            hpm__set_err(err, errlen, "line %u: a NUL byte", lineno);
            goto done;
        }
        if (n && line[n - 1] == '\r')
            line[--n] = 0;
        s = line;
        if (!*s || *s == '#')
            continue;
        if (isdigit((unsigned char)*s) || *s == '+' || *s == '-' || *s == '*') {
            /* a cost line */
            const char *q = s;
            uint64_t pos[2] = {0, 0}, *v;
            unsigned i;
            if (!have_events || !have_fn) {
                hpm__set_err(err, errlen, "line %u: costs before events: and fn=", lineno);
                goto done;
            }
            for (i = 0; i < npos; i++) {
                while (*q == ' ' || *q == '\t')
                    q++;
                if (parse_pos(&q, prev[i], &pos[i]) != 0) {
                    hpm__set_err(err, errlen, "line %u: a malformed position", lineno);
                    goto done;
                }
                prev[i] = pos[i];
            }
            if (in_jump) {
                /* the jump's own position (costs, if any, are not the
                 * jump's: callgrind writes none) */
                jump.site_addr = npos == 2 ? pos[0] : 0;
                jump.site_line = (unsigned)(npos == 2 ? pos[1] : pos[0]);
                jump.site_file = cur_fi;
                jump.target_file = j_fi_set ? j_fi : cur_fi;
                jump.target_fn = j_fn_set ? hpm_profile_fn(p, cur_ob, jump.target_file, j_fn)
                                          : cur_fn;
                hpm_profile_add_jump(p, cur_fn, &jump);
                in_jump = j_fi_set = j_fn_set = 0;
                continue;
            }
            v = hpm_profile_values(p, p->n_kinds); /* freed with p */
            if (!v || parse_costs(q, v, p->n_kinds) != 0) {
                hpm__set_err(err, errlen, "line %u: malformed costs (more than the %u events?)",
                             lineno, p->n_kinds);
                goto done;
            }
            if (in_call) {
                call.site_addr = npos == 2 ? pos[0] : 0;
                call.site_line = (unsigned)(npos == 2 ? pos[1] : pos[0]);
                call.site_file = cur_fi;
                call.v = v;
                call.kv = NULL;
                call.n_kv = 0;
                {
                    struct hpm_prof_fn *f = &p->fns[cur_fn];
                    struct hpm_prof_call *nc;
                    if (f->n_calls == f->cap_calls) {
                        size_t cap = f->cap_calls ? 2 * f->cap_calls : 8;
                        nc = realloc(f->calls, cap * sizeof *nc);
                        if (!nc) {
                            hpm__set_err(err, errlen, "out of memory");
                            goto done;
                        }
                        f->calls = nc;
                        f->cap_calls = cap;
                    }
                    f->calls[f->n_calls++] = call;
                }
                in_call = 0;
                have_cfn = c_ob_set = c_fl_set = 0;
            } else {
                struct hpm_prof_fn *f = &p->fns[cur_fn];
                struct hpm_prof_cost *nc;
                if (f->n_costs == f->cap_costs) {
                    size_t cap = f->cap_costs ? 2 * f->cap_costs : 8;
                    nc = realloc(f->costs, cap * sizeof *nc);
                    if (!nc) {
                        hpm__set_err(err, errlen, "out of memory");
                        goto done;
                    }
                    f->costs = nc;
                    f->cap_costs = cap;
                }
                f->costs[f->n_costs].addr = npos == 2 ? pos[0] : 0;
                f->costs[f->n_costs].line = (unsigned)(npos == 2 ? pos[1] : pos[0]);
                f->costs[f->n_costs].file = cur_fi;
                f->costs[f->n_costs].v = v;
                f->costs[f->n_costs].kv = NULL;
                f->costs[f->n_costs].n_kv = 0;
                f->n_costs++;
            }
            continue;
        }
        if (in_call) {
            hpm__set_err(err, errlen, "line %u: calls= is not followed by its cost line", lineno);
            goto done;
        }
        if (in_jump) {
            hpm__set_err(err, errlen, "line %u: a jump is not followed by its position", lineno);
            goto done;
        }
        if (starts(s, "version:")) {
            if (strtol(s + 8, NULL, 10) != 1) {
                hpm__set_err(err, errlen, "line %u: not callgrind format version 1", lineno);
                goto done;
            }
        } else if (starts(s, "creator:")) {
            free(p->creator);
            p->creator = strdup(s + 8 + strspn(s + 8, " "));
        } else if (starts(s, "cmd:")) {
            free(p->command);
            p->command = strdup(s + 4 + strspn(s + 4, " "));
        } else if (starts(s, "positions:")) {
            int has_line = strstr(s, "line") != NULL;
            p->has_addr = strstr(s, "instr") != NULL || strstr(s, "addr") != NULL;
            npos = (unsigned)has_line + (unsigned)p->has_addr;
            if (npos == 0 || have_events) {
                hpm__set_err(err, errlen, "line %u: unsupported positions", lineno);
                goto done;
            }
            if (!has_line)
                p->has_addr = 0, npos = 1; /* an address alone is read as the line */
        } else if (starts(s, "events:")) {
            char *tok, *save = NULL;
            if (have_events) {
                hpm__set_err(err, errlen, "line %u: events: twice", lineno);
                goto done;
            }
            for (tok = strtok_r(s + 7, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
                if (p->n_kinds == HPM_PROF_KINDS_MAX) {
                    hpm__set_err(err, errlen, "line %u: more than %d events", lineno,
                                 HPM_PROF_KINDS_MAX);
                    goto done;
                }
                p->kinds[p->n_kinds] = strdup(tok);
                if (!p->kinds[p->n_kinds]) {
                    hpm__set_err(err, errlen, "out of memory");
                    goto done;
                }
                p->n_kinds++;
            }
            if (p->n_kinds == 0) {
                hpm__set_err(err, errlen, "line %u: no events", lineno);
                goto done;
            }
            have_events = 1;
        } else if (starts(s, "summary:") || starts(s, "totals:")) {
            uint64_t v[HPM_PROF_KINDS_MAX];
            if (!have_events ||
                parse_costs(s + (s[0] == 's' ? 8 : 7), v, p->n_kinds) != 0) {
                hpm__set_err(err, errlen, "line %u: a malformed %s line", lineno,
                             s[0] == 's' ? "summary:" : "totals:");
                goto done;
            }
            memcpy(p->totals, v, p->n_kinds * sizeof *v);
            p->have_totals = 1;
        } else if (starts(s, "ob=") || starts(s, "cob=")) {
            int c = s[0] == 'c';
            long id = parse_name(p, &obs, s + (c ? 4 : 3));
            if (id < 0)
                goto bad_name;
            if (c) {
                c_ob = (unsigned)id;
                c_ob_set = 1;
            } else {
                cur_ob = (unsigned)id;
            }
        } else if (starts(s, "fl=") || starts(s, "fi=") || starts(s, "fe=") ||
                   starts(s, "cfi=") || starts(s, "cfl=")) {
            int c = s[0] == 'c';
            long id = parse_name(p, &fls, s + (c ? 4 : 3));
            if (id < 0)
                goto bad_name;
            if (c) {
                c_fl = (unsigned)id;
                c_fl_set = 1;
            } else if (s[1] == 'l') {
                cur_fl = cur_fi = (unsigned)id;
            } else {
                cur_fi = (unsigned)id;
            }
        } else if (starts(s, "fn=") || starts(s, "cfn=")) {
            int c = s[0] == 'c';
            long id = parse_name(p, &fns, s + (c ? 4 : 3));
            if (id < 0)
                goto bad_name;
            if (c) {
                c_fn = (unsigned)id;
                have_cfn = 1;
            } else {
                cur_fn = hpm_profile_fn(p, cur_ob, cur_fl, (unsigned)id);
                cur_fi = cur_fl;
                have_fn = 1;
            }
        } else if (starts(s, "calls=")) {
            const char *q = s + 6;
            char *e;
            uint64_t pos[2] = {0, 0};
            unsigned i;
            if (!have_fn || !have_cfn || !have_events) {
                hpm__set_err(err, errlen, "line %u: calls= without fn= and cfn=", lineno);
                goto done;
            }
            memset(&call, 0, sizeof call);
            errno = 0;
            call.count = strtoull(q, &e, 10);
            if (errno || e == q) {
                hpm__set_err(err, errlen, "line %u: a malformed calls= line", lineno);
                goto done;
            }
            q = e;
            for (i = 0; i < npos; i++) {
                while (*q == ' ' || *q == '\t')
                    q++;
                if (!*q)
                    break; /* the target position is optional */
                if (parse_pos(&q, prev[i], &pos[i]) != 0) {
                    hpm__set_err(err, errlen, "line %u: a malformed calls= position", lineno);
                    goto done;
                }
            }
            call.target_addr = npos == 2 ? pos[0] : 0;
            call.target_line = (unsigned)(npos == 2 ? pos[1] : pos[0]);
            call.callee = hpm_profile_fn(p, c_ob_set ? c_ob : cur_ob, c_fl_set ? c_fl : cur_fl,
                                         c_fn);
            in_call = 1;
        } else if (starts(s, "jfi=")) {
            long id = parse_name(p, &fls, s + 4);
            if (id < 0)
                goto bad_name;
            j_fi = (unsigned)id;
            j_fi_set = 1;
        } else if (starts(s, "jfn=")) {
            long id = parse_name(p, &fns, s + 4);
            if (id < 0)
                goto bad_name;
            j_fn = (unsigned)id;
            j_fn_set = have_fn && j_fn != p->fns[cur_fn].name;
        } else if (starts(s, "jump=") || starts(s, "jcnd=")) {
            /* jump=COUNT TARGET; jcnd=TAKEN/EXECUTED TARGET (what callgrind
             * writes) or jcnd=EXECUTED TAKEN TARGET (its format's page) */
            const char *q = s + 5;
            char *e;
            uint64_t a, b = 0, pos[2] = {0, 0};
            unsigned i;
            int cond = s[1] == 'c';
            if (!have_fn || !have_events) {
                hpm__set_err(err, errlen, "line %u: a jump outside a function", lineno);
                goto done;
            }
            memset(&jump, 0, sizeof jump);
            errno = 0;
            if (!isdigit((unsigned char)*q))
                goto bad_jump; /* strtoull would take "-1" as 2^64 - 1 */
            a = strtoull(q, &e, 10);
            if (errno || e == q)
                goto bad_jump;
            q = e;
            if (cond) {
                int slash = *q == '/';
                if (slash)
                    q++;
                else
                    while (*q == ' ' || *q == '\t')
                        q++;
                if (!isdigit((unsigned char)*q))
                    goto bad_jump;
                b = strtoull(q, &e, 10);
                if (errno || e == q)
                    goto bad_jump;
                q = e;
                jump.taken = slash ? a : b;
                jump.executed = slash ? b : a;
                if (jump.taken > jump.executed)
                    goto bad_jump;
            } else {
                jump.taken = jump.executed = a;
            }
            for (i = 0; i < npos; i++) {
                /* the target: relative to the last position, which it
                 * does not change */
                while (*q == ' ' || *q == '\t')
                    q++;
                if (parse_pos(&q, prev[i], &pos[i]) != 0)
                    goto bad_jump;
            }
            jump.target_addr = npos == 2 ? pos[0] : 0;
            jump.target_line = (unsigned)(npos == 2 ? pos[1] : pos[0]);
            jump.cond = cond;
            in_jump = 1;
        }
        /* other lines (pid:, part:, thread:, desc:, event:, ...) carry
         * nothing the model keeps */
        continue;
    bad_name:
        hpm__set_err(err, errlen, "line %u: a malformed or undefined compressed name", lineno);
        goto done;
    bad_jump:
        hpm__set_err(err, errlen, "line %u: a malformed jump", lineno);
        goto done;
    }
    if (in_call || in_jump) {
        hpm__set_err(err, errlen, "line %u: a call or jump is not followed by its line", lineno);
        goto done;
    }
    if (!have_events) {
        hpm__set_err(err, errlen, "no events: line (not a callgrind file?)");
        goto done;
    }
    rc = 0;
done:
    free(line);
    free(obs.s);
    free(fls.s);
    free(fns.s);
    return rc;
}
