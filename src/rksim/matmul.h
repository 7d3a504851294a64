/* SPDX-License-Identifier: MIT */
/* The CNA + CORE + DPU matmul as the registers configure it: decoded geometry, the effects
 * the hazard table can impose, and the executor. */
#ifndef NPUKIT_RKSIM_MATMUL_H
#define NPUKIT_RKSIM_MATMUL_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_regs.h"
#include "rksim/result.h"
#include "rksim/sim.h"

/* Everything the operation needs, read from the register files through the register table. */
typedef struct rksim_mm {
    int in, out;                /* npk_rk_prec of the operands and of the output */
    bool line;                  /* CONV_CON1.GROUP_LINE_OFF: line (row-major) feature */
    uint32_t m, k, n;           /* CNA: DATAIN_HEIGHT, DATAIN_CHANNEL, WEIGHT_KERNELS */
    uint32_t n_dpu;             /* channels the DPU writes: DATA_CUBE_CHANNEL.CHANNEL + 1 */
    uint32_t feat, weight, dst; /* FEATURE_DATA_ADDR, DCOMP_ADDR0, DST_BASE_ADDR */
    unsigned in_bits, out_bits;
    /* feature geometry (bytes) */
    uint64_t row_bytes;   /* line: LINE_STRIDE*16; cube: 16 (one atom per row) */
    uint64_t group_bytes; /* cube: LINE_STRIDE*16 per group of 4 rows */
    int64_t surf_bytes;   /* cube: (LINE_STRIDE + SURF_STRIDE)*16 per C2 channels */
    uint32_t c2;          /* feature channels per 16-byte atom: 128 / in_bits */
    uint32_t ntile;       /* weight N group (16 fp16, 32 int8, 64 int4) */
    uint32_t factor;      /* F = 2*ob/eb: SIZE_E + 1 and SURFACE_ADD units */
    /* output geometry (bytes) */
    uint64_t out_line_bytes;    /* (NOTCH_ADDR_1 + 1) * 16 */
    uint64_t out_surf_bytes;    /* DST_SURF_STRIDE */
    uint64_t out_tile_bytes;    /* SURFACE_ADD: from one N-tile to the next */
    uint64_t out_tile_expected; /* F * DST_SURF_STRIDE, what the geometry implies */
    uint32_t c2o;               /* output channels per 16-byte atom: 128 / out_bits */
    /* CBUF */
    uint32_t cbuf_con0;
    unsigned data_bank, weight_bank;
    bool fp32tofp16; /* OUT_CVT_SCALE.FP32TOFP16_EN */
    uint32_t bs_cfg;
    uint32_t size_e;     /* BS_OW_CFG.SIZE_E_0 */
    uint32_t row_offset; /* CNA_PAD_CON0.PAD_TOP: int8 output row m lands at row m + v */
    uint32_t wdma_rows;  /* WDMA_SIZE_1.HEIGHT_WDMA + 1: rows the write DMA writes */
    bool data_reuse;     /* CBUF_CON0.DATA_REUSE: the feature the CBUF holds, not fetched */
    /* on-NPU K accumulation (facts C.6): the EW stage adds the running fp16 partial, read at
     * DPU_RDMA_SRC_BASE_ADDR as the board-validated rocket userspace program places it
     * ([N/8][M][8] atoms, surfaces EW_SURF_STRIDE bytes apart) */
    bool accumulate;
    uint32_t partial_addr;
    uint64_t ew_surf_bytes;
} rksim_mm;

/* DPU_RDMA_FEATURE_MODE_CFG.COMB_USE of the K-accumulation: bit 0 "MRDMA and ERDMA read the
 * same data", bit 2 "read data to ERDMA" (rocket userspace's field note, facts C.6). With the
 * main read on (MRDMA_DISABLE 0) and any other value, the DPU waits for a main-RDMA feed that
 * never comes: the MRDMA trap. */
enum { RKSIM_COMB_USE_ACCUMULATE = 5 };

/* What the hazard table makes of an operation (faithful mode). */
typedef struct rksim_effect {
    bool wedge;         /* never completes: nothing written */
    bool zeros;         /* writes zeros */
    uint32_t good_rows; /* rows >= this read feature row (m % good_rows); 0: all good */
    uint32_t k_limit;   /* the reduction covers only the first k_limit channels; 0: all */
    bool stale_feature; /* rows come from the CBUF's previous feature (hazard 2) */
    bool saturate16;    /* int16 accumulator saturates at +-32767 (hazard 18) */
    bool strict16;      /* ideal: refuse a sum beyond int16 instead */
    bool no_row_bound;  /* the write DMA writes every row, past HEIGHT_WDMA (hazard 22) */
    char why[224];
} rksim_effect;

