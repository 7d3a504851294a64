/* SPDX-License-Identifier: MIT */
/* The vector core's sequencer, one cycle a step (see vec_core.h). The states and their order are
 * the RTL's (upstream vec_core.v, KohakuTPU 7703ee8): every instruction is fetched in F1, F2,
 * DEC and dispatched in EXEC; what follows EXEC is the instruction's own walk below. The FLAT,
 * D2, D4 and TREE modes are modelled (the lanes: vec_lanes.c; the seeds and EXPSUM's 2^x:
 * src/kt/hw/e8m15_seed.c); arithmetic in TREE mode and a drain to a node in another mesh are
 * not, and stop the kernel with KT_VEC_F_UNMODELLED and a model error naming the instruction. */
#include "vec_core.h"

#include <stdio.h>
#include <string.h>

#include "kt/hw/e8m15.h"
#include "kt/hw/units/vec.h"
#include "out_of_line.h"

enum {
    S_IDLE = VC_IDLE,
    S_START,
    S_F1,
    S_F2,
    S_DEC,
    S_EXEC,
    S_ALU,
    S_SETI,
    S_SETI2,
    S_AGW,
    S_LD,
    S_ST,
    S_MEMW,
    S_MEM0,
    S_FILL,
    S_DRA,
    S_DRW,
    S_DRD,
    S_BAR,
    S_WAITP,
    S_HALT,
    S_FAULT,
    S_GATHER,
    S_RED,
    S_RDRAIN,
    S_RWAIT
};
enum {
    PC_MASK = KT_VEC_IMEM_WORDS - 1,
    L1_MASK = KT_VEC_L1_WORDS - 1,
    LD_PHASES = 4,     /* LDA (address), LDW, LDQ (the L1 and converter registers), LDD (write) */
    ST_PHASES = 3,     /* STR (register read), STW, STD (convert and write) */
    MEMW_CYCLES = 3,   /* the walk's total is pipelined three deep */
    GATHER_CYCLES = 4, /* a chain's next word: GA (address), GB, GC (read), GD (decode) */
    LAST_ALU_OP = KT_VEC_VRSQRT,
    RED_SUMSQ = 3,
    RED_DOT = 4,
    RED_EXPSUM = 5,
    RED_ANY = 6,
    RED_ALL = 7,
    IMM_BITS = 0xFFFFFF,
};

/* The states' heavier steps (a chunk's conversions, a beat's operands, a dispatch) are kept
 * out of vc_core_step: its common steps are a fetch, a phase, a held request. */
#define OUT_OF_LINE KSIM_OUT_OF_LINE

_Static_assert((int)KT_VEC_LANES == (int)KT_E8_CHUNK, "a load or store converts one chunk of lanes");

/* ---- the address walk (vec_agu) ---- */

static void walk_start(vc_core *c, unsigned ad, int64_t off)
{
    vc_walk *w = &c->walk;
    w->base = c->dbase[ad];
    w->off = off;
    for (int d = 0; d < KT_VEC_DIMS; d++) {
        w->bound[d] = c->dbound[ad][d] ? c->dbound[ad][d] : 1;
        w->stride[d] = c->dstride[ad][d];
        w->idx[d] = 0;
    }
    w->busy = true;
}

static uint64_t walk_addr(const vc_walk *w)
{
    int64_t a = (int64_t)w->base + w->off;
    for (int d = 0; d < KT_VEC_DIMS; d++)
        a += (int64_t)w->idx[d] * w->stride[d];
    return (uint64_t)a & ((1ull << KT_MEM_ADDR_BITS) - 1);
}

/* One step; at the last element the walk stops and holds its address. */
static void walk_step(vc_walk *w)
{
    if (!w->busy)
        return;
    bool last = true;
    for (int d = 0; d < KT_VEC_DIMS; d++)
        last = last && w->idx[d] == w->bound[d] - 1;
    if (last) {
        w->busy = false;
        return;
    }
    for (int d = 0; d < KT_VEC_DIMS; d++) {
        if (w->idx[d] + 1 < w->bound[d] || d == KT_VEC_DIMS - 1) {
            w->idx[d]++;
            return;
        }
        w->idx[d] = 0;
    }
}

/* Elements of the walk, as the AGU counts them: each pair of bounds saturates at 16 bits. */
static uint32_t walk_total(const vc_walk *w)
{
    uint32_t a = w->bound[0] * w->bound[1], b = w->bound[2] * w->bound[3];
    a = a > 0xFFFF ? 0xFFFF : a;
    b = b > 0xFFFF ? 0xFFFF : b;
    return a * b;
}

/* ---- state ---- */

