/* SPDX-License-Identifier: MIT */
/* The vector lane's seeds (2^x, log2 x, 1/x, 1/sqrt x) and the EXPSUM reduction:
 *
 *   - the coefficient table against a digest of the RTL's ROM, and each row against the function
 *     it interpolates;
 *   - the lane's outputs against outputs recorded from the RTL: upstream's vec_alu (KohakuTPU
 *     7703ee8, MODEL = 1) under Verilator 5.006, fed every 251st 24-bit operand (66 842 per
 *     seed), each row the FNV-1a of the 3-byte results in order; and 64 edge operands by value.
 *     The same bench ran all 2^24 operands of each seed against this model with no difference;
 *   - the seeds against the CPU (double precision): within 0.75 ulp (log2: 2^-19 plus half an
 *     ulp), and exact at the identities;
 *   - a kernel's EXPSUM against the CPU: each 2^z it writes back (predicated by P1, under the mode
 *     the last arithmetic word left), and the sum within its rounding. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kt/hw/e8m15.h"
#include "kt_vec_testlib.h"

static const kt_e8_op seeds[] = {KT_E8_EXP2, KT_E8_LOG2, KT_E8_INV, KT_E8_RSQRT};

static uint32_t fnv_bytes(uint32_t h, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        h = (h ^ (v >> (8 * i) & 0xFF)) * 0x01000193u;
    return h;
}

/* The ROM's rows in its address order ({function, index}: exp2 0..31, log2 64..95, inv 128..159,
 * rsqrt 192..255), each as three little-endian int32; the digest taken from the RTL's
 * vec_tables.v at 7703ee8. */
static void table_matches_rtl(void)
{
    uint32_t h = 0x811C9DC5u;
    unsigned rows = 0;
    for (unsigned f = 0; f < 4; f++)
        for (unsigned idx = 0; idx < 64; idx++) {
            int32_t c[3];
            if (!kt_e8_seed_row(seeds[f], idx, c))
                continue;
            rows++;
            for (int j = 0; j < 3; j++)
                h = fnv_bytes(h, (uint32_t)c[j], 4);
        }
    CHECK_EQ(rows, 160u);
    CHECK_EQ(h, 0x6ac59252u);
    int32_t c[3];
    CHECK(!kt_e8_seed_row(KT_E8_EXP2, 32, c));
    CHECK(!kt_e8_seed_row(KT_E8_ADD, 0, c));
}

/* Each row, evaluated in double at 33 offsets, is within 2^-19 of its function. */
static void rows_interpolate_their_functions(void)
{
    double worst = 0;
    for (unsigned f = 0; f < 4; f++)
        for (unsigned idx = 0; idx < 64; idx++) {
            int32_t c[3];
            if (!kt_e8_seed_row(seeds[f], idx, c))
                continue;
            for (int i = 0; i <= 32; i++) {
                double t = i / 32.0, x = ((idx % 32) + t) / 32.0;
                double want = seeds[f] == KT_E8_EXP2   ? exp2(x) - 1
                              : seeds[f] == KT_E8_LOG2 ? log2(1 + x)
                              : seeds[f] == KT_E8_INV  ? 1 / (1 + x)
                                                       : 1 / sqrt((idx >= 32 ? 2 : 1) * (1 + x));
                double got = ldexp(c[0], -20) + ldexp(c[1], -24) * t + ldexp(c[2], -28) * t * t;
                worst = fmax(worst, fabs(got - want));
            }
        }
    printf("  table: worst interpolation error 2^%.2f\n", log2(worst));
    CHECK(worst < ldexp(1, -19));
}

