/* SPDX-License-Identifier: MIT */
/* The vector-core kernels the RTL figures were recorded on (tests/test_kt_vec.c,
 * tests/test_kt_vec_timing.c): each kernel is IMEM words, descriptors, DRAM contents from a
 * fixed generator, then a RUN at pc 0 and a region of DRAM read back. The same builders printed
 * the script the RTL bench (upstream's vec_cu under Verilator) ran, so the inputs are identical.
 *
 *   fma N    y = a x + y over VL = N, FP16 in and out: VFILL x, VFILL y, VBAR, VLD, VLD, VFMA
 *            (a a scalar), VST, VDRAIN
 *   ops N    sixteen arithmetic rows over VL = N on FP16 inputs, each stored as FP32 (exact):
 *            VMOV..VSEL of (x, y, z), compares then predicated VMUL / VADD, VADD of K1, VMUL
 *            stored as FP16, a VCVT FP16 round trip; one VDRAIN of 256 words
 *   edge N   the same rows on FP32 inputs full of specials: zeros of both signs, infinities,
 *            NaNs, values near overflow and underflow, ties
 *   chain N  N iterations of a dependent VADD at VL 128 (VLOOP)
 *   d2 N, d4 N  chained instructions (D2, D4) over VL = N, predicated, stored as FP32
 *   d2loop N, d4loop N, d4loop128 N  N iterations of a chain reading what it wrote
 *   indep N  N iterations of four independent VMULs at VL 64
 *   ldst N   VLD/VST at VL N in FP16, then in FP32
 *   drain N  one VDRAIN of N words
 *   red N    TREE reductions (SUM, MAX, MIN, SUMSQ, DOT) over VL = N, broadcast and stored
 *   pdrain N one VDRAIN of N words to a node: (1,2), its L1 word 200, DATA_RECEIVED to (0,1)
 *   fill N   one VFILL of N words and VBAR
 *   seed N   the seeds over VL = N on FP32 inputs (wide, specials, the edges of each reduction):
 *            VLOG2, VINV, VRSQRT of x, VEXP2 of y, then in D2 VEXP2(y - S1); with N a multiple
 *            of 16, TREE EXPSUMs of z (predicated by P1 under the last arithmetic word's mode)
 *            and of y; every vector stored as FP32 twice (as is and rotated by 8 with VSHUF, as
 *            an FP32 store keeps the high eight of each chunk), the sums broadcast and stored
 *   expsum N one TREE EXPSUM over VL = N (a multiple of 16), then a SUM of what it wrote */
#ifndef NPUKIT_TESTS_KT_VEC_KERNELS_H
#define NPUKIT_TESTS_KT_VEC_KERNELS_H

#include <stdint.h>
#include <string.h>

#include "npukit/kt_vec.h"

enum { VK_MAX_IMEM = 128, VK_MAX_DESC = 40, VK_MAX_MEM = 64, VK_ROWS = 16, VK_ROW_WORDS = 16 };

typedef struct vk_line {
    uint64_t addr;
    uint8_t b[32];
} vk_line;

typedef struct vk_kernel {
    uint32_t imem[VK_MAX_IMEM];
    unsigned nimem;
    struct {
        unsigned ad, fld;
        uint64_t v;
    } desc[VK_MAX_DESC];
    unsigned ndesc;
    vk_line mem[VK_MAX_MEM];
    unsigned nmem;
    uint64_t zero_addr; /* a region of zeros (the fill kernel's source) */
    unsigned zero_words;
    uint64_t dump_addr;
    unsigned dump_words;
    bool bad; /* an encoder refused a word (a bug in the builder) */
} vk_kernel;

static inline uint64_t vk_mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void vk_emit(vk_kernel *k, kt_vec_insn in)
{
    uint32_t w = 0;
    if (kt_vec_encode(&in, &w) || k->nimem >= VK_MAX_IMEM)
        k->bad = true;
    else
        k->imem[k->nimem++] = w;
}

static inline void vk_word(vk_kernel *k, uint32_t w)
{
    if (k->nimem < VK_MAX_IMEM)
        k->imem[k->nimem++] = w;
}

