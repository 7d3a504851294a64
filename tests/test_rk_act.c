/* SPDX-License-Identifier: MIT */
/* The SDP LUT activations: each fitted LUT held to the function in double precision over every
 * finite fp16 input (and infinities and NaN); a LUT task's registers; the task run by the
 * simulator at edge shapes, bit for bit the LUT's arithmetic and within the bound of the
 * double reference; a matmul -> LUT job in one submit; LUT programs outside the model refused
 * by register name; bad input to the fitter and the synthesizer. */
#include <math.h>
#include <stdlib.h>

#include "npukit/fp16.h"
#include "npukit/rk_act_hw.h"
#include "npukit/rk_decode.h"
#include "npukit/rk_regcmd.h"
#include "npukit/rk_regs.h"
#include "rk/device/device_pack.h"
#include "rk/program/rk_job.h"
#include "rk/program/rk_sdp.h"
#include "rksim_testlib.h"

/* The bound every LUT activation is held to: the fp16 rounding of the exact value plus one
 * table entry unit (2^-out_exp: the entries' fixed-point step). */
static double bound(const npk_rk_act_row *r, double ref)
{
    return ldexp(fabs(ref), -11) + ldexp(1.0, -r->out_exp);
}

static float out16(float v) { return npk_f16_to_f32(npk_f32_to_f16(v)); }

/* Every finite fp16 input (exp: x <= 0), and the infinities and NaN. */
static void fitted_error(npk_rk_act_kind act)
{
    const npk_rk_act_row *r = npk_rk_act_row_of(act);
    npk_rk_lut l;
    CHECK_EQ(npk_rk_lut_fit(act, r->alpha, r->beta, &l), NPK_OK);
    double worst = 0;
    size_t bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        float x = npk_f16_to_f32((uint16_t)h);
        if (!isfinite(x) || (act == NPK_ACT_EXP && x > 0))
            continue;
        double ref = r->ref(x, r->alpha, r->beta);
        double err = fabs(out16(npk_rk_lut_eval(&l, x)) - ref);
        worst = fmax(worst, err - ldexp(fabs(ref), -11));
        bad += !(err <= bound(r, ref));
    }
    CHECK_EQ(bad, 0);
    printf("%-12s max error past fp16 rounding %.3g (bound %.3g)\n", r->name, worst,
           ldexp(1.0, -r->out_exp));
    /* the ends: a flat end stays at its last entry, x -> +inf of gelu/silu/hardswish grows */
    CHECK(isnan(npk_rk_lut_eval(&l, NAN)));
    float lo = npk_rk_lut_eval(&l, -INFINITY), hi = npk_rk_lut_eval(&l, INFINITY);
    if (act == NPK_ACT_SIGMOID || act == NPK_ACT_HARDSIGMOID) {
        CHECK(lo == 0.0f);
        CHECK(hi == 1.0f);
    } else if (act == NPK_ACT_TANH) {
        CHECK(lo == -1.0f);
        CHECK(hi == 1.0f);
    } else if (act == NPK_ACT_EXP) {
        CHECK(fabsf(lo) <= ldexpf(1.0f, -r->out_exp));
    } else {
        CHECK(fabsf(lo) <= ldexpf(1.0f, -r->out_exp));
        CHECK(hi == INFINITY);
    }
}

