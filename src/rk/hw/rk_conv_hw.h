/* SPDX-License-Identifier: MIT */
/* The convolution and pooling engines as data (docs/facts-engines.md): the op-enable values
 * and feed mode of their tasks, the layout atoms, the clamp and pooling-method enumerations,
 * the geometry both the synthesizer and the simulator compute, and the PDP's reciprocal
 * format. Geometry that depends on the CBUF takes the SoC row (NULL: the default row).
 *
 * The layouts (16-byte atoms of C2 channels: 8 fp16, 16 int8, 4 int32):
 *   feature  [ceil(C/C2)][H][W][C2]
 *   weights  direct:    [ceil(Cout/G)][ceil(C/32)][KH][KW][G][32], G the kernel group
 *            depthwise: [ceil(C/32)][KH][KW][32]
 *   bias     fp32 [Cout], contiguous */
#ifndef NPUKIT_RK_CONV_HW_H
#define NPUKIT_RK_CONV_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The 0x50xx block's S_POINTER in the spec's conv capture ("0x5004=0xe (mode)"). */
#define NPK_RK_CONV_FEED_MODE 0xEu
/* CONV_MODE of CNA_CONV_CON1 / DPU and feed FEATURE_MODE_CFG for depthwise (Mesa). */
#define NPK_RK_CONV_MODE_DEPTHWISE 3u
/* The PDP's S_POINTER and 0x60DC in the spec's maxpool capture. */
#define NPK_RK_POOL_POINTER_MODE 0xEu
#define NPK_RK_POOL_BURST_LEN 3u

/* The feature atom (bytes) and the weight atom's input channels. */
#define NPK_RK_ATOM_BYTES 16u
#define NPK_RK_CONV_WATOM 32u

/* What the BS stage does after the bias. */
typedef enum npk_rk_clamp {
    NPK_RK_CLAMP_NONE = 0,
    NPK_RK_CLAMP_RELU = 1,  /* max(x, 0): BS_RELU */
    NPK_RK_CLAMP_RELUX = 2, /* min(max(x, 0), bound): BS_RELUX with BS_RELUX_CMP_VALUE */
    NPK_RK_CLAMP_COUNT
} npk_rk_clamp;

/* POOLING_METHOD (NVDLA's enumeration). */
typedef enum npk_rk_pool_method {
    NPK_RK_POOL_AVG = 0,
    NPK_RK_POOL_MAX = 1,
    NPK_RK_POOL_MIN = 2,
    NPK_RK_POOL_METHOD_COUNT
} npk_rk_pool_method;

/* The precisions a conv task runs in, one row each: its input (feature and weights), what
 * the DPU writes, and the largest contraction (C x KH x KW per task) whose accumulator cannot
 * overflow. fp16 rounds to fp16 once; int8 completes only with the native int32 accumulator
 * (spec "int16/narrow-output MATMUL does NOT self-complete": the CNA -> DPU requantising
 * write-out never finishes), which the host requantises. */
typedef struct npk_rk_conv_prec {
    npk_rk_prec in, out;
    uint64_t k_max; /* 0: no bound (fp32 accumulation) */
    const char *why;
} npk_rk_conv_prec;

/* The row of an input precision, NULL when the conv task has none. */
const npk_rk_conv_prec *npk_rk_conv_prec_of(npk_rk_prec in);
/* Their input names for a message ("fp16 or int8"). */
const char *npk_rk_conv_prec_names(void);

/* BS_OW_CFG.SIZE_E_* of a conv task: fp16 1 for a direct conv, 3 for depthwise (Mesa); int8's
 * int32 output F - 1 = 7 (F = 2 x 32 / 8, the matmul's int32 write-out, spec 0x4050 = 0x7FC;
 * INF for a conv, depthwise too). */
uint32_t npk_rk_conv_size_e(npk_rk_prec in, bool depthwise);

/* The kernel group G of the dense weight layout: the matmul's N tile of the precision (fp16 16,
 * int8 32: facts D.1; Mesa's int8 conv packs 32 output channels per group). */
uint32_t npk_rk_conv_kgroup(npk_rk_prec p);

/* Channels per 16-byte atom (fp16: 8, int8: 16, int32: 4). */
uint32_t npk_rk_conv_c2(npk_rk_prec p);
/* Bytes of a feature cube, and of a conv's weights in their layout. */
uint64_t npk_rk_conv_feature_bytes(npk_rk_prec p, uint32_t c, uint32_t h, uint32_t w);
uint64_t npk_rk_conv_kernel_bytes(npk_rk_prec p, uint32_t c, uint32_t kh, uint32_t kw);
uint64_t npk_rk_conv_weight_bytes(npk_rk_prec p, bool depthwise, uint32_t cout, uint32_t c,
                                  uint32_t kh, uint32_t kw);
/* CBUF entries of one input row (all channels; CNA_CBUF_CON1.DATA_ENTRIES), and the banks
 * the whole input needs. */
uint32_t npk_rk_conv_row_entries(const npk_rk_soc *soc, npk_rk_prec p, uint32_t c, uint32_t w);
uint32_t npk_rk_conv_data_banks(const npk_rk_soc *soc, npk_rk_prec p, uint32_t c, uint32_t h,
                                uint32_t w);

/* The PDP's reciprocal of a kernel extent for fp16 (NVDLA's 17-bit float: 1 sign, 6 exponent
 * bits biased by 31, 10 mantissa bits), and the value such bits hold. */
uint32_t npk_rk_pool_recip(uint32_t k);
float npk_rk_pool_recip_value(uint32_t bits);

#ifdef __cplusplus
}
#endif
#endif
