/* SPDX-License-Identifier: MIT */
/* The simulator's SDP engine: every op, dtype and operand mode against a CPU reference on the
 * row-major arrays at edge shapes; a matmul -> SDP job in one submit; the SDP hazard rows in
 * both modes; registers outside the model refused by name; the SDP timing term. */
#include <math.h>

#include "rk/program/rk_sdp.h"
#include "rk/program/rk_job.h"
#include "npukit/rk_regcmd.h"
#include "rk/device/device_pack.h"
#include "rksim_testlib.h"

/* A job on core 0 of the simulator: buffers without CACHEABLE (no hazard 1 here). */
typedef struct sim_job {
    npk_rk_device *d;
    npk_rk_mem feat, opnd, out, task, mm_a, mm_b;
} sim_job;

static npk_status resubmit(sim_job *j, uint32_t count);

/* Write the job into a fresh task buffer and submit it. */
static npk_status submit_job(sim_job *j, const npk_rk_job_task *tasks, uint32_t count)
{
    npk_rk_mem_destroy(j->d, &j->task);
    npk_status s =
        npk_rk_mem_create(j->d, npk_rk_job_bytes(count), RKNPU_MEM_KERNEL_MAPPING, &j->task);
    if (s)
        return s;
    if ((s = npk_rk_job_write(j->task.host, j->task.iova, j->task.size, tasks, count)))
        return s;
    return resubmit(j, count);
}

static void job_free(sim_job *j)
{
    npk_rk_mem_destroy(j->d, &j->feat);
    npk_rk_mem_destroy(j->d, &j->opnd);
    npk_rk_mem_destroy(j->d, &j->out);
    npk_rk_mem_destroy(j->d, &j->task);
    npk_rk_mem_destroy(j->d, &j->mm_a);
    npk_rk_mem_destroy(j->d, &j->mm_b);
}

static size_t eb_of(npk_rk_prec p) { return p == NPK_PREC_INT8 ? 1 : 2; }

/* fp16 operands: multiples of 1/8 in [-4, 4), so sums, products, max and min are exact in
 * fp16 and the comparison is exact. Integers: full range, so sums and products saturate. */
static void fill(npk_rk_prec p, void *v, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (p == NPK_PREC_FP16)
            ((uint16_t *)v)[i] = npk_f32_to_f16((float)((int)(tl_rand() % 64) - 32) / 8.0f);
        else if (p == NPK_PREC_INT16)
            ((int16_t *)v)[i] = (int16_t)tl_rand();
        else
            ((int8_t *)v)[i] = (int8_t)tl_rand();
    }
}

static double get(npk_rk_prec p, const void *v, size_t i)
{
    if (p == NPK_PREC_FP16)
        return npk_f16_to_f32(((const uint16_t *)v)[i]);
    if (p == NPK_PREC_INT16)
        return ((const int16_t *)v)[i];
    return ((const int8_t *)v)[i];
}

/* The immediates of an op (the second: batchnorm's shift): fp16 multiples of 1/8, so the
 * products of the fp16 operands stay exact. */
static double imm_of(npk_rk_prec p, int i)
{
    static const double fp16[2] = {0.375, -1.25}, ints[2] = {3, -7};
    return p == NPK_PREC_FP16 ? fp16[i] : ints[i];
}

/* This file's own reference for the ops it was written with, on exact values (fp16: each step
 * rounded to fp32 as the SDP's fp32 arithmetic does): relu6 = min(max(a, 0), 6), leakyrelu =
 * a < 0 ? a * slope : a, batchnorm = a * scale + shift. false for another row. */
