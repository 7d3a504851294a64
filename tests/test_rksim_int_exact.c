/* SPDX-License-Identifier: MIT */
/* The simulator's integer matmuls are exact: int8 -> int32 and int4 -> int16 (saturating) on
 * random and extreme operands, at K on both sides of the fp32 chunk (int8: 1024 products) and
 * across weight tiles, in line and cube mode, against a scalar double reference; a saturating
 * int4 case and one whose running sum leaves int16 while its total does not. The element runs
 * (operand loads, result stores) against npk_rk_prec_load/store on every byte value; weights
 * changed in place between two submits are read again. */
#include "rksim_testlib.h"

#include "rksim/elements.h"

/* MIXED: op_min with a random value every third element, so sums pass 2^24 with low bits set
 * (one fp32 sum would round them) */
enum fill { RANDOM, ALL_MIN, ALL_MAX, HALVES, MIXED };

static void fill(npk_rk_prec p, int8_t *v, size_t count, enum fill how, uint32_t rows, bool a_side)
{
    const npk_rk_prec_row *row = npk_rk_input_row(p);
    for (size_t i = 0; i < count; i++) {
        switch (how) {
        case RANDOM: break;
        case MIXED:
            if (i % 3)
                v[i] = (int8_t)row->op_min;
            break;
        case ALL_MIN: v[i] = (int8_t)row->op_min; break;
        case ALL_MAX: v[i] = (int8_t)row->op_max; break;
        case HALVES: /* A: op_min everywhere; B: op_min in the first half of K, op_max after */
            v[i] = (int8_t)(a_side || i / rows < count / rows / 2 ? row->op_min : row->op_max);
            break;
        }
    }
}

static void int_case(npk_rk_prec in, int mode, uint32_t m, uint32_t k, uint32_t n, enum fill how)
{
    npk_rk_device *d = tl_open(0);
    tl_case t;
    npk_rk_prec out = npk_rk_input_row(in)->acc;
    tl_case_init(&t, in, out, m, k, n); /* random operands */
    fill(in, t.a, (size_t)m * k, how, k, true);
    fill(in, t.b, (size_t)k * n, how, n, false); /* B is [K][N]: a row per k */
    tl_case_reference(&t);
    npk_rk_mm mm = npk_rk_mm_default(in, m, k, n);
    mm.mode = mode;
    /* int4 past K = 511 can saturate: the synthesizer emits it only when told to */
    mm.unchecked = in == NPK_PREC_INT4 && k > 511;
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    npk_rk_devtask tk;
    npk_status st = npk_rk_devtask_create(d, &mm, 0, &tk);
    CHECK_EQ(st, NPK_OK);
    if (st) {
        fprintf(stderr, "%s\n", npk_last_error());
        tl_case_free(&t);
        npk_rk_device_close(d);
        return;
    }
    CHECK_EQ(npk_rk_devtask_load(d, &tk, t.a, t.b), NPK_OK);
    struct rknpu_submit sub;
    CHECK_EQ(npk_rk_devtask_submit(d, &tk, 0, 6000, &sub), NPK_OK);
    CHECK_EQ(npk_rk_devtask_read(d, &tk, t.c), NPK_OK);
    size_t bad = tl_mismatches(&t);
    if (bad)
        fprintf(stderr, "%s mode %d %ux%ux%u fill %d: %zu mismatches\n", npk_rk_prec_name(in), mode,
                m, k, n, (int)how, bad);
    CHECK_EQ(bad, 0);
    npk_rk_devtask_destroy(d, &tk);
    tl_case_free(&t);
    npk_rk_device_close(d);
}

/* int8: every product of two -128 is 2^14, so 1024 of them reach 2^24 (the chunk's limit) and
 * K = 2080 sums to 34 078 720; MIXED sums there have low bits that one fp32 sum would round. */
static void test_int8(void)
{
    static const uint32_t ks[] = {32, 992, 1024, 1056, 2048, 2080, 4096};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++)
        for (int how = RANDOM; how <= MIXED; how++)
            int_case(NPK_PREC_INT8, NPK_MODE_LINE, 3, ks[i], 64, (enum fill)how);
    int_case(NPK_PREC_INT8, NPK_MODE_CUBE, 8, 1056, 96, RANDOM);
    int_case(NPK_PREC_INT8, NPK_MODE_CUBE, 1, 1056, 32, ALL_MIN);
}

/* int4: K * 64 passes 32767 from K = 512 on, so all -8 saturates there (the clamp is the
 * output conversion's, applied to the exact sum); HALVES runs down to -64 * K / 2 and back to
 * 0, which the model keeps exact. */