/* RTL outputs over every 251st operand (KohakuTPU 7703ee8, vec_alu under Verilator 5.006). */
static void lane_matches_rtl(void)
{
    static const uint32_t rtl_fnv[] = {0x8e031747, 0xcee6f023, 0x2d416f1a, 0xe3057cec};
    for (unsigned f = 0; f < 4; f++) {
        uint32_t h = 0x811C9DC5u;
        for (uint32_t a = 0; a < 1u << 24; a += 251)
            h = fnv_bytes(h, kt_e8_alu(seeds[f], a, 0, 0, NULL), 3);
        CHECK_EQ(h, rtl_fnv[f]);
    }
    /* edge operands and the RTL's results: specials, identities, the range limits; 2^x for
     * 128 <= |x| < 256 wraps in the 25-bit reduction (2^128 is 0, 2^-149 is 2^107) */
    static const struct {
        kt_e8_op op;
        uint32_t a, want;
    } edge[] = {
        {KT_E8_EXP2, 0x000000, 0x3f8000},  {KT_E8_EXP2, 0x800000, 0x3f8000},
        {KT_E8_EXP2, 0x3f8000, 0x400000},  {KT_E8_EXP2, 0xbf8000, 0x3f0000},
        {KT_E8_EXP2, 0x3f0000, 0x3fb505},  {KT_E8_EXP2, 0x42fe00, 0x7f0000},
        {KT_E8_EXP2, 0x42ff00, 0x7f3505},  {KT_E8_EXP2, 0x430000, 0x000000},
        {KT_E8_EXP2, 0x437fff, 0x3f7f4f},  {KT_E8_EXP2, 0xc2fc00, 0x008000},
        {KT_E8_EXP2, 0xc2fe00, 0x000000},  {KT_E8_EXP2, 0xc30000, 0x000000},
        {KT_E8_EXP2, 0xc31500, 0x750000},  {KT_E8_EXP2, 0xc37fff, 0x3f8059},
        {KT_E8_EXP2, 0x438000, 0x7f8000},  {KT_E8_EXP2, 0xc38000, 0x000000},
        {KT_E8_EXP2, 0x7f8000, 0x7f8000},  {KT_E8_EXP2, 0xff8000, 0x000000},
        {KT_E8_EXP2, 0x7fc000, 0x7fc000},  {KT_E8_EXP2, 0x358000, 0x3f8000},
        {KT_E8_EXP2, 0xb58000, 0x3f8000},  {KT_E8_EXP2, 0x3f7fff, 0x3fffff},
        {KT_E8_EXP2, 0xbf7fff, 0x3f0000},  {KT_E8_LOG2, 0x3f8000, 0x000000},
        {KT_E8_LOG2, 0x400000, 0x3f8000},  {KT_E8_LOG2, 0x3f0000, 0xbf8000},
        {KT_E8_LOG2, 0x404000, 0x3fcae0},  {KT_E8_LOG2, 0x000000, 0xff8000},
        {KT_E8_LOG2, 0x800000, 0xff8000},  {KT_E8_LOG2, 0xbf8000, 0x7fc000},
        {KT_E8_LOG2, 0x7f8000, 0x7f8000},  {KT_E8_LOG2, 0xff8000, 0x7fc000},
        {KT_E8_LOG2, 0x7fc000, 0x7fc000},  {KT_E8_LOG2, 0x7f7fff, 0x430000},
        {KT_E8_LOG2, 0x008000, 0xc2fc00},  {KT_E8_LOG2, 0x3f8001, 0x383800},
        {KT_E8_LOG2, 0x3f7fff, 0xb7c000},  {KT_E8_INV, 0x3f8000, 0x3f8000},
        {KT_E8_INV, 0x400000, 0x3f0000},   {KT_E8_INV, 0xc00000, 0xbf0000},
        {KT_E8_INV, 0x404000, 0x3eaaab},   {KT_E8_INV, 0x000000, 0x7f8000},
        {KT_E8_INV, 0x800000, 0xff8000},   {KT_E8_INV, 0x7f8000, 0x000000},
        {KT_E8_INV, 0xff8000, 0x800000},   {KT_E8_INV, 0x7fc000, 0x7fc000},
        {KT_E8_INV, 0x7f7fff, 0x000000},   {KT_E8_INV, 0x7f0000, 0x000000},
        {KT_E8_INV, 0x008000, 0x7e8000},   {KT_E8_INV, 0x3f8001, 0x3f7ffe},
        {KT_E8_INV, 0x3fffff, 0x3f0000},   {KT_E8_RSQRT, 0x3f8000, 0x3f8000},
        {KT_E8_RSQRT, 0x408000, 0x3f0000}, {KT_E8_RSQRT, 0x400000, 0x3f3505},
        {KT_E8_RSQRT, 0x3e8000, 0x400000}, {KT_E8_RSQRT, 0x000000, 0x7f8000},
        {KT_E8_RSQRT, 0x800000, 0x7f8000}, {KT_E8_RSQRT, 0xc08000, 0x7fc000},
        {KT_E8_RSQRT, 0x7f8000, 0x000000}, {KT_E8_RSQRT, 0x7fc000, 0x7fc000},
        {KT_E8_RSQRT, 0x7f7fff, 0x1f8000}, {KT_E8_RSQRT, 0x008000, 0x5f0000},
        {KT_E8_RSQRT, 0x010000, 0x5eb505}, {KT_E8_RSQRT, 0x3f8001, 0x3f7fff},
        {KT_E8_RSQRT, 0x3fffff, 0x3f3505},
    };
    for (unsigned i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        bool pred = true;
        uint32_t got = kt_e8_alu(edge[i].op, edge[i].a, 0x123456, 0x654321, &pred);
        if (got != edge[i].want)
            printf("  op %d of %06x: %06x, the RTL %06x\n", edge[i].op, edge[i].a, got,
                   edge[i].want);
        CHECK_EQ(got, edge[i].want);
        CHECK(!pred);
    }
    /* a seed reads a alone: b and c change nothing */
    CHECK_EQ(kt_e8_alu(KT_E8_INV, 0x404000, 0x7FC000, 0xFF8000, NULL), 0x3eaaabu);
    CHECK_EQ(kt_e8_seed(KT_E8_ADD, 0x3f8000), (uint32_t)KT_E8_NAN); /* not a seed */
}

