/* SPDX-License-Identifier: MIT */
/* The RV32 control processor as a compute unit (rv32_complex.h): the data side's address
 * decode, the node range and its descriptor executor, the kick and completion, and the CU_DATA
 * windows. The instruction set is rv32_core.c's. */
#include "rv32_complex.h"

#include <stdlib.h>
#include <string.h>

#include "kt/hw/kt_rv32.h"
#include "kt/hw/rv32_regs.h"
#include "npukit/kt_mover_hw.h"

/* ---- the data side: addr[31:28] picks the region (a table: region, handler) ---- */

typedef ksim_rv32_access (*region_load)(ksim_rv32c *c, uint32_t addr, unsigned width,
                                        uint32_t *v);
typedef ksim_rv32_access (*region_store)(ksim_rv32c *c, uint32_t addr, unsigned width,
                                         uint32_t v);

static uint32_t byte_lane(uint32_t word, uint32_t addr, unsigned width)
{
    uint32_t v = word >> (8 * (addr & 3));
    return width == 4 ? v : v & ((1u << (8 * width)) - 1);
}

static ksim_rv32_access spad_load(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t *v)
{
    *v = byte_lane(c->spad[(addr >> 2) & (c->spad_words - 1)], addr, width);
    return KSIM_RV32_ACCESS_OK;
}

static ksim_rv32_access spad_store(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t v)
{
    uint32_t *w = &c->spad[(addr >> 2) & (c->spad_words - 1)];
    unsigned sh = 8 * (addr & 3);
    uint32_t mask = (width == 4 ? 0xffffffffu : (1u << (8 * width)) - 1) << sh;
    *w = (*w & ~mask) | ((v << sh) & mask);
    return KSIM_RV32_ACCESS_OK;
}

/* Local control: only addr[7:2] decodes. The L1's write-backs are synchronous in the model, so
 * there is never a flush in progress or an outstanding write: STATUS and WROUT read 0, and a
 * store to FLUSH or INVAL does its work in the store's cycle. */
static uint32_t ctl_word(const ksim_rv32c *c, uint32_t off)
{
    switch (off) {
    case KT_RV32_CTL_CAUSE: return c->core.cause;
    case KT_RV32_CTL_COREID: return kt_coord_pack(c->at);
    case KT_RV32_CTL_ARG: return c->arg;
    case KT_RV32_CTL_CYCLE: return (uint32_t)c->core.cycles;
    case KT_RV32_CTL_INSTRET: return (uint32_t)c->core.retired;
    }
    return 0; /* STATUS, WROUT and every undecoded word */
}

static ksim_rv32_access ctl_load(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t *v)
{
    *v = byte_lane(ctl_word(c, addr & 0xfc), addr, width);
    return KSIM_RV32_ACCESS_OK;
}

static ksim_rv32_l1_mem l1_mem(const ksim_rv32c *c)
{
    return (ksim_rv32_l1_mem){c->side.ctx, c->side.dram_read, c->side.dram_write};
}

static ksim_rv32_access ctl_store(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t v)
{
    (void)width, (void)v; /* the store's value is not read: the address is the command */
    ksim_rv32_l1_mem mem = l1_mem(c);
    switch (addr & 0xfc) {
    case KT_RV32_CTL_FLUSH:
        return ksim_rv32_l1_flush(&c->l1, &mem) ? KSIM_RV32_ACCESS_OK : KSIM_RV32_ACCESS_FAULT;
    case KT_RV32_CTL_INVAL: ksim_rv32_l1_invalidate(&c->l1); return KSIM_RV32_ACCESS_OK;
    }
    return KSIM_RV32_ACCESS_OK; /* the other control words are read-only: no effect */
}