static bool own_ref(npk_rk_ew_op op, bool f, double a, double b, double s, double t, double *v)
{
    *v = op == NPK_EW_ADD         ? a + b
         : op == NPK_EW_MUL       ? a * b
         : op == NPK_EW_MAX       ? fmax(a, b)
         : op == NPK_EW_MIN       ? fmin(a, b)
         : op == NPK_EW_RELU      ? fmax(a, 0)
         : op == NPK_EW_RELU6     ? fmin(fmax(a, 0), 6)
         : op == NPK_EW_LEAKYRELU ? (a < 0 ? (f ? (double)(float)(a * s) : a * s) : a)
         : op == NPK_EW_BATCHNORM ? (f ? (double)((float)(a * s) + (float)t) : a * s + t)
                                  : NAN;
    return !isnan(*v);
}

/* The reference, clamped to the integer range: the file's own for the ops above (their rows'
 * arithmetic is held to it by row_values()), else the row's own arithmetic (rk_sdp_hw.h
 * `value`), so a new row runs here through the synthesizer, the registers and the simulator's
 * decode without an edit to this file. */
static double ref_op(npk_rk_ew_op op, npk_rk_prec p, double a, double b)
{
    const bool f = p == NPK_PREC_FP16;
    const double imm[2] = {imm_of(p, 0), imm_of(p, 1)};
    double v;
    if (!own_ref(op, f, a, b, imm[0], imm[1], &v))
        v = npk_rk_ew_op_row_of(op)->value(a, b, imm, f);
    double lo = p == NPK_PREC_INT16 ? -32768 : -128, hi = p == NPK_PREC_INT16 ? 32767 : 127;
    if (!f)
        v = v < lo ? lo : v > hi ? hi : v;
    else
        v = npk_f16_to_f32(npk_f32_to_f16((float)v));
    return v;
}

/* One SDP task from row-major a (and b) through the atom layout; mismatches returned. */
static size_t ew_case(npk_rk_ew_op op, npk_rk_ew_operand mode, npk_rk_prec p, uint32_t m,
                      uint32_t n)
{
    sim_job j = {.d = tl_open(0)};
    size_t eb = eb_of(p), count = (size_t)m * n;
    void *a = malloc(count * eb), *b = malloc(count * eb), *c = calloc(count, eb);
    fill(p, a, count);
    fill(p, b, count);
    if (op == NPK_EW_RELU6 && p == NPK_PREC_FP16) /* reach past the clamp: [-12, 12) */
        for (size_t i = 0; i < count; i++)
            ((uint16_t *)a)[i] = npk_f32_to_f16(3 * npk_f16_to_f32(((uint16_t *)a)[i]));
    uint64_t ab = npk_rk_atom_bytes(p, m, n);
    CHECK_EQ(npk_rk_mem_create(j.d, ab, 0, &j.feat), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, ab, 0, &j.opnd), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, ab, 0, &j.out), NPK_OK);
    CHECK_EQ(npk_rk_atom_pack(p, m, n, a, n, j.feat.host, ab), NPK_OK);
    if (mode == NPK_EW_PER_ELEMENT)
        CHECK_EQ(npk_rk_atom_pack(p, m, n, b, n, j.opnd.host, ab), NPK_OK);
    else
        memcpy(j.opnd.host, b, n * eb); /* the vector: b's first row */
    npk_rk_sdp ts = npk_rk_sdp_default(op, mode, p, m, n);
    const npk_rk_job_task t = {.op = NPK_RK_OP_SDP, .args = &ts};
    ts.imm[0] = imm_of(p, 0);
    ts.imm[1] = imm_of(p, 1);
    ts.a = j.feat.iova;
    ts.b = j.opnd.iova;
    ts.c = j.out.iova;
    size_t bad = count;
    if (submit_job(&j, &t, 1) == NPK_OK &&
        npk_rk_atom_unpack(p, m, n, j.out.host, ab, c, n) == NPK_OK) {
        bad = 0;
        for (size_t i = 0; i < count; i++) {
            double bv = mode == NPK_EW_PER_ELEMENT   ? get(p, b, i)
                        : mode == NPK_EW_PER_CHANNEL ? get(p, b, i % n)
                        : mode == NPK_EW_IMMEDIATE   ? imm_of(p, 0)
                                                     : 0;
            bad += get(p, c, i) != ref_op(op, p, get(p, a, i), bv);
        }
    } else {
        fprintf(stderr, "submit: %s (%s)\n", npk_last_error(), tl_report(j.d)->message);
    }
    if (bad)
        fprintf(stderr, "%s %s mode %d %ux%u: %zu mismatches\n", npk_rk_ew_op_row_of(op)->name,
                npk_rk_prec_name(p), (int)mode, m, n, bad);
    free(a);
    free(b);
    free(c);
    job_free(&j);
    npk_rk_device_close(j.d);
    return bad;
}

