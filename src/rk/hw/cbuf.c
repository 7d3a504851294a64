/* The CBUF scheduler's formulas, ceilings and validity rules. Every constant is from the
 * spec's "M-tiling scheduler" and "Small-K validity" sections unless a comment says otherwise. */
#include <stddef.h>

#include "npukit/rk_cbuf.h"

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

uint32_t npk_rk_cbuf_con0(npk_rk_prec p, uint32_t m, uint32_t k, int sched)
{
    /* sched 1 emits the formula the hardware was measured with (spec), not an idealised
     * split: the validity rules and ceilings below describe exactly these values. */
    return sched == NPK_SCHED_1 ? npk_rk_sched_fit_value(p, m, k) : NPK_RK_CBUF_TEMPLATE;
}

uint32_t npk_rk_cbuf_con0_banks(npk_rk_prec p, uint32_t m, uint32_t k)
{
    /* Data banks that hold the tile rounded up to whole 64-row groups (facts C.3 closed
     * form), weight banks the rest of the 12. */
    uint64_t rows = 64ull * ((m + 63) / 64);
    uint64_t bytes = rows * k * cbuf_row(p)->cbuf_bytes;
    uint64_t d = (bytes + NPK_RK_BANK_BYTES - 1) / NPK_RK_BANK_BYTES;
    if (d < 1)
        d = 1;
    if (d > NPK_RK_CBUF_BANKS - 1)
        d = NPK_RK_CBUF_BANKS - 1;
    return (uint32_t)(((NPK_RK_CBUF_BANKS - d) << 4) | d);
}

bool npk_rk_cbuf_split(uint32_t v, unsigned *data_bank, unsigned *weight_bank)
{
    unsigned d = v & 0xf, w = (v >> 4) & 0xf;
    if (data_bank)
        *data_bank = d;
    if (weight_bank)
        *weight_bank = w;
    return d + w == NPK_RK_CBUF_BANKS && d >= 1 && d <= NPK_RK_CBUF_BANKS - 1;
}

uint32_t npk_rk_rows_per_tile(npk_rk_prec p, uint32_t k)
{
    return k ? cbuf_row(p)->tile_elems / k : 0;
}

uint32_t npk_rk_feature_grains(npk_rk_prec p, uint32_t m, uint32_t k)
{
    uint32_t r = npk_rk_rows_per_tile(p, k);
    return m + 1 < r ? m + 1 : r;
}

static bool is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

bool npk_rk_sched_valid(npk_rk_prec p, uint32_t k, int sched, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    *why = "";
    if (sched == NPK_SCHED_0)
        return true;
    if (sched != NPK_SCHED_1) {
        *why = "the schedule must be 0 or 1";
        return false;
    }
    switch (p) {
    case NPK_PREC_FP16:
        if (k < 96) {
            *why = "fp16 sched 1 needs K >= 96 (below it the MAC array emits zeros at M=1 and "
                   "garbage at M>1)";
            return false;
        }
        if (!is_pow2(k)) {
            /* Off powers of two the fit takes fractional bank steps (invalid splits). */
            *why = "fp16 sched 1 is used only at power-of-two K (128..1024)";
            return false;
        }
        if (k >= 2048) {
            /* facts C.3: "fp16 sched=1 gives wrong rows when M>8 at Kp>=2048". */
            *why = "fp16 sched 1 gives wrong rows at K >= 2048; use sched 0 or a K-split";
            return false;
        }
        return true;
    case NPK_PREC_INT8:
        if (k < 256) {
            *why = "int8 sched 1 needs K >= 256 (below it the MAC array emits zeros at M=1 and "
                   "garbage at M>1)";
            return false;
        }
        if (!is_pow2(k) || k < 512 || k > 4096) {
            /* The int8 ceilings are measured at K = 512..4096 only, powers of two; below 512
             * the formula takes fractional bank steps (as fp16 does at K=128). */
            *why = "int8 sched 1 is measured only at power-of-two K in 512..4096";
            return false;
        }
        return true;
    default:
        *why = "sched 1 is described only for fp16 and int8";
        return false;
    }
}

uint32_t npk_rk_m_ceiling(npk_rk_prec p, uint32_t k, int sched)
{
    if (!k || !npk_rk_sched_valid(p, k, sched, NULL))
        return 0;
    if (sched == NPK_SCHED_0) {
        /* One data bank holds the feature tile: 32 KB / (K * eb); int4 rows x K <= 16384. */
        return cbuf_row(p)->bank_elems / k;
    }
    if (p == NPK_PREC_FP16) {
        /* K=128 needs half-bank steps and its envelope is non-monotonic: cap at 256. */
        if (k <= 128)
            return 256;
        return 180224 / k; /* 11 banks x 32 KB / (K x 2 B) */
    }
    /* int8: the truncated mg_max x 64 of the measurements (weights stay CBUF-resident). */
    return 64 * ((11 * 512) / k);
}
