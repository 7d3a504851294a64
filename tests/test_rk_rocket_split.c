/* SPDX-License-Identifier: MIT */
/* Packed weights split by core on the rocket front end (one open file per core, each its own
 * 4 GiB address space): each core's file holds only the columns that core computes, where the
 * planner's split of N cuts them, and calls on them split N there. Checked on sim-rocket
 * against the CPU reference, exactly:
 *   - fp16, int8 and int4 weights split over 3 cores (one K slice and several), and the
 *     calls that plan over them: npk_rk_matmul, a batch, per-group quantised weights, weights
 *     bound to a buffer (repacked part by part when its bytes change);
 *   - a 1-core runtime: its weights whole in its core's file; weights split at 3 cores still
 *     run on the cores that hold them after the runtime drops to 1;
 *   - the one-core fallback: core 0's file full, the weights go whole into another core's file
 *     and run there;
 *   - narrow weights at a large M hint, where the model says a fixed N split costs more than
 *     splitting M: copies in every file, and the call planned freely; no copies once a file
 *     is more than half full;
 *   - bad input: every file full, refused naming the size and the limit; a task of another
 *     core's columns refused instead of reading the wrong file. */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in the runtime's header */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rk_matmul_check_testlib.h"
#include "rk_operands_testlib.h"
#include "npukit/rk.h"
#include "npukit/rk_reference.h"
#include "rk/runtime/runtime_internal.h"
#include "rk/runtime/runtime_weights.h"

/* Weights of this shape packed (K sliced at k_slice, 0: the planner's choice), checked split
 * over the cores of `mask` in order, run and checked against the reference. */
static void split_case(npk_rk *rt, npk_rk_prec in, npk_rk_prec out, uint32_t m, uint32_t k,
                       uint32_t n, uint32_t k_slice, unsigned parts)
{
    void *b = rk_test_operands(in, (size_t)k * n);
    npk_rk_weights *w;
    CHECK_EQ(npk_rk_weights_pack_sliced(rt, in, k, n, b, m, k_slice, &w), NPK_OK);
    CHECK_EQ(w->parts, parts);
    CHECK(w->parts <= NPK_RK_MAX_CORES);
    uint64_t sum = 0;
    for (unsigned i = 0; i < w->parts && i < NPK_RK_MAX_CORES; i++) {
        CHECK_EQ(w->part_core[i], i);
        CHECK(w->part_n0[i] < w->part_n0[i + 1]);
        /* the part is in its core's file only */
        CHECK_EQ(npk_rk_mem_iova_on(&w->part_mem[i], i), w->part_mem[i].iova);
        sum += npk_rk_weights_part_bytes(w, i);
    }
    CHECK_EQ(w->part_n0[w->parts], n);
    CHECK(sum >= npk_rk_weights_bytes(w) && w->mem.size == 0);
    npk_rk_stats st = rk_test_check_matmul(rt, w, in, out, m, k, n, b);
    CHECK_EQ(st.cores_used, parts);
    npk_rk_weights_free(rt, w);
    free(b);
}

static void split_three(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    split_case(rt, NPK_PREC_INT8, NPK_PREC_INT32, 40, 300, 200, 0, 3);
    split_case(rt, NPK_PREC_INT8, NPK_PREC_INT32, 33, 300, 200, 128, 3); /* 3 K slices */
    split_case(rt, NPK_PREC_FP16, NPK_PREC_FP32, 40, 300, 200, 0, 3);
    split_case(rt, NPK_PREC_FP16, NPK_PREC_FP16, 17, 200, 100, 64, 3);
    split_case(rt, NPK_PREC_INT4, NPK_PREC_INT32, 24, 256, 400, 0, 3);
    /* four N groups: two cores (the planner gives each at least two) */
    split_case(rt, NPK_PREC_INT8, NPK_PREC_INT32, 8, 64, 4 * npk_rk_n_align(NPK_PREC_INT8), 0,
               2);
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK_EQ(info.weight_used, 0);
    npk_rk_close(rt);
}

