/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the memory samples' fields of src/perfdata (data
 * source, weight, data objects, MMAP times). The input is read two ways:
 *  - as a perf.data file: refused with a message, or read with every
 *    sample's data object index within the file's objects and its data
 *    source decodable;
 *  - as a description of a recording (bytes taken as fields): written with
 *    PERFDATA_MEM, read back, and every field must come back as written.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"

static void read_any(const uint8_t *data, size_t size)
{
    struct perfdata_file pf;
    char err[160];
    size_t i;
    if (perfdata_read(data, size, &pf, err, sizeof err) != 0) {
        if (memchr(err, 0, sizeof err) == NULL || err[0] == 0)
            abort();
        return;
    }
    for (i = 0; i < pf.n_samples; i++) {
        const struct perfdata_sample *s = &pf.samples[i];
        if (s->dobj > pf.n_dobjs)
            abort();
        if (s->dobj && pf.dobjs[s->dobj - 1].kind == PERFDATA_DOBJ_GLOBAL &&
            pf.dobjs[s->dobj - 1].path)
            (void)strlen(pf.dobjs[s->dobj - 1].path);
        if (!perfdata_data_src_level(s->data_src) || !perfdata_data_src_op(s->data_src))
            abort();
        (void)perfdata_data_src_tlb_miss(s->data_src);
    }
    perfdata_free(&pf);
}

/* Takes n bytes of the input as a little number (0 past its end). */
static uint64_t take(const uint8_t **p, size_t *left, size_t n)
{
    uint64_t v = 0;
    size_t i;
    for (i = 0; i < n && *left; i++, (*p)++, (*left)--)
        v |= (uint64_t)**p << (8 * i);
    return v;
}

static void round_trip(const uint8_t *data, size_t size)
{
    struct perfdata_event ev;
    struct perfdata_writer w;
    struct perfdata_file pf;
    struct perfdata_dobj objs[4];
    struct perfdata_sample in[16];
    uint64_t chain[2] = {0x401000, 0x402000};
    char *argv[] = {"prog"}, err[160], paths[4][16];
    const uint8_t *p = data;
    size_t left = size, n_objs, n, i, len;
    unsigned char *buf = NULL;
    FILE *f;
    memset(&ev, 0, sizeof ev);
    snprintf(ev.name, sizeof ev.name, "hpm:LOADS");
    ev.config = 2;
    ev.period = 1 + take(&p, &left, 2);
    n_objs = take(&p, &left, 1) % 5;
    for (i = 0; i < n_objs; i++) {
        memset(&objs[i], 0, sizeof objs[i]);
        objs[i].kind = (uint32_t)(take(&p, &left, 1) % 4);
        objs[i].where = take(&p, &left, 8);
        objs[i].from = take(&p, &left, 8);
        if (objs[i].kind == PERFDATA_DOBJ_GLOBAL) {
            objs[i].start = take(&p, &left, 4);
            objs[i].end = objs[i].start + take(&p, &left, 2);
            snprintf(paths[i], sizeof paths[i], "/lib/o%zu.so", i);
            objs[i].path = paths[i];
        }
    }
    n = take(&p, &left, 1) % 17;
    for (i = 0; i < n; i++) {
        memset(&in[i], 0, sizeof in[i]);
        in[i].ip = take(&p, &left, 8);
        in[i].addr = take(&p, &left, 8);
        in[i].time = take(&p, &left, 8);
        in[i].period = ev.period;
        in[i].pid = in[i].tid = 42;
        in[i].weight = take(&p, &left, 4);
        in[i].data_src = perfdata_data_src((int)take(&p, &left, 1) % 5 - 1,
                                           (int)take(&p, &left, 1) % 5 - 1,
                                           (int)take(&p, &left, 1) & 1);
        in[i].dobj = (uint32_t)(n_objs ? take(&p, &left, 1) % (n_objs + 1) : 0);
        in[i].chain = chain;
        in[i].n_chain = (unsigned)take(&p, &left, 1) % 3;
    }
    f = tmpfile();
    if (!f)
        return;
    if (perfdata_write_begin(&w, f, &ev, 1, 1, argv, 1, PERFDATA_MEM) != 0 ||
        perfdata_write_comm(&w, 42, 42, 0, "prog") != 0 ||
        perfdata_write_mmap(&w, 42, 42, take(&p, &left, 8), 0x400000, 0x1000, 0, "/bin/prog") !=
            0)
        abort();
    for (i = 0; i < n; i++)
        if (perfdata_write_sample(&w, &in[i]) != 0)
            abort();
    perfdata_write_dobjs(&w, objs, n_objs);
    if (perfdata_write_end(&w) != 0)
        abort();
    fseek(f, 0, SEEK_END); /* the header was rewritten last, at the start */
    len = (size_t)ftell(f);
    buf = malloc(len ? len : 1);
    rewind(f);
    if (!buf || fread(buf, 1, len, f) != len)
        abort();
    fclose(f);
    if (perfdata_read(buf, len, &pf, err, sizeof err) != 0) {
        fprintf(stderr, "round trip: %s\n", err);
        abort();
    }
    if (pf.n_samples != n ||
        pf.n_dobjs != n_objs || pf.n_mmaps != 1)
        abort();
    for (i = 0; i < n; i++) {
        const struct perfdata_sample *r = &pf.samples[i];
        if (r->ip != in[i].ip || r->addr != in[i].addr || r->time != in[i].time ||
            r->weight != in[i].weight || r->data_src != in[i].data_src || r->dobj != in[i].dobj)
            abort();
    }
    for (i = 0; i < n_objs; i++) {
        const struct perfdata_dobj *d = &pf.dobjs[i];
        if (d->kind != objs[i].kind || d->where != objs[i].where || d->from != objs[i].from ||
            d->start != objs[i].start || d->end != objs[i].end ||
            (objs[i].path ? !d->path || strcmp(d->path, objs[i].path) : d->path != NULL))
            abort();
    }
    perfdata_free(&pf);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_any(data, size);
    round_trip(data, size);
    return 0;
}