/* Each row's arithmetic against this file's own reference, where it has one, over values
 * past the clamps and of both signs; every simulated row has one. */
static void row_values(void)
{
    static const double xs[] = {-12.5, -6, -1.25, -0.375, 0, 0.5, 3, 6, 7.75, 100};
    for (int op = 0; op < NPK_EW_OP_COUNT; op++) {
        const npk_rk_ew_op_row *row = npk_rk_ew_op_row_of((npk_rk_ew_op)op);
        CHECK(row->value || row->not_simulated || op == NPK_EW_LUT);
        /* an immediate operand fills the task's two registers at most (rk_sdp.h's imm[2]);
         * batchnorm's are its scale and shift, every other op's one value */
        const unsigned imm = npk_rk_ew_op_immediates((npk_rk_ew_op)op);
        CHECK(imm >= 1 && imm <= 2);
        CHECK_EQ(imm, op == NPK_EW_BATCHNORM ? 2u : 1u);
        for (int f = 0; row->value && f < 2; f++)
            for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
                for (size_t j = 0; j < sizeof xs / sizeof xs[0]; j++) {
                    const double imm[2] = {xs[j], -xs[i]};
                    double want;
                    if (own_ref((npk_rk_ew_op)op, f, xs[i], xs[j], imm[0], imm[1], &want))
                        CHECK(row->value(xs[i], xs[j], imm, f) == want);
                }
    }
}

/* An op past the enum (a row the table lacks) is refused by name at each layer that takes an
 * op: the rows, the name parser, the synthesizer's check and the job writer; the runtime's and
 * the CLI's refusals are test_rk_ew.c's and test_rk_ew_cli.sh's. */
static void fake_op_refused(void)
{
    const npk_rk_ew_op fake = NPK_EW_OP_COUNT;
    CHECK(npk_rk_ew_op_row_of(fake) == NULL);
    CHECK_EQ(npk_rk_ew_op_immediates(fake), 0u);
    npk_rk_ew_op parsed = NPK_EW_ADD;
    CHECK(!npk_rk_ew_op_parse("relu3", &parsed));
    CHECK_EQ(parsed, NPK_EW_ADD);
    npk_rk_sdp t = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 2, 8);
    t.op = fake;
    CHECK_EQ(npk_rk_sdp_check(&t), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "is not one of add|mul|max|min|relu");
    sim_job j = {.d = tl_open(0)};
    npk_rk_job_task task = {.op = NPK_RK_OP_SDP, .args = &t};
    CHECK_EQ(submit_job(&j, &task, 1), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "is not one of add|mul|max|min|relu");
    job_free(&j);
    npk_rk_device_close(j.d);
}

