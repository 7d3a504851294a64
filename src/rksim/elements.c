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
    for (; j + 2 <= n; j += 2, p++)
        memcpy(dst + j, int4_pair[*p], sizeof int4_pair[0]); /* both nibbles in one move */
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

/* An integer output keeps the low bits of the value (npk_rk_prec_store wraps). Integer results
 * come as int64 or as exact integer-valued floats. Stores are little-endian: memcpy on such a
 * host, byte by byte elsewhere. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0
#endif

/* The run's integer results (ci, else the exact integer floats of cf) as T, low bits kept. */
#define STORE_INT(T, UT, bytes)                                                                    \
    for (size_t j = 0; j < n; j++) {                                                               \
        T v = (T)(UT)(ci ? ci[j] : (int64_t)cf[j]);                                                \
        if (HOST_LE)                                                                               \
            memcpy(base + (bytes)*j, &v, bytes);                                                   \
        else                                                                                       \
            for (unsigned b = 0; b < (bytes); b++)                                                 \
                base[(bytes)*j + b] = (uint8_t)((UT)v >> (8 * b));                                 \
    }

static bool store_int(npk_rk_prec p, uint8_t *base, const float *cf, const int64_t *ci, size_t n)
{
    if (!cf && !ci)
        return false;
    switch (p) {
    case NPK_PREC_INT32: STORE_INT(int32_t, uint32_t, 4); return true;
    case NPK_PREC_INT16: STORE_INT(int16_t, uint16_t, 2); return true;
    case NPK_PREC_INT8: STORE_INT(int8_t, uint8_t, 1); return true;
    default: return false;
    }
}

void rksim_store_run(npk_rk_prec p, uint8_t *base, const float *cf, const int64_t *ci, size_t n)
{
    if (store_int(p, base, cf, ci, n))
        return;
    if (cf && p == NPK_PREC_FP32) {
        if (HOST_LE) {
            memcpy(base, cf, 4 * n);
            return;
        }
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
            if (HOST_LE) {
                memcpy(base + 2 * j, h, 2 * c);
                continue;
            }
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
