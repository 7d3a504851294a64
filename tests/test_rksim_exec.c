/* SPDX-License-Identifier: MIT */
/* rksim execution: every dtype the synthesizer emits, in line and cube mode, against a CPU
 * reference; values come from the registers (edit one register, the result changes as the
 * spec says); register order does not matter; several matmuls in one task (CORE_CTRL) and in a
 * chained job; three cores; DMA faults and unsupported combinations fail cleanly. */
#include "rksim_testlib.h"

#include "npukit/rk_regcmd.h"

/* Run one case through the device layer: reset (the driver's int8 defence), synthesize, pack,
 * submit, unpack. Returns the submit status. */
static npk_status run(npk_rk_device *d, tl_case *t, int mode, uint32_t a_pitch, uint32_t c_pitch,
                      npk_rk_devtask *keep)
{
    npk_rk_mm mm = npk_rk_mm_default(t->in, t->m, t->k, t->n);
    mm.out = t->out;
    mm.mode = mode;
    mm.a_pitch = a_pitch;
    mm.c_pitch = c_pitch;
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    npk_rk_devtask task, *tk = keep ? keep : &task;
    npk_status s = npk_rk_devtask_create(d, &mm, 0, tk);
    CHECK_EQ(s, NPK_OK);
    if (s) {
        fprintf(stderr, "%s\n", npk_last_error());
        return s;
    }
    CHECK_EQ(npk_rk_devtask_load(d, tk, t->a, t->b), NPK_OK);
    struct rknpu_submit sub;
    s = npk_rk_devtask_submit(d, tk, 0, 6000, &sub);
    if (s == NPK_OK) {
        CHECK_EQ(sub.task_counter, 1);
        CHECK(sub.u48_.hw_elapse_time > 0);
        CHECK_EQ(npk_rk_devtask_read(d, tk, t->c), NPK_OK);
    }
    if (!keep)
        npk_rk_devtask_destroy(d, tk);
    return s;
}

static void dtype_case(npk_rk_prec in, npk_rk_prec out, int mode, uint32_t m, uint32_t k,
                       uint32_t n)
{
    npk_rk_device *d = tl_open(0);
    tl_case t;
    tl_case_init(&t, in, out, m, k, n);
    tl_case_reference(&t);
    CHECK_EQ(run(d, &t, mode, 0, 0, NULL), NPK_OK);
    size_t bad = tl_mismatches(&t);
    if (bad)
        fprintf(stderr, "%s->%s mode %d %ux%ux%u: %zu mismatches\n", npk_rk_prec_name(in),
                npk_rk_prec_name(out), mode, m, k, n, bad);
    CHECK_EQ(bad, 0);
    tl_case_free(&t);
    npk_rk_device_close(d);
}

static void test_dtypes(void)
{
    dtype_case(NPK_PREC_FP16, NPK_PREC_FP32, NPK_MODE_LINE, 4, 64, 32);
    dtype_case(NPK_PREC_FP16, NPK_PREC_FP32, NPK_MODE_LINE, 7, 96, 48);
    dtype_case(NPK_PREC_FP16, NPK_PREC_FP32, NPK_MODE_CUBE, 8, 64, 32);
    dtype_case(NPK_PREC_FP16, NPK_PREC_FP32, NPK_MODE_CUBE, 1, 128, 16);
    dtype_case(NPK_PREC_FP16, NPK_PREC_FP16, NPK_MODE_LINE, 5, 64, 48);
    dtype_case(NPK_PREC_INT8, NPK_PREC_INT32, NPK_MODE_LINE, 6, 128, 64);
    dtype_case(NPK_PREC_INT8, NPK_PREC_INT32, NPK_MODE_CUBE, 8, 64, 64);
    dtype_case(NPK_PREC_INT8, NPK_PREC_INT32, NPK_MODE_LINE, 2, 2048, 32);
    dtype_case(NPK_PREC_INT4, NPK_PREC_INT16, NPK_MODE_CUBE, 1, 64, 64);
    dtype_case(NPK_PREC_INT4, NPK_PREC_INT16, NPK_MODE_CUBE, 4, 128, 128);
    dtype_case(NPK_PREC_INT4, NPK_PREC_INT16, NPK_MODE_LINE, 3, 64, 64);
}

