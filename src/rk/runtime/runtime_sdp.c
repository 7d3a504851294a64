/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t in runtime_internal.h */
/* The element-wise spine of the RK runtime: C = A OP B on host arrays, tiled onto SDP tasks
 * (rk_sdp.h), staged in the core's output buffer, chained into jobs and submitted through the
 * state policy (runtime_submit.c).
 *
 * Tiling. A per-element op computes out[i] = a[i] OP b[i] at every position of its three
 * atom-layout buffers alike, so the arrays are read as they are: the flat M x N elements are cut
 * into tasks of up to NPK_RK_EW_TILE elements, each seen as a [rows][FLAT_ATOMS x C2] block (one
 * row when shorter). A per-channel op needs A in the atom layout over its real channels (the
 * operand is indexed by channel), so tiles are [rows][channels] blocks of A packed and C
 * unpacked on the host, the operand's [n0, n0 + channels) range read contiguous. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npukit/fp16.h"
#include "npukit/rk_regs.h"
#include "rk/program/rk_sdp.h"
#include "rk/program/rk_job.h"
#include "policy.h"
#include "runtime_sdp.h"

/* The SDP's task limits: DATA_CUBE_HEIGHT / CHANNEL hold M - 1 and N - 1, so the largest M and
 * N are the fields' largest values plus one (8192 for their 13 bits), read from the register
 * table as the SDP check (synth_sdp_check.c) reads them. */
static uint32_t sdp_max_m(void)
{
    return npk_rk_field_get(NPK_RKF(DPU_DATA_CUBE_HEIGHT, HEIGHT), UINT32_MAX) + 1;
}
static uint32_t sdp_max_n(void)
{
    return npk_rk_field_get(NPK_RKF(DPU_DATA_CUBE_CHANNEL, CHANNEL), UINT32_MAX) + 1;
}
/* A flat tile's row width in atoms: 8 atoms (64 fp16 / int16 channels), so a full tile is
 * NPK_RK_EW_TILE / 64 = 4096 rows, inside sdp_max_m(). */
enum { FLAT_ATOMS = 8 };
/* Staged bytes per job: a job of chained tasks stops growing past this (or the chain). */
#define JOB_BYTES ((uint64_t)8 << 20)

typedef struct tile {
    uint32_t m0, m, n;    /* per channel: the user's rows and channels; flat: count */
    uint64_t n0;          /* per channel: the first channel; flat: the element offset (M and N
                             up to 2^24 each: M x N passes 2^32) */
    uint32_t rows, chans; /* the SDP task's shape */
    bool direct;          /* read and written in the call's device buffers, not staged */
    uint32_t row;         /* row_offset calls: the row of the tile's elements */
    uint64_t a_off, b_off, c_off, a_bytes, b_bytes;
} tile;

static size_t ebytes(npk_rk_prec p) { return npk_rk_sdp_prec_row_of(p)->bytes; }
static uint64_t up64(uint64_t v) { return (v + 63) / 64 * 64; }

/* Whether the call computes position by position whatever the layout: every operand kind but a
 * per-channel vector (indexed by the channel), so the flat arrays are their own layout. */
static bool flat(const npk_rk_ew_call *x) { return x->operand != NPK_EW_PER_CHANNEL; }

/* Values B holds for an immediate operand: the op row's count (batchnorm: scale, shift). */
static unsigned imm_count(const npk_rk_ew_call *x) { return npk_rk_ew_op_immediates(x->op); }

/* Element i of an array of `p` elements as a value (fp16 bits through fp32). */
static double elem(npk_rk_prec p, const void *v, size_t i)
{
    if (p == NPK_PREC_FP16)
        return npk_f16_to_f32(((const uint16_t *)v)[i]);
    if (p == NPK_PREC_INT16)
        return ((const int16_t *)v)[i];
    return ((const int8_t *)v)[i];
}

