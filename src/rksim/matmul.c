/* SPDX-License-Identifier: MIT */
/* The matmul executor: reads the feature and the weights through bounds-checked DMA at the
 * addresses the registers give (geometry in matmul_decode.c), computes with the hardware's
 * numerics, applies the hazard table's effects, and writes the output geometry.
 *
 * Numerics (facts I.1): fp16 products are exact in fp32 and accumulate in fp32; int8 -> int32
 * exact; int4 -> int16 saturating at +-32767 (hazard 18); fp32 -> fp16 output rounds to
 * nearest even.
 *
 * Integer sums are exact: rksim_igemm_nt sums in fp32 chunks whose every partial sum is an
 * integer below 2^24 in magnitude, so no addition rounds in any order (see gemm.c). int4's
 * saturation is that of the int16 output conversion (spec "The precision enum": OUT_PRECISION
 * int16 "is why the output accumulator saturates at 0x7fff"; the CACC partials are wider, facts
 * I.1 after NVDLA), so the model is clamp(exact sum): clamping the exact sum once at the end is
 * the model itself, whatever order the array adds its partials in. The sum is bounded by
 * K * 64 <= 2^20 for every K the registers can express, so no wider type is ever needed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_types.h"
#include "rksim/elements.h"
#include "rksim/matmul.h"
#include "rksim/timing.h"

/* A DMA window: one bounds check for a whole operand when it lies in one buffer, else a check
 * per access so the first address outside the live buffers is the one reported. */
typedef struct dma_window {
    rksim_mem *mem;
    uint64_t lo;
    uint8_t *base;
    bool write;
    const char *what;
    rksim_fault fault;
} dma_window;

static void win_open(dma_window *w, rksim_mem *mem, uint64_t lo, uint64_t hi, bool write,
                     const char *what)
{
    memset(w, 0, sizeof *w);
    w->mem = mem;
    w->lo = lo;
    w->write = write;
    w->what = what;
    w->base = hi > lo ? rksim_dma(mem, lo, hi - lo, write, what, NULL) : NULL;
}

static uint8_t *win_at(dma_window *w, uint64_t addr, uint64_t len)
{
    if (w->base)
        return w->base + (addr - w->lo);
    return rksim_dma(w->mem, addr, len, w->write, w->what, &w->fault);
}

static bool win_fail(const dma_window *w, rksim_core_result *r)
{
    return rksim_result_dma_fault(r, w->what, w->fault.iova, w->fault.len);
}

/* Feature address of element (m, k) relative to FEATURE_DATA_ADDR, in bits (int4 is a nibble). */
static uint64_t feature_bit(const rksim_mm *mm, uint32_t m, uint32_t k)
{
    if (mm->line)
        return (m * mm->row_bytes) * 8 + (uint64_t)k * mm->in_bits;
    return ((k / mm->c2) * (uint64_t)mm->surf_bytes + (m / 4) * mm->group_bytes + (m % 4) * 16) *
               8 +
           (uint64_t)(k % mm->c2) * mm->in_bits;
}

/* Read the feature into a[M][K]; with a NULL only check that every access is inside the live
 * buffers (done before the scratch is allocated, so a wild program cannot make the simulator
 * allocate more than the memory it really maps). */
