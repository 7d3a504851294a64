/* SPDX-License-Identifier: MIT */
/* The vector core's lanes (see vec_lanes.h): beats queued at issue, computed at write-back
 * against the chain registers each stage read, the five-bit pending counts. */
#include "vec_lanes.h"

#include <string.h>

#include "kt/hw/e8m15.h"

enum { PEND_MASK = 31 };
_Static_assert(KT_VEC_VREGS <= 32, "the write-backs of a cycle are a 32-bit register mask");
_Static_assert(VL_BEATS <= 256, "a beat's slot is a byte");

void vl_reset(vc_lanes *l)
{
    uint32_t alu = l->alu_lat, rd = l->stage_read, pipe = l->pipe_lat, wb[3];
    memcpy(wb, l->wb_lat, sizeof wb);
    memset(l, 0, sizeof *l);
    l->alu_lat = alu, l->stage_read = rd, l->pipe_lat = pipe;
    memcpy(l->wb_lat, wb, sizeof wb);
    l->inc = -1;
    l->next_wb = UINT64_MAX;
    for (unsigned i = 0; i < VL_BEATS; i++)
        l->spare[i] = (uint8_t)i;
    l->nspare = VL_BEATS;
}

void vl_set_stage(vc_lanes *l, unsigned k, uint64_t now, const vl_stage *s)
{
    vl_stage *h = l->hist[k];
    if (l->nhist[k] == VL_VERSIONS) { /* the oldest is older than any beat in flight */
        memmove(h, h + 1, (VL_VERSIONS - 1) * sizeof *h);
        l->nhist[k]--;
    }
    h[l->nhist[k]] = *s;
    h[l->nhist[k]++].from = now + 1;
}

/* Stage k's registers as a beat read them at cycle `at`. */
static const vl_stage *stage_at(const vc_lanes *l, unsigned k, uint64_t at)
{
    static const vl_stage none = {0, 0, {0, 0, 0}, {0, 0, 0}};
    const vl_stage *found = &none;
    for (unsigned i = 0; i < l->nhist[k]; i++)
        if (l->hist[k][i].from <= at)
            found = &l->hist[k][i];
    return found;
}

void vl_issue(vc_lanes *l, uint64_t now, vl_beat *b)
{
    unsigned idx = b->depth == 4 ? 2 : b->depth == 2 ? 1 : 0;
    b->issue = now;
    b->wb = now + l->wb_lat[idx] - 1;
    if (l->nq < VL_BEATS) {
        uint8_t slot = l->spare[--l->nspare];
        l->beat[slot] = *b;
        l->q[l->nq++] = slot;
        l->next_wb = b->wb < l->next_wb ? b->wb : l->next_wb;
    }
    if (!b->cmp)
        l->inc = b->wd;
    l->pipe_free_at = now + l->pipe_lat;
}

enum { TREE_LEAVES = 8 };

/* One slot through a beat's chain: each stage's operands as the stage read its chain registers
 * (st[k], read by stage k). */
static uint32_t run_chain(const vl_stage *const st[VL_MAX_DEPTH], unsigned depth,
                          const uint32_t in[3], bool *pred)
{
    uint32_t r = 0;
    for (unsigned k = 0; k < depth; k++) {
        const vl_stage *s = st[k];
        uint32_t x[3];
        for (int j = 0; j < 3; j++)
            x[j] = s->sel[j] == KT_VEC_SRC_V   ? in[j]
                   : s->sel[j] == KT_VEC_SRC_C ? (k ? r : 0)
                                               : s->konst[j];
        if (s->op == KT_E8_FMA) {
            r = kt_e8_fma(x[0], x[1], x[2]);
            *pred = false;
        } else
            r = kt_e8_alu((kt_e8_op)(s->op < KT_E8_OP_COUNT ? s->op : KT_E8_MOV), x[0], x[1],
                          x[2], pred);
    }
    return r;
}

/* The slots of a beat that write: inside VL and, unless it is a compare (which writes its
 * predicate whatever the mask), predicated on. */
