/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * encode.c - the encoder and decoder (encode.h).
 */
#include "encode.h"

#include <stdlib.h>
#include <string.h>

/* The search's state: the counters that matter (some event can use them
 * in some mode), their groups, and per group the modes that matter. */
struct search {
    const struct hpm_cu *u;
    unsigned n_events;
    unsigned n_ctr;       /* counters that matter */
    unsigned *ctr;        /* their numbers */
    unsigned *grp_of;     /* their group (index into groups) */
    unsigned n_grp;
    unsigned *grp_first;  /* a group's modes: modes[grp_first[g] .. grp_first[g + 1]) */
    unsigned *modes;
    uint64_t *can;        /* [k * max_modes + j]: counter k in its group's j-th mode */
    unsigned max_modes;
    uint64_t *any;        /* [k]: counter k in any of its group's modes */
    int *choice;          /* per group: mode index j, -1 unused, -2 undecided */
    int *best_choice;
    int *match;           /* per counter: event, or -1 */
    int *best_match;
    unsigned char *seen;
    unsigned best;
    unsigned long nodes;
    int limited;
};

static uint64_t avail(const struct search *s, unsigned k)
{
    int j = s->choice[s->grp_of[k]];
    if (j == -2)
        return s->any[k];
    if (j < 0)
        return 0;
    return s->can[(size_t)k * s->max_modes + (unsigned)j];
}

static int augment(struct search *s, unsigned ev)
{
    unsigned k;
    for (k = 0; k < s->n_ctr; k++) {
        if (s->seen[k] || !(avail(s, k) >> ev & 1))
            continue;
        s->seen[k] = 1;
        if (s->match[k] < 0 || augment(s, (unsigned)s->match[k])) {
            s->match[k] = (int)ev;
            return 1;
        }
    }
    return 0;
}

/* The maximum matching under the current choices (undecided groups in
 * every mode at once: a bound). */
static unsigned matching(struct search *s)
{
    unsigned i, n = 0;
    for (i = 0; i < s->n_ctr; i++)
        s->match[i] = -1;
    for (i = 0; i < s->n_events; i++) {
        memset(s->seen, 0, s->n_ctr);
        n += (unsigned)augment(s, i);
    }
    return n;
}

static void dfs(struct search *s, unsigned g)
{
    unsigned m, j, nm;
    if (s->best == s->n_events || s->limited)
        return;
    if (++s->nodes > HPM_ENCODE_MAX_NODES) {
        s->limited = 1;
        return;
    }
    m = matching(s); /* groups from g on undecided: an upper bound */
    if (m <= s->best && s->best > 0)
        return;
    if (g == s->n_grp) {
        /* every group decided: this configuration places m */
        s->best = m;
        memcpy(s->best_choice, s->choice, s->n_grp * sizeof *s->choice);
        memcpy(s->best_match, s->match, s->n_ctr * sizeof *s->match);
        return;
    }
    nm = s->grp_first[g + 1] - s->grp_first[g];
    for (j = 0; j < nm; j++) {
        s->choice[g] = (int)j;
        dfs(s, g + 1);
    }
    s->choice[g] = -1;
    dfs(s, g + 1);
    s->choice[g] = -2;
}