/* fp32 -> fp16 output rounds to nearest even: 1 + 2^-11 is a tie between 1 and 1 + 2^-10. */
static void test_fp16_rounding(void)
{
    npk_rk_device *d = tl_open(0);
    tl_case t;
    tl_case_init(&t, NPK_PREC_FP16, NPK_PREC_FP16, 1, 32, 16);
    uint16_t *a = t.a, *b = t.b;
    memset(a, 0, 32 * 2);
    memset(b, 0, 32 * 16 * 2);
    a[0] = npk_f32_to_f16(1.0f);
    a[1] = npk_f32_to_f16(1.0f / 2048); /* 2^-11 */
    a[2] = npk_f32_to_f16(3.0f / 2048); /* column 1: 1 + 3*2^-11 rounds up to 1 + 2^-9 */
    for (int n = 0; n < 16; n++)
        b[0 * 16 + n] = npk_f32_to_f16(1.0f);
    b[1 * 16 + 0] = npk_f32_to_f16(1.0f); /* C[0][0] = 1 + 2^-11: ties to even -> 1 */
    b[2 * 16 + 1] = npk_f32_to_f16(1.0f); /* C[0][1] = 1 + 3*2^-11 -> 1 + 2^-9 */
    CHECK_EQ(run(d, &t, NPK_MODE_LINE, 0, 0, NULL), NPK_OK);
    const uint16_t *c = t.c;
    CHECK_EQ(c[0], 0x3C00);
    CHECK_EQ(c[1], 0x3C02);
    tl_case_free(&t);
    npk_rk_device_close(d);
}

/* Find the (first) body entry of a register. */
static int entry_of(const npk_rk_entry *body, unsigned count, npk_rk_reg_id id)
{
    const npk_rk_reg *r = npk_rk_reg_info(id);
    for (unsigned i = 0; i < count; i++)
        if (npk_rk_entry_target(body[i]) == r->target && npk_rk_entry_reg(body[i]) == r->offset)
            return (int)i;
    return -1;
}

static void set_reg(npk_rk_devtask *tk, npk_rk_reg_id id, uint32_t value)
{
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++)
        if (npk_rk_entry_target(tk->body[i]) == npk_rk_reg_info(id)->target &&
            npk_rk_entry_reg(tk->body[i]) == npk_rk_reg_info(id)->offset)
            tk->body[i] = npk_rk_entry_reg_write(id, value);
}

static uint32_t get_reg(const npk_rk_devtask *tk, npk_rk_reg_id id)
{
    int i = entry_of(tk->body, NPK_RK_MATMUL_BODY, id);
    return i < 0 ? 0 : npk_rk_entry_value(tk->body[i]);
}

static npk_status resubmit(npk_rk_device *d, npk_rk_devtask *tk, void *c)
{
    CHECK_EQ(npk_rk_devtask_write_program(d, tk), NPK_OK);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    struct rknpu_submit sub;
    npk_status s = npk_rk_devtask_submit(d, tk, 0, 6000, &sub);
    if (s == NPK_OK && c)
        CHECK_EQ(npk_rk_devtask_read(d, tk, c), NPK_OK);
    return s;
}

