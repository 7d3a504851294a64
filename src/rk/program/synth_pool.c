/* SPDX-License-Identifier: MIT */
/* Pooling task synthesis and limits: the PDP registers of the spec's maxpool capture (0x6004
 * mode 0xE, in/out H-1 W-1, C-1, the kernel/stride word, 0x6070 the input IOVA, 0x60DC = 3)
 * plus the mode, reciprocal and padding registers and the 0x8001 output stage
 * (docs/facts-engines.md). Limits are the fields' widths, read from the register table. */
#include "rk/program/rk_op_synth.h"
#include "rk/program/rk_pool.h"
#include "npukit/rk_regs.h"

#define PUT(reg, field, v) NPK_RKPUT(reg, field, v)



/* OPERATION_MODE_CFG.FLYING_MODE 1: the input comes from memory, not from the SDP (NVDLA's
 * OFF_FLYING). */
#define POOL_OFF_FLYING 1u

static uint64_t fmax_of(npk_rk_field_id f) { return npk_rk_field_get(f, UINT32_MAX); }

#define BAD(cond, ...)                                                                            \
    do {                                                                                          \
        if (cond)                                                                                 \
            return npk_fail(NPK_EINVAL, __VA_ARGS__);                                             \
    } while (0)
#define LIMIT(cond, ...)                                                                          \
    do {                                                                                          \
        if (cond)                                                                                 \
            return npk_fail(NPK_ELIMIT, __VA_ARGS__);                                             \
    } while (0)

npk_status npk_rk_pool_check(const npk_rk_pool *t)
{
    BAD((unsigned)t->method >= NPK_RK_POOL_METHOD_COUNT, "pool: method %d is not avg, max or min",
        (int)t->method);
    BAD(!t->in_h || !t->in_w || !t->c || !t->out_h || !t->out_w,
        "pool: a zero dimension (in %ux%ux%u, out %ux%u)", t->c, t->in_h, t->in_w, t->out_h,
        t->out_w);
    BAD(!t->k_h || !t->k_w, "pool: kernel %ux%u: both must be at least 1", t->k_h, t->k_w);
    BAD(!t->stride_x || !t->stride_y, "pool: stride %ux%u: both must be at least 1", t->stride_y,
        t->stride_x);
    const uint64_t dim = fmax_of(NPK_RKF(PPU_DATA_CUBE_IN_HEIGHT, CUBE_IN_HEIGHT)) + 1;
    LIMIT(t->in_h > dim || t->in_w > dim || t->c > dim || t->out_h > dim || t->out_w > dim,
          "pool: a dimension past %llu (in %ux%ux%u, out %ux%u; the PDP cube fields)",
          (unsigned long long)dim, t->c, t->in_h, t->in_w, t->out_h, t->out_w);
    const uint64_t kmax = fmax_of(NPK_RKF(PPU_POOLING_KERNEL_CFG, KERNEL_WIDTH)) + 1;
    LIMIT(t->k_h > kmax || t->k_w > kmax,
          "pool: kernel %ux%u exceeds %llu (PPU_POOLING_KERNEL_CFG)", t->k_h, t->k_w,
          (unsigned long long)kmax);
    const uint64_t smax = fmax_of(NPK_RKF(PPU_POOLING_KERNEL_CFG, KERNEL_STRIDE_WIDTH)) + 1;
    LIMIT(t->stride_y > smax || t->stride_x > smax,
          "pool: stride %ux%u exceeds %llu (PPU_POOLING_KERNEL_CFG)", t->stride_y, t->stride_x,
          (unsigned long long)smax);
    const uint64_t pmax = fmax_of(NPK_RKF(PPU_POOLING_PADDING_CFG, PAD_LEFT));
    LIMIT(t->pad_top > pmax || t->pad_left > pmax || t->pad_bottom > pmax || t->pad_right > pmax,
          "pool: padding %u/%u/%u/%u (top/left/bottom/right) exceeds %llu "
          "(PPU_POOLING_PADDING_CFG)",
          t->pad_top, t->pad_left, t->pad_bottom, t->pad_right, (unsigned long long)pmax);
    BAD(t->pad_top >= t->k_h || t->pad_bottom >= t->k_h || t->pad_left >= t->k_w ||
            t->pad_right >= t->k_w,
        "pool: padding %u/%u/%u/%u reaches a whole kernel %ux%u: a window of padding only",
        t->pad_top, t->pad_left, t->pad_bottom, t->pad_right, t->k_h, t->k_w);
    const uint64_t hp = (uint64_t)t->in_h + t->pad_top + t->pad_bottom;
    const uint64_t wp = (uint64_t)t->in_w + t->pad_left + t->pad_right;
    BAD(t->k_h > hp || t->k_w > wp, "pool: kernel %ux%u is larger than the padded input %llux%llu",
        t->k_h, t->k_w, (unsigned long long)hp, (unsigned long long)wp);
    BAD(t->out_h != (hp - t->k_h) / t->stride_y + 1 || t->out_w != (wp - t->k_w) / t->stride_x + 1,
        "pool: output %ux%u, but the padded input %llux%llu gives %llux%llu at kernel %ux%u "
        "stride %ux%u",
        t->out_h, t->out_w, (unsigned long long)hp, (unsigned long long)wp,
        (unsigned long long)((hp - t->k_h) / t->stride_y + 1),
        (unsigned long long)((wp - t->k_w) / t->stride_x + 1), t->k_h, t->k_w, t->stride_y,
        t->stride_x);
    BAD((t->in | t->out) % 16, "pool: an IOVA is not 16-byte aligned (in 0x%x out 0x%x)", t->in,
        t->out);
    return NPK_OK;
}

