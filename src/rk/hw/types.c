/* SPDX-License-Identifier: MIT */
/* The precision rows: every per-dtype fact of the RK NPU in one place. Sources: spec "The
 * precision enum", "The M-tiling scheduler", "Small-K validity of the 0x1040 schedule",
 * "0x107c"; facts B.5, C.0, C.1, C.3, D.1, E.1, G, I.1. */
#include <stddef.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_types.h"

#define NPK_PREC_COUNT 8

static const npk_rk_prec_row rows[NPK_PREC_COUNT] = {
    [NPK_PREC_FP16] = {.name = "fp16",
                       .bits = 16,
                       .input = true,
                       .is_float = true,
                       .enc = NPK_ENC_IEEE,
                       .layout_in = true,
                       .layout_out = true,
                       .cbuf_bytes = 2,
                       .line_unit = 8,
                       .n_tile = 16,
                       .fit_ref_k = 256,
                       .tile_elems = 32768,
                       .bank_elems = 16384,
                       .acc_bits = 32,
                       .acc = NPK_PREC_FP32,
                       .host_acc = NPK_PREC_FP32,
                       .mode = NPK_MODE_LINE,
                       .macs_per_cycle = 512,
                       /* facts C.3: "fp16 sched=1 gives wrong rows when M>8 at Kp>=2048" */
                       .sched1 = {.small_k = 64,
                                  .k_min = 96,
                                  .k_lo = 128,
                                  .k_hi = 1024,
                                  .wrong_k = 2048,
                                  .wrong_m = 8,
                                  .row_group = 1,
                                  .envelope_k = 128,
                                  .envelope_m = 256}},
    [NPK_PREC_INT8] =
        {.name = "int8",
         .bits = 8,
         .input = true,
         .layout_in = true,
         .layout_out = true,
         .cbuf_bytes = 1,
         .line_unit = 16,
         .n_tile = 32,
         .fit_ref_k = 512,
         .tile_elems = 65536,
         .bank_elems = 32768,
         .op_min = -128,
         .op_max = 127,
         .acc_bits = 32,
         .acc = NPK_PREC_INT32,
         .host_acc = NPK_PREC_INT32,
         .mode = NPK_MODE_LINE,
         .top_pad = true,
         .macs_per_cycle = 1024,
         /* the ceilings are measured at K = 512..4096 only (weights stay
          * CBUF-resident); below 512 the fit takes fractional bank steps */
         .sched1 = {.small_k = 128, .k_min = 256, .k_lo = 512, .k_hi = 4096, .row_group = 64}},
    /* int4: two per byte; its int16 accumulator (facts E.1, I.1) is widened on the host */
    [NPK_PREC_INT4] = {.name = "int4",
                       .bits = 4,
                       .input = true,
                       .layout_in = true,
                       .cbuf_bytes = 1,
                       .line_unit = 16,
                       .n_tile = 64,
                       .fit_ref_k = 512,
                       .tile_elems = 65536,
                       .bank_elems = 16384,
                       .op_min = -8,
                       .op_max = 7,
                       .acc_bits = 16,
                       .acc = NPK_PREC_INT16,
                       .host_acc = NPK_PREC_INT32,
                       .mode = NPK_MODE_CUBE,
                       .vendor_multitask = true,
                       .macs_per_cycle = 1024},
    [NPK_PREC_INT16] = {.name = "int16", .bits = 16, .layout_in = true, .layout_out = true},
    [NPK_PREC_BF16] =
        {.name = "bf16", .bits = 16, .is_float = true, .enc = NPK_ENC_BFLOAT, .layout_in = true},
    [NPK_PREC_INT32] = {.name = "int32", .bits = 32, .layout_out = true},
    [NPK_PREC_FP32] =
        {.name = "fp32", .bits = 32, .is_float = true, .enc = NPK_ENC_IEEE, .layout_out = true},
    [NPK_PREC_TF32] = {.name = "tf32", .bits = 32, .is_float = true, .enc = NPK_ENC_IEEE},
};

const npk_rk_prec_row *npk_rk_prec_row_of(npk_rk_prec p)
{
    return (unsigned)p < NPK_PREC_COUNT ? &rows[p] : NULL;
}

const npk_rk_prec_row *npk_rk_input_row(npk_rk_prec p)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    return r && r->input ? r : NULL;
}

const char *npk_rk_prec_name(npk_rk_prec p)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    return r ? r->name : NULL;
}

bool npk_rk_prec_parse(const char *name, npk_rk_prec *out)
{
    for (unsigned i = 0; i < NPK_PREC_COUNT; i++)
        if (name && !strcmp(name, rows[i].name)) {
            *out = (npk_rk_prec)i;
            return true;
        }
    return false;
}

unsigned npk_rk_prec_bits(npk_rk_prec p)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    return r ? r->bits : 0;
}

double npk_rk_prec_load(npk_rk_prec p, const void *base, size_t i)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    if (!r)
        return 0;
    const uint8_t *b = base;
    uint64_t bit = (uint64_t)i * r->bits, u = 0;
    if (r->bits < 8) {
        u = (b[bit / 8] >> (bit % 8)) & ((1u << r->bits) - 1);
    } else {
        for (unsigned k = r->bits / 8; k-- > 0;) /* little-endian */
            u = u << 8 | b[bit / 8 + k];
    }
    switch (r->enc) {
    case NPK_ENC_IEEE:
        if (r->bits == 16)
            return npk_f16_to_f32((uint16_t)u);
        float f;
        uint32_t w = (uint32_t)u;
        memcpy(&f, &w, sizeof f);
        return f;
    case NPK_ENC_BFLOAT: return npk_bf16_to_f32((uint16_t)u);
    case NPK_ENC_TWOS: break;
    }
    uint64_t sign = 1ull << (r->bits - 1);
    return (double)(int64_t)((u ^ sign) - sign);
}

void npk_rk_prec_store(npk_rk_prec p, void *base, size_t i, double v)
{
    const npk_rk_prec_row *r = npk_rk_prec_row_of(p);
    if (!r)
        return;
    uint8_t *b = base;
    uint64_t bit = (uint64_t)i * r->bits, u;
    if (r->enc == NPK_ENC_IEEE && r->bits == 16) {
        u = npk_f32_to_f16((float)v);
    } else if (r->enc == NPK_ENC_IEEE) {
        float f = (float)v;
        uint32_t w;
        memcpy(&w, &f, sizeof w);
        u = w;
    } else if (r->enc == NPK_ENC_BFLOAT) {
        u = npk_f32_to_bf16((float)v);
    } else {
        u = (uint64_t)(int64_t)v; /* wraps to the width below */
    }
    if (r->bits < 8) {
        uint8_t mask = (uint8_t)(((1u << r->bits) - 1) << (bit % 8));
        b[bit / 8] = (uint8_t)((b[bit / 8] & ~mask) | ((u << (bit % 8)) & mask));
        return;
    }
    for (unsigned k = 0; k < r->bits / 8; k++)
        b[bit / 8 + k] = (uint8_t)(u >> (8 * k));
}