/* DRAM through the L1: addr[31] set, below the node range. */
static ksim_rv32_access l1_access(ksim_rv32_l1_result r)
{
    return r == KSIM_RV32_L1_OK     ? KSIM_RV32_ACCESS_OK
           : r == KSIM_RV32_L1_WAIT ? KSIM_RV32_ACCESS_STALL
                                    : KSIM_RV32_ACCESS_FAULT;
}
static ksim_rv32_access dram_load(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t *v)
{
    if (!c->side.dram_read)
        return KSIM_RV32_ACCESS_FAULT;
    ksim_rv32_l1_mem mem = l1_mem(c);
    return l1_access(ksim_rv32_l1_load(&c->l1, &mem, c->now, addr, width, v));
}
static ksim_rv32_access dram_store(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t v)
{
    if (!c->side.dram_read)
        return KSIM_RV32_ACCESS_FAULT;
    ksim_rv32_l1_mem mem = l1_mem(c);
    return l1_access(ksim_rv32_l1_store(&c->l1, &mem, c->now, addr, width, v));
}

uint32_t ksim_rv32c_node_word(const ksim_rv32c *c)
{
    kt_mv_status m = kt_mv_status_decode(c->side.mover_stat ? c->side.mover_stat(c->side.ctx) : 0);
    kt_rv32_node n = {
        .busy = c->exec != KSIM_RV32_EXEC_IDLE || m.busy,
        .mover_fault = m.fault,
        .occ_fault = c->side.occ_fault ? c->side.occ_fault(c->side.ctx) : 0,
    };
    return (uint32_t)kt_word_pack(&kt_rv32_node_layout, &n);
}

/* The node range decodes two things, both 4 bytes wide: MVGO at its base and the occupants'
 * registers above bit 16. Nothing else answers there — in particular no mover register: the
 * host's AUX_CFG window is absent from this space (§3.1), so any other node address is an access
 * fault, which halts the core with the pc. */
static bool occ_addr(uint32_t addr, unsigned *id, uint8_t *reg)
{
    if ((addr & 0xFFFFF000u) != KT_RV32_OCC_BASE)
        return false;
    *id = (addr >> KT_RV32_OCC_ID_SHIFT) & (KT_RV32_OCC_IDS - 1);
    *reg = (uint8_t)addr;
    return true;
}

static ksim_rv32_access node_load(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t *v)
{
    unsigned id;
    uint8_t reg;
    if (width != 4)
        return KSIM_RV32_ACCESS_FAULT;
    if (addr == KT_RV32_MVGO) {
        *v = ksim_rv32c_node_word(c);
        return KSIM_RV32_ACCESS_OK;
    }
    if (!occ_addr(addr, &id, &reg))
        return KSIM_RV32_ACCESS_FAULT;
    /* registered: the value the register holds in the request's cycle, in the core's register
     * file a cycle later, exactly as a scratchpad load's */
    if (!c->side.occ_read || !c->side.occ_read(c->side.ctx, id, reg, v))
        *v = 0;
    return KSIM_RV32_ACCESS_OK;
}

/* A store to MVGO. Program order is the queue: while the executor or the mover is busy the
 * store holds (the core stalls on it) and issues once both are idle, so a chain of moves runs
 * one after another with no ring and no doorbell. The pointer must name a word of the
 * scratchpad, where the executor fetches from; anything else is refused as an access fault. */
static ksim_rv32_access mvgo(ksim_rv32c *c, uint32_t ptr)
{
    if ((ptr >> KT_RV32_REGION_SHIFT) != (KT_RV32_SPAD_BASE >> KT_RV32_REGION_SHIFT) || (ptr & 3))
        return KSIM_RV32_ACCESS_FAULT;
    if (kt_rv32_node_decode(ksim_rv32c_node_word(c)).busy)
        return KSIM_RV32_ACCESS_STALL;
    c->exec = KSIM_RV32_EXEC_FETCH;
    c->exec_ptr = (ptr >> 2) & (c->spad_words - 1);
    c->exec_word = 0;
    c->moves_issued++;
    return KSIM_RV32_ACCESS_OK;
}

static ksim_rv32_access node_store(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t v)
{
    unsigned id;
    uint8_t reg;
    if (width != 4)
        return KSIM_RV32_ACCESS_FAULT;
    if (addr == KT_RV32_MVGO)
        return mvgo(c, v);
    if (!occ_addr(addr, &id, &reg))
        return KSIM_RV32_ACCESS_FAULT;
    if (c->side.occ_write)
        c->side.occ_write(c->side.ctx, id, reg, v);
    return KSIM_RV32_ACCESS_OK;
}