static bool gather_feature(rksim *s, const rksim_mm *mm, float *a, rksim_core_result *r)
{
    /* one past the farthest byte: the end of the last row (line) or of the last row's atom in
     * the last surface (cube) */
    uint64_t end = mm->line ? (mm->m - 1) * mm->row_bytes + (uint64_t)mm->k * mm->in_bits / 8
                            : ((mm->k - 1) / mm->c2) * (uint64_t)mm->surf_bytes +
                                  ((mm->m - 1) / 4) * mm->group_bytes + ((mm->m - 1) % 4) * 16 + 16;
    dma_window w;
    win_open(&w, &s->mem, mm->feat, mm->feat + end, false, "feature read");
    if (!a && w.base)
        return true;
    uint32_t atom = 128 / mm->in_bits; /* elements per 16-byte atom */
    if (a && w.base && !mm->line) {
        /* a cube in one window: a surface's rows are runs of whole atoms, 4 rows a group (all
         * of them when the groups are adjacent), decoded a group at a time */
        const uint32_t step = mm->group_bytes == 4 * 16 ? mm->m : 4;
        for (uint32_t k0 = 0; k0 < mm->k; k0 += atom)
            for (uint32_t m0 = 0; m0 < mm->m; m0 += step) {
                const uint32_t rows = mm->m - m0 < step ? mm->m - m0 : step;
                const uint8_t *p = win_at(&w, mm->feat + feature_bit(mm, m0, k0) / 8, 0);
                float *dst = a + (size_t)m0 * mm->k + k0;
                if (mm->k - k0 >= atom)
                    rksim_load_runs((npk_rk_prec)mm->in, p, atom, rows, dst, mm->k);
                else /* the last surface's part */
                    for (uint32_t j = 0; j < rows; j++)
                        rksim_load_run((npk_rk_prec)mm->in, p + (size_t)j * 16, 0, mm->k - k0,
                                       dst + (size_t)j * mm->k);
            }
        return true;
    }
    for (uint32_t m = 0; m < mm->m; m++) {
        float *dst = a ? a + (size_t)m * mm->k : NULL;
        if (mm->line && w.base) { /* a line-mode row is one run */
            if (dst)
                rksim_load_run((npk_rk_prec)mm->in,
                               win_at(&w, mm->feat + feature_bit(mm, m, 0) / 8, 0), 0, mm->k, dst);
            continue;
        }
        for (uint32_t k0 = 0; k0 < mm->k; k0 += atom) {
            uint64_t bit = feature_bit(mm, m, k0);
            const uint8_t *p = win_at(&w, mm->feat + bit / 8, 16);
            if (!p)
                return win_fail(&w, r);
            if (dst)
                rksim_load_run((npk_rk_prec)mm->in, p, (bit % 8) / 4,
                               mm->k - k0 < atom ? mm->k - k0 : atom, dst + k0);
        }
    }
    return true;
}

/* Weights: [N/G][K/32][G][32] (facts D.1); one DMA of WEIGHT_BYTES, decoded (or found
 * decoded) by weights.c. Its packed bytes, or NULL with r set. */
static const uint8_t *weight_bytes(rksim *s, const rksim_mm *mm, rksim_core_result *r)
{
    uint64_t bytes = (uint64_t)mm->k * mm->n * mm->in_bits / 8;
    dma_window w;
    win_open(&w, &s->mem, mm->weight, mm->weight + bytes, false, "weight read");
    if (!w.base) {
        win_at(&w, mm->weight, bytes);
        win_fail(&w, r);
    }
    return w.base;
}

static bool out_of_memory(const rksim_mm *mm, rksim_core_result *r)
{
    return rksim_result_fail(r, RKSIM_UNSUPPORTED, "simulator out of memory for a %ux%ux%u matmul",
                             mm->m, mm->k, mm->n);
}

/* C = A . B^T on the operands as floats, in the path the dtype and K allow: a byte kernel
 * (bytes), fp32 (in_float: fp16, or integer sums that cannot round), else exact int64 chunks
 * into ci. */
static bool multiply(rksim *s, const rksim_mm *mm, bool bytes, bool in_float, uint32_t max_abs,
                     const float *a, float *cf, int64_t *ci, rksim_core_result *r)
{
    const uint8_t *packed = weight_bytes(s, mm, r);
    if (!packed)
        return false;
    if (in_float && !bytes)
        return rksim_weights_sgemm(s, mm, packed, a, cf) || out_of_memory(mm, r);
    const void *b = bytes ? (const void *)rksim_weights_bytes(s, mm, packed)
                          : (const void *)rksim_weights_floats(s, mm, packed);
    if (!b)
        return out_of_memory(mm, r);
    if (bytes)
        return (mm->in == NPK_PREC_INT4 ? rksim_gemm_i4 : rksim_gemm_i8)(mm->m, mm->n, mm->k, a, b,
                                                                         cf) ||
               out_of_memory(mm, r);
    rksim_igemm_nt(mm->m, mm->n, mm->k, a, b, ci, max_abs, cf);
    return true;
}

