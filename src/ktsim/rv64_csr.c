/* SPDX-License-Identifier: MIT */
/* The RV64 core's machine-mode state: the CSR table, traps, interrupts, MRET, and the cost
 * table's defaults.
 *
 * The core runs in machine mode only. mstatus.MPP reads 3 (machine) always; there is no
 * supervisor or user mode to return to, so MRET only restores MIE from MPIE. satp is kept as
 * storage (the control region mirrors it at R_SATP); the model translates no address. */
#include <string.h>

#include "rv64.h"

/* What a CSR row is backed by. */
typedef enum csr_kind {
    CSR_CONST, /* a constant (value) */
    CSR_MSTATUS,
    CSR_MIE,
    CSR_MIP,
    CSR_MTVEC,
    CSR_MSCRATCH,
    CSR_MEPC,
    CSR_MCAUSE,
    CSR_MTVAL,
    CSR_SATP,
    CSR_CYCLE,
    CSR_RETIRED,
} csr_kind;

typedef struct csr_row {
    uint16_t num;
    const char *name;
    csr_kind kind;
    uint64_t value; /* CSR_CONST */
} csr_row;

/* misa: MXL = 2 (64-bit), extensions I and M. */
#define MISA_VALUE ((2ull << 62) | (1u << ('I' - 'A')) | (1u << ('M' - 'A')))

/* Every CSR the core has. The top two bits of the number (11) mark the read-only ones. */
static const csr_row csr_table[] = {
    {0x300, "mstatus", CSR_MSTATUS, 0},
    {0x301, "misa", CSR_CONST, MISA_VALUE}, /* WARL, writes ignored */
    {0x304, "mie", CSR_MIE, 0},
    {0x305, "mtvec", CSR_MTVEC, 0},
    {0x340, "mscratch", CSR_MSCRATCH, 0},
    {0x341, "mepc", CSR_MEPC, 0},
    {0x342, "mcause", CSR_MCAUSE, 0},
    {0x343, "mtval", CSR_MTVAL, 0},
    {0x344, "mip", CSR_MIP, 0}, /* levels from the complex; writes ignored */
    {0x180, "satp", CSR_SATP, 0},
    {0xB00, "mcycle", CSR_CYCLE, 0},
    {0xB02, "minstret", CSR_RETIRED, 0},
    {0xC00, "cycle", CSR_CYCLE, 0},
    {0xC02, "instret", CSR_RETIRED, 0},
    {0xF11, "mvendorid", CSR_CONST, 0},
    {0xF12, "marchid", CSR_CONST, 0},
    {0xF13, "mimpid", CSR_CONST, 0},
    {0xF14, "mhartid", CSR_CONST, 0},
};
enum { CSR_ROWS = sizeof csr_table / sizeof csr_table[0] };

/* mstatus: MIE (3) and MPIE (7) are writable; MPP (12:11) is fixed at machine mode. */
enum { MSTATUS_MIE = 1u << 3, MSTATUS_MPIE = 1u << 7 };
#define MSTATUS_MPP (3ull << 11)
static const uint64_t mie_writable = KSIM_RV64_MSIP | KSIM_RV64_MTIP | KSIM_RV64_MEIP;

int ksim_rv64_csr_find(uint32_t num, bool *read_only)
{
    for (int i = 0; i < CSR_ROWS; i++)
        if (csr_table[i].num == num) {
            *read_only = (num >> 10) == 3;
            return i;
        }
    return -1;
}

uint64_t ksim_rv64_csr_read(ksim_rv64 *c, int row)
{
    const csr_row *r = &csr_table[row];
    switch (r->kind) {
    case CSR_CONST: return r->value;
    case CSR_MSTATUS: return c->csr.mstatus | MSTATUS_MPP;
    case CSR_MIE: return c->csr.mie;
    case CSR_MIP: return c->csr.mip;
    case CSR_MTVEC: return c->csr.mtvec;
    case CSR_MSCRATCH: return c->csr.mscratch;
    case CSR_MEPC: return c->csr.mepc;
    case CSR_MCAUSE: return c->csr.mcause;
    case CSR_MTVAL: return c->csr.mtval;
    case CSR_SATP: return c->csr.satp;
    case CSR_CYCLE: return c->cycles;
    case CSR_RETIRED: return c->retired;
    }
    return 0;
}

void ksim_rv64_csr_write(ksim_rv64 *c, int row, uint64_t v)
{
    switch (csr_table[row].kind) {
    case CSR_CONST:
    case CSR_MIP: break;
    case CSR_MSTATUS: c->csr.mstatus = v & (MSTATUS_MIE | MSTATUS_MPIE); break;
    case CSR_MIE: c->csr.mie = v & mie_writable; break;
    case CSR_MTVEC:
        /* Modes 0 (direct) and 1 (vectored); the reserved modes read back as direct. */
        c->csr.mtvec = (v & 3) <= 1 ? v : v & ~3ull;
        break;
    case CSR_MSCRATCH: c->csr.mscratch = v; break;
    case CSR_MEPC: c->csr.mepc = v & ~3ull; break; /* IALIGN = 32 */
    case CSR_MCAUSE: c->csr.mcause = v; break;
    case CSR_MTVAL: c->csr.mtval = v; break;
    case CSR_SATP: c->csr.satp = v; break;
    /* The writing instruction's cost is already counted, its retirement is not: after a
     * write of v, mcycle reads v and minstret v + 1 (plus what runs later). */
    case CSR_CYCLE: c->cycles = v; break;
    case CSR_RETIRED: c->retired = v; break;
    }
    ksim_rv64_update_irq(c);
}