static uint16_t write_mask(const vl_beat *b)
{
    uint16_t on = b->pm == KT_VEC_PM_ALL   ? 0xFFFF
                  : b->pm == KT_VEC_PM_SET ? b->pmask
                                           : (uint16_t)~b->pmask;
    return b->cmp ? b->tmask : b->tmask & on;
}

/* A FLAT beat that writes a register: one stage, whose selects pick the same source for every
 * slot, so each operand is either the slot's register value or one constant for the beat (C,
 * the chain's carry, reads 0 in the first stage). */
static void write_back_flat(const vl_stage *st, const vl_beat *b, uint32_t *v, uint16_t mask)
{
    bool reg[3];
    uint32_t k[3];
    for (int j = 0; j < 3; j++) {
        reg[j] = st->sel[j] == KT_VEC_SRC_V;
        k[j] = st->sel[j] == KT_VEC_SRC_C ? 0 : st->konst[j];
    }
    kt_e8_op op = (kt_e8_op)(st->op < KT_E8_OP_COUNT ? st->op : KT_E8_MOV);
    if (op == KT_E8_FMA) { /* the commonest: the written slots' operands gathered, then a run */
        uint32_t x[3][KT_VEC_LANES], r[KT_VEC_LANES];
        uint8_t at[KT_VEC_LANES];
        unsigned n = 0;
        for (unsigned m = mask; m; m &= m - 1, n++) {
            unsigned slot = (unsigned)__builtin_ctz(m);
            const uint32_t *in = b->in[slot];
            at[n] = (uint8_t)slot;
            for (int j = 0; j < 3; j++)
                x[j][n] = reg[j] ? in[j] : k[j];
        }
        kt_e8_fma_n(x[0], x[1], x[2], r, n);
        for (unsigned i = 0; i < n; i++)
            v[at[i]] = r[i];
        return;
    }
    for (unsigned m = mask; m; m &= m - 1) {
        unsigned slot = (unsigned)__builtin_ctz(m);
        const uint32_t *in = b->in[slot];
        uint32_t x0 = reg[0] ? in[0] : k[0], x1 = reg[1] ? in[1] : k[1];
        uint32_t x2 = reg[2] ? in[2] : k[2];
        v[slot] = op == KT_E8_FMA ? kt_e8_fma(x0, x1, x2) : kt_e8_alu(op, x0, x1, x2, NULL);
    }
}

/* A beat's results into its slots. The stages' registers are the same for every slot (looked up
 * once), and a slot that writes nothing (past VL, or predicated off) is not computed: the
 * arithmetic has no effect but its result. */
static void write_back(const vc_lanes *l, const vl_beat *b, uint32_t v[][KT_VEC_VLMAX],
                       uint8_t p[][KT_VEC_VLMAX])
{
    const vl_stage *st[VL_MAX_DEPTH] = {NULL};
    for (unsigned k = 0; k < b->depth && !b->exp2_leaf; k++)
        st[k] = stage_at(l, k, b->issue + l->stage_read + k * l->alu_lat);
    uint16_t mask = write_mask(b);
    if (b->depth == 1 && !b->exp2_leaf && !b->cmp)
        return write_back_flat(st[0], b, &v[b->wd][b->chunk * KT_VEC_LANES], mask);
    unsigned wid = b->exp2_leaf ? TREE_LEAVES : KT_VEC_LANES / b->depth;
    for (unsigned i = 0; i < wid; i++) {
        unsigned slot = b->phase * wid + i, e = b->chunk * KT_VEC_LANES + slot;
        if (!(mask >> slot & 1))
            continue;
        bool pred = false;
        uint32_t r = b->exp2_leaf ? kt_e8_seed(KT_E8_EXP2, b->in[slot][0])
                                  : run_chain(st, b->depth, b->in[slot], &pred);
        if (b->cmp)
            p[b->pr][e] = pred;
        else
            v[b->wd][e] = r;
    }
}

/* Only the registers a beat issued to or wrote back move (the rest keep their counts), each as
 * the five-bit counter does: up for the issue, down for a write-back unless already at zero. */
