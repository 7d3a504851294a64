/* SPDX-License-Identifier: MIT */
/* Synthesis beyond the three captures: the parametric formulas (facts C.7) for the other
 * outputs and modes, and every limit with an error naming the value and the limit. */
#include "check.h"
#include "rk/program/rk_sched.h"
#include "npukit/rk_synth.h"

static uint32_t value_of(const npk_rk_entry *body, uint16_t reg, int copy)
{
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++)
        if (npk_rk_entry_reg(body[i]) == reg && copy-- == 0)
            return npk_rk_entry_value(body[i]);
    return 0xDEADBEEF;
}

static npk_status synth(npk_rk_mm *mm, npk_rk_entry *body)
{
    npk_clear_error();
    return npk_rk_synth_matmul(mm, body, NULL);
}

static void test_fp16_out(void)
{
    npk_rk_entry b[NPK_RK_MATMUL_BODY];
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 8, 64, 32);
    mm.out = NPK_PREC_FP16;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x4010, 0), 0x48000002);
    CHECK_EQ(value_of(b, 0x4084, 0), 0x10001); /* FP32TOFP16_EN */
    CHECK_EQ(value_of(b, 0x4050, 0), 0x126);
    CHECK_EQ(value_of(b, 0x40C0, 0), 0x20);
    CHECK_EQ(value_of(b, 0x4038, 0), ((32 / 8 - 1) << 16) | (32 / 8 - 1)); /* notch N/8-1 */
    CHECK_EQ(value_of(b, 0x107C, 0), 64 / 8);
    CHECK_EQ(value_of(b, 0x1044, 0), 2); /* K/32 */
}

static void test_strides_and_cube(void)
{
    npk_rk_entry b[NPK_RK_MATMUL_BODY];
    /* Strided activations: LINE_STRIDE = pitch/8 for fp16; a wider output row via the notch. */
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 16);
    mm.a_pitch = 256;
    mm.c_pitch = 64;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x107C, 0), 32);
    CHECK_EQ(value_of(b, 0x4038, 0), ((64 * 4 / 16 - 1) << 16) | (16 * 4 / 16 - 1));
    mm.a_pitch = 60;
    CHECK_EQ(synth(&mm, b), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "pitch 60");
    /* The widest pitches the two fields hold, and one unit beyond: refused, never cut to the
     * field's low bits (which silently read and wrote other rows). */
    mm.a_pitch = 0x0FFFFFFFu * 8; /* LINE_STRIDE all ones */
    mm.c_pitch = 8192 * 4;        /* NOTCH_ADDR_1 = 8191 for fp32 */
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x107C, 0), 0x0FFFFFFF);
    CHECK_EQ(value_of(b, 0x4038, 0) >> 16, 8191);
    mm.a_pitch += 8;
    CHECK_EQ(synth(&mm, b), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "feature row pitch 2147483648 is 268435456 16-byte units, "
                                    "beyond LINE_STRIDE's 28 bits (at most 2147483640 elements)");
    mm.a_pitch = 0;
    mm.c_pitch += 4;
    CHECK_EQ(synth(&mm, b), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "output row stride 32772 is 8193 16-byte units, beyond "
                                    "NOTCH_ADDR_1's 13 bits (at most 32768 elements of fp32)");
    mm.c_pitch = 0;
    /* Requantization settings are refused where they would be ignored or cut (they were). */
    mm.requant_scale = 5;
    CHECK_EQ(synth(&mm, b), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "applies only to int8->int8 and int8->int16 outputs, not "
                                    "fp16->fp32");
    mm = npk_rk_mm_default(NPK_PREC_INT8, 4, 512, 32);
    mm.out = NPK_PREC_INT8;
    mm.unchecked = true;
    mm.requant_shift = 7;
    CHECK_EQ(synth(&mm, b), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "shift 7 needs its multiplier");
    mm.requant_scale = 1234;
    mm.requant_shift = 4096;
    CHECK_EQ(synth(&mm, b), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "shift 4096 exceeds OUT_CVT_SHIFT's 12 bits (at most 4095)");
    mm.requant_shift = 4095;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x4084, 0), 1234);
    CHECK_EQ(value_of(b, 0x4088, 0), 4095);
    mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 16);
    /* fp16 in cube mode (mtx's geometry): LINE_STRIDE 4, SURF_STRIDE 4*(M/4-1), DST stride
     * M<<4, notch 0, SURFACE_ADD (M*F)<<4. */
    mm = npk_rk_mm_default(NPK_PREC_FP16, 8, 64, 32);
    mm.mode = NPK_MODE_CUBE;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x100C, 0), 0x120);
    CHECK_EQ(value_of(b, 0x107C, 0), 4);
    CHECK_EQ(value_of(b, 0x1080, 0), 4);
    CHECK_EQ(value_of(b, 0x4024, 0), 8 << 4);
    CHECK_EQ(value_of(b, 0x4038, 0), 0);
    CHECK_EQ(value_of(b, 0x40C0, 0), (8 * 4) << 4);
    mm.m = 6;
    CHECK_EQ(synth(&mm, b), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "M=6");
    /* int4 in line mode: LINE_STRIDE K/16 (int8's entry), notch N*2/16-1. */
    mm = npk_rk_mm_default(NPK_PREC_INT4, 2, 128, 64);
    mm.mode = NPK_MODE_LINE;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x107C, 0), 128 / 16);
    CHECK_EQ(value_of(b, 0x100C, 0), 0x20000360);
    CHECK_EQ(value_of(b, 0x4038, 0), ((64 * 2 / 16 - 1) << 16) | (64 * 2 / 16 - 1));
}

