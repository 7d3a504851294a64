/* SPDX-License-Identifier: MIT */
/* The RV64 control region (§7) and the dispatch mailbox (§7.5).
 *
 * The region is decoded by offset as a table of ranges; each range names how loads and stores
 * act. Registers are 64 bits wide: a narrower access moves the lanes it covers (a byte store
 * at 0x08 carries the byte in lane 0, as the store unit aligns it), and a narrower load returns
 * its lanes of the register. */
#include <string.h>

#include "rv64_ctrl.h"

/* The core's two interrupt levels: software follows HR_DBELL; external is raised while a
 * completion is queued or any inbound doorbell count is non-zero. */
void ksim_rv64c_update_irq(ksim_rv64c *c)
{
    bool ext = c->cq_count > 0 || (c->side.db_status && c->side.db_status(c->side.ctx) != 0);
    ksim_rv64_set_irq(&c->core, c->dbell & 1, ext);
}

/* A console byte into the FIFO. It never stalls the core: the 256th unread byte brings the
 * write pointer round to the read pointer, and all 256 read as gone. */
void ksim_rv64c_console(ksim_rv64c *c, uint8_t byte)
{
    c->cons[c->cons_wr++] = byte;
    if (c->cons_wr == c->cons_rd)
        c->cons_lost += KT_RV64_CONS_DEPTH;
}

void ksim_rv64c_mbox_reset(ksim_rv64c *c)
{
    c->m_dst = 0;
    memset(c->m_arg, 0, sizeof c->m_arg);
    c->offered = false;
    c->txn = 0;
    c->cq_head = c->cq_count = 0;
    c->overflow = false;
}

/* M_GO: build the CU_INST from the mailbox registers and offer it, unless one is still offered
 * (then the store does nothing and reports nothing). */
static void mbox_go(ksim_rv64c *c)
{
    if (c->offered) {
        c->ignored_go++;
        return;
    }
    kt_header h = {{(uint8_t)(c->m_dst & 0xf), (uint8_t)((c->m_dst >> 8) & 0xf)},
                   c->at,
                   KT_T_CU_INST,
                   c->txn++,
                   true,
                   0};
    memset(&c->out, 0, sizeof c->out);
    kt_header_put(&c->out, &h);
    for (unsigned i = 0; i < 4; i++)
        c->out.w[i] = c->m_arg[i];
    c->offered = true;
}

static uint64_t mbox_read(const ksim_rv64c *c, unsigned idx)
{
    switch (idx) {
    case 0: return c->m_dst;
    case 1:
    case 2:
    case 3:
    case 4: return c->m_arg[idx - 1];
    case 6:
        return (c->cq_count & KT_RV64_MSTAT_QUEUED) | (c->offered ? KT_RV64_MSTAT_OFFERED : 0) |
               (c->overflow ? KT_RV64_MSTAT_OVERFLOW : 0);
    case 7: return c->cq_count ? c->cq[c->cq_head] : 0;
    default: return 0; /* M_GO is write-only */
    }
}

static void mbox_write(ksim_rv64c *c, unsigned idx, uint64_t v)
{
    switch (idx) {
    case 0: c->m_dst = v & 0xf0f; break; /* x [3:0], y [11:8] */
    case 1:
    case 2:
    case 3:
    case 4: c->m_arg[idx - 1] = v; break;
    case 5: mbox_go(c); break;
    case 7: /* a store pops */
        if (c->cq_count) {
            c->cq_head = (c->cq_head + 1) % KT_RV64_CQ_DEPTH;
            c->cq_count--;
            ksim_rv64c_update_irq(c);
        }
        break;
    default: break; /* M_STAT is read-only */
    }
}