npk_status npk_rk_ew_check(const npk_rk_ew_call *x, const char *what)
{
    const npk_rk_ew_op_row *op = npk_rk_ew_op_row_of(x->op);
    if (!op)
        return npk_fail(NPK_EINVAL, "%s: op %d is none of the SDP's ops (%s)", what, (int)x->op,
                        npk_rk_ew_op_names());
    if (op->not_simulated)
        return npk_fail(NPK_EUNSUPPORTED, "%s: %s is synthesized only: %s", what, op->name,
                        op->not_simulated);
    if (x->op == NPK_EW_LUT && !x->lut && !x->row_lut)
        return npk_fail(NPK_EINVAL,
                        "%s: lut needs its fitted table: run it through npk_rk_act, "
                        "npk_rk_softmax or npk_rk_matmul_act",
                        what);
    if (!npk_rk_sdp_prec_row_of(x->prec))
        return npk_fail(NPK_EINVAL,
                        "%s: precision %s is not an SDP precision (fp16, int16, int8: the DPU "
                        "lanes are at most 16 bits)",
                        what, npk_rk_prec_name(x->prec) ? npk_rk_prec_name(x->prec) : "?");
    char kinds[64];
    if ((unsigned)x->operand > NPK_EW_IMMEDIATE)
        return npk_fail(NPK_EINVAL,
                        "%s: operand mode %d is not per-element, per-channel, none or immediate",
                        what, (int)x->operand);
    if (!(npk_rk_ew_op_operands(op) & NPK_EW_OPERAND_BIT(x->operand)))
        return npk_fail(NPK_EINVAL, "%s: %s takes %s, not %s", what, op->name,
                        npk_rk_ew_operand_names(npk_rk_ew_op_operands(op), kinds, sizeof kinds),
                        npk_rk_ew_operand_name(x->operand));
    const bool needs_b = x->operand != NPK_EW_NO_OPERAND;
    if (!x->a || (needs_b && !x->b) || !x->c)
        return npk_fail(NPK_EINVAL, "%s: NULL %s", what, !x->a ? "A" : !x->c ? "C" : "B");
    if (!x->m || !x->n)
        return npk_fail(NPK_EINVAL, "%s: M=%u N=%u: both must be at least 1", what, x->m, x->n);
    if (x->m > NPK_RK_EW_MAX_DIM || x->n > NPK_RK_EW_MAX_DIM)
        return npk_fail(NPK_ELIMIT, "%s: %s=%u exceeds %u", what, x->m > x->n ? "M" : "N",
                        x->m > x->n ? x->m : x->n, NPK_RK_EW_MAX_DIM);
    if (x->operand == NPK_EW_IMMEDIATE) { /* the values must fit their stage registers */
        npk_rk_sdp t = npk_rk_sdp_default(x->op, x->operand, x->prec, 1, 1);
        for (unsigned i = 0; i < imm_count(x); i++)
            t.imm[i] = elem(x->prec, x->b, i);
        npk_status s = npk_rk_sdp_check(&t);
        if (s) {
            char why[256]; /* the check's message, before a new one replaces it */
            snprintf(why, sizeof why, "%s", npk_last_error());
            return npk_fail(s, "%s: %s", what, why);
        }
    }
    return NPK_OK;
}

/* RC_SDPKW: the transient row says what entering the SDP does (by default nothing: the NPU
 * stays warm) and whether it becomes the precision mode the matmul rows key on (it does not). */
void npk_rk_ew_enter(npk_rk *rt)
{
    const npk_rk_policy_transient_row *row = npk_rk_policy_transient(NPK_RK_TRANSIENT_SDP);
    npk_rk_engine *e = rt->eng;
    pthread_mutex_lock(&e->policy_lock);
    npk_rk_policy_due(rt, npk_rk_policy_on_sdp(true));
    if (row->sets_mode) {
        e->have_prec = true;
        e->last_prec = NPK_PREC_FP16;
    }
    pthread_mutex_unlock(&e->policy_lock);
}

/* ---- tiling --------------------------------------------------------------------------------- */

static uint32_t round_up(uint32_t v, uint32_t to) { return to > 1 ? (v + to - 1) / to * to : v; }

