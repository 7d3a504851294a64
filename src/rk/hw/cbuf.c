/* SPDX-License-Identifier: MIT */
/* The CBUF scheduler's formulas, ceilings and validity rules. Every constant is from the
 * spec's "M-tiling scheduler" and "Small-K validity" sections unless a comment says otherwise. */
#include <stddef.h>
#include <stdio.h>

#include "rk_cbuf.h"

/* The CBUF facts of a precision (its row). A precision that is no matmul input has none; the
 * formulas then answer with int8's, as they are only asked after the input was checked. */
static const npk_rk_prec_row *cbuf_row(npk_rk_prec p)
{
    const npk_rk_prec_row *r = npk_rk_input_row(p);
    return r ? r : npk_rk_input_row(NPK_PREC_INT8);
}

/* The reference K of the linear fit ("int8 uses the same formula at effective K = K/2"). */
static uint32_t fit_reference_k(npk_rk_prec p) { return cbuf_row(p)->fit_ref_k; }

int npk_rk_sched_fit_base(npk_rk_prec p, uint32_t k)
{
    int s = (int)fit_reference_k(p);
    /* 0xB1 - 15*(K/S - 1) == 0xB1 - 15*(K - S)/S; C division truncates toward zero. */
    return 0xB1 - (15 * ((int)k - s)) / s;
}

int npk_rk_sched_fit_slope(npk_rk_prec p, uint32_t k)
{
    return (int)((15u * k) / fit_reference_k(p));
}

uint32_t npk_rk_sched_fit_value(npk_rk_prec p, uint32_t m, uint32_t k)
{
    /* mg rounds up (facts C.3, the later form) so the data banks always hold the tile. */
    int mg = m > 64 ? (int)((m + 63) / 64) : 1;
    int v = npk_rk_sched_fit_base(p, k) - npk_rk_sched_fit_slope(p, k) * (mg - 1);
    return v < (int)NPK_RK_CBUF_FLOOR ? NPK_RK_CBUF_FLOOR : (uint32_t)v;
}

/* The M-tile chain's captures. The spec lists R for K = 1024, 2048, 4096, 6144, 8192 (48, 32,
 * 24, 16, 9) and seven 0x1040 bases (0x84, 0x48, 0x2a, 0x39, 0x48, 0x66, 0x84); facts C.3's
 * vendor captures pair K = 512 with (64, 0x84), 1024 (48, 0x48), 2048 (32, 0x2A), 4096 (24,
 * 0x48) and 8192 (8, 0x84). The bases in order then sit at K = 512, 1024, 2048, (0x39), 4096,
 * 6144, 8192: 0x39's K is not named (3072 is the inference that keeps the order) and has no R,
 * so it is not a row. At 8192 the spec's R (9) is used; the facts' capture says 8. */
static const npk_rk_mtile_row mtile_rows[] = {
    {512, 64, 0x84, "facts C.3 (vendor PC-chain capture)"},
    {1024, 48, 0x48, "spec \"The M-tiling scheduler\"; facts C.3"},
    {2048, 32, 0x2A, "spec \"The M-tiling scheduler\"; facts C.3"},
    {4096, 24, 0x48, "spec \"The M-tiling scheduler\"; facts C.3"},
    {6144, 16, 0x66, "spec \"The M-tiling scheduler\" (R and base in order)"},
    {8192, 9, 0x84, "spec \"The M-tiling scheduler\" (facts C.3: R 8)"},
};

const npk_rk_mtile_row *npk_rk_mtile_row_of(uint32_t k)
{
    for (size_t i = 0; i < sizeof mtile_rows / sizeof mtile_rows[0]; i++)
        if (mtile_rows[i].k == k)
            return &mtile_rows[i];
    return NULL;
}

const npk_rk_mtile_row *npk_rk_mtile_row_at(unsigned i)
{
    return i < sizeof mtile_rows / sizeof mtile_rows[0] ? &mtile_rows[i] : NULL;
}