void ksim_rv64_update_irq(ksim_rv64 *c)
{
    c->irq_ready = (c->csr.mstatus & MSTATUS_MIE) && (c->csr.mip & c->csr.mie);
}

void ksim_rv64_set_irq(ksim_rv64 *c, bool soft, bool external)
{
    c->csr.mip = (soft ? KSIM_RV64_MSIP : 0) | (external ? KSIM_RV64_MEIP : 0);
    ksim_rv64_update_irq(c);
}

/* Enter the handler: save pc and MIE, disable interrupts, jump through mtvec. */
static void trap_enter(ksim_rv64 *c, uint64_t cause, uint64_t tval, bool interrupt)
{
    c->csr.mepc = c->pc;
    c->csr.mcause = cause | (interrupt ? 1ull << 63 : 0);
    c->csr.mtval = tval;
    uint64_t mie = c->csr.mstatus & MSTATUS_MIE;
    c->csr.mstatus =
        (c->csr.mstatus & ~(uint64_t)(MSTATUS_MIE | MSTATUS_MPIE)) | (mie ? MSTATUS_MPIE : 0);
    uint64_t base = c->csr.mtvec & ~3ull;
    c->pc = (interrupt && (c->csr.mtvec & 3) == 1) ? base + 4 * cause : base;
    c->cycles += c->cfg.costs.cycles[KSIM_RV64_TRAP];
    ksim_rv64_update_irq(c);
}

/* Exception code → the halt cause latched when no handler is installed. */
static uint8_t halt_cause_of(uint64_t code)
{
    switch (code) {
    case KSIM_RV64_EXC_ECALL_M: return KSIM_RV64_HALT_ECALL;
    case KSIM_RV64_EXC_BREAKPOINT: return KSIM_RV64_HALT_EBREAK;
    case KSIM_RV64_EXC_ILLEGAL: return KSIM_RV64_HALT_ILLEGAL;
    default: return KSIM_RV64_HALT_FAULT;
    }
}

void ksim_rv64_exception(ksim_rv64 *c, uint64_t cause, uint64_t tval)
{
    if ((c->csr.mtvec & ~3ull) == 0) {
        c->halted = true;
        c->halt_cause = halt_cause_of(cause);
        c->halt_pc = c->pc;
        c->csr.mcause = cause;
        c->csr.mtval = tval;
        return;
    }
    trap_enter(c, cause, tval, false);
}

void ksim_rv64_interrupt(ksim_rv64 *c)
{
    /* Priority among machine interrupts: external, software, timer. */
    static const uint64_t order[] = {11, 3, 7};
    uint64_t pending = c->csr.mip & c->csr.mie;
    for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++)
        if (pending & (1ull << order[i])) {
            trap_enter(c, order[i], 0, true);
            return;
        }
}

void ksim_rv64_mret(ksim_rv64 *c)
{
    uint64_t mpie = c->csr.mstatus & MSTATUS_MPIE;
    c->csr.mstatus =
        (c->csr.mstatus & ~(uint64_t)MSTATUS_MIE) | (mpie ? MSTATUS_MIE : 0) | MSTATUS_MPIE;
    c->pc = c->csr.mepc;
    ksim_rv64_update_irq(c);
}

/* Cycle costs per class. */
static const struct {
    const char *name;
    uint32_t cycles;
} class_rows[KSIM_RV64_CLASS_COUNT] = {
    [KSIM_RV64_ALU] = {"alu", 1},       [KSIM_RV64_MUL] = {"mul", 3},
    [KSIM_RV64_DIV] = {"div", 34},  /* a one-bit-per-cycle divider plus set-up */
    [KSIM_RV64_LOAD] = {"load", 2}, /* one load-use cycle */
    [KSIM_RV64_STORE] = {"store", 1},   [KSIM_RV64_BRANCH] = {"branch", 1},
    [KSIM_RV64_TAKEN] = {"taken", 2}, /* the refetch after a taken branch */
    [KSIM_RV64_JUMP] = {"jump", 3},     [KSIM_RV64_CSR] = {"csr", 2},
    [KSIM_RV64_SYSTEM] = {"system", 3}, [KSIM_RV64_TRAP] = {"trap", 4},
    [KSIM_RV64_CTRL] = {"ctrl", 1},
};

void ksim_rv64_costs_default(ksim_rv64_costs *c)
{
    for (int i = 0; i < KSIM_RV64_CLASS_COUNT; i++)
        c->cycles[i] = class_rows[i].cycles;
}

int ksim_rv64_class_find(const char *name)
{
    for (int i = 0; i < KSIM_RV64_CLASS_COUNT; i++)
        if (!strcmp(class_rows[i].name, name))
            return i;
    return -1;
}

const char *ksim_rv64_class_name(ksim_rv64_class k)
{
    return (unsigned)k < KSIM_RV64_CLASS_COUNT ? class_rows[k].name : "?";
}
