/* SPDX-License-Identifier: MIT */
/* Operand runs to floats and results to packed outputs (see elements.h). The common pairs
 * (fp16, int8 and int4 in; fp32, fp16, int32, int16 and int8 out) have their own loops; every
 * other precision goes through the row's encoding an element at a time. */
#include "rksim/elements.h"

#include <pthread.h>
#include <string.h>

#include "common/dense.h"

/* Both nibbles of a byte as floats: the even element in the low nibble (facts D.1). */
static float int4_pair[256][2];
static pthread_once_t int4_once = PTHREAD_ONCE_INIT;
static void int4_pair_build(void)
{
    for (unsigned b = 0; b < 256; b++) {
        int lo = (int)(b & 15u), hi = (int)(b >> 4);
        int4_pair[b][0] = (float)(lo >= 8 ? lo - 16 : lo);
        int4_pair[b][1] = (float)(hi >= 8 ? hi - 16 : hi);
    }
}

static void load_int4(const uint8_t *base, size_t first, size_t n, float *dst)
{
    pthread_once(&int4_once, int4_pair_build);
    const uint8_t *p = base + first / 2;
    size_t j = 0;
    if (first % 2 && n) { /* starts on a high nibble */
        dst[j++] = int4_pair[*p++][1];
    }
    for (; j + 2 <= n; j += 2, p++) {
        dst[j] = int4_pair[*p][0];
        dst[j + 1] = int4_pair[*p][1];
    }
    if (j < n)
        dst[j] = int4_pair[*p][0];
}

void rksim_load_run(npk_rk_prec p, const uint8_t *base, size_t first, size_t n, float *dst)
{
    switch (p) {
    case NPK_PREC_FP16: {
        uint16_t h[256]; /* an aligned copy: base may sit at any byte */
        for (size_t j = 0; j < n; j += 256) {
            size_t c = n - j < 256 ? n - j : 256;
            memcpy(h, base + 2 * (first + j), 2 * c);
            npk_f16_to_f32_n(h, dst + j, c);
        }
        return;
    }
    case NPK_PREC_INT8:
        for (size_t j = 0; j < n; j++)
            dst[j] = (float)(int8_t)base[first + j];
        return;
    case NPK_PREC_INT4: load_int4(base, first, n, dst); return;
    default:
        for (size_t j = 0; j < n; j++)
            dst[j] = (float)npk_rk_prec_load(p, base, first + j);
        return;
    }
}

/* An integer output keeps the low bits of the value (npk_rk_prec_store wraps), stored
 * little-endian byte by byte so the host's byte order does not matter. */
static void store_int(uint8_t *base, const int64_t *ci, size_t n, unsigned bytes)
{
    for (size_t j = 0; j < n; j++) {
        uint64_t u = ci ? (uint64_t)ci[j] : 0;
        for (unsigned b = 0; b < bytes; b++)
            base[j * bytes + b] = (uint8_t)(u >> (8 * b));
    }
}

void rksim_store_run(npk_rk_prec p, uint8_t *base, const float *cf, const int64_t *ci, size_t n)
{
    if (!cf && p == NPK_PREC_INT32) {
        store_int(base, ci, n, 4);
        return;
    }
    if (!cf && p == NPK_PREC_INT16) {
        store_int(base, ci, n, 2);
        return;
    }
    if (!cf && p == NPK_PREC_INT8) {
        store_int(base, ci, n, 1);
        return;
    }
    if (cf && p == NPK_PREC_FP32) {
        for (size_t j = 0; j < n; j++) {
            uint32_t w;
            memcpy(&w, &cf[j], 4);
            for (unsigned b = 0; b < 4; b++)
                base[4 * j + b] = (uint8_t)(w >> (8 * b));
        }
        return;
    }
    if (cf && p == NPK_PREC_FP16) {
        uint16_t h[256];
        for (size_t j = 0; j < n; j += 256) {
            size_t c = n - j < 256 ? n - j : 256;
            npk_f32_to_f16_n(cf + j, h, c);
            for (size_t i = 0; i < c; i++) {
                base[2 * (j + i)] = (uint8_t)h[i];
                base[2 * (j + i) + 1] = (uint8_t)(h[i] >> 8);
            }
        }
        return;
    }
    for (size_t j = 0; j < n; j++)
        npk_rk_prec_store(p, base, j, cf ? (double)cf[j] : ci ? (double)ci[j] : 0.0);
}
