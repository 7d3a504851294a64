/* SPDX-License-Identifier: MIT */
/* The matmul cluster's accumulator adder and EMIT's FP16 conversion (src/kt/hw/mxfp_fp22.c)
 * against the RTL: upstream KohakuTPU's mx_fpacc_align, mx_fpacc_round_a and mx_fpacc_round_b
 * chained as the accumulation unit chains them, and mx_fpacc_to_fp16, all at ACC_MW = 14 (commit
 * 7703ee8, src/kohakutpu/matmul/mx_fpacc.v), evaluated under Verilator 5.006 on the 8192 operand
 * pairs of kt_fp22_vectors.h. Each row of rtl_fnv is, for one class of pairs (index mod 8), the
 * FNV-1a of the sums the RTL produced (4 bytes each, little-endian) and of the FP16 of the first
 * operand (2 bytes each); all 8192 sums and conversions matched the model bit for bit. Then the
 * cases worked by hand where the adder differs from rounding the exact sum once (the format's
 * rounding, kt_mx_acc_round): a difference whose smaller operand lost bits, a sum that reaches
 * exponent 127; and EMIT's rounding carry out of the flushed range. */
#include <math.h>

#include "check.h"
#include "common/dense.h"
#include "kt/hw/mxfp.h"
#include "kt_fp22_vectors.h"

static const uint64_t rtl_fnv[8][2] = {
    {0xE060DA9C0612EADBULL, 0x5556922C3514CA67ULL},
    {0x4677F75800BD0CF7ULL, 0x00867BA306DBA511ULL},
    {0x56487EACB75FAFCAULL, 0x6EB61C039AA6C146ULL},
    {0x2A6B7B9E7C71B7BCULL, 0xE46F446BFBA0C939ULL},
    {0x8E1DD4219F7BD2D3ULL, 0x6FECDF48E8BAF825ULL},
    {0x8898C16AA4D020B2ULL, 0x296B8B27C4CA2E25ULL},
    {0xE040A5057D62353EULL, 0xE2F95CFECAADB71BULL},
    {0xFFF6039F2E7560F2ULL, 0x3B5EB4C8F6ABAEC8ULL},
};

static uint64_t fnv(uint64_t h, uint32_t v, unsigned bytes)
{
    for (unsigned k = 0; k < bytes; k++) {
        h ^= v >> (8 * k) & 0xFF;
        h *= 0x100000001B3ull;
    }
    return h;
}

static void test_rtl_vectors(void)
{
    uint64_t sum[8], half[8];
    unsigned differ[8] = {0};
    for (unsigned c = 0; c < 8; c++)
        sum[c] = half[c] = 0xCBF29CE484222325ull;
    for (unsigned i = 0; i < KT_FP22_CASES; i++) {
        uint32_t a, b;
        kt_fp22_pair(i, &a, &b);
        uint32_t s = kt_mx_fp22_add(a, b);
        sum[i % 8] = fnv(sum[i % 8], s, 4);
        half[i % 8] = fnv(half[i % 8], kt_mx_fp22_to_fp16(a), 2);
        /* the adder is commutative, as the RTL's ordering by magnitude makes it */
        CHECK_EQ(kt_mx_fp22_add(b, a), s);
        /* against rounding the exact sum once, apart from the results at exponent 127 */
        double once = kt_mx_acc_round(kt_mx_fp22_value(a) + kt_mx_fp22_value(b));
        if (kt_mx_fp22_value(s) != once)
            differ[i % 8] += (s >> 14 & 0x7F) == 127 || fabs(once) >= 0x1p64 ? 1000 : 1;
    }
    for (unsigned c = 0; c < 8; c++) {
        CHECK_EQ(sum[c], rtl_fnv[c][0]);
        CHECK_EQ(half[c], rtl_fnv[c][1]);
    }
    /* where the adder and rounding once part (thousands: at exponent 127): differences whose
     * smaller operand lost bits (class 2), results reaching exponent 127 (classes 2, 3, 5, 7);
     * never elsewhere, and below exponent 127 never for a sum */
    const unsigned want[8] = {0, 0, 4022, 8000, 0, 222000, 0, 12000};
    for (unsigned c = 0; c < 8; c++)
        CHECK_EQ(differ[c], want[c]);
}

static uint32_t fp22(unsigned s, unsigned e, uint32_t f) { return kt_fp22_make(s, e, f); }

