/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_events.c - event codes, names, descriptions and enumeration.
 *
 * Presets are 0x80000000 | index (papiStdEventDefs.h); natives are
 * 0x40000000 | hpm event id, named as hpm names them ("sim::INSTRUCTIONS").
 */
#include <string.h>
#include <strings.h>

#include "papi_internal.h"

/* A native code that names an existing event of a usable component. */
static int native_valid(int code, struct hpm_event_info *info)
{
    if (!IS_NATIVE(code))
        return 0;
    hpm_event_t e = papi_code_native(code);
    if (!papi_component_usable(HPM_EVENT_COMPONENT(e)))
        return 0;
    struct hpm_event_info tmp;
    return hpm_event_info(e, info ? info : &tmp) == HPM_OK;
}

int PAPI_event_name_to_code(const char *in, int *out)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!in || !out)
        return papi_ret(PAPI_EINVAL);
    /* Every preset name converts, available here or not, as in PAPI:
     * availability is PAPI_query_event's question. */
    for (int i = 0; i < PAPI_END_idx; i++)
        if (strcasecmp(papi_preset_descs[i].symbol, in) == 0) {
            *out = i | PAPI_PRESET_MASK;
            return PAPI_OK;
        }
    /* PAPI writes component-qualified names "component:::EVENT"; hpm's
     * form is "component::EVENT". */
    char alias[PAPI_HUGE_STR_LEN];
    const char *triple = strstr(in, ":::");
    if (triple && strlen(in) < sizeof alias) {
        size_t head = (size_t)(triple - in);
        memcpy(alias, in, head);
        papi_copy(alias + head, sizeof alias - head, triple + 1);
        in = alias;
    }
    hpm_event_t e;
    int rc = hpm_event_find(in, &e);
    if (rc < 0)
        return papi_ret(papi_from_hpm(rc, OP_NAME));
    if (!papi_component_usable(HPM_EVENT_COMPONENT(e)))
        return papi_ret(PAPI_ENOEVNT);
    *out = papi_native_code(e);
    return PAPI_OK;
}

int PAPI_event_code_to_name(int code, char *out)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!out)
        return papi_ret(PAPI_EINVAL);
    if (IS_PRESET(code)) {
        if (!papi_code_is_preset(code))
            return papi_ret(PAPI_ENOTPRESET);
        papi_copy(out, PAPI_MAX_STR_LEN, papi_preset_descs[code & PAPI_PRESET_AND_MASK].symbol);
        return PAPI_OK;
    }
    struct hpm_event_info info;
    if (!native_valid(code, &info))
        return papi_ret(PAPI_ENOEVNT);
    papi_copy(out, PAPI_MAX_STR_LEN, info.name);
    return PAPI_OK;
}

int PAPI_query_event(int code)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (IS_PRESET(code)) {
        if (!papi_code_is_preset(code))
            return papi_ret(PAPI_ENOTPRESET);
        return papi_presets[code & PAPI_PRESET_AND_MASK].available ? PAPI_OK : PAPI_ENOEVNT;
    }
    return native_valid(code, NULL) ? PAPI_OK : PAPI_ENOEVNT;
}

int PAPI_query_named_event(const char *name)
{
    int code;
    int rc = PAPI_event_name_to_code(name, &code);
    if (rc != PAPI_OK)
        return rc;
    return PAPI_query_event(code);
}

int PAPI_get_event_component(int code)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (IS_PRESET(code)) {
        if (!papi_code_is_preset(code))
            return papi_ret(PAPI_ENOTPRESET);
        const struct papi_preset *p = &papi_presets[code & PAPI_PRESET_AND_MASK];
        return p->available ? p->cidx : 0; /* PAPI's presets belong to component 0 */
    }
    if (!IS_NATIVE(code))
        return papi_ret(PAPI_ENOEVNT);
    int cidx = HPM_EVENT_COMPONENT(papi_code_native(code));
    if (cidx >= papi_lib.ncomp)
        return papi_ret(PAPI_ENOCMP);
    return cidx;
}

/* hpm's flags -> PAPI's event_info attributes. */
static void native_attributes(PAPI_event_info_t *info, const struct hpm_event_info *h)
{
    info->location = (h->flags & HPM_EVENT_NODE_WIDE) ? PAPI_LOCATION_PACKAGE : PAPI_LOCATION_CORE;
    info->data_type = PAPI_DATATYPE_INT64;
    if (h->flags & HPM_EVENT_INSTANT) {
        info->value_type = PAPI_VALUETYPE_ABSOLUTE;
        info->timescope = PAPI_TIMESCOPE_POINT;
    } else {
        info->value_type = PAPI_VALUETYPE_RUNNING_SUM;
        info->timescope = PAPI_TIMESCOPE_SINCE_START;
    }
    info->update_type = PAPI_UPDATETYPE_ARBITRARY;
}

