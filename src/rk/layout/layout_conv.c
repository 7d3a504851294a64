/* SPDX-License-Identifier: MIT */
/* Host-side layouts of the convolution and pooling engines (rk_conv_layout.h). Elements are
 * copied as bytes of their precision's width (fp16 2, int8 1, int32 4), C2 = 16 / width of
 * them to an atom. */
#include <string.h>

#include "rk/hw/rk_conv_hw.h"
#include "rk/layout/rk_conv_layout.h"

enum { WA = NPK_RK_CONV_WATOM };

static uint64_t up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

npk_status npk_rk_conv_pack_feature(npk_rk_prec p, const void *src, uint64_t plane_stride,
                                    uint64_t row_stride, uint32_t c, uint32_t h, uint32_t w,
                                    uint32_t pt, uint32_t pl, uint32_t pb, uint32_t pr, void *dst,
                                    uint64_t dst_size)
{
    const uint32_t c2 = npk_rk_conv_c2(p), eb = NPK_RK_ATOM_BYTES / c2;
    const uint64_t hp = (uint64_t)h + pt + pb, wp = (uint64_t)w + pl + pr;
    const uint64_t need = up(c, c2) / c2 * hp * wp * NPK_RK_ATOM_BYTES;
    if (!dst || !c || !hp || !wp || (h && w && !src))
        return npk_fail(NPK_EINVAL, "conv feature pack: NULL array or an empty cube");
    if (need > dst_size)
        return npk_fail(NPK_ELIMIT, "conv feature pack: %llu bytes needed, %llu given",
                        (unsigned long long)need, (unsigned long long)dst_size);
    uint8_t *d = dst;
    const uint8_t *s = src;
    memset(d, 0, need);
    for (uint32_t ch = 0; h && w && ch < c; ch++) {
        uint8_t *surf = d + ((uint64_t)(ch / c2) * hp * wp * c2 + ch % c2) * eb;
        const uint8_t *plane = s + ch * plane_stride * eb;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++)
                memcpy(surf + ((y + pt) * wp + x + pl) * c2 * eb, plane + (y * row_stride + x) * eb,
                       eb);
    }
    return NPK_OK;
}

npk_status npk_rk_conv_unpack_feature(npk_rk_prec p, const void *src, uint64_t src_size,
                                      uint32_t c, uint32_t h, uint32_t w, void *dst)
{
    const uint32_t c2 = npk_rk_conv_c2(p), eb = NPK_RK_ATOM_BYTES / c2;
    const uint64_t need = up(c, c2) / c2 * h * w * NPK_RK_ATOM_BYTES;
    if (!src || !dst)
        return npk_fail(NPK_EINVAL, "conv feature unpack: NULL array");
    if (need > src_size)
        return npk_fail(NPK_ELIMIT, "conv feature unpack: %llu bytes needed, %llu given",
                        (unsigned long long)need, (unsigned long long)src_size);
    const uint8_t *s = src;
    uint8_t *d = dst;
    for (uint32_t ch = 0; ch < c; ch++) {
        const uint8_t *surf = s + ((uint64_t)(ch / c2) * h * w * c2 + ch % c2) * eb;
        uint8_t *plane = d + (uint64_t)ch * h * w * eb;
        for (uint64_t i = 0; i < (uint64_t)h * w; i++)
            memcpy(plane + i * eb, surf + i * c2 * eb, eb);
    }
    return NPK_OK;
}

npk_status npk_rk_conv_pack_weights(npk_rk_prec p, bool depthwise, const void *src, uint32_t cout,
                                    uint32_t c, uint32_t kh, uint32_t kw, void *dst,
                                    uint64_t dst_size)
{
    const uint32_t eb = NPK_RK_ATOM_BYTES / npk_rk_conv_c2(p), kg = npk_rk_conv_kgroup(p);
    const uint64_t need = npk_rk_conv_weight_bytes(p, depthwise, cout, c, kh, kw);
    if (!src || !dst || !c || !kh || !kw || (!depthwise && !cout))
        return npk_fail(NPK_EINVAL, "conv weight pack: NULL array or zero dimension");
    if (need > dst_size)
        return npk_fail(NPK_ELIMIT, "conv weight pack: %llu bytes needed, %llu given",
                        (unsigned long long)need, (unsigned long long)dst_size);
    uint8_t *d = dst;
    const uint8_t *s = src;
    memset(d, 0, need);
    const uint64_t ct = up(c, WA) / WA, win = (uint64_t)kh * kw;
    if (depthwise) { /* [C/32][KH][KW][32] */
        for (uint32_t ch = 0; ch < c; ch++)
            for (uint64_t k = 0; k < win; k++)
                memcpy(d + (((ch / WA) * win + k) * WA + ch % WA) * eb,
                       s + ((uint64_t)ch * win + k) * eb, eb);
        return NPK_OK;
    }
    /* [Cout/G][C/32][KH][KW][G][32] */
    for (uint32_t o = 0; o < cout; o++)
        for (uint32_t ch = 0; ch < c; ch++)
            for (uint64_t k = 0; k < win; k++) {
                uint64_t at = ((((uint64_t)(o / kg) * ct + ch / WA) * win + k) * kg + o % kg) * WA +
                              ch % WA;
                memcpy(d + at * eb, s + (((uint64_t)o * c + ch) * win + k) * eb, eb);
            }
    return NPK_OK;
}