static void test_by_hand(void)
{
    /* 1 - (1 + 2^-14) * 2^-16: the smaller operand, 16 binades down, keeps 1.0000000 of its
     * significand and loses its last bit. The truncated difference 1 - 2^-16 is the halfway
     * point between 1 - 2^-15 and 1 with the lost bit as sticky: the adder rounds up to 1.0;
     * the exact difference lies below the halfway point and rounds once to 1 - 2^-15. */
    uint32_t one = fp22(0, 63, 0), b = fp22(1, 63 - 16, 1);
    CHECK(kt_mx_fp22_value(one) == 1.0);
    CHECK(kt_mx_fp22_value(b) == -(1 + 0x1p-14) * 0x1p-16);
    CHECK_EQ(kt_mx_fp22_add(one, b), one);
    CHECK(kt_mx_acc_round(1.0 - (1 + 0x1p-14) * 0x1p-16) == 1.0 - 0x1p-15);
    /* the same with a set fraction bit two places further down is no tie: both agree */
    CHECK(kt_mx_fp22_value(kt_mx_fp22_add(one, fp22(1, 63 - 16, 0x100))) ==
          kt_mx_acc_round(1.0 - (1 + 0x100 * 0x1p-14) * 0x1p-16));
    /* 2^63 + 2^63 = 2^64 reaches exponent field 127, which the adder saturates: the largest
     * magnitude (2 - 2^-14) * 2^64, with the sign; rounding once keeps 2^64 */
    uint32_t big = fp22(0, 126, 0);
    CHECK_EQ(kt_mx_fp22_add(big, big), fp22(0, 127, 0x3FFF));
    CHECK_EQ(kt_mx_fp22_add(big | 1u << 21, big | 1u << 21), fp22(1, 127, 0x3FFF));
    CHECK(kt_mx_acc_round(0x1p64) == 0x1p64);
    /* the bottom of the range: 2^-62 + 2^-62 = 2^-61; a difference below 2^-62 is +0 */
    CHECK_EQ(kt_mx_fp22_add(fp22(0, 1, 0), fp22(0, 1, 0)), fp22(0, 2, 0));
    CHECK_EQ(kt_mx_fp22_add(fp22(1, 1, 0x3FFF), fp22(0, 1, 0x3FFE)), 0u);
    /* exact cancellation is +0; a zero operand (exponent 0) passes the other unchanged */
    CHECK_EQ(kt_mx_fp22_add(fp22(1, 70, 123), fp22(0, 70, 123)), 0u);
    CHECK_EQ(kt_mx_fp22_add(fp22(1, 0, 77), fp22(1, 70, 123)), fp22(1, 70, 123));
    /* EMIT: 0x3FF8 is 1.1111111111 and a guard bit, rounding up out of FP16 exponent 0 into
     * 2^-14 (0x0400); the exponent is tested after the carry */
    CHECK_EQ(kt_mx_fp22_to_fp16(fp22(0, 48, 0x3FF8)), 0x0400);
    CHECK_EQ(kt_mx_fp22_to_fp16(fp22(1, 48, 0x3FF7)), 0x8000);
    CHECK_EQ(kt_mx_acc_to_fp16(1.0), 0x3C00);
    CHECK_EQ(kt_mx_fp22_to_fp16(fp22(0, 63 + 16, 0)), 0x7BFF); /* 65536 saturates */
    CHECK_EQ(kt_mx_fp22_to_fp16(fp22(0, 63, 0x0018)), 0x3C02);  /* a tie to even, rounded up */
    CHECK_EQ(kt_mx_fp22_to_fp16(fp22(0, 63, 0x0008)), 0x3C00);  /* a tie to even, kept */
    /* the pattern of a value and back */
    for (uint32_t v = 0; v < 0x400000; v += 0x1235) {
        uint32_t p = (v >> 14 & 0x7F) ? v : 0;
        CHECK_EQ(kt_mx_fp22_of(kt_mx_fp22_value(p)), p);
    }
}

/* The drain's conversion of a sub-tile at once (kt_mx_fp22_to_fp16_n), vector and portable,
 * against the one-value conversion over every 22-bit pattern, in runs of 16 and a tail. */
static void test_convert_n(void)
{
    enum { N = 1 << 22, STEP = 16 * 256 + 5 };
    static uint32_t v[STEP];
    static uint16_t h[STEP];
    unsigned bad = 0;
    for (int portable = 0; portable < 2; portable++) {
        npk_dense_force_portable(portable);
        for (uint32_t at = 0; at < N; at += STEP) {
            uint32_t n = N - at < STEP ? N - at : STEP;
            for (uint32_t i = 0; i < n; i++)
                v[i] = at + i;
            kt_mx_fp22_to_fp16_n(v, h, n);
            for (uint32_t i = 0; i < n; i++)
                if (h[i] != kt_mx_fp22_to_fp16(v[i]) && bad++ < 5)
                    fprintf(stderr, "fp22 0x%06x: 0x%04x, one at a time 0x%04x\n", (unsigned)v[i],
                            h[i], kt_mx_fp22_to_fp16(v[i]));
        }
    }
    npk_dense_force_portable(false);
    CHECK_EQ(bad, 0u);
}

int main(void)
{
    test_rtl_vectors();
    test_by_hand();
    test_convert_n();
    return check_done();
}
