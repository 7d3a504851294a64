/* SPDX-License-Identifier: MIT */
/* Dense arithmetic shared by the CPU reference and the simulator: batch fp16 conversions
 * (F16C when the CPU has it, chosen at run time; NEON on every AArch64 CPU) and a double GEMM
 * (CBLAS dgemm when a BLAS can be opened, common/blas.h, else a blocked loop). */
#ifndef NPUKIT_COMMON_DENSE_H
#define NPUKIT_COMMON_DENSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* f[i] = npk_f16_to_f32(h[i]) for n elements, bit for bit (signalling NaNs included). */
void npk_f16_to_f32_n(const uint16_t *h, float *f, size_t n);
/* h[i] = npk_f32_to_f16(f[i]) for n elements, bit for bit. */
void npk_f32_to_f16_n(const float *f, uint16_t *h, size_t n);
/* The same, and whether some f[i] is a finite float beyond fp16's largest finite value
 * (|f| > 65504), which the rounding turns into an infinity or 65504: what a caller that
 * must not hand the NPU a changed value checks. Infinities and NaNs are not beyond: they
 * convert to themselves. The conversion marks a half of 65504 or beyond as it makes it (in its
 * vector registers), and only a marked run's floats are looked at again. */
bool npk_f32_to_f16_n_beyond(const float *f, uint16_t *h, size_t n);
/* `runs` runs of `run` fp16 elements, little-endian and consecutive at src (any alignment), to
 * floats at dst + r * stride, bit for bit as npk_f16_to_f32. */
void npk_f16le_to_f32_runs(const uint8_t *src, size_t run, size_t runs, float *dst, size_t stride);
/* The conversions' path: "f16c", "neon" or "portable"; npk_dense_force_portable(true) pins the
 * portable path of these and of every caller that asks npk_dense_use_avx2 (tests compare the
 * two). */
const char *npk_dense_f16_path(void);
void npk_dense_force_portable(bool on);
/* True when the CPU has AVX2 (with the OS saving its state) and the portable path is not
 * pinned: vector loops elsewhere choose by it at run time. */
bool npk_dense_use_avx2(void);
/* The same with FMA as well (the fused multiply-add the fp32 kernels round once with). */
bool npk_dense_use_avx2_fma(void);
/* The same for AVX-512 F, BW and VNNI (with the OS saving the ZMM and opmask state). */
bool npk_dense_use_avx512_vnni(void);

/* True when npk_dgemm goes through CBLAS (opening the BLAS if not yet). */
bool npk_dense_uses_blas(void);
typedef void npk_dgemm_fn(uint32_t m, uint32_t n, uint32_t k, const double *a, size_t lda,
                          const double *b, size_t ldb, double *c, size_t ldc);
/* C[M][N] = A[M][K] . B[K][N], row-major double with leading dimensions. Without BLAS each
 * element is summed over k in increasing order, exactly as a plain i-k-j loop would. */
void npk_dgemm(uint32_t m, uint32_t n, uint32_t k, const double *a, size_t lda, const double *b,
               size_t ldb, double *c, size_t ldc);
/* The same always through the loop: every product is formed, so Inf * 0 gives NaN (a BLAS
 * may skip zero operands). */
void npk_dgemm_plain(uint32_t m, uint32_t n, uint32_t k, const double *a, size_t lda,
                     const double *b, size_t ldb, double *c, size_t ldc);

/* The same in fp32 (CBLAS sgemm, else the loop in increasing k). */
void npk_sgemm(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda, const float *b,
               size_t ldb, float *c, size_t ldc);

#endif
