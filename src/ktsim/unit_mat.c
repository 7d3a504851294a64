/* SPDX-License-Identifier: MIT */
/* The matmul cluster ('MG' 0x4D47, upstream's mx_cluster_cu; facts §3.1): L1 A and L1 B of
 * MXFP7 entries (4 lanes x 32 K each), a resident output tile of 4 x 4 sub-tiles in FP22, and
 * three instructions (src/kt/hw/units/mat.c):
 *   FILL   one streaming read of n entries into L1 A or B at {fbank, eoff + i}; the memory port
 *          quantises FP16 on the way (or not, preq); retires when n entries have arrived;
 *   GEMM   a sweep, K blocks outermost: sub-tile g * gn + h gets (loads, or adds when acc or
 *          kb > 0) the chain of A entry {abank, aoff + g * nk + kb} and B entry
 *          {bbank, boff + h * nk + kb}; retires when the sweep STARTS, after the previous one;
 *   DRAIN  waits for the sweep to finish, then writes sub-tiles 0..n-1 as FP16 words to
 *          addr + 32 t in bursts of 8; retires when the last write has left the unit.
 * Any other opcode retires at once as a no-op. exec_result is the running count of retired
 * FILL/GEMM/DRAIN (16 bits). CU_DBG = {compute_cycles, memory_cycles}: cycles a sweep was
 * running, cycles a FILL was waiting for its entries, both cumulative from reset.
 *
 * Values: the chains are exact (the integer dot of a K block times both scales), rounded to
 * FP22 with ties to even (kt_mx_acc_round, as the unit's normaliser does: the value is an exact
 * integer and its exponent stays inside the range; computed on the bits by kt_mx_chain_fp22);
 * the tile holds FP22 bit patterns, each sum the accumulation unit's adder bit for bit
 * (kt_mx_fp22_add: align with a lost-bits sticky, then round), and DRAIN's FP16 is EMIT's
 * conversion bit for bit. Addresses into L1 and the tile wrap as the
 * RTL's truncated indices do.
 *
 * GEMM with `emit` hands each sub-tile out as the sweep's last K block completes it, written to
 * the GEMM's address through the write-back port while the unit goes on (mat_emit.c); a DRAIN
 * with `fuse` is the barrier that retires once they have left. The emitted words are the drained
 * ones (measured on the RTL).
 *
 * Not modelled, reported as model errors (never guessed at): emit with nk = 1 and no acc (the RTL
 * hangs), a fused DRAIN that is not the barrier of exactly the last emission, a plain DRAIN while
 * an emission is still leaving, DRAIN or emit to a node (dnode), FILL peers, CU_DATA into the
 * unit.
 *
 * Timing (the `timing mat` row), fitted to the RTL: upstream's mx_cluster_cu (KohakuTPU
 * 7703ee8, GA = GB = 512, TILES = 256, ACC_MW = 14, behavioural MACs) under Verilator 5.006,
 * driven port to port by a bench built on upstream's mx_cluster_data_tb (operands over CU_DATA,
 * then GEMM and DRAIN; FILL against responses one a cycle). Cycles from the instruction at the
 * unit's port to its completion leaving it; the shell's own hops (about 3 in, 1 out) are not in
 * the keys:
 *   - FILL: the read leaves `fill_setup` after the instruction is taken; the FILL retires
 *     `fill_retire` after its last entry (RTL: last response to completion 5);
 *   - GEMM: the manager issues one sub-tile command a cycle, K blocks outermost; a tiling of
 *     t < reuse_min sub-tiles (and nk > 1) idles ceil(reuse_min / t) - 1 cycles after each
 *     command, so a sub-tile is not revisited sooner (RTL: 4 for 1, 2 for 2, 1 for 3 or 4).
 *     The tile is busy for `sweep_lat` more cycles (the cascade and accumulator, RTL 33 from
 *     the instruction at the port); compute_cycles counts the issue, t more and `comp_tail`
 *     (RTL: 42 + t + issue, all twelve shapes measured). A GEMM retires `gemm_issue` after it
 *     starts; one after a wide sweep (t >= reuse_min) starts when the manager stops issuing,
 *     after a narrow one when the tile is free;
 *   - DRAIN: when the tile is free, `drain_setup` cycles, then sub-tiles are collected one a
 *     cycle into a burst of up to 8 and sent as a request and a word a cycle, the next burst
 *     collected while one is sent, each burst from the third `drain_gap` cycles later (RTL: the
 *     first word 17 + min(n, 8) after the instruction, the last 1, 4, 8, 15, 16, 64 sub-tiles
 *     0, 3, 7, 16, 17, 77 cycles after the first); it retires `drain_retire` after its last word
 *     (RTL 4 to the completion);
 *   - emit: sub-tile t's command in the sweep's last K block at (nk - 1) t_total + t commands'
 *     pace; a burst of 8 is handed to the sender `emit_hand` cycles after its last command (one
 *     more for a short last burst), then a request and a word a cycle; an emitting sweep's
 *     compute_cycles are its issue and `emit_comp` (RTL 31: no drain pass to count). The RTL
 *     stalls a sweep whose write-back falls 112 sub-tiles behind (about 560 emitted at once);
 *     that stall is not modelled.
 * tests/test_kt_mat_timing.c holds the model to the RTL's figures over those sizes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt/hw/mxfp.h"
#include "kt/hw/units/mat.h"
#include "mat_emit.h"
#include "shell.h"

enum {
    MG_SIDES = 2,
    MG_WORDS = 4,                 /* words of an L1 entry */
    MG_SUB = KT_MAT_SUBTILE * KT_MAT_SUBTILE,
};

