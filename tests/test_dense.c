/* SPDX-License-Identifier: MIT */
/* Batch fp16 conversions (the F16C or NEON path, and the portable one) against the scalar
 * conversions, bit for bit, over every fp16 value, a sweep of fp32 bit patterns, the rounding,
 * subnormal, overflow and NaN-payload edges, every tail length and unaligned little-endian runs;
 * the double GEMM against a plain loop on integer-valued operands (exact, so any order agrees). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "common/dense.h"
#include "npukit/fp16.h"

static void conversions(void)
{
    static uint16_t h[65536], h2[65536];
    static float f[65536];
    for (uint32_t i = 0; i < 65536; i++)
        h[i] = (uint16_t)i;
    npk_f16_to_f32_n(h, f, 65536);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        float w = npk_f16_to_f32(h[i]);
        bad += memcmp(&w, &f[i], 4) != 0;
    }
    CHECK_EQ(bad, 0);
    /* fp32 patterns: a stride over all 2^32 with both signs, NaNs, Infs and subnormals */
    for (uint32_t i = 0; i < 65536; i++) {
        uint32_t u = i * 65521u + (i >> 3);
        memcpy(&f[i], &u, 4);
    }
    npk_f32_to_f16_n(f, h2, 65536);
    bad = 0;
    for (uint32_t i = 0; i < 65536; i++)
        bad += h2[i] != npk_f32_to_f16(f[i]);
    CHECK_EQ(bad, 0);
    /* every tail length, from odd offsets across the Inf/NaN codes */
    for (size_t n = 0; n < 20; n++) {
        float g[20];
        uint16_t back[20];
        npk_f16_to_f32_n(h + 0x7bf0 + n, g, n);
        npk_f32_to_f16_n(g, back, n);
        bad = 0;
        for (size_t i = 0; i < n; i++) {
            float w = npk_f16_to_f32(h[0x7bf0 + n + i]);
            bad += memcmp(&w, &g[i], 4) != 0 || back[i] != npk_f32_to_f16(g[i]);
        }
        CHECK_EQ(bad, 0);
    }
    /* fp32 values where a conversion goes wrong first: halfway cases on both sides of even,
     * the subnormal range and its rounding into the normal one, the largest finite value and
     * the rounding past it into Inf, NaNs (quiet and signalling, payloads in the kept and the
     * dropped bits, both signs), fp32 subnormals; each at every position of a group of 8 */
    static const uint32_t edge[] = {
        0x3f801000, 0x3f803000, 0x3f801001, 0x3f802fff, 0x3f800fff, /* ties to even, near */
        0x33000000, 0x33000001, 0x32ffffff, 0x337fe000, 0x387fc000, /* subnormal results */
        0x387fe000, 0x387ff000, 0x38800000, 0x38ffe000, 0x38001000, /* into the normal range */
        0x477fe000, 0x477fefff, 0x477ff000, 0x47800000, 0x7f7fffff, /* 65504, Inf boundary */
        0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, /* Inf, NaNs */
        0x7fa02000, 0xff802000, 0x7f801fff, 0x7fffffff, 0x00000001, /* NaN payloads, fp32 subn */
        0x807fffff, 0x80000000, 0x00000000, 0xc77ff000, 0xb3000001, /* signs, zeros */
    };
    enum { NE = sizeof edge / sizeof edge[0] };
    for (size_t pos = 0; pos < 8; pos++) {
        float g[NE + 8];
        uint16_t back[NE + 8];
        for (size_t i = 0; i < NE + 8; i++)
            memcpy(&g[i], &edge[(i + pos) % NE], 4);
        npk_f32_to_f16_n(g, back, NE + 8);
        bad = 0;
        for (size_t i = 0; i < NE + 8; i++)
            bad += back[i] != npk_f32_to_f16(g[i]);
        CHECK_EQ(bad, 0);
    }
    /* fp16 signalling NaNs keep their payload (a hardware conversion would quiet them) in a
     * group otherwise full of ordinary values, at every position */
    for (size_t pos = 0; pos < 8; pos++) {
        uint16_t in[8] = {0x3c00, 0x0001, 0x8200, 0x7bff, 0xfc00, 0x0400, 0x3555, 0xc000};
        in[pos] = (uint16_t)(0x7c01u | pos << 4 | (pos & 1) << 15);
        float g[8];
        npk_f16_to_f32_n(in, g, 8);
        bad = 0;
        for (size_t i = 0; i < 8; i++) {
            float w = npk_f16_to_f32(in[i]);
            bad += memcmp(&w, &g[i], 4) != 0;
        }
        CHECK_EQ(bad, 0);
    }
    /* little-endian runs at an odd address, every run length to 19, into a strided output:
     * all 65536 codes pass through one length or another */
    static uint8_t bytes[2 * 65536 + 1];
    for (uint32_t i = 0; i < 65536; i++) {
        bytes[1 + 2 * i] = (uint8_t)i;
        bytes[2 + 2 * i] = (uint8_t)(i >> 8);
    }
    for (size_t run = 1; run < 20; run++) {
        size_t runs = 65536 / run, stride = run + 3;
        float *out = malloc(runs * stride * sizeof *out);
        CHECK(out != NULL);
        if (!out)
            return;
        npk_f16le_to_f32_runs(bytes + 1, run, runs, out, stride);
        bad = 0;
        for (size_t r = 0; r < runs; r++)
            for (size_t i = 0; i < run; i++) {
                float w = npk_f16_to_f32((uint16_t)(r * run + i));
                bad += memcmp(&w, &out[r * stride + i], 4) != 0;
            }
        CHECK_EQ(bad, 0);
        free(out);
    }
}

