/* SPDX-License-Identifier: MIT */
/* RK operand layout throughput next to memcpy.
 *
 * For each operation at a realistic size (B 4096×4096, A 512×4096, C 512×4096) it times RUNS
 * runs of the operation and RUNS runs of a memcpy of the same number of bytes, interleaved in
 * the same process, and prints the medians, GB/s for both, and the ratio (operation GB/s over
 * memcpy GB/s). Each case first runs both, a pair after the other, for WARM_MS (at least
 * WARM_RUNS pairs), and in the timed pairs each goes first in every other pair: for about ten
 * runs after a case that moved 32 MB the caches still held its state, and the first place in a
 * pair was slower too. Timed straight after one warm-up run, the operation always first, the
 * fp16 cube pack of A read 0.76 of memcpy by the median of 20 invocations; warmed this way,
 * 0.87-0.91 (docs/rk-programs.md).
 * "Bytes" is what the operation reads from its source (the user matrix for a pack, the packed
 * block for an unpack); for int4 packing the output is half of that.
 *
 * The SDP's atom layout (npk_rk_atom_pack/unpack) is measured the same way.
 *
 * Usage: bench_rk_pack [runs [filter]]   runs default 7; with a filter only the operations whose
 * name contains it run (e.g. "pack_b", "cube"), to profile one of them. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/measure.h"
#include "rk/layout/rk_layout.h"
#include "rk/program/rk_sdp.h"

static const double PACK_GOAL = 0.8;
enum { WARM_RUNS = 3, WARM_MS = 20 };

static void *alloc_filled(size_t bytes, uint8_t mask)
{
    uint8_t *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "bench_rk_pack: out of memory for %zu bytes\n", bytes);
        exit(1);
    }
    for (size_t i = 0; i < bytes; i++) /* touch every page now, outside the timings */
        p[i] = (uint8_t)((i * 2654435761u) >> 13) & mask;
    return p;
}

/* One operation under test: run() performs it once and returns its status. */
typedef struct bench_case {
    const char *name;
    size_t bytes; /* bytes read from the source */
    npk_status (*run)(const struct bench_case *c);
    /* arguments */
    npk_rk_prec prec;
    npk_rk_block blk;
    size_t rows, cols;
    void *user;
    void *packed;
    size_t packed_size;
} bench_case;

static npk_status run_pack_b(const bench_case *c)
{
    npk_rk_cmatrix b = {c->user, c->rows, c->cols, c->cols};
    return npk_rk_pack_b(c->prec, &b, (npk_rk_range){0, c->rows}, (npk_rk_range){0, c->cols},
                         c->packed, c->packed_size);
}

static npk_status run_pack_a(const bench_case *c)
{
    npk_rk_cmatrix a = {c->user, c->rows, c->cols, c->cols};
    return npk_rk_pack_a(&c->blk, &a, (npk_rk_range){0, c->rows}, (npk_rk_range){0, c->cols},
                         c->packed, c->packed_size);
}

static npk_status run_unpack_c(const bench_case *c)
{
    npk_rk_matrix m = {c->user, c->rows, c->cols, c->cols};
    return npk_rk_unpack_c(&c->blk, c->packed, c->packed_size, &m, (npk_rk_range){0, c->rows},
                           (npk_rk_range){0, c->cols});
}

static npk_status run_accumulate_c(const bench_case *c)
{
    npk_rk_matrix m = {c->user, c->rows, c->cols, c->cols};
    return npk_rk_accumulate_c(&c->blk, c->packed, c->packed_size, &m, (npk_rk_range){0, c->rows},
                               (npk_rk_range){0, c->cols});
}

/* A region's K slices (SLICES blocks one after another in c->packed) added into C: one by one,
 * C read and written per slice, against all at once (npk_rk_sum_slices_c), C read and written
 * once: how the runtime finishes a job's slices of one output region. */
enum { SLICES = 4 };

static npk_status run_slices_one_by_one(const bench_case *c)
{
    npk_rk_matrix m = {c->user, c->rows, c->cols, c->cols};
    const size_t each = c->packed_size / SLICES;
    npk_status s = NPK_OK;
    for (size_t j = 0; s == NPK_OK && j < SLICES; j++)
        s = npk_rk_accumulate_c(&c->blk, (uint8_t *)c->packed + j * each, each, &m,
                                (npk_rk_range){0, c->rows}, (npk_rk_range){0, c->cols});
    return s;
}

static npk_status run_slices_at_once(const bench_case *c)
{
    npk_rk_matrix m = {c->user, c->rows, c->cols, c->cols};
    const size_t each = c->packed_size / SLICES;
    const void *src[SLICES];
    size_t size[SLICES];
    for (size_t j = 0; j < SLICES; j++) {
        src[j] = (uint8_t *)c->packed + j * each;
        size[j] = each;
    }
    return npk_rk_sum_slices_c(&c->blk, src, size, SLICES, &m, (npk_rk_range){0, c->rows},
                               (npk_rk_range){0, c->cols}, false);
}