/* Values come from the registers: edit one register of a correct program. */
static void test_register_edits(void)
{
    npk_rk_device *d = tl_open(0);
    tl_case t;
    const uint32_t M = 4, K = 64, N = 32;
    tl_case_init(&t, NPK_PREC_FP16, NPK_PREC_FP32, M, K, N);
    tl_case_reference(&t);

    /* 0x107C LINE_STRIDE: store A at a row pitch of 2K (the synthesizer's a_pitch), then the
     * program still saying K/8 reads the wrong rows; LINE_STRIDE = 2K/8 reads them right
     * (spec "0x107c ... the matmul reads STRIDED activations"). */
    npk_rk_devtask tk;
    CHECK_EQ(run(d, &t, NPK_MODE_LINE, 2 * K, 0, &tk), NPK_OK);
    CHECK_EQ(tl_mismatches(&t), 0);
    CHECK_EQ(
        npk_rk_field_get(NPK_RKF(CNA_DMA_CON1, LINE_STRIDE), get_reg(&tk, NPK_REG_CNA_DMA_CON1)),
        2 * K / 8);
    set_reg(&tk, NPK_REG_CNA_DMA_CON1, NPK_RKPUT(CNA_DMA_CON1, LINE_STRIDE, K / 8));
    CHECK_EQ(resubmit(d, &tk, t.c), NPK_OK);
    CHECK(tl_mismatches(&t) > 0);
    /* rows 0 and 1 of the dense reading are A's row 0 and the padding between rows: row 0 is
     * still right, row 2 of the dense reading is A's row 1 */
    const float *c = t.c;
    CHECK_EQ(c[0] == (float)t.ref[0], 1);
    CHECK_EQ(c[2 * N + 5] == (float)t.ref[1 * N + 5], 1);
    set_reg(&tk, NPK_REG_CNA_DMA_CON1, NPK_RKPUT(CNA_DMA_CON1, LINE_STRIDE, 2 * K / 8));
    CHECK_EQ(resubmit(d, &tk, t.c), NPK_OK);
    CHECK_EQ(tl_mismatches(&t), 0);
    npk_rk_devtask_destroy(d, &tk);

    /* 0x4038 NOTCH_ADDR_1 (the output row stride): doubling it writes row m at 2m rows. */
    CHECK_EQ(run(d, &t, NPK_MODE_LINE, 0, 2 * N, &tk), NPK_OK);
    CHECK_EQ(tl_mismatches(&t), 0);
    set_reg(&tk, NPK_REG_DPU_DATA_CUBE_NOTCH_ADDR,
            NPK_RKPUT(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_1, N * 4 / 16 - 1) |
                NPK_RKPUT(DPU_DATA_CUBE_NOTCH_ADDR, NOTCH_ADDR_0, N * 4 / 16 - 1));
    memset(tk.c.host, 0, tk.c.size);
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_OK);
    /* dense rows now: row m at m*N floats */
    const float *raw = tk.c.host;
    CHECK_EQ(raw[1 * N + 3] == (float)t.ref[1 * N + 3], 1);
    CHECK_EQ(raw[3 * N + 31] == (float)t.ref[3 * N + 31], 1);
    CHECK_EQ(raw[5 * N] == 0.0f, 1); /* nothing written past M rows */

    /* 0x4020 DST_BASE_ADDR: 64 bytes further moves the whole output by 16 floats */
    set_reg(&tk, NPK_REG_DPU_DST_BASE_ADDR, tk.c.iova + 64);
    memset(tk.c.host, 0, tk.c.size);
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_OK);
    CHECK_EQ(raw[16] == (float)t.ref[0], 1);

    /* 0x3018 CORE DATAOUT_CHANNEL no longer matching the CNA: refused, naming the register */
    set_reg(&tk, NPK_REG_CORE_DATAOUT_SIZE_1, 7);
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "CORE_DATAOUT_SIZE_1");
    CHECK_STR_HAS(tl_report(d)->message, "unsupported by the model");
    set_reg(&tk, NPK_REG_CORE_DATAOUT_SIZE_1, N - 1);
    /* 0x1068 PAD_CON0: described for int8 only, so an fp16 program is refused */
    set_reg(&tk, NPK_REG_CNA_PAD_CON0, 1);
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "CNA_PAD_CON0");
    set_reg(&tk, NPK_REG_CNA_PAD_CON0, 0);
    /* 0x1044 DATA_ENTRIES must match K */
    set_reg(&tk, NPK_REG_CNA_CBUF_CON1, 5);
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(npk_last_error(), "CNA_CBUF_CON1");
    npk_rk_devtask_destroy(d, &tk);
    tl_case_free(&t);
    npk_rk_device_close(d);
}