static void every_op(void)
{
    static const uint32_t shapes[][2] = {{1, 1}, {1, 3}, {64, 17}, {65, 33}, {1, 8192}, {3, 8192}};
    static const npk_rk_prec precs[] = {NPK_PREC_FP16, NPK_PREC_INT16, NPK_PREC_INT8};
    for (size_t p = 0; p < 3; p++)
        for (int op = 0; op < NPK_EW_OP_COUNT; op++) {
            const npk_rk_ew_op_row *row = npk_rk_ew_op_row_of((npk_rk_ew_op)op);
            if (row->not_simulated) /* refused by name: not_simulated() */
                continue;
            if (op == NPK_EW_LUT) /* a LUT task takes its tables: test_rk_act.c */
                continue;
            for (unsigned kind = 0; kind <= NPK_EW_IMMEDIATE; kind++) {
                if (!(npk_rk_ew_op_operands(row) & NPK_EW_OPERAND_BIT(kind)))
                    continue;
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                    CHECK_EQ(ew_case((npk_rk_ew_op)op, (npk_rk_ew_operand)kind, precs[p],
                                     shapes[s][0], shapes[s][1]),
                             0);
            }
        }
}

/* Rewrite register `id` in task i's program of a job written into j->task. */
static void patch(sim_job *j, uint32_t count, uint32_t i, npk_rk_reg_id id, uint32_t value)
{
    npk_rk_entry *prog =
        (npk_rk_entry *)((uint8_t *)j->task.host + npk_rk_job_program_offset(count, i));
    const npk_rk_reg *r = npk_rk_reg_info(id);
    for (unsigned e = 0; e < NPK_RK_MATMUL_BODY; e++)
        if (npk_rk_entry_target(prog[e]) == r->target && npk_rk_entry_reg(prog[e]) == r->offset)
            prog[e] = npk_rk_entry_reg_write(id, value);
}

/* Submit the job already written into j->task (after a patch). */
static npk_status resubmit(sim_job *j, uint32_t count)
{
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

/* One fp16 SDP task's buffers of M x N (atoms) on a fresh simulator. */
static void sdp_buffers(sim_job *j, npk_rk_prec p, uint32_t m, uint32_t n)
{
    uint64_t ab = npk_rk_atom_bytes(p, m, n);
    CHECK_EQ(npk_rk_mem_create(j->d, ab, 0, &j->feat), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j->d, ab, 0, &j->opnd), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j->d, ab, 0, &j->out), NPK_OK);
}

/* A matmul -> SDP job in one submit: an fp16 matmul writes its contiguous [M][N] fp16 output,
 * the chained SDP reads it (the 2-input mul behind a matching precision path). Per-element at
 * M=4 reads the output as M*N/8 atoms of 8 channels (a per-element op is layout-blind); the
 * per-channel scale at M=1, where a contiguous row is the atom layout. */