static void fitting(void)
{
    for (int a = 0; a < NPK_ACT_COUNT; a++)
        if (npk_rk_act_row_of((npk_rk_act_kind)a)->engine == NPK_ACT_ENGINE_LUT)
            fitted_error((npk_rk_act_kind)a);
    /* hardsigmoid's parameters (ONNX's alpha 0.2, beta 0.5) move its kinks */
    npk_rk_lut l;
    CHECK_EQ(npk_rk_lut_fit(NPK_ACT_HARDSIGMOID, 0.2, 0.5, &l), NPK_OK);
    CHECK(fabsf(npk_rk_lut_eval(&l, 1.0f) - 0.7f) < 1e-3f);
    CHECK(npk_rk_lut_eval(&l, 3.0f) == 1.0f);
    /* bad input */
    CHECK_EQ(npk_rk_lut_fit(NPK_ACT_RELU, 0, 0, &l), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "clamp without LUT");
    CHECK_EQ(npk_rk_lut_fit(NPK_ACT_COUNT, 0, 0, &l), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "sigmoid|tanh");
    CHECK_EQ(npk_rk_lut_fit(NPK_ACT_HARDSIGMOID, NAN, 0.5, &l), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "finite");
    /* a ramp from 0 to 1 over [-10, 10] reaches past the table's [-8, 8]: refused, not held */
    CHECK_EQ(npk_rk_lut_fit(NPK_ACT_HARDSIGMOID, 0.05, 0.5, &l), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "[-8, 8]");
    CHECK_EQ(npk_rk_lut_fit(NPK_ACT_HARDSIGMOID, 0.0, 0.25, &l), NPK_OK); /* constant 0.25 */
    CHECK(fabsf(npk_rk_lut_eval(&l, 100.0f) - 0.25f) < 1e-3f);
    npk_rk_act_kind a;
    CHECK(npk_rk_act_parse("silu", &a) && a == NPK_ACT_SILU);
    CHECK(!npk_rk_act_parse("swish", &a));
}

/* ---- the task's registers ---- */

static uint32_t val(const npk_rk_entry *body, unsigned count, npk_rk_reg_id id, unsigned *writes)
{
    const npk_rk_reg *r = npk_rk_reg_info(id);
    uint32_t v = 0xDEADBEEFu;
    *writes = 0;
    for (unsigned i = 0; i < count; i++)
        if (npk_rk_entry_target(body[i]) == r->target && npk_rk_entry_reg(body[i]) == r->offset) {
            v = npk_rk_entry_value(body[i]);
            ++*writes;
        }
    return v;
}

static void registers(void)
{
    static npk_rk_entry body[NPK_RK_SDP_LUT_BODY];
    npk_rk_lut l;
    CHECK_EQ(npk_rk_lut_fit(NPK_ACT_SIGMOID, 0, 0, &l), NPK_OK);
    npk_rk_sdp t = npk_rk_sdp_default(NPK_EW_LUT, NPK_EW_NO_OPERAND, NPK_PREC_FP16, 4, 16);
    t.lut = &l;
    t.a = 0x1000;
    t.c = 0x2000;
    CHECK_EQ(npk_rk_sdp_body_entries(&t), NPK_RK_SDP_LUT_BODY);
    /* the spec's 1079 DPU writes of a LUT activation: 51 + 1028 */
    CHECK_EQ(NPK_RK_SDP_LUT_BODY - NPK_RK_SDP_BODY - NPK_RK_SDP_LUT_CONFIG, 1079 - 51);
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_OK);
    unsigned w;
    /* EW: the LUT alone (RELU, OP_CVT, OP bypassed) */
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_EW_CFG, &w), 0x302u);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_BS_CFG, &w), 0x53u);
    /* s = 2^14 / 16 = 1024 (fp16 0x6400) */
    /* BN: the ALU's SUM of -0.0 (0x80000000, as the third-party captures) then the multiplier */
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_BN_CFG, &w), 0x20040u);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_BN_ALU_CFG, &w), 0x80000000u);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_BN_MUL_CFG, &w), 0x64000000u);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_OUT_CVT_SHIFT, &w), 14u << 12);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_RDMA_ERDMA_CFG, &w), 1u);
    /* LUT_CFG: HYBRID and OFLOW priority LO, LO_LE_MUX 2; both steps 2^5 */
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_LUT_CFG, &w), 0x68u);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_LUT_INFO, &w), 0x050500u);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_LUT_LE_START, &w), (uint32_t)-16384);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_LUT_LE_END, &w), 0u);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_LUT_LO_START, &w), 0u);
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_LUT_LO_END, &w), 16384u);
    /* the upload: two ACCESS_CFG writes, 1026 entries; the first LE entry is sigmoid(-16) */
    CHECK_EQ(val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_LUT_ACCESS_CFG, &w), 0x30000u);
    CHECK_EQ(w, 2);
    val(body, NPK_RK_SDP_LUT_BODY, NPK_REG_DPU_LUT_ACCESS_DATA, &w);
    CHECK_EQ(w, 2 * NPK_RK_LUT_ENTRIES);
    CHECK_EQ(npk_rk_entry_value(body[1]), 0u);                           /* LE[0] */
    CHECK_EQ(npk_rk_entry_value(body[1 + 512]), 8192u);                  /* LE[512] = 0.5 */
    CHECK_EQ(npk_rk_entry_value(body[2 + 513 + 512]), 16384u);           /* LO[512] = 1 */
    /* the decoder names every LUT register and field through the register table */
    static const char *const named[] = {"LUT_ACCESS_TYPE", "LUT_TABLE_ID", "LUT_ACCESS_DATA",
                                        "LUT_HYBRID_PRIORITY", "LUT_LO_LE_MUX",
                                        "LUT_LE_INDEX_SELECT", "LUT_LO_INDEX_SELECT",
                                        "LUT_LE_START", "LUT_LO_END", "LUT_LE_SLOPE_UFLOW_SCALE",
                                        "LUT_LO_SLOPE_OFLOW_SHIFT", "BN_MUL_OPERAND",
                                        "BN_ALU_OPERAND", "MINUS_EXP"};
    static char text[NPK_RK_SDP_LUT_BODY * 160];
    size_t used = 0;
    for (unsigned i = 0; i < NPK_RK_SDP_LUT_BODY && used + 160 < sizeof text; i++) {
        used += npk_rk_entry_describe(body[i], text + used, sizeof text - used);
        text[used++] = '\n';
    }
    text[used] = 0;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        CHECK_STR_HAS(text, named[i]);
    /* bad input: a LUT task without its LUT, a LUT on another task, an integer LUT task */
    t.lut = NULL;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "without its LUT");
    t.lut = &l;
    t.op = NPK_EW_RELU;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "not a LUT task");
    t.op = NPK_EW_LUT;
    t.prec = t.feature = NPK_PREC_INT8;
    CHECK_EQ(npk_rk_synth_sdp(&t, body), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "fp16 SDP only");
}