/* The type's own preset settings: L1 entries per side and resident sub-tiles (the generated
 * tops' GA = GB = 512 and TILES = 4096; the module defaults are 32 and 256). */
enum { MG_S_L1, MG_S_TILES, MG_S_COUNT };
static const ktsim_unit_key mg_settings[] = {
    [MG_S_L1] = {"l1_entries", 512, 1, 512},
    [MG_S_TILES] = {"tiles", 4096, 1, 4096},
    {NULL, 0, 0, 0},
};

enum {
    MG_T_FILL_SETUP,
    MG_T_FILL_RETIRE,
    MG_T_GEMM_ISSUE,
    MG_T_REUSE_MIN,
    MG_T_SWEEP_LAT,
    MG_T_COMP_TAIL,
    MG_T_DRAIN_SETUP,
    MG_T_DRAIN_GAP,
    MG_T_DRAIN_RETIRE,
    MG_T_EMIT_HAND,
    MG_T_EMIT_COMP,
    MG_T_COUNT
};

typedef enum mg_state {
    MG_IDLE,
    MG_FILL_REQ,
    MG_FILL_WAIT,
    MG_GEMM_WAIT,
    MG_DRAIN_WAIT,
    MG_DRAIN_REQ,
    MG_DRAIN_DATA,
    MG_RETIRE
} mg_state;

typedef struct mg_entry {
    kt_mx_opnd op;                      /* as the sweep reads it, prepared when it arrives */
    uint8_t raw[MG_WORDS * KT_MX_WORD]; /* the four words as they arrived */
} mg_entry;

typedef struct mat_unit {
    kt_coord mem;
    uint32_t t[MG_T_COUNT];
    unsigned l1_entries, tiles;
    mg_entry *l1[MG_SIDES];
    uint32_t *tile; /* tiles x 16, FP22 bit patterns */

    mg_state state;
    uint32_t wait;
    kt_mat_fields in;
    uint32_t n;                 /* entries a FILL waits for, sub-tiles a DRAIN writes */
    uint32_t got;               /* FILL: entries arrived; DRAIN: sub-tiles sent */
    uint32_t burst_left;        /* DRAIN: words left in the open burst */
    uint64_t issue_left;        /* cycles the manager still issues the running sweep */
    uint64_t sweep_left;        /* cycles until the running sweep's tile is free */
    uint64_t comp_left;         /* cycles compute_cycles still counts */
    bool narrow;                /* the running sweep paces (fewer sub-tiles than reuse_min) */
    uint32_t bursts;            /* DRAIN: bursts started */
    uint16_t retired;           /* FILL + GEMM + DRAIN retired */
    uint32_t ctr_comp, ctr_fill;
    mg_emit em;                 /* an emitting sweep's write-back */
    bool emitted_any;           /* an emitting sweep has started since reset */
    uint32_t emitted;           /* sub-tiles the last emitting sweep emits */
    uint64_t emit_addr;         /* and where */
    char pending[160];          /* a model error noticed in issue(), reported at the next tick */
} mat_unit;

