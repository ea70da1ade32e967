/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loops.c - loops as cost centers (loops.h), in time and memory near
 * linear in a function's graph however its loops nest: the dominators by
 * Lengauer and Tarjan's algorithm, the bodies found innermost loop first,
 * each found loop standing for its whole body when an outer one reaches
 * it (a union-find: every instruction is walked once), and every
 * inclusive figure summed up the loop tree once.
 */
#include "loops.h"
#include "profile_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

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

/* An edge and its flow: a taken branch's count plus the fall-through's. */
struct edge {
    size_t src, dst;
    uint64_t flow;
};

/* One function's graph: nodes 0..n-1 its executed instructions by
 * address, node n the entry; one edge per pair of nodes, sorted by source
 * (a node's successors are edges[succ_at[u], succ_at[u + 1])), and its
 * predecessors' edges by index. */
struct graph {
    size_t n;
    uint64_t *addr, *execs, *taken_out, *in_flow;
    size_t *cost_lo, *cost_hi; /* the node's costs: fn->costs[lo, hi) */
    struct edge *edges;
    size_t n_edges;
    size_t *succ_at, *pred_at, *pred;
    size_t *idom;     /* NONE: not reached from the entry */
    size_t *pre, *post; /* dominator tree intervals */
    size_t *dom_post; /* the reached nodes in the dominator tree's post-order */
    size_t n_reached;
};

