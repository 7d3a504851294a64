/* SPDX-License-Identifier: MIT */
/* The RV64 core's executor: memories, reset, and the run loop.
 *
 * Speed comes from these choices: the instruction memory is decoded once per host write (fetch
 * is an array index), the loop keeps the counters in locals and writes them back only when it
 * leaves the fast path (a CSR, a trap, a control-region access), the scratchpad is a flat byte
 * array tested with one unsigned compare per access, and each handler dispatches the next
 * instruction itself where the compiler allows (KSIM_RV64_THREADED) — inside a straight run
 * (ksim_rv64_insn.run) without re-testing the budget, cycle limit, interrupts or fetch range,
 * with the run's instructions retired up front and the pc implied by the decoded slot. */
#include <stdlib.h>
#include <string.h>

#include "rv64.h"
#include "rv64_ops.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the scratchpad is accessed with host loads and stores: a little-endian host is required"
#endif

enum { CTRL_BYTES = 256 };

/* Threaded dispatch needs labels as values, which GCC and Clang have on every target; any other
 * compiler runs the same handlers through the switch. */
#if defined(__GNUC__) && !defined(KSIM_RV64_SWITCH_ONLY)
#define KSIM_RV64_THREADED 1
#else
#define KSIM_RV64_THREADED 0
#endif

void ksim_rv64_cfg_default(ksim_rv64_cfg *cfg)
{
    cfg->imem_words = 8192;
    cfg->spad_words = 4096;
    cfg->spad_base = 0x10000;
    cfg->ctrl_base = 0x20000;
    ksim_rv64_costs_default(&cfg->costs);
}

static bool pow2(uint32_t v) { return v && !(v & (v - 1)); }

static bool regions_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

/* Operations after which the run ends: they change the flow (jumps, branches, traps, MRET),
 * the interrupt state (CSR writes) or may stop the core (WFI). Every other operation falls
 * through to the next word unless it traps or reaches the control region, and both of those
 * leave the run on their own path. */
static const bool ends_run[RV_OP_COUNT] = {
    [RV_ILLEGAL] = true, [RV_JAL] = true,    [RV_JALR] = true,   [RV_BEQ] = true,
    [RV_BNE] = true,     [RV_BLT] = true,    [RV_BGE] = true,    [RV_BLTU] = true,
    [RV_BGEU] = true,    [RV_ECALL] = true,  [RV_EBREAK] = true, [RV_MRET] = true,
    [RV_WFI] = true,     [RV_CSRRW] = true,  [RV_CSRRS] = true,  [RV_CSRRC] = true,
    [RV_CSRRWI] = true,  [RV_CSRRSI] = true, [RV_CSRRCI] = true, [RV_JUMP_MISALIGNED] = true,
};

/* Recompute the runs a write at index can change: its own and those of the words before it
 * up to the previous run end (at most KSIM_RV64_RUN_MAX - 1 of them). The last word's run is
 * one instruction, so a run never reaches past the memory. */
static void runs_update(ksim_rv64 *c, uint32_t index)
{
    ksim_rv64_insn *dec = c->dec;
    uint32_t last = c->cfg.imem_words - 1;
    for (uint32_t j = index, steps = 0;; j--, steps++) {
        ksim_rv64_insn *in = &dec[j];
        if (ends_run[in->op] || j == last) {
            in->run = 1;
            in->run_cycles = in->cycles;
        } else if (in[1].run < KSIM_RV64_RUN_MAX) {
            in->run = (uint16_t)(in[1].run + 1);
            in->run_cycles = in->cycles + in[1].run_cycles;
        } else { /* capped: the run drops the word the next run ended on */
            in->run = KSIM_RV64_RUN_MAX;
            in->run_cycles = in->cycles + in[1].run_cycles - dec[j + KSIM_RV64_RUN_MAX].cycles;
        }
        if (j == 0 || steps == KSIM_RV64_RUN_MAX || ends_run[dec[j - 1].op])
            break;
    }
}