static inline void vk_desc(vk_kernel *k, unsigned ad, uint64_t base, int32_t stride, uint32_t bound)
{
    uint64_t dim = 0;
    if (kt_vec_dim(stride, bound, &dim) || k->ndesc + 2 > VK_MAX_DESC) {
        k->bad = true;
        return;
    }
    k->desc[k->ndesc].ad = ad, k->desc[k->ndesc].fld = 0, k->desc[k->ndesc++].v = base;
    k->desc[k->ndesc].ad = ad, k->desc[k->ndesc].fld = 1, k->desc[k->ndesc++].v = dim;
}

/* A random FP16 in (-4, 4): sign, exponent 1..16, any mantissa. */
static inline uint16_t vk_f16(uint64_t *s)
{
    uint64_t r = vk_mix(s);
    return (uint16_t)((r & 1) << 15 | (1 + (r >> 1) % 16) << 10 | (r >> 8 & 0x3FF));
}

/* A FP32 from a mix weighted to the lane's edges. */
static inline uint32_t vk_f32_edge(uint64_t *s)
{
    static const uint32_t special[] = {
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F812345,
        0x7F7FFFFF, 0xFF7FFF80, 0x00800000, 0x80800000, 0x00400000, 0x3F800080,
        0x3F800180, 0x3F7FFF80, 0x3F800000, 0xBF800000, 0x7F000000, 0x00FFFF80,
        0x3FFFFF00, 0x47800000, 0x477FF000, 0x387FC000, 0x33800000, 0x33000000,
    };
    uint64_t r = vk_mix(s);
    unsigned n = sizeof special / sizeof special[0];
    if (r % 3 == 0)
        return special[(r >> 8) % n];
    uint32_t sign = (uint32_t)(r >> 2 & 1) << 31, m = (uint32_t)(r >> 9) & 0x7FFFFF;
    uint32_t e = r % 3 == 1 ? (uint32_t)(r >> 40) % 256 : 110 + (uint32_t)(r >> 40) % 36;
    return sign | e << 23 | m;
}