/* Two split weights in one batch, and per-group quantised weights (passes over K slices). */
static void split_batch_and_quant(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    const uint32_t m = 12, k = 256, n0 = 200, n1 = 192;
    int8_t *b0 = rk_test_operands(NPK_PREC_INT8, (size_t)k * n0),
           *b1 = rk_test_operands(NPK_PREC_INT8, (size_t)k * n1),
           *a = rk_test_operands(NPK_PREC_INT8, (size_t)m * k);
    npk_rk_weights *w0, *w1;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n0, b0, m, &w0), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n1, b1, m, &w1), NPK_OK);
    CHECK(w0->parts == 3 && w1->parts == 3);
    int32_t *c0 = calloc((size_t)m * n0, 4), *c1 = calloc((size_t)m * n1, 4),
            *r0 = calloc((size_t)m * n0, 4), *r1 = calloc((size_t)m * n1, 4);
    npk_rk_matmul_item items[2] = {{.w = w0, .m = m, .a = a, .c = c0},
                                   {.w = w1, .m = m, .a = a, .c = c1}};
    CHECK_EQ(npk_rk_matmul_batch(rt, items, 2, NPK_PREC_INT32, NULL), NPK_OK);
    CHECK_EQ(npk_rk_reference_matmul(NPK_PREC_INT8, NPK_PREC_INT32, m, k, n0, a, b0, r0), NPK_OK);
    CHECK_EQ(npk_rk_reference_matmul(NPK_PREC_INT8, NPK_PREC_INT32, m, k, n1, a, b1, r1), NPK_OK);
    CHECK_EQ(npk_rk_compare(NPK_PREC_INT32, c0, r0, (uint64_t)m * n0).mismatches, 0);
    CHECK_EQ(npk_rk_compare(NPK_PREC_INT32, c1, r1, (uint64_t)m * n1).mismatches, 0);
    CHECK_EQ(items[0].stats.core_mask, 7);

    /* per-group scales, K-sliced passes: each pass reads one K slice of every core's part */
    const uint32_t group = 64, groups = k / group;
    float *sb = malloc((size_t)groups * n0 * sizeof *sb), sa = 0.5f;
    for (size_t i = 0; i < (size_t)groups * n0; i++)
        sb[i] = i % 3 ? 0.25f : -2.0f; /* powers of two: the result is exact */
    npk_rk_qweights_desc d = {.in = NPK_PREC_INT8, .k = k, .n = n0, .b = b0,
                              .layout = NPK_RK_ROWS, .group = group, .scale = sb,
                              .scale_count = (uint64_t)groups * n0, .m_hint = m,
                              .groups_per_pass = 1};
    npk_rk_qweights *q;
    CHECK_EQ(npk_rk_qweights_pack(rt, &d, &q), NPK_OK);
    float *cq = calloc((size_t)m * n0, sizeof *cq);
    CHECK_EQ(npk_rk_matmul_quant(rt, q, m, a, &sa, 1, NPK_PREC_FP32, cq, NULL), NPK_OK);
    npk_rk_quant_ref qr = {NPK_PREC_INT8, m, k, n0, group, a, &sa, 1, b0, sb};
    npk_rk_verdict v;
    CHECK_EQ(npk_rk_check_matmul_quant(&qr, NPK_PREC_FP32, cq, &v), NPK_OK);
    CHECK_EQ(v.outside, 0);
    CHECK_EQ(v.mismatches, 0);
    npk_rk_qweights_free(rt, q);
    npk_rk_weights_free(rt, w0);
    npk_rk_weights_free(rt, w1);
    free(sb);
    free(cq);
    free(a);
    free(b0);
    free(b1);
    free(c0);
    free(c1);
    free(r0);
    free(r1);
    npk_rk_close(rt);
}

