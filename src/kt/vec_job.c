/* SPDX-License-Identifier: MIT */
/* The vector core's elementwise kernels (npukit/kt_vec_job.h). One image serves every block:
 *
 *   0  VSETI S0          1  <count>        2  VSETVL S0        VL = the block's length
 *   3  VSETI S1          4  <a>                                axpy's scalar
 *   5  VFILL A0 -> L1 0  6  VFILL A1 -> L1 8 (binary kernels)  x and y, one word per 16
 *   7  VBAR              8  VLD v0, A2 (L1 0)   9  VLD v1, A3 (L1 8)
 *   10 the operation into v2
 *   11 VST v2, A4 (L1 16)   12 VDRAIN A5 from L1 16   13 VHALT
 *
 * A block rewrites word 1 (its length) and A0, A1, A5 (its addresses and word counts) and runs
 * from 0. A2..A4 walk the 8 L1 words of a full block and are written once. */
#include "npukit/kt_vec_job.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "npukit/kt_vec.h"

enum {
    PC_COUNT = 1,
    PC_A = 4,
    WORD = 32,
    ELEMS_PER_WORD = 16, /* FP16 */
    L1_X = 0,
    L1_Y = 8,
    L1_Z = 16,
    A_X = 0,
    A_Y = 1,
    A_LX = 2,
    A_LY = 3,
    A_LZ = 4,
    A_Z = 5,
};

/* Each kernel: its name and whether it reads y. */
static const struct {
    const char *name;
    bool binary;
} kernels[KT_VEC_K_COUNT] = {
    [KT_VEC_K_AXPY] = {"axpy", true},    [KT_VEC_K_ADD] = {"add", true},
    [KT_VEC_K_MUL] = {"mul", true},      [KT_VEC_K_MAX] = {"max", true},
    [KT_VEC_K_RELU] = {"relu", false},   [KT_VEC_K_EXP2] = {"exp2", false},
    [KT_VEC_K_LOG2] = {"log2", false},   [KT_VEC_K_INV] = {"inv", false},
    [KT_VEC_K_RSQRT] = {"rsqrt", false},
};

const char *kt_vec_kernel_name(unsigned k) { return k < KT_VEC_K_COUNT ? kernels[k].name : NULL; }

npk_status kt_vec_kernel_find(const char *name, kt_vec_kernel *k)
{
    for (unsigned i = 0; i < KT_VEC_K_COUNT; i++)
        if (name && !strcmp(name, kernels[i].name)) {
            *k = (kt_vec_kernel)i;
            return NPK_OK;
        }
    return npk_fail(NPK_EINVAL,
                    "vector kernel '%s': one of axpy, add, mul, max, relu, exp2, log2, inv, rsqrt",
                    name ? name : "(null)");
}

bool kt_vec_kernel_binary(kt_vec_kernel k) { return k < KT_VEC_K_COUNT && kernels[k].binary; }

/* The operation's word: v2 = f(v0, v1). */
static kt_vec_insn operation(kt_vec_kernel k)
{
    kt_vec_insn in = {.vd = 2, .va = 0};
    switch (k) {
    case KT_VEC_K_AXPY:
        in.op = KT_VEC_VFMA, in.vb = 1, in.sb = KT_VEC_SRC_S, in.vc = 1; /* v0 * S1 + v1 */
        break;
    case KT_VEC_K_ADD: in.op = KT_VEC_VADD, in.vc = 1; break;
    case KT_VEC_K_MUL: in.op = KT_VEC_VMUL, in.vb = 1; break;
    case KT_VEC_K_MAX: in.op = KT_VEC_VMAX, in.vb = 1; break;
    case KT_VEC_K_RELU: in.op = KT_VEC_VMAX, in.vb = 0, in.sb = KT_VEC_SRC_K; break; /* K0 */
    case KT_VEC_K_EXP2: in.op = KT_VEC_VEXP2; break;
    case KT_VEC_K_LOG2: in.op = KT_VEC_VLOG2; break;
    case KT_VEC_K_INV: in.op = KT_VEC_VINV; break;
    case KT_VEC_K_RSQRT: in.op = KT_VEC_VRSQRT; break;
    case KT_VEC_K_COUNT: break;
    }
    return in;
}

/* a to E8M15: FP32's top 24 bits after rounding its low 8 to nearest even. */
static uint32_t e8_bits(float a, float *used)
{
    uint32_t f;
    memcpy(&f, &a, 4);
    uint32_t low = f & 0xFF, keep = f >> 8;
    keep += low > 0x80 || (low == 0x80 && (keep & 1));
    uint32_t back = keep << 8;
    memcpy(used, &back, 4);
    return keep & 0xFFFFFF;
}

