/* SPDX-License-Identifier: MIT */
/* The simulator's integer matmuls are exact: int8 -> int32 and int4 -> int16 (saturating) on
 * random and extreme operands, at K on both sides of the fp32 chunk (int8: 1024 products) and
 * across weight tiles, in line and cube mode, against a scalar double reference; a saturating
 * int4 case and one whose running sum leaves int16 while its total does not. The element runs
 * (operand loads, result stores) against npk_rk_prec_load/store on every byte value, on the
 * vector and the portable paths; weights changed in place between two submits are read again,
 * whichever core ran them before and whichever half of a large block changed. */
#include "rksim_testlib.h"

#include "common/dense.h"
#include "rksim/elements.h"
#include "rksim/sim.h"

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
/* int8: both arithmetics up to K = 1024 (byte dot products where the CPU has AVX-512 VNNI, and
 * the float GEMM); 3, 12 and 13 rows leave a partial group of the byte kernel's 8 */
static void test_int8(void)
{
    static const uint32_t ks[] = {32, 992, 1024, 1056, 2048, 2080, 4096};
    for (int portable = 0; portable < 2; portable++) {
        npk_dense_force_portable(portable);
        for (size_t i = 0; i < sizeof ks / sizeof *ks; i++)
            for (int how = RANDOM; how <= MIXED; how++)
                int_case(NPK_PREC_INT8, NPK_MODE_LINE, 3, ks[i], 64, (enum fill)how);
        int_case(NPK_PREC_INT8, NPK_MODE_CUBE, 12, 1024, 96, ALL_MIN);
        int_case(NPK_PREC_INT8, NPK_MODE_LINE, 13, 512, 64, HALVES);
    }
    npk_dense_force_portable(false);
    int_case(NPK_PREC_INT8, NPK_MODE_CUBE, 8, 1056, 96, RANDOM);
    int_case(NPK_PREC_INT8, NPK_MODE_CUBE, 1, 1056, 32, ALL_MIN);
}

/* int4: K * 64 passes 32767 from K = 512 on, so all -8 saturates there (the clamp is the
 * output conversion's, applied to the exact sum); HALVES runs down to -64 * K / 2 and back to
 * 0, which the model keeps exact. */
static void test_int4(void)
{
    static const uint32_t ks[] = {32, 480, 512, 544, 1024, 2048};
    /* both arithmetics: byte products (where the CPU has AVX2) and the float GEMM; 3, 5 and
     * 7 rows leave a partial group of the byte kernel's 4 */
    for (int portable = 0; portable < 2; portable++) {
        npk_dense_force_portable(portable);
        for (size_t i = 0; i < sizeof ks / sizeof *ks; i++)
            for (int how = RANDOM; how <= MIXED; how++) {
                int_case(NPK_PREC_INT4, NPK_MODE_CUBE, 4, ks[i], 128, (enum fill)how);
                int_case(NPK_PREC_INT4, NPK_MODE_LINE, 3 + 2 * (i % 3), ks[i], 64, (enum fill)how);
            }
        int_case(NPK_PREC_INT4, NPK_MODE_CUBE, 12, 96, 192, RANDOM); /* three weight tiles */
    }
    npk_dense_force_portable(false);
}

/* Rows of results into strided output runs, on the vector and the portable paths, against
 * rksim_store_run row by row: integer-valued floats past 2^31 (which the vector conversion
 * cannot take) and negative ones wrap as that function wraps them; and the scan for results
 * outside a bound against a plain loop. */