static void test_sched1_patches_every_copy(void)
{
    npk_rk_entry b[NPK_RK_MATMUL_BODY];
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 300, 512, 64);
    npk_rk_synth_info info;
    CHECK_EQ(npk_rk_synth_matmul(&mm, b, &info), NPK_OK);
    CHECK_EQ(info.sched, 1);
    /* D = ceil(64*5*512*2/32K) = 10 -> 0x2A; both copies carry it. */
    CHECK_EQ(value_of(b, 0x1040, 0), 0x2A);
    CHECK_EQ(value_of(b, 0x1040, 1), 0x2A);
    CHECK_EQ(value_of(b, 0x100C, 0), value_of(b, 0x100C, 1));
    CHECK_EQ(value_of(b, 0x1010, 0), 64 << 4); /* FEATURE_GRAINS = min(301, 32768/512) */
    mm.sched = 0;
    CHECK_EQ(synth(&mm, b), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "ceiling 32");
}

static void test_limits(void)
{
    npk_rk_entry b[NPK_RK_MATMUL_BODY];
    npk_rk_mm mm;
    struct {
        npk_rk_prec in;
        uint32_t m, k, n;
        int sched;
        npk_status want;
        const char *msg;
    } cases[] = {
        {NPK_PREC_FP16, 1, 10784, 16, -1, NPK_ELIMIT, "K=10784 exceeds the single-op limit 10752"},
        {NPK_PREC_INT8, 1, 10752, 32, -1, NPK_OK, ""},
        {NPK_PREC_FP16, 1, 10752, 16, -1, NPK_OK, ""},
        {NPK_PREC_FP16, 1, 64, 8208, -1, NPK_ELIMIT, "N=8208 exceeds 8192"},
        {NPK_PREC_FP16, 1, 64, 8192, -1, NPK_OK, ""},
        {NPK_PREC_FP16, 1, 100, 16, -1, NPK_ELIMIT, "K=100 is not a multiple of 32"},
        {NPK_PREC_FP16, 1, 64, 17, -1, NPK_ELIMIT, "N=17 is not a multiple of 16"},
        {NPK_PREC_INT8, 1, 64, 48, -1, NPK_ELIMIT, "multiple of 32"},
        {NPK_PREC_INT4, 1, 64, 96, -1, NPK_ELIMIT, "multiple of 64"},
        {NPK_PREC_INT4, 1, 512, 64, -1, NPK_ELIMIT, "int16 accumulator"},
        {NPK_PREC_INT4, 1, 480, 64, -1, NPK_OK, ""},
        {NPK_PREC_FP16, 705, 256, 16, -1, NPK_ELIMIT, "M=705 exceeds every schedule"},
        {NPK_PREC_FP16, 704, 256, 16, -1, NPK_OK, ""},
        {NPK_PREC_FP16, 4, 64, 16, 1, NPK_ELIMIT, "K >= 96"},
        {NPK_PREC_INT8, 4, 128, 32, 1, NPK_ELIMIT, "K >= 256"},
        {NPK_PREC_INT8, 705, 512, 32, 1, NPK_ELIMIT, "ceiling 704"},
        {NPK_PREC_FP16, 257, 128, 16, 1, NPK_ELIMIT, "ceiling 256"},
        {NPK_PREC_INT8, 1024, 32, 32, -1, NPK_ELIMIT, "FEATURE_GRAINS=1025"},
        {NPK_PREC_FP16, 0, 32, 16, -1, NPK_EINVAL, "at least 1"},
        {NPK_PREC_BF16, 1, 32, 16, -1, NPK_EINVAL, "bf16"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mm = npk_rk_mm_default(cases[i].in, cases[i].m, cases[i].k, cases[i].n);
        mm.sched = cases[i].sched;
        npk_status s = synth(&mm, b);
        if (s != cases[i].want)
            fprintf(stderr, "case %u: status %s (%s)\n", i, npk_status_name(s), npk_last_error());
        CHECK_EQ(s, cases[i].want);
        CHECK_STR_HAS(npk_last_error(), cases[i].msg);
    }
    /* Outputs: narrow int8 outputs are refused (they never complete) unless unchecked. */
    mm = npk_rk_mm_default(NPK_PREC_INT8, 4, 512, 32);
    mm.out = NPK_PREC_INT16;
    CHECK_EQ(synth(&mm, b), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "never completes");
    mm.unchecked = true;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x4010, 0), 0x20000000);
    CHECK_EQ(value_of(b, 0x4050, 0), 0x36E);
    mm.out = NPK_PREC_INT8;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x4010, 0), 0);
    CHECK_EQ(value_of(b, 0x4050, 0), 0x124);
    CHECK_EQ(value_of(b, 0x4084, 0), 0x4000);
    CHECK_EQ(value_of(b, 0x4088, 0), 14);
    /* int8 -> fp16: the spec's DATA_FORMAT 0x40000000 ("DPU output stages"), refused as a
     * never-completing output naming its evidence; its converter takes no requantization */
    mm = npk_rk_mm_default(NPK_PREC_INT8, 4, 512, 32);
    mm.out = NPK_PREC_FP16;
    CHECK_EQ(synth(&mm, b), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "facts J.10");
    mm.unchecked = true;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x4010, 0), 0x40000000);
    CHECK_EQ(value_of(b, 0x4050, 0), 0x36E); /* 2-byte output: F = 4, SIZE_E 3 */
    CHECK_EQ(value_of(b, 0x4084, 0), 1);
    mm.requant_scale = 3;
    CHECK_EQ(synth(&mm, b), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not int8->fp16");
    mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 16);
    mm.out = NPK_PREC_INT32;
    CHECK_EQ(synth(&mm, b), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fp32 or fp16");
    /* --unchecked emits what the hardware is shown: K past the limit, N past 8192 (the 13-bit
     * channel fields wrap, which is why the hardware is silently wrong), sched 1 at small K. */
    mm = npk_rk_mm_default(NPK_PREC_FP16, 1, 10784, 8208);
    mm.unchecked = true;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x1088, 0), 10784);
    CHECK_EQ(value_of(b, 0x403C, 0) & 0x1FFF, (8208 - 1) & 0x1FFF);
    mm = npk_rk_mm_default(NPK_PREC_FP16, 4, 64, 16);
    mm.sched = 1;
    mm.unchecked = true;
    CHECK_EQ(synth(&mm, b), NPK_OK);
    CHECK_EQ(value_of(b, 0x1040, 1), 0xBC); /* the value that gives zeros on silicon */
}

int main(void)
{
    test_fp16_out();
    test_strides_and_cube();
    test_sched1_patches_every_copy();
    test_limits();
    return check_done();
}
