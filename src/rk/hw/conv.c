/* SPDX-License-Identifier: MIT */
/* The convolution and pooling engines' geometry and formats (rk_conv_hw.h). */
#include <math.h>
#include <stddef.h>

#include "npukit/rk_outstage.h"
#include "rk/hw/rk_cbuf.h"
#include "rk/hw/rk_conv_hw.h"

static uint64_t up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

static uint32_t ebytes(npk_rk_prec p) { return npk_rk_prec_bits(p) / 8; }

/* The worst int8 product is (-128)(-128) = 2^14: 2^17 - 1 of them stay below 2^31. */
#define INT8_K_MAX ((1u << 17) - 1)

static const npk_rk_conv_prec precs[] = {
    {NPK_PREC_FP16, NPK_PREC_FP16, 0, "fp16 products accumulate in fp32, rounded once to fp16"},
    {NPK_PREC_INT8, NPK_PREC_INT32, INT8_K_MAX,
     "int8 products accumulate exactly in int32; int32 is the only output the CNA -> DPU path "
     "completes with for int8 (spec \"int16/narrow-output MATMUL does NOT self-complete\")"},
};

const npk_rk_conv_prec *npk_rk_conv_prec_of(npk_rk_prec in)
{
    for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++)
        if (precs[i].in == in)
            return &precs[i];
    return NULL;
}

const char *npk_rk_conv_prec_names(void) { return "fp16 or int8"; }

uint32_t npk_rk_conv_size_e(npk_rk_prec in, bool depthwise)
{
    const npk_rk_conv_prec *r = npk_rk_conv_prec_of(in);
    if (r && r->out == NPK_PREC_FP16)
        return depthwise ? 3u : 1u;
    return r ? npk_rk_out_factor(in, r->out) - 1 : 0;
}

uint32_t npk_rk_conv_kgroup(npk_rk_prec p) { return npk_rk_n_align(p); }

uint32_t npk_rk_conv_c2(npk_rk_prec p) { return NPK_RK_ATOM_BYTES / ebytes(p); }

uint64_t npk_rk_conv_feature_bytes(npk_rk_prec p, uint32_t c, uint32_t h, uint32_t w)
{
    const uint32_t c2 = npk_rk_conv_c2(p);
    return up(c, c2) / c2 * h * w * NPK_RK_ATOM_BYTES;
}

uint64_t npk_rk_conv_kernel_bytes(npk_rk_prec p, uint32_t c, uint32_t kh, uint32_t kw)
{
    return (uint64_t)kh * kw * up(c, NPK_RK_CONV_WATOM) * ebytes(p);
}

uint64_t npk_rk_conv_weight_bytes(npk_rk_prec p, bool depthwise, uint32_t cout, uint32_t c,
                                  uint32_t kh, uint32_t kw)
{
    const uint64_t kernel = npk_rk_conv_kernel_bytes(p, c, kh, kw);
    return depthwise ? kernel : kernel * up(cout, npk_rk_conv_kgroup(p));
}

uint32_t npk_rk_conv_row_entries(const npk_rk_soc *soc, npk_rk_prec p, uint32_t c, uint32_t w)
{
    /* one row of every channel is W atoms per surface: the entries of that many elements */
    uint64_t elems = up(c, npk_rk_conv_c2(p)) * w;
    return npk_rk_cbuf_data_entries(soc, p, elems > UINT32_MAX ? UINT32_MAX : (uint32_t)elems);
}

uint32_t npk_rk_conv_data_banks(const npk_rk_soc *soc, npk_rk_prec p, uint32_t c, uint32_t h,
                                uint32_t w)
{
    const npk_rk_soc *row = npk_rk_soc_or_default(soc);
    uint64_t bytes = (uint64_t)npk_rk_conv_row_entries(soc, p, c, w) * row->cbuf_entry_bytes * h;
    uint64_t banks = (bytes + row->bank_bytes - 1) / row->bank_bytes;
    return banks > UINT32_MAX ? UINT32_MAX : (uint32_t)banks;
}

enum { RECIP_BIAS = 31, RECIP_MANT = 10, RECIP_EXP_MASK = 0x3f, RECIP_SIGN = 16 };

uint32_t npk_rk_pool_recip(uint32_t k)
{
    if (!k)
        return 0;
    int e = 0;
    double m = frexp(1.0 / k, &e); /* 1/k = m * 2^e, m in [0.5, 1) */
    e -= 1;                        /* 1/k = (2m) * 2^e, 2m in [1, 2) */
    uint32_t mant = (uint32_t)lround((2.0 * m - 1.0) * (1 << RECIP_MANT));
    if (mant == (1u << RECIP_MANT)) { /* rounded up to the next power of two */
        mant = 0;
        e += 1;
    }
    return ((uint32_t)(e + RECIP_BIAS) << RECIP_MANT) | mant;
}

float npk_rk_pool_recip_value(uint32_t bits)
{
    int e = (int)((bits >> RECIP_MANT) & RECIP_EXP_MASK) - RECIP_BIAS;
    double m = 1.0 + (double)(bits & ((1u << RECIP_MANT) - 1)) / (1 << RECIP_MANT);
    double v = ldexp(m, e);
    return (float)((bits >> RECIP_SIGN) & 1 ? -v : v);
}