/* Weights bound to a buffer: split like packed ones, every part repacked when the buffer's
 * bytes change. */
static void bound(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    const uint32_t m = 16, k = 160, n = 200;
    int8_t *b = rk_test_operands(NPK_PREC_INT8, (size_t)k * n);
    npk_rk_buffer *buf;
    CHECK_EQ(npk_rk_buffer_create(rt, (uint64_t)k * n, &buf), NPK_OK);
    memcpy(npk_rk_buffer_host(buf), b, (size_t)k * n);
    npk_rk_weights *w;
    CHECK_EQ(npk_rk_weights_bind(rt, NPK_PREC_INT8, k, n, buf, 0, NPK_RK_ROWS, m, &w), NPK_OK);
    CHECK_EQ(w->parts, 3);
    rk_test_check_matmul(rt, w, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b);
    for (size_t i = 0; i < (size_t)k * n; i += 7)
        b[i] = (int8_t)(-b[i] / 2);
    memcpy(npk_rk_buffer_host(buf), b, (size_t)k * n);
    rk_test_check_matmul(rt, w, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b);
    npk_rk_weights_free(rt, w);
    npk_rk_buffer_free(buf);
    free(b);
    npk_rk_close(rt);
}

/* A 1-core runtime: its weights whole in its core's file. Weights split at 3 cores keep
 * running on the cores holding them when the runtime drops to 1. */
static void one_core(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    const uint32_t m = 40, k = 300, n = 200;
    void *b = rk_test_operands(NPK_PREC_INT8, (size_t)k * n);
    npk_rk_weights *w3, *w1;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, m, &w3), NPK_OK);
    CHECK_EQ(npk_rk_set_cores(rt, 1), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, m, &w1), NPK_OK);
    CHECK(w1->parts == 1 && w1->part_core[0] == 0);
    npk_rk_stats st = rk_test_check_matmul(rt, w1, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b);
    CHECK_EQ(st.cores_used, 1);
    st = rk_test_check_matmul(rt, w3, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b);
    CHECK_EQ(st.cores_used, 3);
    npk_rk_weights_free(rt, w1);
    npk_rk_weights_free(rt, w3);
    free(b);
    npk_rk_close(rt);
}

/* Core 0's file full: the weights go whole into the file with the most room and run on its
 * core alone. */
static void fallback(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    npk_rk_mem filler;
    CHECK_EQ(npk_rk_weights_mem_on(rt->eng, 0, NPK_RK_WEIGHT_SPACE - 4096, &filler), NPK_OK);
    const uint32_t m = 40, k = 300, n = 200;
    void *b = rk_test_operands(NPK_PREC_INT8, (size_t)k * n);
    npk_rk_weights *w;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, m, &w), NPK_OK);
    CHECK(w->parts == 1 && w->part_core[0] == 1);
    npk_rk_stats st = rk_test_check_matmul(rt, w, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b);
    CHECK_EQ(st.cores_used, 1); /* on core 1: core 0 would be refused its file's address */
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK_EQ(info.weight_used, NPK_RK_WEIGHT_SPACE - 4096 + ((npk_rk_weights_bytes(w) + 4095) &
                                                             ~4095ull));
    npk_rk_weights_free(rt, w);
    npk_rk_weights_mem_free_on(rt->eng, 0, &filler);
    free(b);
    npk_rk_close(rt);
}

/* Narrow N at a large M hint: splitting M over the cores is cheaper by the model than a fixed
 * N split, so copies in every file (room allows), and the call is planned freely. */