static inline uint32_t vk_f32_bits(double x)
{
    float f = (float)x;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* A FP32 for the seeds: 1 in 4 from each kind's specials and identities; otherwise for
 * log2/inv/rsqrt (exp2 = false) any exponent, negative 1 in 8, and for exp2 a value in
 * (-160, 160) or one whose exponent walks the reduction's shifts (|x| in [2^-20, 256)). */
static inline uint32_t vk_f32_seed(uint64_t *s, bool exp2)
{
    static const uint32_t special_x[] = {
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x3F800000, 0x40000000,
        0x40800000, 0x3F000000, 0x00800000, 0x7F7FFFFF, 0xBF800000, 0xC0800000, 0x40400000,
        0x7F000000, 0x01000000, 0x3F7FFF80, 0x3F800080, 0x3FFFFF80, 0x3FC00000,
    };
    static const uint32_t special_y[] = {
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x3F800000, 0xBF800000,
        0x42FE0000, 0x43000000, 0xC2FC0000, 0xC2FE0000, 0xC3000000, 0xC3150000, 0x437FFF00,
        0xC37FFF00, 0x43800000, 0x3F000000, 0x35800000, 0xB5800000, 0x30800000, 0x43058000,
        0xC3058000, 0x3F7FFF80, 0xBF7FFF80, 0x42FFFF00,
    };
    uint64_t r = vk_mix(s);
    const uint32_t *sp = exp2 ? special_y : special_x;
    unsigned n =
        exp2 ? sizeof special_y / sizeof special_y[0] : sizeof special_x / sizeof special_x[0];
    if (r % 4 == 0)
        return sp[(r >> 8) % n];
    uint32_t m = (uint32_t)(r >> 9) & 0x7FFFFF;
    if (!exp2) {
        uint32_t e = 1 + (uint32_t)(r >> 40) % 254, sign = (r >> 2) % 8 == 0;
        return sign << 31 | e << 23 | m;
    }
    if (r % 4 == 1) {
        uint32_t e = 107 + (uint32_t)(r >> 40) % 28, sign = (uint32_t)(r >> 2 & 1);
        return sign << 31 | e << 23 | m;
    }
    return vk_f32_bits(((double)(r >> 11) / 9007199254740992.0 - 0.5) * 320.0);
}

/* Words of FP32 values from `gen` (0: log2/inv/rsqrt inputs, 1: exp2 inputs, 2: (-8, 8)). */
static inline void vk_fill_f32(vk_kernel *k, uint64_t addr, unsigned words, int gen, uint64_t *s)
{
    for (unsigned w = 0; w < words && k->nmem < VK_MAX_MEM; w++) {
        vk_line *l = &k->mem[k->nmem++];
        l->addr = addr + 32ull * w;
        for (int i = 0; i < 32; i += 4) {
            uint32_t v =
                gen == 2
                    ? vk_f32_bits(((double)(vk_mix(s) >> 11) / 9007199254740992.0 - 0.5) * 16.0)
                    : vk_f32_seed(s, gen == 1);
            for (int b = 0; b < 4; b++)
                l->b[i + b] = (uint8_t)(v >> (8 * b));
        }
    }
}

static inline void vk_fill_mem(vk_kernel *k, uint64_t addr, unsigned words, bool edge, uint64_t *s)
{
    for (unsigned w = 0; w < words && k->nmem < VK_MAX_MEM; w++) {
        vk_line *l = &k->mem[k->nmem++];
        l->addr = addr + 32ull * w;
        for (int i = 0; i < 32; i += edge ? 4 : 2) {
            uint32_t v = edge ? vk_f32_edge(s) : vk_f16(s);
            for (int b = 0; b < (edge ? 4 : 2); b++)
                l->b[i + b] = (uint8_t)(v >> (8 * b));
        }
    }
}

#define VK_OP(o, ...) ((kt_vec_insn){.op = (o), __VA_ARGS__})
static inline kt_vec_insn vk_simple(unsigned op) { return VK_OP(op, .vd = 0); }

static inline void vk_setvl(vk_kernel *k, unsigned n)
{
    vk_emit(k, VK_OP(KT_VEC_VSETI, .vd = 0));
    vk_word(k, n);
    vk_emit(k, VK_OP(KT_VEC_VSETVL, .va = 0));
}

static inline void vk_store_row(vk_kernel *k, unsigned row_at, unsigned *r, unsigned reg,
                                unsigned type)
{
    vk_emit(k, VK_OP(KT_VEC_VST, .vd = reg, .ad = 4, .off = (int)(row_at + VK_ROW_WORDS * (*r)++),
                     .dt = type));
}

/* x, y and z: three VFILLs (A0..A2 to L1 0, 16, 32), VBAR, and VLDs of them (A5) into v0, v1,
 * v3 in type dt. */
static inline void vk_load_three(vk_kernel *k, unsigned dt)
{
    for (unsigned i = 0; i < 3; i++)
        vk_emit(k, VK_OP(KT_VEC_VFILL, .ad = i, .off = (int)(16 * i)));
    vk_emit(k, vk_simple(KT_VEC_VBAR));
    const unsigned reg[] = {0, 1, 3};
    for (unsigned i = 0; i < 3; i++)
        vk_emit(k, VK_OP(KT_VEC_VLD, .vd = reg[i], .ad = 5, .off = (int)(16 * i), .dt = dt));
}

/* The sixteen rows of ops/edge: results in v2 (v4 for the round trip), stored as FP32 (FP16 in
 * row 13) at L1 row_at + 16 r. */
static inline void vk_rows(vk_kernel *k, unsigned row_at)
{
    static const unsigned three[] = {KT_VEC_VMOV, KT_VEC_VNEG, KT_VEC_VABS, KT_VEC_VADD,
                                     KT_VEC_VSUB, KT_VEC_VMUL, KT_VEC_VFMA, KT_VEC_VFNMA,
                                     KT_VEC_VMAX, KT_VEC_VMIN, KT_VEC_VSEL};
    unsigned r = 0;
    for (unsigned i = 0; i < sizeof three / sizeof three[0]; i++) {
        vk_emit(k, VK_OP(three[i], .vd = 2, .va = 0, .vb = 1, .vc = 3));
        vk_store_row(k, row_at, &r, 2, KT_VEC_DT_FP32);
    }
    vk_emit(k, VK_OP(KT_VEC_VCMPLT, .va = 0, .vb = 1, .pr = 1));
    vk_emit(k,
            VK_OP(KT_VEC_VMUL, .vd = 2, .va = 0, .vb = 1, .vc = 3, .pr = 1, .pm = KT_VEC_PM_SET));
    vk_store_row(k, row_at, &r, 2, KT_VEC_DT_FP32);
    vk_emit(k, VK_OP(KT_VEC_VCMPGT, .va = 0, .vb = 1, .pr = 2));
    vk_emit(k, VK_OP(KT_VEC_VADD, .vd = 2, .va = 0, .vc = 1, .pr = 2, .pm = KT_VEC_PM_CLEAR));
    vk_store_row(k, row_at, &r, 2, KT_VEC_DT_FP32);
    vk_emit(k, VK_OP(KT_VEC_VADD, .vd = 2, .va = 0, .vc = 1, .sc = KT_VEC_SRC_K));
    vk_store_row(k, row_at, &r, 2, KT_VEC_DT_FP32);
    vk_emit(k, VK_OP(KT_VEC_VMUL, .vd = 2, .va = 0, .vb = 1));
    vk_store_row(k, row_at, &r, 2, KT_VEC_DT_FP16);
    vk_emit(k, VK_OP(KT_VEC_VCVT, .vd = 4, .va = 2, .dt = KT_VEC_DT_FP16));
    vk_store_row(k, row_at, &r, 4, KT_VEC_DT_FP32);
}

/* Scalars S[first..first + n - 1] broadcast at VL 16 through v8 and stored as FP32 at L1
 * at + 2 i. */
static inline void vk_store_scalars(vk_kernel *k, unsigned first, unsigned n, unsigned at)
{
    vk_setvl(k, 16);
    for (unsigned i = 0; i < n; i++) {
        vk_emit(k, VK_OP(KT_VEC_VBCAST, .vd = 8, .va = first + i, .sa = KT_VEC_SRC_S));
        vk_emit(
            k, VK_OP(KT_VEC_VST, .vd = 8, .ad = 4, .off = (int)(at + 2 * i), .dt = KT_VEC_DT_FP32));
    }
}

/* The rows' kernels' end: VDRAIN of `words` from L1 64 to 0x3000 (A6), VHALT; the L1 walks A4
 * (stores) and A5 (loads). */
static inline void vk_drain_rows(vk_kernel *k, unsigned words)
{
    vk_emit(k, VK_OP(KT_VEC_VDRAIN, .ad = 6, .off = 64));
    vk_emit(k, vk_simple(KT_VEC_VHALT));
    vk_desc(k, 4, 0, 1, 16);
    vk_desc(k, 5, 0, 1, 16);
    vk_desc(k, 6, 0x3000, 32, words);
    k->dump_addr = 0x3000, k->dump_words = words;
}

/* Store `reg` as FP32 at row *r, then rotated by S5 (8) through v10 at the next row. */
static inline void vk_store_both(vk_kernel *k, unsigned row_at, unsigned *r, unsigned reg)
{
    vk_store_row(k, row_at, r, reg, KT_VEC_DT_FP32);
    vk_emit(k, VK_OP(KT_VEC_VSHUF, .vd = 10, .va = reg, .vb = 5));
    vk_store_row(k, row_at, r, 10, KT_VEC_DT_FP32);
}

static inline void vk_seed_kernel(vk_kernel *k, unsigned n, uint64_t *seed)
{
    const unsigned C = KT_VEC_SRC_C, S = KT_VEC_SRC_S;
    vk_fill_f32(k, 0x1000, 16, 0, seed);
    vk_fill_f32(k, 0x1400, 16, 1, seed);
    vk_fill_f32(k, 0x1800, 16, 2, seed);
    vk_setvl(k, n);
    vk_emit(k, VK_OP(KT_VEC_VSETI, .vd = 5));
    vk_word(k, 8);
    vk_emit(k, VK_OP(KT_VEC_VSETI, .vd = 1));
    vk_word(k, 0x3FC000 | (uint32_t)(vk_mix(seed) & 0x3FFF)); /* S1 in [1.5, 2) */
    vk_load_three(k, KT_VEC_DT_FP32);
    unsigned r = 0;
    static const unsigned unary[] = {KT_VEC_VLOG2, KT_VEC_VINV, KT_VEC_VRSQRT, KT_VEC_VEXP2};
    for (unsigned i = 0; i < 4; i++) {
        vk_emit(k, VK_OP(unary[i], .vd = 2, .va = unary[i] == KT_VEC_VEXP2 ? 1 : 0));
        vk_store_both(k, 64, &r, 2);
    }
    vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_D2));
    vk_emit(k, VK_OP(KT_VEC_VSUB, .vd = 9, .va = 1, .vc = 1, .sc = S));
    vk_emit(k, VK_OP(KT_VEC_VEXP2, .vd = 2, .sa = C, .sb = KT_VEC_SRC_K, .sc = KT_VEC_SRC_K));
    vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_FLAT));
    vk_store_both(k, 64, &r, 2);
    if (n % KT_VEC_LANES == 0) {
        /* v6 and v7 start as x; P1 = z < x; the last arithmetic word is predicated (SET) */
        vk_emit(k, VK_OP(KT_VEC_VMOV, .vd = 6, .va = 0));
        vk_emit(k, VK_OP(KT_VEC_VMOV, .vd = 7, .va = 0));
        vk_emit(k, VK_OP(KT_VEC_VCMPLT, .va = 3, .vb = 0, .pr = 1));
        vk_emit(k, VK_OP(KT_VEC_VMOV, .vd = 11, .va = 1, .pr = 1, .pm = KT_VEC_PM_SET));
        vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_TREE));
        vk_emit(k, VK_OP(KT_VEC_VRED, .vd = 3, .va = 3, .vb = 6, .vc = 5, .pr = 1));
        vk_emit(k, VK_OP(KT_VEC_VRED, .vd = 4, .va = 1, .vb = 7, .vc = 5, .pr = 1));
        vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_FLAT));
        vk_store_both(k, 64, &r, 6);
        vk_store_both(k, 64, &r, 7);
        vk_store_scalars(k, 3, 2, 64 + 16 * r);
    }
    for (unsigned i = 0; i < 3; i++)
        vk_desc(k, i, 0x1000 + 0x400ull * i, 32, 16);
    vk_drain_rows(k, 14 * VK_ROW_WORDS + 4);
}

