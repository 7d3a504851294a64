/* SPDX-License-Identifier: MIT */
/* kt_dev on the heap, for callers that cannot hold the struct themselves (bindings: kt_dev
 * carries the staging shadow and per-node state, several KiB that a foreign-function caller
 * should not have to size). */
#include <stdlib.h>

#include "npukit/kt.h"

npk_status kt_dev_create(kt_transport *t, uint64_t base, const kt_options *opt, kt_dev **out)
{
    if (!out)
        return npk_fail(NPK_EINVAL, "kt_dev_create: out is NULL");
    *out = NULL;
    kt_dev *d = calloc(1, sizeof *d);
    if (!d)
        return npk_fail(NPK_ENOMEM, "kt_dev_create: out of memory for the device state");
    npk_status s = kt_open(d, t, base, opt);
    if (s) {
        free(d);
        return s;
    }
    *out = d;
    return NPK_OK;
}

void kt_dev_destroy(kt_dev *d) { free(d); }