/* A new zeroed tile at the end of *t (grown as needed); NULL (and *t freed) without memory. */
static tile *push(tile **t, size_t *cap, size_t *k)
{
    if (*k == *cap) {
        tile *g = realloc(*t, (*cap *= 2) * sizeof **t);
        if (!g) {
            free(*t);
            *t = NULL;
            return NULL;
        }
        *t = g;
    }
    tile *ti = &(*t)[(*k)++];
    memset(ti, 0, sizeof *ti);
    return ti;
}

/* The tiles of a call (malloc'd). */
static npk_status plan_tiles(const npk_rk_ew_call *x, tile **out, size_t *count)
{
    const uint32_t c2 = npk_rk_sdp_atom_channels(x->prec);
    size_t cap = 16, k = 0;
    tile *t = malloc(cap * sizeof *t);
    if (!t)
        return npk_fail(NPK_ENOMEM, "ew: no memory for the tiles");
    if (flat(x)) {
        const uint64_t total = (uint64_t)x->m * x->n, width = (uint64_t)FLAT_ATOMS * c2;
        for (uint64_t e0 = 0; e0 < total;) {
            uint64_t e = total - e0 < NPK_RK_EW_TILE ? total - e0 : NPK_RK_EW_TILE;
            if (x->row_lut && e > x->n - e0 % x->n) /* up to the end of the row */
                e = x->n - e0 % x->n;
            /* In device buffers a tile's block must be exactly its elements (the NPU would
             * write past C otherwise): whole rows of the width, else whole atoms, and the last
             * few elements staged. */
            if (x->cbuf && e > width)
                e = e / width * width;
            else if (x->cbuf && e >= c2)
                e = e / c2 * c2;
            tile *ti = push(&t, &cap, &k);
            if (!ti)
                return npk_fail(NPK_ENOMEM, "ew: no memory for the tiles");
            ti->n0 = e0; /* flat: element offset and count */
            ti->n = (uint32_t)e;
            ti->rows = e <= width ? 1 : (uint32_t)((e + width - 1) / width);
            ti->chans = e <= width ? round_up((uint32_t)e, c2) : (uint32_t)width;
            ti->direct = x->cbuf && (uint64_t)ti->rows * ti->chans == e;
            ti->row = (uint32_t)(e0 / x->n);
            e0 += e;
        }
    } else {
        const uint32_t pad = x->n_pad > 1 ? x->n_pad : 1;
        const uint32_t nmax = sdp_max_n() / (pad > c2 ? pad : c2) * (pad > c2 ? pad : c2);
        for (uint32_t n0 = 0; n0 < x->n;) {
            uint32_t nt = x->n - n0 < nmax ? x->n - n0 : nmax;
            uint32_t chans = round_up(nt, pad);
            uint32_t mt = NPK_RK_EW_TILE / round_up(chans, c2);
            if (mt > sdp_max_m())
                mt = sdp_max_m();
            if (x->m_cap && mt > x->m_cap)
                mt = x->m_cap;
            if (!mt)
                mt = 1;
            for (uint32_t m0 = 0; m0 < x->m; m0 += mt) {
                tile *ti = push(&t, &cap, &k);
                if (!ti)
                    return npk_fail(NPK_ENOMEM, "ew: no memory for the tiles");
                ti->m0 = m0;
                ti->m = x->m - m0 < mt ? x->m - m0 : mt;
                ti->n0 = n0;
                ti->n = nt;
                ti->rows = ti->m;
                ti->chans = chans;
            }
            n0 += nt;
        }
    }
    *out = t;
    *count = k;
    return NPK_OK;
}

/* ---- one job: up to rt->chain tiles --------------------------------------------------------- */

