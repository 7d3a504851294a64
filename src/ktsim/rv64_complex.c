/* SPDX-License-Identifier: MIT */
/* The RV64 control complex: host window, load window, interrupt levels, and the clock. The
 * control region and the mailbox are in rv64_ctrl.c. */
#include <string.h>

#include "rv64_complex.h"
#include "rv64_ctrl.h"

bool ksim_rv64c_init(ksim_rv64c *c, const ksim_rv64_cfg *cfg, kt_coord at,
                     const ksim_rv64_side *side)
{
    memset(c, 0, sizeof *c);
    c->at = at;
    if (side)
        c->side = *side;
    ksim_rv64_bus bus = {c, ksim_rv64c_ctrl_load, ksim_rv64c_ctrl_store};
    return ksim_rv64_init(&c->core, cfg, &bus);
}

void ksim_rv64c_free(ksim_rv64c *c) { ksim_rv64_free(&c->core); }

static void boot(ksim_rv64c *c)
{
    /* The boot pulse clears the latches and the counters; the mailbox's reset is the core's. */
    ksim_rv64_reset(&c->core);
    c->exited = c->halted = false;
    c->cause = 0;
    c->exit_word = c->halt_pc = 0;
    ksim_rv64c_mbox_reset(c);
    c->boot_cycle = c->now + 1; /* reset is released the cycle after the request */
    c->running = true;
    ksim_rv64c_update_irq(c);
}

/* The host registers (§6.3), by write offset. */
static void hr_write(ksim_rv64c *c, uint32_t off, uint64_t v)
{
    switch (off) {
    case KT_RV64_HR_BOOT:
        if (v & 1)
            boot(c);
        else
            c->running = false;
        break;
    case KT_RV64_HR_PC: c->hr_pc = v; break; /* stored, never used */
    case KT_RV64_HR_DBELL:
        c->dbell = v & 1;
        ksim_rv64c_update_irq(c);
        break;
    default: break; /* read-only or nothing there */
    }
}

void ksim_rv64c_hs_write(ksim_rv64c *c, uint32_t addr, uint64_t data, uint8_t strobes)
{
    switch (addr >> KT_RV64_HS_REGION_SHIFT) {
    case KT_RV64_HS_IMEM:
        /* One word per write from the low half; the strobes are not looked at. */
        ksim_rv64_imem_write(&c->core, (addr >> 2), (uint32_t)data);
        break;
    case KT_RV64_HS_SPAD:
        ksim_rv64_spad_write(&c->core, (addr >> 3), data, strobes,
                             c->running ? c->now - c->boot_cycle : KSIM_RV64_NO_CYCLE);
        break;
    case KT_RV64_HS_CTRL: hr_write(c, addr & 0xff, data); break;
    default: break; /* no region: ignored */
    }
}

uint64_t ksim_rv64c_hs_read(const ksim_rv64c *c, uint32_t addr)
{
    /* Selected by hs_addr[7:0] alone: every region reads as the control region. */
    switch (addr & 0xff) {
    case KT_RV64_HR_STATUS:
        return (c->exited ? KT_RV64_STATUS_EXITED : 0) | (c->halted ? KT_RV64_STATUS_HALTED : 0) |
               (c->cause & KT_RV64_STATUS_CAUSE);
    case KT_RV64_HR_EXIT: return c->exit_word;
    case KT_RV64_HR_HALTPC: return c->halt_pc;
    case KT_RV64_HR_CYCLES: return c->core.cycles;
    case KT_RV64_HR_RETIRED: return c->core.retired;
    default: return 0; /* the write-only registers and everything else */
    }
}

void ksim_rv64c_lw_write(ksim_rv64c *c, uint32_t off, uint64_t v)
{
    if (off < KT_RV64_LW_STDIN) {
        ksim_rv64c_hs_write(c, (KT_RV64_HS_CTRL << KT_RV64_HS_REGION_SHIFT) | off, v, 0xff);
        return;
    }
    switch (off) {
    case KT_RV64_LW_STDIN:
        if (c->stdin_count < KT_RV64_STDIN_DEPTH)
            c->stdin_q[(c->stdin_head + c->stdin_count++) % KT_RV64_STDIN_DEPTH] = (uint8_t)v;
        break;
    case KT_RV64_LW_LOAD_CTL:
        c->load_region = v & 1;
        c->load_off = (uint32_t)((v >> 8) & 0xffff);
        break;
    case KT_RV64_LW_LOAD_DATA:
        if (c->load_region == 0) {
            ksim_rv64c_hs_write(c, (KT_RV64_HS_IMEM << KT_RV64_HS_REGION_SHIFT) | c->load_off, v,
                                0xff);
            c->load_off += 4;
        } else {
            ksim_rv64c_hs_write(c, (KT_RV64_HS_SPAD << KT_RV64_HS_REGION_SHIFT) | c->load_off, v,
                                0xff);
            c->load_off += 8;
        }
        break;
    case KT_RV64_LW_CONS:
        if (c->cons_wr != c->cons_rd)
            c->cons_rd++;
        break;
    default: break;
    }
}

uint64_t ksim_rv64c_lw_read(ksim_rv64c *c, uint32_t off)
{
    if (off < KT_RV64_LW_STDIN)
        return ksim_rv64c_hs_read(c, (KT_RV64_HS_CTRL << KT_RV64_HS_REGION_SHIFT) | off);
    if (off == KT_RV64_LW_CONS)
        return c->cons_wr != c->cons_rd ? KT_RV64_CONS_VALID | c->cons[c->cons_rd] : 0;
    return 0;
}

void ksim_rv64c_tick(ksim_rv64c *c)
{
    c->now++;
    if (c->side.db_status)
        ksim_rv64c_update_irq(c); /* doorbells arrive without telling the complex */
    if (!c->running || c->now < c->boot_cycle)
        return;
    uint64_t through = c->now - c->boot_cycle + 1; /* run what issues in this cycle */
    ksim_rv64_stop st = ksim_rv64_run(&c->core, UINT64_MAX, through);
    switch (st) {
    case KSIM_RV64_WFI: ksim_rv64_idle_until(&c->core, through); break;
    case KSIM_RV64_HALTED:
        /* Latched: the complex re-asserts the core's reset at once, which clears the core's
         * own halted output. */
        c->halted = true;
        c->cause = c->core.halt_cause;
        c->halt_pc = c->core.halt_pc;
        c->running = false;
        break;
    case KSIM_RV64_BUS_STOP: c->running = false; break; /* the program exited */
    case KSIM_RV64_BUDGET: break;
    }
}