int hpm_encode(const struct hpm_cu *u, unsigned n_events, struct hpm_encoding *e)
{
    struct search s;
    unsigned c, m, g, k, i, n_groups;
    int rc = -1;
    memset(e, 0, sizeof *e);
    if (!u || u->n_counters == 0 || u->n_counters > HPM_ENCODE_MAX_COUNTERS || u->n_modes == 0 ||
        u->n_modes > HPM_ENCODE_MAX_MODES || u->group_size == 0 ||
        n_events > HPM_ENCODE_MAX_EVENTS)
        return -1;
    n_groups = (u->n_counters + u->group_size - 1) / u->group_size;
    if (n_groups > HPM_ENCODE_MAX_COUNTERS)
        return -1;
    e->n_events = n_events;
    for (i = 0; i < HPM_ENCODE_MAX_EVENTS; i++)
        e->counter[i] = -1;
    for (g = 0; g < HPM_ENCODE_MAX_COUNTERS; g++)
        e->mode[g] = -1;
    memset(&s, 0, sizeof s);
    s.u = u;
    s.n_events = n_events;
    s.ctr = calloc(u->n_counters, sizeof *s.ctr);
    s.grp_of = calloc(u->n_counters, sizeof *s.grp_of);
    s.grp_first = calloc(n_groups + 1, sizeof *s.grp_first);
    s.modes = calloc((size_t)n_groups * u->n_modes + 1, sizeof *s.modes);
    s.choice = calloc(n_groups + 1, sizeof *s.choice);
    s.best_choice = calloc(n_groups + 1, sizeof *s.best_choice);
    s.match = calloc(u->n_counters, sizeof *s.match);
    s.best_match = calloc(u->n_counters, sizeof *s.best_match);
    s.seen = calloc(u->n_counters, 1);
    s.any = calloc(u->n_counters, sizeof *s.any);
    if (!s.ctr || !s.grp_of || !s.grp_first || !s.modes || !s.choice || !s.best_choice ||
        !s.match || !s.best_match || !s.seen || !s.any)
        goto out;
    /* the groups and modes that matter, and their counters */
    s.max_modes = 0;
    for (g = 0; g < n_groups; g++) {
        unsigned first = s.grp_first[s.n_grp], nm = 0;
        for (m = 0; m < u->n_modes; m++) {
            uint64_t any = 0;
            for (c = g * u->group_size; c < (g + 1) * u->group_size && c < u->n_counters; c++)
                any |= u->can(u, c, m);
            if (any)
                s.modes[first + nm++] = m;
        }
        if (!nm)
            continue;
        s.grp_first[s.n_grp + 1] = first + nm;
        if (nm > s.max_modes)
            s.max_modes = nm;
        for (c = g * u->group_size; c < (g + 1) * u->group_size && c < u->n_counters; c++) {
            s.ctr[s.n_ctr] = c;
            s.grp_of[s.n_ctr] = s.n_grp;
            s.n_ctr++;
        }
        s.n_grp++;
    }
    s.can = calloc((size_t)(s.n_ctr ? s.n_ctr : 1) * (s.max_modes ? s.max_modes : 1),
                   sizeof *s.can);
    if (!s.can)
        goto out;
    for (k = 0; k < s.n_ctr; k++) {
        unsigned gg = s.grp_of[k], j;
        for (j = 0; j < s.grp_first[gg + 1] - s.grp_first[gg]; j++) {
            uint64_t v = u->can(u, s.ctr[k], s.modes[s.grp_first[gg] + j]);
            if (n_events < 64)
                v &= ((uint64_t)1 << n_events) - 1;
            s.can[(size_t)k * s.max_modes + j] = v;
            s.any[k] |= v;
        }
    }
    for (g = 0; g < s.n_grp; g++)
        s.choice[g] = s.best_choice[g] = -2;
    for (k = 0; k < s.n_ctr; k++)
        s.best_match[k] = -1;
    dfs(&s, 0);
    e->nodes = s.nodes;
    e->limited = s.limited;
    e->placed = s.best;
    e->complete = s.best == n_events;
    for (k = 0; k < s.n_ctr; k++)
        if (s.best_match[k] >= 0)
            e->counter[s.best_match[k]] = (int)s.ctr[k];
    for (g = 0; g < s.n_grp; g++) {
        int j = s.best_choice[g];
        unsigned whole = s.ctr[0]; /* the group's number: from one of its counters */
        for (k = 0; k < s.n_ctr; k++)
            if (s.grp_of[k] == g) {
                whole = s.ctr[k] / u->group_size;
                break;
            }
        e->mode[whole] = j >= 0 ? (int)s.modes[s.grp_first[g] + (unsigned)j] : -1;
    }
    rc = 0;
out:
    free(s.ctr);
    free(s.grp_of);
    free(s.grp_first);
    free(s.modes);
    free(s.choice);
    free(s.best_choice);
    free(s.match);
    free(s.best_match);
    free(s.seen);
    free(s.any);
    free(s.can);
    return rc;
}

