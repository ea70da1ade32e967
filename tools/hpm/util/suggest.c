/* SPDX-License-Identifier: BSD-3-Clause */
/* suggest.c - the closest name to a mistyped one (suggest.h). */
#include "util/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"

#define SUGGEST_MAX_LEN 63 /* longer words are no slips of the names we hold */

static int same(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

unsigned suggest_distance(const char *a, const char *b)
{
    /* three rows of the dynamic programme: enough for the adjacent swap */
    unsigned rows[3][SUGGEST_MAX_LEN + 1], *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    size_t la = strlen(a), lb = strlen(b), i, j;
    if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
        return ~0u;
    for (j = 0; j <= lb; j++)
        prev[j] = (unsigned)j;
    for (i = 1; i <= la; i++) {
        unsigned *t;
        cur[0] = (unsigned)i;
        for (j = 1; j <= lb; j++) {
            unsigned d = prev[j - 1] + !same(a[i - 1], b[j - 1]);
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
        }
        t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

void suggest_init(struct suggest *s, const char *word)
{
    s->word = word;
    s->best[0] = 0;
    s->best_dist = ~0u;
}

void suggest_offer(struct suggest *s, const char *candidate)
{
    unsigned d = suggest_distance(s->word, candidate);
    size_t at = strlen(s->best);
    if (d < s->best_dist && strlen(candidate) < sizeof s->best) {
        s->best_dist = d;
        snprintf(s->best, sizeof s->best, "%s", candidate);
    } else if (d == s->best_dist && d != ~0u && at + 4 + strlen(candidate) < sizeof s->best) {
        /* a tie: both are as likely ("bgl or bgp" for "bgq") */
        snprintf(s->best + at, sizeof s->best - at, " or %s", candidate);
    }
}

const char *suggest_result(const struct suggest *s)
{
    /* an option's dashes say nothing about how close it is */
    size_t n = strlen(s->word + strspn(s->word, "-"));
    unsigned allowed = n <= 5 ? 1 : (unsigned)(1 + (n - 2) / 4);
    if (allowed > 3)
        allowed = 3;
    if (!s->best[0] || s->best_dist > allowed || strcmp(s->best, s->word) == 0)
        return NULL;
    return s->best;
}

/* The closest kind to kind[0..len) into s (suggest_result reads it). */
static void closest_kind(struct suggest *s, char *word, const char *kind, size_t len)
{
    const struct hpm_cat_kind_info *k;
    unsigned i;
    snprintf(word, SUGGEST_MAX_LEN + 1, "%.*s", (int)len, kind);
    suggest_init(s, word);
    for (i = 0; len <= SUGGEST_MAX_LEN && (k = hpm_catalog_kind(i)) != NULL; i++)
        suggest_offer(s, k->name);
}

static void closest_mode(struct suggest *s, const char *mode)
{
    const char *m;
    unsigned i;
    suggest_init(s, mode);
    for (i = 0; (m = hpm_catalog_mode_name(i)) != NULL; i++)
        suggest_offer(s, m);
}

int suggest_event(const char *name, char *out, size_t outlen)
{
    char word[SUGGEST_MAX_LEN + 1];
    struct suggest ks, ms;
    const char *rest, *colon, *kind = NULL, *mode = NULL;
    int core, has_core = hpm_catalog_split_core(name, &core, &rest);
    size_t klen;
    if (outlen)
        out[0] = 0;
    colon = strchr(rest, ':');
    klen = colon ? (size_t)(colon - rest) : strlen(rest);
    if (hpm_catalog_kind_by_name(rest, klen) < 0) {
        closest_kind(&ks, word, rest, klen);
        if (!(kind = suggest_result(&ks)))
            return -1; /* the kind is no slip: the name as a whole is unknown */
    }
    if (colon && hpm_catalog_mode_by_name(colon + 1, strlen(colon + 1)) < 0) {
        closest_mode(&ms, colon + 1);
        if (!(mode = suggest_result(&ms)))
            return -1;
    }
    if (!kind && !mode)
        return -1;
    if (mode && strstr(mode, " or "))
        mode = NULL; /* the mode is ambiguous: keep the one written */
    if (!kind)
        kind = "";
    do { /* each kind of a tie, as a whole name: "A:mode or B:mode" */
        size_t at = strlen(out), n = strcspn(kind, " ");
        if (!*kind)
            n = klen;
        snprintf(out + at, outlen - at, "%s%.*s%.*s%s%s", at ? " or " : "",
                 has_core ? (int)(rest - name) : 0, name, (int)n, *kind ? kind : rest,
                 colon ? ":" : "", colon ? (mode ? mode : colon + 1) : "");
        kind += n;
        if (strncmp(kind, " or ", 4) == 0)
            kind += 4;
    } while (*kind);
    return 0;
}
