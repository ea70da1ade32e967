/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loops.c - loops as cost centers (loops.h).
 */
#include "loops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int hpm_loops_insn_kind(const struct hpm_profile *p)
{
    unsigned k;
    for (k = 0; k < p->n_kinds; k++)
        if (strcmp(p->kinds[k], "INSTRUCTIONS") == 0 || strcmp(p->kinds[k], "Ir") == 0)
            return (int)k;
    return -1;
}

double hpm_loop_trip(const struct hpm_loop *l)
{
    return l->entries ? (double)l->header_execs / (double)l->entries : 0.0;
}

static int kind_index(const struct hpm_profile *p, const char *name)
{
    unsigned k;
    for (k = 0; k < p->n_kinds; k++)
        if (strcmp(p->kinds[k], name) == 0)
            return (int)k;
    return -1;
}

/* One function's graph: nodes 0..n-1 its executed instructions by
 * address, node n the entry; edges in CSR form both ways. */
struct graph {
    size_t n;
    uint64_t *addr, *execs, *taken_out, *in_flow;
    size_t *cost_lo, *cost_hi; /* the node's costs: fn->costs[lo, hi) */
    size_t n_edges, cap_edges;
    size_t *src, *dst;
    size_t *succ_at, *succ, *pred_at, *pred; /* CSR */
    long *rpo_num;                           /* -1: not reached from the entry */
    size_t *order;                           /* reverse post-order */
    size_t n_order;
    size_t *idom;
    size_t *pre, *post; /* dominator tree intervals */
    long *owner;        /* innermost loop (global index), -1 */
    size_t *mark;       /* body membership: loop stamp + 1 */
    size_t *work;
};

static void graph_free(struct graph *g)
{
    free(g->addr);
    free(g->execs);
    free(g->taken_out);
    free(g->in_flow);
    free(g->cost_lo);
    free(g->cost_hi);
    free(g->src);
    free(g->dst);
    free(g->succ_at);
    free(g->succ);
    free(g->pred_at);
    free(g->pred);
    free(g->rpo_num);
    free(g->order);
    free(g->idom);
    free(g->pre);
    free(g->post);
    free(g->owner);
    free(g->mark);
    free(g->work);
    memset(g, 0, sizeof *g);
}