static void *mg_create(const ktsim_unit_cfg *cfg, kt_coord mem)
{
    mat_unit *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->mem = mem;
    memcpy(u->t, cfg->timing.value, sizeof u->t);
    u->l1_entries = cfg->setting[MG_S_L1];
    u->tiles = cfg->setting[MG_S_TILES];
    for (int s = 0; s < MG_SIDES; s++)
        u->l1[s] = calloc(u->l1_entries, sizeof *u->l1[s]);
    u->tile = calloc((size_t)u->tiles * MG_SUB, sizeof *u->tile);
    u->em.word = calloc(u->tiles, sizeof *u->em.word);
    u->em.cap = u->tiles;
    if (!u->l1[0] || !u->l1[1] || !u->tile || !u->em.word) {
        free(u->l1[0]);
        free(u->l1[1]);
        free(u->tile);
        free(u->em.word);
        free(u);
        return NULL;
    }
    return u;
}

static void mg_destroy(void *p)
{
    mat_unit *u = p;
    free(u->l1[0]);
    free(u->l1[1]);
    free(u->tile);
    free(u->em.word);
    free(u);
}

static void mg_reset(void *p)
{
    mat_unit *u = p;
    u->state = MG_IDLE;
    u->sweep_left = u->issue_left = u->comp_left = 0;
    u->retired = 0;
    u->ctr_comp = u->ctr_fill = 0;
    u->em.st = EM_IDLE;
    u->emitted_any = false;
    u->pending[0] = '\0';
}

static bool mg_ready(void *p) { return ((mat_unit *)p)->state == MG_IDLE; }

static void note(mat_unit *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(mat_unit *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->pending, sizeof u->pending, fmt, ap);
    va_end(ap);
}

static void go(mat_unit *u, mg_state s, uint32_t wait)
{
    u->state = s;
    u->wait = wait;
}

/* A fused DRAIN is a barrier for the sub-tiles the last emitting sweep emits: modelled when it
 * waits for exactly those, at the address they go to. */
static void check_fused(mat_unit *u)
{
    if (!u->emitted_any || u->n > u->emitted)
        note(u,
             "matmul fused DRAIN of %u sub-tiles after %u emitted: the RTL's barrier waits "
             "forever",
             u->n, u->emitted_any ? u->emitted : 0);
    else if (u->n < u->emitted)
        note(u, "matmul fused DRAIN of %u of the %u sub-tiles emitted is not modelled", u->n,
             u->emitted);
    else if (u->in.addr != u->emit_addr && mg_emit_busy(&u->em))
        note(u,
             "matmul fused DRAIN to 0x%llx while the sweep emits to 0x%llx: the RTL sends "
             "the sub-tiles still in flight to the DRAIN's address (not modelled)",
             (unsigned long long)u->in.addr, (unsigned long long)u->emit_addr);
}