/* Cube output geometry from the registers: doubling DST_SURF_STRIDE and SURFACE_ADD spreads
 * the [N/4][M][4] surfaces of an fp32 output to twice the pitch (facts D.3). */
static void test_cube_surface_stride(void)
{
    npk_rk_device *d = tl_open(0);
    tl_case t;
    const uint32_t M = 8, K = 64, N = 32;
    tl_case_init(&t, NPK_PREC_FP16, NPK_PREC_FP32, M, K, N);
    tl_case_reference(&t);
    npk_rk_devtask tk;
    CHECK_EQ(run(d, &t, NPK_MODE_CUBE, 0, 0, &tk), NPK_OK);
    CHECK_EQ(tl_mismatches(&t), 0);
    CHECK_EQ(get_reg(&tk, NPK_REG_DPU_DST_SURF_STRIDE), M << 4);
    CHECK_EQ(get_reg(&tk, NPK_REG_DPU_SURFACE_ADD), (M * 4) << 4);
    /* 8 surfaces of M*16 bytes; at twice the pitch they still fit the buffer's page */
    CHECK(tk.c.size <= 2048);
    set_reg(&tk, NPK_REG_DPU_DST_SURF_STRIDE, (2 * M) << 4);
    set_reg(&tk, NPK_REG_DPU_SURFACE_ADD, (2 * M * 4) << 4);
    memset(tk.c.host, 0, 4096);
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_OK);
    const float *raw = tk.c.host;
    size_t bad = 0;
    for (uint32_t m = 0; m < M; m++)
        for (uint32_t n = 0; n < N; n++)
            bad += raw[(n / 4) * (2 * M * 4) + m * 4 + n % 4] != (float)t.ref[m * N + n];
    CHECK_EQ(bad, 0);
    CHECK_EQ(raw[M * 4] == 0.0f, 1); /* the old place of surface 1 stays empty */
    npk_rk_devtask_destroy(d, &tk);
    tl_case_free(&t);
    npk_rk_device_close(d);
}

/* The simulator does not depend on register order: the vendor order shuffled, and a 104-entry
 * body without the duplicate entries (the mtx-style program, facts C.4). */
static void test_register_order(void)
{
    npk_rk_device *d = tl_open(0);
    tl_case t;
    tl_case_init(&t, NPK_PREC_INT8, NPK_PREC_INT32, 8, 64, 32);
    tl_case_reference(&t);
    npk_rk_devtask tk;
    CHECK_EQ(run(d, &t, NPK_MODE_LINE, 0, 0, &tk), NPK_OK);
    CHECK_EQ(tl_mismatches(&t), 0);
    /* reverse the body */
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY / 2; i++) {
        npk_rk_entry x = tk.body[i];
        tk.body[i] = tk.body[NPK_RK_MATMUL_BODY - 1 - i];
        tk.body[NPK_RK_MATMUL_BODY - 1 - i] = x;
    }
    memset(t.c, 0, (size_t)t.m * t.n * 4);
    CHECK_EQ(resubmit(d, &tk, t.c), NPK_OK);
    CHECK_EQ(tl_mismatches(&t), 0);

    /* 104 entries: drop the four duplicates, write the body with regcfg_amount 104 */
    npk_rk_entry *r = tk.regcmd.host;
    unsigned n = 0;
    for (unsigned i = 0; i < NPK_RK_MATMUL_BODY; i++) {
        bool dup = false;
        for (unsigned j = 0; j < n; j++)
            dup |= r[j] == tk.body[i];
        if (!dup)
            r[n++] = tk.body[i];
    }
    CHECK_EQ(n, 104);
    CHECK_EQ(npk_rk_trailer(r + n, 0, 0, NPK_RK_ENABLE_MATMUL), NPK_OK);
    ((struct rknpu_task *)tk.task.host)->regcfg_amount = n;
    memset(t.c, 0, (size_t)t.m * t.n * 4);
    memset(tk.c.host, 0, tk.c.size);
    struct rknpu_submit sub;
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    CHECK_EQ(npk_rk_devtask_submit(d, &tk, 0, 6000, &sub), NPK_OK);
    CHECK_EQ(npk_rk_devtask_read(d, &tk, t.c), NPK_OK);
    CHECK_EQ(tl_mismatches(&t), 0);
    npk_rk_devtask_destroy(d, &tk);
    tl_case_free(&t);
    npk_rk_device_close(d);
}