static long node_of(const struct graph *g, uint64_t addr)
{
    size_t lo = 0, hi = g->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->addr[mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->n && g->addr[lo] == addr ? (long)lo : -1;
}

static int add_edge(struct graph *g, size_t s, size_t d)
{
    if (g->n_edges == g->cap_edges) {
        size_t nc = g->cap_edges ? 2 * g->cap_edges : 64;
        size_t *ns = realloc(g->src, nc * sizeof *ns), *nd;
        if (!ns)
            return -1;
        g->src = ns;
        nd = realloc(g->dst, nc * sizeof *nd);
        if (!nd)
            return -1;
        g->dst = nd;
        g->cap_edges = nc;
    }
    g->src[g->n_edges] = s;
    g->dst[g->n_edges] = d;
    g->n_edges++;
    return 0;
}

/* The graph of fn; -1: out of memory. */
static int graph_build(struct graph *g, const struct hpm_prof_fn *fn, size_t f, int ik, int k_ret,
                       int k_ind)
{
    size_t i, j, n = 0, N;
    memset(g, 0, sizeof *g);
    N = fn->n_costs + 1;
    g->addr = calloc(N, sizeof *g->addr);
    g->execs = calloc(N, sizeof *g->execs);
    g->taken_out = calloc(N, sizeof *g->taken_out);
    g->in_flow = calloc(N, sizeof *g->in_flow);
    g->cost_lo = calloc(N, sizeof *g->cost_lo);
    g->cost_hi = calloc(N, sizeof *g->cost_hi);
    if (!g->addr || !g->execs || !g->taken_out || !g->in_flow || !g->cost_lo || !g->cost_hi)
        return -1;
    {
        /* no fall-through (a return, an indirect jump: 1), or one that a
         * jump to the next instruction made already (2): one edge */
        unsigned char *noft = calloc(N, 1);
        if (!noft)
            return -1;
        for (j = 0; j < fn->n_costs; j++) {
            const struct hpm_prof_cost *c = &fn->costs[j];
            if (c->addr == 0)
                continue;
            if (n == 0 || g->addr[n - 1] != c->addr) {
                g->addr[n] = c->addr;
                g->cost_lo[n] = j;
                n++;
            }
            g->cost_hi[n - 1] = j + 1;
            g->execs[n - 1] += hpm_prof_value(c->v, c->kv, c->n_kv, (unsigned)ik);
            if ((k_ret >= 0 && hpm_prof_value(c->v, c->kv, c->n_kv, (unsigned)k_ret)) ||
                (k_ind >= 0 && hpm_prof_value(c->v, c->kv, c->n_kv, (unsigned)k_ind)))
                noft[n - 1] = 1;
        }
        g->n = n;
        for (j = 0; j < fn->n_jumps; j++) {
            const struct hpm_prof_jump *jp = &fn->jumps[j];
            long s = node_of(g, jp->site_addr), d;
            if (s < 0 || jp->taken == 0)
                continue;
            g->taken_out[s] += jp->taken;
            if (jp->target_fn != f || (d = node_of(g, jp->target_addr)) < 0)
                continue; /* left the function */
            g->in_flow[d] += jp->taken;
            if ((size_t)d == (size_t)s + 1) {
                if (noft[s] & 2)
                    continue;
                noft[s] |= 2;
            }
            if (add_edge(g, (size_t)s, (size_t)d) != 0) {
                free(noft);
                return -1;
            }
        }
        for (i = 0; i + 1 < n; i++) {
            uint64_t ft = g->execs[i] > g->taken_out[i] ? g->execs[i] - g->taken_out[i] : 0;
            if ((noft[i] & 1) || ft == 0)
                continue;
            g->in_flow[i + 1] += ft;
            if (noft[i] & 2)
                continue;
            if (add_edge(g, i, i + 1) != 0) {
                free(noft);
                return -1;
            }
        }
        free(noft);
    }
    /* the entry: to every instruction reached from outside */
    {
        int any = 0;
        for (i = 0; i < n; i++)
            if (g->execs[i] > g->in_flow[i]) {
                if (add_edge(g, n, i) != 0)
                    return -1;
                any = 1;
            }
        if (!any && n && add_edge(g, n, 0) != 0)
            return -1;
    }
    /* CSR */
    g->succ_at = calloc(n + 2, sizeof *g->succ_at);
    g->pred_at = calloc(n + 2, sizeof *g->pred_at);
    g->succ = malloc((g->n_edges + 1) * sizeof *g->succ);
    g->pred = malloc((g->n_edges + 1) * sizeof *g->pred);
    if (!g->succ_at || !g->pred_at || !g->succ || !g->pred)
        return -1;
    for (j = 0; j < g->n_edges; j++) {
        g->succ_at[g->src[j] + 1]++;
        g->pred_at[g->dst[j] + 1]++;
    }
    for (i = 0; i <= n; i++) {
        g->succ_at[i + 1] += g->succ_at[i];
        g->pred_at[i + 1] += g->pred_at[i];
    }
    {
        size_t *fs = calloc(n + 1, sizeof *fs), *fp = calloc(n + 1, sizeof *fp);
        if (!fs || !fp) {
            free(fs);
            free(fp);
            return -1;
        }
        for (j = 0; j < g->n_edges; j++) {
            g->succ[g->succ_at[g->src[j]] + fs[g->src[j]]++] = g->dst[j];
            g->pred[g->pred_at[g->dst[j]] + fp[g->dst[j]]++] = g->src[j];
        }
        free(fs);
        free(fp);
    }
    return 0;
}

/* Reverse post-order from the entry (iterative: a function may have tens
 * of thousands of instructions), then the dominators (Cooper, Harvey and
 * Kennedy's iteration) and the dominator tree's intervals. */
static int graph_dominators(struct graph *g)
{
    size_t n = g->n, N = n + 1, i, top = 0, t = 0, changed;
    size_t *stack = malloc(N * sizeof *stack), *edge = calloc(N, sizeof *edge);
    size_t *post_order = malloc(N * sizeof *post_order);
    g->rpo_num = malloc(N * sizeof *g->rpo_num);
    g->order = malloc(N * sizeof *g->order);
    g->idom = malloc(N * sizeof *g->idom);
    g->pre = calloc(N, sizeof *g->pre);
    g->post = calloc(N, sizeof *g->post);
    g->owner = malloc(N * sizeof *g->owner);
    g->mark = calloc(N, sizeof *g->mark);
    g->work = malloc(N * sizeof *g->work);
    if (!stack || !edge || !post_order || !g->rpo_num || !g->order || !g->idom || !g->pre ||
        !g->post || !g->owner || !g->mark || !g->work) {
        free(stack);
        free(edge);
        free(post_order);
        return -1;
    }
    for (i = 0; i < N; i++) {
        g->rpo_num[i] = -1;
        g->owner[i] = -1;
        g->idom[i] = N; /* undefined */
    }
    /* post-order DFS (rpo_num marks visited: -2 on the stack) */
    stack[top++] = n;
    g->rpo_num[n] = -2;
    while (top) {
        size_t u = stack[top - 1];
        if (g->succ_at[u] + edge[u] < g->succ_at[u + 1]) {
            size_t v = g->succ[g->succ_at[u] + edge[u]++];
            if (g->rpo_num[v] == -1) {
                g->rpo_num[v] = -2;
                stack[top++] = v;
            }
        } else {
            post_order[t++] = u;
            top--;
        }
    }
    g->n_order = t;
    for (i = 0; i < t; i++) {
        g->order[i] = post_order[t - 1 - i];
        g->rpo_num[g->order[i]] = (long)i;
    }
    free(post_order);
    g->idom[n] = n;
    do {
        changed = 0;
        for (i = 1; i < t; i++) {
            size_t u = g->order[i], k, nd = N;
            for (k = g->pred_at[u]; k < g->pred_at[u + 1]; k++) {
                size_t pr = g->pred[k];
                if (g->rpo_num[pr] < 0 || g->idom[pr] == N)
                    continue;
                if (nd == N) {
                    nd = pr;
                } else {
                    size_t a = pr, b = nd;
                    while (a != b) {
                        while (g->rpo_num[a] > g->rpo_num[b])
                            a = g->idom[a];
                        while (g->rpo_num[b] > g->rpo_num[a])
                            b = g->idom[b];
                    }
                    nd = a;
                }
            }
            if (nd != N && g->idom[u] != nd) {
                g->idom[u] = nd;
                changed = 1;
            }
        }
    } while (changed);
    /* the dominator tree's pre- and post-order numbers: a child's idom is
     * earlier in reverse post-order, so the tree is walked with the same
     * stack: children lists in CSR (reusing edge[] as counts) */
    {
        size_t *kid_at = calloc(N + 1, sizeof *kid_at), *kid = malloc(N * sizeof *kid);
        size_t clock = 0;
        if (!kid_at || !kid) {
            free(kid_at);
            free(kid);
            free(stack);
            free(edge);
            return -1;
        }
        for (i = 1; i < t; i++)
            kid_at[g->idom[g->order[i]] + 1]++;
        for (i = 0; i < N; i++)
            kid_at[i + 1] += kid_at[i];
        memset(edge, 0, N * sizeof *edge);
        for (i = 1; i < t; i++) {
            size_t u = g->order[i], d = g->idom[u];
            kid[kid_at[d] + edge[d]++] = u;
        }
        memset(edge, 0, N * sizeof *edge);
        top = 0;
        stack[top++] = n;
        g->pre[n] = clock++;
        while (top) {
            size_t u = stack[top - 1];
            if (kid_at[u] + edge[u] < kid_at[u + 1]) {
                size_t v = kid[kid_at[u] + edge[u]++];
                g->pre[v] = clock++;
                stack[top++] = v;
            } else {
                g->post[u] = clock++;
                top--;
            }
        }
        free(kid_at);
        free(kid);
    }
    free(stack);
    free(edge);
    return 0;
}

static int dominates(const struct graph *g, size_t h, size_t u)
{
    return g->pre[h] <= g->pre[u] && g->post[u] <= g->post[h];
}

/* A header found, its body (in g->work, n_body of them) being gathered. */
struct found {
    size_t header, n_body, body_at; /* body: bodies[body_at, +n_body) */
    uint64_t back_taken;
    size_t n_latches;
};

static int cmp_found_size(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    if (x->n_body != y->n_body)
        return x->n_body > y->n_body ? -1 : 1;
    return x->header < y->header ? -1 : x->header > y->header;
}

/* The flow of edge u -> v (a taken branch's count and a fall-through's). */
static uint64_t edge_flow(const struct graph *g, const struct hpm_prof_fn *fn, size_t f, size_t u,
                          size_t v)
{
    uint64_t flow = 0;
    size_t j;
    if (u == g->n)
        return g->execs[v] > g->in_flow[v] ? g->execs[v] - g->in_flow[v] : 0;
    for (j = 0; j < fn->n_jumps; j++)
        if (fn->jumps[j].site_addr == g->addr[u] && fn->jumps[j].target_fn == f &&
            fn->jumps[j].target_addr == g->addr[v])
            flow += fn->jumps[j].taken;
    if (v == u + 1 && g->execs[u] > g->taken_out[u]) {
        /* a fall-through edge exists only where graph_build made one */
        size_t k;
        for (k = g->succ_at[u]; k < g->succ_at[u + 1]; k++)
            if (g->succ[k] == v) {
                uint64_t ft = g->execs[u] - g->taken_out[u];
                /* the branch edge to the next instruction (jcc +0) is
                 * counted above already: the fall-through is the rest */
                flow += ft;
                break;
            }
    }
    return flow;
}

int hpm_loops_find(const struct hpm_profile *p, struct hpm_loops *out, char *err, size_t errlen)
{
    size_t f, i, j, n = 0, cap = 0;
    int ik = hpm_loops_insn_kind(p), k_ret = kind_index(p, "BR_RETURNS"),
        k_ind = kind_index(p, "BR_INDIRECT");
    struct found *found = NULL;
    size_t cap_found = 0, *bodies = NULL, cap_bodies = 0;
    struct graph g;
    size_t kinds = p->n_kinds ? p->n_kinds : 1;

    memset(&g, 0, sizeof g);
    memset(out, 0, sizeof *out);
    out->n_kinds = p->n_kinds;
    out->have_insns = ik >= 0;
    if (!p->has_addr) {
        set_err(err, errlen,
                "the profile has no instruction addresses (positions: line): loops need them "
                "(hpm profile writes them; callgrind needs --dump-instr=yes)");
        return -1;
    }
    if (ik < 0) {
        set_err(err, errlen, "the profile has no instruction count (INSTRUCTIONS or Ir): loops "
                             "need it");
        return -1;
    }
    for (f = 0; f < p->n_fns; f++) {
        const struct hpm_prof_fn *fn = &p->fns[f];
        size_t n_found = 0, n_bodies = 0, e;
        if (fn->n_jumps == 0 || fn->n_costs == 0)
            continue;
        if (graph_build(&g, fn, f, ik, k_ret, k_ind) != 0 || graph_dominators(&g) != 0)
            goto oom;
        /* back edges: to a node that dominates their source */
        for (e = 0; e < g.n_edges; e++) {
            size_t u = g.src[e], h = g.dst[e];
            if (u == g.n || g.rpo_num[u] < 0 || g.rpo_num[h] < 0 || !dominates(&g, h, u))
                continue;
            for (j = 0; j < n_found && found[j].header != h; j++)
                ;
            if (j == n_found) {
                if (n_found == cap_found) {
                    size_t nc = cap_found ? 2 * cap_found : 16;
                    struct found *nf = realloc(found, nc * sizeof *nf);
                    if (!nf)
                        goto oom;
                    found = nf;
                    cap_found = nc;
                }
                memset(&found[n_found], 0, sizeof found[n_found]);
                found[n_found++].header = h;
            }
            found[j].back_taken += edge_flow(&g, fn, f, u, h);
            found[j].n_latches++;
        }
        /* bodies: what reaches a latch without passing the header */
        for (j = 0; j < n_found; j++) {
            size_t h = found[j].header, top = 0, stamp = j + 1;
            found[j].body_at = n_bodies;
            for (e = 0; e < g.n_edges; e++) {
                size_t u = g.src[e];
                if (g.dst[e] != h || u == g.n || g.rpo_num[u] < 0 || !dominates(&g, h, u))
                    continue;
                if (g.mark[u] != stamp) {
                    g.mark[u] = stamp;
                    g.work[top++] = u;
                }
            }
            if (g.mark[h] != stamp) {
                g.mark[h] = stamp;
                g.work[top++] = h;
                /* the header's predecessors are not walked */
            }
            while (top) {
                size_t u = g.work[--top], k;
                if (n_bodies == cap_bodies) {
                    size_t nc = cap_bodies ? 2 * cap_bodies : 256;
                    size_t *nb = realloc(bodies, nc * sizeof *nb);
                    if (!nb)
                        goto oom;
                    bodies = nb;
                    cap_bodies = nc;
                }
                bodies[n_bodies++] = u;
                if (u == h)
                    continue;
                for (k = g.pred_at[u]; k < g.pred_at[u + 1]; k++) {
                    size_t v = g.pred[k];
                    if (v == g.n || g.mark[v] == stamp || g.rpo_num[v] < 0)
                        continue;
                    g.mark[v] = stamp;
                    g.work[top++] = v;
                }
            }
            found[j].n_body = n_bodies - found[j].body_at;
        }
        /* outer loops first: nesting and ownership */
        if (n_found > 1)
            qsort(found, n_found, sizeof *found, cmp_found_size);
        for (j = 0; j < n_found; j++) {
            struct hpm_loop *l;
            const size_t *body = bodies + found[j].body_at;
            size_t k, h = found[j].header;
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 16;
                struct hpm_loop *nl = realloc(out->loops, nc * sizeof *nl);
                if (!nl)
                    goto oom;
                out->loops = nl;
                cap = nc;
            }
            l = &out->loops[n];
            memset(l, 0, sizeof *l);
            l->fn = f;
            l->header = g.addr[h];
            l->lo = l->hi = g.addr[h];
            l->n_insns = found[j].n_body;
            l->parent = g.owner[h];
            l->depth = l->parent >= 0 ? out->loops[l->parent].depth + 1 : 1;
            l->n_latches = found[j].n_latches;
            l->header_execs = g.execs[h];
            l->back_taken = found[j].back_taken;
            l->file = fn->costs[g.cost_lo[h]].file;
            for (k = 0; k < found[j].n_body; k++) {
                size_t u = body[k], c;
                g.owner[u] = (long)n;
                g.mark[u] = (size_t)-1 - n; /* this loop's body, for its calls */
                if (g.addr[u] < l->lo)
                    l->lo = g.addr[u];
                if (g.addr[u] > l->hi)
                    l->hi = g.addr[u];
                for (c = g.cost_lo[u]; c < g.cost_hi[u]; c++) {
                    const struct hpm_prof_cost *cc = &fn->costs[c];
                    if (cc->file != l->file || cc->line == 0)
                        continue;
                    if (l->first_line == 0 || cc->line < l->first_line)
                        l->first_line = cc->line;
                    if (cc->line > l->last_line)
                        l->last_line = cc->line;
                }
            }
            /* entries: what reaches the header from outside the body */
            for (k = g.pred_at[h]; k < g.pred_at[h + 1]; k++) {
                size_t v = g.pred[k], k2;
                for (k2 = g.pred_at[h]; k2 < k && g.pred[k2] != v; k2++)
                    ; /* a jump to the next instruction and the fall-through: once */
                if (k2 == k && (v == g.n || g.mark[v] != (size_t)-1 - n))
                    l->entries += edge_flow(&g, fn, f, v, h);
            }
            n++;
        }
        out->n = n;
        /* values: self to the owner, inclusive to it and its parents */
        if (n_found) {
            /* (a function without loops leaves the values as they are: a
             * realloc to the same or no size may move or free them) */
            size_t first = n - n_found;
            uint64_t *nv = realloc(out->vals, 2 * n * kinds * sizeof *nv);
            if (!nv)
                goto oom;
            out->vals = nv;
            memset(out->vals + 2 * first * kinds, 0, 2 * n_found * kinds * sizeof *nv);
            for (i = 0; i < g.n; i++) {
                long o = g.owner[i];
                size_t c;
                if (o < 0)
                    continue;
                for (c = g.cost_lo[i]; c < g.cost_hi[i]; c++) {
                    const struct hpm_prof_cost *cc = &fn->costs[c];
                    long a;
                    hpm_prof_add_values(out->vals + 2 * (size_t)o * kinds, cc->v, cc->kv, cc->n_kv,
                           p->n_kinds);
                    for (a = o; a >= 0; a = out->loops[a].parent)
                        hpm_prof_add_values(out->vals + (2 * (size_t)a + 1) * kinds, cc->v, cc->kv, cc->n_kv,
                               p->n_kinds);
                }
            }
            for (j = 0; j < fn->n_calls; j++) {
                const struct hpm_prof_call *c = &fn->calls[j];
                long u = node_of(&g, c->site_addr), a;
                if (u < 0)
                    continue;
                for (a = g.owner[u]; a >= 0; a = out->loops[a].parent)
                    hpm_prof_add_values(out->vals + (2 * (size_t)a + 1) * kinds, c->v, c->kv, c->n_kv,
                           p->n_kinds);
            }
        }
        graph_free(&g);
    }
    for (i = 0; i < n; i++) {
        out->loops[i].self = out->vals + 2 * i * kinds;
        out->loops[i].incl = out->loops[i].self + kinds;
    }
    free(found);
    free(bodies);
    return 0;
oom:
    graph_free(&g);
    free(found);
    free(bodies);
    hpm_loops_free(out);
    set_err(err, errlen, "out of memory");
    return -1;
}

void hpm_loops_free(struct hpm_loops *l)
{
    free(l->loops);
    free(l->vals);
    memset(l, 0, sizeof *l);
}

void hpm_loop_name(const struct hpm_profile *p, const struct hpm_loop *l, char *buf, size_t n)
{
    const struct hpm_prof_fn *fn = &p->fns[l->fn];
    const char *file = l->file ? p->strs[l->file] : NULL, *base;
    if (!file || l->first_line == 0) {
        snprintf(buf, n, "%s 0x%llx-0x%llx", p->strs[fn->name], (unsigned long long)l->lo,
                 (unsigned long long)l->hi);
        return;
    }
    base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (l->first_line == l->last_line)
        snprintf(buf, n, "%s %s:%u", p->strs[fn->name], base, l->first_line);
    else
        snprintf(buf, n, "%s %s:%u-%u", p->strs[fn->name], base, l->first_line, l->last_line);
}