/* Decode and check the matmul registers; false with r = "unsupported" naming the register.
 * `accumulate`: the op-enable runs the DPU_RDMA with its main read armed for the
 * K-accumulation (COMB_USE 5), so the EW stage adds the running partial. */
bool rksim_mm_decode(rksim *s, const rksim_regfile *rf, bool accumulate, rksim_mm *mm,
                     uint32_t *hazards, rksim_core_result *r);

/* Whether the hazard table describes a decoded field's deviation from the value the decoder
 * requires (hazard 7's truncated DPU channel count, hazard 15's SIZE_E 0 and the conv's
 * BS_CFG): true accepts the value, recording the hazard and applying the ideal mode's
 * correction to mm; false leaves the refusal to the decoder. */
bool rksim_hazards_accept(rksim *s, npk_rk_field_id f, uint32_t value, rksim_mm *mm,
                          uint32_t *fired);

/* Run the hazard table's operation rows against one decoded matmul on one core. */
void rksim_hazards_op(rksim *s, unsigned core, const rksim_regfile *rf, rksim_mm *mm,
                      bool first_in_job, rksim_effect *e, uint32_t *fired, rksim_core_result *r);

/* Read operands, compute, write the output. False with r set on a DMA fault or a refusal. */
bool rksim_mm_run(rksim *s, unsigned core, const rksim_mm *mm, const rksim_effect *e,
                  bool first_in_job, rksim_core_result *r);

/* The floats b[N][K] of mm's packed weights (WEIGHT_BYTES at packed, inside the live buffers),
 * through the simulator's cache of what it decoded (weights.c), for the int64 path of integer
 * sums beyond the fp32 chunk; NULL when out of memory. */
const float *rksim_weights_floats(rksim *s, const rksim_mm *mm, const uint8_t *packed);

/* C[M][N] = A[M][K] . B[N][K]^T in fp32 with B the floats of mm's packed weights, decoded a
 * few N tiles at a time, each chunk multiplied while still in the CPU's caches
 * (weights_stream.c; no cache of decoded floats): fp16 by rksim_gemm_cols, integer sums by
 * rksim_sgemm_nt. False when out of memory. */
bool rksim_weights_sgemm(rksim *s, const rksim_mm *mm, const uint8_t *packed, const float *a,
                         float *c);

/* The same in the byte kernels' form (rksim_gemm_i4, rksim_gemm_i8); NULL when out of memory. */
const uint8_t *rksim_weights_bytes(rksim *s, const rksim_mm *mm, const uint8_t *packed);

/* The byte kernels' weights: rksim_gemm_bytes_size of them for K x N, blocks of 16 columns,
 * filled a column's K-run of 32 at a time (kt = 0 first) by the dtype's put. */
enum { RKSIM_GEMM_BYTES_COLUMNS = 16 };
size_t rksim_gemm_bytes_size(uint32_t k, uint32_t n);

/* One byte kernel call: `rows` rows of the biased feature ap (row stride k) against one block
 * of 16 columns (blk, their weight sums at sums), results at c with row stride ldc. */
typedef void rksim_bytes_kernel(const uint8_t *ap, uint32_t k, const uint8_t *blk,
                                const int32_t *sums, float *c, size_t ldc, unsigned rows);
/* A byte kernel and its feature form: the feature enters as a + bias (unsigned bytes), in
 * groups of `rows` rows. */
typedef struct rksim_bytes_form {
    uint8_t bias;
    unsigned rows;
    rksim_bytes_kernel *kernel;
} rksim_bytes_form;
/* C = A . B^T through form's kernel over every block (gemm_bytes.c); false when out of memory. */
bool rksim_gemm_bytes(uint32_t m, uint32_t n, uint32_t k, const float *a, const uint8_t *kb,
                      float *c, const rksim_bytes_form *form);

/* int4 GEMM on byte products (gemm_int4.c), when the CPU has AVX2: C[M][N] = A[M][K] .
 * B[N][K]^T exact, as floats, from int4-valued floats A and the weights in the byte form
 * (put from 16 packed bytes: 32 nibbles). False when out of memory. */
bool rksim_gemm_i4_available(void);
void rksim_gemm_i4_put(uint8_t *kb, uint32_t k, uint32_t n, uint32_t col, uint32_t kt,
                       const uint8_t *src);