/* Hazard 2: the CBUF's copy of the previous job's first feature (bounded). */
static void remember_feature(rksim_core *c, const rksim_mm *mm, const float *a)
{
    enum { MAX_CACHED = 1 << 20 }; /* floats */
    uint32_t rows = mm->m;
    if ((uint64_t)rows * mm->k > MAX_CACHED)
        rows = MAX_CACHED / mm->k;
    float *n = realloc(c->feat_cache, (size_t)rows * mm->k * sizeof *n);
    if (!n) {
        c->feat_valid = false;
        return;
    }
    memcpy(n, a, (size_t)rows * mm->k * sizeof *n);
    c->feat_cache = n;
    c->feat_rows = rows;
    c->feat_k = mm->k;
    c->feat_addr = mm->feat;
    c->feat_valid = true;
}

/* CNA_CBUF_CON0.DATA_REUSE (spec register listing; a rocket userspace library sets it to skip
 * the DRAM fetch of a feature tile "already resident from the previous task on this core",
 * and its fp16 figure of facts G runs with it): the operation takes the feature the core's
 * last operation left in the CBUF and reads nothing at FEATURE_DATA_ADDR. The facts describe
 * reuse of the same tile only, so the model requires the resident feature's precision, M, K
 * and data banks to be this operation's; anything else (a reset in between, nothing resident,
 * another shape) is refused as not described rather than guessed. */
static bool resident_fits(const rksim_core *c, const rksim_mm *mm, rksim_core_result *r)
{
    if (c->resident_valid && c->resident_in == mm->in && c->resident_m == mm->m &&
        c->resident_k == mm->k && c->resident_banks == mm->data_bank)
        return true;
    if (!c->resident_valid)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                                 "unsupported by the model: CNA_CBUF_CON0 (0x1040) DATA_REUSE "
                                 "with no feature resident on the core (none since a reset)");
    return rksim_result_fail(r, RKSIM_UNSUPPORTED,
                             "unsupported by the model: CNA_CBUF_CON0 (0x1040) DATA_REUSE of a "
                             "%s %ux%u feature in %u data bank(s) by a %s %ux%u operation in %u "
                             "(reuse is described for the same tile only)",
                             npk_rk_prec_name((npk_rk_prec)c->resident_in), c->resident_m,
                             c->resident_k, c->resident_banks,
                             npk_rk_prec_name((npk_rk_prec)mm->in), mm->m, mm->k, mm->data_bank);
}

/* The feature this operation leaves in the CBUF (as fetched or reused). */
static void keep_resident(rksim_core *c, const rksim_mm *mm, const float *a)
{
    size_t count = (size_t)mm->m * mm->k;
    if (count > c->resident_cap) {
        float *n = realloc(c->resident, count * sizeof *n);
        if (!n) {
            c->resident_valid = false;
            return;
        }
        c->resident = n;
        c->resident_cap = count;
    }
    if (c->resident != a)
        memcpy(c->resident, a, count * sizeof *a);
    c->resident_valid = true;
    c->resident_in = mm->in;
    c->resident_m = mm->m;
    c->resident_k = mm->k;
    c->resident_banks = mm->data_bank;
}

/* A stale value as an operand of this operation's input precision: the CBUF's copy may come
 * from a job of another precision (an fp16 fraction, NaN or 65504 before an int4 job), and an
 * integer operation only ever sees operands in its range; rounded to nearest and clamped, NaN
 * as 0. The model keeps values, not the CBUF's bytes, so this stands in for reading them
 * again in the new precision; what it guarantees is that the arithmetic stays exact and the
 * same on every host (the int4 byte kernel takes only -8..7). */
static float as_operand(const npk_rk_prec_row *row, float v)
{
    if (row->is_float)
        return v;
    if (v != v)
        return 0.0f;
    v = nearbyintf(v);
    return v < (float)row->op_min   ? (float)row->op_min
           : v > (float)row->op_max ? (float)row->op_max
                                    : v;
}

