/* SPDX-License-Identifier: MIT */
/* A flat memory of KT_FLAT_MEM bytes behind the mover's memory interface, for the tests that
 * time the mover on its own (no mesh, no DRAM model): 32-byte granules, an error past the end. */
#ifndef NPUKIT_TESTS_KT_FLAT_MEM_TESTLIB_H
#define NPUKIT_TESTS_KT_FLAT_MEM_TESTLIB_H

#include <stdint.h>
#include <string.h>

#include "ktsim/mover.h"

enum { KT_FLAT_MEM = 1 << 17 };

static inline ksim_mem_result kt_flat_read(void *ctx, uint64_t a, uint8_t *out)
{
    if (a + 32 > KT_FLAT_MEM)
        return KSIM_MEM_ERROR;
    memcpy(out, (uint8_t *)ctx + a, 32);
    return KSIM_MEM_OK;
}

static inline ksim_mem_result kt_flat_write(void *ctx, uint64_t a, const uint8_t *in)
{
    if (a + 32 > KT_FLAT_MEM)
        return KSIM_MEM_ERROR;
    memcpy((uint8_t *)ctx + a, in, 32);
    return KSIM_MEM_OK;
}

#endif