int PAPI_get_event_info(int code, PAPI_event_info_t *info)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!info)
        return papi_ret(PAPI_EINVAL);
    memset(info, 0, sizeof *info);
    if (IS_PRESET(code)) {
        if (!papi_code_is_preset(code))
            return papi_ret(PAPI_ENOTPRESET);
        int idx = code & PAPI_PRESET_AND_MASK;
        const struct papi_preset_desc *d = &papi_preset_descs[idx];
        const struct papi_preset *p = &papi_presets[idx];
        info->event_code = (unsigned)code;
        papi_copy(info->symbol, sizeof info->symbol, d->symbol);
        papi_copy(info->short_descr, sizeof info->short_descr, d->short_descr);
        papi_copy(info->long_descr, sizeof info->long_descr, d->long_descr);
        info->event_type = d->categories;
        info->component_index = p->available ? p->cidx : 0;
        papi_copy(info->units, sizeof info->units, "");
        info->data_type = PAPI_DATATYPE_INT64;
        papi_copy(info->derived, sizeof info->derived, papi_derived_names[p->available ? p->derived : NOT_DERIVED]);
        if (!p->available)
            return PAPI_OK; /* described, count 0: not available here */
        info->count = (unsigned)p->nterms;
        papi_copy(info->postfix, sizeof info->postfix, p->postfix);
        papi_copy(info->note, sizeof info->note, p->note);
        for (int i = 0; i < p->nterms; i++) {
            struct hpm_event_info h;
            info->code[i] = (unsigned)papi_native_code(p->term[i]);
            if (hpm_event_info(p->term[i], &h) == HPM_OK)
                papi_copy(info->name[i], sizeof info->name[i], h.name);
        }
        return PAPI_OK;
    }
    struct hpm_event_info h;
    if (!native_valid(code, &h))
        return papi_ret(PAPI_ENOEVNT);
    info->event_code = (unsigned)code;
    papi_copy(info->symbol, sizeof info->symbol, h.name);
    papi_copy(info->short_descr, sizeof info->short_descr, h.description);
    papi_copy(info->long_descr, sizeof info->long_descr, h.description);
    papi_copy(info->units, sizeof info->units, h.units);
    info->component_index = h.component;
    native_attributes(info, &h);
    if (h.flags & HPM_EVENT_NODE_WIDE)
        papi_copy(info->note, sizeof info->note,
                  "counts the whole node; overflow on it is checked in software (slow)");
    return PAPI_OK;
}

/* ------------------------------------------------------------ enumeration */

/* Which presets a modifier selects: all (EVENTS), available ones
 * (PRESET_ENUM_AVAIL), or a category (PRESET_ENUM_<cat>, available ones
 * of that category, as papi_avail lists them). */
static int preset_selected(int idx, int modifier)
{
    if (modifier == PAPI_ENUM_EVENTS)
        return 1;
    if (!papi_presets[idx].available)
        return 0;
    if (modifier == PAPI_PRESET_ENUM_AVAIL)
        return 1;
    if (modifier >= PAPI_PRESET_ENUM_MSC && modifier <= PAPI_PRESET_ENUM_FP)
        return (papi_preset_descs[idx].categories & (1u << modifier)) != 0;
    return 0;
}

static int enum_presets(int *code, int modifier)
{
    int idx = *code & PAPI_PRESET_AND_MASK;
    if (modifier == PAPI_ENUM_FIRST) {
        *code = PAPI_PRESET_MASK; /* index 0, as PAPI's first preset */
        return PAPI_OK;
    }
    if (idx >= PAPI_END_idx)
        return PAPI_ENOEVNT;
    for (int i = idx + 1; i < PAPI_END_idx; i++)
        if (preset_selected(i, modifier)) {
            *code = i | PAPI_PRESET_MASK;
            return PAPI_OK;
        }
    return PAPI_ENOEVNT;
}

static int enum_natives(int *code, int modifier, int cidx)
{
    if (!papi_component_usable(cidx))
        return PAPI_ENOEVNT;
    hpm_event_t e;
    if (modifier == PAPI_ENUM_FIRST) {
        if (hpm_event_first(cidx, &e) != HPM_OK)
            return PAPI_ENOEVNT;
        *code = papi_native_code(e);
        return PAPI_OK;
    }
    if (modifier != PAPI_ENUM_EVENTS)
        return PAPI_ENOEVNT; /* no unit masks, groups or address ranging here */
    e = papi_code_native(*code);
    if (HPM_EVENT_COMPONENT(e) != cidx || hpm_event_next(&e) != HPM_OK)
        return PAPI_ENOEVNT;
    *code = papi_native_code(e);
    return PAPI_OK;
}

int PAPI_enum_event(int *code, int modifier)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!code)
        return papi_ret(PAPI_EINVAL);
    if (IS_PRESET(*code))
        return enum_presets(code, modifier);
    if (IS_NATIVE(*code)) {
        int cidx = HPM_EVENT_COMPONENT(papi_code_native(*code));
        return enum_natives(code, modifier, cidx);
    }
    if (IS_USER_DEFINED(*code))
        return PAPI_ENOEVNT; /* none defined: the end of an empty list, as
                                papi_avail asks after the presets */
    return papi_ret(PAPI_EINVAL);
}

int PAPI_enum_cmp_event(int *code, int modifier, int cidx)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!code)
        return papi_ret(PAPI_EINVAL);
    if (cidx < 0 || cidx >= papi_lib.ncomp)
        return papi_ret(PAPI_ENOCMP);
    if (IS_PRESET(*code)) {
        if (cidx != 0)
            return PAPI_ENOEVNT; /* presets live in component 0's list */
        return enum_presets(code, modifier);
    }
    if (IS_NATIVE(*code))
        return enum_natives(code, modifier, cidx);
    return papi_ret(PAPI_EINVAL);
}