/* The peer window: a store is pushed, uncached, into another unit's window as a CU_DATA burst
 * of one byte-enabled word — addr[27:24] x and [23:20] y of the unit, [19] its instruction
 * window (buf 5) or scratchpad (buf 4), [18:5] the granule, [4:2] the word in it. The store
 * holds while the last push has not left, so pushes arrive in program order (upstream's rv_mem
 * and rv_noc_req). Push only: a load faults. */
static ksim_rv32_access peer_load(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t *v)
{
    (void)c, (void)addr, (void)width, (void)v;
    return KSIM_RV32_ACCESS_FAULT;
}

static ksim_rv32_access peer_store(ksim_rv32c *c, uint32_t addr, unsigned width, uint32_t v)
{
    if (c->push_left)
        return KSIM_RV32_ACCESS_STALL;
    kt_coord to = {(uint8_t)(addr >> 24 & 15), (uint8_t)(addr >> 20 & 15)};
    unsigned lane = addr & 3;
    uint32_t be = ((1u << width) - 1) << lane;
    kt_cu_data d = {(uint8_t)(addr >> 19 & 1 ? KT_RV32_BUF_IMEM_WORD : KT_RV32_BUF_SPAD_WORD),
                    (uint16_t)(addr >> 5 & 0x3fff), 0, 0, {0, 0}};
    kt_header h = {to, c->at, KT_T_CU_DATA, 0, false, 0};
    memset(c->push, 0, sizeof c->push);
    if (kt_cu_data_put(&c->push[0], &d) || kt_header_put(&c->push[0], &h))
        return KSIM_RV32_ACCESS_FAULT;
    c->push[1].w[0] = (uint64_t)(addr >> 2 & 7) << 36 | (uint64_t)be << 32 | (uint32_t)(v << (8 * lane));
    h.last = true;
    if (kt_header_put(&c->push[1], &h))
        return KSIM_RV32_ACCESS_FAULT;
    c->push_left = 2;
    c->pushes++;
    return KSIM_RV32_ACCESS_OK;
}

/* Regions by addr[31:28]; a NULL handler faults. The instruction window (0) is fetch-only; the
 * vector scratchpad (4) exists on upstream's PE with the DSP extension, which is not modelled,
 * and faults rather than pretend. */
static const struct region_row {
    region_load load;
    region_store store;
} regions[16] = {
    [KT_RV32_SPAD_BASE >> KT_RV32_REGION_SHIFT] = {spad_load, spad_store},
    [KT_RV32_CTL_BASE >> KT_RV32_REGION_SHIFT] = {ctl_load, ctl_store},
    [KT_RV32_NODE_BASE >> KT_RV32_REGION_SHIFT] = {node_load, node_store},
    [KT_RV32_PEER_BASE >> KT_RV32_REGION_SHIFT] = {peer_load, peer_store},
    [0x8] = {dram_load, dram_store}, [0x9] = {dram_load, dram_store},
    [0xA] = {dram_load, dram_store}, [0xB] = {dram_load, dram_store},
    [0xC] = {dram_load, dram_store}, [0xD] = {dram_load, dram_store},
    [0xE] = {dram_load, dram_store},
};

static ksim_rv32_access bus_load(void *ctx, uint32_t addr, unsigned width, uint32_t *v)
{
    const struct region_row *r = &regions[addr >> KT_RV32_REGION_SHIFT];
    return r->load ? r->load(ctx, addr, width, v) : KSIM_RV32_ACCESS_FAULT;
}

static ksim_rv32_access bus_store(void *ctx, uint32_t addr, unsigned width, uint32_t v)
{
    const struct region_row *r = &regions[addr >> KT_RV32_REGION_SHIFT];
    return r->store ? r->store(ctx, addr, width, v) : KSIM_RV32_ACCESS_FAULT;
}

/* ---- the descriptor executor: one scratchpad word a cycle, a cfg pulse per triple ---- */