bool ksim_rv64_init(ksim_rv64 *c, const ksim_rv64_cfg *cfg, const ksim_rv64_bus *bus)
{
    memset(c, 0, sizeof *c);
    if (!pow2(cfg->imem_words) || !pow2(cfg->spad_words) || cfg->imem_words > (1u << 24) ||
        cfg->spad_words > (1u << 24) || (cfg->ctrl_base & (CTRL_BYTES - 1)) || (cfg->spad_base & 7))
        return false;
    c->cfg = *cfg;
    c->bus = *bus;
    c->imem_bytes = cfg->imem_words * 4;
    c->spad_bytes = cfg->spad_words * 8;
    if (regions_overlap(0, c->imem_bytes, cfg->spad_base, c->spad_bytes) ||
        regions_overlap(0, c->imem_bytes, cfg->ctrl_base, CTRL_BYTES) ||
        regions_overlap(cfg->spad_base, c->spad_bytes, cfg->ctrl_base, CTRL_BYTES))
        return false;
    c->imem = calloc(cfg->imem_words, sizeof *c->imem);
    c->dec = calloc(cfg->imem_words, sizeof *c->dec);
    c->spad = calloc(c->spad_bytes, 1);
    if (!c->imem || !c->dec || !c->spad)
        return false;
    for (uint32_t i = 0; i < cfg->imem_words; i++) {
        ksim_rv64_decode(&cfg->costs, 0, &c->dec[i]);
        runs_update(c, i);
    }
    ksim_rv64_reset(c);
    return true;
}

void ksim_rv64_free(ksim_rv64 *c)
{
    free(c->imem);
    free(c->dec);
    free(c->spad);
    c->imem = NULL;
    c->dec = NULL;
    c->spad = NULL;
}

void ksim_rv64_reset(ksim_rv64 *c)
{
    memset(c->x, 0, sizeof c->x);
    memset(&c->csr, 0, sizeof c->csr);
    c->pc = 0;
    c->cycles = c->retired = 0;
    c->halted = false;
    c->halt_cause = 0;
    c->halt_pc = 0;
    c->wfi = false;
    c->store_valid = false;
    c->irq_ready = false;
}

void ksim_rv64_imem_write(ksim_rv64 *c, uint32_t index, uint32_t word)
{
    index &= c->cfg.imem_words - 1;
    c->imem[index] = word;
    ksim_rv64_decode(&c->cfg.costs, word, &c->dec[index]);
    if (c->handlers)
        c->dec[index].handler = c->handlers[c->dec[index].op];
    runs_update(c, index);
}

void ksim_rv64_spad_write(ksim_rv64 *c, uint32_t index, uint64_t value, uint8_t strobes,
                          uint64_t cycle)
{
    index &= c->cfg.spad_words - 1;
    uint32_t base = index * 8;
    /* The host takes the scratchpad's one write port: a core store issued in this same cycle
     * never happened. Undo it before the host's bytes land. */
    if (c->store_valid && c->store_cycle == cycle) {
        memcpy(c->spad + c->store_off, c->store_old, c->store_width);
        c->store_valid = false;
        c->lost_stores++;
    }
    for (unsigned b = 0; b < 8; b++)
        if (strobes & (1u << b))
            c->spad[base + b] = (uint8_t)(value >> (8 * b));
}

void ksim_rv64_idle_until(ksim_rv64 *c, uint64_t cycle)
{
    if (cycle > c->cycles)
        c->cycles = cycle;
}

static int64_t sx32(uint64_t v) { return (int64_t)(int32_t)(uint32_t)v; }

/* Division by the rules of the M extension: no trap, x/0 = all ones, x%0 = x, and the one
 * overflowing quotient (most negative / -1) is the dividend with remainder 0. */
static uint64_t div_s(int64_t a, int64_t b)
{
    if (b == 0)
        return UINT64_MAX;
    if (a == INT64_MIN && b == -1)
        return (uint64_t)a;
    return (uint64_t)(a / b);
}
static uint64_t rem_s(int64_t a, int64_t b)
{
    if (b == 0)
        return (uint64_t)a;
    if (a == INT64_MIN && b == -1)
        return 0;
    return (uint64_t)(a % b);
}
static uint64_t div_u(uint64_t a, uint64_t b) { return b ? a / b : UINT64_MAX; }
static uint64_t rem_u(uint64_t a, uint64_t b) { return b ? a % b : a; }
static uint64_t divw_s(int32_t a, int32_t b)
{
    if (b == 0)
        return UINT64_MAX;
    if (a == INT32_MIN && b == -1)
        return (uint64_t)(int64_t)a;
    return (uint64_t)(int64_t)(a / b);
}
static uint64_t remw_s(int32_t a, int32_t b)
{
    if (b == 0)
        return (uint64_t)(int64_t)a;
    if (a == INT32_MIN && b == -1)
        return 0;
    return (uint64_t)(int64_t)(a % b);
}
static uint64_t divw_u(uint32_t a, uint32_t b) { return (uint64_t)sx32(b ? a / b : UINT32_MAX); }
static uint64_t remw_u(uint32_t a, uint32_t b) { return (uint64_t)sx32(b ? a % b : a); }

