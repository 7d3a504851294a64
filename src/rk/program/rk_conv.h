/* SPDX-License-Identifier: MIT */
/* Convolution tasks: one CNA -> CORE -> DPU task with the 0x50xx input feed (op-enable 0x1D,
 * docs/facts-engines.md "The convolution path") computing a direct or depthwise convolution of
 * one input cube, with the DPU's BS stage adding a per-channel bias and clamping, and its
 * output converter rounding to fp16 (int8: writing the int32 accumulator, no clamp: the host
 * requantises and clamps). Every conv task adds a bias (zeros when the layer has none):
 * the BS stage adding from memory (the spec's conv output stage 0x20150, which "HANGS the
 * matmul") is what tells a conv from a matmul. Layouts: rk/hw/rk_conv_hw.h. Padding: PAD_LEFT/PAD_TOP in
 * the registers, the right and bottom pads implied by the output size (each at most the
 * field's 15); the border reads the fill value 0. */
#ifndef NPUKIT_RK_CONV_H
#define NPUKIT_RK_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"
#include "rk/hw/rk_conv_hw.h"

#ifdef __cplusplus
extern "C" {
#endif


typedef struct npk_rk_conv {
    const npk_rk_soc *soc; /* the CBUF's row (NULL: the default) */
    npk_rk_prec prec;      /* the input's: a row of npk_rk_conv_prec_of (fp16, int8) */
    bool depthwise;        /* one kernel per channel: Cout = C */
    uint32_t in_h, in_w, in_c;
    uint32_t out_h, out_w, out_c;
    uint32_t k_h, k_w;
    uint32_t stride_y, stride_x;
    uint32_t pad_top, pad_left; /* bottom/right follow from the output size */
    npk_rk_clamp clamp;
    float relux; /* the RELUX bound */
    uint32_t data_bank, weight_bank; /* CBUF split; both 0: npk_rk_conv_banks' choice */
    uint32_t in, weights, bias, out; /* IOVAs, 16-byte aligned; bias fp32 (int8: int32) [Cout] */
    bool unchecked; /* emit even when a limit is broken */
} npk_rk_conv;

/* The implied right / bottom pads of a task (negative: input never read). */
int64_t npk_rk_conv_pad_right(const npk_rk_conv *t);
int64_t npk_rk_conv_pad_bottom(const npk_rk_conv *t);
/* Fill data_bank / weight_bank when both 0: the input's banks, every other bank to the
 * weights. */
void npk_rk_conv_banks(npk_rk_conv *t);
/* The most CBUF banks a task's input may take (one stays with the weights). */
uint32_t npk_rk_conv_max_data_banks(const npk_rk_soc *soc);

/* Every limit of the task, with a message naming the value and the limit. */
npk_status npk_rk_conv_check(const npk_rk_conv *t);
/* The body: the conv driver row's `body` entries in its order (synth_conv.c). */
npk_status npk_rk_synth_conv(const npk_rk_conv *t, npk_rk_entry *body);

#ifdef __cplusplus
}
#endif
#endif