/* Copy tile t's operands into the staging buffer. */
static npk_status stage_in(const npk_rk_ew_call *x, const tile *t, uint8_t *base)
{
    const size_t eb = ebytes(x->prec);
    uint8_t *a = base + t->a_off, *b = base + t->b_off;
    if (flat(x)) {
        size_t used = (size_t)t->n * eb;
        memcpy(a, (const uint8_t *)x->a + (size_t)t->n0 * eb, used);
        memset(a + used, 0, t->a_bytes - used);
        if (x->operand == NPK_EW_PER_ELEMENT) {
            memcpy(b, (const uint8_t *)x->b + (size_t)t->n0 * eb, used);
            memset(b + used, 0, t->b_bytes - used);
        }
        return NPK_OK;
    }
    /* channels past n (the padding) read zeros */
    memset(a, 0, t->a_bytes);
    memset(b, 0, t->b_bytes);
    memcpy(b, (const uint8_t *)x->b + (size_t)t->n0 * eb, (size_t)t->n * eb);
    const uint8_t *src = (const uint8_t *)x->a + ((size_t)t->m0 * x->n + t->n0) * eb;
    return npk_rk_atom_pack(x->prec, t->m, t->n, src, x->n, a, t->a_bytes);
}

static npk_status stage_out(const npk_rk_ew_call *x, const tile *t, const uint8_t *base)
{
    const size_t eb = ebytes(x->prec);
    const uint8_t *c = base + t->c_off;
    if (flat(x)) {
        memcpy((uint8_t *)x->c + (size_t)t->n0 * eb, c, (size_t)t->n * eb);
        return NPK_OK;
    }
    uint8_t *dst = (uint8_t *)x->c + ((size_t)t->m0 * x->n + t->n0) * eb;
    return npk_rk_atom_unpack(x->prec, t->m, t->n, c, t->a_bytes, dst, x->n);
}