uint64_t hpm_encode_blockers(const struct hpm_cu *u, const struct hpm_encoding *e, unsigned i)
{
    uint64_t out = 0;
    unsigned c, m, j;
    if (i >= e->n_events || e->counter[i] >= 0)
        return 0;
    for (c = 0; c < u->n_counters; c++)
        for (m = 0; m < u->n_modes; m++) {
            if (!(u->can(u, c, m) >> i & 1))
                continue;
            /* counter c in mode m would take it: who holds the counter, or
             * the group's mode */
            for (j = 0; j < e->n_events; j++)
                if (e->counter[j] == (int)c)
                    out |= (uint64_t)1 << j;
            if (e->mode[c / u->group_size] >= 0 && e->mode[c / u->group_size] != (int)m)
                for (j = 0; j < e->n_events; j++)
                    if (e->counter[j] >= 0 &&
                        (unsigned)e->counter[j] / u->group_size == c / u->group_size)
                        out |= (uint64_t)1 << j;
        }
    return out;
}

/* The machine's wiring: counter c (unit c / counters) takes code k in mode
 * code / counters when code mod counters == c mod counters (a spec's code:
 * its counting mode is the counter's). */
static uint64_t can_codes(const struct hpm_cu *u, unsigned c, unsigned m)
{
    const struct hpm_cu_codes *mc = u->ctx;
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < mc->n_codes && i < HPM_ENCODE_MAX_EVENTS; i++) {
        unsigned code = mc->codes[i] % HPM_ENCODE_INPUTS;
        if (code % mc->counters == c % mc->counters && code / mc->counters == m)
            v |= (uint64_t)1 << i;
    }
    return v;
}

unsigned hpm_cu_units_needed(const unsigned *codes, unsigned n, unsigned counters)
{
    unsigned most = 1, i, j;
    for (i = 0; i < n; i++) {
        unsigned same = 0;
        for (j = 0; j < n; j++)
            same += codes[j] % HPM_ENCODE_INPUTS % counters ==
                    codes[i] % HPM_ENCODE_INPUTS % counters;
        if (same > most)
            most = same;
    }
    return most;
}

void hpm_cu_from_codes(struct hpm_cu *u, const struct hpm_cu_codes *m)
{
    memset(u, 0, sizeof *u);
    u->n_counters = m->units * m->counters;
    u->group_size = m->group ? m->group : 1;
    u->n_modes = m->counters ? (HPM_ENCODE_INPUTS + m->counters - 1) / m->counters : 0;
    u->can = can_codes;
    u->ctx = m;
}

int hpm_encode_passes(const struct hpm_cu_codes *m, const unsigned *corr, unsigned n_corr,
                      int *pass_of)
{
    unsigned i, j, pass = 0, left = 0;
    unsigned idx[HPM_ENCODE_MAX_EVENTS], sub[HPM_ENCODE_MAX_EVENTS];
    if (m->n_codes + n_corr > HPM_ENCODE_MAX_EVENTS)
        return -1;
    for (i = 0; i < m->n_codes; i++) {
        /* a correlate is counted on every pass: it is in the first */
        pass_of[i] = -1;
        for (j = 0; j < n_corr; j++)
            if (m->codes[i] == corr[j])
                pass_of[i] = 0;
        left += pass_of[i] < 0;
    }
    while (left) {
        struct hpm_cu_codes pm = *m;
        struct hpm_cu u;
        struct hpm_encoding e;
        unsigned n = 0;
        for (j = 0; j < n_corr; j++)
            sub[n++] = corr[j];
        for (i = 0; i < m->n_codes; i++)
            if (pass_of[i] < 0) {
                idx[n] = i;
                sub[n++] = m->codes[i];
            }
        pm.codes = sub;
        pm.n_codes = n;
        hpm_cu_from_codes(&u, &pm);
        if (hpm_encode(&u, n, &e) != 0)
            return -1;
        for (j = 0; j < n_corr; j++)
            if (e.counter[j] < 0)
                return -1; /* the correlates alone do not fit beside the rest */
        for (i = n_corr; i < n; i++)
            if (e.counter[i] >= 0) {
                pass_of[idx[i]] = (int)pass;
                left--;
            }
        if (e.placed == n_corr)
            return -1; /* what is left fits no configuration */
        pass++;
    }
    return pass ? (int)pass : 1;
}