/* The SDP's atom layout (rk_sdp.h): the feature pack and the output unpack of an M x N block. */
static npk_status run_atom_pack(const bench_case *c)
{
    return npk_rk_atom_pack(c->prec, c->rows, c->cols, c->user, c->cols, c->packed,
                            c->packed_size);
}

static npk_status run_atom_unpack(const bench_case *c)
{
    return npk_rk_atom_unpack(c->prec, c->rows, c->cols, c->packed, c->packed_size, c->user,
                              c->cols);
}

static int measure(bench_case *c, int runs, void *copy_src, void *copy_dst)
{
    double op[64], cp[64];
    if (c->run(c) != NPK_OK) { /* a warm-up that also checks the arguments */
        fprintf(stderr, "bench_rk_pack: %s: %s\n", c->name, npk_last_error());
        return 1;
    }
    const double warm_until = npk_now_ms() + WARM_MS;
    for (int r = 1; r < WARM_RUNS || npk_now_ms() < warm_until; r++) {
        c->run(c);
        memcpy(copy_dst, copy_src, c->bytes);
    }
    for (int r = 0; r < runs; r++) {
        /* each goes first in every other pair */
        const bool op_first = r % 2 == 0;
        double t0 = npk_now_ms();
        if (op_first)
            c->run(c);
        else
            memcpy(copy_dst, copy_src, c->bytes);
        double t1 = npk_now_ms();
        if (op_first)
            memcpy(copy_dst, copy_src, c->bytes);
        else
            c->run(c);
        double t2 = npk_now_ms();
        op[r] = op_first ? t1 - t0 : t2 - t1;
        cp[r] = op_first ? t2 - t1 : t1 - t0;
    }
    double op_ms = npk_median(op, (size_t)(runs)), cp_ms = npk_median(cp, (size_t)(runs));
    double gb = (double)c->bytes / 1e9;
    double op_gbs = gb / (op_ms / 1e3), cp_gbs = gb / (cp_ms / 1e3);
    printf("%-34s %8.1f %9.3f %7.2f %10.3f %7.2f %6.2f", c->name, (double)c->bytes / 1e6, op_ms,
           op_gbs, cp_ms, cp_gbs, op_gbs / cp_gbs);
    /* the packs (pack_a, pack_b) have a goal: at least PACK_GOAL of memcpy's speed */
    if (!strncmp(c->name, "pack_", 5))
        printf("  (goal >= %.2f: %s)", PACK_GOAL, op_gbs / cp_gbs >= PACK_GOAL ? "met" : "MISSED");
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    const char *filter = argc > 2 ? argv[2] : NULL;
    if (runs < 1 || runs > 64 || argc > 3) {
        fprintf(stderr, "usage: bench_rk_pack [runs 1..64 [filter]]\n");
        return 2;
    }
    enum { BK = 4096, BN = 4096, AM = 512, AK = 4096, CM = 512, CN = 4096 };
    size_t biggest = (size_t)BK * BN * 2;
    void *copy_src = alloc_filled(biggest, 0xff), *copy_dst = alloc_filled(biggest, 0xff);
    void *user = alloc_filled(biggest, 0xff), *packed = alloc_filled(biggest, 0xff);
    /* int4 user values must be in [-8, 7]: a second matrix masked to one nibble */
    void *user4 = alloc_filled((size_t)BK * BN, 0x07);
    /* C: normal floats (1.0 and 0.25), so accumulation never meets slow subnormals */
    size_t c_elems = (size_t)CM * CN;
    float *cuser = alloc_filled(c_elems * 4, 0), *cpacked = alloc_filled(c_elems * 4, 0);
    float *cslices = alloc_filled(SLICES * c_elems * 4, 0);
    for (size_t i = 0; i < c_elems; i++) {
        cuser[i] = 1.0f;
        cpacked[i] = 0.25f;
    }
    for (size_t i = 0; i < SLICES * c_elems; i++)
        cslices[i] = 0.25f;

    bench_case cases[] = {
        {"pack_b fp16 4096x4096", (size_t)BK * BN * 2, run_pack_b, NPK_PREC_FP16, {0}, BK, BN,
         user, packed, 0},
        {"pack_b int8 4096x4096", (size_t)BK * BN, run_pack_b, NPK_PREC_INT8, {0}, BK, BN, user,
         packed, 0},
        {"pack_b int4 4096x4096", (size_t)BK * BN, run_pack_b, NPK_PREC_INT4, {0}, BK, BN, user4,
         packed, 0},
        {"pack_a fp16 line 512x4096", (size_t)AM * AK * 2, run_pack_a, NPK_PREC_FP16,
         npk_rk_a_block(NPK_PREC_FP16, NPK_MODE_LINE, AM, AK), AM, AK, user, packed, 0},
        {"pack_a fp16 cube 512x4096", (size_t)AM * AK * 2, run_pack_a, NPK_PREC_FP16,
         npk_rk_a_block(NPK_PREC_FP16, NPK_MODE_CUBE, AM, AK), AM, AK, user, packed, 0},
        {"pack_a int8 line 512x4096", (size_t)AM * AK, run_pack_a, NPK_PREC_INT8,
         npk_rk_a_block(NPK_PREC_INT8, NPK_MODE_LINE, AM, AK), AM, AK, user, packed, 0},
        {"pack_a int8 cube 512x4096", (size_t)AM * AK, run_pack_a, NPK_PREC_INT8,
         npk_rk_a_block(NPK_PREC_INT8, NPK_MODE_CUBE, AM, AK), AM, AK, user, packed, 0},
        {"pack_a int4 line 512x4096", (size_t)AM * AK, run_pack_a, NPK_PREC_INT4,
         npk_rk_a_block(NPK_PREC_INT4, NPK_MODE_LINE, AM, AK), AM, AK, user4, packed, 0},
        {"pack_a int4 cube 512x4096", (size_t)AM * AK, run_pack_a, NPK_PREC_INT4,
         npk_rk_a_block(NPK_PREC_INT4, NPK_MODE_CUBE, AM, AK), AM, AK, user4, packed, 0},
        {"unpack_c fp32 line 512x4096", (size_t)CM * CN * 4, run_unpack_c, NPK_PREC_FP32,
         npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_LINE, CM, CN), CM, CN, cuser, cpacked, 0},
        {"unpack_c fp32 cube 512x4096", (size_t)CM * CN * 4, run_unpack_c, NPK_PREC_FP32,
         npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_CUBE, CM, CN), CM, CN, cuser, cpacked, 0},
        {"accumulate_c fp32 line 512x4096", (size_t)CM * CN * 4, run_accumulate_c, NPK_PREC_FP32,
         npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_LINE, CM, CN), CM, CN, cuser, cpacked, 0},
        {"accumulate_c fp32 cube 512x4096", (size_t)CM * CN * 4, run_accumulate_c, NPK_PREC_FP32,
         npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_CUBE, CM, CN), CM, CN, cuser, cpacked, 0},
        {"accumulate_c int16 cube 512x4096", (size_t)CM * CN * 2, run_accumulate_c,
         NPK_PREC_INT16, npk_rk_c_block(NPK_PREC_INT16, NPK_MODE_CUBE, CM, CN), CM, CN, cuser,
         cpacked, 0},
        {"4 slices one by one fp32 512x4096", (size_t)SLICES * CM * CN * 4, run_slices_one_by_one,
         NPK_PREC_FP32, npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_LINE, CM, CN), CM, CN, cuser,
         cslices, 0},
        {"4 slices at once fp32 512x4096", (size_t)SLICES * CM * CN * 4, run_slices_at_once,
         NPK_PREC_FP32, npk_rk_c_block(NPK_PREC_FP32, NPK_MODE_LINE, CM, CN), CM, CN, cuser,
         cslices, 0},
        {"atom_pack fp16 512x4096", (size_t)CM * CN * 2, run_atom_pack, NPK_PREC_FP16, {0}, CM,
         CN, user, packed, 0},
        {"atom_unpack fp16 512x4096", (size_t)CM * CN * 2, run_atom_unpack, NPK_PREC_FP16, {0},
         CM, CN, user, packed, 0},
        {"atom_pack int8 512x4096", (size_t)CM * CN, run_atom_pack, NPK_PREC_INT8, {0}, CM, CN,
         user, packed, 0},
        {"atom_pack fp16 64x2048 (per-channel)", (size_t)64 * 2048 * 2, run_atom_pack,
         NPK_PREC_FP16, {0}, 64, 2048, user, packed, 0},
    };
    printf("medians of %d runs; memcpy copies the same bytes in the same run\n", runs);
    printf("%-34s %8s %9s %7s %10s %7s %6s\n", "operation", "MB", "op ms", "GB/s", "memcpy ms",
           "GB/s", "ratio");
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (filter && !strstr(cases[i].name, filter))
            continue;
        cases[i].packed_size = cases[i].packed == cpacked   ? c_elems * 4
                               : cases[i].packed == cslices ? SLICES * c_elems * 4
                                                            : biggest;
        failed |= measure(&cases[i], runs, copy_src, copy_dst);
    }
    free(cslices);
    free(cpacked);
    free(cuser);
    free(user4);
    free(packed);
    free(user);
    free(copy_dst);
    free(copy_src);
    return failed;
}