void vc_core_reset(vc_core *c)
{
    vc_lanes lanes = c->lanes;
    uint32_t tail = c->tree_tail;
    memset(c, 0, sizeof *c);
    c->lanes = lanes;
    c->tree_tail = tail;
    vl_reset(&c->lanes);
    c->vl = KT_VEC_VLMAX;
    c->mode = KT_VEC_FLAT;
    c->k[1] = KT_E8_ONE;
    c->k[2] = KT_E8_MINUS_ONE;
    for (int a = 0; a < KT_VEC_DESCS; a++)
        for (int d = 0; d < KT_VEC_DIMS; d++)
            c->dbound[a][d] = 1;
    kt_vec_decode(0, &c->ird);
    for (unsigned i = 0; i < KT_VEC_IMEM_WORDS; i++)
        c->dimem[i] = c->ird;
}

/* A word is decoded once, here: the sequencer and its quiet-step look-ahead read the fields of
 * the words they fetch many times. */
void vc_core_imem(vc_core *c, unsigned addr, uint32_t word)
{
    c->imem[addr & PC_MASK] = word;
    kt_vec_decode(word, &c->dimem[addr & PC_MASK]);
}

void vc_core_desc(vc_core *c, unsigned ad, unsigned fld, uint64_t value)
{
    ad %= KT_VEC_DESCS;
    if (fld == 0)
        c->dbase[ad] = value;
    else if (fld <= KT_VEC_DIMS) {
        uint32_t st = (uint32_t)(value >> 16) & 0x3FFFF;
        c->dstride[ad][fld - 1] = (int32_t)(st ^ 0x20000) - 0x20000;
        c->dbound[ad][fld - 1] = (uint16_t)value;
    }
}

void vc_core_start(vc_core *c, unsigned pc)
{
    c->pc = pc & PC_MASK;
    c->st = S_START;
}

void vc_core_land(vc_core *c, unsigned l1_word, const uint8_t *data)
{
    memcpy(c->l1[l1_word & L1_MASK], data, VC_WORD);
}

void vc_core_fill_retired(vc_core *c)
{
    if (c->fill_out)
        c->fill_out--;
}


static unsigned nchunk(const vc_core *c) { return (c->vl + KT_VEC_LANES - 1) / KT_VEC_LANES; }
static bool pipe_empty(const vc_core *c) { return vl_empty(&c->lanes, c->now); }

static void fault(vc_core *c, uint8_t code)
{
    c->fault_code = code;
    c->st = S_FAULT;
}

static void unmodelled(vc_core *c, const char *what)
{
    snprintf(c->model_error, sizeof c->model_error,
             "vector core: %s at pc %u is not modelled (the kernel stops with F_UNMODELLED)", what,
             (c->pc - 1) & PC_MASK);
    fault(c, KT_VEC_F_UNMODELLED);
}

/* The lanes' write mask of a chunk: slots past VL never write. */
static uint16_t tail_mask(const vc_core *c, unsigned chunk)
{
    return chunk < c->vl / KT_VEC_LANES ? 0xFFFF : (uint16_t)((1u << (c->vl % KT_VEC_LANES)) - 1);
}

/* The mode's chain depth: instructions per chain, beats per chunk. */
static unsigned depth(const vc_core *c)
{
    return c->mode == KT_VEC_D4 ? 4 : c->mode == KT_VEC_D2 ? 2 : 1;
}

/* One beat: a chunk of 16 elements (FLAT) or a phase of 16 / depth of them, into the lanes with
 * the register file's values read now. */
OUT_OF_LINE static void alu_beat(vc_core *c)
{
    unsigned dep = depth(c), wid = KT_VEC_LANES / dep;
    vl_beat b = {.wd = (uint8_t)c->wd,
                 .pr = (uint8_t)c->pr,
                 .chunk = (uint8_t)c->chunk,
                 .phase = (uint8_t)c->half,
                 .depth = (uint8_t)dep,
                 .pm = (uint8_t)c->pm,
                 .cmp = c->cmp,
                 .tmask = tail_mask(c, c->chunk)};
    const unsigned reg[3] = {c->ra, c->rb, c->rc};
    for (unsigned i = 0; i < wid; i++) {
        unsigned slot = c->half * wid + i, e = c->chunk * KT_VEC_LANES + slot;
        for (int j = 0; j < 3; j++)
            b.in[slot][j] = c->v[reg[j]][e];
        b.pmask |= (uint16_t)(c->p[c->pr][e] << slot);
    }
    vl_issue(&c->lanes, c->now, &b);
    c->port_reg = (uint8_t)c->ra;
    c->port_chunk = (uint8_t)c->chunk;
    if (++c->half == dep) {
        c->half = 0;
        c->chunk++;
    }
    c->beats++;
}