/* The 64-bit register a load at `reg` (8-aligned offset) reads. */
static uint64_t reg_read(ksim_rv64c *c, uint32_t reg)
{
    if (reg >= KT_RV64_R_MBOX && reg < KT_RV64_R_MOVER_CFG)
        return mbox_read(c, (reg >> 3) & 7);
    switch (reg) {
    case KT_RV64_R_DBELL: return c->dbell & 1;
    case KT_RV64_R_SATP: return c->core.csr.satp;
    case KT_RV64_R_MOVER: return c->side.mover_status ? c->side.mover_status(c->side.ctx) : 0;
    case KT_RV64_R_DBCOUNT: return c->side.db_status ? c->side.db_status(c->side.ctx) : 0;
    case KT_RV64_R_STDIN:
        return c->stdin_count ? KT_RV64_CONS_VALID | c->stdin_q[c->stdin_head] : 0;
    default: return 0; /* write-only registers and the undecoded rest */
    }
}

/* A store of the 64-bit value v to register `reg`; true when the program exited. */
static bool reg_write(ksim_rv64c *c, uint32_t reg, uint64_t v)
{
    if (reg >= KT_RV64_R_ILINK_CFG) {
        /* 0xC0 + k writes interlink register 0x80 + k; the host wins a collision there. */
        if (c->side.ilink_cfg)
            c->side.ilink_cfg(c->side.ctx, (uint8_t)(0x80 + (reg & 0x3f)), v);
        return false;
    }
    if (reg >= KT_RV64_R_MOVER_CFG) {
        /* Mover registers 0x00-0x3F only: the immediate and the gather pitch are out of reach. */
        if (c->side.mover_cfg)
            c->side.mover_cfg(c->side.ctx, (uint8_t)(reg & 0x3f), v);
        return false;
    }
    if (reg >= KT_RV64_R_MBOX) {
        mbox_write(c, (reg >> 3) & 7, v);
        return false;
    }
    switch (reg) {
    case KT_RV64_R_EXIT:
        c->exited = true;
        c->exit_word = v;
        return true;
    case KT_RV64_R_CONSOLE: ksim_rv64c_console(c, (uint8_t)v); return false;
    case KT_RV64_R_STDIN: /* a store pops */
        if (c->stdin_count) {
            c->stdin_head = (c->stdin_head + 1) % KT_RV64_STDIN_DEPTH;
            c->stdin_count--;
        }
        return false;
    default: return false; /* R_DBELL, R_SATP and the status words are read-only */
    }
}

uint64_t ksim_rv64c_ctrl_load(void *ctx, uint32_t off, unsigned width)
{
    uint64_t v = reg_read(ctx, off & ~7u) >> (8 * (off & 7));
    return width == 8 ? v : v & ((1ull << (8 * width)) - 1);
}

bool ksim_rv64c_ctrl_store(void *ctx, uint32_t off, unsigned width, uint64_t value)
{
    uint64_t v = width == 8 ? value : (value & ((1ull << (8 * width)) - 1)) << (8 * (off & 7));
    return reg_write(ctx, off & ~7u, v);
}

/* ---- the mailbox on the mesh ---- */

/* Always taken (rx_busy is held low): a CU_SIGNAL is queued, or dropped with the sticky
 * overflow bit when the queue is full; anything else is dropped. */
static bool ep_offer(void *ep, const kt_flit *f)
{
    ksim_rv64c *c = ep;
    kt_header h = kt_header_get(f);
    if (h.type != KT_T_CU_SIGNAL) {
        c->dropped_flits++;
        return true;
    }
    if (c->cq_count == KT_RV64_CQ_DEPTH) {
        c->overflow = true;
        return true;
    }
    kt_signal s = kt_signal_get(f);
    uint64_t word = ((uint64_t)(h.src.y & 0xf) << 52) | ((uint64_t)(h.src.x & 0xf) << 48) |
                    ((uint64_t)s.code << 40) | ((uint64_t)s.arg << 8);
    c->cq[(c->cq_head + c->cq_count++) % KT_RV64_CQ_DEPTH] = word;
    ksim_rv64c_update_irq(c);
    return true;
}

static const kt_flit *ep_peek(void *ep)
{
    ksim_rv64c *c = ep;
    return c->offered ? &c->out : NULL;
}

static void ep_pop(void *ep) { ((ksim_rv64c *)ep)->offered = false; }

const ksim_endpoint_ops ksim_rv64c_endpoint = {ep_offer, ep_peek, ep_pop, NULL};
