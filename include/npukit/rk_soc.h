/* SPDX-License-Identifier: MIT */
/* Per-SoC numbers of the RK NPU family: one row per SoC, never a branch. */
#ifndef NPUKIT_RK_SOC_H
#define NPUKIT_RK_SOC_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CBUF of one RK3588 core (facts E.1; spec "Bank = 32 KB"): the numbers of the SoC rows
 * below, named because the bank-split formulas (rk_cbuf.h) are written in them. */
#define NPK_RK_CBUF_BANKS 12u    /* DATA_BANK + WEIGHT_BANK */
#define NPK_RK_BANK_BYTES 32768u /* one CBUF bank: 32 KB */

typedef struct npk_rk_soc {
    const char *name;      /* "rk3588" */
    unsigned cores;        /* NPU cores (core_mask bits) */
    unsigned cbuf_banks;   /* CBUF banks per core */
    unsigned bank_bytes;   /* bytes per CBUF bank */
    unsigned k_max_single; /* largest K one operation completes (raw, dtype-independent) */
    unsigned n_max;        /* largest N per task (13-bit DPU channel) */
    unsigned m_max;        /* largest M per task (11-bit DATA_SIZE0 height) */
    unsigned grains_max;   /* FEATURE_GRAINS field limit (10 bits) */
    bool validated;        /* numbers checked on a board */
    const char *source;    /* where the numbers come from */
} npk_rk_soc;

/* NULL for an unknown name. */
const npk_rk_soc *npk_rk_soc_find(const char *name);
/* RK3588, the validated part. */
const npk_rk_soc *npk_rk_soc_default(void);
/* The table, for listing: count and i-th row. */
unsigned npk_rk_soc_count(void);
const npk_rk_soc *npk_rk_soc_at(unsigned i);

#ifdef __cplusplus
}
#endif
#endif