static bool alu_hazard(const vc_core *c)
{
    return vl_pending(&c->lanes, c->ra) || vl_pending(&c->lanes, c->rb) ||
           vl_pending(&c->lanes, c->rc) || vl_pending(&c->lanes, c->wd);
}

/* The value a select reads for a stage's constant: a scalar, a constant, or 0 (V and C are per
 * element). */
static uint32_t pick(const vc_core *c, unsigned sel, unsigned reg)
{
    return sel == KT_VEC_SRC_S ? c->s[reg] : sel == KT_VEC_SRC_K ? c->k[reg & 3] : 0;
}

/* Write stage k's chain registers from the decoded word; false when the kernel stopped. */
static bool chain_stage(vc_core *c, unsigned k)
{
    const kt_vec_insn *d = &c->d;
    if (d->op > LAST_ALU_OP) {
        unmodelled(c, "a word that is not arithmetic inside a chain");
        return false;
    }
    vl_stage st = {.op = (uint8_t)d->op};
    const unsigned sel[3] = {d->sa, d->sb, d->sc}, reg[3] = {d->va, d->vb, d->vc};
    for (int i = 0; i < 3; i++) {
        st.sel[i] = (uint8_t)sel[i];
        st.konst[i] = pick(c, sel[i], reg[i]);
    }
    vl_set_stage(&c->lanes, k, c->now, &st);
    c->wd = d->vd, c->pm = d->pm, c->pr = d->pr;
    c->cmp = d->op >= KT_VEC_VCMPLT && d->op <= KT_VEC_VCMPEQ;
    return true;
}

static void start_beats(vc_core *c)
{
    if (c->cmp && depth(c) > 1)
        return unmodelled(c, "a chain ending in a compare");
    c->nbeat = nchunk(c) * depth(c);
    c->st = S_ALU;
}

static void exec_alu(vc_core *c)
{
    const kt_vec_insn *d = &c->d;
    if (d->sa == KT_VEC_SRC_C || d->sb == KT_VEC_SRC_C || d->sc == KT_VEC_SRC_C)
        return fault(c, KT_VEC_F_CHAIN);
    if (c->mode == KT_VEC_TREE)
        return unmodelled(c, "an arithmetic word in TREE mode (the lanes are wired as the tree)");
    c->ra = d->va, c->rb = d->vb, c->rc = d->vc;
    if (!chain_stage(c, 0))
        return;
    c->have = 1;
    if (depth(c) == 1)
        return start_beats(c);
    c->st = S_GATHER;
    c->wait = GATHER_CYCLES - 1;
}

/* GD: the chain's next word, fetched over GA, GB, GC. */
OUT_OF_LINE static void gather(vc_core *c)
{
    c->d = c->dimem[c->pc];
    c->pc = (c->pc + 1) & PC_MASK;
    const kt_vec_insn *d = &c->d;
    if (d->sa == KT_VEC_SRC_V || d->sb == KT_VEC_SRC_V || d->sc == KT_VEC_SRC_V)
        return fault(c, KT_VEC_F_VSRC);
    if (!chain_stage(c, c->have))
        return;
    if (++c->have == depth(c))
        return start_beats(c);
    c->wait = GATHER_CYCLES - 1;
}

static void exec_red(vc_core *c)
{
    const kt_vec_insn *d = &c->d;
    unsigned kind = d->vc & 7;
    if (kind == RED_ANY || kind == RED_ALL) {
        bool any = false, all = true;
        for (unsigned e = 0; e < c->vl; e++) {
            any = any || c->p[d->pr][e];
            all = all && c->p[d->pr][e];
        }
        c->s[d->vd] = (kind == RED_ANY ? any : all) ? KT_E8_ONE : 0;
        c->st = S_F1;
        return;
    }
    if (c->vl % KT_VEC_LANES)
        return fault(c, KT_VEC_F_REDVL);
    if (c->mode != KT_VEC_TREE)
        return fault(c, KT_VEC_F_OPCODE);
    /* the beats stream through the tree; the result is known now, the scalar written when the
     * tail's sum leaves the tree */
    c->red = vl_reduce(kind, c->v[d->va], c->v[d->vb], nchunk(c));
    c->red_kind = kind;
    c->nbeat = (kind == RED_SUMSQ || kind == RED_DOT || kind == RED_EXPSUM ? 2 : 1) * nchunk(c);
    if (kind == RED_EXPSUM) {
        /* EXPSUM also writes each 2^x, to vb, as an ALU word would: counted pending, and
         * predicated by P[pr] under the mode of the last arithmetic word (VRED sets no mode of
         * its own; the RTL's issue keeps the one it had) */
        c->ra = d->va;
        c->wd = d->vb;
        c->pr = d->pr;
    }
    c->st = S_RED;
}