static uint64_t mulh_ss(int64_t a, int64_t b) { return (uint64_t)(((__int128)a * b) >> 64); }
static uint64_t mulh_uu(uint64_t a, uint64_t b)
{
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}
static uint64_t mulh_su(int64_t a, uint64_t b)
{
    /* a signed × b unsigned: the unsigned product minus b·2^64 when a is negative. */
    uint64_t hi = mulh_uu((uint64_t)a, b);
    return a < 0 ? hi - b : hi;
}

/* A control-region access: offset within the 256 bytes, or -1 when the address is elsewhere. */
static int64_t ctrl_offset(const ksim_rv64 *c, uint64_t a)
{
    return (a >> 8) == (c->cfg.ctrl_base >> 8) ? (int64_t)(a & (CTRL_BYTES - 1)) : -1;
}

/* A loaded value widened to 64 bits, as the load's width and signedness say. */
static uint64_t extend(uint64_t v, unsigned width, bool sign)
{
    if (width == 8)
        return v;
    unsigned sh = 64 - 8 * width;
    return sign ? (uint64_t)((int64_t)(v << sh) >> sh) : (v << sh) >> sh;
}

/* GCC merges the handlers' identical dispatch tails into one shared indirect jump
 * (cross-jumping), which undoes threaded dispatch: one jump predicts every transition. */