static double reference(kt_e8_op op, double x)
{
    return op == KT_E8_EXP2   ? exp2(x)
           : op == KT_E8_LOG2 ? log2(x)
           : op == KT_E8_INV  ? 1 / x
                              : 1 / sqrt(x);
}

/* The seeds against double precision over 200 000 random normal operands a seed, where the
 * exact result is a normal E8M15 value (2^x: |x| < 128). */
static void seeds_against_cpu(void)
{
    uint64_t s = 36;
    for (unsigned f = 0; f < 4; f++) {
        kt_e8_op op = seeds[f];
        double worst = 0;
        unsigned n = 0;
        for (int i = 0; i < 200000; i++) {
            uint32_t a = (uint32_t)vk_mix(&s) & 0xFFFFFF;
            unsigned e = a >> 15 & 0xFF;
            double x = kt_e8_value(a);
            if (e == 0 || e == 0xFF || (op == KT_E8_EXP2 && fabs(x) >= 128) ||
                ((op == KT_E8_LOG2 || op == KT_E8_RSQRT) && x < 0))
                continue;
            double want = reference(op, x), got = kt_e8_value(kt_e8_seed(op, a));
            if (fabs(want) < ldexp(1, -126) || fabs(want) >= ldexp(1, 128))
                continue; /* flushed or out of range */
            int ex;
            frexp(want, &ex);
            double half_ulp = ldexp(1, ex - 17);
            double bound =
                op == KT_E8_LOG2 ? ldexp(1, -19) + (want ? half_ulp : 0) : 1.5 * half_ulp;
            double r = fabs(got - want) / bound;
            worst = fmax(worst, r);
            n++;
        }
        printf("  seed %d: %u operands, worst error %.3f of its bound\n", op, n, worst);
        CHECK(n > 50000);
        CHECK(worst <= 1.0);
    }
    /* the identities are exact */
    for (int k = -126; k <= 127; k++) {
        uint32_t pk = (uint32_t)(k + 127) << 15; /* 2^k */
        double kd = k;
        float kf = (float)kd;
        uint32_t kb;
        memcpy(&kb, &kf, 4);
        CHECK_EQ(kt_e8_value(kt_e8_seed(KT_E8_EXP2, kb >> 8)), ldexp(1, k));
        CHECK_EQ(kt_e8_value(kt_e8_seed(KT_E8_LOG2, pk)), kd);
        if (k > -127 && k < 127)
            CHECK_EQ(kt_e8_value(kt_e8_seed(KT_E8_INV, pk)), ldexp(1, -k));
        if (k % 2 == 0)
            CHECK_EQ(kt_e8_value(kt_e8_seed(KT_E8_RSQRT, pk)), ldexp(1, -k / 2));
    }
}