static void exec_tick(ksim_rv32c *c)
{
    if (c->exec == KSIM_RV32_EXEC_WAIT) {
        c->exec = KSIM_RV32_EXEC_IDLE; /* the mover's busy is up now, or its GO was refused */
        return;
    }
    if (c->exec != KSIM_RV32_EXEC_FETCH)
        return;
    uint32_t w = c->spad[(c->exec_ptr + c->exec_word) & (c->spad_words - 1)];
    if (c->exec_word == 0) {
        c->exec_n = w & KT_RV32_DESC_N_MASK;
    } else {
        switch ((c->exec_word - 1) % 3) {
        case 0: c->exec_off = w & KT_RV32_DESC_OFFSET_MASK; break;
        case 1: c->exec_lo = w; break;
        default: {
            uint64_t v = (uint64_t)w << 32 | c->exec_lo;
            c->pulses++;
            /* the mover's cfg port carries its own offsets; 0x80 and up decode nothing there */
            if (c->exec_off < KT_MV_AUX_LIMIT && c->side.mover_cfg)
                c->side.mover_cfg(c->side.ctx, (uint8_t)c->exec_off, v);
            else
                c->dropped_pulses++;
            break;
        }
        }
    }
    c->exec_word++;
    if (c->exec_word >= KT_RV32_DESC_WORDS(c->exec_n))
        c->exec = c->exec_n ? KSIM_RV32_EXEC_WAIT : KSIM_RV32_EXEC_IDLE;
}

/* ---- the unit ---- */

/* The windows' sizes as log2 of their 32-bit words (IMEM_WORDS, SPAD_WORDS): the RTL addresses
 * them by truncating the address, so only powers of two exist. */
static const ktsim_unit_key rv32_settings[] = {
    {"imem_bits", 11, 3, 16},
    {"spad_bits", 11, 3, 16},
    {"l1_bits", 7, 0, 12},     /* L1_LINES = 2^N lines of 32 bytes (128: upstream's default) */
    {"l1_miss", 32, 1, 10000}, /* cycles a miss holds the core: an estimate, not measured */
    {NULL, 0, 0, 0},
};
enum { SET_IMEM_BITS, SET_SPAD_BITS, SET_L1_BITS, SET_L1_MISS };

static void *rv32_create(const ktsim_unit_cfg *cfg, kt_coord mem_port)
{
    (void)mem_port;
    uint32_t iw = 1u << cfg->setting[SET_IMEM_BITS], sw = 1u << cfg->setting[SET_SPAD_BITS];
    ksim_rv32c *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->imem = calloc(iw, sizeof *c->imem);
    c->spad = calloc(sw, sizeof *c->spad);
    if (!c->imem || !c->spad ||
        !ksim_rv32_l1_init(&c->l1, 1u << cfg->setting[SET_L1_BITS],
                           (uint32_t)cfg->setting[SET_L1_MISS])) {
        free(c->imem);
        free(c->spad);
        free(c);
        return NULL;
    }
    c->imem_words = iw;
    c->spad_words = sw;
    c->at = cfg->at;
    ksim_rv32_bus bus = {c, bus_load, bus_store};
    ksim_rv32_init(&c->core, c->imem, iw, &bus);
    return c;
}

static void rv32_destroy(void *p)
{
    ksim_rv32c *c = p;
    if (!c)
        return;
    free(c->imem);
    free(c->spad);
    ksim_rv32_l1_free(&c->l1);
    free(c);
}

/* resetn: the core and the executor stop; the windows keep what was written into them. */
static void rv32_reset(void *p)
{
    ksim_rv32c *c = p;
    ksim_rv32_bus bus = c->core.bus;
    ksim_rv32_init(&c->core, c->imem, c->imem_words, &bus);
    c->running = c->kick_pending = c->done_pending = false;
    c->exec = KSIM_RV32_EXEC_IDLE;
    c->rx_active = c->signal_pending = false;
    c->push_left = 0;
    ksim_rv32_l1_reset(&c->l1);
}

void ksim_rv32c_set_side(ksim_rv32c *c, const ksim_rv32_side *side) { c->side = *side; }

void ksim_rv32c_imem_write(ksim_rv32c *c, uint32_t index, uint32_t word)
{
    c->imem[index & (c->imem_words - 1)] = word;
}
void ksim_rv32c_spad_write(ksim_rv32c *c, uint32_t index, uint32_t word)
{
    c->spad[index & (c->spad_words - 1)] = word;
}
uint32_t ksim_rv32c_spad_read(const ksim_rv32c *c, uint32_t index)
{
    return c->spad[index & (c->spad_words - 1)];
}