#if KSIM_RV64_THREADED && defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-crossjumping", "no-gcse")))
#endif
ksim_rv64_stop ksim_rv64_run(ksim_rv64 *c, uint64_t max_insns, uint64_t cycle_limit)
{
    if (c->halted)
        return KSIM_RV64_HALTED;
    if (c->wfi) {
        if (!(c->csr.mip & c->csr.mie))
            return KSIM_RV64_WFI;
        c->wfi = false;
    }
    uint64_t *const x = c->x;
    uint8_t *const spad = c->spad;
    const ksim_rv64_insn *const dec = c->dec;
    const uint64_t spad_base = c->cfg.spad_base, imem_bytes = c->imem_bytes;
    const uint32_t spad_bytes = c->spad_bytes;
    /* The scratchpad's size in units of each access width (SPAD_OK). */
    const uint64_t spad_units[4] = {spad_bytes, spad_bytes >> 1, spad_bytes >> 2, spad_bytes >> 3};
    const uint32_t taken = c->cfg.costs.cycles[KSIM_RV64_TAKEN];
    const uint32_t ctrl_cost = c->cfg.costs.cycles[KSIM_RV64_CTRL];
    uint64_t pc = c->pc, cycles = c->cycles, retired = c->retired;
    uint64_t cause = 0, tval = 0;
    ksim_rv64_stop stop = KSIM_RV64_BUDGET;

    /* The instruction executing, and the last one of the straight run it belongs to. While an
     * instruction executes its address is implied by its slot (PC), so the handlers inside a run
     * keep no pc. A run's instructions are counted retired (and taken off the budget) when it
     * begins; leaving a run early (LEAVE_RUN) gives back those that did not complete. */
    const ksim_rv64_insn *in = dec, *run_end = dec;
    uint64_t next = 0;
#define PC ((uint64_t)(in - dec) << 2)
#define LEAVE_RUN()                                                                                \
    do {                                                                                           \
        uint64_t undone_ = (uint64_t)(run_end - in);                                              \
        retired -= undone_;                                                                        \
        max_insns += undone_;                                                                      \
        run_end = in;                                                                              \
    } while (0)
/* Leave the fast path: write the locals back; come back: reload them. */
#define SYNC() (c->pc = pc, c->cycles = cycles, c->retired = retired)
#define RELOAD() (pc = c->pc, cycles = c->cycles, retired = c->retired)
/* Operands, read by the handlers that use them. */
#define RS1 (x[in->rs1])
#define RS2 (x[in->rs2])
/* Threaded dispatch (below) or, without it, each handler breaks out of the switch to the loop's
 * tail. (The ends are blocks, not do-while: `continue` must reach the loop.) */
#if KSIM_RV64_THREADED
#define OP(op)                                                                                     \
    case op:                                                                                       \
    L_##op:
#define DISPATCH()                                                                                 \
    do {                                                                                           \
        cycles += in->cycles;                                                                      \
        goto *in->handler;                                                                         \
    } while (0)
/* The end of an instruction that continues at next. When the next instruction's whole straight
 * run fits the budget and the cycle limit, no interrupt is pending and it is in the instruction
 * memory, start that run (retiring and budgeting it up front) and jump straight to it;
 * otherwise back to the loop, which checks an instruction at a time. Each handler has its own
 * copy, so each has its own indirect jump for the host to predict. */
#define DONE_TO_NEXT                                                                               \
    {                                                                                              \
        retired++;                                                                                 \
        if (next < imem_bytes && !c->irq_ready && cycles < cycle_limit) {                         \
            const ksim_rv64_insn *to = &dec[next >> 2];                                            \
            if (to->run < max_insns && cycle_limit - cycles > to->run_cycles) {                   \
                in = to;                                                                           \
                run_end = to + (to->run - 1u);                                                     \
                retired += to->run - 1u;                                                           \
                max_insns -= to->run;                                                              \
                DISPATCH();                                                                        \
            }                                                                                      \
        }                                                                                          \
        pc = next;                                                                                 \
        continue;                                                                                  \
    }
/* The end of an instruction that falls through. Inside a straight run none of the checks can
 * fail (the run ends at the first operation that could change what they test, and its budget
 * and cycles were checked when it began) and the instruction was retired with the run. */
#define DONE                                                                                       \
    {                                                                                              \
        if (in != run_end) {                                                                       \
            in++;                                                                                  \
            DISPATCH();                                                                            \
        }                                                                                          \
        next = PC + 4;                                                                             \
        DONE_TO_NEXT                                                                               \
    }
#else
#define OP(op) case op:
#define DONE break
#define DONE_TO_NEXT break
#endif
#define RAISE(code, value)                                                                         \
    do {                                                                                           \
        cause = (code);                                                                            \
        tval = (value);                                                                            \
        LEAVE_RUN();                                                                               \
        pc = PC;                                                                                   \
        goto exception;                                                                            \
    } while (0)
/* A scratchpad access of width w at off (the address less the scratchpad's base, which is
 * 8-aligned): in range and naturally aligned, tested with one compare. Rotating the low bits
 * to the top turns a misaligned offset into one far beyond any scratchpad. */
#define SPAD_OK(off, lg)                                                                           \
    ((((off) >> (lg)) | ((off) << ((64 - (lg)) & 63))) < spad_units[lg])

#if KSIM_RV64_THREADED
    /* Every operation's handler, for the dispatch at the end of each (THREADED below). */
    static const void *const handler[RV_OP_COUNT] = {
        [RV_ILLEGAL] = &&L_RV_ILLEGAL,
        [RV_LUI] = &&L_RV_LUI,
        [RV_AUIPC] = &&L_RV_AUIPC,
        [RV_JAL] = &&L_RV_JAL,
        [RV_JALR] = &&L_RV_JALR,
        [RV_BEQ] = &&L_RV_BEQ,
        [RV_BNE] = &&L_RV_BNE,
        [RV_BLT] = &&L_RV_BLT,
        [RV_BGE] = &&L_RV_BGE,
        [RV_BLTU] = &&L_RV_BLTU,
        [RV_BGEU] = &&L_RV_BGEU,
        [RV_LB] = &&L_RV_LB,
        [RV_LH] = &&L_RV_LH,
        [RV_LW] = &&L_RV_LW,
        [RV_LD] = &&L_RV_LD,
        [RV_LBU] = &&L_RV_LBU,
        [RV_LHU] = &&L_RV_LHU,
        [RV_LWU] = &&L_RV_LWU,
        [RV_SB] = &&L_RV_SB,
        [RV_SH] = &&L_RV_SH,
        [RV_SW] = &&L_RV_SW,
        [RV_SD] = &&L_RV_SD,
        [RV_ADDI] = &&L_RV_ADDI,
        [RV_SLTI] = &&L_RV_SLTI,
        [RV_SLTIU] = &&L_RV_SLTIU,
        [RV_XORI] = &&L_RV_XORI,
        [RV_ORI] = &&L_RV_ORI,
        [RV_ANDI] = &&L_RV_ANDI,
        [RV_SLLI] = &&L_RV_SLLI,
        [RV_SRLI] = &&L_RV_SRLI,
        [RV_SRAI] = &&L_RV_SRAI,
        [RV_ADDIW] = &&L_RV_ADDIW,
        [RV_SLLIW] = &&L_RV_SLLIW,
        [RV_SRLIW] = &&L_RV_SRLIW,
        [RV_SRAIW] = &&L_RV_SRAIW,
        [RV_ADD] = &&L_RV_ADD,
        [RV_SUB] = &&L_RV_SUB,
        [RV_SLL] = &&L_RV_SLL,
        [RV_SLT] = &&L_RV_SLT,
        [RV_SLTU] = &&L_RV_SLTU,
        [RV_XOR] = &&L_RV_XOR,
        [RV_SRL] = &&L_RV_SRL,
        [RV_SRA] = &&L_RV_SRA,
        [RV_OR] = &&L_RV_OR,
        [RV_AND] = &&L_RV_AND,
        [RV_ADDW] = &&L_RV_ADDW,
        [RV_SUBW] = &&L_RV_SUBW,
        [RV_SLLW] = &&L_RV_SLLW,
        [RV_SRLW] = &&L_RV_SRLW,
        [RV_SRAW] = &&L_RV_SRAW,
        [RV_MUL] = &&L_RV_MUL,
        [RV_MULH] = &&L_RV_MULH,
        [RV_MULHSU] = &&L_RV_MULHSU,
        [RV_MULHU] = &&L_RV_MULHU,
        [RV_DIV] = &&L_RV_DIV,
        [RV_DIVU] = &&L_RV_DIVU,
        [RV_REM] = &&L_RV_REM,
        [RV_REMU] = &&L_RV_REMU,
        [RV_MULW] = &&L_RV_MULW,
        [RV_DIVW] = &&L_RV_DIVW,
        [RV_DIVUW] = &&L_RV_DIVUW,
        [RV_REMW] = &&L_RV_REMW,
        [RV_REMUW] = &&L_RV_REMUW,
        [RV_FENCE] = &&L_RV_FENCE,
        [RV_FENCE_I] = &&L_RV_FENCE_I,
        [RV_ECALL] = &&L_RV_ECALL,
        [RV_EBREAK] = &&L_RV_EBREAK,
        [RV_MRET] = &&L_RV_MRET,
        [RV_WFI] = &&L_RV_WFI,
        [RV_CSRRW] = &&L_RV_CSRRW,
        [RV_CSRRS] = &&L_RV_CSRRS,
        [RV_CSRRC] = &&L_RV_CSRRC,
        [RV_CSRRWI] = &&L_RV_CSRRWI,
        [RV_CSRRSI] = &&L_RV_CSRRSI,
        [RV_CSRRCI] = &&L_RV_CSRRCI,
        [RV_JUMP_MISALIGNED] = &&L_RV_JUMP_MISALIGNED,
    };
    if (c->handlers != handler) {
        c->handlers = handler;
        for (uint32_t i = 0; i < c->cfg.imem_words; i++)
            c->dec[i].handler = handler[c->dec[i].op];
    }
#endif
    for (; max_insns; max_insns--) {
        if (cycles >= cycle_limit)
            break;
        if (c->irq_ready) {
            SYNC();
            ksim_rv64_interrupt(c);
            RELOAD();
        }
        if (pc >= imem_bytes) {
            cause = KSIM_RV64_EXC_FETCH_FAULT;
            tval = pc;
            goto exception;
        }
        in = run_end = &dec[pc >> 2];
        next = pc + 4;
        cycles += in->cycles;
        switch ((enum ksim_rv64_op)in->op) {
        OP(RV_LUI) x[in->rd] = (uint64_t)in->imm; DONE;
        OP(RV_AUIPC) x[in->rd] = PC + (uint64_t)in->imm; DONE;
        OP(RV_JAL)
            next = PC + (uint64_t)in->imm;
            x[in->rd] = PC + 4;
            DONE_TO_NEXT;
        OP(RV_JALR) {
            uint64_t t = (RS1 + (uint64_t)in->imm) & ~1ull;
            if (t & 3)
                RAISE(KSIM_RV64_EXC_FETCH_MISALIGNED, t);
            x[in->rd] = PC + 4;
            next = t;
            DONE_TO_NEXT;
        }
#define BRANCH(cond)                                                                               \
    {                                                                                              \
        uint64_t a = RS1, b = RS2;                                                                 \
        if (cond) {                                                                                \
            next = PC + (uint64_t)in->imm;                                                         \
            cycles += taken;                                                                       \
        } else {                                                                                   \
            next = PC + 4;                                                                         \
        }                                                                                          \
        DONE_TO_NEXT;                                                                              \
    }
        OP(RV_BEQ) BRANCH(a == b)
        OP(RV_BNE) BRANCH(a != b)
        OP(RV_BLT) BRANCH((int64_t)a < (int64_t)b)
        OP(RV_BGE) BRANCH((int64_t)a >= (int64_t)b)
        OP(RV_BLTU) BRANCH(a < b)
        OP(RV_BGEU) BRANCH(a >= b)
#undef BRANCH
/* One handler per width and signedness: the width is a constant in each, so the scratchpad
 * access is one host load or store. Anything but an aligned scratchpad access takes the slow
 * path, which tests misalignment first, as the architecture orders the faults. */
#define LOAD(op, w, lg, sign)                                                                       \
    OP(op)                                                                                          \
    {                                                                                               \
        uint64_t addr = RS1 + (uint64_t)in->imm, off = addr - spad_base, v = 0;                     \
        if (SPAD_OK(off, lg)) {                                                                     \
            memcpy(&v, spad + off, w);                                                              \
        } else {                                                                                    \
            if (addr & (w - 1))                                                                     \
                RAISE(KSIM_RV64_EXC_LOAD_MISALIGNED, addr);                                         \
            int64_t co = ctrl_offset(c, addr);                                                      \
            if (co < 0)                                                                             \
                RAISE(KSIM_RV64_EXC_LOAD_FAULT, addr);                                              \
            cycles += ctrl_cost;                                                                    \
            LEAVE_RUN(); /* the bus may raise an interrupt: back to the checked end */              \
            pc = PC;                                                                                \
            SYNC();                                                                                 \
            v = c->bus.ctrl_load(c->bus.ctx, (uint32_t)co, w);                                      \
        }                                                                                           \
        x[in->rd] = extend(v, w, sign);                                                             \
        DONE;                                                                                       \
    }
#define STORE(op, w, lg)                                                                            \
    OP(op)                                                                                          \
    {                                                                                               \
        uint64_t addr = RS1 + (uint64_t)in->imm, off = addr - spad_base, b = RS2;                   \
        if (SPAD_OK(off, lg)) {                                                                     \
            /* Remember what the store replaced, for a host write in the cycle it issued. */        \
            c->store_cycle = cycles - in->cycles;                                                   \
            c->store_off = (uint32_t)off;                                                           \
            c->store_width = (uint8_t)w;                                                            \
            memcpy(c->store_old, spad + off, w);                                                    \
            c->store_valid = true;                                                                  \
            memcpy(spad + off, &b, w);                                                              \
        } else {                                                                                    \
            if (addr & (w - 1))                                                                     \
                RAISE(KSIM_RV64_EXC_STORE_MISALIGNED, addr);                                        \
            int64_t co = ctrl_offset(c, addr);                                                      \
            if (co < 0)                                                                             \
                RAISE(KSIM_RV64_EXC_STORE_FAULT, addr);                                             \
            cycles += ctrl_cost;                                                                    \
            LEAVE_RUN();                                                                            \
            c->pc = PC + 4;                                                                         \
            c->cycles = cycles;                                                                     \
            c->retired = retired + 1;                                                               \
            bool halt = c->bus.ctrl_store(c->bus.ctx, (uint32_t)co, w, b);                          \
            RELOAD();                                                                               \
            if (halt) {                                                                             \
                stop = KSIM_RV64_BUS_STOP;                                                          \
                goto out;                                                                           \
            }                                                                                       \
            continue;                                                                               \
        }                                                                                           \
        DONE;                                                                                       \
    }
        LOAD(RV_LB, 1, 0, true)
        LOAD(RV_LH, 2, 1, true)
        LOAD(RV_LW, 4, 2, true)
        LOAD(RV_LD, 8, 3, false)
        LOAD(RV_LBU, 1, 0, false)
        LOAD(RV_LHU, 2, 1, false)
        LOAD(RV_LWU, 4, 2, false)
        STORE(RV_SB, 1, 0)
        STORE(RV_SH, 2, 1)
        STORE(RV_SW, 4, 2)
        STORE(RV_SD, 8, 3)
#undef LOAD
#undef STORE
        OP(RV_ADDI) x[in->rd] = RS1 + (uint64_t)in->imm; DONE;
        OP(RV_SLTI) x[in->rd] = (int64_t)RS1 < in->imm; DONE;
        OP(RV_SLTIU) x[in->rd] = RS1 < (uint64_t)in->imm; DONE;
        OP(RV_XORI) x[in->rd] = RS1 ^ (uint64_t)in->imm; DONE;
        OP(RV_ORI) x[in->rd] = RS1 | (uint64_t)in->imm; DONE;
        OP(RV_ANDI) x[in->rd] = RS1 & (uint64_t)in->imm; DONE;
        OP(RV_SLLI) x[in->rd] = RS1 << in->imm; DONE;
        OP(RV_SRLI) x[in->rd] = RS1 >> in->imm; DONE;
        OP(RV_SRAI) x[in->rd] = (uint64_t)((int64_t)RS1 >> in->imm); DONE;
        OP(RV_ADDIW) x[in->rd] = (uint64_t)sx32(RS1 + (uint64_t)in->imm); DONE;
        OP(RV_SLLIW) x[in->rd] = (uint64_t)sx32((uint32_t)RS1 << in->imm); DONE;
        OP(RV_SRLIW) x[in->rd] = (uint64_t)sx32((uint32_t)RS1 >> in->imm); DONE;
        OP(RV_SRAIW) x[in->rd] = (uint64_t)(int64_t)((int32_t)(uint32_t)RS1 >> in->imm); DONE;
        OP(RV_ADD) x[in->rd] = RS1 + RS2; DONE;
        OP(RV_SUB) x[in->rd] = RS1 - RS2; DONE;
        OP(RV_SLL) x[in->rd] = RS1 << (RS2 & 63); DONE;
        OP(RV_SLT) x[in->rd] = (int64_t)RS1 < (int64_t)RS2; DONE;
        OP(RV_SLTU) x[in->rd] = RS1 < RS2; DONE;
        OP(RV_XOR) x[in->rd] = RS1 ^ RS2; DONE;
        OP(RV_SRL) x[in->rd] = RS1 >> (RS2 & 63); DONE;
        OP(RV_SRA) x[in->rd] = (uint64_t)((int64_t)RS1 >> (RS2 & 63)); DONE;
        OP(RV_OR) x[in->rd] = RS1 | RS2; DONE;
        OP(RV_AND) x[in->rd] = RS1 & RS2; DONE;
        OP(RV_ADDW) x[in->rd] = (uint64_t)sx32(RS1 + RS2); DONE;
        OP(RV_SUBW) x[in->rd] = (uint64_t)sx32(RS1 - RS2); DONE;
        OP(RV_SLLW) x[in->rd] = (uint64_t)sx32((uint32_t)RS1 << (RS2 & 31)); DONE;
        OP(RV_SRLW) x[in->rd] = (uint64_t)sx32((uint32_t)RS1 >> (RS2 & 31)); DONE;
        OP(RV_SRAW) x[in->rd] = (uint64_t)(int64_t)((int32_t)(uint32_t)RS1 >> (RS2 & 31)); DONE;
        OP(RV_MUL) x[in->rd] = RS1 * RS2; DONE;
        OP(RV_MULH) x[in->rd] = mulh_ss((int64_t)RS1, (int64_t)RS2); DONE;
        OP(RV_MULHSU) x[in->rd] = mulh_su((int64_t)RS1, RS2); DONE;
        OP(RV_MULHU) x[in->rd] = mulh_uu(RS1, RS2); DONE;
        OP(RV_DIV) x[in->rd] = div_s((int64_t)RS1, (int64_t)RS2); DONE;
        OP(RV_DIVU) x[in->rd] = div_u(RS1, RS2); DONE;
        OP(RV_REM) x[in->rd] = rem_s((int64_t)RS1, (int64_t)RS2); DONE;
        OP(RV_REMU) x[in->rd] = rem_u(RS1, RS2); DONE;
        OP(RV_MULW) x[in->rd] = (uint64_t)sx32((uint32_t)RS1 * (uint32_t)RS2); DONE;
        OP(RV_DIVW) x[in->rd] = divw_s((int32_t)(uint32_t)RS1, (int32_t)(uint32_t)RS2); DONE;
        OP(RV_DIVUW) x[in->rd] = divw_u((uint32_t)RS1, (uint32_t)RS2); DONE;
        OP(RV_REMW) x[in->rd] = remw_s((int32_t)(uint32_t)RS1, (int32_t)(uint32_t)RS2); DONE;
        OP(RV_REMUW) x[in->rd] = remw_u((uint32_t)RS1, (uint32_t)RS2); DONE;
        OP(RV_FENCE)
        OP(RV_FENCE_I) DONE; /* one hart, no cache model: ordering is free */
        OP(RV_ECALL) RAISE(KSIM_RV64_EXC_ECALL_M, 0);
        OP(RV_EBREAK) RAISE(KSIM_RV64_EXC_BREAKPOINT, PC);
        OP(RV_MRET)
            pc = PC;
            SYNC();
            ksim_rv64_mret(c);
            next = c->pc;
            DONE_TO_NEXT;
        OP(RV_WFI)
            if (!(c->csr.mip & c->csr.mie)) {
                c->wfi = true;
                pc = PC + 4;
                retired++;
                stop = KSIM_RV64_WFI;
                goto out;
            }
            next = PC + 4;
            DONE_TO_NEXT;
        OP(RV_CSRRW)
        OP(RV_CSRRS)
        OP(RV_CSRRC)
        OP(RV_CSRRWI)
        OP(RV_CSRRSI)
        OP(RV_CSRRCI) {
            int row = (int)in->imm;
            bool imm_form = in->op >= RV_CSRRWI;
            uint64_t src = imm_form ? in->rs1 : RS1;
            unsigned kind = (in->op - RV_CSRRW) % 3; /* 0 write, 1 set, 2 clear */
            pc = PC;
            SYNC();
            /* CSRRW with rd = x0 does not read (a read could have a side effect). */
            uint64_t old = (kind == 0 && in->rd == 32) ? 0 : ksim_rv64_csr_read(c, row);
            if (kind == 0)
                ksim_rv64_csr_write(c, row, src);
            else if (in->rs1 != 0)
                ksim_rv64_csr_write(c, row, kind == 1 ? old | src : old & ~src);
            RELOAD();
            x[in->rd] = old;
            next = pc + 4;
            DONE_TO_NEXT;
        }
        OP(RV_JUMP_MISALIGNED) RAISE(KSIM_RV64_EXC_FETCH_MISALIGNED, PC + (uint64_t)in->imm);
        OP(RV_ILLEGAL)
        case RV_OP_COUNT:
        default: RAISE(KSIM_RV64_EXC_ILLEGAL, c->imem[PC >> 2]);
        }
        pc = next;
        retired++;
        continue;

    exception:
        SYNC();
        ksim_rv64_exception(c, cause, tval);
        RELOAD();
        if (c->halted) {
            stop = KSIM_RV64_HALTED;
            goto out;
        }
    }
out:
    SYNC();
    return stop;
#undef PC
#undef LEAVE_RUN
#undef SYNC
#undef RELOAD
#undef RS1
#undef RS2
#undef RAISE
#undef SPAD_OK
#undef OP
#undef DONE
#undef DONE_TO_NEXT
}