/* 0x1068 as the int8 destination row offset (spec, K=512 M=8 N=64): v moves every row to
 * physrow m + v; rows never written keep what was there; rows pushed past the output's M rows
 * (the write DMA's bound, HEIGHT_WDMA) are lost; a bound beyond the buffer is a DMA fault. */
static void test_int8_row_offset(void)
{
    npk_rk_device *d = tl_open(0);
    tl_case t;
    const uint32_t M = 8, N = 64, SENTINEL = 0x5a5a5a5a;
    tl_case_init(&t, NPK_PREC_INT8, NPK_PREC_INT32, M, 512, N);
    tl_case_reference(&t);
    npk_rk_devtask tk;
    CHECK_EQ(run(d, &t, NPK_MODE_LINE, 0, 0, &tk), NPK_OK);
    CHECK_EQ(tl_mismatches(&t), 0);
    const uint32_t shifts[2] = {1, 4};
    for (int i = 0; i < 2; i++) {
        uint32_t v = shifts[i];
        /* the output holds a sentinel wherever the task does not write */
        memset(tk.c.host, 0x5a, tk.c.size);
        CHECK_EQ(npk_rk_devtask_clean_output(d, &tk), NPK_OK);
        set_reg(&tk, NPK_REG_CNA_PAD_CON0, NPK_RKPUT(CNA_PAD_CON0, PAD_TOP, v));
        CHECK_EQ(resubmit(d, &tk, t.c), NPK_OK);
        const int32_t *c = t.c;
        size_t bad = 0;
        for (uint32_t m = 0; m + v < M; m++)
            for (uint32_t n = 0; n < N; n++)
                bad += c[(m + v) * N + n] != (int32_t)t.ref[m * N + n];
        for (uint32_t n = 0; n < v * N; n++)
            bad += (uint32_t)c[n] != SENTINEL; /* above the offset: never written */
        CHECK_EQ(bad, 0);
    }
    /* rows that leave every live buffer fault: an output at the end of the buffer with the
     * highest IOVA (nothing is mapped past it), shifted by one row */
    const uint64_t row_bytes = (uint64_t)N * 4;
    npk_rk_mem *bufs[] = {&tk.a, &tk.b, &tk.c, &tk.regcmd, &tk.task}, last = *bufs[0];
    for (unsigned i = 1; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]->iova > last.iova)
            last = *bufs[i];
    CHECK(last.size % 4096 == 0 && last.size >= M * row_bytes);
    set_reg(&tk, NPK_REG_DPU_DST_BASE_ADDR, (uint32_t)(last.iova + last.size - row_bytes));
    set_reg(&tk, NPK_REG_CNA_PAD_CON0, NPK_RKPUT(CNA_PAD_CON0, PAD_TOP, 0));
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_ETIMEDOUT); /* M rows from there leave it too */
    set_reg(&tk, NPK_REG_DPU_DST_BASE_ADDR, (uint32_t)(last.iova + last.size - M * row_bytes));
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_OK); /* M rows fit exactly */
    /* shifted by one row: the last row falls past the write DMA's M-row bound and is lost */
    set_reg(&tk, NPK_REG_CNA_PAD_CON0, NPK_RKPUT(CNA_PAD_CON0, PAD_TOP, 1));
    CHECK_EQ(npk_rk_devtask_load(d, &tk, t.a, t.b), NPK_OK); /* the output may be over A */
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_OK);
    CHECK_EQ(npk_rk_mem_sync(d, &last, 0, last.size, RKNPU_MEM_SYNC_FROM_DEVICE), NPK_OK);
    const int32_t *out = (const int32_t *)((const uint8_t *)last.host + last.size - M * row_bytes);
    size_t wrong = 0;
    for (uint32_t p = 1; p < M; p++)
        for (uint32_t n = 0; n < N; n++)
            wrong += out[p * N + n] != (int32_t)t.ref[(p - 1) * N + n];
    CHECK_EQ(wrong, 0);
    /* a bound one row taller: that row is written, past the buffer's end */
    set_reg(&tk, NPK_REG_DPU_WDMA_SIZE_1, NPK_RKPUT(DPU_WDMA_SIZE_1, HEIGHT_WDMA, M));
    CHECK_EQ(resubmit(d, &tk, NULL), NPK_ETIMEDOUT);
    CHECK_STR_HAS(rksim_last_report(npk_rk_device_sim(d))->message, "DMA fault");
    CHECK_STR_HAS(rksim_last_report(npk_rk_device_sim(d))->message, "output write");
    /* the synthesizer refuses a surface too short for the offset rows (they would be lost) */
    npk_rk_devtask tk2;
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_INT8, M, 512, N);
    mm.row_offset = 4;
    mm.c_rows = M;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &tk2), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "rows past it are lost");
    mm.row_offset = 16;
    mm.c_rows = 0;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &tk2), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "PAD_TOP's 4 bits");
    mm = npk_rk_mm_default(NPK_PREC_FP16, M, 512, N);
    mm.row_offset = 1;
    CHECK_EQ(npk_rk_devtask_create(d, &mm, 0, &tk2), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "int8 matmuls only");
    npk_rk_devtask_destroy(d, &tk);
    tl_case_free(&t);
    npk_rk_device_close(d);
}