bool rksim_gemm_i4(uint32_t m, uint32_t n, uint32_t k, const float *a, const uint8_t *kb, float *c);

/* int8 GEMM on byte dot products (gemm_int8.c), when the CPU has AVX-512 VNNI, for K up to
 * 1024 (every sum exact in the float results): the same contract, the weights put from 32
 * int8. */
bool rksim_gemm_i8_available(void);
void rksim_gemm_i8_put(uint8_t *kb, uint32_t k, uint32_t n, uint32_t col, uint32_t kt,
                       const int8_t *src);
bool rksim_gemm_i8(uint32_t m, uint32_t n, uint32_t k, const float *a, const uint8_t *kb, float *c);

/* The fp16 matmul's GEMM (gemm_cols.c): C[M][N] = A . B^T, each result the fp32 fused
 * multiply-add chain over k = 0, 1, ... from +0 on every path. A is first rearranged into
 * blocks of RKSIM_GEMM_COLS_ROWS rows, k-major (rksim_gemm_cols_a_floats floats, the rows past M
 * zero); pack_a returns the k from which every A element is finite. B is N columns of k floats
 * ldb apart (the decode's layout); only k < kk is multiplied, which leaves every result as it
 * is when the weights at k >= kk are +-0 and A is finite there (rksim_gemm_cols_live_k: the
 * smallest such kk of the weights). */
enum { RKSIM_GEMM_COLS_ROWS = 16 };
size_t rksim_gemm_cols_a_floats(uint32_t m, uint32_t k);
uint32_t rksim_gemm_cols_pack_a(const float *a, uint32_t m, uint32_t k, float *at);
uint32_t rksim_gemm_cols_live_k(const float *b, size_t ldb, uint32_t n, uint32_t k);
void rksim_gemm_cols(const float *at, uint32_t m, uint32_t k, uint32_t kk, const float *b,
                     size_t ldb, uint32_t n, float *c, size_t ldc);
/* Its paths: the one a call takes, and a test's choice (AUTO: the fastest the CPU has; a
 * path the CPU lacks falls back to the next one down; npk_dense_force_portable pins the
 * portable one). */
typedef enum rksim_gemm_cols_path {
    RKSIM_GEMM_COLS_AUTO,
    RKSIM_GEMM_COLS_PORTABLE,
    RKSIM_GEMM_COLS_AVX2,
    RKSIM_GEMM_COLS_AVX512,
    RKSIM_GEMM_COLS_NEON, /* aarch64 */
} rksim_gemm_cols_path;
rksim_gemm_cols_path rksim_gemm_cols_path_used(void);
void rksim_gemm_cols_force(rksim_gemm_cols_path p);

/* fn(ctx, lo, hi) over [0, count): with `two`, the halves [0, count/2) and [count/2, count) at
 * once, the second on a thread of its own (the whole range here when no thread starts), which
 * is allowed the caller's CPUs but the one the caller is on. The simulator's memory-bound
 * passes and its GEMMs use both cores this way. */
typedef void rksim_range_fn(void *ctx, uint32_t lo, uint32_t hi);
void rksim_split2(rksim_range_fn *fn, void *ctx, uint32_t count, bool two);

/* True when the arithmetic goes through CBLAS (common/blas.h: opened by this call if not yet). */
bool rksim_gemm_uses_blas(void);
/* Between begin and end the sgemm calls run on the calling thread only (the caller runs its own
 * threads, each with single-threaded calls); the BLAS's thread count is set back after the last
 * end of overlapping users. Nothing without a BLAS. */
void rksim_blas_single_begin(void);
void rksim_blas_single_end(void);
/* C[M][N] = A[M][K] . B[N][K]^T in fp32 (CBLAS sgemm when available). */
void rksim_sgemm_nt(uint32_t m, uint32_t n, uint32_t k, const float *a, uint32_t lda,
                    const float *b, uint32_t ldb, float *c, uint32_t ldc);
/* The same for integer operands held exactly in floats, exact in int64: K is cut into chunks
 * whose fp32 sums cannot round (|a|,|b| <= max_abs); part is scratch of M*N floats. */
/* Whether rksim_sgemm_nt itself is exact on such operands at this K (one chunk). */
bool rksim_igemm_fp32_exact(uint32_t k, uint32_t max_abs);
void rksim_igemm_nt(uint32_t m, uint32_t n, uint32_t k, const float *a, const float *b, int64_t *c,
                    uint32_t max_abs, float *part);

#endif