static void mg_issue(void *p, const kt_flit *inst)
{
    mat_unit *u = p;
    kt_mat_decode(inst, &u->in);
    u->got = 0;
    u->n = u->in.n ? u->in.n : 1;
    switch (u->in.op) {
    case KT_MAT_OP_FILL:
        if (u->in.npeer)
            note(u, "matmul FILL with %u peers: shared fetches are not modelled", u->in.npeer);
        if (u->n > KT_MAT_FILL_MAX_N) {
            /* the RTL asks for n mod 256 entries and waits for n: it never retires */
            note(u, "matmul FILL n=%u: the read's 8-bit count wraps and the RTL waits forever",
                 u->n);
            u->n = (u->n & 0xFF) ? (u->n & 0xFF) : 1;
        }
        go(u, MG_FILL_REQ, u->t[MG_T_FILL_SETUP]);
        return;
    case KT_MAT_OP_GEMM:
        if (u->in.emit && u->in.nk == 1 && !u->in.acc)
            /* the sweep's one K block would both open the tile and emit it: the RTL has no
             * such command, reports an error and never finishes the emission */
            note(u, "matmul GEMM emit with nk=1 and no acc: the RTL has no load-and-emit and "
                    "hangs");
        if (u->in.emit && u->in.dnode)
            note(u, "matmul GEMM emit to a node is not modelled");
        go(u, MG_GEMM_WAIT, 0);
        return;
    case KT_MAT_OP_DRAIN:
        if (u->in.dnode)
            note(u, "matmul DRAIN to a node is not modelled");
        else if (u->in.fuse)
            check_fused(u);
        else if (mg_emit_busy(&u->em))
            note(u, "matmul DRAIN while an emitting sweep's sub-tiles are still leaving: the RTL "
                    "restarts its drain counters under them (not modelled)");
        go(u, MG_DRAIN_WAIT, 0);
        return;
    default: go(u, MG_RETIRE, 0); return; /* not an instruction: a no-op, not counted */
    }
}

_Static_assert((int)KT_MAT_SUBTILE == (int)KT_MX_LANES,
               "a sub-tile is one A entry's lanes by one B entry's");

static const mg_entry *entry_at(const mat_unit *u, int side, bool bank, unsigned off)
{
    return &u->l1[side][((unsigned)bank << 8 | (off & 0xFF)) % u->l1_entries];
}

/* The whole sweep's arithmetic, done when it starts (nothing can observe the tile before the
 * sweep ends: a DRAIN waits for it). The RTL runs K blocks outermost; each sub-tile's K blocks
 * in order give the same bits when no two sub-tiles share a tile slot, so the sweep takes one
 * sub-tile through all of them at a time, and block by block only when the tiling wraps. */
static void run_sweep(mat_unit *u)
{
    const kt_mat_fields *in = &u->in;
    const kt_mx_opnd *a[256], *b[256]; /* nk <= 255 */
    bool wraps = (unsigned)in->gm * in->gn > u->tiles;
    unsigned runs = wraps ? in->nk : 1, nk = wraps ? 1 : in->nk;
    for (unsigned r = 0; r < runs; r++)
        for (unsigned g = 0; g < in->gm; g++) {
            for (unsigned kb = 0; kb < nk; kb++)
                a[kb] = &entry_at(u, 0, in->abank, in->aoff + g * in->nk + r + kb)->op;
            for (unsigned h = 0; h < in->gn; h++) {
                for (unsigned kb = 0; kb < nk; kb++)
                    b[kb] = &entry_at(u, 1, in->bbank, in->boff + h * in->nk + r + kb)->op;
                uint32_t *t = u->tile + ((g * in->gn + h) % u->tiles) * MG_SUB;
                kt_mx_subtile_run(a, b, nk, in->anchor, r == 0 && !in->acc, t);
            }
        }
}

/* The manager's issue of the sweep: one command a cycle, and a narrow tiling idles after each
 * command so that no sub-tile is revisited within reuse_min cycles. */
static uint64_t sweep_issue(const mat_unit *u)
{
    uint64_t t = (uint64_t)u->in.gm * u->in.gn, cmds = t * u->in.nk;
    uint64_t reuse = u->t[MG_T_REUSE_MIN];
    uint64_t idle = u->in.nk > 1 && t < reuse ? (reuse + t - 1) / t - 1 : 0;
    return cmds + (cmds - 1) * idle;
}

/* A sub-tile's drained word: its 16 FP16 values, row after row. */
static void subtile_word(const mat_unit *u, uint32_t index, uint64_t w[MG_WORD_U64])
{
    uint16_t h[MG_SUB];
    kt_mx_fp22_to_fp16_n(u->tile + (index % u->tiles) * MG_SUB, h, MG_SUB);
    memset(w, 0, MG_WORD_U64 * sizeof *w);
    for (unsigned e = 0; e < MG_SUB; e++)
        w[e / 4] |= (uint64_t)h[e] << (16 * (e % 4));
}