static void apply_feature_effects(rksim_core *c, const rksim_mm *mm, const rksim_effect *e,
                                  float *a)
{
    if (e->stale_feature && c->feat_valid) {
        const npk_rk_prec_row *row = npk_rk_input_row((npk_rk_prec)mm->in);
        uint32_t rows = c->feat_rows < mm->m ? c->feat_rows : mm->m;
        uint32_t kk = c->feat_k < mm->k ? c->feat_k : mm->k;
        for (uint32_t m = 0; m < rows; m++)
            for (uint32_t k = 0; k < kk; k++)
                a[(size_t)m * mm->k + k] =
                    as_operand(row, c->feat_cache[(size_t)m * c->feat_k + k]);
    }
    if (e->good_rows)
        for (uint32_t m = e->good_rows; m < mm->m; m++)
            memcpy(a + (size_t)m * mm->k, a + (size_t)(m % e->good_rows) * mm->k,
                   mm->k * sizeof *a);
    if (e->k_limit)
        for (uint32_t m = 0; m < mm->m; m++)
            for (uint32_t k = e->k_limit; k < mm->k; k++)
                a[(size_t)m * mm->k + k] = 0.0f;
}

/* Output element (m, n) lives in the atom of (tile, surface, row); see matmul_decode.c. */
static uint64_t out_atom(const rksim_mm *mm, uint32_t m, uint32_t n)
{
    uint32_t t = n / mm->ntile, sfc = (n % mm->ntile) / mm->c2o;
    return t * mm->out_tile_bytes + sfc * mm->out_surf_bytes + m * mm->out_line_bytes;
}

/* The single-window output write, a block of rows per run: the destination rows of a run are
 * consecutive atoms in memory, the source rows stay within a few pages. Blocks of rows are
 * independent (disjoint atoms), so two threads may take half of them each. */
enum { OUT_BLOCK_ROWS = 16, OUT_SPLIT_BYTES = 1 << 21 };

typedef struct out_blocks {
    const rksim_mm *mm;
    dma_window *w; /* with base: only read */
    const float *cf;
    const int64_t *ci;
    const uint32_t *run_n0; /* nruns + 1 run starts, the last nw */
    uint32_t nruns, rows, v;
} out_blocks;

static void store_blocks(void *ctx, uint32_t lo, uint32_t hi)
{
    const out_blocks *o = ctx;
    const rksim_mm *mm = o->mm;
    for (uint32_t b = lo; b < hi; b++) {
        uint32_t m0 = b * OUT_BLOCK_ROWS;
        uint32_t mb = o->rows - m0 < OUT_BLOCK_ROWS ? o->rows - m0 : OUT_BLOCK_ROWS;
        for (uint32_t i = 0; i < o->nruns; i++) {
            uint32_t n0 = o->run_n0[i], lanes = o->run_n0[i + 1] - n0;
            size_t at = (size_t)m0 * mm->n + n0;
            rksim_store_rows((npk_rk_prec)mm->out,
                             win_at(o->w, mm->dst + out_atom(mm, m0 + o->v, n0), 0),
                             mm->out_line_bytes, o->cf ? o->cf + at : NULL,
                             o->ci ? o->ci + at : NULL, mm->n, lanes, mb);
        }
    }
}

/* Result row m goes to output row m + v (0x1068's row offset); rows at or past the write DMA's
 * bound (HEIGHT_WDMA + 1, none when the hazard table lifts it) are lost, every written row is
 * bounds-checked like any DMA. */