/* Build kernel `kind` at size n; false for an unknown kind. */
static inline bool vk_build(const char *kind, unsigned n, vk_kernel *k)
{
    memset(k, 0, sizeof *k);
    uint64_t seed =
        0x5643000000ull + n * 7919u + (uint64_t)strlen(kind) * 104729u + (uint8_t)kind[0];
    unsigned w = (n + 15) / 16;
    if (!strcmp(kind, "fma")) {
        vk_fill_mem(k, 0x1000, 8, false, &seed);
        vk_fill_mem(k, 0x1200, 8, false, &seed);
        vk_setvl(k, n);
        vk_emit(k, VK_OP(KT_VEC_VSETI, .vd = 1));
        vk_word(k, 0x3FC000 | (uint32_t)(vk_mix(&seed) & 0x3FFF)); /* a in [1.5, 2) */
        vk_emit(k, VK_OP(KT_VEC_VFILL, .ad = 0, .off = 0));
        vk_emit(k, VK_OP(KT_VEC_VFILL, .ad = 1, .off = 8));
        vk_emit(k, vk_simple(KT_VEC_VBAR));
        vk_emit(k, VK_OP(KT_VEC_VLD, .vd = 0, .ad = 2, .dt = KT_VEC_DT_FP16));
        vk_emit(k, VK_OP(KT_VEC_VLD, .vd = 1, .ad = 3, .dt = KT_VEC_DT_FP16));
        vk_emit(k, VK_OP(KT_VEC_VFMA, .vd = 2, .va = 0, .vb = 1, .vc = 1, .sb = KT_VEC_SRC_S));
        vk_emit(k, VK_OP(KT_VEC_VST, .vd = 2, .ad = 4, .dt = KT_VEC_DT_FP16));
        vk_emit(k, VK_OP(KT_VEC_VDRAIN, .ad = 5, .off = 16));
        vk_emit(k, vk_simple(KT_VEC_VHALT));
        vk_desc(k, 0, 0x1000, 32, w);
        vk_desc(k, 1, 0x1200, 32, w);
        vk_desc(k, 2, 0, 1, 8);
        vk_desc(k, 3, 8, 1, 8);
        vk_desc(k, 4, 16, 1, 8);
        vk_desc(k, 5, 0x2000, 32, w);
        k->dump_addr = 0x2000, k->dump_words = w;
    } else if (!strcmp(kind, "ops") || !strcmp(kind, "edge")) {
        bool edge = kind[0] == 'e';
        unsigned in_words = edge ? 16 : 8, dt = edge ? KT_VEC_DT_FP32 : KT_VEC_DT_FP16;
        vk_fill_mem(k, 0x1000, in_words, edge, &seed);
        vk_fill_mem(k, 0x1400, in_words, edge, &seed);
        vk_fill_mem(k, 0x1800, in_words, edge, &seed);
        vk_setvl(k, n);
        vk_load_three(k, dt);
        vk_rows(k, 64);
        for (unsigned i = 0; i < 3; i++)
            vk_desc(k, i, 0x1000 + 0x400ull * i, 32, in_words);
        vk_drain_rows(k, VK_ROWS * VK_ROW_WORDS);
    } else if (!strcmp(kind, "chain")) {
        vk_setvl(k, 128);
        vk_emit(k, VK_OP(KT_VEC_VSETI, .vd = 2));
        vk_word(k, n);
        vk_emit(k, VK_OP(KT_VEC_VLOOP, .va = 2, .vb = 1));
        vk_emit(k, VK_OP(KT_VEC_VADD, .vd = 1, .va = 1, .vc = 0));
        vk_emit(k, vk_simple(KT_VEC_VHALT));
    } else if (!strcmp(kind, "indep")) {
        vk_setvl(k, 64);
        vk_emit(k, VK_OP(KT_VEC_VSETI, .vd = 2));
        vk_word(k, n);
        vk_emit(k, VK_OP(KT_VEC_VLOOP, .va = 2, .vb = 4));
        for (unsigned r = 1; r <= 4; r++)
            vk_emit(k, VK_OP(KT_VEC_VMUL, .vd = r, .va = 0, .vb = 0));
        vk_emit(k, vk_simple(KT_VEC_VHALT));
    } else if (!strcmp(kind, "ldst")) {
        vk_setvl(k, n);
        for (unsigned dt = KT_VEC_DT_FP16; dt <= KT_VEC_DT_FP32; dt++) {
            vk_emit(k, VK_OP(KT_VEC_VLD, .vd = 0, .ad = 0, .dt = dt));
            vk_emit(k, VK_OP(KT_VEC_VST, .vd = 0, .ad = 1, .dt = dt));
        }
        vk_emit(k, vk_simple(KT_VEC_VHALT));
        vk_desc(k, 0, 0, 1, 16);
        vk_desc(k, 1, 64, 1, 16);
    } else if (!strcmp(kind, "d2") || !strcmp(kind, "d4")) {
        /* chains over VL = N on FP16 inputs: a predicate from a FLAT compare, then in D2
         * v2 = P1 ? x * S1 + K1 : v2 and v4 = (x + K2) * S1; in D4 v2 = P1 ? max((x y + z) S1 - K1,
         * K0) : v2 and v4 = |x * K1 - S1| * S1 + K2; each stored as FP32 (a chained word names
         * no vector source, its unused selects K) */
        bool d4 = kind[1] == '4';
        vk_fill_mem(k, 0x1000, 8, false, &seed);
        vk_fill_mem(k, 0x1400, 8, false, &seed);
        vk_fill_mem(k, 0x1800, 8, false, &seed);
        vk_setvl(k, n);
        vk_emit(k, VK_OP(KT_VEC_VSETI, .vd = 1));
        vk_word(k, 0x3FB000 | (uint32_t)(vk_mix(&seed) & 0xFFF)); /* S1 in [1.375, 1.5) */
        vk_load_three(k, KT_VEC_DT_FP16);
        vk_emit(k, VK_OP(KT_VEC_VCMPLT, .va = 0, .vb = 1, .pr = 1));
        vk_emit(k, VK_OP(KT_VEC_VMOV, .vd = 2, .va = 3));
        vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = d4 ? KT_VEC_D4 : KT_VEC_D2));
        const unsigned C = KT_VEC_SRC_C, S = KT_VEC_SRC_S, K = KT_VEC_SRC_K;
        if (!d4) {
            vk_emit(k, VK_OP(KT_VEC_VMUL, .vd = 9, .va = 0, .vb = 1, .sb = S));
            vk_emit(k, VK_OP(KT_VEC_VADD, .vd = 2, .va = 0, .sa = C, .sb = K, .vc = 1, .sc = K,
                             .pr = 1, .pm = KT_VEC_PM_SET));
            vk_emit(k, VK_OP(KT_VEC_VADD, .vd = 9, .va = 0, .vc = 2, .sc = K));
            vk_emit(k, VK_OP(KT_VEC_VMUL, .vd = 4, .sa = C, .vb = 1, .sb = S, .sc = K));
        } else {
            vk_emit(k, VK_OP(KT_VEC_VFMA, .vd = 9, .va = 0, .vb = 1, .vc = 3));
            vk_emit(k, VK_OP(KT_VEC_VMUL, .vd = 9, .sa = C, .vb = 1, .sb = S, .sc = K));
            vk_emit(k, VK_OP(KT_VEC_VSUB, .vd = 9, .sa = C, .sb = K, .vc = 1, .sc = K));
            vk_emit(k, VK_OP(KT_VEC_VMAX, .vd = 2, .sa = C, .vb = 0, .sb = K, .sc = K, .pr = 1,
                             .pm = KT_VEC_PM_SET));
            vk_emit(k, VK_OP(KT_VEC_VMUL, .vd = 9, .va = 0, .vb = 1, .sb = K));
            vk_emit(k, VK_OP(KT_VEC_VSUB, .vd = 9, .sa = C, .sb = K, .vc = 1, .sc = S));
            vk_emit(k, VK_OP(KT_VEC_VABS, .vd = 9, .sa = C, .sb = K, .sc = K));
            vk_emit(k, VK_OP(KT_VEC_VFMA, .vd = 4, .sa = C, .vb = 1, .sb = S, .vc = 2, .sc = K));
        }
        vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_FLAT));
        vk_emit(k, VK_OP(KT_VEC_VST, .vd = 2, .ad = 4, .off = 64, .dt = KT_VEC_DT_FP32));
        vk_emit(k, VK_OP(KT_VEC_VST, .vd = 4, .ad = 4, .off = 80, .dt = KT_VEC_DT_FP32));
        for (unsigned i = 0; i < 3; i++)
            vk_desc(k, i, 0x1000 + 0x400ull * i, 32, 8);
        vk_drain_rows(k, 32);
    } else if (!strncmp(kind, "d2loop", 6) || !strncmp(kind, "d4loop", 6)) {
        /* N iterations of a chain that reads what the last wrote: d2loop at VL 128 (16 beats),
         * d4loop at VL 64 (16 beats), d4loop128 at VL 128 (32 beats: the pending-write count
         * is 5 bits and wraps) */
        bool d4 = kind[1] == '4';
        vk_setvl(k, !d4 || !strcmp(kind, "d4loop128") ? 128 : 64);
        vk_emit(k, VK_OP(KT_VEC_VSETI, .vd = 2));
        vk_word(k, n);
        vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = d4 ? KT_VEC_D4 : KT_VEC_D2));
        vk_emit(k, VK_OP(KT_VEC_VLOOP, .va = 2, .vb = d4 ? 4 : 2));
        vk_emit(k, VK_OP(KT_VEC_VADD, .vd = 5, .va = 5, .vc = 1, .sc = KT_VEC_SRC_K));
        for (unsigned i = 1; i < (d4 ? 4u : 2u); i++)
            vk_emit(k, VK_OP(KT_VEC_VMUL, .vd = 5, .sa = KT_VEC_SRC_C, .vb = 1, .sb = KT_VEC_SRC_K,
                             .sc = KT_VEC_SRC_K));
        vk_emit(k, vk_simple(KT_VEC_VHALT));
    } else if (!strcmp(kind, "red")) {
        /* TREE reductions over VL = N (a multiple of 16) of FP16 x and y: SUM, MAX, MIN of x,
         * SUMSQ (x x), DOT (x y) into S2..S6, then each broadcast at VL 16 and stored as FP32 */
        vk_fill_mem(k, 0x1000, 8, false, &seed);
        vk_fill_mem(k, 0x1400, 8, false, &seed);
        vk_setvl(k, n);
        for (unsigned i = 0; i < 2; i++)
            vk_emit(k, VK_OP(KT_VEC_VFILL, .ad = i, .off = (int)(16 * i)));
        vk_emit(k, vk_simple(KT_VEC_VBAR));
        for (unsigned i = 0; i < 2; i++)
            vk_emit(
                k, VK_OP(KT_VEC_VLD, .vd = i, .ad = 5, .off = (int)(16 * i), .dt = KT_VEC_DT_FP16));
        vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_TREE));
        const unsigned kinds[][2] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 1}}; /* kind, vb */
        for (unsigned i = 0; i < 5; i++)
            vk_emit(k,
                    VK_OP(KT_VEC_VRED, .vd = 2 + i, .va = 0, .vb = kinds[i][1], .vc = kinds[i][0]));
        vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_FLAT));
        vk_store_scalars(k, 2, 5, 64);
        for (unsigned i = 0; i < 2; i++)
            vk_desc(k, i, 0x1000 + 0x400ull * i, 32, 8);
        vk_drain_rows(k, 10);
    } else if (!strcmp(kind, "seed")) {
        vk_seed_kernel(k, n, &seed);
    } else if (!strcmp(kind, "expsum")) {
        vk_fill_f32(k, 0x1000, 16, 2, &seed);
        vk_setvl(k, n);
        vk_emit(k, VK_OP(KT_VEC_VFILL, .ad = 0, .off = 0));
        vk_emit(k, vk_simple(KT_VEC_VBAR));
        vk_emit(k, VK_OP(KT_VEC_VLD, .vd = 0, .ad = 5, .dt = KT_VEC_DT_FP32));
        vk_emit(k, VK_OP(KT_VEC_VSETMODE, .va = KT_VEC_TREE));
        vk_emit(k, VK_OP(KT_VEC_VRED, .vd = 1, .va = 0, .vb = 2, .vc = 5));
        vk_emit(k, VK_OP(KT_VEC_VRED, .vd = 2, .va = 2, .vc = 0));
        vk_emit(k, vk_simple(KT_VEC_VHALT));
        vk_desc(k, 0, 0x1000, 32, 16);
        vk_desc(k, 5, 0, 1, 16);
    } else if (!strcmp(kind, "pdrain")) {
        /* L1 words 0.. to the node at (1,2), its L1 word 200, DATA_RECEIVED to (0,1) */
        uint32_t w = 0;
        vk_emit(k, VK_OP(KT_VEC_VDRAIN, .ad = 0));
        w = k->imem[k->nimem - 1] | 1u << 25 | 1u << 24 | 1u << 17 | 2u << 13;
        k->imem[k->nimem - 1] = w;
        vk_emit(k, vk_simple(KT_VEC_VHALT));
        vk_desc(k, 0, 0x10ull << 16 | 200, 1, n);
    } else if (!strcmp(kind, "drain") || !strcmp(kind, "fill")) {
        vk_emit(k, VK_OP(kind[0] == 'd' ? KT_VEC_VDRAIN : KT_VEC_VFILL, .ad = 0));
        if (kind[0] == 'f')
            vk_emit(k, vk_simple(KT_VEC_VBAR));
        vk_emit(k, vk_simple(KT_VEC_VHALT));
        vk_desc(k, 0, 0x4000, 32, n);
        k->zero_addr = 0x4000, k->zero_words = n;
    } else
        return false;
    return !k->bad;
}

/* FNV-1a over bytes: the recorded form of a kernel's output. */
static inline uint32_t vk_fnv(const uint8_t *p, size_t n)
{
    uint32_t h = 0x811C9DC5u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x01000193u;
    return h;
}

#endif
