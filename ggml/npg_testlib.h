/* SPDX-License-Identifier: MIT */
/* What the backend's test and bench programs share: a seeded uniform generator (each program
 * keeps its own state and seed, so its numbers stay its own), finding a device by its
 * registry's name and the CPU's repack buffer type. */
#ifndef NPG_TESTLIB_H
#define NPG_TESTLIB_H

#include <stdint.h>
#include <string.h>

#include "ggml-backend.h"

/* xorshift64: uniform in [-1, 1) */
static inline float npg_test_urand(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (float)((*state >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

static inline ggml_backend_dev_t npg_test_find_dev(const char *reg_name)
{
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t d = ggml_backend_dev_get(i);
        if (strcmp(ggml_backend_reg_name(ggml_backend_dev_backend_reg(d)), reg_name) == 0)
            return d;
    }
    return NULL;
}

/* ggml's CPU backend's CPU_REPACK buffer type (weights interleaved for its own kernels), NULL
 * when it offers none. */
static inline ggml_backend_buffer_type_t npg_test_find_repack(ggml_backend_dev_t cpu_dev)
{
    ggml_backend_dev_get_extra_bufts_t extra =
        (ggml_backend_dev_get_extra_bufts_t)ggml_backend_reg_get_proc_address(
            ggml_backend_dev_backend_reg(cpu_dev), "ggml_backend_dev_get_extra_bufts");
    for (ggml_backend_buffer_type_t *b = extra ? extra(cpu_dev) : NULL; b && *b; b++)
        if (strcmp(ggml_backend_buft_name(*b), "CPU_REPACK") == 0)
            return *b;
    return NULL;
}

#endif
