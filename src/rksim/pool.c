/* SPDX-License-Identifier: MIT */
/* The PDP pooling executor (op-enable PPU | PPU_RDMA, rk_pool.h): the task decoded from the
 * registers through a table of rows on the rule engine, the input read through bounds-checked
 * DMA, then max/min exact over the window's real cells and average as (fp32 sum, padding 0) x
 * recip_w x recip_h, rounded to fp16 once. The geometry model: the input [C/8][H][W][8] at
 * PPU_SRC_BASE_ADDR (0x6070, the spec's input IOVA), the output at the 0x8001 stage's
 * DST_BASE_ADDR with its line and surface strides. Timing: the SDP's DMA row (the PDP streams
 * its input in and its output out; docs/rk-pooling.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "npukit/fp16.h"
#include "rk/hw/rk_conv_hw.h"
#include "npukit/rk_regs.h"
#include "rksim/ops.h"
#include "rksim/result.h"
#include "rksim/sim.h"
#include "rksim/regs_view.h"
#include "rksim/rules.h"
#include "rksim/timing.h"

#define F(reg, field) rksim_field(rf, NPK_RKF(reg, field))
#define R(reg) rksim_reg(rf, NPK_REG_##reg)

typedef struct pool {
    unsigned method;
    uint32_t in_h, in_w, c, out_h, out_w, k_h, k_w, sy, sx, pt, pl, pb, pr;
    float recip_w, recip_h;
    uint32_t in, out;
    uint64_t line, surf;
} pool;

typedef enum quantity {
    Q_CONST = RKSIM_Q_CONST,
    Q_FIELD = RKSIM_Q_FIELD,
    Q_OUT_H = RKSIM_Q_DECODER, /* the output height the kernel, stride and pads give, - 1 */
    Q_OUT_W,
    Q_LINE,        /* OW * 16 */
    Q_SURF,        /* OW * OH * 16 */
    Q_RECIP_W,     /* the reciprocal of the kernel width */
    Q_RECIP_H,
} quantity;

typedef enum guard { G_ALL = RKSIM_WHEN_ALL, G_AVG } guard;

#define FLD(reg, field) NPK_REG_##reg, NPK_RKF(reg, field)
#define REG(reg) NPK_REG_##reg, RKSIM_RULE_WHOLE
#define IS(v) RKSIM_REL_EQ, Q_CONST, (v)
#define IS_Q(q) RKSIM_REL_EQ, q, 0
#define SAME_AS(reg, field) RKSIM_REL_EQ, Q_FIELD, NPK_RKF(reg, field)

static const char cap[] = "the PDP registers of the spec's maxpool capture";
static const char geom[] = "the output cube the kernel, stride and padding give";
static const char stage[] = "the 0x8001 output stage writes the PDP's output cube";

static const rksim_rule rows[] = {
    {REG(PPU_S_POINTER), G_ALL, IS(0xE), cap},
    {REG(PPU_RDMA_S_POINTER), G_ALL, IS(0xE), cap},
    {REG(PPU_60DC), G_ALL, IS(3), cap},
    {FLD(PPU_OPERATION_MODE_CFG, FLYING_MODE), G_ALL, IS(1), "the input is read from memory"},
    {FLD(PPU_DATA_FORMAT, PROC_PRECISION), G_ALL, IS(NPK_PREC_FP16),
     "only fp16 pooling is modelled"},
    {FLD(PPU_DATA_FORMAT, INDEX_ADD), G_ALL, IS(0), "unpooling indices are not modelled"},
    {FLD(PPU_RDMA_DATA_FORMAT, IN_PRECISION), G_ALL, IS(NPK_PREC_FP16),
     "only fp16 pooling is modelled"},
    {FLD(PPU_DATA_CUBE_OUT_CHANNEL, CUBE_OUT_CHANNEL), G_ALL,
     SAME_AS(PPU_DATA_CUBE_IN_CHANNEL, CUBE_IN_CHANNEL), "pooling keeps the channels"},
    {FLD(PPU_DATA_CUBE_OUT_HEIGHT, CUBE_OUT_HEIGHT), G_ALL, IS_Q(Q_OUT_H), geom},
    {FLD(PPU_DATA_CUBE_OUT_WIDTH, CUBE_OUT_WIDTH), G_ALL, IS_Q(Q_OUT_W), geom},
    {FLD(PPU_RDMA_CUBE_HEIGHT, CUBE_HEIGHT), G_ALL,
     SAME_AS(PPU_DATA_CUBE_OUT_HEIGHT, CUBE_OUT_HEIGHT), stage},
    {FLD(PPU_RDMA_CUBE_WIDTH, CUBE_WIDTH), G_ALL, SAME_AS(PPU_DATA_CUBE_OUT_WIDTH, CUBE_OUT_WIDTH),
     stage},
    {FLD(PPU_RDMA_CUBE_CHANNEL, CUBE_CHANNEL), G_ALL,
     SAME_AS(PPU_DATA_CUBE_OUT_CHANNEL, CUBE_OUT_CHANNEL), stage},
    {REG(PPU_RDMA_DST_LINE_STRIDE), G_ALL, IS_Q(Q_LINE), "the output rows are OW atoms"},
    {REG(PPU_RDMA_DST_SURF_STRIDE), G_ALL, IS_Q(Q_SURF), "the output surfaces are OW x OH atoms"},
    {FLD(PPU_RECIP_KERNEL_WIDTH, RECIP_KERNEL_WIDTH), G_AVG, IS_Q(Q_RECIP_W),
     "the average's reciprocal of the kernel width (fp17)"},
    {FLD(PPU_RECIP_KERNEL_HEIGHT, RECIP_KERNEL_HEIGHT), G_AVG, IS_Q(Q_RECIP_H),
     "the average's reciprocal of the kernel height (fp17)"},
};

