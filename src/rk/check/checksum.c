/* SPDX-License-Identifier: MIT */
/* The checksum bound weights are checked with at every call (npk_rk_checksum): xxHash's XXH3,
 * 64 bits, which reads at memory speed (SSE2/AVX2 on x86-64, NEON on aarch64) where the scalar
 * multiply-xor loop it replaces reached a fraction of that. On x86-64 Debian's library picks
 * the widest vector unit the CPU has at run time (XXH3_64bits_dispatch, the same value as
 * XXH3_64bits). */
#include <xxhash.h>
#ifdef NPUKIT_XXH_DISPATCH
#include <xxh_x86dispatch.h>
#define NPK_XXH3 XXH3_64bits_dispatch
#else
#define NPK_XXH3 XXH3_64bits
#endif

#include "npukit/rk.h"

uint64_t npk_rk_checksum(const void *bytes, uint64_t n)
{
    /* XXH3 takes NULL only with length 0. n counts bytes in the address space, so it fits
     * size_t wherever the bytes exist. */
    return NPK_XXH3(n ? bytes : NULL, bytes ? (size_t)n : 0);
}