/* A kick never overtakes the data it announces: the unit takes an instruction only when no
 * CU_DATA burst is part-way in, and only one at a time (a program runs to its halt). */
static bool rv32_ready(void *p)
{
    const ksim_rv32c *c = p;
    return !c->rx_active && !c->running && !c->kick_pending && !c->done_pending;
}

static void rv32_issue(void *p, const kt_flit *inst)
{
    ksim_rv32c *c = p;
    c->op = (uint8_t)(inst->w[3] >> 56);
    c->kick_pc = (uint32_t)(inst->w[3] >> 24);
    c->arg = (uint32_t)((inst->w[3] & 0xffffff) << 8 | inst->w[2] >> 56);
    if (c->op == KT_RV32_KICK_OP)
        c->kick_pending = true;
    else
        c->done_pending = true; /* any other opcode retires without running anything */
}

/* The completion: the halt word; a fault for EBREAK and for a faulting halt. */
static void complete(ksim_rv32c *c, ksim_shell *sh)
{
    bool fault = c->core.cause == KT_RV32_CAUSE_EBREAK || c->core.cause == KT_RV32_CAUSE_FAULT;
    ksim_shell_done(sh, c->core.halt_word, fault);
}

static void run_core(ksim_rv32c *c)
{
    /* every instruction that issues in this tick: the core's cycle count is its own clock */
    while (!c->core.halted && c->start_tick + c->core.cycles <= c->now) {
        if (ksim_rv32_step(&c->core) == KSIM_RV32_STALLED) {
            c->core.cycles++; /* held a cycle; the store is offered again next tick */
            break;
        }
    }
}

static void rv32_tick(void *p, ksim_shell *sh)
{
    ksim_rv32c *c = p;
    c->now++;
    /* a push's two flits leave back to back, ahead of a DATA_RECEIVED signal */
    while (c->push_left && ksim_shell_send(sh, &c->push[2 - c->push_left]))
        c->push_left--;
    if (!c->push_left && c->signal_pending && ksim_shell_send(sh, &c->signal))
        c->signal_pending = false;
    exec_tick(c);
    if (c->done_pending) {
        c->done_pending = false;
        complete(c, sh);
        return;
    }
    if (c->kick_pending) { /* K_START: one cycle between the accept and the run */
        c->kick_pending = false;
        ksim_rv32_start(&c->core, c->kick_pc);
        c->start_tick = c->now + 1;
        c->running = true;
        return;
    }
    if (!c->running)
        return;
    run_core(c);
    /* Done once halted and the executor has issued everything it fetched; a move the program
     * started may still be running in the mover (the node word says so). */
    if (c->core.halted && c->exec == KSIM_RV32_EXEC_IDLE && !c->push_left &&
        c->start_tick + c->core.cycles <= c->now) {
        c->running = false;
        complete(c, sh);
    }
}

/* ---- CU_DATA into the two windows (buf 0/1 granules, 4/5 one byte-enabled word) ---- */

static bool buf_known(uint8_t b)
{
    return b == KT_RV32_BUF_SPAD || b == KT_RV32_BUF_IMEM || b == KT_RV32_BUF_SPAD_WORD ||
           b == KT_RV32_BUF_IMEM_WORD;
}

static void rx_data(ksim_rv32c *c, const kt_flit *f)
{
    bool imem = c->rx_buf == KT_RV32_BUF_IMEM || c->rx_buf == KT_RV32_BUF_IMEM_WORD;
    uint32_t *win = imem ? c->imem : c->spad;
    uint32_t mask = (imem ? c->imem_words : c->spad_words) - 1;
    if (c->rx_buf == KT_RV32_BUF_SPAD || c->rx_buf == KT_RV32_BUF_IMEM) {
        for (unsigned i = 0; i < 8; i++)
            win[(c->rx_off * 8 + i) & mask] = (uint32_t)(f->w[i / 2] >> (32 * (i % 2)));
    } else {
        uint64_t p = f->w[0];
        unsigned sel = (p >> 36) & 7, be = (p >> 32) & 15;
        uint32_t *w = &win[(c->rx_off * 8 + sel) & mask];
        for (unsigned b = 0; b < 4; b++)
            /* the instruction window has no byte enables: the whole word is written */
            if (imem || (be >> b & 1))
                *w = (*w & ~(0xffu << (8 * b))) | ((uint32_t)p & (0xffu << (8 * b)));
    }
}