/* One beat of EXPSUM: eight elements' 2^x into the lanes, written back to vb. */
OUT_OF_LINE static void expsum_beat(vc_core *c)
{
    vl_beat b = {.wd = (uint8_t)c->wd,
                 .pr = (uint8_t)c->pr,
                 .chunk = (uint8_t)c->chunk,
                 .phase = (uint8_t)c->half,
                 .depth = 1,
                 .pm = (uint8_t)c->pm,
                 .exp2_leaf = true,
                 .tmask = 0xFFFF};
    for (unsigned slot = 0; slot < KT_VEC_LANES; slot++) {
        unsigned e = c->chunk * KT_VEC_LANES + slot;
        b.in[slot][0] = c->v[c->ra][e];
        b.pmask |= (uint16_t)(c->p[c->pr][e] << slot);
    }
    vl_issue(&c->lanes, c->now, &b);
    if (++c->half == 2) {
        c->half = 0;
        c->chunk++;
    }
}

/* EXEC: dispatch the fetched word; false holds it here another cycle. */
OUT_OF_LINE static void exec(vc_core *c)
{
    kt_vec_insn *d = &c->d;
    *d = c->ird;
    unsigned held = c->pc;
    c->pc = (c->pc + 1) & PC_MASK;
    c->chunk = c->half = c->beats = 0;
    c->l1_cur = (unsigned)d->off & L1_MASK;
    if (d->op <= LAST_ALU_OP)
        return exec_alu(c);
    switch (d->op) {
    case KT_VEC_VSETVL: {
        uint32_t n = c->s[d->va];
        if (n == 0 || n > KT_VEC_VLMAX)
            return fault(c, KT_VEC_F_VL);
        c->vl = n;
        c->st = S_F1;
        return;
    }
    case KT_VEC_VSETMODE:
        if (!pipe_empty(c))
            break;
        c->mode = d->va & 3;
        c->st = S_F1;
        return;
    case KT_VEC_VSETI: c->st = S_SETI; return;
    case KT_VEC_VLOOP:
        if (c->lp_act)
            return fault(c, KT_VEC_F_LOOP);
        c->lp_act = true;
        c->lp_cnt = c->s[d->va];
        c->lp_top = c->pc;
        c->lp_end = (c->pc + d->vb) & PC_MASK;
        c->st = S_F1;
        return;
    case KT_VEC_VRED: return exec_red(c);
    case KT_VEC_VLD:
    case KT_VEC_VST:
    case KT_VEC_VCVT:
    case KT_VEC_VSHUF:
    case KT_VEC_VBCAST: {
        bool typed = d->op == KT_VEC_VLD || d->op == KT_VEC_VST || d->op == KT_VEC_VCVT;
        if (typed && d->dt != KT_VEC_DT_FP16 && d->dt != KT_VEC_DT_FP32)
            return fault(c, KT_VEC_F_DTYPE);
        if (!pipe_empty(c))
            break;
        walk_start(c, d->ad, d->off);
        c->st = S_AGW;
        return;
    }
    case KT_VEC_VFILL:
    case KT_VEC_VDRAIN:
        if (d->op == KT_VEC_VFILL && c->fill_out)
            break;
        /* a drain to a node: x [20:17], y [16:13], buffer [12:9], signal [25] */
        c->nd_valid = d->op == KT_VEC_VDRAIN && kt_vec_drain_to_node(c->ir);
        c->nd_x = (uint8_t)d->vd, c->nd_y = (uint8_t)d->va, c->nd_buf = (uint8_t)d->vb;
        c->nd_sig = c->ir >> 25 & 1;
        walk_start(c, d->ad, 0);
        c->st = S_AGW;
        return;
    case KT_VEC_VBAR: c->st = S_BAR; return;
    case KT_VEC_VHALT: c->st = S_WAITP; return;
    }
    c->pc = held; /* held: EXEC again next cycle */
}

/* ---- the load and store walks ---- */

