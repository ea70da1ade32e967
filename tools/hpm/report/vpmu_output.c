/* SPDX-License-Identifier: BSD-3-Clause */
/* vpmu_output.c - the parser of the virtual PMU's output file (vpmu_output.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "report/vpmu_output.h"
#include "util/grow.h"

#include "fileio.h"
#include "vpmufile.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line split into space-separated fields (vpmufile's splitter);
 * pointers into the buffer. */
struct line {
    const char *s; /* the line without its newline */
    size_t len;
    struct vpmu_fields v;
};


static int fail(struct vpmu_output_reader *p, const char *fmt, ...)
{
    if (p->err && p->errlen) {
        int n = 0;
        va_list ap;
        if (p->lineno)
            n = snprintf(p->err, p->errlen, "line %lu: ", p->lineno);
        if (n >= 0 && (size_t)n < p->errlen) {
            va_start(ap, fmt);
            vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static void split(struct line *l)
{
    vpmu_fields_split(l->s, l->s + l->len, &l->v);
}

static int field_is(const struct line *l, unsigned i, const char *word)
{
    return i < l->v.n && vpmu_word_is(l->v.f[i], l->v.len[i], word);
}

/* A u64 field, at most max; names the field in the error. */
static int get_u64(struct vpmu_output_reader *p, const struct line *l, unsigned i, uint64_t max,
                   const char *what, uint64_t *out)
{
    if (i >= l->v.n || vpmu_number(l->v.f[i], l->v.len[i], 10, out) != 0)
        return fail(p, "%s is not an unsigned decimal number", what);
    if (*out > max)
        return fail(p, "%s %llu is out of range (at most %llu)", what, (unsigned long long)*out,
                    (unsigned long long)max);
    return 0;
}

static struct vpmu_thread *thread_get(struct vpmu_output_reader *p, unsigned serial)
{
    struct vpmu_output *o = p->o;
    struct vpmu_thread *t;
    size_t i;
    if (p->last_thr < o->n_thr && o->thr[p->last_thr].serial == serial)
        return &o->thr[p->last_thr];
    for (i = 0; i < o->n_thr; i++)
        if (o->thr[i].serial == serial) {
            p->last_thr = i;
            return &o->thr[i];
        }
    if (hpm_grow((void **)&o->thr, &o->cap_thr, o->n_thr + 1, sizeof *o->thr))
        return NULL;
    t = &o->thr[o->n_thr];
    memset(t, 0, sizeof *t);
    t->serial = serial;
    t->core = -1;
    p->last_thr = o->n_thr++;
    return t;
}

static struct vpmu_region *region_get(struct vpmu_output_reader *p, const char *name, size_t len,
                                      unsigned thread)
{
    struct vpmu_output *o = p->o;
    struct vpmu_region *r;
    size_t i;
    for (i = 0; i < o->n_reg; i++) {
        size_t j = (p->last_reg + i) % o->n_reg; /* start at the last one used */
        r = &o->reg[j];
        if (r->thread == thread && strlen(r->name) == len && memcmp(r->name, name, len) == 0) {
            p->last_reg = j;
            return r;
        }
    }
    if (hpm_grow((void **)&o->reg, &o->cap_reg, o->n_reg + 1, sizeof *o->reg))
        return NULL;
    r = &o->reg[o->n_reg];
    memset(r, 0, sizeof *r);
    r->name = malloc(len + 1);
    if (!r->name)
        return NULL;
    memcpy(r->name, name, len);
    r->name[len] = 0;
    r->thread = thread;
    p->last_reg = o->n_reg++;
    return r;
}

/* The rest of the line after the record type, verbatim. */
static void rest_of(const struct line *l, const char **s, size_t *len)
{
    size_t i = (size_t)(l->v.f[0] - l->s) + l->v.len[0];
    while (i < l->len && l->s[i] == ' ')
        i++;
    *s = l->s + i;
    *len = l->len - i;
}

static int copy_word(struct vpmu_output_reader *p, char *dst, size_t dstlen, const char *s,
                     size_t len, const char *what)
{
    if (len == 0)
        return fail(p, "empty %s", what);
    if (len >= dstlen)
        return fail(p, "%s too long (%zu bytes, at most %zu)", what, len, dstlen - 1);
    memcpy(dst, s, len);
    dst[len] = 0;
    return 0;
}

static int once(struct vpmu_output_reader *p, int *seen, const char *what)
{
    if (*seen)
        return fail(p, "second '%s' record", what);
    *seen = 1;
    return 0;
}

static int set_kind(struct vpmu_output_reader *p, struct vpmu_kind_values *k, const char *name,
                    size_t nlen, const struct line *l, unsigned vi)
{
    int kind = hpm_catalog_kind_by_name(name, nlen);
    uint64_t v;
    if (kind < 0)
        return fail(p, "unknown event kind '%.*s'", (int)(nlen > 48 ? 48 : nlen), name);
    if (k->have[kind])
        return fail(p, "second value for %s", hpm_catalog_kind((unsigned)kind)->name);
    if (get_u64(p, l, vi, UINT64_MAX, "value", &v))
        return -1;
    k->v[kind] = v;
    k->have[kind] = 1;
    return 0;
}

static int rec_count(struct vpmu_output_reader *p, const struct line *l)
{
    uint64_t code, v;
    char name[HPM_CAT_NAME_MAX];
    if (l->v.n != 4)
        return fail(p, "'count' needs CODE NAME VALUE");
    if (get_u64(p, l, 1, HPM_CAT_SPECS - 1, "event code", &code))
        return -1;
    if (hpm_catalog_code_name((unsigned)code, name, sizeof name) < 0)
        return fail(p, "event code %u is not in this hpm's catalog", (unsigned)code);
    if (!hpm_catalog_name_eq(l->v.f[2], l->v.len[2], name))
        return fail(p, "event code %u is %s here, the tool calls it '%.*s' (tool and hpm from "
                       "different builds?)",
                    (unsigned)code, name, (int)(l->v.len[2] > 48 ? 48 : l->v.len[2]), l->v.f[2]);
    if (p->o->have_count[code])
        return fail(p, "second count for event code %u", (unsigned)code);
    if (get_u64(p, l, 3, UINT64_MAX, "count", &v))
        return -1;
    p->o->count[code] = v;
    p->o->have_count[code] = 1;
    p->o->n_counts++;
    return 0;
}

static int rec_thread(struct vpmu_output_reader *p, const struct line *l)
{
    uint64_t serial, core;
    struct vpmu_thread *t;
    if (l->v.n != 4)
        return fail(p, "'thread' needs T core C or T KIND VALUE");
    if (get_u64(p, l, 1, UINT_MAX, "thread serial", &serial))
        return -1;
    if (serial == 0)
        return fail(p, "thread serials start at 1");
    t = thread_get(p, (unsigned)serial);
    if (!t)
        return fail(p, "out of memory");
    if (field_is(l, 2, VPMU_THREAD_WORD_CORE)) {
        if (t->core >= 0)
            return fail(p, "second core for thread %u", t->serial);
        if (get_u64(p, l, 3, VPMU_OUTPUT_MAX_CORES - 1, "core", &core))
            return -1;
        t->core = (int)core;
        return 0;
    }
    return set_kind(p, &t->k, l->v.f[2], l->v.len[2], l, 3);
}

/* region NAME... thread T entries N | region NAME... thread T KIND VALUE.
 * The name may contain spaces, so the last four fields are taken from the
 * end of the line and the name is what lies between. */
static int rec_region(struct vpmu_output_reader *p, const struct line *l)
{
    struct line tail;
    const char *name;
    size_t nlen, end = l->len, i;
    unsigned k;
    uint64_t serial, v;
    struct vpmu_region *r;
    for (k = 0; k < 4; k++) {
        while (end > 0 && l->s[end - 1] == ' ')
            end--;
        while (end > 0 && l->s[end - 1] != ' ')
            end--;
    }
    /* end is now the start of the fourth field from the end */
    tail.s = l->s + end;
    tail.len = l->len - end;
    split(&tail);
    if (tail.v.n != 4 || !field_is(&tail, 0, VPMU_REC_THREAD))
        return fail(p, "'region' needs NAME thread T entries N or NAME thread T KIND VALUE");
    name = l->v.f[0] + l->v.len[0];
    i = end;
    while (name < l->s + i && *name == ' ')
        name++;
    while (i > 0 && l->s[i - 1] == ' ')
        i--;
    if (l->s + i <= name)
        return fail(p, "'region' without a name");
    nlen = (size_t)(l->s + i - name);
    if (nlen > 1024)
        return fail(p, "region name too long");
    if (get_u64(p, &tail, 1, UINT_MAX, "thread serial", &serial))
        return -1;
    if (serial == 0)
        return fail(p, "thread serials start at 1");
    r = region_get(p, name, nlen, (unsigned)serial);
    if (!r)
        return fail(p, "out of memory");
    if (field_is(&tail, 2, VPMU_REGION_WORD_ENTRIES)) {
        if (r->have_entries)
            return fail(p, "second 'entries' for region %s thread %u", r->name, r->thread);
        if (get_u64(p, &tail, 3, UINT64_MAX, "entries", &v))
            return -1;
        r->entries = v;
        r->have_entries = 1;
        return 0;
    }
    return set_kind(p, &r->k, tail.v.f[2], tail.v.len[2], &tail, 3);
}

/* Line x before line y in the top lines: more coherence misses, more
 * invalidations, then by process and address (a stable order). */
static int shared_before(const struct vpmu_shared_line *x, const struct vpmu_shared_line *y)
{
    if (x->coh_misses != y->coh_misses)
        return x->coh_misses > y->coh_misses;
    if (x->invalidations != y->invalidations)
        return x->invalidations > y->invalidations;
    if (x->pid != y->pid)
        return x->pid < y->pid;
    return x->addr < y->addr;
}

/* Line l into o's top lines (dropped when VPMU_OUTPUT_SHARED_TOP are
 * before it). */
static void shared_insert(struct vpmu_output *o, const struct vpmu_shared_line *l)
{
    unsigned k = o->n_shared;
    for (; k > 0 && !shared_before(&o->shared[k - 1], l); k--)
        if (k < VPMU_OUTPUT_SHARED_TOP)
            o->shared[k] = o->shared[k - 1];
    if (k == VPMU_OUTPUT_SHARED_TOP)
        return;
    o->shared[k] = *l;
    if (o->n_shared < VPMU_OUTPUT_SHARED_TOP)
        o->n_shared++;
}

/* shared_line ADDR BYTES MISSES INVALIDATIONS WRITERS SHARING OBJECT... */
static int rec_shared_line(struct vpmu_output_reader *p, const struct line *l)
{
    struct vpmu_shared_line x;
    uint64_t v;
    size_t at;
    memset(&x, 0, sizeof x);
    if (l->v.n < 8)
        return fail(p, "'shared_line' needs an address, six values and an object");
    if (vpmu_number(l->v.f[1], l->v.len[1], 16, &x.addr) != 0)
        return fail(p, "shared line address is not a hexadecimal number");
    if (get_u64(p, l, 2, 1u << 20, "shared line bytes", &v))
        return -1;
    x.bytes = (unsigned)v;
    if (get_u64(p, l, 3, UINT64_MAX, "shared line misses", &x.coh_misses) ||
        get_u64(p, l, 4, UINT64_MAX, "shared line invalidations", &x.invalidations) ||
        get_u64(p, l, 5, VPMU_OUTPUT_MAX_CORES, "shared line writers", &v))
        return -1;
    x.writers = (unsigned)v;
    if (!field_is(l, 6, "true") && !field_is(l, 6, "false"))
        return fail(p, "shared line sharing must be true or false");
    x.true_sharing = field_is(l, 6, "true");
    at = (size_t)(l->v.f[7] - l->s);
    if (copy_word(p, x.object, sizeof x.object, l->v.f[7], l->len - at, "shared line object"))
        return -1;
    x.pid = p->o->have_pid ? p->o->pid : 0;
    shared_insert(p->o, &x);
    return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* n more returns the host timed from call (a name): added to its entry,
 * a new one while there is room, else to "other" (the last entry becomes
 * it when none is there) */
static void host_timed_add(struct vpmu_output *o, const char *call, uint64_t n)
{
    unsigned i;
    for (i = 0; i < o->n_host_timed; i++)
        if (strcmp(o->host_timed[i].call, call) == 0)
            break;
    if (i == o->n_host_timed && o->n_host_timed < VPMU_OUTPUT_HOST_CALLS) {
        o->n_host_timed++;
        snprintf(o->host_timed[i].call, sizeof o->host_timed[i].call, "%s", call);
        o->host_timed[i].n = 0;
    } else if (i == o->n_host_timed) {
        for (i = 0; i < o->n_host_timed; i++)
            if (strcmp(o->host_timed[i].call, VPMU_HOST_TIMED_OTHER) == 0)
                break;
        if (i == o->n_host_timed) {
            i = o->n_host_timed - 1;
            snprintf(o->host_timed[i].call, sizeof o->host_timed[i].call, "%s",
                     VPMU_HOST_TIMED_OTHER);
        }
    }
    o->host_timed[i].n = sat_add(o->host_timed[i].n, n);
}

/* host_timed CALL N */
static int rec_host_timed(struct vpmu_output_reader *p, const struct line *l)
{
    char call[sizeof p->o->host_timed[0].call];
    uint64_t n;
    size_t i;
    if (l->v.n != 3)
        return fail(p, "'host_timed' needs a system call and a count");
    if (copy_word(p, call, sizeof call, l->v.f[1], l->v.len[1], "host_timed call"))
        return -1;
    for (i = 0; call[i]; i++)
        if (!((call[i] >= 'a' && call[i] <= 'z') || (call[i] >= '0' && call[i] <= '9') ||
              call[i] == '_'))
            return fail(p, "host_timed call '%s' is not a system call's name", call);
    if (get_u64(p, l, 2, UINT64_MAX, "host_timed count", &n))
        return -1;
    host_timed_add(p->o, call, n);
    return 0;
}

static int rec_upc(struct vpmu_output_reader *p, const struct line *l)
{
    uint64_t u;
    struct vpmu_upc *x;
    size_t i;
    if (l->v.n != 8 || !field_is(l, 2, VPMU_UPC_WORD_COUNTERS) || !field_is(l, 4, VPMU_UPC_WORD_LOST) ||
        !field_is(l, 6, VPMU_UPC_WORD_PARITY))
        return fail(p, "'upc' needs U counters N lost_carries N parity_errors N");
    if (get_u64(p, l, 1, 1023, "UPC unit", &u))
        return -1;
    for (i = 0; i < p->o->n_upc; i++)
        if (p->o->upc[i].upc == u)
            return fail(p, "second 'upc %u' record", (unsigned)u);
    if (hpm_grow((void **)&p->o->upc, &p->o->cap_upc, p->o->n_upc + 1, sizeof *p->o->upc))
        return fail(p, "out of memory");
    x = &p->o->upc[p->o->n_upc];
    x->upc = (unsigned)u;
    if (get_u64(p, l, 3, UINT64_MAX, "counters", &x->counters) ||
        get_u64(p, l, 5, UINT64_MAX, "lost_carries", &x->lost_carries) ||
        get_u64(p, l, 7, UINT64_MAX, "parity_errors", &x->parity_errors))
        return -1;
    p->o->n_upc++;
    return 0;
}

/* mpx SETS PERIOD KIND SWITCHES */
static int rec_mpx(struct vpmu_output_reader *p, const struct line *l)
{
    struct vpmu_output *o = p->o;
    uint64_t sets;
    int kind;
    if (l->v.n != 5)
        return fail(p, "'mpx' needs SETS PERIOD KIND SWITCHES");
    if (once(p, &p->seen_mpx, "mpx") ||
        get_u64(p, l, 1, VPMU_MPX_MAX_SETS, "sets", &sets) ||
        get_u64(p, l, 2, UINT64_MAX, "period", &o->mpx_period) ||
        get_u64(p, l, 4, UINT64_MAX, "switches", &o->mpx_switches))
        return -1;
    kind = hpm_catalog_kind_by_name(l->v.f[3], l->v.len[3]);
    if (sets == 0 || o->mpx_period == 0)
        return fail(p, "'mpx' needs at least one set and a period");
    if (kind < 0)
        return fail(p, "unknown event kind '%.*s'", (int)(l->v.len[3] > 48 ? 48 : l->v.len[3]),
                    l->v.f[3]);
    o->mpx_sets = (unsigned)sets;
    o->mpx_kind = (unsigned)kind;
    return 0;
}

/* mpx_set S INTERVALS CORRELATE SPEC,SPEC,... */
static int rec_mpx_set(struct vpmu_output_reader *p, const struct line *l)
{
    struct vpmu_output *o = p->o;
    uint64_t set;
    size_t i = 0;
    if (l->v.n != 5)
        return fail(p, "'mpx_set' needs S INTERVALS CORRELATE SPECS");
    if (!p->seen_mpx)
        return fail(p, "'mpx_set' before 'mpx'");
    if (get_u64(p, l, 1, o->mpx_sets - 1, "set", &set))
        return -1;
    if (o->mpx_seen[set])
        return fail(p, "second 'mpx_set %u' record", (unsigned)set);
    if (get_u64(p, l, 2, UINT64_MAX, "intervals", &o->mpx_intervals[set]) ||
        get_u64(p, l, 3, UINT64_MAX, "correlate", &o->mpx_correlate[set]))
        return -1;
    o->mpx_seen[set] = 1;
    while (i < l->v.len[4]) {
        size_t j = i;
        uint64_t spec;
        while (j < l->v.len[4] && l->v.f[4][j] != ',')
            j++;
        if (vpmu_number(l->v.f[4] + i, j - i, 10, &spec) != 0 || spec >= HPM_CAT_SPECS ||
            hpm_catalog_spec_decode((unsigned)spec, NULL, NULL, NULL) != 0)
            return fail(p, "'mpx_set %u': a spec is not an event code", (unsigned)set);
        if (o->mpx_set_of[spec] == 0)
            o->mpx_set_of[spec] = (unsigned char)(set + 1);
        else if (o->mpx_set_of[spec] != set + 1)
            o->mpx_set_of[spec] = VPMU_MPX_EVERY; /* in two sets: the correlate's */
        i = j + 1;
    }
    return 0;
}

static int rec_exit(struct vpmu_output_reader *p, const struct line *l)
{
    struct vpmu_output *o = p->o;
    uint64_t v;
    if (once(p, &p->seen_exit, "exit"))
        return -1;
    if (field_is(l, 1, VPMU_EXIT_WORD_STATUS) && l->v.n == 3) {
        /* exit_group's argument, as the program gave it (may be negative) */
        int neg = l->v.len[2] > 1 && l->v.f[2][0] == '-';
        if (vpmu_number(l->v.f[2] + neg, l->v.len[2] - (size_t)neg, 10, &v) != 0 || v > INT_MAX)
            return fail(p, "bad exit status");
        o->exit_kind = VPMU_EXIT_STATUS;
        o->exit_value = neg ? -(int)v : (int)v;
        return 0;
    }
    if (field_is(l, 1, VPMU_EXIT_WORD_EXEC) && l->v.n == 2) {
        /* a segment: the counts before the process image was replaced */
        o->exit_kind = VPMU_EXIT_EXEC;
        o->exit_value = 0;
        return 0;
    }
    if (field_is(l, 1, VPMU_EXIT_WORD_SIGNAL) && l->v.n == 2) {
        o->exit_kind = VPMU_EXIT_SIGNAL;
        o->exit_value = -1;
        return 0;
    }
    if (field_is(l, 1, VPMU_EXIT_WORD_SIGNAL) && l->v.n == 3) {
        if (get_u64(p, l, 2, 255, "signal", &v))
            return -1;
        if (v == 0)
            return fail(p, "signal 0");
        o->exit_kind = VPMU_EXIT_SIGNAL;
        o->exit_value = (int)v;
        return 0;
    }
    if (field_is(l, 1, VPMU_EXIT_WORD_SLOTS) && l->v.n == 3) {
        if (get_u64(p, l, 2, INT_MAX, "slots", &v))
            return -1;
        o->exit_kind = VPMU_EXIT_SLOTS;
        o->exit_value = (int)v;
        return 0;
    }
    return fail(p, "'exit' needs 'status N', 'signal N', 'signal', 'exec' or 'slots N'");
}

/* The records of exactly one value (pid, ppid, forks, upc_writes, machine,
 * cores, frequency_hz, level, upcs, threads); any other record is a newer
 * tool's, skipped. */
static int rec_one_value(struct vpmu_output_reader *p, struct line *l)
{
    struct vpmu_output *o = p->o;
    uint64_t v;
    if (field_is(l, 0, VPMU_REC_PID) || field_is(l, 0, VPMU_REC_MACHINE) || field_is(l, 0, VPMU_REC_CORES) ||
        field_is(l, 0, VPMU_REC_FREQUENCY) || field_is(l, 0, VPMU_REC_LEVEL) || field_is(l, 0, VPMU_REC_UPCS) ||
        field_is(l, 0, VPMU_REC_THREADS) || field_is(l, 0, VPMU_REC_PPID) || field_is(l, 0, VPMU_REC_UPC_WRITES) ||
        field_is(l, 0, VPMU_REC_FORKS)) {
        if (l->v.n != 2)
            return fail(p, "'%.*s' needs one value", (int)l->v.len[0], l->v.f[0]);
    } else {
        return 0; /* unknown record type: a newer tool's, skipped */
    }
    if (field_is(l, 0, VPMU_REC_PID)) {
        if (once(p, &o->have_pid, "pid"))
            return -1;
        return get_u64(p, l, 1, UINT64_MAX, "pid", &o->pid);
    }
    if (field_is(l, 0, VPMU_REC_PPID)) {
        if (once(p, &o->have_ppid, "ppid"))
            return -1;
        return get_u64(p, l, 1, UINT64_MAX, "ppid", &o->ppid);
    }
    if (field_is(l, 0, VPMU_REC_FORKS)) {
        if (once(p, &p->seen_forks, "forks"))
            return -1;
        return get_u64(p, l, 1, UINT64_MAX, "forks", &o->forks);
    }
    if (field_is(l, 0, VPMU_REC_UPC_WRITES)) {
        if (once(p, &p->seen_upc_writes, "upc_writes"))
            return -1;
        return get_u64(p, l, 1, UINT64_MAX, "upc_writes", &o->upc_writes);
    }
    if (field_is(l, 0, VPMU_REC_MACHINE)) {
        if (once(p, &p->seen_machine, "machine"))
            return -1;
        return copy_word(p, o->machine, sizeof o->machine, l->v.f[1], l->v.len[1], "machine name");
    }
    if (field_is(l, 0, VPMU_REC_CORES)) {
        if (once(p, &p->seen_cores, "cores") ||
            get_u64(p, l, 1, VPMU_OUTPUT_MAX_CORES, "cores", &v))
            return -1;
        if (v == 0)
            return fail(p, "cores 0");
        o->cores = (unsigned)v;
        return 0;
    }
    if (field_is(l, 0, VPMU_REC_FREQUENCY)) {
        if (once(p, &p->seen_freq, "frequency_hz"))
            return -1;
        return get_u64(p, l, 1, UINT64_MAX, "frequency_hz", &o->frequency_hz);
    }
    if (field_is(l, 0, VPMU_REC_LEVEL)) {
        if (once(p, &p->seen_level, "level"))
            return -1;
        if (!field_is(l, 1, "insn") && !field_is(l, 1, "core") && !field_is(l, 1, "full"))
            return fail(p, "level must be insn, core or full");
        return copy_word(p, o->level, sizeof o->level, l->v.f[1], l->v.len[1], "level");
    }
    if (field_is(l, 0, VPMU_REC_UPCS)) {
        if (once(p, &p->seen_upcs, "upcs") || get_u64(p, l, 1, 1024, "upcs", &v))
            return -1;
        o->upcs = (unsigned)v;
        return 0;
    }
    /* threads */
    if (once(p, &o->have_threads, "threads") || get_u64(p, l, 1, UINT_MAX, "threads", &v))
        return -1;
    o->threads = (unsigned)v;
    return 0;
}

static int record(struct vpmu_output_reader *p, struct line *l)
{
    struct vpmu_output *o = p->o;
    const char *s;
    size_t n;
    split(l);
    if (l->v.n == 0)
        return 0; /* blank lines carry nothing */
    if (field_is(l, 0, VPMU_REC_COUNT))
        return rec_count(p, l);
    if (field_is(l, 0, VPMU_REC_THREAD))
        return rec_thread(p, l);
    if (field_is(l, 0, VPMU_REC_REGION))
        return rec_region(p, l);
    if (field_is(l, 0, VPMU_REC_COMMAND)) {
        if (once(p, &p->seen_command, "command"))
            return -1;
        rest_of(l, &s, &n);
        o->command = malloc(n + 1);
        if (!o->command)
            return fail(p, "out of memory");
        memcpy(o->command, s, n);
        o->command[n] = 0;
        return 0;
    }
    if (field_is(l, 0, VPMU_REC_MODELS)) {
        if (once(p, &p->seen_models, "models"))
            return -1;
        rest_of(l, &s, &n);
        return copy_word(p, o->models, sizeof o->models, s, n, "models");
    }
    if (field_is(l, 0, VPMU_FORMAT_MAGIC))
        return fail(p, "second 'hpm-vpmu' header");
    if (field_is(l, 0, VPMU_REC_RAW))
        return 0; /* exact tool counters for its own tests; hpm reports UPC reads */
    if (field_is(l, 0, VPMU_REC_UPC))
        return rec_upc(p, l);
    if (field_is(l, 0, VPMU_REC_MPX))
        return rec_mpx(p, l);
    if (field_is(l, 0, VPMU_REC_MPX_SET))
        return rec_mpx_set(p, l);
    if (field_is(l, 0, VPMU_REC_EXIT))
        return rec_exit(p, l);
    if (field_is(l, 0, VPMU_REC_COHERENCE_TIME)) {
        /* coherence_time LOGGED MISSES HOST (--hpm-coherence=time) */
        if (once(p, &o->coh_time, "coherence_time"))
            return -1;
        if (l->v.n != 4)
            return fail(p, "'coherence_time' needs three values");
        if (get_u64(p, l, 1, UINT64_MAX, "coherence_time accesses", &o->coh_time_logged) ||
            get_u64(p, l, 2, UINT64_MAX, "coherence_time misses", &o->coh_time_misses) ||
            get_u64(p, l, 3, UINT64_MAX, "coherence_time host-timed returns", &o->coh_time_host))
            return -1;
        return 0;
    }
    if (field_is(l, 0, VPMU_REC_SHARED_LINE))
        return rec_shared_line(p, l);
    if (field_is(l, 0, VPMU_REC_HOST_TIMED))
        return rec_host_timed(p, l);
    if (field_is(l, 0, VPMU_REC_SHARED_LINES)) {
        /* shared_lines KEPT DROPPED WRITTEN */
        if (once(p, &p->seen_shared, "shared_lines"))
            return -1;
        if (l->v.n != 4)
            return fail(p, "'shared_lines' needs three values");
        if (get_u64(p, l, 1, UINT64_MAX, "shared lines", &o->shared_lines) ||
            get_u64(p, l, 2, UINT64_MAX, "shared lines dropped", &o->shared_dropped) ||
            get_u64(p, l, 3, o->shared_lines, "shared lines written", &o->shared_written))
            return -1;
        return 0;
    }
    if (field_is(l, 0, VPMU_REC_INTERLEAVE)) {
        /* interleave N SWITCHES [HOST] (--hpm-interleave; HOST: waits given
         * up, absent in the files of older tools) */
        if (once(p, &p->seen_interleave, "interleave"))
            return -1;
        if (l->v.n != 3 && l->v.n != 4)
            return fail(p, "'interleave' needs two or three values");
        if (get_u64(p, l, 1, UINT64_MAX, "interleave", &o->interleave) ||
            get_u64(p, l, 2, UINT64_MAX, "interleave switches", &o->interleave_switches) ||
            (l->v.n == 4 &&
             get_u64(p, l, 3, UINT64_MAX, "interleave waits given up", &o->interleave_host)))
            return -1;
        if (o->interleave == 0)
            return fail(p, "interleave 0");
        return 0;
    }
    return rec_one_value(p, l);
}

/* Whole-file consistency, after the last line. */
static int check_complete(struct vpmu_output_reader *p)
{
    struct vpmu_output *o = p->o;
    size_t i;
    static const char *const hint = " (file truncated, or the tool stopped early)";
    p->lineno = 0;
    if (!p->seen_machine)
        return fail(p, "no 'machine' record%s", hint);
    if (!p->seen_cores)
        return fail(p, "no 'cores' record%s", hint);
    if (o->exit_kind == VPMU_EXIT_NONE)
        return fail(p, "no 'exit' record%s", hint);
    if (!o->have_threads)
        return fail(p, "no 'threads' record%s", hint);
    for (i = 0; i < o->n_thr; i++) {
        if (o->thr[i].serial > o->threads)
            return fail(p, "thread %u, but 'threads %u'", o->thr[i].serial, o->threads);
        if (o->thr[i].core >= (int)o->cores)
            return fail(p, "thread %u on core %d, but 'cores %u'", o->thr[i].serial,
                        o->thr[i].core, o->cores);
    }
    for (i = 0; i < o->n_reg; i++)
        if (o->reg[i].thread > o->threads)
            return fail(p, "region %s on thread %u, but 'threads %u'", o->reg[i].name,
                        o->reg[i].thread, o->threads);
    for (i = 0; i < o->n_upc; i++)
        if (p->seen_upcs && o->upc[i].upc >= o->upcs)
            return fail(p, "'upc %u', but 'upcs %u'", o->upc[i].upc, o->upcs);
    return 0;
}

/* The file's first line: the format and its version. */
static int rec_magic(struct vpmu_output_reader *p, struct line *l)
{
    uint64_t v;
    split(l);
    if (!field_is(l, 0, VPMU_FORMAT_MAGIC) || l->v.n != 2 ||
        vpmu_number(l->v.f[1], l->v.len[1], 10, &v))
        return fail(p, "not a virtual PMU output file (expected '%s %d')", VPMU_FORMAT_MAGIC,
                    VPMU_OUTPUT_VERSION);
    if (v != VPMU_OUTPUT_VERSION)
        return fail(p, "output format version %llu; this hpm reads version %d (the tool and hpm "
                       "come from different builds)",
                    (unsigned long long)v, VPMU_OUTPUT_VERSION);
    p->o->version = (unsigned)v;
    return 0;
}

/* ------------------------------------------------------------ the handler */

static int out_begin(void *ctx, const struct vpmu_file *f, const char *buf, size_t len, int nul)
{
    struct vpmu_output_reader *p = ctx;
    (void)f;
    (void)buf;
    if (len == 0)
        return fail(p, "empty file (the tool wrote nothing)");
    if (nul)
        return fail(p, "NUL byte in the file (not a virtual PMU output file)");
    return 0;
}

static int out_record(void *ctx, const struct vpmu_file *f, const struct vpmu_rec *rec)
{
    struct vpmu_output_reader *p = ctx;
    struct line l;
    (void)f;
    p->lineno = rec->lineno;
    if (!rec->terminated)
        return fail(p, "truncated: the last line has no newline");
    l.s = rec->line;
    l.len = (size_t)(rec->end - rec->line);
    if (l.len && l.s[l.len - 1] == '\r')
        l.len--;
    return p->lineno == 1 ? rec_magic(p, &l) : record(p, &l);
}

static int out_end(void *ctx, const struct vpmu_file *f)
{
    (void)f;
    return check_complete(ctx);
}

void vpmu_output_reader_init(struct vpmu_output_reader *r, struct vpmu_output *o, char *err,
                             size_t errlen, struct vpmu_tool *tool)
{
    memset(o, 0, sizeof *o);
    memset(r, 0, sizeof *r);
    r->o = o;
    r->err = err;
    r->errlen = errlen;
    if (err && errlen)
        err[0] = 0;
    tool->file_begin = out_begin;
    tool->record = out_record;
    tool->file_end = out_end;
    tool->ctx = r;
}

int vpmu_output_parse(struct vpmu_output *o, const char *buf, size_t len, char *err,
                      size_t errlen)
{
    struct vpmu_output_reader r;
    struct vpmu_tool t;
    const struct vpmu_tool *tools[1] = {&t};
    vpmu_output_reader_init(&r, o, err, errlen, &t);
    return vpmu_tools_walk(NULL, buf, len, tools, 1);
}

/* A tool output file begins with its format line. */
static int output_head(const char *head, size_t n)
{
    return n >= 9 && memcmp(head, "hpm-vpmu ", 9) == 0;
}

int vpmu_output_load(struct vpmu_output *o, const char *path, char *err, size_t errlen)
{
    struct hpm_file_map m;
    char dummy[8];
    int rc;
    memset(o, 0, sizeof *o);
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    /* 16 GiB: far beyond any output file (a profile's records are tens of MB) */
    if (hpm_file_map(path, (size_t)1 << 34, output_head, "an output file of the virtual PMU", &m,
                     err, errlen) != 0)
        return -1;
    rc = vpmu_output_parse(o, m.data, m.len, err, errlen);
    hpm_file_unmap(&m);
    if (rc && err && errlen) {
        /* prefix the file name: "FILE: line N: message" */
        size_t pl = strlen(path) + 2, ml = strlen(err);
        if (pl + ml + 1 <= errlen) {
            memmove(err + pl, err, ml + 1);
            memcpy(err, path, pl - 2);
            err[pl - 2] = ':';
            err[pl - 1] = ' ';
        }
    }
    return rc;
}

void vpmu_output_free(struct vpmu_output *o)
{
    size_t i;
    free(o->command);
    free(o->thr);
    for (i = 0; i < o->n_reg; i++)
        free(o->reg[i].name);
    free(o->reg);
    free(o->upc);
    o->command = NULL;
    o->thr = NULL;
    o->reg = NULL;
    o->upc = NULL;
    o->n_thr = o->n_reg = o->n_upc = 0;
    o->cap_thr = o->cap_reg = o->cap_upc = 0;
}

const struct vpmu_thread *vpmu_output_thread(const struct vpmu_output *o, unsigned serial)
{
    size_t i;
    for (i = 0; i < o->n_thr; i++)
        if (o->thr[i].serial == serial)
            return &o->thr[i];
    return NULL;
}

int vpmu_output_add(struct vpmu_output *dst, const struct vpmu_output *src, char *err,
                    size_t errlen)
{
    unsigned offset = dst->threads, c;
    size_t i, j;
    if (strcmp(dst->machine, src->machine) != 0 || dst->cores != src->cores) {
        snprintf(err, errlen, "counts of machine %s (%u cores) cannot be added to %s (%u cores)",
                 src->machine, src->cores, dst->machine, dst->cores);
        return -1;
    }
    for (c = 0; c < HPM_CAT_SPECS; c++)
        if (src->have_count[c]) {
            if (!dst->have_count[c])
                dst->n_counts++;
            if (dst->count[c] > UINT64_MAX - src->count[c] && !dst->saturated++)
                dst->saturated_code = c;
            dst->count[c] = sat_add(dst->count[c], src->count[c]);
            dst->have_count[c] = 1;
        }
    for (i = 0; i < src->n_thr; i++) {
        if (hpm_grow((void **)&dst->thr, &dst->cap_thr, dst->n_thr + 1, sizeof *dst->thr))
            goto oom;
        dst->thr[dst->n_thr] = src->thr[i];
        dst->thr[dst->n_thr++].serial = src->thr[i].serial + offset;
    }
    for (i = 0; i < src->n_reg; i++) {
        char *name = strdup(src->reg[i].name);
        if (!name ||
            hpm_grow((void **)&dst->reg, &dst->cap_reg, dst->n_reg + 1, sizeof *dst->reg)) {
            free(name);
            goto oom;
        }
        dst->reg[dst->n_reg] = src->reg[i];
        dst->reg[dst->n_reg].name = name;
        dst->reg[dst->n_reg++].thread = src->reg[i].thread + offset;
    }
    for (i = 0; i < src->n_upc; i++) {
        for (j = 0; j < dst->n_upc && dst->upc[j].upc != src->upc[i].upc; j++)
            ;
        if (j == dst->n_upc) {
            if (hpm_grow((void **)&dst->upc, &dst->cap_upc, dst->n_upc + 1, sizeof *dst->upc))
                goto oom;
            dst->upc[j] = src->upc[i];
            dst->upc[j].lost_carries = dst->upc[j].parity_errors = 0;
            dst->n_upc++;
        }
        dst->upc[j].lost_carries = sat_add(dst->upc[j].lost_carries, src->upc[i].lost_carries);
        dst->upc[j].parity_errors = sat_add(dst->upc[j].parity_errors, src->upc[i].parity_errors);
    }
    dst->threads += src->threads;
    dst->upc_writes = sat_add(dst->upc_writes, src->upc_writes);
    if (src->saturated && !dst->saturated) {
        dst->saturated = src->saturated;
        dst->saturated_code = src->saturated_code;
    } else if (src->saturated) {
        dst->saturated += src->saturated;
    }
    dst->forks = sat_add(dst->forks, src->forks);
    if (src->interleave > dst->interleave)
        dst->interleave = src->interleave; /* one option for the whole tree */
    dst->interleave_switches = sat_add(dst->interleave_switches, src->interleave_switches);
    dst->interleave_host = sat_add(dst->interleave_host, src->interleave_host);
    dst->coh_time |= src->coh_time;
    dst->coh_time_logged = sat_add(dst->coh_time_logged, src->coh_time_logged);
    dst->coh_time_misses = sat_add(dst->coh_time_misses, src->coh_time_misses);
    dst->coh_time_host = sat_add(dst->coh_time_host, src->coh_time_host);
    for (i = 0; i < src->n_host_timed; i++)
        host_timed_add(dst, src->host_timed[i].call, src->host_timed[i].n);
    dst->shared_lines = sat_add(dst->shared_lines, src->shared_lines);
    dst->shared_dropped = sat_add(dst->shared_dropped, src->shared_dropped);
    dst->shared_written = sat_add(dst->shared_written, src->shared_written);
    for (i = 0; i < src->n_shared; i++)
        shared_insert(dst, &src->shared[i]);
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

int vpmu_output_saturated_note(const struct vpmu_output *o, char *buf, size_t len)
{
    char name[HPM_CAT_NAME_MAX];
    if (!o->saturated)
        return 0;
    if (hpm_catalog_code_name(o->saturated_code, name, sizeof name) < 0)
        snprintf(name, sizeof name, "code %u", o->saturated_code);
    snprintf(buf, len,
             "the sum of %s%s exceeds 2^64-1: shown at 18446744073709551615, the largest "
             "count a report holds",
             name,
             o->saturated > 1 ? " and more events" : "");
    return 1;
}

int vpmu_output_mpx_idle(const struct vpmu_output *o, unsigned spec)
{
    unsigned set = spec < HPM_CAT_SPECS ? o->mpx_set_of[spec] : 0;
    return set >= 1 && set <= o->mpx_sets && o->mpx_seen[set - 1] &&
           o->mpx_intervals[set - 1] == 0;
}

int vpmu_output_mpx_idle_note(const struct vpmu_output *o, char *buf, size_t len)
{
    char name[HPM_CAT_NAME_MAX];
    unsigned s, c, idle = 0;
    uint64_t total = 0;
    size_t at = 0;
    for (s = 0; s < o->mpx_sets; s++) {
        total += o->mpx_correlate[s];
        idle += o->mpx_seen[s] && o->mpx_intervals[s] == 0;
    }
    if (!idle || len < 4)
        return 0;
    at += (size_t)snprintf(buf, len,
                           "%u of the %u multiplexed sets never got an interval (the run ended "
                           "after %" PRIu64 " %s, set k's turn comes after about (k - 1) x %"
                           PRIu64 "):",
                           idle, o->mpx_sets, total, hpm_catalog_kind(o->mpx_kind)->name,
                           o->mpx_period);
    for (s = 0; s < o->mpx_sets && at < len; s++) {
        const char *sep = " (";
        if (!o->mpx_seen[s] || o->mpx_intervals[s] != 0)
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s set %u", buf[at - 1] == ':' ? "" : ";",
                               s + 1);
        for (c = 0; c < HPM_CAT_SPECS && at < len; c++)
            if (o->mpx_set_of[c] == s + 1) {
                if (hpm_catalog_code_name(c, name, sizeof name) < 0)
                    snprintf(name, sizeof name, "code %u", c);
                at += (size_t)snprintf(buf + at, len - at, "%s%s", sep, name);
                sep = ", ";
            }
        if (at < len && sep[0] == ',')
            at += (size_t)snprintf(buf + at, len - at, ")");
    }
    if (at < len)
        at += (size_t)snprintf(buf + at, len - at,
                               "; their events were not counted: no count and no estimate "
                               "(not 0), so they are not in the table; a smaller --multiplex "
                               "period gives every set a turn");
    if (at >= len)
        memcpy(buf + len - 4, "...", 4);
    return 1;
}

/* Writes o in the tool's format (what vpmu_output_parse reads back): the
 * counts of several runs merged into one (hpm count --passes) are read by
 * hpm count --from-output as any run's. 0, or -1 on a write error. */
int vpmu_output_write(const struct vpmu_output *o, FILE *f)
{
    char name[HPM_CAT_NAME_MAX];
    unsigned c, k;
    size_t i;
    fprintf(f, "%s %u\n", VPMU_FORMAT_MAGIC, VPMU_FORMAT_VERSION);
    if (o->command)
        fprintf(f, VPMU_REC_COMMAND " %s\n", o->command);
    if (o->have_pid)
        fprintf(f, VPMU_REC_PID " %" PRIu64 "\n", o->pid);
    if (o->have_ppid)
        fprintf(f, VPMU_REC_PPID " %" PRIu64 "\n", o->ppid);
    if (o->machine[0])
        fprintf(f, VPMU_REC_MACHINE " %s\n", o->machine);
    fprintf(f, VPMU_REC_CORES " %u\n" VPMU_REC_FREQUENCY " %" PRIu64 "\n", o->cores,
            o->frequency_hz);
    if (o->level[0])
        fprintf(f, VPMU_REC_LEVEL " %s\n", o->level);
    if (o->models[0])
        fprintf(f, VPMU_REC_MODELS " %s\n", o->models);
    fprintf(f, VPMU_REC_UPCS " %u\n", o->upcs);
    if (o->have_threads)
        fprintf(f, VPMU_REC_THREADS " %u\n", o->threads);
    for (i = 0; i < o->n_thr; i++)
        if (o->thr[i].core >= 0)
            fprintf(f, VPMU_REC_THREAD " %u " VPMU_THREAD_WORD_CORE " %d\n", o->thr[i].serial,
                    o->thr[i].core);
    for (c = 0; c < HPM_CAT_SPECS; c++)
        if (o->have_count[c] && hpm_catalog_code_name(c, name, sizeof name) >= 0)
            fprintf(f, VPMU_REC_COUNT " %u %s %" PRIu64 "\n", c, name, o->count[c]);
    for (i = 0; i < o->n_thr; i++)
        for (k = 0; k < HPM_K_COUNT; k++)
            if (o->thr[i].k.have[k])
                fprintf(f, VPMU_REC_THREAD " %u %s %" PRIu64 "\n", o->thr[i].serial,
                        hpm_catalog_kind(k)->name, o->thr[i].k.v[k]);
    for (i = 0; i < o->n_reg; i++) {
        const struct vpmu_region *r = &o->reg[i];
        if (r->have_entries)
            fprintf(f, VPMU_REC_REGION " %s " VPMU_REC_THREAD " %u " VPMU_REGION_WORD_ENTRIES
                       " %" PRIu64 "\n",
                    r->name, r->thread, r->entries);
        for (k = 0; k < HPM_K_COUNT; k++)
            if (r->k.have[k])
                fprintf(f, VPMU_REC_REGION " %s " VPMU_REC_THREAD " %u %s %" PRIu64 "\n", r->name,
                        r->thread, hpm_catalog_kind(k)->name, r->k.v[k]);
    }
    if (o->upc_writes)
        fprintf(f, VPMU_REC_UPC_WRITES " %" PRIu64 "\n", o->upc_writes);
    if (o->forks)
        fprintf(f, VPMU_REC_FORKS " %" PRIu64 "\n", o->forks);
    if (o->interleave)
        fprintf(f, VPMU_REC_INTERLEAVE " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", o->interleave,
                o->interleave_switches, o->interleave_host);
    if (o->coh_time)
        fprintf(f, VPMU_REC_COHERENCE_TIME " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                o->coh_time_logged, o->coh_time_misses, o->coh_time_host);
    for (i = 0; i < o->n_host_timed; i++)
        fprintf(f, VPMU_REC_HOST_TIMED " %s %" PRIu64 "\n", o->host_timed[i].call,
                o->host_timed[i].n);
    if (o->shared_lines || o->shared_dropped)
        fprintf(f, VPMU_REC_SHARED_LINES " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                o->shared_lines, o->shared_dropped, o->shared_written);
    for (i = 0; i < o->n_shared; i++)
        fprintf(f, VPMU_REC_SHARED_LINE " %" PRIx64 " %u %" PRIu64 " %" PRIu64 " %u %s %s\n",
                o->shared[i].addr, o->shared[i].bytes, o->shared[i].coh_misses,
                o->shared[i].invalidations, o->shared[i].writers,
                o->shared[i].true_sharing ? "true" : "false", o->shared[i].object);
    for (i = 0; i < o->n_upc; i++)
        fprintf(f, VPMU_REC_UPC " %u " VPMU_UPC_WORD_COUNTERS " %" PRIu64 " " VPMU_UPC_WORD_LOST
                   " %" PRIu64 " " VPMU_UPC_WORD_PARITY " %" PRIu64 "\n",
                o->upc[i].upc, o->upc[i].counters, o->upc[i].lost_carries,
                o->upc[i].parity_errors);
    if (o->exit_kind == VPMU_EXIT_STATUS)
        fprintf(f, VPMU_REC_EXIT " " VPMU_EXIT_WORD_STATUS " %d\n", o->exit_value);
    else if (o->exit_kind == VPMU_EXIT_SIGNAL && o->exit_value > 0)
        fprintf(f, VPMU_REC_EXIT " " VPMU_EXIT_WORD_SIGNAL " %d\n", o->exit_value);
    else if (o->exit_kind == VPMU_EXIT_SIGNAL)
        fprintf(f, VPMU_REC_EXIT " " VPMU_EXIT_WORD_SIGNAL "\n");
    else if (o->exit_kind == VPMU_EXIT_EXEC)
        fprintf(f, VPMU_REC_EXIT " " VPMU_EXIT_WORD_EXEC "\n");
    else if (o->exit_kind == VPMU_EXIT_SLOTS)
        fprintf(f, VPMU_REC_EXIT " " VPMU_EXIT_WORD_SLOTS " %d\n", o->exit_value);
    if (o->mpx_sets) {
        unsigned set, c;
        fprintf(f, VPMU_REC_MPX " %u %" PRIu64 " %s %" PRIu64 "\n", o->mpx_sets, o->mpx_period,
                hpm_catalog_kind(o->mpx_kind)->name, o->mpx_switches);
        for (set = 0; set < o->mpx_sets; set++) {
            const char *sep = " ";
            if (!o->mpx_seen[set])
                continue;
            fprintf(f, VPMU_REC_MPX_SET " %u %" PRIu64 " %" PRIu64, set, o->mpx_intervals[set],
                    o->mpx_correlate[set]);
            for (c = 0; c < HPM_CAT_SPECS; c++)
                if (o->mpx_set_of[c] == set + 1 || o->mpx_set_of[c] == VPMU_MPX_EVERY) {
                    fprintf(f, "%s%u", sep, c);
                    sep = ",";
                }
            fputc('\n', f);
        }
    }
    return ferror(f) ? -1 : 0;
}

/* Adds what src counted and dst did not (the same machine): the counts of
 * another pass of the same program. */
void vpmu_output_union(struct vpmu_output *dst, const struct vpmu_output *src)
{
    unsigned c, k;
    size_t i, j;
    for (c = 0; c < HPM_CAT_SPECS; c++)
        if (src->have_count[c] && !dst->have_count[c]) {
            dst->count[c] = src->count[c];
            dst->have_count[c] = 1;
            dst->n_counts++;
        }
    for (i = 0; i < src->n_thr; i++)
        for (j = 0; j < dst->n_thr; j++)
            if (dst->thr[j].serial == src->thr[i].serial)
                for (k = 0; k < HPM_K_COUNT; k++)
                    if (src->thr[i].k.have[k] && !dst->thr[j].k.have[k]) {
                        dst->thr[j].k.v[k] = src->thr[i].k.v[k];
                        dst->thr[j].k.have[k] = 1;
                    }
    for (i = 0; i < src->n_reg; i++)
        for (j = 0; j < dst->n_reg; j++)
            if (dst->reg[j].thread == src->reg[i].thread &&
                strcmp(dst->reg[j].name, src->reg[i].name) == 0)
                for (k = 0; k < HPM_K_COUNT; k++)
                    if (src->reg[i].k.have[k] && !dst->reg[j].k.have[k]) {
                        dst->reg[j].k.v[k] = src->reg[i].k.v[k];
                        dst->reg[j].k.have[k] = 1;
                    }
    if (!dst->shared_lines && !dst->shared_dropped) {
        /* a pass that modeled the caches saw the lines */
        dst->shared_lines = src->shared_lines;
        dst->shared_dropped = src->shared_dropped;
        dst->shared_written = src->shared_written;
        dst->n_shared = src->n_shared;
        memcpy(dst->shared, src->shared, sizeof dst->shared);
    }
}
