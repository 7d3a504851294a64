/* SPDX-License-Identifier: MIT */
/* The CBUF scheduler's formulas (hardware facts, no choice): the bank split CNA_CBUF_CON0
 * (0x1040) and its linear fit, rows per internal M-tile (FEATURE_GRAINS, 0x1010), the validity
 * rules of the split and the M ceilings (spec "The M-tiling scheduler", "Small-K validity of the
 * 0x1040 schedule"). The planner and the simulator read the same functions; which schedule a
 * task uses is the driver's choice (rk_sched.h). */
#ifndef NPUKIT_RK_CBUF_H
#define NPUKIT_RK_CBUF_H

#include <stdbool.h>
#include <stdint.h>

#include "npukit/rk_soc.h"
#include "npukit/rk_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The formulas that depend on the CBUF's geometry take the SoC row (rk_soc.h; NULL: the
 * default row). */

/* sched 0: the template's one data bank (0x1040 = 0xB1), any K, M within one bank.
 * sched 1: the bank split walks data-ward with M, up to 11 data banks. */
enum { NPK_SCHED_AUTO = -1, NPK_SCHED_0 = 0, NPK_SCHED_1 = 1, NPK_SCHED_CHAIN = 2 };

/* sched CHAIN: the vendor's general-M large-K scheduler — M cut into tiles of R rows, one task
 * per tile, the tasks PC-chained, each doing the full K with the same weights (spec "The
 * M-tiling scheduler": "The single-op large-K scheduler for general M (M>R) follows a
 * nonlinear CBUF heuristic ... no clean closed form"; "0x2000 is the M-tile flag"). Its values
 * are a measured table, one row per K (the spec's R list and 0x1040 bases, facts C.3's vendor
 * PC-chain captures); the later tiles set WEIGHT_REUSE (0x2000). Kept as the spec keeps it, a
 * reference primitive: it re-reads the whole weights per tile ("~22x for M=512, K=4096"), so a
 * K split is the production path on RK3588. */
typedef struct npk_rk_mtile_row {
    uint32_t k;         /* the contraction length the values were captured at */
    uint32_t rows;      /* R: rows per M-tile (FEATURE_GRAINS) */
    uint32_t cbuf_con0; /* the base 0x1040 of every tile (WEIGHT_REUSE added on later tiles) */
    const char *source;
} npk_rk_mtile_row;

/* The row of K, NULL when no capture has it. */
const npk_rk_mtile_row *npk_rk_mtile_row_of(uint32_t k);
/* The i-th row, NULL past the end. */
const npk_rk_mtile_row *npk_rk_mtile_row_at(unsigned i);

/* A precision's native multi-M batch rule (spec "0x107c — entries per activation slice"):
 * CNA_DMA_CON1 at K / entry_elems gates the batch and opens an activation budget of
 * rows x K <= budget_elems, "enabling min(M/2, 16384/K) rows/submit (8 @ K=2048, 32 @ K=512)".
 * The M of that formula counts physical feature lines: the int4 row of K/2 bytes sits at a
 * pitch of K/16 16-byte units = K bytes, two lines per row (the spec's "mc_phys = 2H zero-line
 * padding", 0x107c "the activation-side stride lever" for it), so M lines carry M/2 rows. That
 * reading of M is an inference: the spec gives the formula and its two examples, not M's unit.
 * One row per precision that has such a mode (int4 only); the budget is counted in a 32 KB bank
 * (the precision row's bank_elems) and scales with the SoC's bank as a bank does. */
typedef struct npk_rk_batch_rule {
    npk_rk_prec prec;
    uint32_t entry_elems;   /* the gate: 0x107c = K / entry_elems (int4 16: int8's entry) */
    uint32_t budget_elems;  /* rows x K the gate opens (16384) */
    uint32_t lines_per_row; /* physical feature lines per row (mc_phys = 2H: 2) */
    const char *source;
} npk_rk_batch_rule;

/* The rule of precision p, NULL when p has no native multi-M batch mode described. */
const npk_rk_batch_rule *npk_rk_batch_rule_of(npk_rk_prec p);
/* The gate's LINE_STRIDE for K (K / entry_elems), 0 for K = 0. */
uint32_t npk_rk_batch_gate(const npk_rk_batch_rule *r, uint32_t k);
/* Rows one submit carries on the SoC: min(lines / lines_per_row, budget / K) when line_stride is
 * the gate at K; 0 when the gate is closed (another stride), K is 0 or the lines hold no whole
 * row (lines < lines_per_row: M = 1 in the formula's own unit). */
uint32_t npk_rk_batch_rows(const npk_rk_soc *soc, const npk_rk_batch_rule *r, uint32_t lines,
                           uint32_t k, uint32_t line_stride);