/* Hazard 22, 0x405c left at 0 (spec "0x1068": it "disables a write-DMA bound"): the row the
 * offset pushes past M is written after all instead of lost; M > 1 under it is accepted.
 * Ideal: 0 is a one-row bound, so M > 1 is refused as unsupported. */
static void test_wdma_size_zero(void)
{
    for (int ideal = 0; ideal < 2; ideal++) {
        npk_rk_device *d = tl_open(ideal ? RKSIM_HZ_BIT(RKSIM_HZ_WDMA_SIZE_ZERO) : 0);
        tl_case t;
        const uint32_t M = 8, N = 64;
        tl_case_init(&t, NPK_PREC_INT8, NPK_PREC_INT32, M, 512, N);
        tl_case_reference(&t);
        npk_rk_devtask tk;
        CHECK_EQ(run(d, &t, NPK_MODE_LINE, 0, 0, &tk), NPK_OK);
        CHECK_EQ(tl_mismatches(&t), 0);
        /* an output with room for the shifted last row (non-cacheable: never stale) */
        npk_rk_mem out;
        CHECK_EQ(npk_rk_mem_create(d, (M + 1) * N * 4, 0, &out), NPK_OK);
        memset(out.host, 0x5a, out.size);
        CHECK_EQ(npk_rk_mem_sync(d, &out, 0, out.size, RKNPU_MEM_SYNC_TO_DEVICE), NPK_OK);
        set_reg(&tk, NPK_REG_DPU_DST_BASE_ADDR, (uint32_t)out.iova);
        set_reg(&tk, NPK_REG_CNA_PAD_CON0, NPK_RKPUT(CNA_PAD_CON0, PAD_TOP, 1));
        set_reg(&tk, NPK_REG_DPU_WDMA_SIZE_1, 0);
        npk_status s = resubmit(d, &tk, NULL);
        const rksim_report *rep = rksim_last_report(npk_rk_device_sim(d));
        if (ideal) {
            CHECK_EQ(s, NPK_EUNSUPPORTED);
            CHECK_STR_HAS(rep->message, "HEIGHT_WDMA");
        } else {
            CHECK_EQ(s, NPK_OK);
            CHECK(rep->hazards & RKSIM_HZ_BIT(RKSIM_HZ_WDMA_SIZE_ZERO));
            CHECK_EQ(npk_rk_mem_sync(d, &out, 0, out.size, RKNPU_MEM_SYNC_FROM_DEVICE), NPK_OK);
            const int32_t *c = out.host;
            size_t wrong = 0; /* rows 1..M hold result rows 0..M-1: the last one not lost */
            for (uint32_t m = 0; m < M; m++)
                for (uint32_t n = 0; n < N; n++)
                    wrong += c[(m + 1) * N + n] != (int32_t)t.ref[m * N + n];
            CHECK_EQ(wrong, 0);
        }
        /* M = 1 at offset 0: one row, bounded or not; the hazard does not fire */
        npk_rk_mem_destroy(d, &out);
        npk_rk_devtask_destroy(d, &tk);
        tl_case_free(&t);
        tl_case_init(&t, NPK_PREC_INT8, NPK_PREC_INT32, 1, 512, N);
        tl_case_reference(&t);
        CHECK_EQ(run(d, &t, NPK_MODE_LINE, 0, 0, &tk), NPK_OK);
        CHECK_EQ(tl_mismatches(&t), 0);
        CHECK(!(rksim_last_report(npk_rk_device_sim(d))->hazards &
                RKSIM_HZ_BIT(RKSIM_HZ_WDMA_SIZE_ZERO)));
        npk_rk_devtask_destroy(d, &tk);
        tl_case_free(&t);
        npk_rk_device_close(d);
    }
}

