/* SPDX-License-Identifier: MIT */
/* Tiling a convolution pass (rk_plan_conv.h). The limits come from the conv task's own check
 * (the register fields) and the SoC row's CBUF: a tile's input window must fit the data banks
 * a task may take (all but one, which stays with the weights), so the planner shrinks, in
 * order, the input-channel slice (dense) or channel tile (depthwise), then the output columns,
 * then picks the tallest row band that fits. */
#include <stdlib.h>

#include "npukit/rk_regs.h"
#include "rk/hw/rk_conv_hw.h"
#include "rk/plan/rk_plan_conv.h"
#include "rk/program/rk_conv.h"

static uint64_t field_max(npk_rk_field_id f) { return npk_rk_field_get(f, UINT32_MAX); }
static uint32_t up(uint32_t v, uint32_t to) { return (v + to - 1) / to * to; }
static uint32_t min32(uint64_t a, uint64_t b) { return (uint32_t)(a < b ? a : b); }

/* Input rows / columns a band of n outputs reads (padding included). */
static uint64_t span(uint32_t n, uint32_t stride, uint32_t k)
{
    return (uint64_t)(n - 1) * stride + k;
}

/* Whether an input window of ci channels, rows x cols fits one task. */
static bool fits(const npk_rk_soc *soc, const npk_rk_conv_geom *g, uint32_t ci, uint64_t rows,
                 uint64_t cols)
{
    if (rows > field_max(NPK_RKF(CNA_DATA_SIZE0, DATAIN_HEIGHT)) ||
        cols > field_max(NPK_RKF(CNA_DATA_SIZE0, DATAIN_WIDTH)))
        return false;
    if (npk_rk_conv_kernel_bytes(g->prec, ci, g->k_h, g->k_w) >
        field_max(NPK_RKF(CNA_WEIGHT_SIZE1, WEIGHT_BYTES_PER_KERNEL)))
        return false;
    if (npk_rk_conv_row_entries(soc, g->prec, ci, (uint32_t)cols) >
        field_max(NPK_RKF(CNA_CBUF_CON1, DATA_ENTRIES)))
        return false;
    return npk_rk_conv_data_banks(soc, g->prec, ci, (uint32_t)rows, (uint32_t)cols) <=
           npk_rk_conv_max_data_banks(soc);
}

/* The real part [a, b) of a window [start, end) over an axis of n, and its padding split between
 * the register (at most reg_max) and the host. */
static void window(int64_t start, int64_t end, uint32_t n, uint32_t reg_max, uint32_t *first,
                   uint32_t *len, uint32_t *reg_before, uint32_t *host_before, uint32_t *host_after)
{
    int64_t a = start < 0 ? 0 : start > n ? n : start;
    int64_t b = end < 0 ? 0 : end > n ? n : end;
    if (b < a)
        b = a;
    uint32_t before = (uint32_t)(a - start), after = (uint32_t)(end - b);
    *first = (uint32_t)a;
    *len = (uint32_t)(b - a);
    *reg_before = before < reg_max ? before : reg_max;
    *host_before = before - *reg_before;
    *host_after = after > reg_max ? after - reg_max : 0;
    if (*len + *host_before + *host_after == 0) { /* a task reads at least one row */
        if (*reg_before) {
            (*reg_before)--;
            (*host_before)++;
        } else {
            (*host_after)++;
        }
    }
}