/* The budget in elements on the SoC's bank. */
uint32_t npk_rk_batch_budget(const npk_rk_soc *soc, const npk_rk_batch_rule *r);

#define NPK_RK_CBUF_TEMPLATE 0xB1u /* weight 11, data 1 */
#define NPK_RK_CBUF_FLOOR 0x1Bu    /* weight 1, data 11: lower values hang */

/* The spec's linear fit for clean power-of-two K: base = 0xB1 - 15*(K/S - 1), slope =
 * 15*K/S (S = 256 fp16, 512 int8), both truncated toward zero as the hardware code does;
 * value = base - slope*(mg - 1), mg = max(1, ceil(M/64)), floored at 0x1B. Below the
 * reference K the base climbs above 0xB1 (0xBC at K=64, 0xBE at K=32 for fp16) and at K=128
 * the slope is 7 (half-bank steps): those values are not valid bank splits, which is what the
 * small-K validity rule and the K=128 cap guard against. */
int npk_rk_sched_fit_base(npk_rk_prec p, uint32_t k);
int npk_rk_sched_fit_slope(npk_rk_prec p, uint32_t k);
uint32_t npk_rk_sched_fit_value(npk_rk_prec p, uint32_t m, uint32_t k);

/* The value synthesis writes: sched 0 the template 0xB1; sched 1 the fit above. */
uint32_t npk_rk_cbuf_con0(npk_rk_prec p, uint32_t m, uint32_t k, int sched);
/* The bank-split reading of the fit: DATA_BANK = D = ceil(64*ceil(M/64) * K*eb / 32 KB)
 * clamped to 1..11, WEIGHT_BANK = 12 - D. Equal to the fit at every clean power-of-two K at
 * or above the reference K (each mg step moves one bank from weights to data). */
uint32_t npk_rk_cbuf_con0_banks(const npk_rk_soc *soc, npk_rk_prec p, uint32_t m, uint32_t k);
/* Bank split of a CBUF_CON0 value; false when DATA+WEIGHT != the SoC's banks (12) or DATA
 * leaves no weight bank. */
bool npk_rk_cbuf_split(const npk_rk_soc *soc, uint32_t cbuf_con0, unsigned *data_bank,
                       unsigned *weight_bank);

/* CBUF_CON1 DATA_ENTRIES, the CBUF entries one feature row of K elements fills: ceil(K*eb /
 * entry bytes) (facts C.1 #16; fp16 K/32, int8 ceil(K/64), int4 ceil(K/128) in 64-byte entries). */
uint32_t npk_rk_cbuf_data_entries(const npk_rk_soc *soc, npk_rk_prec p, uint32_t k);

/* Feature elements one data bank of the SoC holds at precision p (fp16 16384, int8 32768, int4
 * 16384 in a 32 KB bank). */
uint32_t npk_rk_bank_elems(const npk_rk_soc *soc, npk_rk_prec p);

/* cbuf_elems, the row budget of the internal M-scheduler at precision p: two banks' worth of
 * elements (32768 fp16, 65536 int8/int4 in 32 KB banks; spec "The M-tiling scheduler"). */
uint32_t npk_rk_tile_elems(const npk_rk_soc *soc, npk_rk_prec p);
/* R = rows per internal M-tile = cbuf_elems / K. */
uint32_t npk_rk_rows_per_tile(const npk_rk_soc *soc, npk_rk_prec p, uint32_t k);
/* FEATURE_GRAINS = min(M + 1, R). */
uint32_t npk_rk_feature_grains(const npk_rk_soc *soc, npk_rk_prec p, uint32_t m, uint32_t k);

/* Whether a schedule is valid for (dtype, K); on false, *why says which rule. */
bool npk_rk_sched_valid(npk_rk_prec p, uint32_t k, int sched, const char **why);
/* The rows the 11 data banks of the widest split hold at K, in the precision's row groups
 * (fp16 180224/K, int8 64*floor(11*512/K)); 0 where sched 1 is not described. Without the
 * validity rules and the K=128 envelope: the simulator's rows-capacity model reads it too. */
uint32_t npk_rk_sched1_rows(const npk_rk_soc *soc, npk_rk_prec p, uint32_t k);
/* The largest M one task computes correctly at this (dtype, K, schedule); 0 when the
 * schedule is not valid there. fp16: sched 0 16384/K, sched 1 180224/K (256 at K <= 128);
 * int8: sched 0 32768/K, sched 1 64*floor(11*512/K) (704/320/128/64 at K=512..4096);
 * int4: sched 0 16384/K (rows x K <= 16384). Not clamped to the register limits. */
uint32_t npk_rk_m_ceiling(const npk_rk_soc *soc, npk_rk_prec p, uint32_t k, int sched);
#ifdef __cplusplus
}
#endif
#endif
