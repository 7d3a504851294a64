/* SPDX-License-Identifier: MIT */
/* Convolution tasks: one CNA -> CORE -> DPU task with the 0x50xx input feed (op-enable 0x1D,
 * docs/facts-engines.md "The convolution path") computing a direct or depthwise convolution of
 * one input cube, with the DPU's BS stage adding a per-channel bias and clamping, and its
 * output converter rounding to fp16.
 *
 * The layouts (all 16-byte atoms of C2 = 8 fp16 channels):
 *   feature  [ceil(C/8)][H][W][8]        at `in`, channels past C zero
 *   weights  direct:    [ceil(Cout/16)][ceil(C/32)][KH][KW][16][32]
 *            depthwise: [ceil(C/32)][KH][KW][32]                      at `weights`
 *   bias     fp32 [Cout], contiguous                                    at `bias`
 *   output   [ceil(Cout/8)][OH][OW][8]   at `out`
 * Padding: PAD_LEFT/PAD_TOP in the registers, the right and bottom pads implied by the output
 * size (each at most the field's 15); the border reads the fill value 0. */
#ifndef NPUKIT_RK_CONV_H
#define NPUKIT_RK_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npukit/rk_regcmd.h"
#include "npukit/rk_types.h"
#include "npukit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Body entries of a conv task program (the trailer is separate, npk_rk_trailer). */
#define NPK_RK_CONV_BODY 86
/* CNA|CORE|DPU|DPU_RDMA: the conv's blocks (spec "Conv path"). */
#define NPK_RK_ENABLE_CONV 0x1Du
/* The 0x50xx block's S_POINTER in the spec's conv capture ("0x5004=0xe (mode)"). */
#define NPK_RK_CONV_FEED_MODE 0xEu

/* CBUF geometry (Mesa CBUF_*, NVDLA convolution buffer): 12 banks of 256 entries of 128 B. */
#define NPK_RK_CBUF_BANKS 12u
#define NPK_RK_CBUF_BANK_BYTES 32768u
#define NPK_RK_CBUF_ENTRY_BYTES 128u
/* The feature atom (bytes), the fp16 kernel group and the weight atom's input channels. */
#define NPK_RK_ATOM_BYTES 16u
#define NPK_RK_CONV_KGROUP 16u
#define NPK_RK_CONV_WATOM 32u

/* What the BS stage does after the bias. */
typedef enum npk_rk_clamp {
    NPK_RK_CLAMP_NONE = 0,
    NPK_RK_CLAMP_RELU = 1,  /* max(x, 0): BS_RELU */
    NPK_RK_CLAMP_RELUX = 2, /* min(max(x, 0), bound): BS_RELUX with BS_RELUX_CMP_VALUE */
    NPK_RK_CLAMP_COUNT
} npk_rk_clamp;

typedef struct npk_rk_conv {
    npk_rk_prec prec; /* NPK_PREC_FP16 */
    bool depthwise;   /* one kernel per channel: Cout = C */
    uint32_t in_h, in_w, in_c;
    uint32_t out_h, out_w, out_c;
    uint32_t k_h, k_w;
    uint32_t stride_y, stride_x;
    uint32_t pad_top, pad_left; /* bottom/right follow from the output size */
    bool has_bias;
    npk_rk_clamp clamp;
    float relux; /* the RELUX bound */
    uint32_t data_bank, weight_bank; /* CBUF split; 0: npk_rk_conv_banks' choice */
    uint32_t in, weights, bias, out; /* IOVAs, 16-byte aligned */
    bool unchecked; /* emit even when a limit is broken */
} npk_rk_conv;

/* Rows and bytes of the layouts. */
uint32_t npk_rk_conv_c2(npk_rk_prec p);               /* channels per atom (fp16: 8) */
uint64_t npk_rk_conv_feature_bytes(npk_rk_prec p, uint32_t c, uint32_t h, uint32_t w);
uint64_t npk_rk_conv_weight_bytes(npk_rk_prec p, bool depthwise, uint32_t cout, uint32_t c,
                                  uint32_t kh, uint32_t kw);
/* CBUF entries of one input row (all channels), and the banks the whole input needs. */
uint32_t npk_rk_conv_row_entries(npk_rk_prec p, uint32_t c, uint32_t w);
uint32_t npk_rk_conv_data_banks(npk_rk_prec p, uint32_t c, uint32_t h, uint32_t w);
/* The implied right / bottom pads of a task (may be negative: input columns never read). */
int64_t npk_rk_conv_pad_right(const npk_rk_conv *t);
int64_t npk_rk_conv_pad_bottom(const npk_rk_conv *t);

/* Fill data_bank / weight_bank when 0: the input's banks, every other bank to the weights. */
void npk_rk_conv_banks(npk_rk_conv *t);

/* Every limit of the task, with a message naming the value and the limit. */
npk_status npk_rk_conv_check(const npk_rk_conv *t);
/* The body (CNA, CORE, DPU, then the 0x50xx feed). */
npk_status npk_rk_synth_conv(const npk_rk_conv *t, npk_rk_entry body[NPK_RK_CONV_BODY]);

/* ---- host-side layouts ---- */
/* NCHW fp16 (one image, `c` planes of h x w) -> feature atoms, with `pt`, `pl` zero rows and
 * columns before and `pb`, `pr` after (the padded cube is (h+pt+pb) x (w+pl+pr)). */
npk_status npk_rk_conv_pack_feature(const uint16_t *src, uint32_t c, uint32_t h, uint32_t w,
                                    uint32_t pt, uint32_t pl, uint32_t pb, uint32_t pr,
                                    void *dst, uint64_t dst_size);
/* Feature atoms -> NCHW fp16 planes [c][h][w] (dst_pitch_plane elements between planes). */
npk_status npk_rk_conv_unpack_feature(const void *src, uint64_t src_size, uint32_t c, uint32_t h,
                                      uint32_t w, uint16_t *dst);
/* Weights [cout][c][kh][kw] fp16 (depthwise: [c][1][kh][kw]) -> the task's layout. */
npk_status npk_rk_conv_pack_weights(bool depthwise, const uint16_t *src, uint32_t cout, uint32_t c,
                                    uint32_t kh, uint32_t kw, void *dst, uint64_t dst_size);

#ifdef __cplusplus
}
#endif
#endif