npk_status npk_rk_plan_conv(const npk_rk_soc *soc, const npk_rk_conv_geom *g, npk_rk_conv_plan *out)
{
    *out = (npk_rk_conv_plan){0};
    const uint32_t atom = npk_rk_conv_c2(g->prec);
    /* 1. the channel slice: dense slices stay whole weight atoms (32), depthwise tiles whole
     * feature atoms */
    uint32_t ci = g->c, floor_c = g->depthwise ? atom : NPK_RK_CONV_WATOM;
    while (!fits(soc, g, ci, g->k_h, span(g->out_w, g->stride_w, g->k_w)) && ci > floor_c)
        ci = up((ci + 1) / 2, floor_c);
    /* 2. the output columns */
    uint32_t ow = min32(g->out_w, field_max(NPK_RKF(CNA_DATA_SIZE2, DATAOUT_WIDTH)));
    while (!fits(soc, g, ci, g->k_h, span(ow, g->stride_w, g->k_w)) && ow > 1)
        ow = (ow + 1) / 2;
    if (!fits(soc, g, ci, g->k_h, span(ow, g->stride_w, g->k_w)))
        return npk_fail(NPK_ELIMIT,
                        "conv plan: one output column of a %ux%u kernel over %u channels does "
                        "not fit a task's %u CBUF data banks",
                        g->k_h, g->k_w, ci, npk_rk_conv_max_data_banks(soc));
    /* 3. the tallest row band that fits */
    uint32_t oh = min32(g->out_h, field_max(NPK_RKF(DPU_DATA_CUBE_HEIGHT, HEIGHT)) + 1);
    oh = min32(oh, field_max(NPK_RKF(CNA_DATA_SIZE3, DATAOUT_ATOMICS)) / ow);
    while (oh > 1 && !fits(soc, g, ci, span(oh, g->stride_h, g->k_h), span(ow, g->stride_w, g->k_w)))
        oh = oh > 64 ? oh - oh / 8 : oh - 1;
    /* 4. output channels within the DPU's field (depthwise: the channel tile) */
    uint32_t co = g->depthwise ? ci
                               : min32(g->out_c, field_max(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL)) + 1);
    if (!g->depthwise && co < g->out_c)
        co = co / npk_rk_conv_kgroup(g->prec) * npk_rk_conv_kgroup(g->prec);

    const uint32_t slices = g->depthwise ? 1 : (g->c + ci - 1) / ci;
    const uint64_t n = (uint64_t)((g->out_c + co - 1) / co) * (g->depthwise ? 1 : slices) *
                       ((g->out_h + oh - 1) / oh) * ((g->out_w + ow - 1) / ow);
    npk_rk_conv_tile *t = calloc(n, sizeof *t);
    if (!t)
        return npk_fail(NPK_ENOMEM, "conv plan: no memory for %llu tiles", (unsigned long long)n);
    const uint32_t pad_max = (uint32_t)field_max(NPK_RKF(CNA_PAD_CON0, PAD_LEFT));
    size_t k = 0;
    for (uint32_t c0 = 0; c0 < g->out_c; c0 += co)
        for (uint32_t s = 0; s < (g->depthwise ? 1u : slices); s++)
            for (uint32_t y0 = 0; y0 < g->out_h; y0 += oh)
                for (uint32_t x0 = 0; x0 < g->out_w; x0 += ow) {
                    npk_rk_conv_tile *ti = &t[k++];
                    ti->oy0 = y0;
                    ti->oh = min32(oh, g->out_h - y0);
                    ti->ox0 = x0;
                    ti->ow = min32(ow, g->out_w - x0);
                    ti->co0 = c0;
                    ti->co = min32(co, g->out_c - c0);
                    ti->ci0 = g->depthwise ? c0 : s * ci;
                    ti->ci = g->depthwise ? ti->co : min32(ci, g->c - s * ci);
                    ti->slice = s;
                    int64_t ys = (int64_t)y0 * g->stride_h - g->pad_top;
                    int64_t xs = (int64_t)x0 * g->stride_w - g->pad_left;
                    window(ys, ys + (int64_t)span(ti->oh, g->stride_h, g->k_h), g->h, pad_max,
                           &ti->iy0, &ti->ih, &ti->pad_top, &ti->host_top, &ti->host_bottom);
                    window(xs, xs + (int64_t)span(ti->ow, g->stride_w, g->k_w), g->w, pad_max,
                           &ti->ix0, &ti->iw, &ti->pad_left, &ti->host_left, &ti->host_right);
                }
    out->tiles = t;
    out->count = k;
    out->slices = slices;
    return NPK_OK;
}

void npk_rk_conv_plan_free(npk_rk_conv_plan *p)
{
    free(p->tiles);
    *p = (npk_rk_conv_plan){0};
}