static bool applies(int when, const rksim_regfile *rf, const void *ctx)
{
    (void)ctx;
    return when == G_ALL || F(PPU_OPERATION_MODE_CFG, POOLING_METHOD) == NPK_RK_POOL_AVG;
}

static int64_t quantity_of(int q, const rksim_regfile *rf, const void *ctx)
{
    const pool *p = ctx;
    switch ((quantity)q) {
    case Q_CONST:
    case Q_FIELD: return 0;
    case Q_OUT_H: return ((int64_t)p->in_h + p->pt + p->pb - p->k_h) / p->sy;
    case Q_OUT_W: return ((int64_t)p->in_w + p->pl + p->pr - p->k_w) / p->sx;
    case Q_LINE: return (int64_t)(F(PPU_DATA_CUBE_OUT_WIDTH, CUBE_OUT_WIDTH) + 1) * 16;
    case Q_SURF:
        return (int64_t)(F(PPU_DATA_CUBE_OUT_WIDTH, CUBE_OUT_WIDTH) + 1) *
               (F(PPU_DATA_CUBE_OUT_HEIGHT, CUBE_OUT_HEIGHT) + 1) * 16;
    case Q_RECIP_W: return npk_rk_pool_recip(p->k_w);
    case Q_RECIP_H: return npk_rk_pool_recip(p->k_h);
    }
    return 0;
}

static const rksim_rule_ops pool_ops = {applies, quantity_of, NULL, NULL, NULL};

static bool decode(const rksim_regfile *rf, pool *p, rksim_core_result *r)
{
    memset(p, 0, sizeof *p);
    p->method = F(PPU_OPERATION_MODE_CFG, POOLING_METHOD);
    if (p->method >= NPK_RK_POOL_METHOD_COUNT)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: PPU_OPERATION_MODE_CFG (0x6024) "
                                 "POOLING_METHOD %u: average (0), max (1) or min (2)",
                                 p->method);
    p->in_h = F(PPU_DATA_CUBE_IN_HEIGHT, CUBE_IN_HEIGHT) + 1;
    p->in_w = F(PPU_DATA_CUBE_IN_WIDTH, CUBE_IN_WIDTH) + 1;
    p->c = F(PPU_DATA_CUBE_IN_CHANNEL, CUBE_IN_CHANNEL) + 1;
    p->k_h = F(PPU_POOLING_KERNEL_CFG, KERNEL_HEIGHT) + 1;
    p->k_w = F(PPU_POOLING_KERNEL_CFG, KERNEL_WIDTH) + 1;
    p->sy = F(PPU_POOLING_KERNEL_CFG, KERNEL_STRIDE_HEIGHT) + 1;
    p->sx = F(PPU_POOLING_KERNEL_CFG, KERNEL_STRIDE_WIDTH) + 1;
    p->pt = F(PPU_POOLING_PADDING_CFG, PAD_TOP);
    p->pl = F(PPU_POOLING_PADDING_CFG, PAD_LEFT);
    p->pb = F(PPU_POOLING_PADDING_CFG, PAD_BOTTOM);
    p->pr = F(PPU_POOLING_PADDING_CFG, PAD_RIGHT);
    if (p->k_h > p->in_h + p->pt + p->pb || p->k_w > p->in_w + p->pl + p->pr ||
        p->pt >= p->k_h || p->pb >= p->k_h || p->pl >= p->k_w || p->pr >= p->k_w)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: PPU_POOLING_KERNEL_CFG (0x6034) "
                                 "kernel %ux%u with padding %u/%u/%u/%u over an input %ux%u: "
                                 "a window of padding only, or past the padded input",
                                 p->k_h, p->k_w, p->pt, p->pl, p->pb, p->pr, p->in_h, p->in_w);
    if (!rksim_rules_check(rows, sizeof rows / sizeof rows[0], rf, &pool_ops, p, r))
        return false;
    p->out_h = F(PPU_DATA_CUBE_OUT_HEIGHT, CUBE_OUT_HEIGHT) + 1;
    p->out_w = F(PPU_DATA_CUBE_OUT_WIDTH, CUBE_OUT_WIDTH) + 1;
    p->recip_w = npk_rk_pool_recip_value(F(PPU_RECIP_KERNEL_WIDTH, RECIP_KERNEL_WIDTH));
    p->recip_h = npk_rk_pool_recip_value(F(PPU_RECIP_KERNEL_HEIGHT, RECIP_KERNEL_HEIGHT));
    p->in = R(PPU_SRC_BASE_ADDR);
    p->out = R(PPU_RDMA_DST_BASE_ADDR);
    p->line = R(PPU_RDMA_DST_LINE_STRIDE);
    p->surf = R(PPU_RDMA_DST_SURF_STRIDE);
    return true;
}