uint32_t npk_rk_cbuf_con0(npk_rk_prec p, uint32_t m, uint32_t k, int sched)
{
    /* sched 1 emits the formula the hardware was measured with (spec), not an idealised
     * split: the validity rules and ceilings below describe exactly these values. */
    if (sched == NPK_SCHED_CHAIN)
        return npk_rk_mtile_row_of(k) ? npk_rk_mtile_row_of(k)->cbuf_con0 : NPK_RK_CBUF_TEMPLATE;
    return sched == NPK_SCHED_1 ? npk_rk_sched_fit_value(p, m, k) : NPK_RK_CBUF_TEMPLATE;
}

/* Feature elements one data bank of the SoC holds. The precision rows count them in a 32 KB
 * bank, the geometry their facts were measured on; another bank size scales them. */
enum { REFERENCE_BANK_BYTES = 32768 };
static uint32_t bank_elems(const npk_rk_soc *soc, const npk_rk_prec_row *r)
{
    return (uint32_t)((uint64_t)r->bank_elems * soc->bank_bytes / REFERENCE_BANK_BYTES);
}

/* The native multi-M batch rules (rk_cbuf.h). */
static const npk_rk_batch_rule batch_rules[] = {
    {NPK_PREC_INT4, 16, 16384, 2,
     "spec \"0x107c — entries per activation slice\" (K/16 confirmed for int4 by fuzz, "
     "Exp-2026-07-07; min(M/2, 16384/K) rows/submit) and CNA_DMA_CON1 (the stride lever for "
     "mc_phys = 2H)"},
};

const npk_rk_batch_rule *npk_rk_batch_rule_of(npk_rk_prec p)
{
    for (size_t i = 0; i < sizeof batch_rules / sizeof batch_rules[0]; i++)
        if (batch_rules[i].prec == p)
            return &batch_rules[i];
    return NULL;
}

uint32_t npk_rk_batch_gate(const npk_rk_batch_rule *r, uint32_t k)
{
    return r ? k / r->entry_elems : 0;
}

uint32_t npk_rk_batch_budget(const npk_rk_soc *soc, const npk_rk_batch_rule *r)
{
    soc = npk_rk_soc_or_default(soc);
    return r ? (uint32_t)((uint64_t)r->budget_elems * soc->bank_bytes / REFERENCE_BANK_BYTES) : 0;
}

uint32_t npk_rk_batch_rows(const npk_rk_soc *soc, const npk_rk_batch_rule *r, uint32_t lines,
                           uint32_t k, uint32_t line_stride)
{
    if (!r || !k || line_stride != npk_rk_batch_gate(r, k))
        return 0;
    uint32_t rows = lines / r->lines_per_row, budget = npk_rk_batch_budget(soc, r) / k;
    return rows < budget ? rows : budget;
}

uint32_t npk_rk_cbuf_data_entries(const npk_rk_soc *soc, npk_rk_prec p, uint32_t k)
{
    const uint64_t entry = npk_rk_soc_or_default(soc)->cbuf_entry_bytes;
    const uint64_t bytes = (uint64_t)k * npk_rk_prec_bits(p) / 8;
    return (uint32_t)((bytes + entry - 1) / entry);
}

uint32_t npk_rk_bank_elems(const npk_rk_soc *soc, npk_rk_prec p)
{
    return bank_elems(npk_rk_soc_or_default(soc), cbuf_row(p));
}

uint32_t npk_rk_cbuf_con0_banks(const npk_rk_soc *soc, npk_rk_prec p, uint32_t m, uint32_t k)
{
    soc = npk_rk_soc_or_default(soc);
    const unsigned banks = soc->cbuf_banks;
    /* Data banks that hold the tile rounded up to whole 64-row groups (facts C.3 closed
     * form), weight banks the rest of the 12. */
    uint64_t rows = 64ull * ((m + 63) / 64);
    uint64_t bytes = rows * k * cbuf_row(p)->cbuf_bytes;
    uint64_t d = (bytes + soc->bank_bytes - 1) / soc->bank_bytes;
    if (d < 1)
        d = 1;
    if (d > banks - 1)
        d = banks - 1;
    return (uint32_t)(((banks - d) << 4) | d);
}