/* luts: room for `count` LUT programs when the call has per-row LUTs, else NULL. */
static npk_status run_job(npk_rk *rt, unsigned core, const npk_rk_ew_call *x, tile *t,
                          uint32_t count, npk_rk_lut *luts, npk_rk_stats *st)
{
    npk_rk_core_bufs *cb = &rt->core[core];
    npk_rk_job_task jt[NPK_RK_MAX_CHAIN];
    npk_rk_sdp sdp[NPK_RK_MAX_CHAIN];
    uint64_t total = 0;
    for (uint32_t i = 0; i < count; i++) {
        t[i].a_bytes = npk_rk_atom_bytes(x->prec, t[i].rows, t[i].chans);
        t[i].b_bytes = x->operand == NPK_EW_PER_ELEMENT   ? t[i].a_bytes
                       : x->operand == NPK_EW_PER_CHANNEL ? (uint64_t)t[i].chans * ebytes(x->prec)
                                                          : 0; /* no operand read */
        if (t[i].direct) { /* offsets into the call's own buffers */
            uint64_t at = (uint64_t)t[i].n0 * ebytes(x->prec);
            t[i].a_off = x->aoff + at;
            t[i].b_off = x->boff + at;
            t[i].c_off = x->coff + at;
            continue;
        }
        t[i].a_off = total;
        t[i].b_off = t[i].a_off + up64(t[i].a_bytes);
        t[i].c_off = t[i].b_off + up64(t[i].b_bytes);
        total = t[i].c_off + up64(t[i].a_bytes);
    }
    npk_status s = total ? npk_rk_core_output(rt, core, total) : NPK_OK;
    if (s)
        return s;
    uint8_t *base = cb->output.host;
    uint64_t t0 = npk_now_ns();
    for (uint32_t i = 0; s == NPK_OK && i < count; i++) {
        npk_rk_sdp *d = &sdp[i];
        jt[i] = (npk_rk_job_task){.op = NPK_RK_OP_SDP, .args = d};
        *d = npk_rk_sdp_default(x->op, x->operand, x->prec, t[i].rows, t[i].chans);
        for (unsigned v = 0; x->operand == NPK_EW_IMMEDIATE && v < imm_count(x); v++)
            d->imm[v] = elem(x->prec, x->b, v);
        d->lut = x->lut;
        if (luts && s == NPK_OK) {
            s = x->row_lut(x->row_ctx, t[i].row, &luts[i]);
            d->lut = &luts[i];
        }
        if (t[i].direct) {
            d->a = x->abuf->mem.iova + (uint32_t)t[i].a_off;
            d->b = x->bbuf ? x->bbuf->mem.iova + (uint32_t)t[i].b_off : 0;
            d->c = x->cbuf->mem.iova + (uint32_t)t[i].c_off;
            continue;
        }
        s = stage_in(x, &t[i], base);
        d->a = cb->output.iova + (uint32_t)t[i].a_off;
        d->b = cb->output.iova + (uint32_t)t[i].b_off;
        d->c = cb->output.iova + (uint32_t)t[i].c_off;
    }
    st->pack_ns += npk_now_ns() - t0;
    t0 = npk_now_ns();
    /* a LUT task's program takes a longer slot than the task buffer was sized for */
    const uint64_t job_bytes = npk_rk_job_bytes_of(jt, count);
    if (s == NPK_OK)
        s = npk_rk_core_task(rt, core, job_bytes);
    if (s == NPK_OK)
        s = npk_rk_job_write(cb->task.host, cb->task.iova, cb->task.size, jt, count);
    st->synth_ns += npk_now_ns() - t0;
    t0 = npk_now_ns();
    /* the operands (the results' bytes are only ever written by the NPU) and the programs */
    for (uint32_t i = 0; s == NPK_OK && i < count; i++)
        if (!t[i].direct)
            s = npk_rk_mem_sync(rt->dev, &cb->output, t[i].a_off, t[i].c_off - t[i].a_off,
                                RKNPU_MEM_SYNC_TO_DEVICE);
        else if ((s = npk_rk_mem_sync(rt->dev, &x->abuf->mem, t[i].a_off, t[i].a_bytes,
                                      RKNPU_MEM_SYNC_TO_DEVICE)) == NPK_OK &&
                 (!x->bbuf || (s = npk_rk_mem_sync(rt->dev, &x->bbuf->mem, t[i].b_off, t[i].b_bytes,
                                                   RKNPU_MEM_SYNC_TO_DEVICE)) == NPK_OK))
            /* C's lines clean, so none is written back over the result */
            s = npk_rk_mem_sync(rt->dev, &x->cbuf->mem, t[i].c_off, t[i].a_bytes,
                                RKNPU_MEM_SYNC_TO_DEVICE);
    if (s == NPK_OK)
        s = npk_rk_mem_sync(rt->dev, &cb->task, 0, job_bytes, RKNPU_MEM_SYNC_TO_DEVICE);
    st->sync_ns += npk_now_ns() - t0;
    if (s == NPK_OK)
        s = npk_rk_submit_job(rt, core, count, st);
    for (uint32_t i = 0; s == NPK_OK && i < count; i++) {
        t0 = npk_now_ns();
        s = npk_rk_mem_sync(rt->dev, t[i].direct ? &x->cbuf->mem : &cb->output, t[i].c_off,
                            t[i].a_bytes, RKNPU_MEM_SYNC_FROM_DEVICE);
        st->sync_ns += npk_now_ns() - t0;
        st->sdp_direct += t[i].direct;
        if (t[i].direct)
            continue;
        t0 = npk_now_ns();
        if (s == NPK_OK)
            s = stage_out(x, &t[i], base);
        st->accumulate_ns += npk_now_ns() - t0;
        /* a staged tile's result written into a device buffer's host bytes: to the NPU too */
        if (s == NPK_OK && x->cbuf)
            s = npk_rk_mem_sync(rt->dev, &x->cbuf->mem,
                                x->coff + (uint64_t)t[i].n0 * ebytes(x->prec),
                                (uint64_t)t[i].n * ebytes(x->prec), RKNPU_MEM_SYNC_TO_DEVICE);
    }
    return s;
}

npk_status npk_rk_ew_supported(const npk_rk *rt, const char *what)
{
    if (!npk_rk_runs_sdp(rt))
        return npk_fail(NPK_EINVAL,
                        "%s: the %s kernel programs INTERRUPT_MASK 0x%x for every job and SDP "
                        "tasks (op-enable 0x%x) end on interrupt 0x%x, which it never sees",
                        what, rt->form->name, rt->form->int_mask_fixed, NPK_RK_ENABLE_SDP,
                        npk_rk_op_desc_of(NPK_RK_OP_SDP)->int_mask);
    return NPK_OK;
}