npk_status kt_vec_kernel_load(kt_vec_kernel k, float a, uint8_t txn, kt_flit *out, size_t *n,
                              float *a_used)
{
    if ((unsigned)k >= KT_VEC_K_COUNT)
        return npk_fail(NPK_EINVAL, "vector kernel %u: 0..%d", (unsigned)k, KT_VEC_K_COUNT - 1);
    if (!isfinite(a) || fabsf(a) > 3.0e38f)
        return npk_fail(NPK_EINVAL, "vector kernel a=%g: finite and inside E8M15's range", a);
    float used;
    uint32_t a_e8 = e8_bits(a, &used);
    if (a_used)
        *a_used = used;
    bool binary = kt_vec_kernel_binary(k);
    const kt_vec_insn prog[] = {
        {.op = KT_VEC_VSETI, .vd = 0},
        {.op = KT_VEC_OP_COUNT}, /* the count: a data word */
        {.op = KT_VEC_VSETVL, .va = 0},
        {.op = KT_VEC_VSETI, .vd = 1},
        {.op = KT_VEC_OP_COUNT}, /* a */
        {.op = KT_VEC_VFILL, .ad = A_X, .off = L1_X},
        binary ? (kt_vec_insn){.op = KT_VEC_VFILL, .ad = A_Y, .off = L1_Y}
               : (kt_vec_insn){.op = KT_VEC_VBAR},
        {.op = KT_VEC_VBAR},
        {.op = KT_VEC_VLD, .vd = 0, .ad = A_LX, .dt = KT_VEC_DT_FP16},
        binary ? (kt_vec_insn){.op = KT_VEC_VLD, .vd = 1, .ad = A_LY, .dt = KT_VEC_DT_FP16}
               : (kt_vec_insn){.op = KT_VEC_VBAR},
        operation(k),
        {.op = KT_VEC_VST, .vd = 2, .ad = A_LZ, .dt = KT_VEC_DT_FP16},
        {.op = KT_VEC_VDRAIN, .ad = A_Z, .off = L1_Z},
        {.op = KT_VEC_VHALT},
    };
    size_t at = 0;
    npk_status s = NPK_OK;
    for (unsigned pc = 0; pc < sizeof prog / sizeof prog[0] && !s; pc++) {
        uint32_t w = pc == PC_COUNT ? KT_VEC_BLOCK : pc == PC_A ? a_e8 : 0;
        if (pc != PC_COUNT && pc != PC_A)
            s = kt_vec_encode(&prog[pc], &w);
        if (!s)
            s = kt_vec_imem(&out[at++], pc, w, txn, false);
    }
    /* the L1 walks: 8 words from each operand's base */
    const unsigned l1[][2] = {{A_LX, L1_X}, {A_LY, L1_Y}, {A_LZ, L1_Z}};
    uint64_t dim;
    if (!s)
        s = kt_vec_dim(1, KT_VEC_BLOCK / ELEMS_PER_WORD, &dim);
    for (unsigned i = 0; i < 3 && !s; i++) {
        s = kt_vec_desc(&out[at++], l1[i][0], 0, l1[i][1], txn, false);
        if (!s)
            s = kt_vec_desc(&out[at++], l1[i][0], 1, dim, txn, false);
    }
    *n = at;
    return s;
}

npk_status kt_vec_kernel_block(kt_vec_kernel k, unsigned count, uint64_t x, uint64_t y, uint64_t z,
                               uint8_t txn, kt_flit *out)
{
    if ((unsigned)k >= KT_VEC_K_COUNT)
        return npk_fail(NPK_EINVAL, "vector kernel %u: 0..%d", (unsigned)k, KT_VEC_K_COUNT - 1);
    if (count == 0 || count > KT_VEC_BLOCK)
        return npk_fail(NPK_ELIMIT, "vector block of %u elements: 1..%d", count, KT_VEC_BLOCK);
    if ((x | y | z) & (WORD - 1))
        return npk_fail(NPK_EINVAL,
                        "vector block addresses x=0x%" PRIx64 " y=0x%" PRIx64 " z=0x%" PRIx64
                        " must be 32-byte aligned",
                        x, y, z);
    unsigned words = (count + ELEMS_PER_WORD - 1) / ELEMS_PER_WORD;
    uint64_t dim;
    npk_status s = kt_vec_dim(WORD, words, &dim);
    if (!s)
        s = kt_vec_imem(&out[0], PC_COUNT, count, txn, false);
    const struct {
        unsigned ad;
        uint64_t base;
    } walk[] = {{A_X, x}, {A_Y, kt_vec_kernel_binary(k) ? y : x}, {A_Z, z}};
    for (unsigned i = 0; i < 3 && !s; i++) {
        s = kt_vec_desc(&out[1 + 2 * i], walk[i].ad, 0, walk[i].base, txn, false);
        if (!s)
            s = kt_vec_desc(&out[2 + 2 * i], walk[i].ad, 1, dim, txn, false);
    }
    if (!s)
        s = kt_vec_run(&out[KT_VEC_BLOCK_FLITS - 1], 0, txn, false);
    return s;
}