static void start_sweep(mat_unit *u)
{
    uint64_t t = (uint64_t)u->in.gm * u->in.gn, issue = sweep_issue(u);
    run_sweep(u);
    u->narrow = t < u->t[MG_T_REUSE_MIN];
    u->issue_left = issue;
    u->sweep_left = issue + u->t[MG_T_SWEEP_LAT];
    /* an emitting sweep has no separate drain pass to count */
    uint64_t comp = issue + (u->in.emit ? u->t[MG_T_EMIT_COMP] : t + u->t[MG_T_COMP_TAIL]);
    u->comp_left = comp > u->comp_left ? comp : u->comp_left;
    if (!u->in.emit)
        return;
    uint32_t total = (uint32_t)(t < u->tiles ? t : u->tiles);
    for (uint32_t i = 0; i < total; i++)
        subtile_word(u, i, u->em.word[i]);
    uint64_t reuse = u->t[MG_T_REUSE_MIN];
    uint32_t pace = 1 + (u->in.nk > 1 && t < reuse ? (uint32_t)((reuse + t - 1) / t - 1) : 0);
    mg_emit_start(&u->em, u->in.addr, (uint32_t)t, (uint32_t)((u->in.nk - 1) * t), pace,
                  u->t[MG_T_EMIT_HAND]);
    u->emitted_any = true;
    u->emitted = (uint32_t)t;
    u->emit_addr = u->in.addr;
}

static bool send_fill_req(mat_unit *u, ksim_shell *sh)
{
    kt_flit f = {{0}};
    kt_mem_req r = {0};
    r.addr = u->in.addr;
    r.len = MG_WORDS - 1;
    r.flags = (uint8_t)(KT_MEM_FLAG_STREAM | (u->in.sel ? KT_MEM_FLAG_BLAYOUT : 0) |
                        (u->in.preq ? 0 : KT_MEM_FLAG_QUANT));
    r.count = (uint8_t)u->n;
    kt_mem_req_put(&f, &r);
    kt_header h = {u->mem, ksim_shell_coord(sh), KT_T_MEM_RD_REQ, u->in.eoff, true, 0};
    kt_header_put(&f, &h);
    return ksim_shell_send(sh, &f);
}

/* Cycles to collect the first burst: a sub-tile a cycle, up to a burst. */
static uint32_t collect(const mat_unit *u)
{
    return u->n < MG_WBURST ? u->n : MG_WBURST;
}

static bool send_drain_flit(mat_unit *u, ksim_shell *sh, bool request)
{
    kt_flit f;
    if (request) {
        uint32_t len = u->n - u->got < MG_WBURST ? u->n - u->got : MG_WBURST;
        mg_write_req(&f, u->mem, ksim_shell_coord(sh), u->in.addr + (uint64_t)u->got * KT_MX_WORD,
                     len);
        if (!ksim_shell_send(sh, &f))
            return false;
        u->burst_left = len;
        u->bursts++;
        return true;
    }
    uint64_t w[MG_WORD_U64];
    subtile_word(u, u->got, w);
    mg_write_data(&f, u->mem, ksim_shell_coord(sh), w, u->burst_left == 1);
    if (!ksim_shell_send(sh, &f))
        return false;
    u->got++;
    u->burst_left--;
    return true;
}