bool npk_rk_cbuf_split(const npk_rk_soc *soc, uint32_t v, unsigned *data_bank,
                       unsigned *weight_bank)
{
    const unsigned banks = npk_rk_soc_or_default(soc)->cbuf_banks;
    unsigned d = v & 0xf, w = (v >> 4) & 0xf;
    if (data_bank)
        *data_bank = d;
    if (weight_bank)
        *weight_bank = w;
    return d + w == banks && d >= 1 && d <= banks - 1;
}

uint32_t npk_rk_tile_elems(const npk_rk_soc *soc, npk_rk_prec p)
{
    /* the precision row counts them on the 32 KB banks they were measured on (two banks'
     * worth: 32768 fp16, 65536 int8/int4); another bank size scales them as it does a bank */
    soc = npk_rk_soc_or_default(soc);
    return (uint32_t)((uint64_t)cbuf_row(p)->tile_elems * soc->bank_bytes / REFERENCE_BANK_BYTES);
}

uint32_t npk_rk_rows_per_tile(const npk_rk_soc *soc, npk_rk_prec p, uint32_t k)
{
    return k ? npk_rk_tile_elems(soc, p) / k : 0;
}

uint32_t npk_rk_feature_grains(const npk_rk_soc *soc, npk_rk_prec p, uint32_t m, uint32_t k)
{
    uint32_t r = npk_rk_rows_per_tile(soc, p, k);
    return m + 1 < r ? m + 1 : r;
}

static bool is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

/* The sched-1 validity rules, checked in this order; the bounds are the precision row's. */
typedef enum sched1_rule {
    RULE_DESCRIBED, /* the precision has sched-1 facts at all */
    RULE_SMALL_K,   /* K >= k_min */
    RULE_WRONG_K,   /* K below wrong_k */
    RULE_MEASURED,  /* a power of two in k_lo..k_hi */
} sched1_rule;

static const struct {
    sched1_rule rule;
    const char *why; /* printf format; the arguments are listed per rule in rule_fails() */
} sched1_rules[] = {
    {RULE_DESCRIBED, "sched 1 is described only for %s"},
    {RULE_SMALL_K, "%s sched 1 needs K >= %u (below it the MAC array emits zeros at M=1 and "
                   "garbage at M>1)"},
    {RULE_WRONG_K, "%s sched 1 gives wrong rows at K >= %u; use sched 0 or a K-split"},
    {RULE_MEASURED, "%s sched 1 is measured only at power-of-two K in %u..%u"},
};

/* The precisions with sched-1 facts, as text ("int8/fp16"). */
static void described_list(char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (unsigned p = 0; npk_rk_prec_name((npk_rk_prec)p); p++) {
        const npk_rk_prec_row *r = npk_rk_input_row((npk_rk_prec)p);
        if (r && r->sched1.k_min && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "/" : "",
                                  npk_rk_prec_name((npk_rk_prec)p));
    }
}

/* Whether rule i rejects K; then the message is printed into msg. */
static bool rule_fails(unsigned i, npk_rk_prec p, uint32_t k, char *msg, size_t size)
{
    const npk_rk_prec_row *r = npk_rk_input_row(p);
    const npk_rk_sched1 *f = r ? &r->sched1 : NULL;
    const char *name = npk_rk_prec_name(p) ? npk_rk_prec_name(p) : "?";
    char list[64];
    switch (sched1_rules[i].rule) {
    case RULE_DESCRIBED:
        if (f && f->k_min)
            return false;
        described_list(list, sizeof list);
        snprintf(msg, size, sched1_rules[i].why, list);
        return true;
    case RULE_SMALL_K:
        if (k >= f->k_min)
            return false;
        snprintf(msg, size, sched1_rules[i].why, name, f->k_min);
        return true;
    case RULE_WRONG_K:
        if (!f->wrong_k || k < f->wrong_k)
            return false;
        snprintf(msg, size, sched1_rules[i].why, name, f->wrong_k);
        return true;
    case RULE_MEASURED:
        if (is_pow2(k) && k >= f->k_lo && k <= f->k_hi)
            return false;
        snprintf(msg, size, sched1_rules[i].why, name, f->k_lo, f->k_hi);
        return true;
    }
    return false;
}