/* ---- on the simulator ---- */

typedef struct job {
    npk_rk_device *d;
    npk_rk_mem feat, out, task;
} job;

static npk_status submit(job *j, const npk_rk_job_task *t, uint32_t count)
{
    if (!j->task.size) {
        npk_status s = npk_rk_mem_create(j->d, npk_rk_job_bytes_of(t, count),
                                         RKNPU_MEM_KERNEL_MAPPING, &j->task);
        if (s)
            return s;
        if ((s = npk_rk_job_write(j->task.host, j->task.iova, j->task.size, t, count)))
            return s;
    }
    struct rknpu_submit sub = {.flags = RKNPU_JOB_PC | RKNPU_JOB_BLOCK,
                               .timeout = 6000,
                               .task_number = count,
                               .task_obj_addr = j->task.obj_addr,
                               .core_mask = 1,
                               .fence_fd = -1};
    for (unsigned i = 0; i < 5; i++)
        sub.subcore_task[i] = (struct rknpu_subcore_task){0, count};
    return npk_rk_submit(j->d, &sub);
}

static void job_free(job *j)
{
    npk_rk_mem_destroy(j->d, &j->feat);
    npk_rk_mem_destroy(j->d, &j->out);
    npk_rk_mem_destroy(j->d, &j->task);
    npk_rk_device_close(j->d);
}

/* Inputs in [-span, span] with every 7th a wide value (the tables' ends and beyond). */
static void inputs(uint16_t *x, size_t count, float span)
{
    for (size_t i = 0; i < count; i++) {
        float v = ((float)(tl_rand() % 20001) / 10000.0f - 1.0f) * span;
        if (i % 7 == 3)
            v *= 4.0f;
        x[i] = npk_f32_to_f16(v);
    }
}

/* One LUT task of M x N on the simulator: the result bit for bit the LUT's arithmetic and
 * within the bound of the double reference. */