/* The 104-entry program of another tool (mtx, facts C.4): cube mode, its own register order,
 * no duplicated entries, CORE QD_EN 0 and OD_BYPASS 1 for int8. */
static void mtx_case(npk_rk_prec in)
{
    static const npk_rk_reg_id order[] = {
        NPK_REG_DPU_S_POINTER,         NPK_REG_CNA_CONV_CON1,    NPK_REG_CNA_CONV_CON2,
        NPK_REG_CNA_CONV_CON3,         NPK_REG_CNA_DATA_SIZE0,   NPK_REG_CNA_DATA_SIZE1,
        NPK_REG_CNA_DATA_SIZE2,        NPK_REG_CNA_DATA_SIZE3,   NPK_REG_CNA_WEIGHT_SIZE0,
        NPK_REG_CNA_WEIGHT_SIZE1,      NPK_REG_CNA_WEIGHT_SIZE2, NPK_REG_CNA_CBUF_CON0,
        NPK_REG_CNA_CBUF_CON1,         NPK_REG_CNA_CVT_CON0,     NPK_REG_CNA_CVT_CON1,
        NPK_REG_CNA_CVT_CON2,          NPK_REG_CNA_CVT_CON3,     NPK_REG_CNA_CVT_CON4,
        NPK_REG_CNA_FC_CON0,           NPK_REG_CNA_FC_CON1,      NPK_REG_CNA_PAD_CON0,
        NPK_REG_CNA_FEATURE_DATA_ADDR, NPK_REG_CNA_FC_CON2,      NPK_REG_CNA_DMA_CON0,
        NPK_REG_CNA_DMA_CON1,          NPK_REG_CNA_DMA_CON2,     NPK_REG_CNA_FC_DATA_SIZE0,
        NPK_REG_CNA_FC_DATA_SIZE1,     NPK_REG_CNA_DCOMP_CTRL,   NPK_REG_CNA_DCOMP_REGNUM,
        NPK_REG_CNA_DCOMP_ADDR0};
    npk_rk_device *d = tl_open(0);
    tl_case t;
    tl_case_init(&t, in, npk_rk_default_out(in), 8, 128, 64);
    tl_case_reference(&t);
    npk_rk_devtask tk;
    CHECK_EQ(run(d, &t, NPK_MODE_CUBE, 0, 0, &tk), NPK_OK);
    npk_rk_entry e[112];
    unsigned n = 0;
    for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++)
        e[n++] = npk_rk_entry_reg_write(order[i], get_reg(&tk, order[i]));
    for (int r = NPK_REG_CNA_DCOMP_AMOUNT0; r <= NPK_REG_CNA_DCOMP_AMOUNT15; r++)
        e[n++] = npk_rk_entry_reg_write((npk_rk_reg_id)r, 0);
    e[n++] = npk_rk_entry_reg_write(NPK_REG_CNA_CVT_CON5, 0);
    e[n++] = npk_rk_entry_reg_write(NPK_REG_CNA_PAD_CON1, 0);
    uint32_t misc = get_reg(&tk, NPK_REG_CORE_MISC_CFG);
    if (in == NPK_PREC_INT8) /* mtx runs int8 with QD_EN 0 */
        misc &= ~npk_rk_field_mask(NPK_RKF(CORE_MISC_CFG, QD_EN));
    e[n++] = npk_rk_entry_reg_write(NPK_REG_CORE_MISC_CFG, misc);
    e[n++] = npk_rk_entry_reg_write(NPK_REG_CORE_DATAOUT_SIZE_0,
                                    get_reg(&tk, NPK_REG_CORE_DATAOUT_SIZE_0));
    e[n++] = npk_rk_entry_reg_write(NPK_REG_CORE_DATAOUT_SIZE_1,
                                    get_reg(&tk, NPK_REG_CORE_DATAOUT_SIZE_1));
    e[n++] = npk_rk_entry_reg_write(NPK_REG_CORE_CLIP_TRUNCATE, 0);
    e[n++] = npk_rk_entry_reg_write(NPK_REG_CORE_3030, 0);
    /* then the DPU registers in the vendor order (entries 58..107) */
    for (unsigned i = 58; i < NPK_RK_MATMUL_BODY; i++) {
        npk_rk_entry x = tk.body[i];
        if (npk_rk_entry_reg(x) == 0x4050) /* mtx: OD_BYPASS 1 */
            x = npk_rk_entry_reg_write(NPK_REG_DPU_BS_OW_CFG,
                                       npk_rk_entry_value(x) |
                                           NPK_RKPUT(DPU_BS_OW_CFG, OD_BYPASS, 1));
        e[n++] = x;
    }
    CHECK_EQ(n, 104);
    CHECK_EQ(npk_rk_trailer(e + n, 0, 0, NPK_RK_ENABLE_MATMUL), NPK_OK);
    memcpy(tk.regcmd.host, e, sizeof e);
    ((struct rknpu_task *)tk.task.host)->regcfg_amount = n;
    memset(tk.c.host, 0, tk.c.size);
    memset(t.c, 0, (size_t)t.m * t.n * 4);
    CHECK_EQ(npk_rk_action(d, RKNPU_ACT_RESET, NULL), NPK_OK);
    struct rknpu_submit sub;
    CHECK_EQ(npk_rk_devtask_submit(d, &tk, 0, 6000, &sub), NPK_OK);
    CHECK_EQ(npk_rk_devtask_read(d, &tk, t.c), NPK_OK);
    CHECK_EQ(tl_mismatches(&t), 0);
    npk_rk_devtask_destroy(d, &tk);
    tl_case_free(&t);
    npk_rk_device_close(d);
}

int main(void)
{
    test_dtypes();
    test_fp16_rounding();
    test_register_edits();
    test_register_order();
    test_cube_surface_stride();
    test_int8_row_offset();
    test_wdma_size_zero();
    mtx_case(NPK_PREC_FP16);
    mtx_case(NPK_PREC_INT8);
    return check_done();
}
