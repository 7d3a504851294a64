/* SPDX-License-Identifier: MIT */
/* A matmul program written only against the compatible rknn headers (rknn_api.h,
 * rknn_matmul_api.h), with the argument shape users know from the vendor SDK's demo:
 *
 *   rknn_matmul_demo <type> <M,K,N> [B_layout=0] [AC_layout=0] [loop_count=10] [core_mask=0]
 *                    [print_result=1] [iommu_domain_id=0]
 *
 * Random operands (fp16 in [-1, 1], int8 in [-128, 127], int4 in [-8, 7]), quantisation
 * parameters for types 3 and 9 (type 9 with B per group of 32, as the vendor demo does by
 * default), B given in its layout (row-major copy, the normal-to-native
 * helper, or a host transpose), loop_count timed runs, and a CPU reference: integer results
 * exact, float results by cosine similarity >= 0.9999 (the max abs error is printed too).
 * Exit status 0 when correct, 255 (-1) otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rknn_api.h"
#include "rknn_matmul_api.h"

/* ---- fp16 <-> float (IEEE binary16, round to nearest even) ---- */
static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f, f = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)f, -24) : e == 31 ? (f ? NAN : INFINITY)
                                                        : ldexpf((float)(f | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

static uint16_t float_to_half(float x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    float a = fabsf(x);
    if (isnan(x))
        return 0x7e00;
    if (a >= 65520.0f)
        return sign | 0x7c00;
    if (a < ldexpf(1.0f, -14)) /* subnormal: units of 2^-24 */
        return sign | (uint16_t)nearbyintf(a * ldexpf(1.0f, 24));
    int e;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    uint32_t f = (uint32_t)nearbyintf(m * 2048.0f); /* 11 significant bits */
    if (f == 2048) {
        f = 1024;
        e++;
    }
    return sign | (uint16_t)((e + 14) << 10) | (uint16_t)(f & 0x3ff);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Element access for the three input kinds: fp16 bits, int8, int4 (two a byte, even low). */
static int in_bits(rknn_matmul_type t)
{
    return t == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 || t == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 ? 16
           : t == RKNN_INT4_MM_INT4_TO_INT16 ? 4 : 8;
}

static void put(void *buf, int bits, size_t i, double v)
{
    if (bits == 16)
        ((uint16_t *)buf)[i] = float_to_half((float)v);
    else if (bits == 8)
        ((int8_t *)buf)[i] = (int8_t)v;
    else {
        uint8_t *p = (uint8_t *)buf + i / 2;
        unsigned nib = (unsigned)((int)v & 0xf);
        *p = (uint8_t)(i & 1 ? (*p & 0x0f) | (nib << 4) : (*p & 0xf0) | nib);
    }
}

static double random_value(int bits)
{
    if (bits == 16)
        return half_to_float(float_to_half((float)((int)(rnd() % 2001) - 1000) / 1000.0f));
    return bits == 8 ? (double)((int)(rnd() % 256) - 128) : (double)((int)(rnd() % 16) - 8);
}

static int parse_mkn(const char *s, int *m, int *k, int *n)
{
    char extra;
    return sscanf(s, "%d,%d,%d%c", m, k, n, &extra) == 3 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <matmul_type> <M,K,N> [B_layout] [AC_layout] [loop_count] "
                        "[core_mask] [print_result] [iommu_domain_id]\n", argv[0]);
        for (int t = 1; t <= 12; t++)
            fprintf(stderr, "  %2d %s\n", t, get_matmul_type_string((rknn_matmul_type)t));
        return -1;
    }
    rknn_matmul_type type = (rknn_matmul_type)atoi(argv[1]);
    int M, K, N;
    if (parse_mkn(argv[2], &M, &K, &N)) {
        fprintf(stderr, "bad shape '%s': expected M,K,N\n", argv[2]);
        return -1;
    }
    int b_layout = argc > 3 ? atoi(argv[3]) : 0, ac_layout = argc > 4 ? atoi(argv[4]) : 0;
    int loops = argc > 5 ? atoi(argv[5]) : 10, core_mask = argc > 6 ? atoi(argv[6]) : 0;
    int print = argc > 7 ? atoi(argv[7]) : 1, domain = argc > 8 ? atoi(argv[8]) : 0;

    rknn_matmul_info info;
    memset(&info, 0, sizeof info);
    info.M = M;
    info.K = K;
    info.N = N;
    info.type = type;
    info.B_layout = (int16_t)b_layout;
    info.AC_layout = (int16_t)ac_layout;
    if (type == RKNN_INT8_MM_INT8_TO_FLOAT32) { /* as the vendor demo: B per group of 32 */
        info.B_quant_type = RKNN_QUANT_TYPE_PER_GROUP_SYM;
        info.group_size = 32;
    }
    info.iommu_domain_id = domain;
    rknn_matmul_io_attr io;
    memset(&io, 0, sizeof io);
    rknn_matmul_ctx ctx = 0;
    int ret = rknn_matmul_create(&ctx, &info, &io);
    if (ret < 0) {
        fprintf(stderr, "rknn_matmul_create fail! ret=%d\n", ret);
        return -1;
    }
    const rknn_matmul_tensor_attr *attrs[3] = {&io.A, &io.B, &io.C};
    for (int i = 0; i < 3; i++) {
        printf("%s: dims=[", attrs[i]->name);
        for (uint32_t d = 0; d < attrs[i]->n_dims; d++)
            printf("%s%u", d ? ", " : "", attrs[i]->dims[d]);
        printf("] size=%u type=%s\n", attrs[i]->size, get_type_string(attrs[i]->type));
    }

    /* Operands and the reference (double / exact integers). */
    const int ib = in_bits(type);
    const int cgroup = type == RKNN_INT4_MM_INT4_TO_INT16 ? 8 : 4;
    const int c2 = 128 / ib;
    double *a = malloc(sizeof(double) * M * K), *b = malloc(sizeof(double) * K * N);
    double *ref = calloc((size_t)M * N, sizeof(double));
    void *a_norm = calloc((size_t)M * K, 2), *b_norm = calloc((size_t)K * N, 2);
    for (size_t i = 0; i < (size_t)M * K; i++)
        put(a_norm, ib, i, a[i] = random_value(ib));
    for (size_t i = 0; i < (size_t)K * N; i++)
        put(b_norm, ib, i, b[i] = random_value(ib));
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++)
                ref[(size_t)i * N + j] += a[(size_t)i * K + k] * b[(size_t)k * N + j];

    /* Quantisation for 3 and 9: A and B per layer; C's scale spreads the result over int8. */
    float sa = 1.0f / 64, sb = 1.0f / 32, sc = 1.0f;
    int quant = type == RKNN_INT8_MM_INT8_TO_INT8 || type == RKNN_INT8_MM_INT8_TO_FLOAT32;
    if (quant) {
        double mx = 1e-6;
        for (size_t i = 0; i < (size_t)M * N; i++)
            mx = fmax(mx, fabs(ref[i] * sa * sb));
        sc = (float)(mx / 127.0);
        rknn_quant_params qa, qb, qc;
        memset(&qa, 0, sizeof qa);
        memset(&qb, 0, sizeof qb);
        memset(&qc, 0, sizeof qc);
        strcpy(qa.name, "A");
        qa.scale = &sa;
        qa.scale_len = 1;
        strcpy(qb.name, "B");
        qb.scale = &sb;
        qb.scale_len = 1;
        float *sbg = NULL; /* per group: one scale per group of K and column, all sb */
        if (info.B_quant_type == RKNN_QUANT_TYPE_PER_GROUP_SYM) {
            qb.scale_len = N * (K / info.group_size);
            qb.scale = sbg = malloc(sizeof(float) * qb.scale_len);
            for (int i = 0; sbg && i < qb.scale_len; i++)
                sbg[i] = sb;
        }
        strcpy(qc.name, "C");
        qc.scale = &sc;
        qc.scale_len = 1;
        int qrc = rknn_matmul_set_quant_params(ctx, &qa) ||
                  rknn_matmul_set_quant_params(ctx, &qb) || rknn_matmul_set_quant_params(ctx, &qc);
        free(sbg);
        if (qrc) {
            fprintf(stderr, "rknn_matmul_set_quant_params fail!\n");
            rknn_matmul_destroy(ctx);
            return -1;
        }
    }

    rknn_tensor_mem *A = rknn_create_mem(ctx, io.A.size), *B = rknn_create_mem(ctx, io.B.size);
    rknn_tensor_mem *C = rknn_create_mem(ctx, io.C.size);
    if (!A || !B || !C) {
        fprintf(stderr, "rknn_create_mem fail!\n");
        return -1;
    }
    /* A: row-major, or native (K/c2, M, c2). */
    memset(A->virt_addr, 0, io.A.size);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            size_t at = ac_layout ? ((size_t)(k / c2) * M + i) * c2 + k % c2 : (size_t)i * K + k;
            put(A->virt_addr, ib, at, a[(size_t)i * K + k]);
        }
    /* B: a copy, the helper, or a transpose. */
    if (b_layout == RKNN_MM_LAYOUT_NATIVE)
        ret = rknn_B_normal_layout_to_native_layout(b_norm, B->virt_addr, K, N, &info);
    else if (b_layout == RKNN_MM_LAYOUT_TP_NORM)
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++)
                put(B->virt_addr, ib, (size_t)j * K + k, b[(size_t)k * N + j]);
    else
        memcpy(B->virt_addr, b_norm, io.B.size);
    if (ret < 0) {
        fprintf(stderr, "rknn_B_normal_layout_to_native_layout fail! ret=%d\n", ret);
        return -1;
    }
    if (rknn_matmul_set_io_mem(ctx, A, &io.A) || rknn_matmul_set_io_mem(ctx, B, &io.B) ||
        rknn_matmul_set_io_mem(ctx, C, &io.C) ||
        rknn_matmul_set_core_mask(ctx, (rknn_core_mask)core_mask)) {
        fprintf(stderr, "binding or core mask fail!\n");
        return -1;
    }
    double total = 0;
    for (int l = 0; l < loops; l++) {
        double t0 = now_us();
        ret = rknn_matmul_run(ctx);
        double t = now_us() - t0;
        total += t;
        if (ret < 0) {
            fprintf(stderr, "rknn_matmul_run fail! ret=%d\n", ret);
            return -1;
        }
        printf("loop %d: %s M=%d K=%d N=%d: %.1f us\n", l, get_matmul_type_string(type), M, K,
               N, t);
    }
    if (loops > 0)
        printf("average: %.1f us per run over %d runs\n", total / loops, loops);
    else if ((ret = rknn_matmul_run(ctx)) < 0)
        return -1;

    /* C back to row-major doubles, and the verdict. */
    int wrong = 0;
    double dot = 0, n1 = 0, n2 = 0, max_abs = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            size_t e = (size_t)i * N + j;
            size_t at = ac_layout ? ((size_t)(j / cgroup) * M + i) * cgroup + j % cgroup : e;
            double got, want = ref[e];
            switch (type) {
            case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32:
            case RKNN_INT8_MM_INT8_TO_FLOAT32:
                got = ((float *)C->virt_addr)[at];
                break;
            case RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16:
                got = half_to_float(((uint16_t *)C->virt_addr)[at]);
                break;
            case RKNN_INT8_MM_INT8_TO_INT32:
                got = ((int32_t *)C->virt_addr)[at];
                break;
            case RKNN_INT8_MM_INT8_TO_INT8:
                got = ((int8_t *)C->virt_addr)[at];
                want = fmin(127, fmax(-128, nearbyint((double)sa * sb * want / sc)));
                break;
            default: /* int4 -> int16: the exact sum, saturated */
                got = ((int16_t *)C->virt_addr)[at];
                want = fmin(32767, fmax(-32768, want));
                break;
            }
            if (type == RKNN_INT8_MM_INT8_TO_FLOAT32)
                want *= (double)sa * sb;
            if (print && i < 4 && j < 8)
                printf("%s%g", j ? " " : "C: ", got);
            if (print && i < 4 && j == (N < 8 ? N : 8) - 1)
                printf("\n");
            dot += got * want;
            n1 += got * got;
            n2 += want * want;
            max_abs = fmax(max_abs, fabs(got - want));
            wrong += got != want;
        }
    int floats = type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 ||
                 type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 ||
                 type == RKNN_INT8_MM_INT8_TO_FLOAT32;
    double cosine = n1 > 0 && n2 > 0 ? dot / sqrt(n1 * n2) : (n1 == n2 ? 1.0 : 0.0);
    int ok = floats ? cosine >= 0.9999 : wrong == 0;
    if (floats)
        printf("cosine similarity %.6f, max abs error %g\n", cosine, max_abs);
    else
        printf("%d of %d elements differ from the reference\n", wrong, M * N);
    printf("%s matmul result is %s\n", get_matmul_type_string(type), ok ? "correct" : "wrong");

    rknn_destroy_mem(ctx, A);
    rknn_destroy_mem(ctx, B);
    rknn_destroy_mem(ctx, C);
    rknn_matmul_destroy(ctx);
    free(a);
    free(b);
    free(ref);
    free(a_norm);
    free(b_norm);
    return ok ? 0 : -1;
}