static void sim_case(npk_rk_act_kind act, uint32_t m, uint32_t n)
{
    const npk_rk_act_row *r = npk_rk_act_row_of(act);
    npk_rk_lut l;
    CHECK_EQ(npk_rk_lut_fit(act, r->alpha, r->beta, &l), NPK_OK);
    job j = {.d = tl_open(0)};
    size_t count = (size_t)m * n;
    uint16_t *x = malloc(count * 2), *y = malloc(count * 2);
    inputs(x, count, r->x_hi - r->x_lo);
    if (act == NPK_ACT_EXP)
        for (size_t i = 0; i < count; i++)
            x[i] |= 0x8000; /* x <= 0 */
    uint64_t ab = npk_rk_atom_bytes(NPK_PREC_FP16, m, n);
    CHECK_EQ(npk_rk_mem_create(j.d, ab, 0, &j.feat), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, ab, 0, &j.out), NPK_OK);
    CHECK_EQ(npk_rk_atom_pack(NPK_PREC_FP16, m, n, x, n, j.feat.host, ab), NPK_OK);
    npk_rk_sdp sdp = npk_rk_sdp_default(NPK_EW_LUT, NPK_EW_NO_OPERAND, NPK_PREC_FP16, m, n);
    sdp.lut = &l;
    sdp.a = j.feat.iova;
    sdp.c = j.out.iova;
    const npk_rk_job_task t = {.op = NPK_RK_OP_SDP, .args = &sdp};
    npk_status s = submit(&j, &t, 1);
    CHECK_EQ(s, NPK_OK);
    if (s)
        fprintf(stderr, "%s %ux%u: %s (%s)\n", r->name, m, n, npk_last_error(),
                tl_report(j.d)->message);
    CHECK_EQ(npk_rk_atom_unpack(NPK_PREC_FP16, m, n, j.out.host, ab, y, n), NPK_OK);
    size_t exact = 0, within = 0;
    for (size_t i = 0; s == NPK_OK && i < count; i++) {
        float xv = npk_f16_to_f32(x[i]), yv = npk_f16_to_f32(y[i]);
        exact += yv == out16(npk_rk_lut_eval(&l, xv));
        double ref = r->ref(xv, r->alpha, r->beta);
        within += fabs(yv - ref) <= bound(r, ref);
    }
    CHECK_EQ(exact, count);
    CHECK_EQ(within, count);
    free(x);
    free(y);
    job_free(&j);
}

static void simulated(void)
{
    static const uint32_t shapes[][2] = {{1, 1}, {1, 3}, {64, 17}, {3, 8192}};
    for (int a = 0; a < NPK_ACT_COUNT; a++) {
        if (npk_rk_act_row_of((npk_rk_act_kind)a)->engine != NPK_ACT_ENGINE_LUT)
            continue;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            sim_case((npk_rk_act_kind)a, shapes[s][0], shapes[s][1]);
    }
}

/* A matmul writing fp16 and a LUT task reading it, one submit: the fusion rule lets a 1-input
 * SDP chain regardless (spec); M = 1 so the contiguous row is the atom layout. */
static void fused(void)
{
    const uint32_t m = 1, k = 64, n = 32;
    job j = {.d = tl_open(0)};
    tl_case c;
    tl_case_init(&c, NPK_PREC_FP16, NPK_PREC_FP16, m, k, n);
    tl_case_reference(&c);
    npk_rk_pack_geom g = {NPK_PREC_FP16, NPK_PREC_FP16, NPK_MODE_LINE, m, k, n, k, n};
    npk_rk_mem ma, mb, mo;
    CHECK_EQ(npk_rk_mem_create(j.d, npk_rk_devpack_a_bytes(&g), 0, &ma), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, npk_rk_devpack_b_bytes(&g), 0, &mb), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, (uint64_t)m * n * 2, 0, &mo), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, npk_rk_atom_bytes(NPK_PREC_FP16, m, n), 0, &j.out), NPK_OK);
    CHECK_EQ(npk_rk_devpack_a(&g, c.a, ma.host, ma.size), NPK_OK);
    CHECK_EQ(npk_rk_devpack_b(&g, c.b, mb.host, mb.size), NPK_OK);
    npk_rk_lut l;
    CHECK_EQ(npk_rk_lut_fit(NPK_ACT_SILU, 0, 0, &l), NPK_OK);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, m, k, n);
    mm.out = NPK_PREC_FP16;
    mm.a = ma.iova;
    mm.b = mb.iova;
    mm.c = mo.iova;
    npk_rk_sdp sdp = npk_rk_sdp_default(NPK_EW_LUT, NPK_EW_NO_OPERAND, NPK_PREC_FP16, m, n);
    sdp.lut = &l;
    sdp.a = mo.iova;
    sdp.c = j.out.iova;
    const npk_rk_job_task t[2] = {{NPK_RK_OP_MATMUL, &mm}, {NPK_RK_OP_SDP, &sdp}};
    CHECK_EQ(submit(&j, t, 2), NPK_OK);
    const uint16_t *o = j.out.host;
    size_t bad = 0;
    for (uint32_t q = 0; q < n; q++) {
        float mmv = out16((float)c.ref[q]);
        bad += npk_f16_to_f32(o[q]) != out16(npk_rk_lut_eval(&l, mmv));
    }
    CHECK_EQ(bad, 0);
    npk_rk_mem_destroy(j.d, &ma);
    npk_rk_mem_destroy(j.d, &mb);
    npk_rk_mem_destroy(j.d, &mo);
    tl_case_free(&c);
    job_free(&j);
}