static void sequencer(mat_unit *u, ksim_shell *sh)
{
    if (u->issue_left)
        u->issue_left--;
    if (u->sweep_left)
        u->sweep_left--;
    if (u->comp_left) {
        u->comp_left--;
        u->ctr_comp++;
    }
    if (u->state == MG_FILL_REQ || u->state == MG_FILL_WAIT)
        u->ctr_fill++;
    if (u->state != MG_IDLE && u->wait) {
        u->wait--;
        return;
    }
    switch (u->state) {
    case MG_IDLE: break;
    case MG_FILL_REQ:
        if (send_fill_req(u, sh))
            u->state = MG_FILL_WAIT;
        break;
    case MG_FILL_WAIT:
        if (u->got >= u->n) {
            u->retired++;
            go(u, MG_RETIRE, u->t[MG_T_FILL_RETIRE]);
        }
        break;
    case MG_GEMM_WAIT:
        /* after a wide sweep, once the manager is free; after a narrow one, once the tile is;
         * an emitting sweep also once the last one's sub-tiles have left */
        if ((u->narrow ? u->sweep_left : u->issue_left) || (u->in.emit && mg_emit_busy(&u->em)))
            break;
        start_sweep(u);
        u->retired++;
        go(u, MG_RETIRE, u->t[MG_T_GEMM_ISSUE]);
        break;
    case MG_DRAIN_WAIT:
        /* a fused DRAIN waits for the emitted sub-tiles to have left, not for the sweep */
        if (u->in.fuse && !u->in.dnode) {
            if (!mg_emit_busy(&u->em)) {
                u->retired++;
                go(u, MG_RETIRE, u->t[MG_T_DRAIN_RETIRE]);
            }
            break;
        }
        if (!u->sweep_left && !mg_emit_busy(&u->em)) {
            u->bursts = 0;
            go(u, MG_DRAIN_REQ, u->t[MG_T_DRAIN_SETUP] + collect(u));
        }
        break;
    case MG_DRAIN_REQ:
        if (send_drain_flit(u, sh, true))
            go(u, MG_DRAIN_DATA, 0);
        break;
    case MG_DRAIN_DATA:
        if (!send_drain_flit(u, sh, false))
            break;
        if (u->got == u->n) {
            u->retired++;
            go(u, MG_RETIRE, u->t[MG_T_DRAIN_RETIRE]);
        } else if (!u->burst_left) {
            /* the next burst was collected while this one was sent */
            go(u, MG_DRAIN_REQ, u->bursts >= 2 ? u->t[MG_T_DRAIN_GAP] : 0);
        }
        break;
    case MG_RETIRE:
        u->state = MG_IDLE;
        ksim_shell_done(sh, u->retired, false);
        break;
    }
}

static void mg_tick(void *p, ksim_shell *sh)
{
    mat_unit *u = p;
    if (u->pending[0]) {
        ksim_shell_report(sh, "%s", u->pending);
        u->pending[0] = '\0';
    }
    sequencer(u, sh); /* first: a fill's request goes ahead of the write-back's flits */
    mg_emit_tick(&u->em, sh, u->mem);
}

/* Responses of a FILL; write acknowledgements are dropped (no write fence); CU_DATA is not
 * modelled. */