/* Element e of a register the seed kernel stored as FP32 at L1 rows `row` (as is: the high
 * eight of each chunk at its even word) and `row` + 1 (rotated by 8: the low eight). */
static uint32_t stored(const uint8_t *out, unsigned row, unsigned e)
{
    unsigned chunk = e / 16, slot = e % 16, r = slot >= 8 ? row : row + 1;
    const uint8_t *p = out + 32 * (VK_ROW_WORDS * r + 2 * chunk) + 4 * (slot % 8);
    uint32_t f = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return f >> 8;
}

/* An FP32 input of the kernel, as the load rounded it. */
static uint32_t input(const vk_kernel *k, uint64_t base, unsigned e)
{
    for (unsigned i = 0; i < k->nmem; i++)
        if (k->mem[i].addr == base + 32ull * (e / 8)) {
            const uint8_t *p = k->mem[i].b + 4 * (e % 8);
            return kt_e8_from_f32((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                  (uint32_t)p[3] << 24);
        }
    return 0;
}

/* The seed kernel at VL 128 through the simulator: its first row's log2 and the EXPSUM rows
 * against the CPU. */
static void expsum_against_cpu(void)
{
    vk_kernel k;
    CHECK(vk_build("seed", 128, &k));
    vk_run r;
    if (!vk_open(&r)) {
        CHECK(!"the mesh builds");
        return;
    }
    CHECK_EQ(vk_exec(&r, &k, NULL, NULL), NPK_OK);
    static uint8_t out[256 * 32];
    CHECK_EQ(ktsim_dram_read(r.s, k.dump_addr, out, 32ull * k.dump_words), NPK_OK);
    ktsim_destroy(r.s);
    double sum = 0, mag = 0;
    unsigned written = 0;
    for (unsigned e = 0; e < 128; e++) {
        uint32_t x = input(&k, 0x1000, e), z = input(&k, 0x1800, e);
        CHECK_EQ(stored(out, 0, e), kt_e8_seed(KT_E8_LOG2, x)); /* row 0: VLOG2 of x */
        double p = exp2(kt_e8_value(z));
        sum += kt_e8_value(kt_e8_seed(KT_E8_EXP2, z));
        mag += p;
        /* v6: 2^z where z < x (P1, under the predicated VMOV's mode), x elsewhere */
        bool p1 = kt_e8_value(z) < kt_e8_value(x); /* false for a NaN x */
        uint32_t got = stored(out, 10, e);
        if (p1) {
            written++;
            CHECK(fabs(kt_e8_value(got) - p) <= ldexp(fabs(p), -16));
        } else
            CHECK_EQ(got, x);
    }
    CHECK(written > 10 && written < 118);
    /* S3, broadcast and stored at word 16 * 14 (its high eight) */
    const uint8_t *w = out + 32 * (VK_ROW_WORDS * 14);
    uint32_t s3 =
        ((uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24) >> 8;
    printf("  EXPSUM of 128: %.6f, the CPU %.6f\n", kt_e8_value(s3), mag);
    /* 127 additions, each within half an ulp of a partial sum no larger than the total */
    CHECK(fabs(kt_e8_value(s3) - sum) <= 128 * ldexp(mag, -16));
    CHECK(fabs(kt_e8_value(s3) - mag) <= 160 * ldexp(mag, -16));
}

int main(void)
{
    table_matches_rtl();
    rows_interpolate_their_functions();
    lane_matches_rtl();
    seeds_against_cpu();
    expsum_against_cpu();
    return check_done();
}