static void graph_free(struct graph *g)
{
    free(g->addr);
    free(g->execs);
    free(g->taken_out);
    free(g->in_flow);
    free(g->cost_lo);
    free(g->cost_hi);
    free(g->edges);
    free(g->succ_at);
    free(g->pred_at);
    free(g->pred);
    free(g->idom);
    free(g->pre);
    free(g->post);
    free(g->dom_post);
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

static int reached(const struct graph *g, size_t u)
{
    return g->idom[u] != NONE;
}

static int dominates(const struct graph *g, size_t h, size_t u)
{
    return g->pre[h] <= g->pre[u] && g->post[u] <= g->post[h];
}

/* u -> h is a back edge: u is reached, and h dominates it. */
static int is_latch(const struct graph *g, size_t h, size_t u)
{
    return u != g->n && reached(g, u) && dominates(g, h, u);
}

/* (edges has room for every edge graph_edges adds: allocated for them) */
static void add_edge(struct graph *g, size_t s, size_t d, uint64_t flow)
{
    g->edges[g->n_edges].src = s;
    g->edges[g->n_edges].dst = d;
    g->edges[g->n_edges].flow = flow;
    g->n_edges++;
}

static int cmp_edge(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* The nodes of fn: its instructions with an address, their executions,
 * and which have no fall-through (a return, an indirect jump). */
static int graph_nodes(struct graph *g, const struct hpm_prof_fn *fn, int ik, int k_ret,
                       int k_ind, unsigned char *noft)
{
    size_t j, n = 0, N = fn->n_costs + 1;
    g->addr = calloc(N, sizeof *g->addr);
    g->execs = calloc(N, sizeof *g->execs);
    g->taken_out = calloc(N, sizeof *g->taken_out);
    g->in_flow = calloc(N, sizeof *g->in_flow);
    g->cost_lo = calloc(N, sizeof *g->cost_lo);
    g->cost_hi = calloc(N, sizeof *g->cost_hi);
    if (!g->addr || !g->execs || !g->taken_out || !g->in_flow || !g->cost_lo || !g->cost_hi)
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
    return 0;
}

/* The edges: taken branches, fall-throughs, the entry's; then one per
 * pair (a branch to the next instruction and the fall-through are one
 * edge, their flows summed). */
static int graph_edges(struct graph *g, const struct hpm_prof_fn *fn, size_t f,
                       const unsigned char *noft)
{
    size_t i, j, o, n = g->n;
    int any = 0;
    /* at most a jump's, a fall-through's and the entry's per instruction */
    g->edges = malloc((fn->n_jumps + 2 * n + 1) * sizeof *g->edges);
    if (!g->edges)
        return -1;
    for (j = 0; j < fn->n_jumps; j++) {
        const struct hpm_prof_jump *jp = &fn->jumps[j];
        long s = node_of(g, jp->site_addr), d;
        if (s < 0 || jp->taken == 0)
            continue;
        g->taken_out[s] += jp->taken;
        if (jp->target_fn != f || (d = node_of(g, jp->target_addr)) < 0)
            continue; /* left the function */
        g->in_flow[d] += jp->taken;
        add_edge(g, (size_t)s, (size_t)d, jp->taken);
    }
    for (i = 0; i + 1 < n; i++) {
        uint64_t ft = g->execs[i] > g->taken_out[i] ? g->execs[i] - g->taken_out[i] : 0;
        if (noft[i] || ft == 0)
            continue;
        g->in_flow[i + 1] += ft;
        add_edge(g, i, i + 1, ft);
    }
    /* the entry: to every instruction reached from outside, with what its
     * executions exceed its in-function predecessors' flow */
    for (i = 0; i < n; i++)
        if (g->execs[i] > g->in_flow[i]) {
            add_edge(g, n, i, g->execs[i] - g->in_flow[i]);
            any = 1;
        }
    if (!any && n)
        add_edge(g, n, 0, 0);
    if (g->n_edges > 1)
        qsort(g->edges, g->n_edges, sizeof *g->edges, cmp_edge);
    for (j = 0, o = 0; j < g->n_edges; j++) {
        if (o > 0 && cmp_edge(&g->edges[o - 1], &g->edges[j]) == 0)
            g->edges[o - 1].flow += g->edges[j].flow;
        else
            g->edges[o++] = g->edges[j];
    }
    g->n_edges = o;
    return 0;
}

/* Successors (the sorted edges) and predecessors (edge indexes) in CSR. */
static int graph_csr(struct graph *g)
{
    size_t i, j, N = g->n + 1, *fill;
    g->succ_at = calloc(N + 1, sizeof *g->succ_at);
    g->pred_at = calloc(N + 1, sizeof *g->pred_at);
    g->pred = malloc((g->n_edges + 1) * sizeof *g->pred);
    fill = calloc(N, sizeof *fill);
    if (!g->succ_at || !g->pred_at || !g->pred || !fill) {
        free(fill);
        return -1;
    }
    for (j = 0; j < g->n_edges; j++) {
        g->succ_at[g->edges[j].src + 1]++;
        g->pred_at[g->edges[j].dst + 1]++;
    }
    for (i = 0; i < N; i++) {
        g->succ_at[i + 1] += g->succ_at[i];
        g->pred_at[i + 1] += g->pred_at[i];
    }
    for (j = 0; j < g->n_edges; j++) {
        size_t d = g->edges[j].dst;
        g->pred[g->pred_at[d] + fill[d]++] = j;
    }
    free(fill);
    return 0;
}

static int graph_build(struct graph *g, const struct hpm_prof_fn *fn, size_t f, int ik, int k_ret,
                       int k_ind)
{
    unsigned char *noft = calloc(fn->n_costs + 1, 1);
    int rc;
    memset(g, 0, sizeof *g);
    rc = !noft || graph_nodes(g, fn, ik, k_ret, k_ind, noft) != 0 ||
                 graph_edges(g, fn, f, noft) != 0 || graph_csr(g) != 0
             ? -1
             : 0;
    free(noft);
    return rc;
}

/* Lengauer and Tarjan's working arrays, by node; semi and the numbers are
 * depth-first preorder numbers. */
struct lt {
    size_t *dfn, *vertex, *parent, *semi, *label, *anc, *bucket, *next, *stack;
};

/* The node of the least semidominator on the path from v up to the root
 * of its tree in the forest linked so far, compressing the path (walked
 * with a stack: a path may be as long as the function). */
static size_t lt_eval(struct lt *t, size_t v)
{
    size_t top = 0, x = v;
    if (t->anc[v] == NONE)
        return v;
    while (t->anc[t->anc[x]] != NONE) {
        t->stack[top++] = x;
        x = t->anc[x];
    }
    while (top) {
        size_t y = t->stack[--top], a = t->anc[y];
        if (t->semi[t->label[a]] < t->semi[t->label[y]])
            t->label[y] = t->label[a];
        t->anc[y] = t->anc[a];
    }
    return t->label[v];
}

/* Depth-first preorder from the entry: t->dfn, t->vertex, t->parent;
 * returns how many nodes it reached. */
static size_t lt_dfs(const struct graph *g, struct lt *t)
{
    size_t n = g->n, N = n + 1, i, top = 0, count = 0, *at = t->label; /* a cursor per node */
    for (i = 0; i < N; i++)
        t->dfn[i] = NONE;
    t->dfn[n] = count;
    t->vertex[count++] = n;
    at[n] = g->succ_at[n];
    t->stack[top++] = n;
    while (top) {
        size_t u = t->stack[top - 1];
        if (at[u] < g->succ_at[u + 1]) {
            size_t v = g->edges[at[u]++].dst;
            if (t->dfn[v] == NONE) {
                t->dfn[v] = count;
                t->vertex[count++] = v;
                t->parent[v] = u;
                at[v] = g->succ_at[v];
                t->stack[top++] = v;
            }
        } else {
            top--;
        }
    }
    return count;
}

/* The immediate dominators (Lengauer and Tarjan, with path compression:
 * O(m log n)); g->idom[u] NONE for a node the entry does not reach. */
static int lt_idom(struct graph *g)
{
    size_t N = g->n + 1, i, k, count;
    struct lt t;
    size_t **arrays[] = {&t.dfn, &t.vertex, &t.parent, &t.semi, &t.label,
                         &t.anc, &t.bucket, &t.next,   &t.stack};
    int rc = -1;
    memset(&t, 0, sizeof t);
    g->idom = malloc(N * sizeof *g->idom);
    for (i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        if (!(*arrays[i] = malloc(N * sizeof **arrays[i])))
            goto out;
    if (!g->idom)
        goto out;
    count = lt_dfs(g, &t);
    for (i = 0; i < N; i++) {
        g->idom[i] = NONE;
        t.semi[i] = t.dfn[i];
        t.label[i] = i;
        t.anc[i] = NONE;
        t.bucket[i] = NONE;
    }
    for (i = count - 1; i >= 1; i--) {
        size_t w = t.vertex[i], pw = t.parent[w], s, v;
        for (k = g->pred_at[w]; k < g->pred_at[w + 1]; k++) {
            size_t u = g->edges[g->pred[k]].src;
            if (t.dfn[u] == NONE)
                continue;
            u = lt_eval(&t, u);
            if (t.semi[u] < t.semi[w])
                t.semi[w] = t.semi[u];
        }
        s = t.vertex[t.semi[w]];
        t.next[w] = t.bucket[s];
        t.bucket[s] = w;
        t.anc[w] = pw;
        for (v = t.bucket[pw]; v != NONE; v = t.next[v]) {
            size_t u = lt_eval(&t, v);
            g->idom[v] = t.semi[u] < t.semi[v] ? u : pw;
        }
        t.bucket[pw] = NONE;
    }
    for (i = 1; i < count; i++) {
        size_t w = t.vertex[i];
        if (g->idom[w] != t.vertex[t.semi[w]])
            g->idom[w] = g->idom[g->idom[w]];
    }
    g->idom[g->n] = g->n;
    g->n_reached = count;
    rc = 0;
out:
    for (i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        free(*arrays[i]);
    return rc;
}

/* The dominator tree's pre- and post-order numbers, and its post-order
 * (a header before the headers that dominate it). */
static int dom_tree(struct graph *g)
{
    size_t N = g->n + 1, i, u, top = 0, clock = 0, n_post = 0;
    size_t *kid_at = calloc(N + 1, sizeof *kid_at), *kid = malloc(N * sizeof *kid);
    size_t *at = malloc(N * sizeof *at), *stack = malloc(N * sizeof *stack);
    int rc = -1;
    g->pre = calloc(N, sizeof *g->pre);
    g->post = calloc(N, sizeof *g->post);
    g->dom_post = malloc(N * sizeof *g->dom_post);
    if (!kid_at || !kid || !at || !stack || !g->pre || !g->post || !g->dom_post)
        goto out;
    for (u = 0; u < g->n; u++)
        if (reached(g, u))
            kid_at[g->idom[u] + 1]++;
    for (i = 0; i < N; i++)
        kid_at[i + 1] += kid_at[i];
    memcpy(at, kid_at, N * sizeof *at);
    for (u = 0; u < g->n; u++)
        if (reached(g, u))
            kid[at[g->idom[u]]++] = u;
    memcpy(at, kid_at, N * sizeof *at);
    stack[top++] = g->n;
    g->pre[g->n] = clock++;
    while (top) {
        u = stack[top - 1];
        if (at[u] < kid_at[u + 1]) {
            size_t v = kid[at[u]++];
            g->pre[v] = clock++;
            stack[top++] = v;
        } else {
            g->post[u] = clock++;
            g->dom_post[n_post++] = u;
            top--;
        }
    }
    rc = 0;
out:
    free(kid_at);
    free(kid);
    free(at);
    free(stack);
    return rc;
}

/* A loop of one function while it is found. */
struct floop {
    size_t header;
    size_t parent;   /* NONE: outermost */
    size_t uf;       /* toward the outermost loop found so far that holds it */
    size_t n_self;   /* instructions no inner loop holds */
    size_t n_body;   /* all of its body's */
    size_t n_latches;
    uint64_t back_taken;
    size_t rank;     /* its place among the function's loops, outer first */
};

static size_t uf_root(struct floop *fl, size_t x)
{
    size_t r = x, y;
    while (fl[r].uf != r)
        r = fl[r].uf;
    while (fl[x].uf != r) {
        y = fl[x].uf;
        fl[x].uf = r;
        x = y;
    }
    return r;
}

/* The function's loops, found innermost first (the dominator tree's
 * post-order puts an inner header before an outer one): a loop's body is
 * what reaches a latch backwards without passing the header; a node of an
 * inner loop found before stands for that loop's whole body, whose header's
 * predecessors outside it are walked next. loop_of: each node's innermost
 * loop (NONE). */
struct finder {
    struct floop *fl; /* room for every header */
    size_t n;
    size_t *loop_of, *mark, *stack;
};

static void push_pred(const struct graph *g, struct finder *fd, size_t v, size_t stamp,
                      size_t *top)
{
    if (v == g->n || !reached(g, v) || fd->mark[v] == stamp)
        return;
    fd->mark[v] = stamp;
    fd->stack[(*top)++] = v;
}

static void new_loop(const struct graph *g, struct finder *fd, size_t h)
{
    size_t k, L = fd->n, top = 0, stamp = L + 1;
    struct floop *l = &fd->fl[fd->n++];
    memset(l, 0, sizeof *l);
    l->header = h;
    l->parent = NONE;
    l->uf = L;
    fd->loop_of[h] = L;
    fd->mark[h] = stamp;
    for (k = g->pred_at[h]; k < g->pred_at[h + 1]; k++) {
        const struct edge *e = &g->edges[g->pred[k]];
        if (!is_latch(g, h, e->src))
            continue;
        l->n_latches++;
        l->back_taken += e->flow;
        push_pred(g, fd, e->src, stamp, &top);
    }
    while (top) {
        size_t u = fd->stack[--top], sub, hs;
        if (fd->loop_of[u] == NONE) {
            fd->loop_of[u] = L;
            for (k = g->pred_at[u]; k < g->pred_at[u + 1]; k++)
                push_pred(g, fd, g->edges[g->pred[k]].src, stamp, &top);
            continue;
        }
        sub = uf_root(fd->fl, fd->loop_of[u]);
        if (sub == L)
            continue;
        fd->fl[sub].parent = L;
        fd->fl[sub].uf = L;
        hs = fd->fl[sub].header;
        for (k = g->pred_at[hs]; k < g->pred_at[hs + 1]; k++) {
            size_t v = g->edges[g->pred[k]].src;
            if (!is_latch(g, hs, v))
                push_pred(g, fd, v, stamp, &top);
        }
    }
}

static int has_latch(const struct graph *g, size_t h)
{
    size_t k;
    for (k = g->pred_at[h]; k < g->pred_at[h + 1]; k++)
        if (is_latch(g, h, g->edges[g->pred[k]].src))
            return 1;
    return 0;
}

static int find_loops(const struct graph *g, struct finder *fd)
{
    size_t i, N = g->n + 1, headers = 0;
    memset(fd, 0, sizeof *fd);
    for (i = 0; i < g->n; i++)
        headers += reached(g, i) && has_latch(g, i);
    fd->fl = malloc((headers + 1) * sizeof *fd->fl);
    fd->loop_of = malloc(N * sizeof *fd->loop_of);
    fd->mark = calloc(N, sizeof *fd->mark);
    fd->stack = malloc(N * sizeof *fd->stack);
    if (!fd->fl || !fd->loop_of || !fd->mark || !fd->stack)
        return -1;
    for (i = 0; i < N; i++)
        fd->loop_of[i] = NONE;
    for (i = 0; i < g->n_reached; i++) {
        size_t h = g->dom_post[i];
        if (h != g->n && has_latch(g, h))
            new_loop(g, fd, h);
    }
    for (i = 0; i < g->n; i++)
        if (fd->loop_of[i] != NONE)
            fd->fl[fd->loop_of[i]].n_self++;
    /* inner loops were found first: each adds its whole body to its parent */
    for (i = 0; i < fd->n; i++) {
        fd->fl[i].n_body += fd->fl[i].n_self;
        if (fd->fl[i].parent != NONE)
            fd->fl[fd->fl[i].parent].n_body += fd->fl[i].n_body;
    }
    return 0;
}

static void finder_free(struct finder *fd)
{
    free(fd->fl);
    free(fd->loop_of);
    free(fd->mark);
    free(fd->stack);
    memset(fd, 0, sizeof *fd);
}

/* Outer loops first: larger bodies first (a loop's body is larger than
 * any it holds), then by header. */
struct rank_key {
    size_t n_body, header, loop;
};

static int cmp_rank(const void *a, const void *b)
{
    const struct rank_key *x = a, *y = b;
    if (x->n_body != y->n_body)
        return x->n_body > y->n_body ? -1 : 1;
    return x->header < y->header ? -1 : x->header > y->header;
}

/* The work of placing one function's loops in out: its graph, its
 * loops, and by rank (out's index less base): the nodes each loop holds
 * itself and the loops nested in it, in CSR. */
struct placing {
    const struct hpm_profile *p;
    const struct hpm_prof_fn *fn;
    const struct graph *g;
    struct finder *fd;
    struct hpm_loops *out;
    size_t base, n, *by_rank;
    size_t *self_at, *self, *kid_at, *kid;
    size_t *file_top; /* by string id: the innermost loop on the walk's path in that file */
};

/* Nodes and nested loops by rank, in CSR. */
static int group_by_rank(struct placing *pl)
{
    const struct finder *fd = pl->fd;
    size_t i, r, n = pl->n, *fill = calloc(n + 1, sizeof *fill);
    pl->self_at = calloc(n + 1, sizeof *pl->self_at);
    pl->kid_at = calloc(n + 1, sizeof *pl->kid_at);
    pl->self = malloc((pl->g->n + 1) * sizeof *pl->self);
    pl->kid = malloc((n + 1) * sizeof *pl->kid);
    if (!fill || !pl->self_at || !pl->kid_at || !pl->self || !pl->kid) {
        free(fill);
        return -1;
    }
    for (r = 0; r < n; r++) {
        const struct floop *l = &fd->fl[pl->by_rank[r]];
        pl->self_at[r + 1] = l->n_self;
        if (l->parent != NONE)
            pl->kid_at[fd->fl[l->parent].rank + 1]++;
    }
    for (r = 0; r < n; r++) {
        pl->self_at[r + 1] += pl->self_at[r];
        pl->kid_at[r + 1] += pl->kid_at[r];
    }
    for (i = 0; i < pl->g->n; i++)
        if (fd->loop_of[i] != NONE) {
            r = fd->fl[fd->loop_of[i]].rank;
            pl->self[pl->self_at[r] + fill[r]++] = i;
        }
    memset(fill, 0, (n + 1) * sizeof *fill);
    for (r = 0; r < n; r++) {
        const struct floop *l = &fd->fl[pl->by_rank[r]];
        if (l->parent != NONE) {
            size_t pr = fd->fl[l->parent].rank;
            pl->kid[pl->kid_at[pr] + fill[pr]++] = r;
        }
    }
    free(fill);
    return 0;
}

/* A loop's own figures: header, counts, entries (what reaches the header
 * from outside the body: the predecessors that are not latches). */
static void place_loop(struct placing *pl, size_t r)
{
    const struct graph *g = pl->g;
    const struct floop *f = &pl->fd->fl[pl->by_rank[r]];
    struct hpm_loop *l = &pl->out->loops[pl->base + r];
    size_t h = f->header, k;
    memset(l, 0, sizeof *l);
    l->fn = (size_t)(pl->fn - pl->p->fns);
    l->header = l->lo = l->hi = g->addr[h];
    l->n_insns = f->n_body;
    l->parent = f->parent == NONE ? -1 : (long)(pl->base + pl->fd->fl[f->parent].rank);
    l->depth = l->parent >= 0 ? pl->out->loops[l->parent].depth + 1 : 1;
    l->n_latches = f->n_latches;
    l->header_execs = g->execs[h];
    l->back_taken = f->back_taken;
    l->file = pl->fn->costs[g->cost_lo[h]].file;
    for (k = g->pred_at[h]; k < g->pred_at[h + 1]; k++) {
        const struct edge *e = &g->edges[g->pred[k]];
        if (!is_latch(g, h, e->src))
            l->entries += e->flow;
    }
}

static void widen_lines(struct hpm_loop *l, unsigned first, unsigned last)
{
    if (first && (l->first_line == 0 || first < l->first_line))
        l->first_line = first;
    if (last > l->last_line)
        l->last_line = last;
}

/* Entering loop r on the walk down the loop tree: it is its file's
 * innermost loop on the path; each line of its own instructions goes to
 * the innermost loop on the path in that line's file. */
static void enter_loop(struct placing *pl, size_t r, size_t *saved)
{
    struct hpm_loop *l = &pl->out->loops[pl->base + r];
    size_t i, c;
    saved[r] = pl->file_top[l->file];
    pl->file_top[l->file] = r;
    for (i = pl->self_at[r]; i < pl->self_at[r + 1]; i++) {
        size_t u = pl->self[i];
        if (pl->g->addr[u] < l->lo)
            l->lo = pl->g->addr[u];
        if (pl->g->addr[u] > l->hi)
            l->hi = pl->g->addr[u];
        for (c = pl->g->cost_lo[u]; c < pl->g->cost_hi[u]; c++) {
            const struct hpm_prof_cost *cc = &pl->fn->costs[c];
            size_t a = pl->file_top[cc->file];
            if (cc->line && a != NONE)
                widen_lines(&pl->out->loops[pl->base + a], cc->line, cc->line);
        }
    }
}

/* Leaving it: its lines go to the next loop up in its file, its
 * addresses to its parent. */
static void leave_loop(struct placing *pl, size_t r, const size_t *saved)
{
    struct hpm_loop *l = &pl->out->loops[pl->base + r];
    pl->file_top[l->file] = saved[r];
    if (saved[r] != NONE)
        widen_lines(&pl->out->loops[pl->base + saved[r]], l->first_line, l->last_line);
    if (l->parent >= 0) {
        struct hpm_loop *pa = &pl->out->loops[l->parent];
        if (l->lo < pa->lo)
            pa->lo = l->lo;
        if (l->hi > pa->hi)
            pa->hi = l->hi;
    }
}

/* Each loop's address range and its lines in its header's file, over its
 * whole body: one walk down the loop tree. */
static int place_ranges(struct placing *pl)
{
    size_t n = pl->n, r, top = 0;
    size_t *saved = malloc((n + 1) * sizeof *saved), *at = malloc((n + 1) * sizeof *at),
           *stack = malloc((n + 1) * sizeof *stack);
    if (!saved || !at || !stack) {
        free(saved);
        free(at);
        free(stack);
        return -1;
    }
    for (r = 0; r < n; r++) {
        if (pl->out->loops[pl->base + r].parent >= 0)
            continue;
        enter_loop(pl, r, saved);
        at[r] = pl->kid_at[r];
        stack[top++] = r;
        while (top) {
            size_t u = stack[top - 1];
            if (at[u] < pl->kid_at[u + 1]) {
                size_t v = pl->kid[at[u]++];
                enter_loop(pl, v, saved);
                at[v] = pl->kid_at[v];
                stack[top++] = v;
            } else {
                leave_loop(pl, u, saved);
                top--;
            }
        }
    }
    free(saved);
    free(at);
    free(stack);
    return 0;
}

/* Values: self to the innermost loop, the calls made from it to its
 * inclusive values, then each loop's inclusive values (its self values
 * added) to its parent's, inner loops first. */
static void place_values(struct placing *pl, size_t kinds)
{
    const struct hpm_profile *p = pl->p;
    const struct graph *g = pl->g;
    uint64_t *vals = pl->out->vals;
    size_t i, r, c, k;
    for (i = 0; i < g->n; i++) {
        if (pl->fd->loop_of[i] == NONE)
            continue;
        r = pl->base + pl->fd->fl[pl->fd->loop_of[i]].rank;
        for (c = g->cost_lo[i]; c < g->cost_hi[i]; c++) {
            const struct hpm_prof_cost *cc = &pl->fn->costs[c];
            hpm_prof_add_values(vals + 2 * r * kinds, cc->v, cc->kv, cc->n_kv, p->n_kinds);
        }
    }
    for (c = 0; c < pl->fn->n_calls; c++) {
        const struct hpm_prof_call *call = &pl->fn->calls[c];
        long u = node_of(g, call->site_addr);
        if (u < 0 || pl->fd->loop_of[u] == NONE)
            continue;
        r = pl->base + pl->fd->fl[pl->fd->loop_of[u]].rank;
        hpm_prof_add_values(vals + (2 * r + 1) * kinds, call->v, call->kv, call->n_kv,
                            p->n_kinds);
    }
    for (r = pl->base + pl->n; r-- > pl->base;) {
        uint64_t *self = vals + 2 * r * kinds, *incl = self + kinds;
        long pa = pl->out->loops[r].parent;
        for (k = 0; k < kinds; k++)
            incl[k] += self[k];
        if (pa >= 0)
            for (k = 0; k < kinds; k++)
                vals[(2 * (size_t)pa + 1) * kinds + k] += incl[k];
    }
}

/* Appends the loops fd found in function fn to out, outer loops first. */
static int place_loops(struct placing *pl, size_t *cap, size_t kinds)
{
    struct hpm_loops *out = pl->out;
    size_t r, n = pl->n = pl->fd->n;
    uint64_t *nv;
    int rc = -1;
    pl->base = out->n;
    if (out->n + n > *cap) {
        size_t nc = *cap ? *cap : 16;
        struct hpm_loop *nl;
        while (nc < out->n + n)
            nc *= 2;
        nl = realloc(out->loops, nc * sizeof *nl);
        if (!nl)
            return -1;
        out->loops = nl;
        *cap = nc;
    }
    nv = realloc(out->vals, 2 * (out->n + n) * kinds * sizeof *nv);
    if (!nv)
        return -1;
    out->vals = nv;
    memset(out->vals + 2 * pl->base * kinds, 0, 2 * n * kinds * sizeof *nv);
    {
        struct rank_key *key = malloc(n * sizeof *key);
        pl->by_rank = malloc(n * sizeof *pl->by_rank);
        if (!key || !pl->by_rank) {
            free(key);
            goto out;
        }
        for (r = 0; r < n; r++) {
            key[r].n_body = pl->fd->fl[r].n_body;
            key[r].header = pl->fd->fl[r].header;
            key[r].loop = r;
        }
        qsort(key, n, sizeof *key, cmp_rank);
        for (r = 0; r < n; r++) {
            pl->by_rank[r] = key[r].loop;
            pl->fd->fl[key[r].loop].rank = r;
        }
        free(key);
    }
    if (group_by_rank(pl) != 0)
        goto out;
    for (r = 0; r < n; r++)
        place_loop(pl, r);
    if (place_ranges(pl) != 0)
        goto out;
    out->n += n;
    place_values(pl, kinds);
    rc = 0;
out:
    free(pl->by_rank);
    free(pl->self_at);
    free(pl->self);
    free(pl->kid_at);
    free(pl->kid);
    return rc;
}

int hpm_loops_find(const struct hpm_profile *p, struct hpm_loops *out, char *err, size_t errlen)
{
    size_t f, i, cap = 0, *file_top = NULL;
    int ik = hpm_loops_insn_kind(p), k_ret = kind_index(p, "BR_RETURNS"),
        k_ind = kind_index(p, "BR_INDIRECT");
    struct graph g;
    struct finder fd;
    size_t kinds = p->n_kinds ? p->n_kinds : 1;

    memset(&g, 0, sizeof g);
    memset(&fd, 0, sizeof fd);
    memset(out, 0, sizeof *out);
    out->n_kinds = p->n_kinds;
    out->have_insns = ik >= 0;
    if (!p->has_addr) {
        hpm__set_err(err, errlen,
                     "the profile has no instruction addresses (positions: line): loops need them "
                     "(hpm profile writes them; callgrind needs --dump-instr=yes)");
        return -1;
    }
    if (ik < 0) {
        hpm__set_err(err, errlen,
                     "the profile has no instruction count (INSTRUCTIONS or Ir): loops need it");
        return -1;
    }
    file_top = malloc((p->n_strs + 1) * sizeof *file_top);
    if (!file_top)
        goto oom;
    for (i = 0; i <= p->n_strs; i++)
        file_top[i] = NONE;
    for (f = 0; f < p->n_fns; f++) {
        const struct hpm_prof_fn *fn = &p->fns[f];
        struct placing pl;
        if (fn->n_jumps == 0 || fn->n_costs == 0)
            continue;
        if (graph_build(&g, fn, f, ik, k_ret, k_ind) != 0 || lt_idom(&g) != 0 ||
            dom_tree(&g) != 0 || find_loops(&g, &fd) != 0)
            goto oom;
        memset(&pl, 0, sizeof pl);
        pl.p = p;
        pl.fn = fn;
        pl.g = &g;
        pl.fd = &fd;
        pl.out = out;
        pl.file_top = file_top;
        if (fd.n && place_loops(&pl, &cap, kinds) != 0)
            goto oom;
        finder_free(&fd);
        graph_free(&g);
    }
    for (i = 0; i < out->n; i++) {
        out->loops[i].self = out->vals + 2 * i * kinds;
        out->loops[i].incl = out->loops[i].self + kinds;
    }
    free(file_top);
    return 0;
oom:
    finder_free(&fd);
    graph_free(&g);
    free(file_top);
    hpm_loops_free(out);
    hpm__set_err(err, errlen, "out of memory");
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