void vl_end_cycle_work(vc_lanes *l, uint64_t now, uint32_t v[][KT_VEC_VLMAX],
                       uint8_t p[][KT_VEC_VLMAX])
{
    uint32_t dec = 0; /* bit r: a beat writing register r wrote back now */
    unsigned keep = 0;
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < l->nq; i++) {
        uint8_t slot = l->q[i];
        const vl_beat *b = &l->beat[slot];
        if (b->wb != now) {
            next = b->wb < next ? b->wb : next;
            l->q[keep++] = slot;
            continue;
        }
        write_back(l, b, v, p);
        if (!b->cmp)
            dec |= 1u << b->wd;
        l->spare[l->nspare++] = slot;
    }
    l->nq = keep;
    l->next_wb = next;
    if (l->inc >= 0) {
        unsigned r = (unsigned)l->inc;
        bool down = (dec >> r & 1) && l->pend[r];
        l->pend[r] = (uint8_t)((l->pend[r] + 1u - down) & PEND_MASK);
        dec &= ~(1u << r);
    }
    for (; dec; dec &= dec - 1) {
        unsigned r = (unsigned)__builtin_ctz(dec);
        l->pend[r] = (uint8_t)(l->pend[r] - (l->pend[r] != 0));
    }
    l->inc = -1;
}

enum { RED_SUM, RED_MAX, RED_MIN, RED_SUMSQ, RED_DOT, RED_EXPSUM, ACCS = 16 };

/* Eight leaves through lanes 8..14: pairs, pairs of those, the last pair. */
static uint32_t tree(kt_e8_op comb, const uint32_t leaf[TREE_LEAVES])
{
    uint32_t l[TREE_LEAVES];
    memcpy(l, leaf, sizeof l);
    for (unsigned n = TREE_LEAVES; n > 1; n /= 2)
        for (unsigned j = 0; j < n / 2; j++)
            l[j] = kt_e8_alu(comb, l[2 * j], l[2 * j + 1], l[2 * j + 1], NULL);
    return l[0];
}

uint32_t vl_reduce(unsigned kind, const uint32_t *va, const uint32_t *vb, unsigned nchunk)
{
    kt_e8_op comb = kind == RED_MAX ? KT_E8_MAX : kind == RED_MIN ? KT_E8_MIN : KT_E8_ADD;
    uint32_t ident = kind == RED_MAX ? 0xFF8000u : kind == RED_MIN ? 0x7F8000u : KT_E8_ZERO;
    /* a product (or 2^x) per leaf, two beats a chunk */
    bool half = kind == RED_SUMSQ || kind == RED_DOT || kind == RED_EXPSUM;
    uint32_t acc[ACCS], leaf[TREE_LEAVES];
    for (unsigned i = 0; i < ACCS; i++)
        acc[i] = ident;
    unsigned beats = half ? 2 * nchunk : nchunk;
    for (unsigned b = 0; b < beats && b < ACCS; b++) {
        for (unsigned j = 0; j < TREE_LEAVES; j++) {
            if (half) {
                unsigned e = (b / 2) * KT_VEC_LANES + (b % 2) * TREE_LEAVES + j;
                leaf[j] = kind == RED_EXPSUM ? kt_e8_seed(KT_E8_EXP2, va[e])
                                             : kt_e8_alu(KT_E8_MUL, va[e], vb[e], vb[e], NULL);
            } else {
                unsigned e = b * KT_VEC_LANES + 2 * j;
                leaf[j] = kt_e8_alu(comb, va[e], va[e + 1], va[e + 1], NULL);
            }
        }
        /* lane 15: the beat's sum into its own accumulator */
        acc[b] = kt_e8_alu(comb, tree(comb, leaf), acc[b], acc[b], NULL);
    }
    for (unsigned j = 0; j < TREE_LEAVES; j++)
        leaf[j] = kt_e8_alu(comb, acc[2 * j], acc[2 * j + 1], acc[2 * j + 1], NULL);
    return tree(comb, leaf);
}