static void fused(uint32_t m, npk_rk_ew_operand mode, npk_rk_prec mm_out, uint32_t ideal,
                  npk_status want, bool check_values)
{
    const uint32_t k = 64, n = 32;
    sim_job j = {.d = tl_open(ideal)};
    tl_case c;
    tl_case_init(&c, NPK_PREC_FP16, mm_out, m, k, n);
    tl_case_reference(&c);
    npk_rk_pack_geom g = {NPK_PREC_FP16, mm_out, NPK_MODE_LINE, m, k, n, k, n};
    CHECK_EQ(npk_rk_mem_create(j.d, npk_rk_devpack_a_bytes(&g), 0, &j.mm_a), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, npk_rk_devpack_b_bytes(&g), 0, &j.mm_b), NPK_OK);
    CHECK_EQ(npk_rk_devpack_a(&g, c.a, j.mm_a.host, j.mm_a.size), NPK_OK);
    CHECK_EQ(npk_rk_devpack_b(&g, c.b, j.mm_b.host, j.mm_b.size), NPK_OK);
    uint32_t rows = mode == NPK_EW_PER_ELEMENT ? m * n / 8 : m,
             ch = mode == NPK_EW_PER_ELEMENT ? 8 : n;
    sdp_buffers(&j, NPK_PREC_FP16, rows, ch);
    npk_rk_mem mmout;
    CHECK_EQ(npk_rk_mem_create(j.d, (uint64_t)m * n * 4, 0, &mmout), NPK_OK);
    uint16_t *scale = j.opnd.host;
    for (uint32_t i = 0; i < m * n; i++) /* per-element: in [M][N] order = the flat atoms */
        scale[i] = npk_f32_to_f16((float)((int)(tl_rand() % 8) - 4) / 4.0f);
    npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, m, k, n);
    mm.out = mm_out;
    mm.a = j.mm_a.iova;
    mm.b = j.mm_b.iova;
    mm.c = mmout.iova;
    npk_rk_sdp sdp = npk_rk_sdp_default(NPK_EW_MUL, mode, NPK_PREC_FP16, rows, ch);
    sdp.a = mmout.iova;
    sdp.b = j.opnd.iova;
    sdp.c = j.out.iova;
    sdp.unchecked = mm_out != NPK_PREC_FP16; /* past the synthesizer's fusion rule */
    npk_rk_job_task t[2] = {{NPK_RK_OP_MATMUL, &mm}, {NPK_RK_OP_SDP, &sdp}};
    npk_status s = submit_job(&j, t, 2);
    CHECK_EQ(s, want);
    CHECK(!!(tl_report(j.d)->hazards & RKSIM_HZ_BIT(RKSIM_HZ_SDP_CHAIN_PRECISION)) ==
          (mm_out != NPK_PREC_FP16));
    if (s == NPK_OK && check_values) {
        const uint16_t *o = j.out.host;
        size_t bad = 0;
        for (uint32_t i = 0; i < m; i++)
            for (uint32_t q = 0; q < n; q++) {
                float mmv = npk_f16_to_f32(npk_f32_to_f16((float)c.ref[i * n + q]));
                float sc = npk_f16_to_f32(scale[mode == NPK_EW_PER_ELEMENT ? i * n + q : q]);
                bad += npk_f16_to_f32(o[i * n + q]) != npk_f16_to_f32(npk_f32_to_f16(mmv * sc));
            }
        CHECK_EQ(bad, 0);
    }
    npk_rk_mem_destroy(j.d, &mmout);
    tl_case_free(&c);
    job_free(&j);
    npk_rk_device_close(j.d);
}

static void fused_jobs(void)
{
    fused(4, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 0, NPK_OK, true);
    fused(1, NPK_EW_PER_CHANNEL, NPK_PREC_FP16, 0, NPK_OK, true);
    /* the dtype-path rule: an fp32-writing matmul feeding an fp16 2-input SDP stalls ... */
    fused(1, NPK_EW_PER_CHANNEL, NPK_PREC_FP32, 0, NPK_ETIMEDOUT, false);
    /* ... and in the ideal mode the SDP reads the bytes as fp16 */
    fused(1, NPK_EW_PER_CHANNEL, NPK_PREC_FP32, RKSIM_HZ_BIT(RKSIM_HZ_SDP_CHAIN_PRECISION), NPK_OK,
          false);
    /* the synthesizer refuses the mismatched chain itself, naming the rule */
    const npk_rk_mm mm = npk_rk_mm_default(NPK_PREC_FP16, 1, 64, 32);
    npk_rk_sdp sdp = npk_rk_sdp_default(NPK_EW_MUL, NPK_EW_PER_CHANNEL, NPK_PREC_FP16, 1, 32);
    const npk_rk_job_task t[2] = {{NPK_RK_OP_MATMUL, &mm}, {NPK_RK_OP_SDP, &sdp}};
    uint8_t buf[4096] __attribute__((aligned(16)));
    CHECK_EQ(npk_rk_job_write(buf, 0x1000, sizeof buf, t, 2), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "dtype-path rule");
    sdp.op = NPK_EW_RELU; /* 1-input: chains regardless */
    sdp.operand = NPK_EW_NO_OPERAND;
    CHECK_EQ(npk_rk_job_write(buf, 0x1000, sizeof buf, t, 2), NPK_OK);
    CHECK_EQ(npk_rk_job_write(buf, 0x1000, 64, t, 2), NPK_EINVAL);
}