static bool write_output(rksim *s, const rksim_mm *mm, const float *cf, const int64_t *ci,
                         bool bounded, rksim_core_result *r)
{
    const uint32_t ob = mm->out_bits / 8, nw = mm->n_dpu, v = mm->row_offset;
    const uint32_t rows = !bounded                    ? mm->m
                          : v >= mm->wdma_rows        ? 0
                          : mm->wdma_rows - v < mm->m ? mm->wdma_rows - v
                                                      : mm->m;
    if (!rows)
        return true;
    uint64_t hi = 0;
    for (uint32_t n = 0; n < nw; n += mm->c2o) {
        uint64_t a = out_atom(mm, rows - 1 + v, n) + 16;
        if (a > hi)
            hi = a;
    }
    dma_window w;
    win_open(&w, &s->mem, mm->dst, mm->dst + hi, true, "output write");
    /* Runs of atoms adjacent in memory (a line-mode row is one): their offsets are the same in
     * every row but for m * line, so they are found once. Without a single window each atom
     * is its own run, so a fault names the first atom outside the live buffers. */
    uint32_t natoms = (nw + mm->c2o - 1) / mm->c2o, nruns = 0;
    uint32_t *run_n0 = malloc((size_t)(natoms + 1) * sizeof *run_n0);
    if (!run_n0)
        return rksim_result_fail(r, RKSIM_UNSUPPORTED, "simulator out of memory");
    for (uint32_t n0 = 0; n0 < nw; n0 += mm->c2o)
        if (!w.base || n0 == 0 ||
            out_atom(mm, 0, n0) != out_atom(mm, 0, run_n0[nruns - 1]) +
                                       (uint64_t)(n0 - run_n0[nruns - 1]) / mm->c2o * 16)
            run_n0[nruns++] = n0;
    run_n0[nruns] = nw;
    bool ok = true;
    if (w.base) {
        out_blocks ob_ctx = {mm, &w, cf, ci, run_n0, nruns, rows, v};
        /* memory-bound: a second thread from a few MiB of output on */
        rksim_split2(store_blocks, &ob_ctx, (rows + OUT_BLOCK_ROWS - 1) / OUT_BLOCK_ROWS,
                     (uint64_t)rows * nw * ob >= OUT_SPLIT_BYTES);
    }
    for (uint32_t m = 0; !w.base && m < rows && ok; m++)
        for (uint32_t i = 0; i < nruns; i++) {
            uint32_t n0 = run_n0[i], lanes = run_n0[i + 1] - n0;
            uint8_t *p = win_at(&w, mm->dst + out_atom(mm, m + v, n0), (uint64_t)lanes * ob);
            if (!p) {
                ok = win_fail(&w, r);
                break;
            }
            size_t at = (size_t)m * mm->n + n0;
            rksim_store_run((npk_rk_prec)mm->out, p, cf ? cf + at : NULL, ci ? ci + at : NULL,
                            lanes);
        }
    free(run_n0);
    return ok;
}

/* The K accumulation's EW add (facts C.6): the running fp16 partial, read per element from its
 * atom cube at SRC_BASE_ADDR (where the board-validated program keeps it), joins each fp32
 * result in fp32 (the DPU's float path, one rounding) before the output converter rounds the
 * sum to fp16 once. Every partial is read before anything is written, so the output may
 * overwrite it in place. */
static bool add_partial(rksim *s, const rksim_mm *mm, float *cf, rksim_core_result *r)
{
    const uint32_t c2 = 8; /* fp16 lanes per 16-byte atom */
    const uint32_t surfaces = (mm->n_dpu + c2 - 1) / c2;
    uint64_t len = (uint64_t)(surfaces - 1) * mm->ew_surf_bytes + (uint64_t)mm->m * 16;
    rksim_fault f = {0};
    const uint8_t *p =
        rksim_dma(&s->mem, mm->partial_addr, len, false, "K-accumulation partial read", &f);
    if (!p) {
        r->fault_iova = f.iova;
        return rksim_result_fail(r, RKSIM_FAULT,
                                 "DMA fault: K-accumulation partial read of %llu bytes at IOVA "
                                 "0x%llx is outside every live buffer",
                                 (unsigned long long)f.len, (unsigned long long)f.iova);
    }
    for (uint32_t m = 0; m < mm->m; m++)
        for (uint32_t n = 0; n < mm->n_dpu; n++) {
            uint16_t h;
            memcpy(&h, p + (n / c2) * mm->ew_surf_bytes + (uint64_t)m * 16 + (n % c2) * 2, 2);
            float *c = &cf[(size_t)m * mm->n + n];
            *c = *c + npk_f16_to_f32(h);
        }
    return true;
}