static bool mg_recv(void *p, const kt_flit *f)
{
    mat_unit *u = p;
    kt_header h = kt_header_get(f);
    if (h.type == KT_T_CU_DATA) {
        note(u, "CU_DATA into the matmul cluster at (%u,%u) is not modelled", h.dst.x, h.dst.y);
        return true;
    }
    if (h.type != KT_T_MEM_RD_RESP || u->state != MG_FILL_WAIT)
        return true;
    int side = u->in.sel;
    mg_entry *e = &u->l1[side][((unsigned)u->in.fbank << 8 | h.txn) % u->l1_entries];
    unsigned w = h.rsvd & 3;
    for (int i = 0; i < 4; i++)
        kt_put_le64(e->raw + w * KT_MX_WORD + i * 8, f->w[i]);
    if (w == MG_WORDS - 1) {
        int8_t q[KT_MX_ENTRY_ELEMS];
        uint8_t field[KT_MX_LANES];
        kt_mx_unpack_q(e->raw, side == 1, q, field);
        kt_mx_opnd_of(q, field, &e->op);
        u->got++;
    }
    return true;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* A countdown's quiet ticks when a state waits for it to reach zero: the sequencer counts it
 * down before it looks, so the tick that takes it to zero acts. */
static uint64_t until_zero(uint64_t left) { return left ? left - 1 : 0; }

/* The sequencer's quiet ticks (UINT64_MAX: until a flit arrives or the write-back, whose own
 * quiet ticks bound these, moves on). */
static uint64_t sequencer_quiet(const mat_unit *u)
{
    if (u->state != MG_IDLE && u->wait)
        return u->wait;
    bool emitting = mg_emit_busy(&u->em);
    switch (u->state) {
    case MG_IDLE: return UINT64_MAX;
    case MG_FILL_WAIT: return u->got >= u->n ? 0 : UINT64_MAX;
    case MG_GEMM_WAIT:
        if (u->in.emit && emitting)
            return UINT64_MAX;
        return until_zero(u->narrow ? u->sweep_left : u->issue_left);
    case MG_DRAIN_WAIT:
        if (emitting)
            return UINT64_MAX;
        return u->in.fuse && !u->in.dnode ? 0 : until_zero(u->sweep_left);
    case MG_FILL_REQ:
    case MG_DRAIN_REQ:
    case MG_DRAIN_DATA:
    case MG_RETIRE: return 0;
    }
    return 0;
}

/* Ticks that only count down: the countdowns, compute and memory cycles, the wait, the
 * write-back's clock. Its own clock and counters run while idle, so a sleeping cluster owes them
 * and skip applies them as the ticks would have. */
static uint64_t mg_quiet(void *p)
{
    const mat_unit *u = p;
    if (u->pending[0])
        return 0;
    return min_u64(sequencer_quiet(u), mg_emit_quiet(&u->em));
}

static void mg_skip(void *p, uint64_t n)
{
    mat_unit *u = p;
    u->issue_left -= min_u64(n, u->issue_left);
    u->sweep_left -= min_u64(n, u->sweep_left);
    uint64_t comp = min_u64(n, u->comp_left);
    u->comp_left -= comp;
    u->ctr_comp += (uint32_t)comp; /* the 32-bit counters wrap as per-cycle increments would */
    if (u->state == MG_FILL_REQ || u->state == MG_FILL_WAIT)
        u->ctr_fill += (uint32_t)n;
    if (u->state != MG_IDLE)
        u->wait -= (uint32_t)min_u64(n, u->wait);
    mg_emit_skip(&u->em, n);
}

static uint64_t mg_dbg(void *p)
{
    const mat_unit *u = p;
    return (uint64_t)u->ctr_comp << 32 | u->ctr_fill;
}

static bool mg_idle(void *p)
{
    const mat_unit *u = p;
    return u->state == MG_IDLE && !u->sweep_left && !u->comp_left && !mg_emit_busy(&u->em);
}

static const ktsim_unit_key mg_timing[] = {
    [MG_T_FILL_SETUP] = {"fill_setup", 2, 0, 1u << 16},
    [MG_T_FILL_RETIRE] = {"fill_retire", 2, 0, 1u << 16},
    [MG_T_GEMM_ISSUE] = {"gemm_issue", 2, 0, 1u << 16},
    [MG_T_REUSE_MIN] = {"reuse_min", 5, 1, 64},
    [MG_T_SWEEP_LAT] = {"sweep_lat", 30, 0, 1u << 16},
    [MG_T_COMP_TAIL] = {"comp_tail", 42, 0, 1u << 16},
    [MG_T_DRAIN_SETUP] = {"drain_setup", 12, 0, 1u << 16},
    [MG_T_DRAIN_GAP] = {"drain_gap", 1, 0, 1u << 16},
    [MG_T_DRAIN_RETIRE] = {"drain_retire", 2, 0, 1u << 16},
    [MG_T_EMIT_HAND] = {"emit_hand", 34, 0, 1u << 16},
    [MG_T_EMIT_COMP] = {"emit_comp", 31, 0, 1u << 16},
    {NULL, 0, 0, 0},
};

const ksim_unit_ops ksim_unit_mat = {
    .kind = "mat",
    .default_type = KT_MAT_TYPE,
    .create = mg_create,
    .destroy = mg_destroy,
    .reset = mg_reset,
    .ready = mg_ready,
    .issue = mg_issue,
    .tick = mg_tick,
    .recv = mg_recv,
    .dbg = mg_dbg,
    .idle = mg_idle,
    .quiet = mg_quiet,
    .skip = mg_skip,
    .layout = kt_layout_mat,
    .settings = mg_settings,
    .timing = mg_timing,
    .timing_source = "RTL mx_cluster_cu (KohakuTPU 7703ee8) under Verilator, port to port: "
                     "GEMM+DRAIN over 12 shapes 1x1x1..8x8x8 (56..651 cycles), DRAIN of 1..64 "
                     "sub-tiles (22..106), FILL last response to completion 5, GEMM emit + "
                     "fused DRAIN over 13 shapes (42..573)",
};