/* The pooling body: the PDP block of the spec's maxpool capture (18 registers there; the mode,
 * reciprocals and padding added) and its 0x8001 output stage (docs/facts-engines.md). */
static const npk_rk_reg_id pool_order[] = {
    NPK_REG_PPU_S_POINTER,
    NPK_REG_PPU_RDMA_S_POINTER,
    NPK_REG_PPU_DATA_CUBE_IN_HEIGHT,
    NPK_REG_PPU_DATA_CUBE_IN_WIDTH,
    NPK_REG_PPU_DATA_CUBE_IN_CHANNEL,
    NPK_REG_PPU_DATA_CUBE_OUT_HEIGHT,
    NPK_REG_PPU_DATA_CUBE_OUT_WIDTH,
    NPK_REG_PPU_DATA_CUBE_OUT_CHANNEL,
    NPK_REG_PPU_OPERATION_MODE_CFG,
    NPK_REG_PPU_POOLING_KERNEL_CFG,
    NPK_REG_PPU_RECIP_KERNEL_WIDTH,
    NPK_REG_PPU_RECIP_KERNEL_HEIGHT,
    NPK_REG_PPU_POOLING_PADDING_CFG,
    NPK_REG_PPU_SRC_BASE_ADDR,
    NPK_REG_PPU_DATA_FORMAT,
    NPK_REG_PPU_60DC,
    NPK_REG_PPU_RDMA_CUBE_HEIGHT,
    NPK_REG_PPU_RDMA_CUBE_WIDTH,
    NPK_REG_PPU_RDMA_CUBE_CHANNEL,
    NPK_REG_PPU_RDMA_DST_BASE_ADDR,
    NPK_REG_PPU_RDMA_DST_LINE_STRIDE,
    NPK_REG_PPU_RDMA_DST_SURF_STRIDE,
    NPK_REG_PPU_RDMA_DATA_FORMAT,
};
#define POOL_BODY (sizeof pool_order / sizeof pool_order[0])

