/* SPDX-License-Identifier: MIT */
/* Elementwise kernels for the vector core ('VC'), as CU_INST programs a driver stages and
 * dispatches: z = f(x, y) over FP16 arrays in DRAM, computed in the lanes' E8M15 and stored back
 * as FP16. A unit is loaded once (kt_vec_kernel_load: the instruction memory image and the
 * constant descriptors); each block of up to 128 elements is then one short program
 * (kt_vec_kernel_block: the block's length into the image, the walks of x, y and z, and RUN),
 * whose RUN retires with the kernel's cycle count. `npukit kt vec` and npukit.kt's Card.vec run
 * them; docs/kt-compute-units.md lists the kernels. */
#ifndef NPUKIT_KT_VEC_JOB_H
#define NPUKIT_KT_VEC_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "npukit/export.h"
#include "npukit/kt_flit.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* axpy: a x + y (one fused multiply-add, a a scalar); add: x + y; mul: x y; max: max(x, y);
 * relu: max(x, 0); exp2, log2, inv (1/x), rsqrt (1/sqrt(x)): the lanes' seeds (the last five
 * read x alone). */
typedef enum kt_vec_kernel {
    KT_VEC_K_AXPY,
    KT_VEC_K_ADD,
    KT_VEC_K_MUL,
    KT_VEC_K_MAX,
    KT_VEC_K_RELU,
    KT_VEC_K_EXP2,
    KT_VEC_K_LOG2,
    KT_VEC_K_INV,
    KT_VEC_K_RSQRT,
    KT_VEC_K_COUNT
} kt_vec_kernel;

enum {
    KT_VEC_BLOCK = 128,     /* elements a block computes (VLMAX) */
    KT_VEC_LOAD_FLITS = 24, /* flits of a load program, at most */
    KT_VEC_BLOCK_FLITS = 8, /* flits of a block program */
};

/* The kernel's name ("axpy"), or NULL past the last. */
NPUKIT_API const char *kt_vec_kernel_name(unsigned k);
/* The kernel of a name; NPK_EINVAL naming the kernels when there is none. */
NPUKIT_API npk_status kt_vec_kernel_find(const char *name, kt_vec_kernel *k);
/* Whether the kernel reads y. */
NPUKIT_API bool kt_vec_kernel_binary(kt_vec_kernel k);
/* The load program into out (at most KT_VEC_LOAD_FLITS), its length in *n. `a` is axpy's scalar,
 * rounded to E8M15 (to nearest, ties to even); *a_used receives the value the lanes use (may be
 * NULL). */
NPUKIT_API npk_status kt_vec_kernel_load(kt_vec_kernel k, float a, uint8_t txn, kt_flit *out,
                                         size_t *n, float *a_used);
/* A block of `count` (1..128) elements: x, y, z 40-bit byte addresses, 32-byte aligned; its
 * KT_VEC_BLOCK_FLITS flits into out (the last a RUN). */
NPUKIT_API npk_status kt_vec_kernel_block(kt_vec_kernel k, unsigned count, uint64_t x, uint64_t y,
                                          uint64_t z, uint8_t txn, kt_flit *out);

#ifdef __cplusplus
}
#endif
#endif
