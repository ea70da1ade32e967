/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * encode_api.c - libhpm's face of the encoder (hpm_encode_events,
 * hpm_decode_counter in hpm/hpm.h; src/encode does the work).
 */
#define _GNU_SOURCE /* hpm_internal.h: siginfo_t, sigset_t */
#include <string.h>

#include "hpm/hpm.h"

#include "catalog.h"
#include "encode.h"
#include "hpm_internal.h"
#include "machine.h"

/* The machine's counter unit: a file's [counters], or BG/P's (NULL). */
static int unit_of(const char *machine_file, struct hpm_machine *m)
{
    char err[256];
    if (!machine_file) {
        hpm_machine_defaults(m);
        return HPM_OK;
    }
    return hpm_machine_load(m, machine_file, err, sizeof err) == 0 ? HPM_OK : HPM_EINVAL;
}

HPM_EXPORT int hpm_encode_events(const char *machine_file, const char *const *names, int n,
                                 struct hpm_encoded_event *out, int *n_passes)
{
    struct hpm_machine m;
    unsigned codes[HPM_ENCODE_MAX_EVENTS];
    int pass_of[HPM_ENCODE_MAX_EVENTS], i, rc, passes;
    struct hpm_cu_codes mc;
    struct hpm_cu u;
    struct hpm_encoding e;
    if (!names || !out || n < 0 || n >= HPM_ENCODE_MAX_EVENTS)
        return HPM_EINVAL;
    if ((rc = unit_of(machine_file, &m)) != HPM_OK)
        return rc;
    for (i = 0; i < n; i++) {
        int c[2];
        memset(&out[i], 0xff, sizeof out[i]); /* -1 everywhere */
        /* one event, one code: PU<n>_KIND or a node kind */
        if (!names[i] || hpm_catalog_lookup(names[i], HPM_CAT_MAX_CORES, ~0u, c, 2, NULL) != 1)
            return HPM_ENOEVENT;
        out[i].code = c[0];
        codes[i] = (unsigned)c[0];
    }
    mc.counters = m.counter_unit.counters;
    mc.group = m.counter_unit.group;
    mc.codes = codes;
    mc.n_codes = (unsigned)n;
    mc.units = m.counter_unit.units;
    if (!mc.units)
        mc.units = hpm_cu_units_needed(codes, (unsigned)n, mc.counters);
    hpm_cu_from_codes(&u, &mc);
    if (hpm_encode(&u, (unsigned)n, &e) != 0)
        return HPM_EINVAL;
    for (i = 0; i < n; i++)
        if (e.counter[i] >= 0) {
            out[i].unit = e.counter[i] / (int)mc.counters;
            out[i].counter = e.counter[i] % (int)mc.counters;
            out[i].block = e.mode[(unsigned)e.counter[i] / mc.group];
        }
    passes = hpm_encode_passes(&mc, NULL, 0, pass_of);
    for (i = 0; i < n; i++)
        out[i].pass = passes > 0 ? pass_of[i] : -1;
    if (n_passes)
        *n_passes = passes > 0 ? passes : 0;
    return e.complete ? HPM_OK : HPM_ECOUNTERS;
}

HPM_EXPORT int hpm_decode_counter(const char *machine_file, int counter, int block, char *name,
                                  size_t len)
{
    struct hpm_machine m;
    struct hpm_cu_codes mc;
    int rc;
    if (!name || len == 0 || counter < 0 || block < 0)
        return HPM_EINVAL;
    if ((rc = unit_of(machine_file, &m)) != HPM_OK)
        return rc;
    memset(&mc, 0, sizeof mc);
    mc.counters = m.counter_unit.counters;
    if ((unsigned)counter >= mc.counters ||
        (unsigned)block >= (HPM_CAT_CODES + mc.counters - 1) / mc.counters)
        return HPM_EINVAL;
    return hpm_catalog_code_name(hpm_cu_decode(&mc, (unsigned)counter, (unsigned)block), name,
                                 len) < 0
               ? HPM_ENOEVENT
               : HPM_OK;
}