static void test_store_rows(const npk_rk_prec *out, size_t nout, float *cf, const int64_t *ci,
                            size_t n)
{
    for (size_t j = 0; j < n; j++)
        cf[j] = (float)ci[j]; /* integer results as the GEMM gives them */
    cf[5] = 3e9f;
    cf[6] = -5e9f;
    cf[13] = -2147483648.0f;
    static const size_t lanes_of[] = {4, 8, 16, 5};
    enum { ROWS = 7, STRIDE = 40 }; /* source row stride in elements */
    for (int portable = 0; portable < 2; portable++) {
        npk_dense_force_portable(portable);
        for (size_t p = 0; p < nout; p++)
            for (size_t l = 0; l < sizeof lanes_of / sizeof *lanes_of; l++)
                for (int src_kind = 0; src_kind < 2; src_kind++) {
                    const size_t lanes = lanes_of[l], ob = npk_rk_prec_bits(out[p]) / 8,
                                 dstride = lanes * ob + 16;
                    const float *f = src_kind == 0 ? cf : NULL;
                    const int64_t *i = src_kind == 1 ? ci : NULL;
                    uint8_t want[ROWS * (16 * 4 + 16)], got[sizeof want];
                    memset(want, 0x5a, sizeof want);
                    memset(got, 0x5a, sizeof got);
                    for (size_t r = 0; r < ROWS; r++)
                        rksim_store_run(out[p], want + r * dstride, f ? f + r * STRIDE : NULL,
                                        i ? i + r * STRIDE : NULL, lanes);
                    rksim_store_rows(out[p], got, dstride, f, i, STRIDE, lanes, ROWS);
                    if (memcmp(want, got, sizeof want))
                        fprintf(stderr, "store rows %s lanes %zu kind %d portable %d differ\n",
                                npk_rk_prec_name(out[p]), lanes, src_kind, portable);
                    CHECK(memcmp(want, got, sizeof want) == 0);
                }
        for (size_t j = 0; j < n; j++)
            cf[j] = (float)(ci[j] % 30000);
        static const size_t at[] = {0, 7, 8, 100, 299};
        for (size_t a = 0; a < sizeof at / sizeof *at; a++) {
            float keep = cf[at[a]];
            cf[at[a]] = a % 2 ? -32768.0f : 32768.0f;
            CHECK_EQ(rksim_first_outside(cf, n, 32767.0f), at[a]);
            CHECK_EQ(rksim_first_outside(cf, at[a], 32767.0f), at[a]); /* none before it */
            cf[at[a]] = keep;
        }
        cf[50] = NAN;
        CHECK_EQ(rksim_first_outside(cf, n, 32767.0f), 50);
    }
    npk_dense_force_portable(false);
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
    /* runs of run elements into strided rows, from a source at an odd byte, on both paths */
    static const size_t run_lens[] = {32, 40, 37, 8};
    for (int portable = 0; portable < 2; portable++) {
        npk_dense_force_portable(portable);
        for (size_t p = 0; p < sizeof in / sizeof *in; p++)
            for (size_t l = 0; l < sizeof run_lens / sizeof *run_lens; l++) {
                const size_t run = run_lens[l], runs = 9, stride = run + 5;
                if (in[p] == NPK_PREC_INT4 && run % 2) /* int4 runs are whole bytes */
                    continue;
                float want[9 * 45], rows[9 * 45];
                memset(rows, 0xa5, sizeof rows);
                rksim_load_runs(in[p], src + 1, run, runs, rows, stride);
                size_t bad = 0;
                for (size_t r = 0; r < runs; r++) {
                    rksim_load_run(in[p], src + 1, r * run, run, want);
                    bad += memcmp(want, rows + r * stride, run * sizeof *want) != 0;
                    for (size_t j = run; j < stride && r + 1 < runs; j++) /* the gap untouched */
                        bad += memcmp(&rows[r * stride + j], "\xa5\xa5\xa5\xa5", 4) != 0;
                }
                if (bad)
                    fprintf(stderr, "%s runs of %zu (portable %d): %zu bad\n",
                            npk_rk_prec_name(in[p]), run, portable, bad);
                CHECK_EQ(bad, 0);
            }
    }
    npk_dense_force_portable(false);
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
    test_store_rows(out, sizeof out / sizeof *out, cf, ci, N);
}

/* The simulator reuses the weights a core decoded for its last operation only when the bytes
 * are the same: the same task submitted again after one weight element changed in place (the
 * last one, then the first) follows the new value. */
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

/* Two tasks with weight blocks large enough to be decoded by two threads, submitted in turn on
 * one core and on two, while single elements change in either half of the N tiles (or
 * nothing changes): every result follows the weights of its own task as they are then. The
 * tasks' features sit at two addresses: hazard 2 is off (it would read one from the other). */
static void weights_two_tasks(npk_rk_prec in, uint32_t k, uint32_t n)
{
    npk_rk_device *d = tl_open(RKSIM_HZ_BIT(RKSIM_HZ_FEATURE_ADDR_CACHE));
    const npk_rk_prec out = npk_rk_input_row(in)->acc;
    tl_case t[2];
    npk_rk_devtask tk[2];
    npk_rk_mm mm = npk_rk_mm_default(in, 4, k, n);
    mm.unchecked = in == NPK_PREC_INT4 && k > 511; /* sums may saturate: the model clamps */
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    for (int i = 0; i < 2; i++) {
        tl_case_init(&t[i], in, out == NPK_PREC_FP16 ? NPK_PREC_FP32 : out, 4, k, n);
        CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &tk[i]), NPK_OK);
    }
    /* (task, core, element of B changed before the submit: SIZE_MAX none, portable paths
     * pinned: the int4 weights change form) */
    const size_t kn = (size_t)k * n, last_half = (size_t)(k / 2) * n + n - 1;
    const struct {
        int task;
        unsigned core;
        size_t change;
        bool portable;
    } steps[] = {{0, 0, SIZE_MAX, 0},  {1, 0, SIZE_MAX, 0}, {0, 0, SIZE_MAX, 0},
                 {0, 0, last_half, 0}, {1, 1, SIZE_MAX, 0}, {0, 0, n / 2 + 1, 0},
                 {1, 1, kn - 1, 0},    {1, 1, SIZE_MAX, 0}, {0, 1, SIZE_MAX, 0},
                 {0, 0, 0, 0},         {0, 0, SIZE_MAX, 1}, {0, 0, 1, 1},
                 {0, 0, SIZE_MAX, 0},  {0, 0, SIZE_MAX, 1}};
    struct rknpu_submit sub;
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        tl_case *c = &t[steps[s].task];
        npk_dense_force_portable(steps[s].portable);
        const bool change = steps[s].change != SIZE_MAX;
        if (change && in == NPK_PREC_FP16)
            ((uint16_t *)c->b)[steps[s].change] ^= 0x8000; /* the sign */
        else if (change)
            ((int8_t *)c->b)[steps[s].change] ^= 1; /* stays within int4 */
        if (change || s < 2)                        /* or the task's first submit */
            tl_case_reference(c);
        npk_rk_devtask *task = &tk[steps[s].task];
        CHECK_EQ(npk_rk_devtask_load(d, task, c->a, c->b), NPK_OK);
        CHECK_EQ(npk_rk_devtask_submit(d, task, steps[s].core, 6000, &sub), NPK_OK);
        CHECK_EQ(npk_rk_devtask_read(d, task, c->c), NPK_OK);
        size_t bad = tl_mismatches(c);
        if (bad)
            fprintf(stderr, "%s weights step %zu: %zu mismatches\n", npk_rk_prec_name(in), s, bad);
        CHECK_EQ(bad, 0);
    }
    npk_dense_force_portable(false);
    for (int i = 0; i < 2; i++) {
        npk_rk_devtask_destroy(d, &tk[i]);
        tl_case_free(&t[i]);
    }
    npk_rk_device_close(d);
}