bool rksim_mm_run(rksim *s, unsigned core, const rksim_mm *mm, const rksim_effect *e,
                  bool first_in_job, rksim_core_result *r)
{
    rksim_core *cr = &s->core[core];
    size_t mk = (size_t)mm->m * mm->k, nk = (size_t)mm->n * mm->k, mn = (size_t)mm->m * mm->n;
    rksim_fault f = {0};
    if (!rksim_dma(&s->mem, mm->weight, nk * mm->in_bits / 8, false, "weight read", &f)) {
        r->fault_iova = f.iova;
        return rksim_result_fail(r, RKSIM_FAULT,
                                 "DMA fault: weight read of %llu bytes at IOVA 0x%llx is outside "
                                 "every live buffer",
                                 (unsigned long long)f.len, (unsigned long long)f.iova);
    }
    if (mm->data_reuse ? !resident_fits(cr, mm, r) : !gather_feature(s, mm, NULL, r))
        return false;
    float *a = rksim_scratch(s, 0, mk * sizeof *a);
    const npk_rk_prec_row *row = npk_rk_input_row((npk_rk_prec)mm->in);
    bool fp = row->is_float;
    /* integer operands are at most |op_min| in magnitude (int8 128, int4 8); their sums are
     * exact in the fp32 results when K fits one chunk (every int4 task, int8 to K = 1024),
     * else in int64 */
    const uint32_t max_abs = (uint32_t)-row->op_min;
    bool in_float = fp || rksim_igemm_fp32_exact(mm->k, max_abs);
    /* integers on byte products when the CPU has them: exact like the rest, results as floats */
    const bool bytes = in_float && ((mm->in == NPK_PREC_INT4 && rksim_gemm_i4_available()) ||
                                    (mm->in == NPK_PREC_INT8 && rksim_gemm_i8_available()));
    float *cf = rksim_scratch(s, 1, mn * sizeof *cf);
    int64_t *ci = in_float ? NULL : rksim_scratch(s, 2, mn * sizeof *ci);
    bool ok = false;
    if (!a || !cf || (!in_float && !ci)) {
        out_of_memory(mm, r);
        goto done;
    }
    if (mm->data_reuse)
        memcpy(a, cr->resident, mk * sizeof *a);
    else if (!gather_feature(s, mm, a, r))
        goto done;
    keep_resident(cr, mm, a);
    apply_feature_effects(cr, mm, e, a);
    if (first_in_job)
        remember_feature(cr, mm, a);

    if (!multiply(s, mm, bytes, in_float, max_abs, a, cf, ci, r))
        goto done;
    /* an accumulator narrower than 32 bits (int4's int16) saturates (hazard 18); the float
     * results are exact integers, so they compare as floats */
    const int64_t top = ((int64_t)1 << (row->acc_bits - 1)) - 1;
    const float topf = (float)top;
    const bool narrow = !fp && row->acc_bits < 32;
    /* the float results are scanned by a vector loop up to the first value outside */
    for (size_t i = narrow && !ci ? rksim_first_outside(cf, mn, topf) : 0; narrow && i < mn; i++) {
        if (ci ? ci[i] <= top && ci[i] >= -top : cf[i] <= topf && cf[i] >= -topf)
            continue;
        int64_t v = ci ? ci[i] : (int64_t)cf[i];
        if (e->strict16) {
            rksim_result_fail(r, RKSIM_UNSUPPORTED,
                              "unsupported by the model (ideal): int4 sum %lld at element "
                              "%zu leaves the int16 output (DPU_DATA_FORMAT)",
                              (long long)v, i);
            goto done;
        }
        r->hazards |= RKSIM_HZ_BIT(RKSIM_HZ_INT4_SATURATION);
        if (ci)
            ci[i] = v > 0 ? top : -top;
        else
            cf[i] = v > 0 ? topf : -topf;
    }
    if (mm->accumulate && !e->zeros && !add_partial(s, mm, cf, r))
        goto done;
    const bool bounded = !e->no_row_bound;
    ok = e->zeros ? write_output(s, mm, NULL, NULL, bounded, r)
                  : write_output(s, mm, ci ? NULL : cf, ci, bounded, r);
    if (!ok && mm->out_tile_bytes != mm->out_tile_expected)
        r->hazards |= RKSIM_HZ_BIT(RKSIM_HZ_SURFACE_ADD_WILD);
    r->model_us +=
        npk_rk_time_matmul_us_at(s->soc, s->freq_hz, mm->in, mm->m, mm->k, mm->n,
                                 (double)((mm->data_reuse ? 0 : mk) + nk) * mm->in_bits / 8 +
                                     (mm->accumulate ? (double)mm->m * mm->n_dpu * 2 : 0),
                                 (double)mm->m * mm->n_dpu * mm->out_bits / 8);
done:
    return ok;
}