/* The int32 feature: N RDMA channels under-fetch and stall; 2N give two int16 lanes. */
static void int32_feature(uint32_t rdma_mult, uint32_t ideal)
{
    const uint32_t n = 8;
    sim_job j = {.d = tl_open(ideal)};
    CHECK_EQ(npk_rk_mem_create(j.d, n * 4, 0, &j.feat), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, 2 * n * 2 * 2, 0, &j.out), NPK_OK);
    int32_t *a = j.feat.host;
    for (uint32_t i = 0; i < n; i++)
        a[i] = i == 0 ? 80000 : (int32_t)(tl_rand() % 200000) - 100000; /* 80000: the spec's */
    npk_rk_sdp ts = npk_rk_sdp_default(NPK_EW_RELU, NPK_EW_NO_OPERAND, NPK_PREC_INT16, 1, n);
    const npk_rk_job_task t = {.op = NPK_RK_OP_SDP, .args = &ts};
    ts.feature = NPK_PREC_INT32;
    ts.rdma_channels = rdma_mult * n;
    ts.unchecked = true;
    ts.op = NPK_EW_MAX; /* max with a zero vector keeps the lanes' own values */
    ts.operand = NPK_EW_PER_CHANNEL;
    CHECK_EQ(npk_rk_mem_create(j.d, 2 * n * 2, 0, &j.opnd), NPK_OK);
    int16_t *floor16 = j.opnd.host;
    for (uint32_t i = 0; i < 2 * n; i++)
        floor16[i] = -32768;
    ts.a = j.feat.iova;
    ts.b = j.opnd.iova;
    ts.c = j.out.iova;
    npk_status s = submit_job(&j, &t, 1);
    rksim_hazard_id id =
        rdma_mult == 1 ? RKSIM_HZ_SDP_INT32_UNDERFETCH : RKSIM_HZ_SDP_INT32_TWO_LANE;
    CHECK(tl_report(j.d)->hazards & RKSIM_HZ_BIT(id));
    if (ideal) {
        CHECK_EQ(s, NPK_EUNSUPPORTED);
        CHECK_STR_HAS(tl_report(j.d)->message, "DPU_RDMA_FEATURE_MODE_CFG");
    } else if (rdma_mult == 1) {
        CHECK_EQ(s, NPK_ETIMEDOUT);
        CHECK_STR_HAS(tl_report(j.d)->message, "2 bytes per element");
    } else {
        CHECK_EQ(s, NPK_OK);
        const int16_t *o = j.out.host;   /* 2N lanes in one... two atoms of 8 */
        CHECK_EQ((uint16_t)o[0], 14464); /* low16(80000), spec */
        CHECK_EQ(o[1], 1);               /* high16(80000) */
        size_t bad = 0;
        for (uint32_t k = 0; k < n; k++)
            bad += (uint16_t)o[2 * k] != (uint16_t)(a[k] & 0xffff) ||
                   o[2 * k + 1] != (int16_t)(a[k] >> 16);
        CHECK_EQ(bad, 0);
    }
    job_free(&j);
    npk_rk_device_close(j.d);
}

/* Register values outside the model, each refused naming its register. */
static void unsupported(npk_rk_reg_id id, uint32_t value, const char *name)
{
    sim_job j = {.d = tl_open(0)};
    sdp_buffers(&j, NPK_PREC_FP16, 4, 16);
    npk_rk_sdp ts = npk_rk_sdp_default(NPK_EW_ADD, NPK_EW_PER_ELEMENT, NPK_PREC_FP16, 4, 16);
    const npk_rk_job_task t = {.op = NPK_RK_OP_SDP, .args = &ts};
    ts.a = j.feat.iova;
    ts.b = j.opnd.iova;
    ts.c = j.out.iova;
    CHECK_EQ(submit_job(&j, &t, 1), NPK_OK);
    patch(&j, 1, 0, id, value);
    CHECK_EQ(resubmit(&j, 1), NPK_EUNSUPPORTED);
    CHECK_STR_HAS(tl_report(j.d)->message, "unsupported by the model");
    CHECK_STR_HAS(tl_report(j.d)->message, name);
    /* the rule engine's one format: register, value, field, what was expected, why */
    CHECK_STR_HAS(tl_report(j.d)->message, ", expected ");
    job_free(&j);
    npk_rk_device_close(j.d);
}