/* More weight blocks than the simulator keeps (RKSIM_WEIGHT_ENTRIES, within the configured
 * size): 60 tasks of two sizes in turn over the three cores (each task on another core every
 * round: the cores share the cache), three rounds, one task's weights changed before each round
 * after the first (an entry taken over by weights of another size holds a shorter copy than the
 * new bytes). */
static void weights_evicted(uint32_t cache_mib)
{
    /* int8 beyond the fp32 chunk (1024): the weights the simulator keeps decoded */
    enum { TASKS = RKSIM_WEIGHT_ENTRIES + 12, K_SHORT = 1088, K_LONG = 2176 };
    rksim_config cfg;
    rksim_config_default(&cfg);
    cfg.ideal_mask = RKSIM_HZ_BIT(RKSIM_HZ_FEATURE_ADDR_CACHE);
    cfg.timeout_scale = 0;
    cfg.weight_cache_mib = cache_mib;
    npk_rk_device *d = NULL;
    CHECK_EQ(npk_rk_device_open_sim(&cfg, &d), NPK_OK);
    tl_case t[TASKS];
    npk_rk_devtask tk[TASKS];
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    for (int i = 0; i < TASKS; i++) {
        const uint32_t k = i % 3 ? K_SHORT : K_LONG;
        npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT8, 4, k, 64);
        tl_case_init(&t[i], NPK_PREC_INT8, NPK_PREC_INT32, 4, k, 64);
        tl_case_reference(&t[i]);
        CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &tk[i]), NPK_OK);
    }
    struct rknpu_submit sub;
    size_t bad = 0;
    for (int round = 0; round < 3; round++) {
        if (round) {
            tl_case *c = &t[round * 7 % TASKS];
            ((int8_t *)c->b)[round * 100] ^= 0x11;
            tl_case_reference(c);
        }
        for (int i = 0; i < TASKS; i++) {
            CHECK_EQ(npk_rk_devtask_load(d, &tk[i], t[i].a, t[i].b), NPK_OK);
            CHECK_EQ(npk_rk_devtask_submit(d, &tk[i], (unsigned)(i + round) % 3, 6000, &sub),
                     NPK_OK);
            CHECK_EQ(npk_rk_devtask_read(d, &tk[i], t[i].c), NPK_OK);
            bad += tl_mismatches(&t[i]);
        }
    }
    CHECK_EQ(bad, 0);
    /* what the cache holds: one block's entry (680 KiB: K_LONG floats and bytes) with no cache,
     * more with one, within its size (60 blocks of 340 or 680 KiB overflow 4 MiB) */
    const size_t held = rksim_weights_held(npk_rk_device_sim(d)->weights);
    const size_t one = (size_t)K_LONG * 64 * (4 + 1);
    if (cache_mib)
        CHECK(held > one && held <= ((size_t)cache_mib << 20) + one);
    else
        CHECK(held <= one);
    for (int i = 0; i < TASKS; i++) {
        npk_rk_devtask_destroy(d, &tk[i]);
        tl_case_free(&t[i]);
    }
    npk_rk_device_close(d);
}

/* the same results with the default cache, one of 4 MiB and none */
static void test_weights_evicted(void)
{
    weights_evicted(RKSIM_WEIGHT_CACHE_DEFAULT_MIB);
    weights_evicted(4);
    weights_evicted(0);
}

static void test_weights_cores(void)
{
    weights_two_tasks(NPK_PREC_FP16, 512, 512); /* 512 KiB */
    weights_two_tasks(NPK_PREC_INT8, 512, 512); /* 256 KiB */
    weights_two_tasks(NPK_PREC_INT4, 1024, 512);
    weights_two_tasks(NPK_PREC_FP16, 1024, 2048); /* 4 MiB: the copy streams past the caches */
}

int main(void)
{
    test_weights_reread();
    test_weights_cores();
    test_weights_evicted();
    test_element_runs();
    test_int8();
    test_int4();
    return check_done();
}