/* Task 0's program entry of register id, in a written job of one LUT task. */
static npk_rk_entry *entry_of(job *j, npk_rk_reg_id id, unsigned nth)
{
    npk_rk_entry *prog = (npk_rk_entry *)((uint8_t *)j->task.host + npk_rk_job_program_offset(1, 0));
    const npk_rk_reg *r = npk_rk_reg_info(id);
    for (unsigned e = 0; e < NPK_RK_SDP_LUT_BODY; e++)
        if (npk_rk_entry_target(prog[e]) == r->target && npk_rk_entry_reg(prog[e]) == r->offset &&
            !nth--)
            return &prog[e];
    return NULL;
}

/* A LUT program changed in one register after synthesis: refused by the simulator, naming it. */
static void outside(npk_rk_reg_id id, unsigned nth, uint32_t value, const char *names)
{
    npk_rk_lut l;
    CHECK_EQ(npk_rk_lut_fit(NPK_ACT_TANH, 0, 0, &l), NPK_OK);
    job j = {.d = tl_open(0)};
    CHECK_EQ(npk_rk_mem_create(j.d, 16, 0, &j.feat), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, 16, 0, &j.out), NPK_OK);
    npk_rk_sdp sdp = npk_rk_sdp_default(NPK_EW_LUT, NPK_EW_NO_OPERAND, NPK_PREC_FP16, 1, 8);
    sdp.lut = &l;
    sdp.a = j.feat.iova;
    sdp.c = j.out.iova;
    const npk_rk_job_task t = {.op = NPK_RK_OP_SDP, .args = &sdp};
    CHECK_EQ(npk_rk_mem_create(j.d, npk_rk_job_bytes_of(&t, 1), RKNPU_MEM_KERNEL_MAPPING, &j.task),
             NPK_OK);
    CHECK_EQ(npk_rk_job_write(j.task.host, j.task.iova, j.task.size, &t, 1), NPK_OK);
    npk_rk_entry *e = entry_of(&j, id, nth);
    CHECK(e != NULL);
    if (e)
        *e = npk_rk_entry_reg_write(id, value);
    CHECK_EQ(submit(&j, &t, 1), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(tl_report(j.d)->message, names);
    job_free(&j);
}

static void outside_the_model(void)
{
    outside(NPK_REG_DPU_LUT_CFG, 0, 0x64, "LUT_LO_LE_MUX");
    outside(NPK_REG_DPU_LUT_CFG, 0, 0x6a, "LUT_EXPAND_EN");
    outside(NPK_REG_DPU_LUT_LE_END, 0, 12345, "LUT_LE_END");
    outside(NPK_REG_DPU_LUT_INFO, 0, 0x051f00, "LUT_LE_INDEX_SELECT");
    outside(NPK_REG_DPU_BN_CFG, 0, 0x53, "BN_BYPASS");
    outside(NPK_REG_DPU_OUT_CVT_SHIFT, 0, (14u << 12) | 1, "OUT_CVT_SHIFT");
    /* the LO table's upload redirected to LE: LO's entries were never written */
    outside(NPK_REG_DPU_LUT_ACCESS_CFG, 1, 0x20000, "LO table's entry 0 was never written");
    /* the LE upload started at address 100: its last entries land past the table */
    outside(NPK_REG_DPU_LUT_ACCESS_CFG, 0, 0x20064, "past a table's 513 entries");
}

int main(void)
{
    fitting();
    registers();
    simulated();
    fused();
    outside_the_model();
    return check_done();
}
