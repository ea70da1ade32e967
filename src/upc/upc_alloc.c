/* SPDX-License-Identifier: BSD-3-Clause */
/* Hosted convenience: the core takes caller storage; ordinary programs get it here. */
#include <stdlib.h>

#include "hpm/upc.h"

int hpm_upc_create(struct hpm_upc **out, const struct hpm_upc_params *p)
{
    if (!out || !p) return HPM_UPC_ENULL;
    size_t size = hpm_upc_storage_size(p);
    if (size == 0) return HPM_UPC_EPARAM;
    void *mem = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!mem) return HPM_UPC_ENOMEM;
    int rc = hpm_upc_init(out, p, mem, size);
    if (rc != HPM_UPC_OK) free(mem);
    return rc;
}

void hpm_upc_destroy(struct hpm_upc *u)
{
    free(u); /* the unit's header sits at the start of its storage */
}