npk_status npk_rk_ew_run(npk_rk *rt, const npk_rk_ew_call *x, npk_rk_stats *st)
{
    npk_status ok = npk_rk_ew_supported(rt, "ew");
    if (ok)
        return ok;
    tile *t = NULL;
    size_t count = 0;
    npk_rk_lut *luts = NULL;
    if (x->row_lut && !(luts = malloc(rt->chain * sizeof *luts)))
        return npk_fail(NPK_ENOMEM, "ew: no memory for %u LUT programs", rt->chain);
    npk_status s = plan_tiles(x, &t, &count);
    if (s) {
        free(luts);
        return s;
    }
    npk_rk_ew_enter(rt);
    const unsigned core = rt->core_map[0];
    pthread_mutex_lock(&rt->core[core].job_lock);
    for (size_t i = 0; s == NPK_OK && i < count;) {
        uint32_t n = 1;
        uint64_t bytes = 3 * npk_rk_atom_bytes(x->prec, t[i].rows, t[i].chans);
        while (n < rt->chain && i + n < count) {
            uint64_t more = 3 * npk_rk_atom_bytes(x->prec, t[i + n].rows, t[i + n].chans);
            if (bytes + more > JOB_BYTES)
                break;
            bytes += more;
            n++;
        }
        s = run_job(rt, core, x, &t[i], n, luts, st);
        st->tasks += n;
        st->sdp_tasks += n;
        i += n;
    }
    pthread_mutex_unlock(&rt->core[core].job_lock);
    st->npu_span_ns = st->npu_ns;
    st->cores_used = 1;
    st->core_mask |= 1u << core;
    free(t);
    free(luts);
    return s;
}

/* One call: its stats, the checks, the runtime's lock and the run. A C in a device buffer
 * (cdev at coff) is cleaned whole before the NPU first writes it directly (x->cbuf), or synced
 * to the device after the host path wrote its host bytes. */
static npk_status ew_call(npk_rk *rt, const npk_rk_ew_call *x, npk_rk_buffer *cdev, uint64_t coff,
                          npk_rk_stats *stats)
{
    npk_rk_stats local;
    npk_rk_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    uint64_t start = npk_now_ns();
    npk_status s = npk_rk_ew_check(x, "ew");
    if (s || (s = npk_rk_call_begin(rt, "ew")))
        return s;
    if (x->cbuf && !atomic_load(&x->cbuf->clean)) { /* the NPU writes it for the first time */
        s = npk_rk_mem_sync(rt->dev, &x->cbuf->mem, 0, x->cbuf->mem.size, RKNPU_MEM_SYNC_TO_DEVICE);
        atomic_store(&x->cbuf->clean, s == NPK_OK);
    }
    if (s == NPK_OK)
        s = npk_rk_ew_run(rt, x, st);
    if (s == NPK_OK && cdev && !x->cbuf)
        s = npk_rk_buffer_sync(cdev, coff, (uint64_t)x->m * x->n * ebytes(x->prec),
                               NPK_RK_SYNC_TO_DEVICE);
    npk_rk_call_end(rt);
    st->host_ns = npk_now_ns() - start;
    return s;
}

npk_status npk_rk_ew(npk_rk *rt, const npk_rk_ew_args *args, npk_rk_stats *stats)
{
    if (!rt)
        return npk_fail(NPK_EINVAL, "ew: NULL runtime");
    if (!args)
        return npk_fail(NPK_EINVAL, "ew: NULL arguments");
    npk_rk_ew_call x = {.op = args->op,
                        .prec = args->prec,
                        .m = args->m,
                        .n = args->n,
                        .a = args->a,
                        .operand = args->operand,
                        .b = args->b,
                        .c = args->c};
    return ew_call(rt, &x, NULL, 0, stats);
}