static void test_int4(void)
{
    static const uint32_t ks[] = {32, 480, 512, 544, 1024, 2048};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++)
        for (int how = RANDOM; how <= MIXED; how++) {
            int_case(NPK_PREC_INT4, NPK_MODE_CUBE, 4, ks[i], 128, (enum fill)how);
            int_case(NPK_PREC_INT4, NPK_MODE_LINE, 3, ks[i], 64, (enum fill)how);
        }
    int_case(NPK_PREC_INT4, NPK_MODE_CUBE, 12, 96, 192, RANDOM); /* three weight tiles */
}

/* The runs against the per-element functions: every byte value, odd starts (int4's high
 * nibble first), lengths that are not a multiple of the batches. */
static void test_element_runs(void)
{
    static const npk_rk_prec in[] = {NPK_PREC_FP16, NPK_PREC_INT8, NPK_PREC_INT4, NPK_PREC_BF16,
                                     NPK_PREC_INT16};
    enum { BYTES = 1200 };
    uint8_t src[BYTES];
    for (size_t i = 0; i < BYTES; i++)
        src[i] = (uint8_t)(i * 37u + i / 256);
    float got[2 * BYTES];
    for (size_t p = 0; p < sizeof in / sizeof *in; p++) {
        size_t count = BYTES * 8 / npk_rk_prec_bits(in[p]) - 3;
        for (size_t first = 0; first < 3; first++) {
            rksim_load_run(in[p], src, first, count, got);
            size_t bad = 0;
            for (size_t j = 0; j < count; j++) {
                /* fp16 as npk_f16_to_f32 (a double would quiet signalling NaNs) */
                size_t e = first + j;
                float want = in[p] == NPK_PREC_FP16
                                 ? npk_f16_to_f32((uint16_t)(src[2 * e] | src[2 * e + 1] << 8))
                                 : (float)npk_rk_prec_load(in[p], src, e);
                bad += memcmp(&want, &got[j], sizeof want) != 0;
            }
            CHECK_EQ(bad, 0);
        }
    }
    static const npk_rk_prec out[] = {NPK_PREC_FP32,  NPK_PREC_FP16, NPK_PREC_INT32,
                                      NPK_PREC_INT16, NPK_PREC_INT8, NPK_PREC_BF16};
    enum { N = 300 };
    float cf[N];
    int64_t ci[N];
    for (size_t j = 0; j < N; j++) {
        ci[j] = (int64_t)(tl_rand() % 200000) - 100000; /* wraps in int16 and int8 */
        cf[j] = (float)ci[j] / 7.0f;
    }
    cf[0] = 65520.0f; /* rounds to fp16 Inf */
    cf[1] = 1e-8f;    /* fp16 subnormal range */
    for (size_t p = 0; p < sizeof out / sizeof *out; p++) {
        uint8_t want[4 * N], got8[4 * N];
        for (int src_kind = 0; src_kind < 3; src_kind++) { /* float, integer, zeros */
            const float *f = src_kind == 0 ? cf : NULL;
            const int64_t *i = src_kind == 1 ? ci : NULL;
            memset(want, 0xa5, sizeof want);
            memset(got8, 0xa5, sizeof got8);
            for (size_t j = 0; j < N; j++)
                npk_rk_prec_store(out[p], want, j, f ? (double)f[j] : i ? (double)i[j] : 0.0);
            rksim_store_run(out[p], got8, f, i, N);
            CHECK(memcmp(want, got8, sizeof want) == 0);
        }
    }
}

/* The simulator reuses the weights it decoded for the last operation only when the bytes are
 * the same: the same task submitted again after one weight element changed in place (the last
 * one, then the first) follows the new value. */
static void test_weights_reread(void)
{
    npk_rk_device *d = tl_open(0);
    tl_case t;
    tl_case_init(&t, NPK_PREC_INT8, NPK_PREC_INT32, 4, 256, 64);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT8, 4, 256, 64);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    npk_rk_devtask tk;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &tk), NPK_OK);
    struct rknpu_submit sub;
    const size_t where[] = {0, 256 * 64 - 1, 0};
    for (int round = 0; round < 3; round++) {
        if (round)
            ((int8_t *)t.b)[where[round]] ^= 0x55;
        tl_case_reference(&t);
        CHECK_EQ(npk_rk_devtask_load(d, &tk, t.a, t.b), NPK_OK);
        CHECK_EQ(npk_rk_devtask_submit(d, &tk, 0, 6000, &sub), NPK_OK);
        CHECK_EQ(npk_rk_devtask_read(d, &tk, t.c), NPK_OK);
        CHECK_EQ(tl_mismatches(&t), 0);
    }
    npk_rk_devtask_destroy(d, &tk);
    tl_case_free(&t);
    npk_rk_device_close(d);
}

int main(void)
{
    test_weights_reread();
    test_element_runs();
    test_int8();
    test_int4();
    return check_done();
}