static bool dma_fail(const rksim_fault *f, rksim_core_result *r)
{
    return rksim_result_dma_fault(r, f->what, f->iova, f->len);
}

static float window(const pool *p, const uint8_t *surf, uint32_t lane, uint32_t oy, uint32_t ox)
{
    const int64_t y0 = (int64_t)oy * p->sy - p->pt, x0 = (int64_t)ox * p->sx - p->pl;
    float acc = p->method == NPK_RK_POOL_AVG ? 0.0f : NAN;
    for (int64_t y = y0; y < y0 + p->k_h; y++)
        for (int64_t x = x0; x < x0 + p->k_w; x++) {
            if (y < 0 || x < 0 || y >= p->in_h || x >= p->in_w)
                continue; /* padding: 0 in the sum, never the max or min */
            uint16_t h;
            memcpy(&h, surf + (((uint64_t)y * p->in_w + (uint64_t)x) * 8 + lane) * 2, 2);
            float v = npk_f16_to_f32(h);
            if (p->method == NPK_RK_POOL_AVG)
                acc += v;
            else if (isnan(acc) || (p->method == NPK_RK_POOL_MAX ? v > acc : v < acc))
                acc = v;
        }
    return p->method == NPK_RK_POOL_AVG ? acc * p->recip_w * p->recip_h : acc;
}

static void pool_op(rksim *s, unsigned core, uint32_t blocks, bool first_in_job,
                    rksim_core_result *r)
{
    (void)blocks, (void)first_in_job; /* the row's set; no hazard row keys on the job's order */
    const rksim_regfile *rf = &s->core[core].regs;
    pool p;
    if (!decode(rf, &p, r))
        return;
    const uint64_t surfaces = ((uint64_t)p.c + 7) / 8;
    const uint64_t in_surf = (uint64_t)p.in_h * p.in_w * 16;
    rksim_fault f = {0};
    const uint8_t *in = rksim_dma(&s->mem, p.in, surfaces * in_surf, false, "pool input read", &f);
    if (!in) {
        dma_fail(&f, r);
        return;
    }
    const uint64_t out_len = (surfaces - 1) * p.surf + (uint64_t)(p.out_h - 1) * p.line +
                             (uint64_t)p.out_w * 16;
    uint8_t *out = rksim_dma(&s->mem, p.out, out_len, true, "pool output write", &f);
    if (!out) {
        dma_fail(&f, r);
        return;
    }
    for (uint32_t ch = 0; ch < p.c; ch++) {
        const uint8_t *surf = in + (ch / 8) * in_surf;
        for (uint32_t oy = 0; oy < p.out_h; oy++)
            for (uint32_t ox = 0; ox < p.out_w; ox++) {
                uint16_t h = npk_f32_to_f16(window(&p, surf, ch % 8, oy, ox));
                memcpy(out + (ch / 8) * p.surf + oy * p.line + ((uint64_t)ox * 8 + ch % 8) * 2, &h,
                       2);
            }
    }
    r->model_us += npk_rk_time_sdp_us(s->soc, (double)(surfaces * in_surf), (double)out_len);
    s->core[core].job_out_prec = NPK_PREC_FP16;
}

/* The pooling's simulator row (ops.h). */
const rksim_op_row rksim_op_pool = {pool_op};