OUT_OF_LINE static void load_step(vc_core *c)
{
    const kt_vec_insn *d = &c->d;
    const uint8_t *w = c->l1[walk_addr(&c->walk) & L1_MASK];
    walk_step(&c->walk);
    uint32_t *v = &c->v[d->vd][c->chunk * KT_VEC_LANES];
    if (d->dt == KT_VEC_DT_FP16) {
        kt_e8_from_f16_chunk(v, w);
    } else {
        for (unsigned l = 0; l < KT_VEC_LANES / 2; l++) {
            const uint8_t *b = w + 4 * l;
            uint32_t f =
                (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
            v[c->half * 8 + l] = kt_e8_from_f32(f);
        }
        if (!c->half) {
            c->half = 1;
            return;
        }
        c->half = 0;
    }
    c->chunk++;
    c->st = (c->chunk % 8) == nchunk(c) % 8 ? S_F1 : S_LD;
}

/* STD writes the word at the walk's address and asks the walk to step; the step lands a cycle
 * later. An FP32 chunk's high half, written the very next cycle, therefore lands on the same
 * word as its low half, and the walk then steps twice: the RTL stores only the high eight
 * elements of each FP32 chunk, at every other word (measured; modelled as it is). */
static void store_word(vc_core *c, const uint32_t *v)
{
    if (!c->half)
        c->st_addr = walk_addr(&c->walk);
    uint8_t *w = c->l1[c->st_addr & L1_MASK];
    walk_step(&c->walk);
    if (c->d.dt == KT_VEC_DT_FP16) {
        kt_e8_to_f16_chunk(w, v);
        return;
    }
    for (unsigned l = 0; l < KT_VEC_LANES / 2; l++) {
        uint32_t f = kt_e8_to_f32(v[c->half * 8 + l]);
        for (int b = 0; b < 4; b++)
            w[4 * l + b] = (uint8_t)(f >> (8 * b));
    }
}

/* STD: one chunk's result; true when the chunk is finished. */
OUT_OF_LINE static bool store_step(vc_core *c)
{
    const kt_vec_insn *d = &c->d;
    unsigned base = c->chunk * KT_VEC_LANES;
    uint32_t *dst = &c->v[d->vd][base];
    const uint32_t *src = &c->v[d->op == KT_VEC_VST ? d->vd : d->va][base];
    switch (d->op) {
    case KT_VEC_VST:
        store_word(c, src);
        if (d->dt == KT_VEC_DT_FP32 && !c->half) {
            c->half = 1;
            return false;
        }
        c->half = 0;
        return true;
    case KT_VEC_VCVT:
        if (d->dt == KT_VEC_DT_FP16) {
            /* The FP16 round trip registers its source a cycle early, so it converts what the
             * register port read a cycle before this chunk's read: the previous chunk, and for
             * the first the port's last address before the walk took it, the last ALU beat's
             * first source (measured; modelled as it is). */
            const uint32_t *early =
                c->chunk ? src - KT_VEC_LANES : &c->v[c->port_reg][c->port_chunk * KT_VEC_LANES];
            uint32_t out[KT_VEC_LANES];
            for (unsigned l = 0; l < KT_VEC_LANES; l++)
                out[l] = kt_e8_from_f16(kt_e8_to_f16(early[l]));
            memcpy(dst, out, sizeof out);
        } else
            memcpy(dst, src, KT_VEC_LANES * sizeof *src);
        return true;
    case KT_VEC_VSHUF: {
        uint32_t rot[KT_VEC_LANES];
        unsigned k = c->s[d->vb] & 15;
        for (unsigned l = 0; l < KT_VEC_LANES; l++)
            rot[l] = src[(l + k) % KT_VEC_LANES];
        memcpy(dst, rot, sizeof rot);
        return true;
    }
    default: /* VBCAST */
        if (d->sa != KT_VEC_SRC_S) {
            c->s[d->vd] = c->v[d->va][0];
            c->chunk = nchunk(c) - 1; /* one chunk, then done */
            return true;
        }
        for (unsigned l = 0; l < KT_VEC_LANES; l++)
            dst[l] = c->s[d->va];
        return true;
    }
}

/* ---- one cycle ---- */

void vc_core_step(vc_core *c)
{
    bool counting = c->busy;
    c->now++;
    if (c->wait) {
        c->wait--;
        goto done;
    }
    switch (c->st) {
    case S_IDLE: break;
    case S_START:
        c->busy = true;
        c->halted = c->fault = false;
        c->cycles = 0;
        c->lp_act = false;
        if (c->cd_err) {
            c->cd_err = false;
            fault(c, KT_VEC_F_CUDATA);
        } else
            c->st = S_F2;
        break;
    case S_F1:
        if (c->cd_err) {
            c->cd_err = false;
            fault(c, KT_VEC_F_CUDATA);
            break;
        }
        if (c->lp_act && c->pc == c->lp_end) {
            if (c->lp_cnt > 1) {
                c->lp_cnt--;
                c->pc = c->lp_top;
            } else
                c->lp_act = false;
        }
        c->st = S_F2;
        break;
    case S_F2: c->st = S_DEC; break;
    case S_DEC:
        c->ir = c->imem[c->pc];
        c->ird = c->dimem[c->pc];
        c->st = S_EXEC;
        break;
    case S_EXEC: exec(c); break;
    case S_ALU:
        if (c->beats == 0 && alu_hazard(c))
            break;
        if (c->beats == c->nbeat)
            c->st = S_F1;
        else
            alu_beat(c);
        break;
    case S_GATHER: gather(c); break;
    case S_RED: /* a beat a cycle, then a cycle to see the count done */
        if (c->beats == c->nbeat) {
            c->st = S_RDRAIN;
            break;
        }
        if (c->red_kind == RED_EXPSUM)
            expsum_beat(c);
        else
            vl_touch(&c->lanes, c->now);
        c->beats++;
        break;
    case S_RDRAIN: /* the tail waits for the lanes to drain, then sums the accumulators */
        if (!pipe_empty(c))
            break;
        vl_touch(&c->lanes, c->now);
        c->st = S_RWAIT;
        c->wait = c->tree_tail;
        break;
    case S_RWAIT:
        c->s[c->d.vd] = c->red;
        c->st = S_F1;
        break;
    case S_SETI: c->st = S_SETI2; break;
    case S_SETI2: {
        uint32_t imm = c->imem[c->pc] & IMM_BITS;
        if (c->d.sa == KT_VEC_SRC_K)
            c->k[3] = imm;
        else
            c->s[c->d.vd] = imm;
        c->pc = (c->pc + 1) & PC_MASK;
        c->st = S_F1;
        break;
    }
    case S_AGW:
        if (c->d.op == KT_VEC_VLD) {
            c->st = S_LD;
        } else if (c->d.op == KT_VEC_VFILL || c->d.op == KT_VEC_VDRAIN) {
            c->st = S_MEMW;
            c->wait = MEMW_CYCLES - 1;
        } else
            c->st = S_ST;
        break;
    case S_LD:
        /* LDA LDW LDQ cost a cycle each before LDD writes the chunk */
        if (c->beats++ % LD_PHASES != LD_PHASES - 1)
            break;
        load_step(c);
        break;
    case S_ST:
        if (c->beats++ % ST_PHASES != ST_PHASES - 1)
            break;
        if (!store_step(c)) {
            c->beats--; /* the FP32 high word: STD again */
            break;
        }
        c->chunk++;
        if (c->chunk % 8 == nchunk(c) % 8)
            c->st = S_F1;
        break;
    case S_MEMW: c->st = S_MEM0; break;
    case S_MEM0: {
        uint32_t total = walk_total(&c->walk);
        if (total > KT_VEC_WALK_MAX) {
            fault(c, KT_VEC_F_LEN);
            break;
        }
        c->mem_left = total;
        if (c->nd_valid) {
            /* a node's drain reads the walk's first address as {fin, mesh, ack, L1 offset} and
             * its length as the burst's; one descriptor covers a contiguous run */
            uint64_t a = walk_addr(&c->walk);
            c->nd_off = (uint16_t)a;
            c->nd_ack = (uint8_t)(a >> 16);
            c->nd_len = (uint8_t)(total - 1);
            if (a >> 24 & 0x3FF) {
                unmodelled(c, "VDRAIN to a node in another mesh");
                break;
            }
        }
        c->st = c->d.op == KT_VEC_VFILL ? S_FILL : S_DRA;
        break;
    }
    case S_FILL:
        if (!c->mem_left) {
            c->st = S_F1;
        } else if (!c->rd_valid) {
            c->rd_valid = true;
            c->rd_taken = false;
            c->rd_addr = walk_addr(&c->walk);
            c->rd_tag = c->l1_cur;
            c->req_at = c->now;
            walk_step(&c->walk);
            c->l1_cur = (c->l1_cur + 1) & L1_MASK;
            c->mem_left--;
            c->fill_out++;
        }
        break;
    case S_DRA: c->st = c->mem_left ? S_DRW : S_F1; break;
    case S_DRW: c->st = S_DRD; break;
    case S_DRD:
        if (c->wr_valid)
            break;
        c->wr_valid = true;
        c->wr_taken = false;
        c->wr_addr = walk_addr(&c->walk);
        memcpy(c->wr_data, c->l1[c->l1_cur], VC_WORD);
        c->req_at = c->now;
        walk_step(&c->walk);
        c->l1_cur = (c->l1_cur + 1) & L1_MASK;
        c->mem_left--;
        c->st = S_DRA;
        break;
    case S_BAR:
        if (!c->fill_out)
            c->st = S_F1;
        break;
    case S_WAITP:
        if (pipe_empty(c) && !c->fill_out)
            c->st = S_HALT;
        break;
    case S_HALT:
        c->busy = false;
        c->halted = true;
        c->st = S_IDLE;
        break;
    case S_FAULT:
        c->busy = false;
        c->fault = true;
        c->st = S_IDLE;
        break;
    }
done:
    vl_end_cycle(&c->lanes, c->now, c->v, c->p);
    /* a request the send path took last cycle clears now (the RTL's *_req_ready) */
    if (c->rd_valid && c->rd_taken)
        c->rd_valid = c->rd_taken = false;
    if (c->wr_valid && c->wr_taken)
        c->wr_valid = c->wr_taken = false;
    if (counting)
        c->cycles++;
}

/* Steps until `at` (a step moves the clock first: the one that reaches it acts). */
static uint64_t steps_before(const vc_core *c, uint64_t at)
{
    return at > c->now + 1 ? at - c->now - 1 : 0;
}

/* The lanes' quiet steps: until the first queued beat writes back (UINT64_MAX: none queued). */
static uint64_t lanes_quiet(const vc_core *c)
{
    return c->lanes.nq ? steps_before(c, c->lanes.next_wb) : UINT64_MAX;
}

/* The lanes' drain as a state waiting for it sees it: never while a beat is queued (the lanes'
 * write-backs bound that), else the steps before pipe_free_at. */
static uint64_t drain_quiet(const vc_core *c)
{
    return c->lanes.nq ? UINT64_MAX : steps_before(c, c->lanes.pipe_free_at);
}

/* EXEC holding its word: VSETMODE and the walks (VLD, VST, VCVT with a dtype it takes, VSHUF,
 * VBCAST) until the lanes drain, VFILL while fills are outstanding (their retirements bound
 * it). Each held step dispatches the same word again and changes nothing that the step which
 * finally dispatches it does not set anew, so the held steps are quiet. Every other word acts. */
static uint64_t exec_quiet(const vc_core *c)
{
    const kt_vec_insn *d = &c->ird;
    bool typed = d->op == KT_VEC_VLD || d->op == KT_VEC_VST || d->op == KT_VEC_VCVT;
    bool walk = typed || d->op == KT_VEC_VSHUF || d->op == KT_VEC_VBCAST;
    if (typed && d->dt != KT_VEC_DT_FP16 && d->dt != KT_VEC_DT_FP32)
        return 0; /* faults */
    if (walk || d->op == KT_VEC_VSETMODE)
        return pipe_empty(c) ? 0 : drain_quiet(c);
    if (d->op == KT_VEC_VFILL)
        return c->fill_out ? UINT64_MAX : 0;
    return 0;
}

/* Whether EXEC dispatching the (decoded) word `d` stays inside the sequencer: every word does (a
 * fault only moves it to FAULT, whose own step stops the kernel) but an arithmetic one in TREE
 * mode, which reports a model error. */
static bool exec_own(const vc_core *c, const kt_vec_insn *d)
{
    bool c_src = d->sa == KT_VEC_SRC_C || d->sb == KT_VEC_SRC_C || d->sc == KT_VEC_SRC_C;
    return !(d->op <= LAST_ALU_OP && !c_src && c->mode == KT_VEC_TREE);
}

/* Chunks a load or store walk still finishes: it stops when the chunk count reaches VL's
 * chunks modulo 8. */
static unsigned chunks_left(const vc_core *c)
{
    return (unsigned)((int)(nchunk(c) % 8) - (int)(c->chunk % 8) + 7) % 8 + 1;
}

/* A load or store walk's steps to its end (its phases, a chunk moved every `phases` steps),
 * or 0 where a chunk takes two moves (FP32, left to the phases' countdown). */
static uint64_t walk_steps(const vc_core *c)
{
    const kt_vec_insn *d = &c->d;
    unsigned phases = c->st == S_LD ? LD_PHASES : ST_PHASES, moves = chunks_left(c);
    bool fp32 = d->dt == KT_VEC_DT_FP32;
    if (c->st == S_LD ? fp32 : d->op == KT_VEC_VST && fp32)
        return 0;
    if (c->st == S_ST && d->op == KT_VEC_VBCAST && d->sa != KT_VEC_SRC_S)
        moves = 1; /* to a scalar: one chunk */
    return phases - c->beats % phases + (uint64_t)phases * (moves - 1);
}

/* The steps from here that stay inside the sequencer whatever the data: they change only its
 * own registers, the register file, L1 and the lanes (whose write-backs run in them), raise no
 * request, report nothing and do not stop the kernel, so a skip takes them as steps. Followed
 * from state to state as far as the states that follow are known: a load or store walk (FP16),
 * the ALU's beats past the interlock, a reduction's beats, RWAIT, SETI and SETI2, DRA and its
 * DRW, then the fetch (F1 without a CU_DATA error, F2, DEC) and EXEC of the word it fetches;
 * START, AGW, MEMW, MEM0 (not a drain to a node) one step. */
static uint64_t own_steps(const vc_core *c)
{
    if (c->wait)
        return 0; /* the wait's steps are a countdown */
    uint64_t n = 0;
    unsigned pc = c->pc;
    switch (c->st) { /* the current state: its steps to the next fetch, or to its end */
    case S_LD:
    case S_ST:
        if (!(n = walk_steps(c)))
            return 0;
        break;
    case S_ALU:
        if (c->beats == 0 && alu_hazard(c))
            return 0;
        n = c->nbeat - c->beats + 1;
        break;
    case S_RED: return c->nbeat - c->beats + 1; /* then RDRAIN */
    case S_RWAIT: n = 1; break;
    case S_SETI:
    case S_SETI2:
        n = c->st == S_SETI ? 2 : 1;
        pc = (pc + 1) & PC_MASK; /* SETI2 takes the immediate word */
        break;
    case S_DRA:
        if (c->mem_left)
            return 2; /* DRA, DRW; DRD sends */
        n = 1;
        break;
    case S_START:
        return c->cd_err ? 1 : 3 + exec_own(c, &c->dimem[pc]); /* START, F2, DEC, EXEC */
    case S_F1: break;
    case S_F2: return 2 + exec_own(c, &c->dimem[pc]);
    case S_DEC: return 1 + exec_own(c, &c->dimem[pc]);
    case S_EXEC: return exec_own(c, &c->ird);
    case S_AGW:
    case S_MEMW:
    case S_DRW: return 1;
    case S_MEM0: return !c->nd_valid;
    default: return 0;
    }
    /* F1 next (or now): its branch back, F2, DEC, EXEC */
    if (c->cd_err)
        return n;
    if (c->lp_act && pc == c->lp_end && c->lp_cnt > 1)
        pc = c->lp_top;
    return n + 3 + exec_own(c, &c->dimem[pc]);
}

/* A walk's steps before its phase counter reaches the phase that moves a chunk (LDD, STD). */
static uint64_t phase_quiet(const vc_core *c, unsigned phases)
{
    return phases - 1 - c->beats % phases;
}

/* The steps that only count down: a wait; idle; a state that only looks at the lanes draining
 * or the outstanding fills (UINT64_MAX here: the lanes' write-backs and the unit's fill
 * retirements bound it); a held EXEC; a load or store walk's phases before the one that acts. */
static uint64_t countdown(const vc_core *c)
{
    if (c->wait)
        return c->wait;
    switch (c->st) {
    case S_IDLE: return UINT64_MAX;
    case S_EXEC: return exec_quiet(c);
    case S_ALU: return c->beats == 0 && alu_hazard(c) ? UINT64_MAX : 0;
    case S_LD: return phase_quiet(c, LD_PHASES);
    case S_ST: return phase_quiet(c, ST_PHASES);
    case S_BAR: return c->fill_out ? UINT64_MAX : 0;
    case S_RDRAIN: return drain_quiet(c);
    case S_WAITP: return c->fill_out ? UINT64_MAX : drain_quiet(c);
    }
    return 0;
}


/* A countdown's steps that may be taken at once: not past the lanes' next write-back. */
static uint64_t countdown_now(const vc_core *c)
{
    uint64_t q = countdown(c), l = lanes_quiet(c);
    return q < l ? q : l;
}

/* vc_core_quiet past its requests and a beat issued this cycle (vec_core.h). */
uint64_t vc_core_quiet_steps(const vc_core *c)
{
    uint64_t q = countdown_now(c), o = own_steps(c);
    return q > o ? q : o;
}

void vc_core_skip(vc_core *c, uint64_t n)
{
    while (n) {
        uint64_t k = countdown_now(c);
        if (!k) { /* one of own_steps: taken as a step */
            vc_core_step(c);
            n--;
            continue;
        }
        k = k < n ? k : n;
        c->now += k;
        uint64_t waited = k < c->wait ? k : c->wait;
        c->wait -= (unsigned)waited;
        if (k > waited && (c->st == S_LD || c->st == S_ST))
            c->beats += (unsigned)(k - waited); /* the walk's phases, counted as its steps count */
        if (c->busy)
            c->cycles += (uint32_t)k; /* wraps as per-step increments would */
        n -= k;
    }
}
