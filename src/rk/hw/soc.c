/* SPDX-License-Identifier: MIT */
/* The SoC table. RK3588 numbers: spec "Limits & tiling (RK3588)" (K 10752, N 8192), facts E.1
 * (12 banks x 32 KB, 3 cores), B.4 (DATA_SIZE0 11-bit height, FEATURE_GRAINS 10-bit).
 * RK3576: the facts give only its core count (2); the rest is assumed equal to RK3588 and the
 * row is marked unvalidated (rocket-userspace notes it packs geometry registers differently). */
#include <string.h>

#include "npukit/rk_soc.h"

static const npk_rk_soc socs[] = {
    {"rk3588", 3, NPK_RK_CBUF_BANKS, NPK_RK_BANK_BYTES, 10752, 8192, 2047, 1023, true,
     "spec Limits & tiling; facts B.4, E.1"},
    {"rk3576", 2, NPK_RK_CBUF_BANKS, NPK_RK_BANK_BYTES, 10752, 8192, 2047, 1023, false,
     "facts E.1 (cores); other numbers assumed from rk3588"},
};

const npk_rk_soc *npk_rk_soc_find(const char *name)
{
    for (unsigned i = 0; name && i < sizeof socs / sizeof socs[0]; i++)
        if (!strcmp(socs[i].name, name))
            return &socs[i];
    return NULL;
}

const npk_rk_soc *npk_rk_soc_default(void) { return &socs[0]; }
unsigned npk_rk_soc_count(void) { return sizeof socs / sizeof socs[0]; }
const npk_rk_soc *npk_rk_soc_at(unsigned i) { return i < npk_rk_soc_count() ? &socs[i] : NULL; }