/* The M-tile chain at (p, K): a captured K, and its R rows of p must fit the row's data banks
 * (the captures hold int8 rows; fp16 rows at K = 6144 and 8192 would not fit: an inference
 * from the bank split, the captures do not name their dtype). */
static bool mtile_valid(npk_rk_prec p, uint32_t k, char *msg, size_t size, const char **why)
{
    const npk_rk_mtile_row *r = npk_rk_mtile_row_of(k);
    const npk_rk_prec_row *pr = npk_rk_input_row(p);
    if (!r) {
        snprintf(msg, size, "the M-tile chain's values are captured at K = 512, 1024, 2048, "
                            "4096, 6144, 8192 only");
        *why = msg;
        return false;
    }
    const npk_rk_soc *soc = npk_rk_soc_or_default(NULL);
    unsigned data = 0, weight = 0;
    npk_rk_cbuf_split(soc, r->cbuf_con0, &data, &weight);
    uint64_t bytes = (uint64_t)r->rows * k * npk_rk_prec_bits(p) / 8;
    if (!pr || bytes > (uint64_t)data * soc->bank_bytes) {
        snprintf(msg, size,
                 "the M-tile chain's %u rows of %s K=%u (%llu bytes) exceed its %u data banks",
                 r->rows, pr ? npk_rk_prec_name(p) : "?", k, (unsigned long long)bytes, data);
        *why = msg;
        return false;
    }
    return true;
}

bool npk_rk_sched_valid(npk_rk_prec p, uint32_t k, int sched, const char **why)
{
    /* the reason names the dtype and its bounds: printed per thread, valid until the next
     * call on the same thread */
    static _Thread_local char msg[160];
    const char *dummy;
    if (!why)
        why = &dummy;
    *why = "";
    if (sched == NPK_SCHED_0)
        return true;
    if (sched == NPK_SCHED_CHAIN)
        return mtile_valid(p, k, msg, sizeof msg, why);
    if (sched != NPK_SCHED_1) {
        *why = "the schedule must be 0, 1 or chain";
        return false;
    }
    for (unsigned i = 0; i < sizeof sched1_rules / sizeof sched1_rules[0]; i++)
        if (rule_fails(i, p, k, msg, sizeof msg)) {
            *why = msg;
            return false;
        }
    return true;
}

uint32_t npk_rk_sched1_rows(const npk_rk_soc *soc, npk_rk_prec p, uint32_t k)
{
    soc = npk_rk_soc_or_default(soc);
    const npk_rk_prec_row *r = npk_rk_input_row(p);
    if (!k || !r || !r->sched1.row_group)
        return 0;
    uint32_t rows = (soc->cbuf_banks - 1) * bank_elems(soc, r) / k;
    return rows / r->sched1.row_group * r->sched1.row_group;
}

uint32_t npk_rk_m_ceiling(const npk_rk_soc *soc, npk_rk_prec p, uint32_t k, int sched)
{
    soc = npk_rk_soc_or_default(soc);
    if (!k || !npk_rk_sched_valid(p, k, sched, NULL))
        return 0;
    /* sched 0: one data bank holds the feature tile: 32 KB / (K * eb); int4 rows x K <= 16384 */
    if (sched == NPK_SCHED_0)
        return bank_elems(soc, cbuf_row(p)) / k;
    if (sched == NPK_SCHED_CHAIN) /* one tile's rows; more rows are more chained tiles */
        return npk_rk_mtile_row_of(k)->rows;
    const npk_rk_sched1 *f = &cbuf_row(p)->sched1;
    if (k <= f->envelope_k)
        return f->envelope_m;
    return npk_rk_sched1_rows(soc, p, k);
}