static void copies(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    const uint32_t m = 512, k = 1024, n = 256;
    void *b = rk_test_operands(NPK_PREC_INT8, (size_t)k * n);
    npk_rk_weights *w;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, m, &w), NPK_OK);
    CHECK_EQ(w->parts, 0);
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK_EQ(info.weight_used, 3 * ((npk_rk_weights_bytes(w) + 4095) & ~4095ull));
    npk_rk_stats st = rk_test_check_matmul(rt, w, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b);
    CHECK_EQ(st.cores_used, 3);
    npk_rk_weights_free(rt, w);
    /* a file more than half full: no copies, the split */
    npk_rk_mem filler;
    CHECK_EQ(npk_rk_weights_mem_on(rt->eng, 2, NPK_RK_WEIGHT_SPACE / 2, &filler), NPK_OK);
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, m, &w), NPK_OK);
    CHECK_EQ(w->parts, 3);
    rk_test_check_matmul(rt, w, NPK_PREC_INT8, NPK_PREC_INT32, m, k, n, b);
    npk_rk_weights_free(rt, w);
    npk_rk_weights_mem_free_on(rt->eng, 2, &filler);
    free(b);
    npk_rk_close(rt);
}

static void bad_input(void)
{
    npk_rk *rt;
    CHECK_EQ(npk_rk_open("sim-rocket", &rt), NPK_OK);
    npk_rk_mem full[3];
    for (unsigned c = 0; c < 3; c++)
        CHECK_EQ(npk_rk_weights_mem_on(rt->eng, c, NPK_RK_WEIGHT_SPACE - 4096, &full[c]), NPK_OK);
    const uint32_t k = 300, n = 200;
    void *b = rk_test_operands(NPK_PREC_INT8, (size_t)k * n);
    npk_rk_weights *w = NULL, *probe;
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, 8, &w), NPK_ENOMEM);
    CHECK(w == NULL);
    CHECK_EQ(npk_rk_weights_new(rt, NPK_PREC_INT8, k, n, 8, 0, &probe), NPK_OK);
    char size[32];
    snprintf(size, sizeof size, "%llu", (unsigned long long)npk_rk_weights_bytes(probe));
    npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, 8, &w);
    CHECK_STR_HAS(npk_last_error(), size);
    CHECK_STR_HAS(npk_last_error(), "4026531840");
    CHECK_STR_HAS(npk_last_error(), "12079595520");
    free(probe);
    /* one more byte than a space: refused before any placement */
    CHECK_EQ(npk_rk_weights_mem_on(rt->eng, 0, NPK_RK_WEIGHT_SPACE + 1, &full[0]), NPK_ELIMIT);
    CHECK_STR_HAS(npk_last_error(), "4026531841");
    for (unsigned c = 0; c < 3; c++)
        npk_rk_weights_mem_free_on(rt->eng, c, &full[c]);
    npk_rk_info info;
    CHECK_EQ(npk_rk_query(rt, &info), NPK_OK);
    CHECK_EQ(info.weight_used, 0);

    /* a task of part 0's columns on core 1 reads another file: refused */
    CHECK_EQ(npk_rk_weights_pack(rt, NPK_PREC_INT8, k, n, b, 8, &w), NPK_OK);
    npk_rk_task_plan t = {.k0 = 0, .kp = w->k_slice, .n0 = 0, .n1 = w->part_n0[1], .core = 1};
    uint32_t iova;
    CHECK_EQ(npk_rk_weights_b_iova(w, &t, &iova), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "another core's space");
    t.n1 = n; /* columns of every part: no one core holds them */
    t.core = 0;
    CHECK_EQ(npk_rk_weights_b_iova(w, &t, &iova), NPK_EINVAL);
    CHECK_STR_HAS(npk_last_error(), "no one core");
    t.n1 = w->part_n0[1];
    CHECK_EQ(npk_rk_weights_b_iova(w, &t, &iova), NPK_OK);
    CHECK_EQ(iova, w->part_mem[0].iova);
    npk_rk_weights_free(rt, w);
    free(b);
    npk_rk_close(rt);
}

int main(void)
{
    split_three();
    split_batch_and_quant();
    bound();
    one_core();
    fallback();
    copies();
    bad_input();
    return check_done();
}