npk_status npk_rk_synth_pool(const npk_rk_pool *t, npk_rk_entry *body)
{
    if (!t->unchecked) {
        npk_status s = npk_rk_pool_check(t);
        if (s)
            return s;
    }
    uint32_t v[NPK_REG_COUNT] = {0};
    v[NPK_REG_PPU_S_POINTER] = NPK_RK_POOL_POINTER_MODE;
    v[NPK_REG_PPU_RDMA_S_POINTER] = NPK_RK_POOL_POINTER_MODE;
    v[NPK_REG_PPU_DATA_CUBE_IN_HEIGHT] = PUT(PPU_DATA_CUBE_IN_HEIGHT, CUBE_IN_HEIGHT, t->in_h - 1);
    v[NPK_REG_PPU_DATA_CUBE_IN_WIDTH] = PUT(PPU_DATA_CUBE_IN_WIDTH, CUBE_IN_WIDTH, t->in_w - 1);
    v[NPK_REG_PPU_DATA_CUBE_IN_CHANNEL] = PUT(PPU_DATA_CUBE_IN_CHANNEL, CUBE_IN_CHANNEL, t->c - 1);
    v[NPK_REG_PPU_DATA_CUBE_OUT_HEIGHT] =
        PUT(PPU_DATA_CUBE_OUT_HEIGHT, CUBE_OUT_HEIGHT, t->out_h - 1);
    v[NPK_REG_PPU_DATA_CUBE_OUT_WIDTH] = PUT(PPU_DATA_CUBE_OUT_WIDTH, CUBE_OUT_WIDTH, t->out_w - 1);
    v[NPK_REG_PPU_DATA_CUBE_OUT_CHANNEL] =
        PUT(PPU_DATA_CUBE_OUT_CHANNEL, CUBE_OUT_CHANNEL, t->c - 1);
    v[NPK_REG_PPU_OPERATION_MODE_CFG] = PUT(PPU_OPERATION_MODE_CFG, FLYING_MODE, POOL_OFF_FLYING) |
                                        PUT(PPU_OPERATION_MODE_CFG, POOLING_METHOD, t->method);
    v[NPK_REG_PPU_POOLING_KERNEL_CFG] =
        PUT(PPU_POOLING_KERNEL_CFG, KERNEL_STRIDE_HEIGHT, t->stride_y - 1) |
        PUT(PPU_POOLING_KERNEL_CFG, KERNEL_STRIDE_WIDTH, t->stride_x - 1) |
        PUT(PPU_POOLING_KERNEL_CFG, KERNEL_HEIGHT, t->k_h - 1) |
        PUT(PPU_POOLING_KERNEL_CFG, KERNEL_WIDTH, t->k_w - 1);
    if (t->method == NPK_RK_POOL_AVG) {
        v[NPK_REG_PPU_RECIP_KERNEL_WIDTH] = npk_rk_pool_recip(t->k_w);
        v[NPK_REG_PPU_RECIP_KERNEL_HEIGHT] = npk_rk_pool_recip(t->k_h);
    }
    v[NPK_REG_PPU_POOLING_PADDING_CFG] = PUT(PPU_POOLING_PADDING_CFG, PAD_BOTTOM, t->pad_bottom) |
                                         PUT(PPU_POOLING_PADDING_CFG, PAD_RIGHT, t->pad_right) |
                                         PUT(PPU_POOLING_PADDING_CFG, PAD_TOP, t->pad_top) |
                                         PUT(PPU_POOLING_PADDING_CFG, PAD_LEFT, t->pad_left);
    v[NPK_REG_PPU_SRC_BASE_ADDR] = t->in;
    v[NPK_REG_PPU_DATA_FORMAT] = PUT(PPU_DATA_FORMAT, PROC_PRECISION, NPK_PREC_FP16);
    v[NPK_REG_PPU_60DC] = PUT(PPU_60DC, BURST_LEN, NPK_RK_POOL_BURST_LEN);
    v[NPK_REG_PPU_RDMA_CUBE_HEIGHT] = PUT(PPU_RDMA_CUBE_HEIGHT, CUBE_HEIGHT, t->out_h - 1);
    v[NPK_REG_PPU_RDMA_CUBE_WIDTH] = PUT(PPU_RDMA_CUBE_WIDTH, CUBE_WIDTH, t->out_w - 1);
    v[NPK_REG_PPU_RDMA_CUBE_CHANNEL] = PUT(PPU_RDMA_CUBE_CHANNEL, CUBE_CHANNEL, t->c - 1);
    v[NPK_REG_PPU_RDMA_DST_BASE_ADDR] = t->out;
    v[NPK_REG_PPU_RDMA_DST_LINE_STRIDE] = t->out_w * 16u;
    v[NPK_REG_PPU_RDMA_DST_SURF_STRIDE] = t->out_w * t->out_h * 16u;
    v[NPK_REG_PPU_RDMA_DATA_FORMAT] = PUT(PPU_RDMA_DATA_FORMAT, IN_PRECISION, NPK_PREC_FP16);
    for (unsigned i = 0; i < POOL_BODY; i++)
        body[i] = npk_rk_entry_reg_write(pool_order[i], v[pool_order[i]]);
    return NPK_OK;
}

/* The pooling's driver row (rk_op_synth.h); its task's arguments are an npk_rk_pool. */
static npk_status pool_check(const void *args) { return npk_rk_pool_check(args); }

static npk_status pool_synth(const void *args, npk_rk_entry *body)
{
    return npk_rk_synth_pool(args, body);
}

/* The PDP writes fp16, the only precision it is built for. */
static npk_rk_prec pool_out(const void *args)
{
    (void)args;
    return NPK_PREC_FP16;
}

static void pool_sample(void *args, uint32_t in, uint32_t in2, uint32_t out)
{
    (void)in2;
    *(npk_rk_pool *)args = (npk_rk_pool){
        .method = NPK_RK_POOL_MAX, .in_h = 4, .in_w = 4, .c = 8, .out_h = 2, .out_w = 2,
        .k_h = 2, .k_w = 2, .stride_y = 2, .stride_x = 2, .in = in, .out = out};
}

const npk_rk_op_synth npk_rk_op_synth_pool = {
    .order = pool_order,
    .body = POOL_BODY,
    .args_size = sizeof(npk_rk_pool),
    .check = pool_check,
    .synth = pool_synth,
    .out_prec = pool_out,
    .sample = pool_sample,
};