static bool rv32_recv(void *p, const kt_flit *f)
{
    ksim_rv32c *c = p;
    kt_header h = kt_header_get(f);
    if (h.type != KT_T_CU_DATA)
        return true; /* the PE issues no memory requests here: nothing else is expected */
    if (!c->rx_active) {
        if (c->signal_pending)
            return false; /* the last burst's signal has not left yet */
        kt_cu_data d = kt_cu_data_get(f);
        uint32_t words = d.buf_id == KT_RV32_BUF_IMEM || d.buf_id == KT_RV32_BUF_IMEM_WORD
                             ? c->imem_words
                             : c->spad_words;
        c->rx_active = true;
        c->rx_buf = d.buf_id;
        c->rx_off = d.offset;
        c->rx_left = d.len + 1u;
        c->rx_flags = d.flags;
        c->rx_src = h.src;
        c->rx_ack = d.ack;
        /* offset + len must fit the named window, rejected rather than wrapped: the burst is
         * counted out and discarded */
        c->rx_drop = !buf_known(d.buf_id) || (uint32_t)d.offset + d.len >= words / 8;
        if (c->rx_drop)
            c->dropped_bursts++;
        return true;
    }
    if (!c->rx_drop)
        rx_data(c, f);
    c->rx_off++;
    if (--c->rx_left)
        return true;
    c->rx_active = false;
    if (!c->rx_drop && (c->rx_flags & 1)) {
        kt_coord to = (c->rx_ack.x || c->rx_ack.y) ? c->rx_ack : c->rx_src;
        kt_flit_signal(&c->signal, to, c->at, 0, KT_SIG_DATA_RECEIVED, c->rx_buf);
        c->signal_pending = true;
    }
    return true;
}

/* CU_DBG: {instructions retired, cycles} of the current or last program, 32 bits each (the
 * PE's dbg_ctr), cleared at each kick: per run, not to be differenced across kicks. */
static uint64_t rv32_dbg(void *p)
{
    const ksim_rv32c *c = p;
    return (uint64_t)(uint32_t)c->core.retired << 32 | (uint32_t)c->core.cycles;
}

static bool rv32_idle(void *p)
{
    const ksim_rv32c *c = p;
    return !c->running && !c->kick_pending && !c->done_pending && !c->rx_active &&
           !c->signal_pending && !c->push_left && c->exec == KSIM_RV32_EXEC_IDLE;
}

/* Ticks that only move the unit's clock: idle, or a running core held until its own clock
 * catches up with its cycle count (a miss, a multi-cycle instruction) with nothing to send and
 * the executor idle. Its cycle count is its own, so the clock alone is owed. */
static uint64_t rv32_quiet(void *p)
{
    const ksim_rv32c *c = p;
    if (rv32_idle(p))
        return UINT64_MAX;
    if (!c->running || c->kick_pending || c->done_pending || c->signal_pending || c->push_left ||
        c->exec != KSIM_RV32_EXEC_IDLE)
        return 0;
    /* a tick moves the clock first: the one that reaches the core's next cycle runs it */
    uint64_t next = c->start_tick + c->core.cycles;
    return next > c->now + 1 ? next - c->now - 1 : 0;
}

static void rv32_skip(void *p, uint64_t n) { ((ksim_rv32c *)p)->now += n; }

const ksim_unit_ops ksim_unit_rv32 = {
    .kind = "rv32",
    .default_type = KT_RV32_CU_TYPE,
    .create = rv32_create,
    .destroy = rv32_destroy,
    .reset = rv32_reset,
    .ready = rv32_ready,
    .issue = rv32_issue,
    .tick = rv32_tick,
    .recv = rv32_recv,
    .dbg = rv32_dbg,
    .idle = rv32_idle,
    .quiet = rv32_quiet,
    .skip = rv32_skip,
    .settings = rv32_settings,
};