/* The bytes [off, off + bytes) of buf, checked against its size; their host view. */
static npk_status buffer_view(const npk_rk_buffer *buf, uint64_t off, uint64_t bytes,
                              const char *what, void **host)
{
    if (!buf)
        return npk_fail(NPK_EINVAL, "ew: NULL %s buffer", what);
    if (off > buf->mem.size || bytes > buf->mem.size - off)
        return npk_fail(
            NPK_ELIMIT, "ew: %s at offset %llu, %llu bytes, exceeds its buffer of %llu bytes", what,
            (unsigned long long)off, (unsigned long long)bytes, (unsigned long long)buf->mem.size);
    *host = (uint8_t *)buf->mem.host + off;
    return NPK_OK;
}

static bool overlap(const npk_rk_buffer *x, uint64_t xo, const npk_rk_buffer *y, uint64_t yo,
                    uint64_t bytes)
{
    return x == y && xo < yo + bytes && yo < xo + bytes;
}

npk_status npk_rk_ew_buffers(npk_rk *rt, const npk_rk_ew_buffers_args *args, npk_rk_stats *stats)
{
    if (!rt)
        return npk_fail(NPK_EINVAL, "ew: NULL runtime");
    if (!args)
        return npk_fail(NPK_EINVAL, "ew: NULL arguments");
    const npk_rk_ew_op op = args->op;
    const npk_rk_prec prec = args->prec;
    const uint32_t m = args->m, n = args->n;
    const npk_rk_ew_operand operand = args->operand;
    npk_rk_buffer *a = args->a, *b = args->b, *c = args->c;
    const uint64_t a_off = args->a_off, b_off = args->b_off, c_off = args->c_off;
    uint64_t dummy =
        0; /* stands for the arrays (and two immediates) until the buffers are checked */
    npk_rk_ew_call x = {.op = op,
                        .prec = prec,
                        .m = m,
                        .n = n,
                        .a = &dummy,
                        .operand = operand,
                        .b = &dummy,
                        .c = &dummy};
    npk_status s = npk_rk_ew_check(&x, "ew");
    if (s)
        return s;
    const uint64_t bytes = (uint64_t)m * n * ebytes(prec);
    const uint64_t b_bytes = operand == NPK_EW_PER_CHANNEL ? (uint64_t)n * ebytes(prec)
                             : operand == NPK_EW_IMMEDIATE ? imm_count(&x) * ebytes(prec)
                                                           : bytes;
    const bool reads_b = operand != NPK_EW_NO_OPERAND;
    void *ah, *bh = NULL, *ch;
    if ((s = buffer_view(a, a_off, bytes, "A", &ah)) ||
        (reads_b && (s = buffer_view(b, b_off, b_bytes, "B", &bh))) ||
        (s = buffer_view(c, c_off, bytes, "C", &ch)))
        return s;
    if (operand == NPK_EW_IMMEDIATE) { /* the values, now that B is known */
        x.b = bh;
        if ((s = npk_rk_ew_check(&x, "ew")))
            return s;
    }
    x.a = ah;
    x.b = bh;
    x.c = ch;
    /* On the buffers themselves where the NPU can: a per-element op (the SDP computes position
     * by position, so the flat arrays are their own layout), buffers it addresses, atoms
     * aligned, C apart from A and B (the spec describes no in-place SDP task). */
    const bool b_direct =
        operand != NPK_EW_PER_ELEMENT ||
        (b->eng == rt->eng && !((b->mem.iova + b_off) % 16) && !overlap(c, c_off, b, b_off, bytes));
    if (flat(&x) && b_direct && a->eng == rt->eng && c->eng == rt->eng &&
        !((a->mem.iova + a_off) % 16) && !((c->mem.iova + c_off) % 16) &&
        !overlap(c, c_off, a, a_off, bytes)) {
        x.abuf = a;
        x.bbuf = operand == NPK_EW_PER_ELEMENT ? b : NULL;
        x.cbuf = c;
        x.aoff = a_off;
        x.boff = b_off;
        x.coff = c_off;
    }
    return ew_call(rt, &x, c, c_off, stats);
}