static void dgemm(void)
{
    enum { M = 37, K = 301, N = 45 };
    static double a[M * K], b[K * N], c[M * N], want[M * N];
    uint64_t s = 3;
    for (size_t i = 0; i < M * K; i++)
        a[i] = (double)((s = s * 6364136223846793005ull + 1) >> 56) - 128;
    for (size_t i = 0; i < K * N; i++)
        b[i] = (double)((s = s * 6364136223846793005ull + 1) >> 56) - 128;
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            double t = 0;
            for (size_t p = 0; p < K; p++)
                t += a[i * K + p] * b[p * N + j];
            want[i * N + j] = t;
        }
    npk_dgemm(M, N, K, a, K, b, N, c, N);
    CHECK(memcmp(c, want, sizeof c) == 0);
    npk_dgemm_plain(M, N, K, a, K, b, N, c, N);
    CHECK(memcmp(c, want, sizeof c) == 0);
    /* a sub-block through the leading dimensions */
    npk_dgemm(2, 3, K, a + K, K, b + 1, N, c, 3);
    CHECK(c[0] == want[N + 1] && c[5] == want[2 * N + 3]);
    /* the plain loop forms every product: Inf * 0 is NaN */
    double inf = INFINITY, zero = 0, r = 1;
    npk_dgemm_plain(1, 1, 1, &inf, 1, &zero, 1, &r, 1);
    CHECK(isnan(r));
    npk_dgemm(1, 1, 0, a, 1, b, 1, &r, 1);
    CHECK(r == 0);
}

/* npk_f32_to_f16_n_beyond: the same halves as npk_f32_to_f16_n, and true exactly when a float
 * is finite and beyond 65504 in magnitude; each edge value at every place of runs of every
 * length up to 40 (the vector body and every tail). */
static void beyond(void)
{
    static const struct {
        float v;
        bool beyond;
    } edges[] = {{65504.0f, false},  {-65504.0f, false}, {65504.00390625f, true},
                 {65519.99f, true},  {65520.0f, true},   {-1e30f, true},
                 {INFINITY, false},  {-INFINITY, false}, {NAN, false},
                 {65000.0f, false}};
    float f[40];
    uint16_t h[40], want[40];
    unsigned wrong = 0, bits = 0;
    for (size_t n = 1; n <= 40; n++)
        for (size_t at = 0; at < n; at++)
            for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
                for (size_t i = 0; i < n; i++)
                    f[i] = (float)i * 0.37f - 3.0f;
                f[at] = edges[e].v;
                npk_f32_to_f16_n(f, want, n);
                wrong += npk_f32_to_f16_n_beyond(f, h, n) != edges[e].beyond;
                bits += memcmp(h, want, n * sizeof *h) != 0;
            }
    CHECK_EQ(wrong, 0u);
    CHECK_EQ(bits, 0u);
}

int main(void)
{
    printf("fp16 conversion path: %s\n", npk_dense_f16_path());
#if defined(__aarch64__) && !defined(__AARCH64EB__)
    /* every AArch64 CPU converts in hardware: a portable answer here means the NEON path was
     * not built, and the comparison below would compare the portable path with itself */
    CHECK(strcmp(npk_dense_f16_path(), "neon") == 0);
#endif
    conversions();
    beyond();
    dgemm();
    if (strcmp(npk_dense_f16_path(), "portable") != 0) {
        npk_dense_force_portable(true);
        CHECK(strcmp(npk_dense_f16_path(), "portable") == 0);
        conversions();
        beyond();
        npk_dense_force_portable(false);
    }
    return check_done();
}