/* Rows the simulator has no evidence for, each refused naming its source's gap: EQL (the spec
 * names only the value), the EW register operand (EW_OP_SRC) and the EW operand converter. */
static void not_simulated(void)
{
    static const struct {
        npk_rk_ew_op op;
        npk_rk_ew_operand operand;
        bool ew_imm, cvt;
        const char *why;
    } cases[] = {
        {NPK_EW_EQL, NPK_EW_PER_ELEMENT, false, false, "no source gives its output"},
        {NPK_EW_ADD, NPK_EW_IMMEDIATE, true, false, "EW_OP_SRC"},
        {NPK_EW_MUL, NPK_EW_PER_CHANNEL, false, true, "EW operand converter"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_job j = {.d = tl_open(0)};
        sdp_buffers(&j, NPK_PREC_FP16, 4, 16);
        memset(j.out.host, 0x5a, j.out.size);
        npk_rk_sdp ts = npk_rk_sdp_default(cases[i].op, cases[i].operand, NPK_PREC_FP16, 4, 16);
        const npk_rk_job_task t = {.op = NPK_RK_OP_SDP, .args = &ts};
        ts.ew_imm = cases[i].ew_imm;
        ts.ew_cvt.on = cases[i].cvt;
        ts.ew_cvt.scale = 1;
        ts.imm[0] = 1;
        ts.unchecked = true; /* the synthesizer refuses them checked */
        ts.a = j.feat.iova;
        ts.b = j.opnd.iova;
        ts.c = j.out.iova;
        CHECK_EQ(submit_job(&j, &t, 1), NPK_EUNSUPPORTED);
        CHECK_STR_HAS(tl_report(j.d)->message, "unsupported by the model");
        CHECK_STR_HAS(tl_report(j.d)->message, cases[i].why);
        CHECK_EQ(((uint8_t *)j.out.host)[0], 0x5a); /* nothing written */
        job_free(&j);
        npk_rk_device_close(j.d);
    }
}

static void outside_the_model(void)
{
    unsupported(NPK_REG_DPU_EW_CFG, 0x208203C0, "DPU_EW_CFG");             /* EW_OP_SRC set */
    unsupported(NPK_REG_DPU_BS_CFG, 0x30050, "DPU_BS_CFG");                /* BS ALU EQL */
    unsupported(NPK_REG_DPU_BN_CFG, 0x13, "DPU_BN_CFG");                   /* bypassed, ReLU on */
    unsupported(NPK_REG_DPU_BS_MUL_CFG, 0x3c000001, "DPU_BS_MUL_CFG");     /* from memory */
    unsupported(NPK_REG_DPU_RDMA_BRDMA_CFG, 0x2, "DPU_RDMA_BRDMA_CFG");    /* a BS operand read */
    unsupported(NPK_REG_DPU_S_POINTER, 0xE, "DPU_S_POINTER");              /* ping-pong */
    unsupported(NPK_REG_DPU_BS_OW_CFG, 0x126, "DPU_BS_OW_CFG");            /* SIZE_E 1 */
    unsupported(NPK_REG_DPU_DST_SURF_STRIDE, 0x10, "DPU_DST_SURF_STRIDE"); /* line output */
    unsupported(NPK_REG_DPU_DATA_FORMAT, 0xa8000002, "DPU_DATA_FORMAT");   /* fp32 out */
    unsupported(NPK_REG_DPU_RDMA_DATA_CUBE_CHANNEL, 31, "DPU_RDMA_DATA_CUBE_CHANNEL");
    unsupported(NPK_REG_DPU_RDMA_SRC_DMA_CFG, 8u << 19, "DPU_RDMA_SRC_DMA_CFG"); /* 2 surfaces */
    unsupported(NPK_REG_DPU_RDMA_FEATURE_MODE_CFG, 0x17859, "DPU_RDMA_FEATURE_MODE_CFG");
    unsupported(NPK_REG_DPU_RDMA_ERDMA_CFG, 0x4000000a, "DPU_RDMA_ERDMA_CFG"); /* mode 1 */
    unsupported(NPK_REG_DPU_SURFACE_ADD, 0x12345670, "DPU_SURFACE_ADD");
}

/* One atom-wide tile of a contiguous [M][P] buffer through LINE_NOTCH_ADDR = P - 8. */
static void notch_tile(void)
{
    const uint32_t m = 5, p = 40, c0 = 16;
    sim_job j = {.d = tl_open(0)};
    CHECK_EQ(npk_rk_mem_create(j.d, m * p * 2, 0, &j.feat), NPK_OK);
    CHECK_EQ(npk_rk_mem_create(j.d, m * 16, 0, &j.out), NPK_OK);
    uint16_t *a = j.feat.host;
    fill(NPK_PREC_FP16, a, m * p);
    npk_rk_sdp ts = npk_rk_sdp_default(NPK_EW_RELU, NPK_EW_NO_OPERAND, NPK_PREC_FP16, m, 8);
    const npk_rk_job_task t = {.op = NPK_RK_OP_SDP, .args = &ts};
    ts.a = j.feat.iova + c0 * 2;
    ts.c = j.out.iova;
    ts.line_notch = p - 8;
    CHECK_EQ(submit_job(&j, &t, 1), NPK_OK);
    const uint16_t *o = j.out.host;
    size_t bad = 0;
    for (uint32_t r = 0; r < m; r++)
        for (uint32_t q = 0; q < 8; q++)
            bad += npk_f16_to_f32(o[r * 8 + q]) != fmaxf(npk_f16_to_f32(a[r * p + c0 + q]), 0);
    CHECK_EQ(bad, 0);
    job_free(&j);
    npk_rk_device_close(j.d);
}

/* The SDP term of the timing model against the spec's per-channel figures: ~40-110 us flat
 * across N = 64..2048 at M = 64 (submit floor included). */
static void timing(void)
{
    static const uint32_t ns[] = {64, 2048};
    for (int i = 0; i < 2; i++) {
        sim_job j = {.d = tl_open(0)};
        sdp_buffers(&j, NPK_PREC_FP16, 64, ns[i]);
        npk_rk_sdp ts = npk_rk_sdp_default(NPK_EW_MUL, NPK_EW_PER_CHANNEL, NPK_PREC_FP16, 64, ns[i]);
        const npk_rk_job_task t = {.op = NPK_RK_OP_SDP, .args = &ts};
        ts.a = j.feat.iova;
        ts.b = j.opnd.iova;
        ts.c = j.out.iova;
        CHECK_EQ(submit_job(&j, &t, 1), NPK_OK);
        double us = tl_report(j.d)->model_us;
        CHECK(us >= 40 && us <= 110);
        job_free(&j);
        npk_rk_device_close(j.d);
    }
}

int main(void)
{
    row_values();
    fake_op_refused();
    every_op();
    fused_jobs();
    int32_feature(1, 0);
    int32_feature(2, 0);
    int32_feature(1, RKSIM_HZ_BIT(RKSIM_HZ_SDP_INT32_UNDERFETCH));
    int32_feature(2, RKSIM_HZ_BIT(RKSIM_HZ_SDP_INT32_TWO_LANE));
    outside_the_model();
    not_simulated();
    notch_tile();
    timing();
    return check_done();
}
